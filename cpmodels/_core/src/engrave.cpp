// The engraving on a laser's parts (make's labels and names): text laid out in a glyph table
// the caller gives (make/glyphs.py writes it from a font), each name placed at the point
// deepest inside its piece and shrunk until it fits, as one stream over the caller's buffer.
#include "cpcore/check.hpp"
#include "cpcore/cut.hpp"
#include "cpcore/entry.h"
#include "cpcore/play_layout.hpp"

namespace {

using namespace cpcore::laser;
namespace cut = cpcore::cut;
namespace play = cpcore::play;

const double MOST_GLYPH = 1000.0;   // a glyph's numbers within this of 0 (size 10)
const double TOLERANCE = 0.01;      // the deepest point's precision (mm)
const uint64_t HEAP_CELLS = 2048;   // its search's squares kept at once
const uint64_t MOST_STEPS = 8192;   // and squares looked at

// The glyph table (make/glyphs.py), read and checked once: where each glyph starts, the
// code points with their glyphs and kerning classes, the kerning and the joined pairs.
struct Table {
    const int64_t* w = nullptr;
    int64_t* glyph_at = nullptr;  // [n_glyphs] each glyph's first word (its advance)
    uint64_t n_glyphs = 0, n_chars = 0, n_first = 0, n_second = 0, n_joined = 0;
    const int64_t* chars = nullptr;    // [n_chars, 4] code point, glyph, first, second class
    const int64_t* kerning = nullptr;  // [n_first, n_second] doubles
    const int64_t* joined = nullptr;   // [n_joined, 3] code point, code point, glyph
    uint64_t most_rings = 0;           // the most rings of a glyph

    double advance(int64_t g) const { return get(w, (uint64_t)glyph_at[g]); }
    // The entry of code point c (chars ascend), or -1.
    int64_t entry(int64_t c) const {
        uint64_t lo = 0, hi = n_chars;
        while (lo < hi) {
            const uint64_t mid = (lo + hi) / 2;
            if (chars[4 * mid] < c) lo = mid + 1;
            else hi = mid;
        }
        return lo < n_chars && chars[4 * lo] == c ? (int64_t)lo : -1;
    }
    int64_t joined_glyph(int64_t a, int64_t b) const {
        for (uint64_t k = 0; k < n_joined; ++k) {
            if (joined[3 * k] == a && joined[3 * k + 1] == b) return joined[3 * k + 2];
        }
        return -1;
    }
    double kern(int64_t first_entry, int64_t second_entry) const {
        const int64_t f = chars[4 * first_entry + 2], s = chars[4 * second_entry + 3];
        return get(kerning, (uint64_t)f * n_second + (uint64_t)s);
    }
};

bool small_number(double v) { return cut::finite(v) && cut::absolute(v) <= MOST_GLYPH; }

// Reads the table's counts (glyph_at filled: room for n words); false when it does not read.
bool read_table(const int64_t* w, uint64_t n, int64_t* glyph_at, uint64_t room, Table& t) {
    uint64_t at = 0;
    auto take = [&](int64_t& v, int64_t least, int64_t most) {
        if (at >= n) return false;
        v = w[at++];
        return v >= least && v <= most;
    };
    // A count of records of ``per`` words that the words after it hold.
    auto records = [&](int64_t& v, int64_t least, uint64_t per) {
        if (at >= n) return false;
        v = w[at++];
        return v >= least && (uint64_t)v <= (n - at) / per;
    };
    // Rows of ``per`` words, as many as a count says that the words after it hold: where
    // they start (passed over).
    auto rows = [&](int64_t& v, uint64_t per, const int64_t*& first) {
        if (!records(v, 0, per)) return false;
        first = w + at;
        at += per * (uint64_t)v;
        return true;
    };
    // Whether the next k words (there) are numbers of a glyph's size; passed over.
    auto small_numbers = [&](uint64_t k) {
        for (const uint64_t end = at + k; at < end; ++at) {
            if (!small_number(get(w, at))) return false;
        }
        return true;
    };
    const int64_t most = (int64_t)n;
    int64_t n_glyphs;
    if (!take(n_glyphs, 0, most) || (uint64_t)n_glyphs > room) return false;
    t.w = w, t.glyph_at = glyph_at, t.n_glyphs = (uint64_t)n_glyphs;
    for (int64_t g = 0; g < n_glyphs; ++g) {
        glyph_at[g] = (int64_t)at;
        int64_t n_rings;
        if (at >= n || !small_numbers(1)) return false;  // the advance
        if (!take(n_rings, 0, CPCORE_MAX_GLYPH_RINGS)) return false;
        if ((uint64_t)n_rings > t.most_rings) t.most_rings = (uint64_t)n_rings;
        for (int64_t r = 0; r < n_rings; ++r) {
            int64_t n_points;
            if (!records(n_points, 3, 2) || !small_numbers(2 * (uint64_t)n_points)) return false;
        }
    }
    int64_t n_chars;
    if (!rows(n_chars, 4, t.chars)) return false;
    t.n_chars = (uint64_t)n_chars;
    int64_t n_first, n_second;
    if (!take(n_first, 0, most) || !take(n_second, 0, most)) return false;
    if (n_first > 0 && n_second > (most - (int64_t)at) / n_first) return false;
    t.n_first = (uint64_t)n_first, t.n_second = (uint64_t)n_second, t.kerning = w + at;
    if (!small_numbers(t.n_first * t.n_second)) return false;
    int64_t n_joined;
    if (!rows(n_joined, 3, t.joined)) return false;
    t.n_joined = (uint64_t)n_joined;
    for (uint64_t k = 0; k < t.n_chars; ++k) {
        const int64_t* c = t.chars + 4 * k;
        if (c[0] < 1 || c[0] > 0x10ffff || (k > 0 && c[0] <= c[-4]) || c[1] < 0 ||
            c[1] >= n_glyphs || c[2] < 0 || c[2] >= n_first || c[3] < 0 || c[3] >= n_second)
            return false;
    }
    for (uint64_t k = 0; k < t.n_joined; ++k) {
        const int64_t* j = t.joined + 3 * k;
        if (t.entry(j[0]) < 0 || t.entry(j[1]) < 0 || j[2] < 0 || j[2] >= n_glyphs) return false;
    }
    return at == n;
}

// One ring of a text: the table's points (at), how many, and the pen's move across.
struct Ring {
    uint64_t at, n;
    double dx;
    int64_t hole_of;  // the ring it is a hole of, or -1 (an outer ring)
};

// A text's rings at size 10 (y up), its box and its even-odd nesting.
struct Laid {
    Ring* rings;
    uint64_t n = 0;
    cut::Box box;
};

// Lays out m code points: their glyphs' rings into laid (room for
// CPCORE_MAX_ENGRAVED_TEXT * most_rings); the missing code point, or 0.
int64_t lay_out(const Table& t, const int64_t* codes, int64_t m, Laid& laid) {
    laid.n = 0;
    double x = 0;
    int64_t previous = -1;  // the last glyph's last code point's entry
    for (int64_t i = 0; i < m;) {
        int64_t glyph = i + 1 < m ? t.joined_glyph(codes[i], codes[i + 1]) : -1;
        const int64_t first = t.entry(codes[i]);
        if (first < 0) return codes[i];
        int64_t last = first;
        if (glyph >= 0) {
            last = t.entry(codes[i + 1]);
            i += 2;
        } else {
            glyph = t.chars[4 * first + 1];
            i += 1;
        }
        if (previous >= 0) x += t.kern(previous, first);
        uint64_t at = (uint64_t)t.glyph_at[glyph] + 1;
        const int64_t n_rings = t.w[at++];
        for (int64_t r = 0; r < n_rings; ++r) {
            const uint64_t n = (uint64_t)t.w[at++];
            laid.rings[laid.n++] = Ring{at, n, x, -1};
            at += 2 * n;
        }
        x += t.advance(glyph);
        previous = last;
    }
    laid.box = cut::Box();
    for (uint64_t r = 0; r < laid.n; ++r) {
        const Ring& ring = laid.rings[r];
        for (uint64_t i = 0; i < ring.n; ++i)
            laid.box.add(get(t.w, ring.at + 2 * i) + ring.dx, get(t.w, ring.at + 2 * i + 1));
    }
    return 0;
}

// Where a ring's points go: its point (x, y) to (fx (x + dx) + tx, fy y + ty).
struct Map {
    double dx, fx, fy, tx, ty;
    void at(const int64_t* pts, uint64_t i, double& x, double& y) const {
        x = fx * (get(pts, 2 * i) + dx) + tx;
        y = fy * get(pts, 2 * i + 1) + ty;
    }
};

const Map SAME{0, 1, 1, 0, 0};

// Whether (x, y) is inside a ring of n points mapped by m (crossings of a ray to the
// right, odd).
bool inside_ring(double x, double y, const int64_t* pts, uint64_t n, const Map& m) {
    bool in = false;
    for (uint64_t i = 0, j = n - 1; i < n; j = i++) {
        double xi, yi, xj, yj;
        m.at(pts, i, xi, yi);
        m.at(pts, j, xj, yj);
        if ((yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi) in = !in;
    }
    return in;
}

// Each ring's nesting: a ring inside an odd number of others is a hole of the smallest of
// them (the one nearest around it).
void nest(const Table& t, Laid& laid) {
    for (uint64_t a = 0; a < laid.n; ++a) {
        const Ring& ra = laid.rings[a];
        const double x = get(t.w, ra.at) + ra.dx, y = get(t.w, ra.at + 1);
        bool odd = false;
        double least = 0;
        for (uint64_t b = 0; b < laid.n; ++b) {
            const Ring& rb = laid.rings[b];
            if (b == a || !inside_ring(x, y, t.w + rb.at, rb.n, Map{rb.dx, 1, 1, 0, 0}))
                continue;
            odd = !odd;
            const double area = cut::absolute(cut::twice_area(t.w + rb.at, rb.n));
            if (laid.rings[a].hole_of < 0 || area < least)
                laid.rings[a].hole_of = (int64_t)b, least = area;
        }
        if (!odd) laid.rings[a].hole_of = -1;
    }
}

// Where a laid text goes: x' = f x + tx, y' = -f y + ty (y up to y down), its box centred on
// (cx, cy); each ring's map with its pen's move.
struct Place {
    double f, tx, ty;
    Place(const Laid& laid, double f_, double cx, double cy)
        : f(f_), tx(cx - (f_ * laid.box.x0 + f_ * laid.box.x1) / 2),
          ty(cy - (-f_ * laid.box.y1 + -f_ * laid.box.y0) / 2) {}
    Map of(const Ring& ring) const { return Map{ring.dx, f, -f, tx, ty}; }
};

// The polygons of a placed text as the engraving stream writes them; returns how many.
int64_t put_polygons(Buffers& s, const Table& t, const Laid& laid, const Place& place) {
    int64_t n_polys = 0;
    for (uint64_t a = 0; a < laid.n; ++a) {
        if (laid.rings[a].hole_of >= 0) continue;
        ++n_polys;
        int64_t n_rings = 1;
        for (uint64_t b = 0; b < laid.n; ++b) n_rings += laid.rings[b].hole_of == (int64_t)a;
        s.put(n_rings);
        for (uint64_t k = 0; k <= laid.n; ++k) {  // the outer ring, then its holes
            const uint64_t b = k == 0 ? a : k - 1;
            if (k > 0 && laid.rings[b].hole_of != (int64_t)a) continue;
            const Ring& ring = laid.rings[b];
            s.put((int64_t)ring.n);
            const Map m = place.of(ring);
            for (uint64_t i = 0; i < ring.n; ++i) {
                double x, y;
                m.at(t.w + ring.at, i, x, y);
                s.put(bits(x));
                s.put(bits(y));
            }
        }
    }
    return n_polys;
}

// A piece's outline in millimetres: rings of points (doubles), first point and count each.
struct Outline {
    int64_t* points;
    int64_t* rings;  // [n_rings, 2] first point, count
    uint64_t n_rings = 0, n_points = 0;
    const int64_t* ring(uint64_t r) const { return points + 2 * rings[2 * r]; }
    uint64_t size(uint64_t r) const { return (uint64_t)rings[2 * r + 1]; }
    // Each edge of each ring, from (ax, ay) to (bx, by), handed to f until f says false;
    // whether f said true to every one.
    template <class F>
    bool each_edge(F f) const {
        for (uint64_t r = 0; r < n_rings; ++r) {
            const int64_t* pts = ring(r);
            const uint64_t n = size(r);
            for (uint64_t i = 0; i < n; ++i) {
                const uint64_t j = (i + 1) % n;
                if (!f(get(pts, 2 * i), get(pts, 2 * i + 1), get(pts, 2 * j), get(pts, 2 * j + 1)))
                    return false;
            }
        }
        return true;
    }
};

__attribute__((noinline)) double squared_to_segment(double px, double py, double ax, double ay, double bx, double by) {
    const double dx = bx - ax, dy = by - ay;
    const double len = dx * dx + dy * dy;
    double u = len > 0 ? ((px - ax) * dx + (py - ay) * dy) / len : 0;
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    const double ex = ax + u * dx - px, ey = ay + u * dy - py;
    return ex * ex + ey * ey;
}

bool inside_outline(const Outline& o, double x, double y) {
    bool in = false;
    for (uint64_t r = 0; r < o.n_rings; ++r) {
        in ^= inside_ring(x, y, o.ring(r), o.size(r), SAME);
    }
    return in;
}

// The distance from (x, y) to the outline's edges: positive inside, negative outside.
double signed_distance(const Outline& o, double x, double y) {
    double least = -1;
    o.each_edge([&](double ax, double ay, double bx, double by) {
        const double d = squared_to_segment(x, y, ax, ay, bx, by);
        if (least < 0 || d < least) least = d;
        return true;
    });
    const double d = cut::root(least);
    return inside_outline(o, x, y) ? d : -d;
}

// The point deepest inside the outline, within TOLERANCE (the maximum inscribed circle's
// centre): squares halved best first (the first of equals), a square's best hope its
// centre's depth plus its half diagonal; cells holds HEAP_CELLS squares (x, y, half side,
// depth: doubles).
void deepest(const Outline& o, int64_t* cells, double& best_x, double& best_y) {
    cut::Box around;
    for (uint64_t r = 0; r < o.n_rings; ++r) {
        CPCORE_ASSERT(o.size(r) > 0);
        const int64_t* pts = o.ring(r);
        for (uint64_t i = 0; i < o.size(r); ++i) around.add(get(pts, 2 * i), get(pts, 2 * i + 1));
    }
    const double x0 = around.x0, y0 = around.y0, x1 = around.x1, y1 = around.y1;
    const double sqrt2 = 0x1.6a09e667f3bcdp+0;
    auto hope = [&](uint64_t k) { return get(cells, 4 * k + 3) + get(cells, 4 * k + 2) * sqrt2; };
    uint64_t n = 0;
    auto push = [&](double x, double y, double h) {
        if (n == HEAP_CELLS) return;
        int64_t* c = cells + 4 * n++;
        set(c, 0, x), set(c, 1, y), set(c, 2, h), set(c, 3, signed_distance(o, x, y));
    };
    best_x = (x0 + x1) / 2, best_y = (y0 + y1) / 2;
    double best = signed_distance(o, best_x, best_y);
    const double side = (x1 - x0) > (y1 - y0) ? x1 - x0 : y1 - y0;
    push(best_x, best_y, side / 2);
    for (uint64_t step = 0; n > 0 && step < MOST_STEPS; ++step) {
        uint64_t top = 0;
        for (uint64_t k = 1; k < n; ++k) top = hope(k) > hope(top) ? k : top;
        const double x = get(cells, 4 * top), y = get(cells, 4 * top + 1);
        const double h = get(cells, 4 * top + 2), d = get(cells, 4 * top + 3);
        const double most = hope(top);
        --n;
        for (int w = 0; w < 4; ++w) cells[4 * top + w] = cells[4 * n + w];
        if (d > best) best = d, best_x = x, best_y = y;
        if (most - best <= TOLERANCE) break;  // no square left can do better
        const double q = h / 2;
        push(x - q, y - q, q);
        push(x + q, y - q, q);
        push(x - q, y + q, q);
        push(x + q, y + q, q);
    }
}

// Whether a placed text lies inside the outline at least ``margin`` from its edges: every
// edge of the text that far from every edge of the outline, one of its points inside, and
// no point of the outline inside the text.
bool fits(const Outline& o, const Table& t, const Laid& laid, const Place& place,
          double margin) {
    const double m2 = margin * margin;
    for (uint64_t a = 0; a < laid.n; ++a) {
        const Ring& ring = laid.rings[a];
        const Map map = place.of(ring);
        for (uint64_t i = 0; i < ring.n; ++i) {
            double px, py, qx, qy;
            map.at(t.w + ring.at, i, px, py);
            map.at(t.w + ring.at, (i + 1) % ring.n, qx, qy);
            if (a == 0 && i == 0 && !inside_outline(o, px, py)) return false;
            // Crossing segments are 0 apart; else the least of the four ends'.
            const bool apart = o.each_edge([&](double ax, double ay, double bx, double by) {
                const double d1 = (bx - ax) * (py - ay) - (by - ay) * (px - ax);
                const double d2 = (bx - ax) * (qy - ay) - (by - ay) * (qx - ax);
                const double d3 = (qx - px) * (ay - py) - (qy - py) * (ax - px);
                const double d4 = (qx - px) * (by - py) - (qy - py) * (bx - px);
                if (((d1 < 0) != (d2 < 0)) && ((d3 < 0) != (d4 < 0))) return false;
                return !(squared_to_segment(px, py, ax, ay, bx, by) < m2 ||
                         squared_to_segment(qx, qy, ax, ay, bx, by) < m2 ||
                         squared_to_segment(ax, ay, px, py, qx, qy) < m2 ||
                         squared_to_segment(bx, by, px, py, qx, qy) < m2);
            });
            if (!apart) return false;
        }
    }
    for (uint64_t r = 0; r < o.n_rings; ++r) {
        const int64_t* pts = o.ring(r);
        bool in = false;
        for (uint64_t a = 0; a < laid.n; ++a) {
            const Ring& ring = laid.rings[a];
            in ^= inside_ring(get(pts, 0), get(pts, 1), t.w + ring.at, ring.n, place.of(ring));
        }
        if (in) return false;
    }
    return true;
}

}  // namespace

extern "C" int64_t cpcore_engrave(const cpcore_engrave_input* in, cpcore_buffers* buffers) {
    Buffers s(buffers);
    cut::Parts given(*in, in->label_cells, in->n_labels);
    const int64_t status = given.status();
    if (status != 0) return status;
    const int64_t grid = in->grid;
    const uint64_t n_labels = in->n_labels, n_pieces = in->n_pieces, largest = given.largest;
    const double cell = get(in->sizes, 0), clearance = get(in->sizes, 2);
    if (!(cell >= 1.0 && cell <= 500.0 && clearance >= 0 && clearance < cell / 4))
        return CPCORE_CUT_BAD_SIZES;
    auto runs_hold = [](const int64_t* start, uint64_t n, const int64_t* text, uint64_t chars) {
        if (chars > CPCORE_MAX_CUT_NAME_BYTES || start[0] != 0 || (uint64_t)start[n] != chars)
            return false;
        for (uint64_t k = 0; k < n; ++k) {
            if (start[k + 1] < start[k] || start[k + 1] - start[k] > CPCORE_MAX_ENGRAVED_TEXT)
                return false;
        }
        for (uint64_t k = 0; k < chars; ++k) {
            const int64_t c = text[k];
            if (c < 1 || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return false;
        }
        return true;
    };
    if (!runs_hold(in->label_start, n_labels, in->label_text, in->n_label_chars) ||
        !runs_hold(in->name_start, n_pieces, in->name_text, in->n_name_chars))
        return CPCORE_ENGRAVE_BAD_TEXT;
    if (in->n_glyph_words > CPCORE_MAX_GLYPH_WORDS) return CPCORE_ENGRAVE_BAD_GLYPHS;

    // The scratch: each glyph's start, a text's rings, the outline's
    // scratch and a piece's cells and nominal outline (a region's loops have at most 6
    // points a cell), the deepest point's squares.
    const uint64_t n = in->n_glyph_words;  // the glyphs' starts: as many as the table says
    const uint64_t n_glyph_room =
        n > 0 && in->glyphs[0] >= 0 && (uint64_t)in->glyphs[0] <= n ? (uint64_t)in->glyphs[0] : 0;
    const uint64_t ring_room = CPCORE_MAX_ENGRAVED_TEXT * CPCORE_MAX_GLYPH_RINGS;
    const uint64_t n_points = 6 * largest + 8;
    int64_t* glyph_at = s.take(n_glyph_room);
    Ring* rings = s.take<Ring>(ring_room);
    int64_t* outline_scratch = s.take(80 * largest);
    int64_t* sorted = s.take(largest);
    int64_t* cell_points = s.take(2 * n_points);
    int64_t* cell_rings = s.take(2 * n_points);
    int64_t* nominal_points = s.take(2 * n_points);
    int64_t* nominal_rings = s.take(2 * n_points);
    int64_t* heap = s.take(4 * HEAP_CELLS);
    int64_t* label_order = s.take(n_labels);  // the labels in their cells' order
    if (!s.fits()) return CPCORE_GEOMETRY_SMALL_BUFFER;
    if (reading_order(in->label_cells, 2, label_order, n_labels) != n_labels ||
        !given.pieces_distinct(sorted))
        return CPCORE_CUT_BAD_PARTS;
    Table t;
    if (!read_table(in->glyphs, in->n_glyph_words, glyph_at, n_glyph_room, t))
        return CPCORE_ENGRAVE_BAD_GLYPHS;
    CPCORE_ASSERT(t.most_rings <= CPCORE_MAX_GLYPH_RINGS);
    // Every text has its glyphs, before anything is written.
    Laid laid;
    laid.rings = rings;
    // Label k's characters (k < n_labels), else piece k - n_labels's name's: m of them.
    auto text_of = [&](uint64_t k, int64_t& m) {
        const bool label = k < n_labels;
        const int64_t* start = label ? in->label_start + k : in->name_start + (k - n_labels);
        m = start[1] - start[0];
        return (label ? in->label_text : in->name_text) + start[0];
    };
    for (uint64_t k = 0; k < n_labels + n_pieces; ++k) {
        int64_t m;
        const int64_t* codes = text_of(k, m);
        const int64_t missing = lay_out(t, codes, m, laid);
        if (missing != 0) {
            s.put(missing);
            return s.end();
        }
    }
    s.put(0);

    double sx, sy;
    cut::drawing_scale(grid, cell, sx, sy);
    static const double shares[3][2] = {{0.34, 0.8}, {0.17, 0.38}, {0.4, 1.1}};
    const double tall = shares[grid][0] * cell, wide = shares[grid][1] * cell;
    // The largest size at which the text is at most h tall and w wide (0: nothing to draw).
    auto factor_of = [&](const Laid& l, double h, double w) {
        const double high = l.box.y1 - l.box.y0, across = l.box.x1 - l.box.x0;
        if (l.n == 0 || !(high > 1e-6) || !(across > 1e-6)) return 0.0;  // nothing to see
        const double a = h / high, b = w / across;
        return a < b ? a : b;
    };

    // Each piece's name.
    for (uint64_t p = 0; p < n_pieces; ++p) {
        int64_t m;
        const int64_t* codes = text_of(n_labels + p, m);
        lay_out(t, codes, m, laid);
        const double f = factor_of(laid, tall, wide);
        if (!(f > 0)) {
            s.put(0);
            continue;
        }
        nest(t, laid);
        // The piece less half the clearance (its nominal outline).
        Outline cells_outline{cell_points, cell_rings}, nominal{nominal_points, nominal_rings};
        cells_outline.n_rings =
            cut::region_loops(grid, given.cells(p), given.size(p), outline_scratch, sx, sy,
                              false, cell_points, cell_rings, cells_outline.n_points);
        CPCORE_ASSERT(cells_outline.n_points <= n_points);
        for (uint64_t r = 0; r < cells_outline.n_rings; ++r) {
            nominal.rings[2 * r] = cells_outline.rings[2 * r];
            nominal.rings[2 * r + 1] = cells_outline.rings[2 * r + 1];
            cut::offset(cells_outline.ring(r), cells_outline.size(r), -clearance / 2,
                        nominal_points + 2 * cells_outline.rings[2 * r]);
        }
        nominal.n_rings = cells_outline.n_rings;
        nominal.n_points = cells_outline.n_points;
        double at_x, at_y;
        deepest(nominal, heap, at_x, at_y);
        const double margin = 0.05 * tall;
        double h = tall, w = wide;
        bool placed = false;
        for (int attempt = 0; attempt < 4 && !placed; ++attempt) {
            const Place place(laid, factor_of(laid, h, w), at_x, at_y);
            if (fits(nominal, t, laid, place, margin)) {
                const uint64_t count_at = s.n;
                s.put(0);
                s.set(count_at, put_polygons(s, t, laid, place));
                placed = true;
            }
            h *= 0.7, w *= 0.7;
        }
        if (!placed) s.put(0);
    }

    // The labels on the base, all at one size.
    double f = 0;
    for (uint64_t k = 0; k < n_labels; ++k) {
        int64_t m;
        const int64_t* codes = text_of(k, m);
        lay_out(t, codes, m, laid);
        const double g = factor_of(laid, tall, wide);
        if (g > 0 && (f == 0 || g < f)) f = g;
    }
    const uint64_t count_at = s.n;
    s.put(0);
    int64_t n_polys = 0;
    for (uint64_t i = 0; i < n_labels; ++i) {
        const uint64_t k = (uint64_t)label_order[i];
        int64_t m;
        const int64_t* codes = text_of(k, m);
        lay_out(t, codes, m, laid);
        if (!(factor_of(laid, tall, wide) > 0)) continue;
        nest(t, laid);
        int64_t centre[2];
        play::cell_centre(grid, in->label_cells[2 * k], in->label_cells[2 * k + 1], centre);
        const Place place(laid, f, (double)centre[0] / (double)play::SIXTHS * sx,
                          (double)centre[1] / (double)play::SIXTHS * sy);
        n_polys += put_polygons(s, t, laid, place);
    }
    s.set(count_at, n_polys);
    return s.end();
}
