/* The core's entry points: plain C functions over caller-owned buffers, so that the Python
 * module and a WebAssembly build call the same code. A search never allocates, throws or
 * uses the standard library; it reads the stop flag the caller hands in.
 *
 * This file is the one description of the interface. cpmodels/_core/interface.py reads it
 * (strictly: anything it does not read is an error naming the line) and generates the
 * source of cpcore_interface, compiled into engine.wasm, from which engine.js takes every
 * struct's fields, kinds, offsets and size and every entry point's parameter kinds; the
 * tests make their ctypes structs from it and check the layouts' named tuples against it.
 * So what is written here is written once:
 *   - a struct is a typedef of a struct of the same name, starting cpcore_, whose fields
 *     are whole numbers (uint64_t, int64_t, int, unsigned) and pointers (to whole numbers,
 *     uint8_t, int8_t, char or such a struct), one or more names a line, and no arrays (a
 *     pointer and its length instead);
 *   - an entry point is a function whose name starts cpcore_, over the same types,
 *     returning void, a whole number or a pointer;
 *   - a constant is ``#define CPCORE_NAME value`` (a status, a limit, a grid's code) or
 *     an enumerator, CPCORE_NAME, of an enum named cpcore_ (a typedef'd enum is a type of
 *     its own, an int).
 * A comment beside a pointer gives its shape in brackets: ``[n_options, n_words]`` is
 * n_options rows of n_words, row-major. Counts are whole numbers of entries, not bytes;
 * a call that writes into the caller's buffers takes their capacities and reports what it
 * needs in ``sizes`` (a first call with no buffers measures). Calls with many inputs take
 * them as one struct (cpcore_*_input). What is declared inside ``#ifndef __wasm__`` is the
 * native module's alone: engine.wasm neither builds nor describes it. */
#pragma once

#include <stdint.h>

/* A WebAssembly build exports every entry point declared here, and nothing else (its
 * sources are compiled with hidden visibility). */
#ifdef __wasm__
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when this build uses the popcnt instruction (the module checks the processor has it). */
int cpcore_needs_popcnt(void);

/* This interface as JSON, written to out (up to capacity bytes, NUL-ended when there is room)
 * by a source generated from this file (cpmodels/_core/interface.py): each struct's fields
 * with their kinds and offsets and its size, as this build's compiler lays them out; each
 * entry point's return and parameter kinds; each constant's value. Returns the length. The
 * Python module (_native.interface) and engine.wasm carry it. */
uint64_t cpcore_interface(char* out, uint64_t capacity);

/* The searches' statuses: what a search entry point answers where a count, a node figure or
 * a verdict would be (those are never negative). Every search is handed one stop flag, its
 * parameter ``stop`` or its call struct's field ``stop`` (an int64 the caller owns and
 * another thread may set at any time; no search reads one anywhere else), looks at it
 * before each task and every 4,096 nodes (cpcore/search.hpp), and, once it sees it set,
 * returns at once keeping nothing partial (a task after the first failure of a
 * first_failure call is not answered either). */
#define CPCORE_STOPPED (-1)      /* not answered: the stop flag was set first */
#define CPCORE_TOO_DEEP (-2)     /* the search needed more levels than its buffers hold */
#define CPCORE_CAPPED (-3)       /* the search reached its cap of nodes first */
#define CPCORE_NO_SOLUTION (-4)  /* the whole tree searched: no solution */
#define CPCORE_LEFT_OUT_TALLY (-5)  /* refused, nothing written: a tally item may be left out */

/* The one-word layout (a board of at most 64 cells in one word, the units in another; see
 * cpmodels/backends/engine/layouts/cover.py's OneWord), the tallies read with it (OneTallies) and
 * the table of sub-board counts (rows of three words; stats as memo.py names them). */
typedef struct cpcore_one_word {
    const uint64_t* start;       /* [64 * n_pieces + 1] runs of masks by (anchor, piece) */
    const uint64_t* masks;       /* the options' cell masks, in runs */
    const int64_t* opts;         /* their option ids */
    const uint64_t* avail;       /* [64] the pieces with options at each anchor */
    const uint64_t* opt_cells;   /* [n_options] */
    const uint64_t* opt_piece;   /* [n_options] */
    uint64_t n_options, n_pieces, all_pieces, optional, covered, inner, first, last, slack;
    const uint8_t* fillable;     /* [n_fillable] */
    uint64_t n_fillable;
    int64_t region_limit;
    int isolated_dead;
    const uint64_t* slack_cells;  /* [64] */
} cpcore_one_word;

typedef struct cpcore_one_tallies {
    uint64_t n_tally;
    const uint64_t* bit;        /* [n_tally] */
    const int64_t* opt_tally;   /* [n_options] */
    const int64_t* opt_index;   /* [n_options] */
    const int64_t* length;      /* [2 ** n_tally] */
    const int64_t* stride;      /* [2 ** n_tally, stride_cols] */
    uint64_t stride_cols;
    const int64_t* map_start;
    const int64_t* map_flat;
} cpcore_one_tallies;

typedef struct cpcore_one_word_table {
    uint64_t* keys;   /* [n_slots, width] */
    uint64_t n_slots; /* a power of two */
    int64_t* arena;   /* [arena_size] */
    uint64_t arena_size;
    int64_t* stats;   /* USED, HITS, MISSES, NODES, ARENA_USED, (the caller's), FLUSHES */
    uint64_t first_live; /* the slots a table of over 2**20 slots probes first (a power of
                            two at or below it; 0: 2**14), doubled as it fills */
} cpcore_one_word_table;

/* out[p]: the completions of row p of prefixes (option ids forced first; -1 pads), 0 when
 * they overlap; rows a stop left uncounted are -1. */
void cpcore_count_one_word(const cpcore_one_word* layout, const int64_t* prefixes,
                           uint64_t rows, uint64_t cols, cpcore_one_word_table* table,
                           int use_memo, int64_t* out, const int64_t* stop);

/* The one-word count's next branching step below a task (option ids; -1 pads; options that
 * clash are put down all the same): the options anchored at the first empty cell it leaves
 * whose cells and piece are free, in ascending order, written to out (room for n_options).
 * Returns how many were written (0: none fits), or -1 when the task fills the board or
 * names an option the layout does not have (the cut is then the general layout's). */
int64_t cpcore_split_one_word(const cpcore_one_word* layout, const int64_t* task,
                              uint64_t n_task, int64_t* out);

/* Row p of prefixes tallied into out[p] (out_cols counts a row), its uncovered tally items
 * in out_mask[p]; a stop leaves the rows from the one it met uncounted. scratch: zeros,
 * (n_pieces + 1) * out_cols of them. Returns 0, or CPCORE_LEFT_OUT_TALLY, writing nothing,
 * when a tally item's bit is in the layout's optional pieces: a piece that may be left out
 * has a left-out option no node places, so its counts could not be split by it (the items
 * cpcore_one_word_tally_bits accepts never are). */
int64_t cpcore_tally_one_word(const cpcore_one_word* layout, const cpcore_one_tallies* tallies,
                           const int64_t* prefixes, uint64_t rows, uint64_t cols,
                           cpcore_one_word_table* table, int use_memo, int64_t* out,
                           uint64_t out_cols, int64_t* out_mask, int64_t* scratch,
                           const int64_t* stop);

/* The reach search's layout (cpmodels/backends/engine/layouts/reach.py's ReachLayout and
 * ReachRegions: fill[k, size], size 0 .. fill_cols - 1). */
typedef struct cpcore_reach_layout {
    const uint64_t* start;      /* [64 * n_units + 1] */
    const uint64_t* masks;
    const uint64_t* avail;      /* [64] */
    const uint64_t* opt_cells;  /* [n_options] */
    const uint64_t* opt_unit;   /* [n_options] */
    uint64_t n_options, n_units, slack_units, optional, covered, inner, first, last;
    const uint64_t* group_cells;  /* [n_groups] */
    const uint64_t* group_unit;   /* [n_groups] */
    uint64_t n_groups;
    int64_t bit_group, a_group, b_group;
    const uint64_t* a_label;  /* [64] */
    const uint64_t* b_label;  /* [64] */
    uint64_t a_stride, n_index;
    const uint8_t* fill;      /* [n_groups + 1, fill_cols] */
    uint64_t fill_cols, limit;
} cpcore_reach_layout;

/* The reach search's view of a one-word layout's label groups (src/reach_groups.cpp; reach.py's
 * reach_layout): the slack units with their cells, the group of the most labels (the bit
 * group, the first of equals) and the others in order (a, then b; -1 for none), each cell bit
 * of theirs numbered as its label in bit order, the group the layout's scan meets last, and
 * the rank of the layout's corner. ``suits`` is 1 when the reach search suits the layout: one
 * to three groups, each with cells, and each option's cells joined through their sides. */
typedef struct cpcore_reach_groups {
    int64_t suits;
    uint64_t n_groups;
    uint64_t* group_cells;  /* [3] out */
    uint64_t* group_unit;   /* [3] out */
    int64_t bit_group, a_group, b_group, last_group;
    uint64_t* a_label;      /* [64] out */
    uint64_t* b_label;      /* [64] out */
    uint64_t a_stride, n_index, n_cells;
    int64_t rank;  /* of the corner: a design takes the highest, the first of equals */
} cpcore_reach_groups;

/* ``out``'s numbers and arrays for ``layout`` (its arrays zeroed past the groups). */
void cpcore_reach_groups_of(const cpcore_one_word* layout, cpcore_reach_groups* out);

/* The region sizes a set's pieces fill on the reach search's board (reach.py's
 * ReachRegions, src/reach_groups.cpp): row k of fill (k = 0 .. n_groups, total + 1 sizes a
 * row) the sizes pieces of ``areas`` (each once, positive) and k holes of one cell fill
 * (cpcore_region_sizes of the areas and k areas of 1); returns the largest of the rows'
 * limits (regions smaller than it are checked; 0: none). */
uint64_t cpcore_reach_fills(const int64_t* areas, uint64_t n, uint64_t n_groups, uint64_t total,
                            uint8_t* fill);

/* One reach search per row of tasks (reach.py's reach_kernel): found[n] 1, 0, or -1 when
 * not searched. table: rows of four words marked ``mark + t`` by task t; settled: rows of
 * four words for good, and when its arena holds a byte a slot (arena_size * 8 >= n_slots)
 * the slots' tags there (zeros at first; src/reach.cpp); need: n_index words of scratch. */
void cpcore_reach(const cpcore_reach_layout* layout, const int64_t* forced, uint64_t n_forced,
                  const int64_t* tasks, uint64_t rows, uint64_t cols,
                  const int64_t* wanted_start, cpcore_one_word_table* table,
                  cpcore_one_word_table* settled, uint64_t mark, const int64_t* index,
                  const uint64_t* bit, int64_t* found, uint64_t n_found, int first_failure,
                  uint64_t* need, const int64_t* stop);
/* A design's sets decided date by date on its calendar's sweep cover (src/design.cpp;
 * cpmodels/design/search.py): for each set (its pieces left out: forced options), the first
 * required date in the learnt order that no solution holds, or none. Each set asks the
 * reach search (cpcore_reach, on its tables) first for the dates at the front of the order
 * (those that rejected a set while the order was learnt), one search each, then for the
 * eight dates past it that failed first most often (``late``: counted by every call), one
 * search each, then for the others grouped by their holes but the group left open
 * (``held``), one search a group,
 * which ends at its first date without a solution; the search goes on with the dates before
 * that one until none is left. With ``learning``, each failure moves its date to the front
 * of ``order`` (the order the next sets of the call and of later calls try). A date is a
 * row of the arrays below; its combination is encoded as reach.py's (index, bit). */
typedef struct cpcore_design_input {
    const cpcore_reach_layout* layout;  /* the cover's; fill and limit are each set's */
    cpcore_one_word_table* reached;     /* the reach search's tables (as cpcore_reach's) */
    cpcore_one_word_table* settled;
    uint64_t* calls;            /* [1] the table marks taken: task t of a search marks
                                   calls + 1 + t, then calls grows by its tasks and one */
    uint64_t n_dates, hole_cols;
    const int64_t* holes;       /* [n_dates, hole_cols] each date's holes (-1 pads) */
    const int64_t* held;        /* [n_dates, hole_cols] ... but the group left open's */
    const int64_t* group;       /* [n_dates] dates with the same held holes: 0 .. n_dates - 1 */
    const int64_t* index;       /* [n_dates] */
    const uint64_t* bit;        /* [n_dates] */
    int64_t* order;             /* [n_dates] every date once, the first tried first */
    uint8_t* front;             /* [n_dates] 1: a date searched alone, ahead of the groups */
    int64_t* late;              /* [n_dates] how often each was a first failure past it */
    uint64_t n_sets, forced_cols;
    const int64_t* forced;      /* [n_sets, forced_cols] each set's options (-1 pads) */
    const int64_t* shape;       /* [n_sets] each set's region sizes: a row of fills */
    uint64_t n_shapes, fill_cols;
    const uint8_t* fills;       /* [n_shapes, (n_groups + 1) * fill_cols] as ReachRegions */
    const uint64_t* limits;     /* [n_shapes] */
    int learning;
    int64_t* failure;           /* [n_sets] out: the date, n_dates for none, CPCORE_STOPPED */
    int64_t* decided;           /* [1] the sets decided so far (another thread may read it) */
    int64_t* work;              /* [cpcore_design_work_words(n_dates, hole_cols)] */
    uint64_t* need;             /* [n_index] */
    const int64_t* stop;
} cpcore_design_input;

/* How many of a design's first candidate sets its order of dates is learnt from
 * (src/design.cpp; Design.learning_sets, the page's counts.js): 64, or one in 25 of the
 * ``asked`` sets its draws allow (before the area check) when that is more, at most 320. */
uint64_t cpcore_design_learning_sets(uint64_t asked);

/* The words of cpcore_design's work buffer. */
uint64_t cpcore_design_work_words(uint64_t n_dates, uint64_t hole_cols);
/* Every set of the input decided in turn (``failure``); returns the sets decided, or
 * CPCORE_STOPPED when the stop flag ended the call first (the sets after are not). */
int64_t cpcore_design(const cpcore_design_input* in);

/* What cpcore_design_dates returns for a date it cannot encode (nothing is written past
 * the dates before it). */
#define CPCORE_DATES_NOT_A_HOLE (-15)   /* an option that is no label's hole (slack option) */
#define CPCORE_DATES_GROUP_HOLES (-16)  /* not one hole in each label group */

/* A design's required dates, each a row of holes (the slack options its labels leave open,
 * any order, -1 pads), made into what cpcore_design reads of them (src/design_dates.cpp).
 * For date d: held[d], its holes but those of the group ``left_open`` (the group the
 * layout's scan meets last, which the searches leave open; -1: none), in its row's order,
 * -1 padded; group[d], a number shared by the dates that hold the same held holes in the
 * same order, 0, 1, ... as first met; index[d] and bit[d], its combination as cpcore_reach
 * reads it (the labels of the groups a_group and b_group as one index, the bit group's hole
 * as its cell's bit). */
typedef struct cpcore_dates_input {
    const cpcore_reach_layout* layout;  /* its region sizes are not read */
    int64_t left_open;
    uint64_t n_dates, hole_cols;
    const int64_t* holes;  /* [n_dates, hole_cols] */
    int64_t* held;         /* [n_dates, hole_cols] out */
    int64_t* group;        /* [n_dates] out */
    int64_t* index;        /* [n_dates] out */
    uint64_t* bit;         /* [n_dates] out */
    int64_t* work;         /* [cpcore_design_dates_work_words(n_dates)] */
} cpcore_dates_input;

/* The words of cpcore_design_dates' work buffer. */
uint64_t cpcore_design_dates_work_words(uint64_t n_dates);
/* The dates made (0), or the CPCORE_DATES_* code of the first date that is refused. */
int64_t cpcore_design_dates(const cpcore_dates_input* in);

/* ``design --best K``'s ranking (src/design_best.cpp; cpmodels/design/best.py): which of a
 * design's working sets to count next so that the K best (the most solutions on their
 * hardest required date, then the most in all, then the first by name: ``rank``) come
 * without counting every set in full. The caller keeps the state and does what each step
 * says: CPCORE_BEST_PROBE, count set ``set`` alone on each of ``dates`` (the leaders'
 * hardest dates it was not counted on; n_out of them) and give each count to
 * cpcore_design_best_known (a set's least such count bounds its fewest, and the open set of
 * the highest bound, the first of equals, goes next); CPCORE_BEST_COUNT, count set ``set``
 * in full, stopping at a required date with fewer solutions than ``floor`` (the K-th
 * leader's fewest; -1 while there are fewer leaders), and when it was not stopped give its
 * fewest, its date and its total to cpcore_design_best_counted; CPCORE_BEST_DONE, every
 * open set has a date below the floor, or none is left: the leaders are the best. */
#define CPCORE_BEST_DONE 0
#define CPCORE_BEST_PROBE 1
#define CPCORE_BEST_COUNT 2
#define CPCORE_BEST_INPUT (-18)  /* a set, a date or a figure out of range */
typedef struct cpcore_best_state {
    uint64_t n_sets, n_dates, best;
    const int64_t* rank;  /* [n_sets] each set's place among the sets in the order of names */
    uint8_t* open;        /* [n_sets] 1 until counted in full (all 1 at first) */
    uint8_t* known;       /* [n_sets, n_dates] 1: counted alone on that date (0 at first) */
    int64_t* bound;       /* [n_sets] its least count alone; -1 (none, above all) at first */
    int64_t* leaders;     /* [best, 4] the best so far, ranked: set (-1: none yet), fewest,
                             total, the date of its fewest */
    int64_t set, floor;   /* out */
    int64_t* dates;       /* [best] out */
    uint64_t n_out;       /* out */
} cpcore_best_state;

/* The next step (CPCORE_BEST_*), or CPCORE_BEST_INPUT. */
int64_t cpcore_design_best_step(cpcore_best_state* state);
/* Set ``set`` counted alone on ``date``: 0, or CPCORE_BEST_INPUT. */
int64_t cpcore_design_best_known(cpcore_best_state* state, int64_t set, int64_t date,
                                 int64_t count);
/* Set ``set`` counted in full: among the leaders when it ranks among the best; 0, or
 * CPCORE_BEST_INPUT. */
int64_t cpcore_design_best_counted(cpcore_best_state* state, int64_t set, int64_t fewest,
                                   int64_t total, int64_t date);

/* A working set's verdict from its count of each required date (src/design_best.cpp;
 * Design.add_counts, the page's design.js): summary[0] the date of the fewest (the first such
 * in the dates' order), summary[1] that count, summary[2] the most, summary[3] the total.
 * Returns 0, or CPCORE_BEST_INPUT for no dates, a count below 0, or a total past int64. */
int64_t cpcore_design_summary(const int64_t* counts, uint64_t n_dates, int64_t* summary);

/* Solids on bits (cpmodels/backends/engine/kernels/bit_cover.py): the solutions with the forced
 * options (their indices) and the nodes in *nodes; CPCORE_STOPPED, or CPCORE_TOO_DEEP when
 * the search needed more than rows levels. live: 2 * rows * n_options words; frame:
 * cpcore_bit_cover_frame_words(rows) words. */
uint64_t cpcore_bit_cover_frame_words(uint64_t rows);
int64_t cpcore_bit_cover_count(const uint64_t* opt_low, const uint64_t* opt_high,
                               uint64_t n_options, uint64_t need_low, uint64_t need_high,
                               const int64_t* forced, uint64_t n_forced, const int64_t* stop,
                               uint64_t rows, uint64_t* live, uint64_t* frame,
                               uint64_t* nodes);

/* Dancing links (cpmodels/backends/engine/kernels/links.py), over the caller's copy of the links.
 * take: cover the items of the options whose first nodes are forced (0: two share an
 * item); most_constrained: the item to cover with the fewest options left (0: none);
 * count: take, then the solutions and the nodes in *nodes (CPCORE_STOPPED, or
 * CPCORE_TOO_DEEP for more than n_levels levels); levels: 2 * n_levels words. */
int cpcore_links_take(const int64_t* top, int64_t* up, int64_t* down, int64_t* length,
                      int64_t* prev, int64_t* next, const int64_t* forced, uint64_t n_forced);
int64_t cpcore_links_most_constrained(const int64_t* length, const int64_t* next);
int64_t cpcore_links_count(const int64_t* top, int64_t* up, int64_t* down, int64_t* length,
                           int64_t* prev, int64_t* next, const int64_t* forced,
                           uint64_t n_forced, const int64_t* stop, int64_t* levels,
                           uint64_t n_levels, uint64_t* nodes);

/* A date's difficulty (cpmodels/backends/engine/kernels/difficulty.py): the options a first-empty-
 * cell backtracker puts down up to its first solution, from filled and used (changed while
 * it runs); CPCORE_CAPPED at max_nodes, CPCORE_NO_SOLUTION when it exhausts the tree,
 * CPCORE_STOPPED. stack: 3 * (n_cells + 1) words. */
int64_t cpcore_first_solution_nodes(uint64_t n_cells, uint8_t* filled, int64_t* used,
                                    uint64_t n_counters, const int64_t* capacity,
                                    const int64_t* low, const int64_t* start,
                                    const int64_t* listed, const int64_t* cells,
                                    const int64_t* cells_start, const int64_t* counters,
                                    const int64_t* counters_start, int64_t max_nodes,
                                    int64_t* stack, const int64_t* stop);
/* --- the towers programme (cpcore/towers.hpp; towers/programme.py) -------------------- */

/* A layer of the programme: an open-addressing table of n_slots states (keys, all ones for
 * a free slot) and their scores (vals). */
typedef struct cpcore_towers_layer {
    const uint64_t* keys;  /* [n_slots] */
    const int64_t* vals;   /* [n_slots] */
    uint64_t n_slots;
} cpcore_towers_layer;

/* A table the next layer is written into (n_slots a power of two). */
typedef struct cpcore_towers_into {
    uint64_t* keys;  /* [n_slots] */
    int64_t* vals;   /* [n_slots] */
    uint64_t n_slots;
} cpcore_towers_into;

/* The cell a step fills: shape is i, j, rows, cols, bits per column, the code of "no cell";
 * table[up][left][k] what colour k scores there ([none + 1, none + 1, n_codes]); needs[k]
 * the mask colour k needs; allowed the colours that may go there. */
typedef struct cpcore_towers_cell {
    const int64_t* shape;  /* [6] */
    const int64_t* table;
    const int64_t* needs;  /* [n_codes] */
    uint64_t n_codes;
    int64_t allowed;
} cpcore_towers_cell;

/* The step writes the successors of ``from`` scoring at least ``floor`` into ``into`` from
 * position *at on (0: a fresh table, emptied first) and stops when ``into`` is half full,
 * with *at where to go on once the caller has moved it to a bigger table (rehash). Returns
 * the states ``into`` holds (``used`` before the call). */
uint64_t cpcore_towers_step(const cpcore_towers_layer* from, const cpcore_towers_cell* cell,
                            int64_t floor, const cpcore_towers_into* into, uint64_t used,
                            uint64_t* at);
/* ``from``'s states moved into ``into`` (emptied first), in slot order. */
void cpcore_towers_rehash(const cpcore_towers_layer* from, const cpcore_towers_into* into);
/* The first state of ``from`` and the colour (*colour) that lead to ``target`` with score
 * ``value``; -1 (and -1) when there is none. */
int64_t cpcore_towers_predecessor(const cpcore_towers_layer* from,
                                  const cpcore_towers_cell* cell, uint64_t target,
                                  int64_t value, int64_t* colour);
/* The best score of a layer (-2**62 when it is empty). */
int64_t cpcore_towers_best(const cpcore_towers_layer* layer);

/* --- the DRUP checker (drup.py) -------------------------------------------------------- */

/* A formula and its proof. Clause c is lits[start[c] .. start[c] + length[c] - 1] (the
 * checker reorders a clause's literals as its watches move); the first n_formula clauses are
 * the formula's, the rest the proof's. Step s is step_kind[s] (0: add clause step_clause[s],
 * checked by reverse unit propagation; 1: delete it, -1 for a clause not found; 2: add again,
 * unchecked, a clause derived before). units: the indices of the unit clauses, the formula's
 * n_units_formula first, with room for each unit the proof adds. */
typedef struct cpcore_drup_proof {
    int64_t n_vars, n_formula, n_clauses;
    int64_t* lits;
    const int64_t* start;        /* [n_clauses] */
    const int64_t* length;       /* [n_clauses] */
    int64_t n_steps;
    const int64_t* step_kind;    /* [n_steps] */
    const int64_t* step_clause;  /* [n_steps] */
    int64_t* units;
    int64_t n_units_formula;
} cpcore_drup_proof;

/* The checker's working memory (its contents need not be set). */
typedef struct cpcore_drup_work {
    uint8_t* active;    /* [n_clauses] whether a clause is in the formula now */
    int64_t* head;      /* [2 * n_vars] each literal's first watch (2 * clause + position) */
    int64_t* next;      /* [2 * n_clauses] each watch's next one on the same literal */
    int8_t* value;      /* [n_vars] 1 true, -1 false, 0 open */
    int64_t* trail;     /* [n_vars + 1] the literals made true, in order */
    int8_t* top_level;  /* [n_vars] the values the active units imply */
} cpcore_drup_work;

/* The index of the first step that fails, ``n_steps`` when the proof does not reach the
 * empty clause, -1 when it holds. */
int64_t cpcore_drup_check(const cpcore_drup_proof* proof, const cpcore_drup_work* work);

/* --- the CNF split search's next step (backends/cnf.py) -------------------------------- */

/* An exact cover's incidence: option j covers items opt_items[opt_start[j] ..
 * opt_start[j + 1] - 1], item i is covered by options item_opts[item_start[i] ..
 * item_start[i + 1] - 1] and must be covered at least low[i] times. */
typedef struct cpcore_cnf_incidence {
    uint64_t n_options, n_items;
    const int64_t* opt_start;   /* [n_options + 1] */
    const int64_t* opt_items;
    const int64_t* item_start;  /* [n_items + 1] */
    const int64_t* item_opts;
    const int64_t* low;         /* [n_items] */
} cpcore_cnf_incidence;

/* The step's working memory (its contents need not be set). */
typedef struct cpcore_cnf_work {
    uint8_t* possible;  /* [n_options] neither taken nor ruled out */
    uint8_t* taken;     /* [n_options] */
    int64_t* need;      /* [n_items] coverings still needed */
    int64_t* room;      /* [n_items] possible options covering it */
} cpcore_cnf_work;

/* Where the split search goes from a propagated part (its literals; variable j + 1 is
 * option j): DEAD 0, ITEM 1 (the item with the least room, its possible options written to
 * ``out``), OPTION 2 (an open option), SOLVED 3, with ``found`` = (item or option, options
 * written to ``out``). */
int64_t cpcore_cnf_next_step(const cpcore_cnf_incidence* incidence, const int64_t* lits,
                             uint64_t n_lits, const cpcore_cnf_work* work, int64_t* out,
                             int64_t* found);

/* --- the packing searches (cpcore/packing_search.hpp) --------------------------------- */

/* What every packing search reads of a compiled cover (layouts/cover.py's Layout). */
typedef struct cpcore_packing_cover {
    const int64_t* opt_counter;   /* [options] the option's counter, or -1 */
    const int64_t* anchor_start;  /* [n_branch + 1] into anchor_opts */
    const int64_t* anchor_opts;   /* option ids grouped by anchor, then by tag */
    const int64_t* group_end;     /* [len(anchor_opts)] the end of each tag's run */
    const int64_t* counter_low;
    const int64_t* counter_high;
    const uint64_t* radix;        /* counter code = sum(counter * radix) */
    uint64_t n_counters;
    uint64_t n_branch;
    int memo_ok;
    const int64_t* opt_nb_start;  /* [options + 1] into opt_nb */
    const int64_t* opt_nb;        /* board-cell bits next to each option */
    const uint8_t* fillable;      /* fillable[k]: k cells can be filled */
    int64_t region_limit;         /* regions smaller than this are checked (0: none) */
} cpcore_packing_cover;

/* The two-word state's view of the cover (words.py's WordLayout). */
typedef struct cpcore_two_words {
    const uint64_t* opt_a;
    const uint64_t* opt_b;
    const uint64_t* k_a;  /* the same, and the tags and counters, by anchor_opts index */
    const uint64_t* k_b;
    const uint64_t* k_tag_a;
    const uint64_t* k_tag_b;
    const int64_t* k_counter;
    const uint64_t* nb_a;  /* [n_branch] each cell's neighbours */
    const uint64_t* nb_b;
    uint64_t branch_a;     /* the exact-one items' bits */
    uint64_t branch_b;
    int64_t memo_below;    /* states with fewer uncovered exact-one items are kept */
    unsigned n_words;      /* 1 or 2: the words of a memo key */
} cpcore_two_words;

/* The N-word state's view of the cover. */
typedef struct cpcore_n_words {
    const uint64_t* opt_mask;  /* [options, n_words] */
    uint64_t n_words;
    const int64_t* tag_word;   /* [options] the word of the option's tag bit, or -1 */
    const uint64_t* tag_bit;
    const int64_t* cell_nb;    /* [n_branch, degree] neighbouring cell bits, -1 padded */
    uint64_t degree;
} cpcore_n_words;

/* How counts split by the options covering the tally items (tally.py's Tallies). */
typedef struct cpcore_tallies {
    int64_t n_tally;
    const int64_t* bit;
    const int64_t* last_anchor;
    const int64_t* opt_tally;
    const int64_t* opt_index;
    const int64_t* length;     /* [2**n_tally] */
    const int64_t* stride;     /* [2**n_tally, max(n_tally, 1)] */
    const int64_t* map_start;
    const int64_t* map_flat;
} cpcore_tallies;

/* A memo table (cpcore/table.hpp; memo.py's Memo). */
typedef struct cpcore_table {
    uint64_t* keys;
    int64_t* values;        /* slot s's value at values[s * value_stride] */
    int64_t* arena;
    int64_t* stats;         /* memo.py's USED .. FLUSHES */
    uint64_t n_slots;
    uint64_t key_stride;
    uint64_t value_stride;
    uint64_t n_arena;
} cpcore_table;

/* A packing search's working memory (depth_max = n_branch + 1). */
typedef struct cpcore_search_buffers {
    int64_t* acc;           /* [depth_max, acc_width] count vectors (tallies only) */
    uint64_t acc_width;
    int64_t* stack_pos;     /* [depth_max] each */
    int64_t* stack_k;
    uint64_t* stack_code;
    int64_t* stack_mask;
    int64_t* chosen;
    int64_t* counters;      /* [n_counters] */
    uint64_t* filled;       /* [n_words] (the N-word state) */
    uint64_t* scratch;      /* [2, n_words] (the N-word state's region fills) */
    int64_t* fill_stack;    /* [n_branch + 1] */
} cpcore_search_buffers;

/* What a search over rows of forced options is given, whatever its layout: the cover, the
 * memo table and whether the existence search consults and fills it (use_table; the tallies
 * always do), n_prefixes rows of ``width`` option ids each, forced first (-1 pads a row),
 * the working memory, and the stop flag (a nonzero *stop ends the search). */
typedef struct cpcore_prefix_call {
    const cpcore_packing_cover* cover;
    const cpcore_table* table;
    int use_table;
    const int64_t* prefixes;   /* [n_prefixes, width] */
    uint64_t n_prefixes;
    uint64_t width;
    const cpcore_search_buffers* buffers;
    const int64_t* stop;
} cpcore_prefix_call;

/* Tally the completions of each of the call's rows on the two-word or the N-word layout:
 * row p's counts to out[p * out_width ..], its uncovered tally items to out_mask[p]. */
void cpcore_tally_prefixes_two_words(const cpcore_prefix_call* call,
                                     const cpcore_two_words* layout,
                                     const cpcore_tallies* tallies, int64_t* out,
                                     uint64_t out_width, int64_t* out_mask);
void cpcore_tally_prefixes_n_words(const cpcore_prefix_call* call, const cpcore_n_words* layout,
                                   const cpcore_tallies* tallies, int64_t* out,
                                   uint64_t out_width, int64_t* out_mask);

/* For each of the call's rows, whether some solution contains it: out[p] = 1 or 0 (rows
 * after a stop, or after the first 0 with first_failure, are left as they were). */
void cpcore_exists_two_words(const cpcore_prefix_call* call, const cpcore_two_words* layout,
                             int64_t* out, int first_failure);
void cpcore_exists_n_words(const cpcore_prefix_call* call, const cpcore_n_words* layout,
                           int64_t* out, int first_failure);

/* The resumable solution stream over buffers->filled, counters, chosen and the stacks
 * (state[0]: depth, -1 before the start, -2 when finished; state[1]: solutions written). */
void cpcore_search_n_words(const cpcore_packing_cover* cover, const cpcore_n_words* layout,
                           int64_t* state, const cpcore_search_buffers* buffers, int64_t* out,
                           uint64_t out_width, int64_t max_out, const int64_t* stop);

/* --- which search answers a question (src/choice.cpp) ---------------------------------- */

/* The questions a cover is asked: its counts or tallies, whether a task has a solution, its
 * solutions one by one. */
typedef enum cpcore_question {
    CPCORE_ASK_TALLY = 0,
    CPCORE_ASK_EXISTS = 1,
    CPCORE_ASK_SOLUTIONS = 2
} cpcore_question;

/* What a cover's layouts offer, as bits of one number (the caller lays the cover out and
 * says what it found; a layout the caller does not make is not offered). */
#define CPCORE_OFFERS_ONE_WORD 1          /* the one-word layout suits the cover */
#define CPCORE_OFFERS_SLACK 2             /* ... and the cover has slack items */
#define CPCORE_OFFERS_TALLIES 4           /* the counts are tallied by some items */
#define CPCORE_OFFERS_ONE_WORD_TALLIES 8  /* ... and the one-word kernel can tally them */
#define CPCORE_OFFERS_TWO_WORDS 16        /* the two-word layout (at most 128 bits) */
#define CPCORE_OFFERS_LINKS 32            /* a solid: counted by its most constrained item */
#define CPCORE_OFFERS_BITS 64             /* ... whose items fit two words of bits */

/* The searches that answer, each named by cpcore_search_name as the entry point (or, for the
 * solids, the engine's kernel) that runs it. */
typedef enum cpcore_search {
    CPCORE_SEARCH_NONE = 0,
    CPCORE_SEARCH_TALLY_ONE_WORD = 1,           /* cpcore_tally_one_word */
    CPCORE_SEARCH_COUNT_ONE_WORD = 2,           /* cpcore_count_one_word */
    CPCORE_SEARCH_TALLY_TWO_WORDS = 3,          /* cpcore_tally_prefixes_two_words */
    CPCORE_SEARCH_TALLY_N_WORDS = 4,            /* cpcore_tally_prefixes_n_words */
    CPCORE_SEARCH_EXISTS_TWO_WORDS = 5,         /* cpcore_exists_two_words */
    CPCORE_SEARCH_EXISTS_N_WORDS = 6,           /* cpcore_exists_n_words */
    CPCORE_SEARCH_SOLUTIONS_N_WORDS = 7,        /* cpcore_search_n_words */
    CPCORE_SEARCH_COUNT_BITS = 8,               /* cpcore_bit_cover_count */
    CPCORE_SEARCH_COUNT_LINKS = 9               /* cpcore_links_count */
} cpcore_search;

/* The search that answers ``question`` on a cover whose layouts offer ``offers``
 * (CPCORE_OFFERS_* bits); CPCORE_SEARCH_NONE for a question the core does not know. */
int cpcore_choose_search(int question, int offers);
/* The name of a search (its entry point without "cpcore_"; "" for none): a string of the
 * core's, never freed. */
const char* cpcore_search_name(int search);

/* --- the branching step (src/branching.cpp, over cpcore/packing_search.hpp) ------------- */

/* Place the options of ``task`` (n_task option ids; -1 pads) on an empty N-word state:
 * filled (n_words words) and counters (n_counters) are written. Returns 1 when they fit
 * together (no item covered twice, no piece used more than it may be), else 0. */
int cpcore_force_n_words(const cpcore_packing_cover* cover, const cpcore_n_words* layout,
                         const int64_t* task, uint64_t n_task, uint64_t* filled,
                         int64_t* counters);
/* The search's next branching step below ``task``: the task forced as cpcore_force_n_words
 * does (whether or not its options fit), then each option that can cover the first item it
 * leaves open, written to out (room for that item's anchored options: at most
 * anchor_start[n_branch] in all). Returns how many were written (0: nothing is left open,
 * or no option fits). */
int64_t cpcore_split_n_words(const cpcore_packing_cover* cover, const cpcore_n_words* layout,
                             const int64_t* task, uint64_t n_task, uint64_t* filled,
                             int64_t* counters, int64_t* out);

/* --- where a piece can go (cpcore/placements.hpp; geometry.py) ------------------------- */

/* Grids as grids.py names them (GRID_NAMES' order); a cell is 2 coordinates (3 on the cube
 * grid), each within CPCORE_MAX_COORDINATE of 0; at most CPCORE_MAX_GEOMETRY_CELLS cells. */
#define CPCORE_GRID_SQUARE 0
#define CPCORE_GRID_TRIANGLE 1
#define CPCORE_GRID_HEX 2
#define CPCORE_GRID_CUBE 3
#define CPCORE_MAX_COORDINATE (((int64_t)1) << 30)
#define CPCORE_MAX_GEOMETRY_CELLS (((uint64_t)1) << 24)
/* What the geometry calls return instead of the words they wrote. */
#define CPCORE_GEOMETRY_SMALL_BUFFER (-1)   /* a buffer is smaller than the call needs */
#define CPCORE_GEOMETRY_UNKNOWN_GRID (-2)
#define CPCORE_GEOMETRY_COORDINATE (-3)     /* a coordinate past CPCORE_MAX_COORDINATE */
#define CPCORE_GEOMETRY_TOO_MANY_CELLS (-4)
#define CPCORE_GEOMETRY_EMPTY_SHAPE (-5)
#define CPCORE_GEOMETRY_BAD_SHAPES (-6)     /* shape_start does not run up its cells */

/* The caller's buffers of a geometry call (orientations, placements, the sweep cover, play
 * mode's layout). Each call writes one stream of words to out, works in scratch, and sets
 * need_out and need_scratch to the words it needs of each. It returns the words it wrote, or
 * a negative status. need_scratch is known from the inputs: with too little scratch (none,
 * at first) a call returns CPCORE_GEOMETRY_SMALL_BUFFER at once; with out too small it goes
 * on counting and returns CPCORE_GEOMETRY_SMALL_BUFFER with need_out the whole need. So
 * three calls do it: with no buffers, with the scratch, with both. */
typedef struct cpcore_buffers {
    int64_t* out;       /* [out_capacity] */
    uint64_t out_capacity;
    int64_t* scratch;   /* [n_scratch] */
    uint64_t n_scratch;
    uint64_t need_out, need_scratch;
} cpcore_buffers;

/* A shape of n_cells cells on a grid, and which of its symmetries count. */
typedef struct cpcore_shape_input {
    int64_t grid;          /* CPCORE_GRID_* */
    const int64_t* cells;  /* [n_cells, dim] */
    uint64_t n_cells;
    int rotate, flip;
} cpcore_shape_input;

/* A shape's distinct normalized orientations (geometry.orientations): the identity, or
 * every rotation with ``rotate``, then with ``flip`` the mirror images (all, or the first
 * alone), each kept when no earlier one has the same cells. The stream: their number n, the
 * cells of each (size), then the n orientations, each its size cells in reading order (size
 * * dim coordinates). out is the call's working room too: need_out (known from the grid and
 * n_cells, as need_scratch is) may be more than the words written. */
int64_t cpcore_orientations(const cpcore_shape_input* in, cpcore_buffers* buffers);

/* Shapes and a board on a grid: shape s is the cells shape_start[s] .. shape_start[s + 1] - 1
 * of shape_cells; at most ``limit`` placements are made. */
typedef struct cpcore_placements_input {
    int64_t grid;                /* CPCORE_GRID_* */
    const int64_t* shape_cells;  /* [n_shape_cells, dim] */
    const int64_t* shape_start;  /* [n_shapes + 1] */
    uint64_t n_shapes, n_shape_cells;
    const int64_t* board;        /* [n_board, dim] */
    uint64_t n_board, limit;
} cpcore_placements_input;

/* Every placement on the board of each shape (geometry.placements), up to ``limit`` of
 * them: each shape in turn, anchored by its first cell in reading order and slid onto each
 * board cell in reading order that the grid lets it move to, is kept when all its cells are
 * on the board. The stream: each placement, its shape s, then its cells (in reading order) as
 * the indices of board cells (the first of equal ones), as many as shape s has. The scratch:
 * n_board + (dim + 2) * the largest shape. */
int64_t cpcore_placements(const cpcore_placements_input* in, cpcore_buffers* buffers);

/* A design's candidate sets (src/design_sets.cpp; cpmodels/design/search.py), on the square
 * grid: the fixed pieces (0 .. n_fixed - 1), then from each draw k of its pieces for k from
 * k_low to k_high (in itertools.combinations' order over the draw's pieces, k ascending; the
 * draws' picks in product order, the last changing first), each draw's pick sorted by name
 * (UTF-8 bytes; equal names in the draw's order). A set is kept when its area (a fixed piece
 * area * high, a drawn one its area) is board_area and its pieces are distinct shapes (the
 * canonical form of each under the rotations, and the mirror images when it may flip), and
 * skipped as equal to an earlier set when it holds the same shapes with the same copies
 * (count_id) as a set before it, or their mirror images do: on a board one of whose mirror
 * images maps its cells onto themselves and the required dates' holes onto required holes,
 * when some piece may not flip. The stream: each set kept, set_cols piece indices (-1 pads).
 * A buffers call as the geometry calls' (three calls: none, the scratch, both); out is the
 * call's working room too (the keys seen follow the sets), so need_out may be more than the
 * words written. Returns the words written, CPCORE_GEOMETRY_SMALL_BUFFER, or
 * CPCORE_SETS_INPUT for inputs out of range. */
#define CPCORE_SETS_INPUT (-17)
typedef struct cpcore_design_sets_input {
    uint64_t n_pieces, n_fixed, n_cells;
    const int64_t* cells;       /* [n_cells, 2] the pieces' cells, row and column */
    const int64_t* cell_start;  /* [n_pieces + 1] piece i's cells from cell_start[i] */
    const uint8_t* flip;        /* [n_pieces] 1: it may be turned over */
    const uint8_t* rotate;      /* [n_pieces] 1: it may be rotated */
    const int64_t* count_id;    /* [n_pieces] equal for pieces with the same copies */
    const int64_t* area;        /* [n_pieces] */
    const int64_t* high;        /* [n_pieces] its copies at most */
    const char* names;          /* [n_names] the pieces' names, UTF-8, one after another */
    const int64_t* name_start;  /* [n_pieces + 1] */
    uint64_t n_names, n_draws, n_drawn;
    const int64_t* draw_pieces;  /* [n_drawn] each draw's pieces, one draw after another */
    const int64_t* draw_start;   /* [n_draws + 1] */
    const int64_t* k_low;        /* [n_draws] */
    const int64_t* k_high;       /* [n_draws] */
    uint64_t board_area, set_cols;  /* set_cols: n_fixed + every draw's k_high */
    const int64_t* board;       /* [n_board, 2] the board's cells */
    uint64_t n_board, n_dates, hole_cols;
    const int64_t* holes;       /* [n_dates, hole_cols] each required date's label cells
                                   (indices of board cells; -1 pads) */
    uint64_t n_area, n_sets, skipped;  /* out: sets with the area, kept, skipped */
} cpcore_design_sets_input;

int64_t cpcore_design_sets(cpcore_design_sets_input* in, cpcore_buffers* buffers);

/* --- a calendar's sweep cover (cpcore/sweep_cover.hpp; sweep.py, cover.py) ------------- */

/* What cpcore_sweep_cover returns besides the geometry calls' statuses. */
#define CPCORE_COVER_TOO_LARGE (-7)        /* more shapes x cells than max_placements */
#define CPCORE_COVER_BAD_PIECES (-8)       /* piece_start or a piece's bounds do not read */
#define CPCORE_COVER_BAD_GROUPS (-9)       /* group_start does not run up its n_labels */
#define CPCORE_COVER_EMPTY_GROUP (-10)
#define CPCORE_COVER_LABEL_OFF_BOARD (-11) /* a label's cell is not a board cell */

/* A board, its pieces and its label groups (dim: 2 coordinates a cell, 3 on the cube grid).
 * Piece p is the orientations piece_start[p] .. piece_start[p + 1] - 1 (shape s the cells
 * shape_start[s] .. shape_start[s + 1] - 1 of shape_cells), covered piece_bounds[2p] to
 * piece_bounds[2p + 1] times; group g is the label cells group_start[g] .. group_start[g + 1]
 * - 1 of group_cells. At most max_placements shapes x cells are tried. A piece p with
 * left_out[p] 1 (left_out null: none) may be left out of a solution: a design's shared cover
 * of every piece it may use, a set the pieces it holds (cpmodels/design/search.py). */
typedef struct cpcore_sweep_input {
    int64_t grid;                  /* CPCORE_GRID_* */
    const int64_t* board;          /* [n_board, dim] */
    uint64_t n_board;
    const int64_t* shape_cells;    /* [n_shape_cells, dim] */
    const int64_t* shape_start;    /* [n_shapes + 1] */
    uint64_t n_shapes, n_shape_cells;
    const int64_t* piece_start;    /* [n_pieces + 1] */
    const int64_t* piece_bounds;   /* [n_pieces, 2] */
    uint64_t n_pieces;
    const int64_t* group_cells;    /* [n_labels, dim] */
    const int64_t* group_start;    /* [n_groups + 1] */
    uint64_t n_groups, n_labels;
    uint64_t max_placements;
    const uint8_t* left_out;       /* [n_pieces] or null */
} cpcore_sweep_input;

/* The exact cover of a board (sweep.py's sweep_cover; without groups cover.py's
 * packing_cover). The board's cells, each once, in scan order (the axis of the longest
 * extent slowest) are the first items, then one item per piece, then one slack item per
 * label group. The options: each piece's placements (their cells' items in reading order,
 * then the piece's item), then each label's slack option (its cell's item, then its group's
 * slack item), then, in piece order, the left-out option of each piece left_out names (its
 * piece's item alone). The stream: the numbers of items, of options and of fixed groups;
 * each item (kind: 0 cell, 1 piece, 2 slack; low; high; a cell's index in board, the first
 * of equal cells, else -1); each option (kind: 0 piece, 1 slack, 2 left out; its piece or
 * group; its number of items m; its m items); the groups a sweep's tasks fix (sweep.py's
 * scan_fixed_groups). */
int64_t cpcore_sweep_cover(const cpcore_sweep_input* in, cpcore_buffers* buffers);
/* --- a problem's symmetries on its options (src/symmetry.cpp; cpmodels/symmetry.py) ----- */
/* Python's alone: engine.wasm leaves it out (no page counts up to symmetry). */
#ifndef __wasm__

#define CPCORE_SYMMETRY_INPUT (-19)  /* runs, indices or maps out of range, a cell twice */
#define CPCORE_MAX_SYMMETRY_OPTIONS (((uint64_t)1) << 22)
#define CPCORE_MAX_SYMMETRY_MAPS 64

/* An exact cover's options and the board's symmetries as maps of its cells. The cells are
 * numbered 0 .. n_cells - 1 in sorted order (Python's order of cell tuples); item i stands
 * for cell item_cell[i], or for none (-1); option j covers the items opt_items[opt_start[j]
 * .. opt_start[j + 1] - 1], of which the cell items are its cells (each once). opt_piece[j]
 * is the piece (for a slack option its label group, for a left-out option its piece) of
 * option j, pieces numbered in the order of their first option; opt_placed[j] is 1 for a
 * piece's placement (OptionKind.PIECE). Pieces of equal piece_bounds may stand for each
 * other; piece_once[p] is 1 for a piece used exactly once. Map g takes cell c to
 * maps[g * n_cells + c], each a permutation of the cells. */
typedef struct cpcore_symmetry_input {
    uint64_t n_items, n_cells, n_options, n_opt_items, n_pieces, n_maps;
    const int64_t* item_cell;     /* [n_items] */
    const int64_t* opt_start;     /* [n_options + 1] into opt_items */
    const int64_t* opt_items;     /* [n_opt_items] */
    const int64_t* opt_piece;     /* [n_options] */
    const uint8_t* opt_placed;    /* [n_options] */
    const int64_t* piece_bounds;  /* [n_pieces] */
    const uint8_t* piece_once;    /* [n_pieces] */
    const int64_t* maps;          /* [n_maps, n_cells] */
} cpcore_symmetry_input;

/* The maps that are symmetries of the problem, what they do to its options, and the piece
 * counted up to symmetry placed first (cpmodels/symmetry.py). A map is kept when it takes
 * the cell sets of each piece's options onto those of a piece: the piece itself when it can,
 * else the first piece (in piece order) not yet taken, of the same bounds, whose options'
 * cell sets those are. A kept map takes option j to the placement (opt_placed) of the piece
 * its piece goes to that covers the image of j's cells (the last such option), -1 for none.
 * The held piece, when more than one map is kept: of the pieces used once that no kept map
 * moves and whose options all have images, the one with the fewest orbits of its options
 * under the kept maps, then the fewest orbits a map other than the first fixes, then the
 * most cells, pieces taken by their number of options (ties in piece order), stopping once
 * that number over the kept maps passes the best orbits found; an orbit's representative is
 * its option of the least cells (as sorted sequences), its fixers the kept maps but the
 * first that take it to itself. The stream: the number of maps kept, the held piece (-1
 * for none) and its number of orbits; each kept map: its index in maps, where it takes each
 * piece [n_pieces] and each option [n_options]; each orbit (in the order of its first
 * option): its representative, its size, its number of fixers and the fixers (indices of
 * kept maps). A buffers call as the geometry calls' (three calls: none, the scratch, both).
 * Returns the words written, CPCORE_GEOMETRY_SMALL_BUFFER or CPCORE_SYMMETRY_INPUT. */
int64_t cpcore_option_symmetries(const cpcore_symmetry_input* in, cpcore_buffers* buffers);

#endif

/* --- a cover's layout for the general kernels (cpcore/cover_layout.hpp) ---------------- */

/* An exact cover as flat arrays: each item's bounds and its board cell (an index into the
 * cells, -1 for none), each cell's neighbours in its grid's order (cells, -1 for one the
 * cover lacks), and each option's items (a run of opt_items). */
typedef struct cpcore_cover_input {
    uint64_t n_items;
    const int64_t* low;            /* [n_items] */
    const int64_t* high;           /* [n_items] */
    const int64_t* item_cell;      /* [n_items] */
    uint64_t n_cells;
    const int64_t* cell_nb_start;  /* [n_cells + 1] into cell_nbs */
    const int64_t* cell_nbs;       /* [n_cell_nbs] */
    uint64_t n_cell_nbs;
    uint64_t n_options;
    const int64_t* opt_start;      /* [n_options + 1] into opt_items */
    const int64_t* opt_items;      /* [n_opt_items] */
    uint64_t n_opt_items;
} cpcore_cover_input;

/* The sizes of a cover's layout (layouts/cover.py's CompiledCover), and what went wrong. */
typedef struct cpcore_cover_sizes {
    int64_t error;          /* CPCORE_LAYOUT_OK or the first problem met */
    int64_t n_branch, n_bits, n_words, n_counters;
    int64_t n_anchored;     /* options with an exact-one item: len(anchor_opts) */
    int64_t degree;         /* cell_nb's columns */
    int64_t n_opt_nb;       /* len(opt_nb) */
    int64_t n_board_cells;  /* fillable has one more entry */
    int64_t memo_ok;
    int64_t region_limit;   /* set by the fill */
} cpcore_cover_sizes;

/* The arrays a layout fills (shapes as the sizes say). */
typedef struct cpcore_cover_layout {
    int64_t* bit_of_item;      /* [n_items] */
    int64_t* counter_of_item;  /* [n_items] */
    uint64_t* opt_mask;        /* [n_options, n_words] */
    int64_t* opt_counter;      /* [n_options] */
    int64_t* opt_tag_word;     /* [n_options] */
    uint64_t* opt_tag_bit;     /* [n_options] */
    int64_t* anchor_start;     /* [n_branch + 1] */
    int64_t* anchor_opts;      /* [n_anchored] */
    int64_t* group_end;        /* [n_anchored] */
    int64_t* counter_low;      /* [n_counters] */
    int64_t* counter_high;     /* [n_counters] */
    uint64_t* radix;           /* [n_counters] */
    int64_t* cell_nb;          /* [max(n_branch, 1), degree] */
    int64_t* opt_nb_start;     /* [n_options + 1] */
    int64_t* opt_nb;           /* [n_opt_nb] */
    uint8_t* fillable;         /* [n_board_cells + 1] */
} cpcore_cover_layout;

#define CPCORE_LAYOUT_OK 0
#define CPCORE_LAYOUT_BAD_BOUNDS 1      /* an item's bounds: 0 <= low <= high < 2**31 */
#define CPCORE_LAYOUT_BAD_CELL 2        /* an item's cell or a neighbour out of range */
#define CPCORE_LAYOUT_BAD_RUNS 3        /* runs that do not start at 0, decrease or overrun */
#define CPCORE_LAYOUT_BAD_ITEM 4        /* an option's item out of range */
#define CPCORE_LAYOUT_REPEATED_ITEM 5   /* an option lists an item twice */
#define CPCORE_LAYOUT_TWO_COUNTERS 6    /* an option covers two multiplicity items */
#define CPCORE_LAYOUT_TWO_TALLIES 7     /* an option covers two tally items */
#define CPCORE_LAYOUT_NOT_EXACT_ONE 8   /* a tally item is no exact-one item */
#define CPCORE_LAYOUT_TOO_MANY_TALLIES 9
#define CPCORE_LAYOUT_TOO_LARGE 10      /* the tallies' vectors past 2**40 entries */
#define CPCORE_LAYOUT_REPEATED_TALLY 11 /* a tally item listed twice */

/* What a CPCORE_LAYOUT_* code says, in one line (a string of the core's, never freed). */
const char* cpcore_layout_error(int64_t code);

/* The words of scratch a layout of the cover needs (for measure and fill alike). */
uint64_t cpcore_cover_layout_work(const cpcore_cover_input* cover);
/* Check the cover and measure its layout (sizes->error says what is wrong, if anything). */
void cpcore_cover_layout_measure(const cpcore_cover_input* cover, int64_t* work,
                                 cpcore_cover_sizes* sizes);
/* Fill ``out``, whose arrays have the sizes measure reported (the error must be OK). */
void cpcore_cover_layout_fill(const cpcore_cover_input* cover, int64_t* work,
                              cpcore_cover_sizes* sizes, const cpcore_cover_layout* out);

/* Which region sizes 0 .. total pieces of these areas fill, each piece up to copies[k]
 * times (copies null: once): fillable[total + 1]; returns the size below which regions are
 * checked (0: none). Areas must be positive. */
int64_t cpcore_region_sizes(const int64_t* areas, const int64_t* copies, uint64_t n,
                            uint64_t total, uint8_t* fillable);

/* The tallies of a laid-out cover (layouts/tally.py's TallyLayout) by the options covering
 * ``items`` (at most 16 exact-one items). */
typedef struct cpcore_tally_input {
    const cpcore_cover_input* cover;
    const int64_t* bit_of_item;   /* [n_items], as the cover's layout has them */
    uint64_t n_branch;
    const int64_t* anchor_start;  /* [n_branch + 1] */
    const int64_t* anchor_opts;
    uint64_t n_anchored;
    const int64_t* items;
    uint64_t n_tally;
} cpcore_tally_input;

typedef struct cpcore_tally_sizes {
    int64_t error;
    int64_t bad_item;     /* the tally item (its index in items) of NOT_EXACT_ONE */
    int64_t cols;         /* max(n_tally, 1) */
    int64_t masks;        /* 2 ** n_tally */
    int64_t n_covering;   /* the options covering some tally item */
    int64_t n_map_flat;   /* at least 1 */
} cpcore_tally_sizes;

typedef struct cpcore_tally_layout {
    int64_t* bit;             /* [cols] */
    int64_t* last_anchor;     /* [cols] */
    int64_t* opt_tally;       /* [n_options] */
    int64_t* opt_index;       /* [n_options] */
    int64_t* length;          /* [masks] */
    int64_t* stride;          /* [masks, cols] */
    int64_t* map_start;       /* [masks * cols + 1] */
    int64_t* map_flat;        /* [n_map_flat] */
    int64_t* covering_start;  /* [n_tally + 1] into covering */
    int64_t* covering;        /* [n_covering] each tally item's options, in index order */
} cpcore_tally_layout;

/* Scratch words of a tally layout; measure (checks too), then fill as for a cover. */
uint64_t cpcore_tally_layout_work(const cpcore_tally_input* tallies);
void cpcore_tally_layout_measure(const cpcore_tally_input* tallies, int64_t* work,
                                 cpcore_tally_sizes* sizes);
void cpcore_tally_layout_fill(const cpcore_tally_input* tallies, int64_t* work,
                              cpcore_tally_sizes* sizes, const cpcore_tally_layout* out);

/* --- the one-word kernel's layout of a cover (cpcore/one_word_layout.hpp) -------------- */

/* A cover for the one-word layout: the flat cover, each cell's two coordinates on a square
 * grid (the caller answers "does not suit" for any other grid), each item's kind (ItemKind:
 * 0 cell, 1 piece, 2 slack) and, when the cover has them, each option's kind (OptionKind:
 * 0 piece, 1 slack, 2 left out; null: none to check). */
typedef struct cpcore_one_word_input {
    const cpcore_cover_input* cover;
    const int64_t* cell_xy;      /* [n_cells, 2] */
    const int64_t* item_kind;    /* [n_items] */
    const int64_t* option_kind;  /* [n_options] or null */
    uint64_t flips;              /* bit 0 reverses the lines, bit 1 each line */
} cpcore_one_word_input;

/* Its sizes (measure) and its words (fill); suits 0: the one-word kernel does not suit. */
typedef struct cpcore_one_word_sizes {
    int64_t error;          /* CPCORE_LAYOUT_OK or the first problem met */
    int64_t suits;
    int64_t n_pieces;       /* bits of the piece word */
    int64_t n_flat;         /* options anchored on the board: len(masks) */
    int64_t n_board_cells;  /* fillable has one more entry */
    uint64_t all_pieces, covered, inner, first, last, slack, optional;  /* set by the fill */
    int64_t region_limit, isolated_dead;                                /* set by the fill */
} cpcore_one_word_sizes;

/* The arrays the one-word layout fills (layouts/cover.py's OneWord). */
typedef struct cpcore_one_word_layout {
    uint64_t* start;        /* [64 * n_pieces + 1] */
    uint64_t* masks;        /* [n_flat] */
    int64_t* opts;          /* [n_flat] */
    uint64_t* avail;        /* [64] */
    uint64_t* opt_cells;    /* [n_options] */
    uint64_t* opt_piece;    /* [n_options] */
    uint64_t* slack_cells;  /* [64] */
    int64_t* areas;         /* [n_pieces] */
    uint8_t* fillable;      /* [n_board_cells + 1] */
} cpcore_one_word_layout;

/* The piece-word bit of each tally item (OneTallies.bit): its index among the items not
 * cells. Returns 1, or 0 when the one-word tally does not suit them: a tally item is a cell,
 * or a piece whose bit is in optional (the layout's pieces that may be left out; see
 * cpcore_tally_one_word); or -CPCORE_LAYOUT_BAD_ITEM for an item the cover does not have,
 * -CPCORE_LAYOUT_REPEATED_TALLY for one listed twice. */
int64_t cpcore_one_word_tally_bits(const int64_t* item_kind, uint64_t n_items,
                                   const int64_t* items, uint64_t n_tally, uint64_t optional,
                                   uint64_t* bits);

/* Scratch words of a one-word layout; measure (checks too), then fill as for a cover. */
uint64_t cpcore_one_word_layout_work(const cpcore_one_word_input* in);
void cpcore_one_word_layout_measure(const cpcore_one_word_input* in, int64_t* work,
                                    cpcore_one_word_sizes* sizes);
void cpcore_one_word_layout_fill(const cpcore_one_word_input* in, int64_t* work,
                                 cpcore_one_word_sizes* sizes,
                                 const cpcore_one_word_layout* out);

/* The corner a design's reach search scans from (src/reach_groups.cpp; reach.py's
 * reach_layout): of the four a cover's one-word layout may start from (its flips), the one
 * cpcore_reach_groups_of ranks highest, the first of equals. ``in``'s flips are not read;
 * work: [cpcore_one_word_layout_work(in)]; sizes: cpcore_one_word_layout_measure's of ``in``
 * (the same for every corner); layout: arrays of those sizes, filled with each corner in turn;
 * groups: its arrays as cpcore_reach_groups_of's (the last corner's). Returns the corner's
 * flips, or -1 when the reach search does not suit the cover (no corner's layout suits, or
 * a corner's groups do not). */
int64_t cpcore_reach_corner(const cpcore_one_word_input* in, int64_t* work,
                            const cpcore_one_word_sizes* sizes,
                            const cpcore_one_word_layout* layout, cpcore_reach_groups* groups);

/* --- play mode's layout of a board and its pieces (cpcore/play_layout.hpp; web/play.py) - */

/* What cpcore_play_layout returns besides the geometry calls' statuses. Its coordinates are
 * within CPCORE_MAX_LAYOUT_COORDINATE of 0; the board and the pieces (in all) have at most
 * CPCORE_MAX_LAYOUT_CELLS cells, a piece at most CPCORE_MAX_LAYOUT_PIECE. */
#define CPCORE_MAX_LAYOUT_COORDINATE (((int64_t)1) << 20)
#define CPCORE_MAX_LAYOUT_CELLS (((uint64_t)1) << 16)
#define CPCORE_MAX_LAYOUT_PIECE (((uint64_t)1) << 11)
#define CPCORE_LAYOUT_NOT_PLANE (-12)     /* the cube grid: play mode draws plane grids */
#define CPCORE_LAYOUT_NO_CELLS (-13)      /* a board with no cells */
#define CPCORE_LAYOUT_COORDINATE (-14)    /* a coordinate past CPCORE_MAX_LAYOUT_COORDINATE */

/* A plane board and its pieces: piece p is the cells piece_start[p] .. piece_start[p + 1] - 1
 * of piece_cells, turned as piece_turns[2p] (rotate) and piece_turns[2p + 1] (flip, turned
 * over) say. */
typedef struct cpcore_play_input {
    int64_t grid;                /* CPCORE_GRID_*, not the cube */
    const int64_t* board;        /* [n_board, 2] */
    uint64_t n_board;
    const int64_t* piece_cells;  /* [n_piece_cells, 2] */
    const int64_t* piece_start;  /* [n_pieces + 1] */
    const int64_t* piece_turns;  /* [n_pieces, 2] */
    uint64_t n_pieces, n_piece_cells;
} cpcore_play_input;

/* The board and its pieces as play mode draws them (play.py's board_layout).
 * Points are in sixths of the grid's drawing units (render/scene.py's cell drawings: cell
 * corners are whole units, centres halves or thirds), so everything is exact. The stream:
 *   n_cells, x0, y0, x1, y1 (the board's corners' box), n_pieces;
 *   each board cell in reading order, each once: r, c, centre x, y, k, its k corners (x, y);
 *   each piece: n_orientations (its free ones, geometry.orientations' order), each: size,
 *     its cells (r, c) in reading order, face_up (0 or 1: an orientation without turning it
 *     over), rotate, flip (the orientation a turn or a flip gives, or -1), the centre of
 *     its mark cell (x, y: the cell whose centre is nearest the cells' mean, the first of
 *     equals), n_loops, each loop: m, its m points (x, y) (its outline, holes included, as
 *     render/scene.py's outline traces it), n_places, each place: dr, dc, dx, dy (each
 *     translation onto the board, in geometry.placements' order, and the move of a point). */
int64_t cpcore_play_layout(const cpcore_play_input* in, cpcore_buffers* buffers);

/* --- a laser's sheets of cut parts (cpcore/cut.hpp; make/) ----------------------------- */

/* What cpcore_cut_sheets returns besides the geometry calls' statuses. A board and its
 * pieces (in all) have at most CPCORE_MAX_LAYOUT_CELLS cells, a piece at most
 * CPCORE_MAX_LAYOUT_PIECE, coordinates within CPCORE_MAX_LAYOUT_COORDINATE of 0; at most
 * CPCORE_MAX_CUT_PARTS parts (every copy of every piece, the frame and the base). */
#define CPCORE_MAX_CUT_PARTS 4096
#define CPCORE_MAX_CUT_NAME_BYTES (((uint64_t)1) << 16)
#define CPCORE_MAX_CUT_ENGRAVING (((uint64_t)1) << 24)
#define CPCORE_MAX_CUT_ENGRAVED_MM 1000000    /* an engraved point within this of 0 */
#define CPCORE_CUT_NOT_PLANE (-40)        /* the cube grid: its parts are printed, not cut */
#define CPCORE_CUT_NO_CELLS (-41)         /* a board with no cells */
#define CPCORE_CUT_COORDINATE (-42)       /* a coordinate past CPCORE_MAX_LAYOUT_COORDINATE */
#define CPCORE_CUT_BAD_SIZES (-43)        /* a size out of make's bounds (MakeOptions.check) */
#define CPCORE_CUT_BAD_PARTS (-44)        /* a cell twice, copies, names or too many parts */
#define CPCORE_CUT_BAD_ENGRAVING (-45)    /* the engraving's stream does not read */

/* A plane board and the pieces to cut for it: piece p is the cells piece_start[p] ..
 * piece_start[p + 1] - 1 of piece_cells, cut piece_copies[p] times (1 to
 * CPCORE_MAX_CUT_PARTS), named by the UTF-8 bytes name_start[p] .. name_start[p + 1] - 1 of
 * names. sizes are 8 IEEE doubles, bit for bit, in millimetres as make takes them: the
 * cell's side, the kerf, the clearance, the sheet's width and height, the frame's border,
 * the gap between parts and the sheet's margin. engraving is what is engraved on each piece
 * (in order) and then on the base, each as n_polygons, each polygon n_rings (at least 1),
 * each ring n_points (at least 3) and its points (x, y as doubles' bits) in the part's own
 * millimetres (x across, y down). */
typedef struct cpcore_cut_input {
    int64_t grid;                 /* CPCORE_GRID_*, not the cube */
    const int64_t* board;         /* [n_board, 2] */
    uint64_t n_board;
    const int64_t* piece_cells;   /* [n_piece_cells, 2] */
    const int64_t* piece_start;   /* [n_pieces + 1] */
    const int64_t* piece_copies;  /* [n_pieces] */
    const int64_t* name_start;    /* [n_pieces + 1] */
    const uint8_t* names;         /* [n_name_bytes] */
    uint64_t n_pieces, n_piece_cells, n_name_bytes;
    const int64_t* sizes;         /* [8] */
    const int64_t* engraving;     /* [n_engraving] */
    uint64_t n_engraving;
} cpcore_cut_input;

/* The parts a laser cuts for a board (make's sheet-N.svg): each piece (the union of its
 * cells, the clearance taken off half on every side), the board's frame (a box the border
 * around the cells, less the cells) and its base (the box), each cut line moved out of the
 * part by half the kerf (mitred corners: cut.hpp), turned by one of the grid's rotations to
 * its lowest box and laid out on sheets in first-fit shelves. The stream:
 *   n_sheets; each sheet: n_bytes, its SVG text (UTF-8), 8 bytes a word, the first in the
 *     word's low byte;
 *   n_parts; each part in the order it was laid out: its index (the copies of each piece,
 *     then the frame, then the base), sheet (from 1), turn (degrees), at x, at y, its area
 *     and its cut line's area (mm, mm2: doubles' bits).
 * When a part fits on no sheet turned any way, the stream is 0, the part's index and its
 * width and height with the kerf (doubles' bits). */
int64_t cpcore_cut_sheets(const cpcore_cut_input* in, cpcore_buffers* buffers);

/* --- the engraving on a laser's parts (src/engrave.cpp; make/glyphs.py) ------------------ */

/* What cpcore_engrave returns besides the geometry calls' and cpcore_cut_sheets' statuses. A
 * label or a name is at most CPCORE_MAX_ENGRAVED_TEXT characters (code points 1 to 0x10ffff,
 * no surrogates), all of them at most CPCORE_MAX_CUT_NAME_BYTES; the glyph table at most
 * CPCORE_MAX_GLYPH_WORDS words, a glyph at most CPCORE_MAX_GLYPH_RINGS rings. */
#define CPCORE_MAX_ENGRAVED_TEXT 256
#define CPCORE_MAX_GLYPH_WORDS (((uint64_t)1) << 22)
#define CPCORE_MAX_GLYPH_RINGS 64
#define CPCORE_ENGRAVE_BAD_TEXT (-46)     /* a label or name too long, or not characters */
#define CPCORE_ENGRAVE_BAD_GLYPHS (-47)   /* the glyph table does not read */

/* The labels of a board and the names of its pieces, engraved in a font's glyphs. Label k
 * is the characters (code points) label_start[k] .. label_start[k + 1] - 1 of label_text,
 * on the board's cell label_cells[k] (one label a cell); piece p (its cells piece_start[p]
 * .. piece_start[p + 1] - 1 of piece_cells) is named by the characters name_start[p] ..
 * name_start[p + 1] - 1 of name_text. sizes
 * are cpcore_cut_input's 8 (the cell's side and the clearance are used). glyphs is the
 * glyph table as make/glyphs.py writes it (each glyph's advance and its rings flattened at
 * size 10, y up; each code point's glyph and kerning classes; the kerning; the pairs drawn
 * as one glyph). */
typedef struct cpcore_engrave_input {
    int64_t grid;                 /* CPCORE_GRID_*, not the cube */
    const int64_t* label_cells;   /* [n_labels, 2] */
    const int64_t* label_start;   /* [n_labels + 1] */
    const int64_t* label_text;    /* [n_label_chars] */
    uint64_t n_labels, n_label_chars;
    const int64_t* piece_cells;   /* [n_piece_cells, 2] */
    const int64_t* piece_start;   /* [n_pieces + 1] */
    const int64_t* name_start;    /* [n_pieces + 1] */
    const int64_t* name_text;     /* [n_name_chars] */
    uint64_t n_pieces, n_piece_cells, n_name_chars;
    const int64_t* sizes;         /* [8] */
    const int64_t* glyphs;        /* [n_glyph_words] */
    uint64_t n_glyph_words;
} cpcore_engrave_input;

/* What make engraves (its sheets' engrave layer and the tray's floor): the labels on the
 * base, each centred on its cell, all at one size, the largest at which each is at most a
 * share of a cell tall and wide (the grid's: 0.34 and 0.8 of a side on the square grid,
 * 0.17 and 0.38 on the triangle grid, 0.4 and 1.1 on the hex grid); each piece's name at
 * that share, centred on the point of the piece (its cells less half the clearance) deepest
 * inside it, and shrunk by 0.7 up to three times until it lies 0.05 of that height inside
 * the piece's edge, else not engraved. Text is laid out in the table's glyphs, advances and
 * kerning, and filled even-odd (a ring inside an odd number of others is a hole); the
 * labels are written in their cells' reading order, whatever order they come in. The
 * stream: 0, then what each piece (in order) and then the base carry, as cpcore_cut_input's
 * engraving reads it (polygons of rings, millimetres, x across, y down); or, when the table
 * has no glyph for a character, that character's code point (more than 0) alone. */
int64_t cpcore_engrave(const cpcore_engrave_input* in, cpcore_buffers* buffers);

#ifdef __cplusplus
}
#endif

#ifdef __wasm__
#pragma GCC visibility pop
#endif
