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
from cpmodels.backends.engine.layouts.described import constants

# The questions (entry.h's cpcore_question) and the bit of each offer (its CPCORE_OFFERS_*,
# by the name of the field of Offers), as the module's interface describes them.
TALLY, EXISTS, SOLUTIONS = (constants("CPCORE_ASK_")[q] for q in ("tally", "exists", "solutions"))
OFFER_BITS = tuple(constants("CPCORE_OFFERS_").items())


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
        return sum(bit for name, bit in OFFER_BITS if getattr(self, name))


def choose(question: int, offers: Offers) -> str:
    """The search that answers ``question`` (:data:`TALLY`, :data:`EXISTS`,
    :data:`SOLUTIONS`) given ``offers``, named as its entry point (``tally_one_word``,
    ``count_one_word``, ``tally_prefixes_two_words``, ``tally_prefixes_n_words``,
    ``exists_two_words``, ``exists_n_words``, ``search_n_words``, ``bit_cover_count``,
    ``links_count``)."""
    return str(_native.search_name(_native.choose_search(question, offers.bits_word)))
