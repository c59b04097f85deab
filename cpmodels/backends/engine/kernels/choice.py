"""Which search answers a question of one cover: the compiled core's choice.

The choice is made once, in the core (``cpmodels/_core/src/choice.cpp``): given the
question and what the cover's layouts offer, it names the search that answers, as its
entry point is named. :class:`~cpmodels.backends.engine.searches.Searches` asks it here;
the browser's engine (``web/static/engine/engine.js``) asks the same function of
``engine.wasm``.
"""

from __future__ import annotations

from dataclasses import dataclass

import cpmodels._native as _native

# The questions (entry.h's cpcore_question).
TALLY = int(_native.ASK_TALLY)
EXISTS = int(_native.ASK_EXISTS)
SOLUTIONS = int(_native.ASK_SOLUTIONS)


@dataclass(frozen=True)
class Offers:
    """What a cover's layouts offer the choice (entry.h's ``CPCORE_OFFERS_*``): the one-word
    layout suits it (``one_word``), with slack items (``slack``); the counts are tallied
    (``tallies``), by items the one-word kernel can tally (``one_word_tallies``); the
    two-word layout (``two_words``); a solid counted by its most constrained item first
    (``links``), on bits (``bits``)."""

    one_word: bool = False
    slack: bool = False
    tallies: bool = False
    one_word_tallies: bool = False
    two_words: bool = False
    links: bool = False
    bits: bool = False

    @property
    def bits_word(self) -> int:
        """The offers as the core reads them: one number of ``CPCORE_OFFERS_*`` bits."""
        flags = ((self.one_word, _native.OFFERS_ONE_WORD), (self.slack, _native.OFFERS_SLACK),
                 (self.tallies, _native.OFFERS_TALLIES),
                 (self.one_word_tallies, _native.OFFERS_ONE_WORD_TALLIES),
                 (self.two_words, _native.OFFERS_TWO_WORDS), (self.links, _native.OFFERS_LINKS),
                 (self.bits, _native.OFFERS_BITS))
        return sum(int(bit) for offered, bit in flags if offered)


def choose(question: int, offers: Offers) -> str:
    """The search that answers ``question`` (:data:`TALLY`, :data:`EXISTS`,
    :data:`SOLUTIONS`) given ``offers``, named as its entry point (``tally_one_word``,
    ``count_one_word``, ``tally_prefixes_two_words``, ``tally_prefixes_n_words``,
    ``exists_two_words``, ``exists_n_words``, ``search_n_words``, ``bit_cover_count``,
    ``links_count``)."""
    return str(_native.search_name(_native.choose_search(question, offers.bits_word)))
