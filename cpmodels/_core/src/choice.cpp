// Which search answers a question of one cover: the engine's choice, made here alone. The
// Python side (backends/engine/searches.py) and the browser (web/static/engine/engine.js)
// lay a cover out, say what its layouts offer, and run the search this names; the rules a
// search named here applies as it runs (which states the one-word count remembers) are
// cpcore/choice.hpp's, measured there.
#include "cpcore/entry.h"

namespace {

bool has(int offers, int what) { return (offers & what) != 0; }

int choose_tally(int offers) {
    const bool tallies = has(offers, CPCORE_OFFERS_TALLIES);
    // A solid's plain counts: its most constrained item first, on bits when they fit.
    if (has(offers, CPCORE_OFFERS_LINKS) && !tallies)
        return has(offers, CPCORE_OFFERS_BITS) ? CPCORE_SEARCH_COUNT_BITS
                                                : CPCORE_SEARCH_COUNT_LINKS;
    if (has(offers, CPCORE_OFFERS_ONE_WORD)) {
        const bool slack = has(offers, CPCORE_OFFERS_SLACK);
        // Tallies and slack items are bits of the piece word: the one-word tally kernel,
        // unless a tally item is a cell or may be left out.
        if ((slack || tallies) && has(offers, CPCORE_OFFERS_ONE_WORD_TALLIES))
            return CPCORE_SEARCH_TALLY_ONE_WORD;
        if (!slack && !tallies) return CPCORE_SEARCH_COUNT_ONE_WORD;
    }
    return has(offers, CPCORE_OFFERS_TWO_WORDS) ? CPCORE_SEARCH_TALLY_TWO_WORDS
                                                 : CPCORE_SEARCH_TALLY_N_WORDS;
}

}  // namespace

extern "C" int cpcore_choose_search(int question, int offers) {
    switch (question) {
        case CPCORE_ASK_TALLY:
            return choose_tally(offers);
        case CPCORE_ASK_EXISTS:
            return has(offers, CPCORE_OFFERS_TWO_WORDS) ? CPCORE_SEARCH_EXISTS_TWO_WORDS
                                                         : CPCORE_SEARCH_EXISTS_N_WORDS;
        case CPCORE_ASK_SOLUTIONS:
            return CPCORE_SEARCH_SOLUTIONS_N_WORDS;
        default:
            return CPCORE_SEARCH_NONE;
    }
}

extern "C" const char* cpcore_search_name(int search) {
    switch (search) {
        case CPCORE_SEARCH_TALLY_ONE_WORD: return "tally_one_word";
        case CPCORE_SEARCH_COUNT_ONE_WORD: return "count_one_word";
        case CPCORE_SEARCH_TALLY_TWO_WORDS: return "tally_prefixes_two_words";
        case CPCORE_SEARCH_TALLY_N_WORDS: return "tally_prefixes_n_words";
        case CPCORE_SEARCH_EXISTS_TWO_WORDS: return "exists_two_words";
        case CPCORE_SEARCH_EXISTS_N_WORDS: return "exists_n_words";
        case CPCORE_SEARCH_SOLUTIONS_N_WORDS: return "search_n_words";
        case CPCORE_SEARCH_COUNT_BITS: return "bit_cover_count";
        case CPCORE_SEARCH_COUNT_LINKS: return "links_count";
        default: return "";
    }
}
