"""Which script a character is written in: the one definition every module reads.

Japanese and Chinese are written without spaces, so much of kura reads them differently
from spaced scripts: the gate weighs a CJK character as two Latin letters, the floors find
clauses and content words in runs of ideographs and kana, recall cuts them into bigrams,
the token estimate counts them one by one. Each of those once spelled its own ranges, and
they disagreed (one left out the iteration mark 々, another half-width katakana, another
hangul). The ranges live here, as character-class fragments (for building patterns) and
as compiled patterns and predicates (for asking).

The fragments are the inside of a character class, without brackets:
``re.compile(f"[{HAN}{KANA}]+")``.
"""

from __future__ import annotations

import re

__all__ = [
    "CJK",
    "HAN",
    "HANGUL",
    "HIRAGANA",
    "KANA",
    "KATAKANA",
    "has_cjk",
    "has_han",
    "has_kana",
    "is_cjk",
    "is_han",
    "is_kana",
    "language",
]

#: Ideographs: the iteration and closing marks (々 〆 〇), the unified ideographs with
#: extension A, the compatibility ideographs and the supplementary planes.
HAN = "\u3005-\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
#: Hiragana, with the voicing marks and the iteration marks ゝゞ.
HIRAGANA = "\u3041-\u309f"
#: Katakana with the long-vowel mark ー, the phonetic extensions and the half-width forms;
#: not the middle dot ・ (U+30FB, U+FF65), which is punctuation: a list bullet or the
#: point between the parts of a foreign name.
KATAKANA = "\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9f"
KANA = HIRAGANA + KATAKANA
#: Hangul syllables and jamo.
HANGUL = "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"
#: Every letter of a script written without spaces between words.
CJK = HAN + KANA + HANGUL

CJK_CHAR = re.compile(f"[{CJK}]")
CJK_RUN = re.compile(f"[{CJK}]+")
HAN_CHAR = re.compile(f"[{HAN}]")
KANA_CHAR = re.compile(f"[{KANA}]")
HIRAGANA_ONLY = re.compile(f"[{HIRAGANA}]+")
_HANGUL_CHAR = re.compile(f"[{HANGUL}]")


def is_cjk(ch: str) -> bool:
    """True for an ideograph, a kana or a hangul letter."""
    return bool(ch) and CJK_CHAR.match(ch) is not None


def is_han(ch: str) -> bool:
    return bool(ch) and HAN_CHAR.match(ch) is not None


def is_kana(ch: str) -> bool:
    return bool(ch) and KANA_CHAR.match(ch) is not None


def has_cjk(text: str) -> bool:
    """Whether *text* has a letter of a script written without spaces."""
    return not text.isascii() and CJK_CHAR.search(text) is not None


def has_han(text: str) -> bool:
    return not text.isascii() and HAN_CHAR.search(text) is not None


def has_kana(text: str) -> bool:
    return not text.isascii() and KANA_CHAR.search(text) is not None


def language(text: str) -> str:
    """The language a text is most likely written in, by its script alone: ``ja`` when it
    has kana, ``zh`` when it has ideographs and no kana, ``ko`` for hangul, else ``en``
    (every spaced script reads alike to the floors)."""
    if text.isascii():
        return "en"
    if KANA_CHAR.search(text):
        return "ja"
    if HAN_CHAR.search(text):
        return "zh"
    if _HANGUL_CHAR.search(text):
        return "ko"
    return "en"
