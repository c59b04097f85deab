// Dancing links with the most constrained item first (cpmodels/backends/engine/kernels/links.py
// lays the cover out, DLX1's layout): covering and uncovering an item, taking forced
// options, and the count, whose walk is count_most_constrained's (cpcore/cover.hpp).
#include "cpcore/cover.hpp"
#include "cpcore/entry.h"

namespace {

// The item still to cover with the fewest options left (the first of them; 0: none).
inline int64_t fewest_left(const int64_t* length, const int64_t* next) {
    int64_t best = 0, t = int64_t(1) << 62;
    for (int64_t k = next[0]; k != 0; k = next[k]) {
        if (length[k] < t) {
            best = k;
            t = length[k];
            if (t == 0) break;
        }
    }
    return best;
}

// The links of one search (the caller's copies, changed while it runs, restored after).
struct Links {
    const int64_t* top;
    int64_t *up, *down, *length, *prev, *next;

    // Calls visit(node) for the nodes of node's option after it, to its right and round
    // (a spacer leads back to the option's first node), until visit says false.
    template <class Visit>
    inline __attribute__((always_inline)) bool each_right(int64_t node, Visit visit) const {
        int64_t p = node + 1;
        while (p != node) {
            if (top[p] <= 0) {
                p = up[p];
                continue;
            }
            if (!visit(p)) return false;
            ++p;
        }
        return true;
    }

    // The same to the left: the nodes before node, back round to it.
    template <class Visit>
    inline __attribute__((always_inline)) void each_left(int64_t node, Visit visit) const {
        int64_t p = node - 1;
        while (p != node) {
            if (top[p] <= 0) {
                p = down[p];
                continue;
            }
            visit(p);
            --p;
        }
    }

    // Item c leaves the list of items to cover, and every option of it its other items.
    inline void cover(int64_t c) {
        const int64_t left = prev[c], right = next[c];
        next[left] = right;
        prev[right] = left;
        for (int64_t r = down[c]; r != c; r = down[r]) {
            each_right(r, [this](int64_t p) {
                const int64_t u = up[p], d = down[p];
                down[u] = d;
                up[d] = u;
                --length[top[p]];
                return true;
            });
        }
    }

    // cover(c) undone.
    inline void uncover(int64_t c) {
        for (int64_t r = down[c]; r != c; r = down[r]) {
            each_right(r, [this](int64_t p) {
                down[up[p]] = p;
                up[down[p]] = p;
                ++length[top[p]];
                return true;
            });
        }
        const int64_t left = prev[c], right = next[c];
        next[left] = c;
        prev[right] = c;
    }

    inline int64_t most_constrained() const { return fewest_left(length, next); }

    // Cover each item of the options whose first nodes are forced; false when an item
    // to cover is already covered (two of them share it).
    inline bool take(const int64_t* forced, uint64_t n_forced) {
        auto take_item = [this](int64_t p) {
            const int64_t c = top[p];
            if (prev[c] != c && next[prev[c]] != c) return false;
            cover(c);
            return true;
        };
        for (uint64_t i = 0; i < n_forced; ++i) {
            if (!take_item(forced[i]) || !each_right(forced[i], take_item)) return false;
        }
        return true;
    }
};

// The levels of a count: level d branches on item best_at[d], trying option choice[d].
struct LinkSpace {
    Links& links;
    int64_t *choice, *best_at;
    uint64_t n_levels;

    inline bool solved(unsigned) const { return links.next[0] == 0; }

    inline void choose(unsigned d) {
        const int64_t best = links.most_constrained();
        links.cover(best);
        best_at[d] = best;
        choice[d] = best;  // no option of it tried yet
    }

    inline bool advance(unsigned d) {
        const int64_t best = best_at[d];
        int64_t cur = choice[d];
        if (cur != best) links.each_left(cur, [this](int64_t p) { links.uncover(links.top[p]); });
        cur = links.down[cur];
        choice[d] = cur;
        if (cur == best) {
            links.uncover(best);
            return false;
        }
        return true;
    }

    inline bool descend(unsigned d) {
        if (d + 1 >= n_levels) return false;
        links.each_right(choice[d], [this](int64_t p) {
            links.cover(links.top[p]);
            return true;
        });
        return true;
    }
};

}  // namespace

extern "C" int cpcore_links_take(const int64_t* top, int64_t* up, int64_t* down,
                                 int64_t* length, int64_t* prev, int64_t* next,
                                 const int64_t* forced, uint64_t n_forced) {
    Links links{top, up, down, length, prev, next};
    return links.take(forced, n_forced) ? 1 : 0;
}

extern "C" int64_t cpcore_links_most_constrained(const int64_t* length, const int64_t* next) {
    return fewest_left(length, next);
}

extern "C" int64_t cpcore_links_count(const int64_t* top, int64_t* up, int64_t* down,
                                      int64_t* length, int64_t* prev, int64_t* next,
                                      const int64_t* forced, uint64_t n_forced,
                                      const int64_t* stop, int64_t* levels, uint64_t n_levels,
                                      uint64_t* nodes) {
    *nodes = 0;
    Links links{top, up, down, length, prev, next};
    if (!links.take(forced, n_forced)) return 0;
    LinkSpace space{links, levels, levels + n_levels, n_levels};
    return cpcore::count_most_constrained(space, stop, nodes);
}
