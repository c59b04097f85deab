// A problem's symmetries on its options (cpmodels/symmetry.py): which of the board's maps
// take each piece's placements onto a piece's, where each such map takes each option, and
// the piece counted up to symmetry placed first, with the orbits of its placements. The
// native module's alone: engine.wasm leaves it out (entry.h's #ifndef __wasm__).
//
// The data. An option's cells are the cells of its cell items, sorted (cells are numbered
// in Python's order of cell tuples, so sorted numbers compare as sorted cells do). Options
// covering the same cells share a footprint (numbered in the order of their first option);
// a piece's footprints are a multiset, and pieces with the same multiset form a group (its
// first piece in piece order leads it; the others follow in a chain). A map's image of a
// footprint is found by its cells' hash (a sum, so the order of the cells is free) and then
// checked cell by cell, or, for a map that is two earlier ones in turn, from theirs; a
// piece's image, by its footprints' images' hash (a sum too) and then checked as a
// multiset. Over the caller's buffers (cpcore/placements.hpp's Buffers):
// nothing allocated, nothing of the standard library.
#ifndef __wasm__

#include "cpcore/check.hpp"
#include "cpcore/entry.h"
#include "cpcore/hash.hpp"
#include "cpcore/placements.hpp"

using cpcore::geometry::Buffers;
using cpcore::word;

namespace {

const uint64_t MAX_SIZE = ((uint64_t)1) << 26;  // items, cells and options' items

uint64_t slots_for(uint64_t n) {
    uint64_t s = 4;
    while (s < 2 * n + 2) s <<= 1;
    return s;
}

// A number's share of a set's hash (sums of these are free of order).
inline word key(int64_t x) { return cpcore::mix(cpcore::GOLDEN, (word)x); }

// A set's hash from the sum of its members' keys and its size.
inline word set_hash(word sum, uint64_t n) { return cpcore::mix(sum, (word)n); }

struct Problem {
    const cpcore_symmetry_input* in;
    uint64_t n_options, n_pieces, n_cells;
    // each option's cells, ascending, cells[cell_start[j] .. cell_start[j + 1]]
    int64_t *cells, *cell_start;
    // footprints: each option's, the first option of each, their hashes and table
    int64_t *fp, *fp_first, *fp_table;
    word* fp_hash;
    uint64_t n_fp = 0, fp_slots;
    // each piece's options (in option order): piece_opts[piece_start[p] .. piece_start[p + 1]]
    int64_t *piece_start, *piece_opts;
    word* piece_hash;
    // groups: each piece's leader (-1 for a piece of no options), the chain, the table
    int64_t *leader, *next, *tail, *group_table;
    uint64_t group_slots;
    int64_t *mark, *tally;  // marks on cells (stamps), a multiset's tally by footprint
    int64_t stamp = 0;

    uint64_t cells_of(int64_t j) const { return (uint64_t)(cell_start[j + 1] - cell_start[j]); }
    const int64_t* cells_at(int64_t j) const { return cells + cell_start[j]; }
    uint64_t options_of(int64_t p) const {
        return (uint64_t)(piece_start[p + 1] - piece_start[p]);
    }

    // The footprint whose cells are map's image of footprint f's (map null: f's own), or -1.
    int64_t find_fp(const int64_t* map, const int64_t* at, uint64_t n, word h) {
        const int64_t s = (int64_t)cpcore::probe(
            h, fp_slots, [&](uint64_t s) { return fp_table[s] >= 0; },
            [&](uint64_t s) {
                const int64_t f = fp_table[s];
                if (fp_hash[f] != h || cells_of(fp_first[f]) != n) return false;
                ++stamp;
                const int64_t* other = cells_at(fp_first[f]);
                for (uint64_t k = 0; k < n; ++k) mark[other[k]] = stamp;
                for (uint64_t k = 0; k < n; ++k)
                    if (mark[map ? map[at[k]] : at[k]] != stamp) return false;
                return true;
            });
        return fp_table[s] >= 0 ? fp_table[s] : -(s + 2);  // a free slot s: -(s + 2)
    }

    // Whether the footprints of piece p's options under ``image`` (image[f] for footprint f;
    // null: their own) are, as a multiset, those of piece q's.
    bool same_multiset(int64_t p, const int64_t* image, int64_t q) {
        if (options_of(p) != options_of(q)) return false;
        const int64_t *a = piece_opts + piece_start[p], *b = piece_opts + piece_start[q];
        const uint64_t n = options_of(p);
        for (uint64_t k = 0; k < n; ++k) ++tally[image ? image[fp[a[k]]] : fp[a[k]]];
        for (uint64_t k = 0; k < n; ++k) --tally[fp[b[k]]];
        bool same = true;
        for (uint64_t k = 0; k < n; ++k) same = same && tally[fp[b[k]]] == 0;
        for (uint64_t k = 0; k < n; ++k) tally[image ? image[fp[a[k]]] : fp[a[k]]] = 0;
        for (uint64_t k = 0; k < n; ++k) tally[fp[b[k]]] = 0;
        return same;
    }

    // The leader of the group whose footprints are piece p's under image (null: its own),
    // or -(free slot + 2).
    int64_t find_group(int64_t p, const int64_t* image, word h) {
        const uint64_t s = cpcore::probe(
            h, group_slots, [&](uint64_t s) { return group_table[s] >= 0; },
            [&](uint64_t s) {
                const int64_t q = group_table[s];
                return piece_hash[q] == h && same_multiset(p, image, q);
            });
        return group_table[s] >= 0 ? group_table[s] : -(int64_t)(s + 2);
    }

    // Whether option a's cells come before option b's (as sorted sequences).
    bool before(int64_t a, int64_t b) const {
        const uint64_t na = cells_of(a), nb = cells_of(b);
        const int64_t *x = cells_at(a), *y = cells_at(b);
        for (uint64_t k = 0; k < na && k < nb; ++k)
            if (x[k] != y[k]) return x[k] < y[k];
        return na < nb;
    }
};

// Whether the input reads: runs, indices, each option's cells once, each map a permutation.
bool reads(const cpcore_symmetry_input* in, int64_t* mark) {
    const uint64_t n_cells = in->n_cells;
    for (uint64_t i = 0; i < in->n_items; ++i)
        if (in->item_cell[i] < -1 || in->item_cell[i] >= (int64_t)n_cells) return false;
    if (in->opt_start[0] != 0 || in->opt_start[in->n_options] != (int64_t)in->n_opt_items)
        return false;
    for (uint64_t j = 0; j < in->n_options; ++j) {
        if (in->opt_start[j + 1] < in->opt_start[j]) return false;
        if (in->opt_piece[j] < 0 || in->opt_piece[j] >= (int64_t)in->n_pieces) return false;
    }
    for (uint64_t k = 0; k < in->n_opt_items; ++k)
        if (in->opt_items[k] < 0 || in->opt_items[k] >= (int64_t)in->n_items) return false;
    for (uint64_t c = 0; c < n_cells; ++c) mark[c] = -1;
    for (uint64_t j = 0; j < in->n_options; ++j)
        for (int64_t k = in->opt_start[j]; k < in->opt_start[j + 1]; ++k) {
            const int64_t c = in->item_cell[in->opt_items[k]];
            if (c < 0) continue;
            if (mark[c] == (int64_t)j) return false;  // a cell twice
            mark[c] = (int64_t)j;
        }
    for (uint64_t g = 0; g < in->n_maps; ++g) {
        const int64_t* map = in->maps + g * n_cells;
        for (uint64_t c = 0; c < n_cells; ++c) {
            if (map[c] < 0 || map[c] >= (int64_t)n_cells) return false;
            if (mark[map[c]] == -2 - (int64_t)g) return false;  // two cells onto one
            mark[map[c]] = -2 - (int64_t)g;
        }
    }
    return true;
}

}  // namespace

extern "C" int64_t cpcore_option_symmetries(const cpcore_symmetry_input* in,
                                            cpcore_buffers* buffers) {
    Buffers out(buffers);
    const uint64_t n_options = in->n_options, n_pieces = in->n_pieces, n_maps = in->n_maps;
    const uint64_t n_cells = in->n_cells, n_oi = in->n_opt_items;
    if (n_options > CPCORE_MAX_SYMMETRY_OPTIONS || n_maps > CPCORE_MAX_SYMMETRY_MAPS ||
        n_pieces > CPCORE_MAX_SYMMETRY_OPTIONS || in->n_items > MAX_SIZE ||
        n_cells > MAX_SIZE || n_oi > MAX_SIZE) {
        return CPCORE_SYMMETRY_INPUT;
    }
    Problem pr;
    pr.in = in;
    pr.n_options = n_options;
    pr.n_pieces = n_pieces;
    pr.n_cells = n_cells;
    pr.fp_slots = slots_for(n_options);
    pr.group_slots = slots_for(n_pieces);
    pr.cells = out.take(n_oi);
    pr.cell_start = out.take(n_options + 1);
    pr.fp = out.take(n_options);
    pr.fp_first = out.take(n_options);
    pr.fp_hash = out.take<word>(n_options);
    pr.fp_table = out.take(pr.fp_slots);
    pr.piece_start = out.take(n_pieces + 1);
    pr.piece_opts = out.take(n_options);
    pr.piece_hash = out.take<word>(n_pieces);
    pr.leader = out.take(n_pieces);
    pr.next = out.take(n_pieces);
    pr.tail = out.take(n_pieces);
    pr.group_table = out.take(pr.group_slots);
    pr.mark = out.take(n_cells + 1);
    word* cell_key = out.take<word>(n_cells);
    pr.tally = out.take(n_options + 1);
    int64_t* fill = out.take(n_options);         // each footprint's placements placed
    int64_t* images = out.take(n_maps * n_options);  // each footprint's image under each map
    int64_t* goes = out.take(n_pieces);          // each piece's group under a map
    int64_t* taken = out.take(n_pieces);         // pieces taken by the map at hand
    int64_t* fp_opts_start = out.take(n_options + 1);  // each footprint's placements
    int64_t* fp_opts = out.take(n_options);
    int64_t* kept = out.take(n_maps);            // the maps kept
    int64_t* piece_maps = out.take(n_maps * n_pieces);
    int64_t* perms = out.take(n_maps * n_options);
    int64_t* order = out.take(n_pieces);         // pieces by their number of options
    int64_t* bucket = out.take(n_options + 2);
    int64_t* seen = out.take(n_options);         // options in an orbit found (stamps)
    int64_t* members = out.take(n_maps);
    if (!out.fits()) return CPCORE_GEOMETRY_SMALL_BUFFER;
    if (!reads(in, pr.mark)) return CPCORE_SYMMETRY_INPUT;
    for (uint64_t c = 0; c <= n_cells; ++c) pr.mark[c] = 0;
    for (uint64_t c = 0; c < n_cells; ++c) cell_key[c] = key((int64_t)c);

    // Each option's cells, sorted (insertion sort: an option has few).
    pr.cell_start[0] = 0;
    uint64_t at = 0;
    for (uint64_t j = 0; j < n_options; ++j) {
        const uint64_t first = at;
        for (int64_t k = in->opt_start[j]; k < in->opt_start[j + 1]; ++k) {
            const int64_t c = in->item_cell[in->opt_items[k]];
            if (c < 0) continue;
            uint64_t to = at++;
            while (to > first && pr.cells[to - 1] > c) {
                pr.cells[to] = pr.cells[to - 1];
                --to;
            }
            pr.cells[to] = c;
        }
        pr.cell_start[j + 1] = (int64_t)at;
    }
    // The footprints.
    for (uint64_t s = 0; s < pr.fp_slots; ++s) pr.fp_table[s] = -1;
    for (uint64_t j = 0; j < n_options; ++j) {
        word sum = 0;
        const int64_t* cs = pr.cells_at((int64_t)j);
        for (uint64_t k = 0; k < pr.cells_of((int64_t)j); ++k) sum += cell_key[cs[k]];
        const word h = set_hash(sum, pr.cells_of((int64_t)j));
        int64_t f = pr.find_fp(nullptr, cs, pr.cells_of((int64_t)j), h);
        if (f < 0) {
            pr.fp_table[-f - 2] = (int64_t)pr.n_fp;
            f = (int64_t)pr.n_fp++;
            pr.fp_first[f] = (int64_t)j;
            pr.fp_hash[f] = h;
        }
        pr.fp[j] = f;
    }
    // Each piece's options, and the groups of pieces of the same footprints.
    for (uint64_t p = 0; p <= n_pieces; ++p) pr.piece_start[p] = 0;
    for (uint64_t j = 0; j < n_options; ++j) ++pr.piece_start[in->opt_piece[j] + 1];
    for (uint64_t p = 0; p < n_pieces; ++p) pr.piece_start[p + 1] += pr.piece_start[p];
    for (uint64_t p = 0; p < n_pieces; ++p) taken[p] = pr.piece_start[p];
    for (uint64_t j = 0; j < n_options; ++j) pr.piece_opts[taken[in->opt_piece[j]]++] = (int64_t)j;
    for (uint64_t s = 0; s < pr.group_slots; ++s) pr.group_table[s] = -1;
    for (uint64_t f = 0; f <= n_options; ++f) pr.tally[f] = 0;
    for (uint64_t p = 0; p < n_pieces; ++p) {
        pr.leader[p] = pr.next[p] = -1;
        if (pr.options_of((int64_t)p) == 0) continue;
        word sum = 0;
        for (int64_t k = pr.piece_start[p]; k < pr.piece_start[p + 1]; ++k)
            sum += key(pr.fp[pr.piece_opts[k]]);
        pr.piece_hash[p] = set_hash(sum, pr.options_of((int64_t)p));
        const int64_t q = pr.find_group((int64_t)p, nullptr, pr.piece_hash[p]);
        if (q < 0) {
            pr.group_table[-q - 2] = (int64_t)p;
            pr.leader[p] = pr.tail[p] = (int64_t)p;
        } else {
            pr.leader[p] = q;
            pr.next[pr.tail[q]] = (int64_t)p;
            pr.tail[q] = (int64_t)p;
        }
    }
    // Each footprint's placements (in option order): the image of an option is the last of
    // its image's footprint whose piece is where its piece goes.
    for (uint64_t f = 0; f <= pr.n_fp; ++f) fp_opts_start[f] = 0;
    for (uint64_t j = 0; j < n_options; ++j)
        if (in->opt_placed[j]) ++fp_opts_start[pr.fp[j] + 1];
    for (uint64_t f = 0; f < pr.n_fp; ++f) fp_opts_start[f + 1] += fp_opts_start[f];
    for (uint64_t f = 0; f < pr.n_fp; ++f) fill[f] = fp_opts_start[f];
    for (uint64_t j = 0; j < n_options; ++j)
        if (in->opt_placed[j]) fp_opts[fill[pr.fp[j]]++] = (int64_t)j;
    auto placement = [&](int64_t f, int64_t p) {
        int64_t found = -1;
        for (int64_t k = fp_opts_start[f]; k < fp_opts_start[f + 1]; ++k)
            if (in->opt_piece[fp_opts[k]] == p) found = fp_opts[k];
        return found;
    };

    // Each map: the images of the footprints, then of the pieces, then where each piece goes.
    uint64_t n_kept = 0;
    for (uint64_t g = 0; g < n_maps; ++g) {
        const int64_t* map = in->maps + g * n_cells;
        int64_t* const image = images + g * n_options;
        // A map that is the identity, or two earlier maps one after the other (a board's
        // symmetries are a group: its rotations and reflections are products of a few),
        // takes a footprint where they take it, when the first takes it to a footprint.
        bool identity = true;
        for (uint64_t c = 0; c < n_cells && identity; ++c) identity = map[c] == (int64_t)c;
        const int64_t *first = nullptr, *then = nullptr;
        for (uint64_t a = 0; a < g && !first && !identity; ++a)
            for (uint64_t b = 0; b < g && !first; ++b) {
                const int64_t *ma = in->maps + a * n_cells, *mb = in->maps + b * n_cells;
                uint64_t c = 0;
                while (c < n_cells && map[c] == ma[mb[c]]) ++c;
                if (c == n_cells) {
                    first = images + b * n_options;
                    then = images + a * n_options;
                }
            }
        for (uint64_t f = 0; f < pr.n_fp; ++f) {
            if (identity) {
                image[f] = (int64_t)f;
                continue;
            }
            if (first && first[f] >= 0) {
                image[f] = then[first[f]];
                continue;
            }
            const int64_t j = pr.fp_first[f];
            const int64_t* cs = pr.cells_at(j);
            word sum = 0;
            for (uint64_t k = 0; k < pr.cells_of(j); ++k) sum += cell_key[map[cs[k]]];
            const int64_t found = pr.find_fp(map, cs, pr.cells_of(j),
                                             set_hash(sum, pr.cells_of(j)));
            image[f] = found >= 0 ? found : -1;
        }
        int64_t* to = piece_maps + n_kept * n_pieces;
        bool symmetry = true;
        for (uint64_t p = 0; p < n_pieces && symmetry; ++p) {
            goes[p] = -1;
            taken[p] = 0;
            if (pr.leader[p] < 0) continue;
            word sum = 0;
            for (int64_t k = pr.piece_start[p]; k < pr.piece_start[p + 1]; ++k) {
                const int64_t f = image[pr.fp[pr.piece_opts[k]]];
                if (f < 0) symmetry = false;
                sum += key(f);
            }
            if (!symmetry) break;
            const int64_t q = pr.find_group((int64_t)p, image,
                                            set_hash(sum, pr.options_of((int64_t)p)));
            goes[p] = q;
            if (q < 0) symmetry = false;
        }
        if (!symmetry) continue;
        // A piece goes to itself when it can; the others to the first piece of their image's
        // group not taken, of the same bounds.
        for (uint64_t p = 0; p < n_pieces; ++p) {
            to[p] = -1;
            if (pr.leader[p] < 0) {
                to[p] = (int64_t)p;
            } else if (goes[p] == pr.leader[p]) {
                to[p] = (int64_t)p;
                taken[p] = 1;
            }
        }
        for (uint64_t p = 0; p < n_pieces && symmetry; ++p) {
            if (to[p] >= 0) continue;
            int64_t q = goes[p];
            while (q >= 0 && (taken[q] || in->piece_bounds[q] != in->piece_bounds[p])) q = pr.next[q];
            if (q < 0) symmetry = false;
            else {
                to[p] = q;
                taken[q] = 1;
            }
        }
        if (!symmetry) continue;
        int64_t* perm = perms + n_kept * n_options;
        for (uint64_t j = 0; j < n_options; ++j) {
            const int64_t f = image[pr.fp[j]];
            perm[j] = f < 0 ? -1 : placement(f, to[in->opt_piece[j]]);
        }
        kept[n_kept++] = (int64_t)g;
    }

    // The held piece: pieces by their number of options (counting sort, ties in piece order).
    for (uint64_t k = 0; k <= n_options + 1; ++k) bucket[k] = 0;
    for (uint64_t p = 0; p < n_pieces; ++p) ++bucket[pr.options_of((int64_t)p) + 1];
    for (uint64_t k = 0; k <= n_options; ++k) bucket[k + 1] += bucket[k];
    for (uint64_t p = 0; p < n_pieces; ++p) order[bucket[pr.options_of((int64_t)p)]++] = (int64_t)p;
    for (uint64_t j = 0; j < n_options; ++j) seen[j] = -1;
    // The orbits of piece p's options (fixed: those the maps but the first fix), each handed
    // to ``each`` (representative, size, members' buffer of fixers and their number); false
    // when an option has no image.
    auto orbits = [&](int64_t p, uint64_t& n_orbits, uint64_t& fixed, auto each) {
        n_orbits = fixed = 0;
        for (int64_t k = pr.piece_start[p]; k < pr.piece_start[p + 1]; ++k) {
            const int64_t j = pr.piece_opts[k];
            for (uint64_t g = 0; g < n_kept; ++g)
                if (perms[g * n_options + j] < 0) return false;
        }
        for (int64_t k = pr.piece_start[p]; k < pr.piece_start[p + 1]; ++k) {
            const int64_t j = pr.piece_opts[k];
            if (seen[j] == p) continue;
            uint64_t size = 0;
            int64_t rep = -1;
            for (uint64_t g = 0; g < n_kept; ++g) {
                const int64_t m = perms[g * n_options + j];
                bool again = false;
                for (uint64_t e = 0; e < size && !again; ++e) again = members[e] == m;
                if (again) continue;
                members[size++] = m;
                seen[m] = p;
                if (rep < 0 || pr.before(m, rep)) rep = m;
            }
            uint64_t n_fixers = 0;
            for (uint64_t g = 1; g < n_kept; ++g)
                if (perms[g * n_options + rep] == rep) members[n_fixers++] = (int64_t)g;
            fixed += n_fixers > 0;
            ++n_orbits;
            each(rep, size, members, n_fixers);
        }
        return true;
    };
    auto nothing = [](int64_t, uint64_t, const int64_t*, uint64_t) {};
    int64_t held = -1;
    uint64_t best_orbits = 0, best_fixed = 0, best_cells = 0;
    for (uint64_t k = 0; k < n_pieces && n_kept > 1; ++k) {
        const int64_t p = order[k];
        const uint64_t n = pr.options_of(p);
        if (n == 0 || !in->piece_once[p]) continue;
        bool moved = false;
        for (uint64_t g = 0; g < n_kept && !moved; ++g) moved = piece_maps[g * n_pieces + p] != p;
        if (moved) continue;
        if (held >= 0 && (n + n_kept - 1) / n_kept > best_orbits) break;
        uint64_t n_orbits = 0, fixed = 0;
        for (int64_t e = pr.piece_start[p]; e < pr.piece_start[p + 1]; ++e)
            seen[pr.piece_opts[e]] = -1;
        if (!orbits(p, n_orbits, fixed, nothing)) continue;
        const uint64_t cells = pr.cells_of(pr.piece_opts[pr.piece_start[p]]);
        if (held < 0 || n_orbits < best_orbits ||
            (n_orbits == best_orbits &&
             (fixed < best_fixed || (fixed == best_fixed && cells > best_cells)))) {
            held = p;
            best_orbits = n_orbits;
            best_fixed = fixed;
            best_cells = cells;
        }
    }

    // The stream.
    out.put((int64_t)n_kept);
    out.put(held);
    out.put((int64_t)best_orbits);
    for (uint64_t g = 0; g < n_kept; ++g) {
        out.put(kept[g]);
        for (uint64_t p = 0; p < n_pieces; ++p) out.put(piece_maps[g * n_pieces + p]);
        for (uint64_t j = 0; j < n_options; ++j) out.put(perms[g * n_options + j]);
    }
    if (held >= 0) {
        for (int64_t e = pr.piece_start[held]; e < pr.piece_start[held + 1]; ++e)
            seen[pr.piece_opts[e]] = -1;
        uint64_t n_orbits = 0, fixed = 0;
        const bool found = orbits(held, n_orbits, fixed,
                                  [&](int64_t rep, uint64_t size, const int64_t* fixers,
                                      uint64_t n_fixers) {
                                      out.put(rep);
                                      out.put((int64_t)size);
                                      out.put((int64_t)n_fixers);
                                      for (uint64_t e = 0; e < n_fixers; ++e) out.put(fixers[e]);
                                  });
        CPCORE_ASSERT(found && n_orbits == best_orbits);
        (void)found;
    }
    return out.end();
}

#endif
