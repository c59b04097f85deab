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

/* Solids on bits (cpmodels/backends/engine/bit_cover.py): the solutions with the forced
 * options (their indices) and the nodes in *nodes; -1 when *stop was set first, -2 when the
 * search needed more than rows levels. live: 2 * rows * n_options words; frame:
 * cpcore_bit_cover_frame_words(rows) words. */
uint64_t cpcore_bit_cover_frame_words(uint64_t rows);
int64_t cpcore_bit_cover_count(const uint64_t* opt_low, const uint64_t* opt_high,
                               uint64_t n_options, uint64_t need_low, uint64_t need_high,
                               const int64_t* forced, uint64_t n_forced, const int64_t* stop,
                               uint64_t rows, uint64_t* live, uint64_t* frame,
                               uint64_t* nodes);

/* Dancing links (cpmodels/backends/engine/links.py), over the caller's copy of the links.
 * take: cover the items of the options whose first nodes are forced (0: two share an
 * item); most_constrained: the item to cover with the fewest options left (0: none);
 * count: take, then the solutions and the nodes in *nodes (-1: *stop was set first, -2:
 * more than n_levels levels); levels: 2 * n_levels words. */
int cpcore_links_take(const int64_t* top, int64_t* up, int64_t* down, int64_t* length,
                      int64_t* prev, int64_t* next, const int64_t* forced, uint64_t n_forced);
int64_t cpcore_links_most_constrained(const int64_t* length, const int64_t* next);
int64_t cpcore_links_count(const int64_t* top, int64_t* up, int64_t* down, int64_t* length,
                           int64_t* prev, int64_t* next, const int64_t* forced,
                           uint64_t n_forced, const int64_t* stop, int64_t* levels,
                           uint64_t n_levels, uint64_t* nodes);

/* A date's difficulty (cpmodels/backends/engine/difficulty.py): the options a first-empty-
 * cell backtracker puts down up to its first solution, from filled and used (changed while
 * it runs); CPCORE_CAPPED at max_nodes, CPCORE_NO_SOLUTION when it exhausts the tree.
 * stack: 3 * (n_cells + 1) words. */
#define CPCORE_CAPPED (-1)
#define CPCORE_NO_SOLUTION (-2)
int64_t cpcore_first_solution_nodes(uint64_t n_cells, uint8_t* filled, int64_t* used,
                                    uint64_t n_counters, const int64_t* capacity,
                                    const int64_t* low, const int64_t* start,
                                    const int64_t* listed, const int64_t* cells,
                                    const int64_t* cells_start, const int64_t* counters,
                                    const int64_t* counters_start, int64_t max_nodes,
                                    int64_t* stack);

#ifdef __cplusplus
}
#endif
