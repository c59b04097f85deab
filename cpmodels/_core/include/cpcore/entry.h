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

/* The towers programme (towers/programme.py). ``shape`` is i, j, rows, cols, bits per column,
 * the code of "no cell"; ``table[up][left][k]`` what colour k scores there. The step goes on
 * from position ``*at`` (0: a fresh table) and stops when ``new_keys`` is half full, with
 * ``*at`` where to go on once the caller has moved it to a bigger table (rehash). */
uint64_t cpcore_towers_step(const uint64_t* keys, const int64_t* vals, uint64_t n_keys,
                            const int64_t* shape, const int64_t* table, const int64_t* needs,
                            uint64_t n_codes, int64_t allowed, int64_t floor,
                            uint64_t* new_keys, int64_t* new_vals, uint64_t cap, uint64_t used,
                            uint64_t* at);
void cpcore_towers_rehash(const uint64_t* keys, const int64_t* vals, uint64_t n_keys,
                          uint64_t* into_keys, int64_t* into_vals, uint64_t cap);
int64_t cpcore_towers_predecessor(const uint64_t* keys, const int64_t* vals, uint64_t n_keys,
                                  uint64_t target, int64_t value, const int64_t* shape,
                                  const int64_t* table, const int64_t* needs, uint64_t n_codes,
                                  int64_t allowed, int64_t* colour);
int64_t cpcore_towers_best(const uint64_t* keys, const int64_t* vals, uint64_t n_keys);

/* The DRUP checker (drup.py): the index of the first step that fails, ``n_steps`` when the
 * proof does not reach the empty clause, -1 when it holds. */
int64_t cpcore_drup_check(int64_t n_vars, int64_t n_formula, int64_t n_clauses, int64_t* lits,
                          const int64_t* start, const int64_t* length, int64_t n_steps,
                          const int64_t* step_kind, const int64_t* step_clause, int64_t* units,
                          int64_t n_units_formula, uint8_t* active, int64_t* head,
                          int64_t* next, int8_t* value, int64_t* trail, int8_t* top_level);

/* The CNF split search's next step (backends/cnf.py): DEAD 0, ITEM 1, OPTION 2, SOLVED 3,
 * with ``found`` = (item or option, options written to ``out``). */
int64_t cpcore_cnf_next_step(const int64_t* lits, uint64_t n_lits, uint64_t n,
                             const int64_t* opt_start, const int64_t* opt_items,
                             const int64_t* item_start, const int64_t* item_opts,
                             const int64_t* low, uint64_t n_items, uint8_t* possible,
                             uint8_t* taken, int64_t* need, int64_t* room, int64_t* out,
                             int64_t* found);

#ifdef __cplusplus
}
#endif
