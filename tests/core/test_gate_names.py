"""The English function words the floors share: one list, each floor's own additions."""

from __future__ import annotations

import hashlib

from kura_core.floors.attribution import _STOP_EN
from kura_core.floors.units import ENGLISH_FUNCTION_WORDS, FUNCTION_WORDS

# --------------------------------------------------------------------------- the word lists


def _digest(words: frozenset[str]) -> str:
    return hashlib.sha256(" ".join(sorted(words)).encode()).hexdigest()


def test_the_shared_function_words_leave_both_lists_as_they_were():
    # the digests of the two lists before they were built from one shared list
    assert len(FUNCTION_WORDS) == 162
    assert _digest(FUNCTION_WORDS) == (
        "77c02ff20313549c081003a8031e34487e3e7f83440dbf4f3189084e26e29928"
    )
    assert len(_STOP_EN) == 186
    assert _digest(_STOP_EN) == "6e6890bf54975605d4ee77fb2a664bdcf80e80b64af74ad59eb61d6fda2d3037"
    assert ENGLISH_FUNCTION_WORDS <= FUNCTION_WORDS and ENGLISH_FUNCTION_WORDS <= _STOP_EN
    assert len(ENGLISH_FUNCTION_WORDS) == 125
