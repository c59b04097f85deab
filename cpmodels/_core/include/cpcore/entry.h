/* The core's entry points: plain C functions over caller-owned buffers, so that the Python
 * module and a WebAssembly build call the same code. A search never allocates, throws or
 * uses the standard library; it reads the stop flag the caller hands in. */
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when this build uses the popcnt instruction (the module checks the processor has it). */
int cpcore_needs_popcnt(void);


/* --- the packing searches (cpcore/packing_search.hpp) --------------------------------- */

/* What every packing search reads of a compiled cover (layout.py's Layout). */
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

/* Tally the completions of each of n_prefixes rows of ``width`` forced options (-1 pads):
 * row p's counts to out[p * out_width ..], its uncovered tally items to out_mask[p]. */
void cpcore_tally_prefixes_two_words(const cpcore_packing_cover* cover,
                                     const cpcore_two_words* layout,
                                     const cpcore_tallies* tallies, const cpcore_table* table,
                                     const int64_t* prefixes, uint64_t n_prefixes,
                                     uint64_t width, const cpcore_search_buffers* buffers,
                                     int64_t* out, uint64_t out_width, int64_t* out_mask);
void cpcore_tally_prefixes_n_words(const cpcore_packing_cover* cover,
                                   const cpcore_n_words* layout,
                                   const cpcore_tallies* tallies, const cpcore_table* table,
                                   const int64_t* prefixes, uint64_t n_prefixes,
                                   uint64_t width, const cpcore_search_buffers* buffers,
                                   int64_t* out, uint64_t out_width, int64_t* out_mask);

/* For each row of prefixes, whether some solution contains it: out[p] = 1 or 0 (rows
 * after a stop, or after the first 0 with first_failure, are left as they were). */
void cpcore_exists_two_words(const cpcore_packing_cover* cover,
                             const cpcore_two_words* layout, const cpcore_table* table,
                             int use_table, const int64_t* prefixes, uint64_t n_prefixes,
                             uint64_t width, const cpcore_search_buffers* buffers,
                             int64_t* out, int first_failure, const int64_t* stop);
void cpcore_exists_n_words(const cpcore_packing_cover* cover, const cpcore_n_words* layout,
                           const cpcore_table* table, int use_table, const int64_t* prefixes,
                           uint64_t n_prefixes, uint64_t width,
                           const cpcore_search_buffers* buffers, int64_t* out,
                           int first_failure, const int64_t* stop);

/* The resumable solution stream over buffers->filled, counters, chosen and the stacks
 * (state[0]: depth, -1 before the start, -2 when finished; state[1]: solutions written). */
void cpcore_search_n_words(const cpcore_packing_cover* cover, const cpcore_n_words* layout,
                           int64_t* state, const cpcore_search_buffers* buffers, int64_t* out,
                           uint64_t out_width, int64_t max_out, const int64_t* stop);

#ifdef __cplusplus
}
#endif
