// A design's candidate sets (entry.h's cpcore_design_sets; cpmodels/design/search.py): the
// sets of its fixed pieces and each draw's picks whose area fills the board, their pieces
// distinct shapes, a set equal to an earlier one (the same shapes with the same copies, or
// their mirror images on a board whose mirror symmetry keeps the required holes) skipped.
// Freestanding: the caller's buffers, nothing allocated.
#include <stdint.h>

#include "cpcore/check.hpp"
#include "cpcore/entry.h"
#include "cpcore/hash.hpp"

namespace cpcore {
namespace {

const int64_t MAX_COORDINATE = (int64_t)1 << 20;  // a cell's row or column, either sign
const uint64_t MAX_PIECES = 1 << 15;              // so a piece's class fits 16 bits of a key
const uint64_t MAX_SET = 1 << 10;                 // pieces in a set

uint64_t slots_for(uint64_t n) {
    uint64_t slots = 2;
    while (slots < 2 * n) slots <<= 1;
    return slots;
}

uint64_t key_words(uint64_t set_cols) { return (set_cols + 3) / 4; }

// The parts of the scratch, in words (known from the inputs), and the slot of the table of
// keys seen, which follows the sets in out (its size known from the sets with the area).
struct Parts {
    uint64_t classes, forms, temp, board, dates, cursor, row, used, total, slot;
};

Parts parts_of(const cpcore_design_sets_input& in) {
    Parts p{};
    const uint64_t n = in.n_pieces, cells = in.n_cells;
    p.classes = 0;                      // own[n], mirror[n], shape[n]
    p.forms = p.classes + 3 * n;        // each piece's form and its mirror's: 2 * 2 * cells
    p.temp = p.forms + 4 * cells;       // a form being made and the best: 2 * 2 * cells + 2
    p.board = p.temp + 4 * cells + 2;   // a reflection's map of the board's cells
    p.dates = p.board + in.n_board;     // the dates' table, then a row: slots + 2 * hole_cols
    p.cursor = p.dates + slots_for(in.n_dates) + 2 * in.hole_cols;
    p.row = p.cursor + 2 * in.n_draws + in.n_drawn;  // each draw's k, its pick's positions
    p.used = p.row + 2 * in.set_cols;   // a set's pieces, its key's classes
    p.total = p.used + in.n_pieces;     // whether a piece is fixed or in a draw yet
    p.slot = key_words(in.set_cols) + 1;  // a key and 1 + its length (0: free)
    return p;
}

// A shape's cells are its rows and columns, at cells[2 * i] and cells[2 * i + 1]. The eight
// moves of the square grid: the four rotations, then the four mirror images.
void move(int64_t r, int64_t c, int t, int64_t* out) {
    const int64_t rr[8] = {r, c, -r, -c, r, -r, c, -c};
    const int64_t cc[8] = {c, -r, -c, r, -c, c, r, -r};
    out[0] = rr[t];
    out[1] = cc[t];
}

bool pair_less(const int64_t* a, const int64_t* b) {
    return a[0] < b[0] || (a[0] == b[0] && a[1] < b[1]);
}

// The cells moved to the grid's home (the smallest row and the smallest column 0), sorted.
void settle(int64_t* cells, uint64_t n) {
    if (n == 0) return;
    int64_t low_r = cells[0], low_c = cells[1];
    for (uint64_t i = 1; i < n; ++i) {
        if (cells[2 * i] < low_r) low_r = cells[2 * i];
        if (cells[2 * i + 1] < low_c) low_c = cells[2 * i + 1];
    }
    for (uint64_t i = 0; i < n; ++i) {
        cells[2 * i] -= low_r;
        cells[2 * i + 1] -= low_c;
    }
    for (uint64_t i = 1; i < n; ++i) {  // insertion sort: a piece has few cells
        const int64_t r = cells[2 * i], c = cells[2 * i + 1];
        const int64_t key[2] = {r, c};
        uint64_t j = i;
        while (j > 0 && pair_less(key, cells + 2 * (j - 1))) {
            cells[2 * j] = cells[2 * (j - 1)];
            cells[2 * j + 1] = cells[2 * (j - 1) + 1];
            --j;
        }
        cells[2 * j] = r;
        cells[2 * j + 1] = c;
    }
}

// Whether form a (n cells) is lexicographically below form b.
bool form_less(const int64_t* a, const int64_t* b, uint64_t n) {
    for (uint64_t i = 0; i < 2 * n; ++i)
        if (a[i] != b[i]) return a[i] < b[i];
    return false;
}

// The shape's canonical form into out (n cells): the least, as sorted settled cells, of its
// turns: its rotations with ``rotate`` (else as drawn), and their mirror images too with
// ``flip``; ``mirrored`` turns it over first (column -c). temp: 2 * n words.
void canonical(const int64_t* cells, uint64_t n, bool flip, bool rotate, bool mirrored,
               int64_t* temp, int64_t* out) {
    for (int t = 0; t < (flip ? 8 : 4); ++t) {
        if (!rotate && t % 4 != 0) continue;  // as drawn, or turned over (move 4: column -c)
        for (uint64_t i = 0; i < n; ++i)
            move(cells[2 * i], mirrored ? -cells[2 * i + 1] : cells[2 * i + 1], t,
                 temp + 2 * i);
        settle(temp, n);
        if (t == 0 || form_less(temp, out, n))
            for (uint64_t i = 0; i < 2 * n; ++i) out[i] = temp[i];
    }
}

struct Sets {
    const cpcore_design_sets_input& in;
    int64_t* work;
    Parts p;
    uint64_t* table;  // the keys seen: slots of p.slot words

    uint64_t size(uint64_t i) const {
        return (uint64_t)(in.cell_start[i + 1] - in.cell_start[i]);
    }
    int64_t* form(uint64_t i, bool mirror) {
        return work + p.forms + 2 * (uint64_t)in.cell_start[i] + (mirror ? 2 * in.n_cells : 0);
    }
    bool same_form(uint64_t i, bool mi, uint64_t j, bool mj) {
        if (size(i) != size(j)) return false;
        const int64_t* a = form(i, mi);
        const int64_t* b = form(j, mj);
        for (uint64_t k = 0; k < 2 * size(i); ++k)
            if (a[k] != b[k]) return false;
        return true;
    }
    // Whether pieces i and j may turn alike (a piece that may turn another way than an equal
    // form has other placements, so a set holding it is not the same set).
    bool same_turns(uint64_t i, uint64_t j) const {
        return (in.flip[i] != 0) == (in.flip[j] != 0) &&
               (in.rotate[i] != 0) == (in.rotate[j] != 0);
    }
    int64_t& own(uint64_t i) { return work[p.classes + i]; }
    int64_t& mirror(uint64_t i) { return work[p.classes + in.n_pieces + i]; }
    int64_t& shape(uint64_t i) { return work[p.classes + 2 * in.n_pieces + i]; }

    // Each piece's classes: its shape (the first piece of its canonical form), its own
    // (form and copies) and its mirror image's (as drawn turned over, when it may not flip).
    void classify(bool mirrors) {
        const uint64_t n = in.n_pieces;
        for (uint64_t i = 0; i < n; ++i) {
            const bool flip = in.flip[i] != 0, rotate = in.rotate[i] != 0;
            const int64_t* cells = in.cells + 2 * (uint64_t)in.cell_start[i];
            canonical(cells, size(i), flip, rotate, false, work + p.temp, form(i, false));
            canonical(cells, size(i), flip, rotate, mirrors && !flip, work + p.temp,
                      form(i, true));
        }
        // A class is the first of the 2n forms (own forms first) with the same form, copies
        // and turns: class c < n is piece c's own form, n + k piece k's mirror form (so a
        // mirror form equal to an own form takes the own form's class).
        for (uint64_t i = 0; i < n; ++i) {
            shape(i) = (int64_t)i;
            for (uint64_t j = 0; j < i; ++j)
                if (same_form(i, false, j, false)) {
                    shape(i) = shape(j);
                    break;
                }
        }
        for (uint64_t e = 0; e < 2 * n; ++e) {
            const uint64_t i = e % n;
            const bool mi = e >= n;
            int64_t found = (int64_t)e;
            for (uint64_t f = 0; f < e; ++f) {
                const uint64_t j = f % n;
                if (in.count_id[i] == in.count_id[j] && same_turns(i, j) &&
                    same_form(i, mi, j, f >= n)) {
                    found = (int64_t)f;
                    break;
                }
            }
            (mi ? mirror(i) : own(i)) = found;
        }
    }

    // Whether a mirror image of the board (one of the square grid's four, moved back to the
    // board's home) maps its cells onto themselves and the required holes onto required
    // holes.
    bool board_mirrors() {
        if (in.n_board == 0) return false;
        int64_t home_r = in.board[0], home_c = in.board[1];
        for (uint64_t b = 1; b < in.n_board; ++b) {
            if (in.board[2 * b] < home_r) home_r = in.board[2 * b];
            if (in.board[2 * b + 1] < home_c) home_c = in.board[2 * b + 1];
        }
        int64_t* map = work + p.board;
        const uint64_t date_slots = slots_for(in.n_dates);
        int64_t* dates = work + p.dates;
        int64_t* row = dates + date_slots;
        for (uint64_t s = 0; s < date_slots; ++s) dates[s] = -1;
        for (uint64_t d = 0; d < in.n_dates; ++d) {
            const uint64_t n = sorted_holes(in.holes + d * in.hole_cols, nullptr, row);
            const uint64_t s = probe(row_hash(row, n), date_slots,
                                     [&](uint64_t t) { return dates[t] >= 0; },
                                     [&](uint64_t t) { return same_date(dates[t], row, n); });
            if (dates[s] < 0) dates[s] = (int64_t)d;
        }
        for (int t = 4; t < 8; ++t) {
            int64_t low_r = 0, low_c = 0;
            for (uint64_t b = 0; b < in.n_board; ++b) {
                int64_t m[2];
                move(in.board[2 * b], in.board[2 * b + 1], t, m);
                if (b == 0 || m[0] < low_r) low_r = m[0];
                if (b == 0 || m[1] < low_c) low_c = m[1];
            }
            bool onto = true;
            for (uint64_t b = 0; b < in.n_board && onto; ++b) {
                int64_t m[2];
                move(in.board[2 * b], in.board[2 * b + 1], t, m);
                m[0] += home_r - low_r;
                m[1] += home_c - low_c;
                map[b] = -1;
                for (uint64_t k = 0; k < in.n_board; ++k)
                    if (in.board[2 * k] == m[0] && in.board[2 * k + 1] == m[1]) {
                        map[b] = (int64_t)k;
                        break;
                    }
                onto = map[b] >= 0;
            }
            for (uint64_t d = 0; d < in.n_dates && onto; ++d) {
                const uint64_t n = sorted_holes(in.holes + d * in.hole_cols, map, row);
                const uint64_t s = probe(
                    row_hash(row, n), date_slots, [&](uint64_t u) { return dates[u] >= 0; },
                    [&](uint64_t u) { return same_date(dates[u], row, n); });
                onto = dates[s] >= 0;
            }
            if (onto) return true;
        }
        return false;
    }

    // A date's holes (board cells, through ``map`` when given) sorted without repeats into
    // out; returns how many.
    uint64_t sorted_holes(const int64_t* holes, const int64_t* map, int64_t* out) {
        uint64_t n = 0;
        for (uint64_t c = 0; c < in.hole_cols; ++c) {
            if (holes[c] < 0) continue;
            const int64_t cell = map ? map[holes[c]] : holes[c];
            uint64_t j = n;
            bool repeat = false;
            for (uint64_t k = 0; k < n; ++k) repeat |= out[k] == cell;
            if (repeat) continue;
            while (j > 0 && out[j - 1] > cell) {
                out[j] = out[j - 1];
                --j;
            }
            out[j] = cell;
            ++n;
        }
        return n;
    }
    static word row_hash(const int64_t* row, uint64_t n) {
        word h = GOLDEN;
        for (uint64_t k = 0; k < n; ++k) h = mix(h, (word)row[k]);
        return mix(h, n);
    }
    bool same_date(int64_t d, const int64_t* row, uint64_t n) {
        int64_t* other = work + p.dates + slots_for(in.n_dates) + in.hole_cols;
        const uint64_t m = sorted_holes(in.holes + (uint64_t)d * in.hole_cols, nullptr, other);
        if (m != n) return false;
        for (uint64_t k = 0; k < n; ++k)
            if (other[k] != row[k]) return false;
        return true;
    }

    // Whether a piece is among the fixed pieces and the draws' more than once.
    bool picked_twice() {
        int64_t* used = work + p.used;
        for (uint64_t i = 0; i < in.n_pieces; ++i) used[i] = i < in.n_fixed;
        for (uint64_t k = 0; k < in.n_drawn; ++k)
            if (used[in.draw_pieces[k]]++) return true;
        return false;
    }

    // Draw g's pick: its k and its positions in the draw (first k of them).
    int64_t& k_of(uint64_t g) { return work[p.cursor + 2 * g]; }
    int64_t* pos(uint64_t g) {
        return work + p.cursor + 2 * in.n_draws + (uint64_t)in.draw_start[g];
    }
    uint64_t draw_size(uint64_t g) const {
        return (uint64_t)(in.draw_start[g + 1] - in.draw_start[g]);
    }
    // Draw g's first pick of k pieces or more (up to its highest): false when none.
    bool first_pick(uint64_t g, int64_t k) {
        for (; k <= in.k_high[g]; ++k) {
            if ((uint64_t)k > draw_size(g)) return false;
            k_of(g) = k;
            for (int64_t j = 0; j < k; ++j) pos(g)[j] = j;
            return true;
        }
        return false;
    }
    // Draw g's next pick (itertools.combinations' order, then one piece more).
    bool next_pick(uint64_t g) {
        const int64_t k = k_of(g), n = (int64_t)draw_size(g);
        int64_t* at = pos(g);
        int64_t j = k - 1;
        while (j >= 0 && at[j] == n - k + j) --j;
        if (j < 0) return first_pick(g, k + 1);
        ++at[j];
        for (int64_t m = j + 1; m < k; ++m) at[m] = at[m - 1] + 1;
        return true;
    }

    // Whether piece a's name is below piece b's (UTF-8 bytes; a shorter prefix first).
    bool name_less(int64_t a, int64_t b) const {
        const char* x = in.names + in.name_start[a];
        const char* y = in.names + in.name_start[b];
        const int64_t nx = in.name_start[a + 1] - in.name_start[a];
        const int64_t ny = in.name_start[b + 1] - in.name_start[b];
        for (int64_t i = 0; i < nx && i < ny; ++i)
            if (x[i] != y[i]) return (unsigned char)x[i] < (unsigned char)y[i];
        return nx < ny;
    }

    // The set of the picks into row (the fixed pieces, then each draw's pick sorted by name,
    // equal names in draw order); returns its size.
    uint64_t fill_row(int64_t* row) {
        uint64_t n = 0;
        for (uint64_t i = 0; i < in.n_fixed; ++i) row[n++] = (int64_t)i;
        for (uint64_t g = 0; g < in.n_draws; ++g) {
            const uint64_t begin = n;
            for (int64_t j = 0; j < k_of(g); ++j) {
                const int64_t piece = in.draw_pieces[(uint64_t)in.draw_start[g] + pos(g)[j]];
                uint64_t m = n++;
                while (m > begin && name_less(piece, row[m - 1])) {
                    row[m] = row[m - 1];
                    --m;
                }
                row[m] = piece;
            }
        }
        return n;
    }

    // Whether the set covers the area with distinct shapes.
    bool fits(const int64_t* row, uint64_t n) {
        int64_t area = 0;
        for (uint64_t k = 0; k < n; ++k) {
            const uint64_t i = (uint64_t)row[k];
            area += k < in.n_fixed ? in.area[i] * in.high[i] : in.area[i];
        }
        if (area != (int64_t)in.board_area) return false;
        for (uint64_t a = 0; a < n; ++a)
            for (uint64_t b = 0; b < a; ++b)
                if (shape(row[a]) == shape(row[b])) return false;
        return true;
    }

    // The set's key (its classes sorted, 16 bits each) into key; returns its hash.
    word key_of(const int64_t* row, uint64_t n, bool twin, uint64_t* key) {
        int64_t* classes = work + p.row + in.set_cols;
        for (uint64_t k = 0; k < n; ++k) {
            const int64_t c = twin ? mirror(row[k]) : own(row[k]);
            uint64_t j = k;
            while (j > 0 && classes[j - 1] > c) {
                classes[j] = classes[j - 1];
                --j;
            }
            classes[j] = c;
        }
        const uint64_t words = key_words(in.set_cols);
        for (uint64_t w = 0; w < words; ++w) key[w] = 0;
        for (uint64_t k = 0; k < n; ++k) key[k / 4] |= (uint64_t)classes[k] << (16 * (k % 4));
        word h = GOLDEN;
        for (uint64_t w = 0; w < words; ++w) h = mix(h, key[w]);
        return mix(h, n);
    }

    // The slot of a key in the table of keys seen.
    uint64_t find(word h, const uint64_t* key, uint64_t n, uint64_t slots) {
        const uint64_t words = key_words(in.set_cols);
        return probe(h, slots, [&](uint64_t s) { return table[s * p.slot + words] != 0; },
                     [&](uint64_t s) {
                         const uint64_t* at = table + s * p.slot;
                         if (at[words] != n + 1) return false;
                         for (uint64_t w = 0; w < words; ++w)
                             if (at[w] != key[w]) return false;
                         return true;
                     });
    }
};

// The inputs checked: every index in range, every count whole.
bool valid(const cpcore_design_sets_input& in) {
    if (in.n_pieces > MAX_PIECES || in.n_fixed > in.n_pieces || in.set_cols > MAX_SET) return false;
    if (in.cell_start[0] != 0 || (uint64_t)in.cell_start[in.n_pieces] != in.n_cells) return false;
    if (in.name_start[0] != 0 || (uint64_t)in.name_start[in.n_pieces] != in.n_names) return false;
    for (uint64_t i = 0; i < in.n_pieces; ++i) {
        if (in.cell_start[i + 1] <= in.cell_start[i]) return false;  // a piece has cells
        if (in.name_start[i + 1] < in.name_start[i]) return false;
        if (in.area[i] < 0 || in.area[i] > MAX_COORDINATE || in.high[i] < 0 ||
            in.high[i] > MAX_COORDINATE)
            return false;
    }
    for (uint64_t k = 0; k < 2 * in.n_cells; ++k)
        if (in.cells[k] < -MAX_COORDINATE || in.cells[k] > MAX_COORDINATE) return false;
    for (uint64_t k = 0; k < 2 * in.n_board; ++k)
        if (in.board[k] < -MAX_COORDINATE || in.board[k] > MAX_COORDINATE) return false;
    for (uint64_t k = 0; k < in.n_dates * in.hole_cols; ++k)
        if (in.holes[k] < -1 || in.holes[k] >= (int64_t)in.n_board) return false;
    if (in.draw_start[0] != 0 || (uint64_t)in.draw_start[in.n_draws] != in.n_drawn) return false;
    uint64_t most = in.n_fixed;
    for (uint64_t g = 0; g < in.n_draws; ++g) {
        if (in.draw_start[g + 1] < in.draw_start[g]) return false;
        if (in.k_low[g] < 0 || in.k_high[g] < in.k_low[g]) return false;
        if ((uint64_t)in.k_high[g] > in.set_cols) return false;
        most += (uint64_t)in.k_high[g];
        if (most > in.set_cols) return false;
    }
    if (most != in.set_cols) return false;
    for (uint64_t k = 0; k < in.n_drawn; ++k)
        if (in.draw_pieces[k] < 0 || (uint64_t)in.draw_pieces[k] >= in.n_pieces) return false;
    return true;
}

}  // namespace
}  // namespace cpcore

using namespace cpcore;

extern "C" int64_t cpcore_design_sets(cpcore_design_sets_input* in, cpcore_buffers* buffers) {
    if (!valid(*in)) return CPCORE_SETS_INPUT;
    const Parts p = parts_of(*in);
    buffers->need_scratch = p.total;
    buffers->need_out = 0;
    if (buffers->n_scratch < p.total) return CPCORE_GEOMETRY_SMALL_BUFFER;
    Sets sets{*in, buffers->scratch, p, nullptr};
    // A board's mirror image makes a set's twin of pieces turned over; it is the same set
    // again only when its pieces may rotate (the mirror may be any of the grid's four).
    bool may_flip_all = true, may_rotate_all = true;
    for (uint64_t i = 0; i < in->n_pieces; ++i) {
        may_flip_all &= in->flip[i] != 0;
        may_rotate_all &= in->rotate[i] != 0;
    }
    const bool mirrors = !may_flip_all && may_rotate_all && sets.board_mirrors();
    sets.classify(mirrors);
    // Sets are equal only when two pieces are (or mirror), or when a piece can be picked
    // in more than one place (two draws, twice in one, or fixed and drawn).
    bool repeats = mirrors || sets.picked_twice();
    for (uint64_t i = 0; i < in->n_pieces && !repeats; ++i)
        for (uint64_t j = 0; j < i && !repeats; ++j) repeats = sets.own(i) == sets.own(j);
    int64_t* row = buffers->scratch + p.row;
    // The sets in product order: the last draw's pick changes first.
    auto first = [&]() {
        for (uint64_t g = 0; g < in->n_draws; ++g)
            if (!sets.first_pick(g, in->k_low[g])) return false;
        return true;
    };
    auto next = [&]() {
        for (uint64_t g = in->n_draws; g-- > 0;) {
            if (sets.next_pick(g)) return true;
            sets.first_pick(g, in->k_low[g]);  // there is one: the product began
        }
        return false;
    };
    // The sets with the area: how many rows out and the table need.
    uint64_t n_area = 0;
    for (bool more = first(); more; more = next())
        if (sets.fits(row, sets.fill_row(row))) ++n_area;
    in->n_area = n_area;
    const uint64_t slots = repeats ? slots_for(n_area) : 0;
    buffers->need_out = n_area * in->set_cols + slots * p.slot;
    if (buffers->out_capacity < buffers->need_out) return CPCORE_GEOMETRY_SMALL_BUFFER;
    uint64_t* table = (uint64_t*)(buffers->out + n_area * in->set_cols);
    sets.table = table;
    for (uint64_t w = 0; w < slots * p.slot; ++w) table[w] = 0;
    uint64_t key[MAX_SET / 4 + 1];
    const uint64_t words = key_words(in->set_cols);
    uint64_t written = 0, skipped = 0;
    for (bool more = first(); more; more = next()) {
        const uint64_t n = sets.fill_row(row);
        if (!sets.fits(row, n)) continue;
        bool is_first = true;
        if (repeats) {
            const word h = sets.key_of(row, n, false, key);
            const uint64_t s = sets.find(h, key, n, slots);
            uint64_t twin[MAX_SET / 4 + 1];
            const word th = sets.key_of(row, n, true, twin);
            const uint64_t ts = sets.find(th, twin, n, slots);
            is_first = table[s * p.slot + words] == 0 && table[ts * p.slot + words] == 0;
            if (table[s * p.slot + words] == 0) {
                for (uint64_t w = 0; w < words; ++w) table[s * p.slot + w] = key[w];
                table[s * p.slot + words] = n + 1;
            }
        }
        if (!is_first) {
            ++skipped;
            continue;
        }
        int64_t* out = buffers->out + written * in->set_cols;
        for (uint64_t k = 0; k < in->set_cols; ++k) out[k] = k < n ? row[k] : -1;
        ++written;
    }
    CPCORE_ASSERT(written + skipped == n_area);
    in->n_sets = written;
    in->skipped = skipped;
    return (int64_t)(written * in->set_cols);
}
