// A laser's sheets of parts for a board (make's sheet-N.svg): each piece, the board's frame
// and its base outlined in millimetres, the kerf added, turned and laid out on sheets in
// first-fit shelves, and written as SVG, as one stream of words over the caller's buffer.
#include "cpcore/check.hpp"
#include "cpcore/cut.hpp"
#include "cpcore/entry.h"
#include "cpcore/play_layout.hpp"

namespace {

using namespace cpcore::laser;
namespace cut = cpcore::cut;

enum Size { CELL, KERF, CLEARANCE, SHEET_W, SHEET_H, BORDER, GAP, MARGIN, N_SIZES };
enum Kind { PIECE = 0, FRAME = 1, BASE = 2 };

// Rings of points in doubles: points (2 words a point), rings (first point, n points),
// shapes (first ring, n rings), each filled in turn.
struct Store {
    int64_t* points;
    int64_t* rings;
    int64_t* shapes;
    uint64_t n_points = 0, n_rings = 0, n_shapes = 0;

    uint64_t begin_shape() {
        shapes[2 * n_shapes] = (int64_t)n_rings;
        shapes[2 * n_shapes + 1] = 0;
        return n_shapes++;
    }
    int64_t* begin_ring(uint64_t n) {  // a ring of n points in the shape begun last
        rings[2 * n_rings] = (int64_t)n_points;
        rings[2 * n_rings + 1] = (int64_t)n;
        ++n_rings;
        ++shapes[2 * (n_shapes - 1) + 1];
        int64_t* at = points + 2 * n_points;
        n_points += n;
        return at;
    }
    uint64_t ring_count(uint64_t shape) const { return (uint64_t)shapes[2 * shape + 1]; }
    uint64_t ring_of(uint64_t shape, uint64_t k) const {
        return (uint64_t)shapes[2 * shape] + k;
    }
    uint64_t size(uint64_t ring) const { return (uint64_t)rings[2 * ring + 1]; }
    int64_t* ring(uint64_t ring) const { return points + 2 * rings[2 * ring]; }
};

// A copy of shape ``from`` offset by d as a new shape; returns it.
uint64_t offset_shape(Store& store, uint64_t from, double d) {
    const uint64_t shape = store.begin_shape();
    for (uint64_t k = 0; k < store.ring_count(from); ++k) {
        const uint64_t r = store.ring_of(from, k);
        const uint64_t n = store.size(r);
        int64_t* to = store.begin_ring(n);
        cut::offset(store.ring(r), n, d, to);
    }
    return shape;
}

double area(const Store& store, uint64_t shape) {
    double twice = 0;
    for (uint64_t k = 0; k < store.ring_count(shape); ++k) {
        const uint64_t r = store.ring_of(shape, k);
        twice += cut::twice_area(store.ring(r), store.size(r));
    }
    return cut::absolute(twice) / 2;
}

// Bytes written 8 to a word (the first in the low byte), or only counted.
struct Text {
    Buffers* s;  // null: count only
    uint64_t n = 0;
    uint64_t word = 0;

    void byte(uint8_t b) {
        word |= ((uint64_t)b) << (8 * (n % 8));
        ++n;
        if (n % 8 == 0) flush();
    }
    void flush() {
        if (s) s->put((int64_t)word);
        word = 0;
    }
    void finish() {
        if (n % 8) flush();
    }
    void str(const char* text) {
        while (*text) byte((uint8_t)*text++);
    }
    void chars(const char* text, int len) {
        for (int k = 0; k < len; ++k) byte((uint8_t)text[k]);
    }
    void number(double v) {
        char buf[40];
        chars(buf, cut::fixed(v, 4, buf));
    }
    void general(double v) {
        char buf[40];
        chars(buf, cut::general(v, buf));
    }
    void whole(uint64_t v) {
        char buf[24];
        chars(buf, cut::digits(v, 1, buf));
    }
};

// How a part lies: which shapes, its name, where it went.
struct Part {
    int kind;
    int64_t piece;  // the piece's index, -1 for the frame and the base
    int64_t copy;   // 1, 2, ... when a piece is cut more than once, else 0
    uint64_t cut, nominal;
    int turn;
    double w, h, x0, y0, at_x, at_y;
    int64_t sheet;
};

struct Layout {
    const cpcore_cut_input* in;
    Store* store;
    Part* parts;
    uint64_t n_parts;
    const int64_t* order;      // parts in the order laid out
    const int64_t* engraved;   // each piece's engraving, then the base's: its first word
    double sheet_w, sheet_h;

    // visit(part) for each part on the sheet, in the order laid out.
    template <class Visit>
    void each_on(int64_t sheet, Visit visit) const {
        for (uint64_t k = 0; k < n_parts; ++k) {
            const Part& part = parts[order[k]];
            if (part.sheet == sheet) visit(part);
        }
    }
};

// name (bytes), with " copy" after it when copy > 0, as XML's quoted attribute value
// (xml.sax.saxutils.quoteattr: & < > escaped, newlines and tabs as references, quoted by
// " unless the value holds " and not ').
void quoted_name(Text& t, const Layout& l, const Part& part) {
    const uint8_t* name = nullptr;
    uint64_t n = 0;
    if (part.kind == PIECE) {
        name = l.in->names + l.in->name_start[part.piece];
        n = (uint64_t)(l.in->name_start[part.piece + 1] - l.in->name_start[part.piece]);
    }
    const char* fixed_name = part.kind == FRAME ? "frame" : part.kind == BASE ? "base" : "";
    bool dq = false, sq = false;
    for (uint64_t k = 0; k < n; ++k) dq |= name[k] == '"', sq |= name[k] == '\'';
    const bool single = dq && !sq;
    t.byte(single ? '\'' : '"');
    auto one = [&](uint8_t c) {
        if (c == '&') t.str("&amp;");
        else if (c == '<') t.str("&lt;");
        else if (c == '>') t.str("&gt;");
        else if (c == '\n') t.str("&#10;");
        else if (c == '\r') t.str("&#13;");
        else if (c == '\t') t.str("&#9;");
        else if (c == '"' && !single) t.str("&quot;");
        else t.byte(c);
    };
    for (uint64_t k = 0; k < n; ++k) one(name[k]);
    t.str(fixed_name);
    if (part.copy > 0) {
        t.byte(' ');
        t.whole((uint64_t)part.copy);
    }
    t.byte(single ? '\'' : '"');
}

// One ring turned and moved as the part lies: "M x y L x y ... Z".
void ring_path(Text& t, const int64_t* ring, uint64_t n, const Part& part) {
    double c, s;
    cut::turn_of(part.turn, c, s);
    for (uint64_t i = 0; i < n; ++i) {
        const double x = get(ring, 2 * i), y = get(ring, 2 * i + 1);
        t.str(i == 0 ? "M " : " L ");
        t.number(c * x - s * y + part.at_x);
        t.byte(' ');
        t.number(s * x + c * y + part.at_y);
    }
    t.str(" Z");
}

// The engraving of a part (none for the frame): each polygon one path of its rings.
void engraving_paths(Text& t, const Layout& l, const Part& part) {
    if (part.kind == FRAME) return;
    const int64_t at = part.kind == BASE ? l.engraved[l.in->n_pieces] : l.engraved[part.piece];
    const int64_t* w = l.in->engraving + at;
    const int64_t n_polys = *w++;
    for (int64_t p = 0; p < n_polys; ++p) {
        const int64_t n_rings = *w++;
        t.str("    <path data-part=");
        quoted_name(t, l, part);
        t.str(" d=\"");
        for (int64_t r = 0; r < n_rings; ++r) {
            const uint64_t n = (uint64_t)*w++;
            if (r) t.byte(' ');
            ring_path(t, w, n, part);
            w += 2 * n;
        }
        t.str("\"/>\n");
    }
}

void sheet_svg(Text& t, const Layout& l, int64_t sheet) {
    t.str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" "
          "xmlns:inkscape=\"http://www.inkscape.org/namespaces/inkscape\" width=\"");
    t.general(l.sheet_w);
    t.str("mm\" height=\"");
    t.general(l.sheet_h);
    t.str("mm\" viewBox=\"0 0 ");
    t.general(l.sheet_w);
    t.byte(' ');
    t.general(l.sheet_h);
    t.str("\">\n  <g id=\"engrave\" inkscape:groupmode=\"layer\" inkscape:label=\"engrave\" "
          "fill=\"#000000\" fill-rule=\"evenodd\" stroke=\"none\">\n");
    l.each_on(sheet, [&](const Part& part) { engraving_paths(t, l, part); });
    t.str("  </g>\n  <g id=\"cut\" inkscape:groupmode=\"layer\" inkscape:label=\"cut\" "
          "fill=\"none\" stroke=\"#ff0000\" stroke-width=\"0.01\">\n");
    l.each_on(sheet, [&](const Part& part) {
        for (uint64_t r = 0; r < l.store->ring_count(part.cut); ++r) {
            const uint64_t ring = l.store->ring_of(part.cut, r);
            t.str("    <path data-part=");
            quoted_name(t, l, part);
            t.str(" d=\"");
            ring_path(t, l.store->ring(ring), l.store->size(ring), part);
            t.str("\"/>\n");
        }
    });
    t.str("  </g>\n</svg>\n");
}

// Reads the engraving stream: each piece's and the base's first word into engraved; false
// when it does not read (counts, lengths, a point not finite or too far out).
bool read_engraving(const int64_t* w, uint64_t n, uint64_t owners, int64_t* engraved) {
    uint64_t at = 0;
    auto take = [&](int64_t& v) {
        if (at >= n) return false;
        v = w[at++];
        return true;
    };
    for (uint64_t o = 0; o < owners; ++o) {
        engraved[o] = (int64_t)at;
        int64_t n_polys;
        if (!take(n_polys) || n_polys < 0 || (uint64_t)n_polys > n) return false;
        for (int64_t p = 0; p < n_polys; ++p) {
            int64_t n_rings;
            if (!take(n_rings) || n_rings < 1 || (uint64_t)n_rings > n) return false;
            for (int64_t r = 0; r < n_rings; ++r) {
                int64_t n_points;
                if (!take(n_points) || n_points < 3 || (uint64_t)n_points > (n - at) / 2)
                    return false;
                for (int64_t k = 0; k < 2 * n_points; ++k) {
                    const double v = get(w, at++);
                    if (!cut::finite(v) || cut::absolute(v) > CPCORE_MAX_CUT_ENGRAVED_MM)
                        return false;
                }
            }
        }
    }
    return at == n;
}

// make's bounds on its sizes (MakeOptions.check, the border given).
bool sizes_hold(const double* z) {
    for (int k = 0; k < N_SIZES; ++k) {
        if (!cut::finite(z[k])) return false;
    }
    const double cell = z[CELL];
    return cell >= 1.0 && cell <= 500.0 && z[KERF] >= 0 && z[KERF] < cell / 2 &&
           z[CLEARANCE] >= 0 && z[CLEARANCE] < cell / 4 && z[SHEET_W] >= 1.0 &&
           z[SHEET_W] <= 10000.0 && z[SHEET_H] >= 1.0 && z[SHEET_H] <= 10000.0 &&
           z[BORDER] > 0 && z[BORDER] <= 10 * cell && z[GAP] >= 0 && z[GAP] <= 1000.0 &&
           z[MARGIN] >= 0 && z[MARGIN] < z[SHEET_W] / 2 && z[MARGIN] < z[SHEET_H] / 2;
}

// round(v, 6) as an ordering key: v in millionths, to the nearest.
int64_t millionths(double v) {
    const double t = v * 1e6;
    return (int64_t)(t < 0 ? t - 0.5 : t + 0.5);
}

// Whether part a goes before part b: taller first, then wider, then by name (bytes).
bool before(const Layout& l, const Part& a, const Part& b) {
    const int64_t ha = millionths(a.h), hb = millionths(b.h);
    if (ha != hb) return ha > hb;
    const int64_t wa = millionths(a.w), wb = millionths(b.w);
    if (wa != wb) return wa > wb;
    // Names: a piece's (with its copy), "frame", "base".
    auto name_of = [&](const Part& p, const uint8_t*& s, uint64_t& n) {
        if (p.kind == PIECE) {
            s = l.in->names + l.in->name_start[p.piece];
            n = (uint64_t)(l.in->name_start[p.piece + 1] - l.in->name_start[p.piece]);
        } else {
            s = (const uint8_t*)(p.kind == FRAME ? "frame" : "base");
            n = p.kind == FRAME ? 5 : 4;
        }
    };
    const uint8_t *sa, *sb;
    uint64_t na, nb;
    name_of(a, sa, na);
    name_of(b, sb, nb);
    // The name with its copy number (" k") after it, compared byte by byte.
    char ka[24], kb[24];
    int la = 0, lb = 0;
    if (a.copy > 0) ka[0] = ' ', la = 1 + cut::digits((uint64_t)a.copy, 1, ka + 1);
    if (b.copy > 0) kb[0] = ' ', lb = 1 + cut::digits((uint64_t)b.copy, 1, kb + 1);
    const uint64_t ta = na + (uint64_t)la, tb = nb + (uint64_t)lb;
    for (uint64_t k = 0; k < ta && k < tb; ++k) {
        const uint8_t ca = k < na ? sa[k] : (uint8_t)ka[k - na];
        const uint8_t cb = k < nb ? sb[k] : (uint8_t)kb[k - nb];
        if (ca != cb) return ca < cb;
    }
    return ta < tb;
}

}  // namespace

extern "C" int64_t cpcore_cut_sheets(const cpcore_cut_input* in, cpcore_buffers* buffers) {
    Buffers s(buffers);
    cut::Parts given(*in, in->board, in->n_board);
    const int64_t status = given.status();
    if (status != 0) return status;
    const int64_t grid = in->grid;
    const uint64_t n_board = in->n_board, n_pieces = in->n_pieces;
    const uint64_t n_piece_cells = in->n_piece_cells, largest = given.largest;
    if (n_board == 0) return CPCORE_CUT_NO_CELLS;
    double z[N_SIZES];
    for (int k = 0; k < N_SIZES; ++k) z[k] = get(in->sizes, (uint64_t)k);
    if (!sizes_hold(z)) return CPCORE_CUT_BAD_SIZES;
    uint64_t n_parts = 2;
    if (in->n_name_bytes > CPCORE_MAX_CUT_NAME_BYTES || in->name_start[0] != 0 ||
        (uint64_t)in->name_start[n_pieces] != in->n_name_bytes) {
        return CPCORE_CUT_BAD_PARTS;
    }
    for (uint64_t p = 0; p < n_pieces; ++p) {
        const int64_t copies = in->piece_copies[p];
        if (copies < 1 || copies > CPCORE_MAX_CUT_PARTS ||
            in->name_start[p + 1] < in->name_start[p]) {
            return CPCORE_CUT_BAD_PARTS;
        }
        n_parts += (uint64_t)copies;
        if (n_parts > CPCORE_MAX_CUT_PARTS) return CPCORE_CUT_BAD_PARTS;
    }
    if (in->n_engraving > CPCORE_MAX_CUT_ENGRAVING) return CPCORE_CUT_BAD_ENGRAVING;

    // The scratch: reading order and the outline's scratch for the largest region, each
    // piece's and the base's engraving start, the rings (a region's loops have at most 6
    // points a cell: a piece's cells, nominal and cut shapes; the frame's box and cells, and
    // its cut; the base and its cut), the parts, their order and the shelves.
    const uint64_t region = n_board > largest ? n_board : largest;
    const uint64_t n_points = 18 * n_piece_cells + 12 * n_board + 16;
    const uint64_t n_shapes = 3 * n_pieces + 5;
    int64_t* sorted = s.take(region);
    int64_t* outline_scratch = s.take(80 * region);
    int64_t* engraved = s.take(n_pieces + 1);
    Store store;
    store.points = s.take(2 * n_points);
    store.rings = s.take(2 * n_points);
    store.shapes = s.take(2 * n_shapes);
    Part* parts = s.take<Part>(n_parts);
    int64_t* order = s.take(n_parts);
    int64_t* shelves = s.take(4 * n_parts);  // sheet, y, height, x (the last three doubles)
    if (!s.fits()) return CPCORE_GEOMETRY_SMALL_BUFFER;

    if (!read_engraving(in->engraving, in->n_engraving, n_pieces + 1, engraved))
        return CPCORE_CUT_BAD_ENGRAVING;
    if (reading_order(in->board, 2, sorted, n_board) != n_board || !given.pieces_distinct(sorted))
        return CPCORE_CUT_BAD_PARTS;

    // Millimetres of a drawing unit (render/scene.py's cell drawings, a side ``cell`` long).
    double sx, sy;
    cut::drawing_scale(grid, z[CELL], sx, sy);
    const double half_kerf = z[KERF] / 2, inset = z[CLEARANCE] / 2;

    // A region's loops (in sixths) as a shape in millimetres; reversed for the frame.
    auto region_shape = [&](const int64_t* cells, uint64_t n, bool reverse) {
        const uint64_t shape = store.begin_shape();
        const uint64_t loops =
            cut::region_loops(grid, cells, n, outline_scratch, sx, sy, reverse, store.points,
                              store.rings + 2 * store.n_rings, store.n_points);
        store.n_rings += loops;
        store.shapes[2 * shape + 1] += (int64_t)loops;
        return shape;
    };
    // Each piece: its cells' union, then the clearance off (nominal) and the kerf on (cut).
    uint64_t n_laid = 0;
    for (uint64_t p = 0; p < n_pieces; ++p) {
        const uint64_t cells_shape = region_shape(given.cells(p), given.size(p), false);
        const uint64_t nominal = offset_shape(store, cells_shape, -inset);
        const uint64_t cut_shape = offset_shape(store, nominal, half_kerf);
        for (int64_t k = 0; k < in->piece_copies[p]; ++k) {
            Part& part = parts[n_laid++];
            part = Part{PIECE, (int64_t)p, in->piece_copies[p] == 1 ? 0 : k + 1, cut_shape,
                        nominal, 0, 0, 0, 0, 0, 0, 0, 0};
        }
        CPCORE_ASSERT(cells_shape + 2 == cut_shape);
    }
    // The frame: the box around the cells, the border wide, less the cells; the base.
    const uint64_t frame = store.begin_shape();
    int64_t* box = store.begin_ring(4);
    const uint64_t cavity = region_shape(in->board, n_board, true);
    cut::Box cells;
    for (uint64_t k = 0; k < store.ring_count(cavity); ++k) {
        const uint64_t r = store.ring_of(cavity, k);
        CPCORE_ASSERT(store.size(r) > 0);
        const int64_t* pts = store.ring(r);
        for (uint64_t i = 0; i < store.size(r); ++i)
            cells.add(get(pts, 2 * i), get(pts, 2 * i + 1));
    }
    const double b = z[BORDER], x0 = cells.x0, y0 = cells.y0, x1 = cells.x1, y1 = cells.y1;
    const double corner[8] = {x0 - b, y0 - b, x1 + b, y0 - b, x1 + b, y1 + b, x0 - b, y1 + b};
    for (int k = 0; k < 8; ++k) set(box, (uint64_t)k, corner[k]);
    store.shapes[2 * frame + 1] += (int64_t)store.ring_count(cavity);  // the cells: holes
    CPCORE_ASSERT(store.shapes[2 * frame] + 1 == store.shapes[2 * cavity]);
    const uint64_t frame_cut = offset_shape(store, frame, half_kerf);
    parts[n_laid++] = Part{FRAME, -1, 0, frame_cut, frame, 0, 0, 0, 0, 0, 0, 0, 0};
    const uint64_t base = store.begin_shape();
    box = store.begin_ring(4);
    for (int k = 0; k < 8; ++k) set(box, (uint64_t)k, corner[k]);
    const uint64_t base_cut = offset_shape(store, base, half_kerf);
    parts[n_laid++] = Part{BASE, -1, 0, base_cut, base, 0, 0, 0, 0, 0, 0, 0, 0};
    CPCORE_ASSERT(n_laid == n_parts && store.n_points <= n_points &&
                  store.n_rings <= n_points && store.n_shapes <= n_shapes);

    // Each part turned to its lowest box (then its narrowest; the first turn of equals).
    const double width = z[SHEET_W] - 2 * z[MARGIN], height = z[SHEET_H] - 2 * z[MARGIN];
    static const int square_turns[] = {0, 90, 180, 270};
    static const int six_turns[] = {0, 60, 120, 180, 240, 300};
    const int* turns = grid == SQUARE ? square_turns : six_turns;
    const int n_turns = grid == SQUARE ? 4 : 6;
    for (uint64_t k = 0; k < n_parts; ++k) {
        Part& part = parts[k];
        bool found = false;
        double fw = 0, fh = 0;
        for (int t = 0; t < n_turns; ++t) {
            double c, sn;
            cut::turn_of(turns[t], c, sn);
            cut::Box turned;
            for (uint64_t r = 0; r < store.ring_count(part.cut); ++r) {
                const uint64_t ring = store.ring_of(part.cut, r);
                CPCORE_ASSERT(store.size(ring) > 0);
                const int64_t* pts = store.ring(ring);
                for (uint64_t i = 0; i < store.size(ring); ++i) {
                    const double x = get(pts, 2 * i), y = get(pts, 2 * i + 1);
                    turned.add(c * x - sn * y, sn * x + c * y);
                }
            }
            const double w = turned.x1 - turned.x0, h = turned.y1 - turned.y0;
            if (t == 0) fw = w, fh = h;
            if (w > width + 1e-9 || h > height + 1e-9) continue;
            const int64_t mh = millionths(h), mw = millionths(w);
            if (!found || mh < millionths(part.h) ||
                (mh == millionths(part.h) && mw < millionths(part.w))) {
                found = true;
                part.turn = turns[t], part.w = w, part.h = h;
                part.x0 = turned.x0, part.y0 = turned.y0;
            }
        }
        if (!found) {
            s.put(0);
            s.put((int64_t)k);
            s.put(bits(fw));
            s.put(bits(fh));
            return s.end();
        }
    }
    // Tallest first, on shelves across the sheet; a shelf below the last when none has
    // room, a new sheet when the sheet is full.
    const Layout layout{in, &store, parts, n_parts, order, engraved, z[SHEET_W], z[SHEET_H]};
    for (uint64_t k = 0; k < n_parts; ++k) {  // insertion sort: stable, as Python's
        uint64_t j = k;
        while (j > 0 && before(layout, parts[k], parts[order[j - 1]])) {
            order[j] = order[j - 1];
            --j;
        }
        order[j] = (int64_t)k;
    }
    const double gap = z[GAP] + z[KERF], margin = z[MARGIN];
    uint64_t n_shelves = 0;
    int64_t n_sheets = 0;
    for (uint64_t k = 0; k < n_parts; ++k) {
        Part& part = parts[order[k]];
        int64_t* shelf = nullptr;
        for (uint64_t f = 0; f < n_shelves; ++f) {
            int64_t* at = shelves + 4 * f;
            if (part.h <= get(at, 2) + 1e-9 && get(at, 3) + part.w <= width + 1e-9) {
                shelf = at;
                break;
            }
        }
        if (!shelf) {
            const int64_t* last = n_shelves ? shelves + 4 * (n_shelves - 1) : nullptr;
            double top = last ? get(last, 1) + get(last, 2) + gap : 0.0;
            if (!last || top + part.h > height + 1e-9) {
                ++n_sheets;
                top = 0.0;
            }
            shelf = shelves + 4 * n_shelves++;
            shelf[0] = n_sheets;
            set(shelf, 1, top);
            set(shelf, 2, part.h);
            set(shelf, 3, 0.0);
        }
        part.sheet = shelf[0];
        part.at_x = margin + get(shelf, 3) - part.x0;
        part.at_y = margin + get(shelf, 1) - part.y0;
        set(shelf, 3, get(shelf, 3) + part.w + gap);
    }

    s.put(n_sheets);
    for (int64_t sheet = 1; sheet <= n_sheets; ++sheet) {
        Text count{nullptr};
        sheet_svg(count, layout, sheet);
        s.put((int64_t)count.n);
        Text text{&s};
        sheet_svg(text, layout, sheet);
        text.finish();
        CPCORE_ASSERT(text.n == count.n);
    }
    s.put((int64_t)n_parts);
    for (uint64_t k = 0; k < n_parts; ++k) {
        const Part& part = parts[order[k]];
        s.put(order[k]);
        s.put(part.sheet);
        s.put(part.turn);
        s.put(bits(part.at_x));
        s.put(bits(part.at_y));
        s.put(bits(area(store, part.nominal)));
        s.put(bits(area(store, part.cut)));
    }
    return s.end();
}
