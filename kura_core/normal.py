"""The one normal form of text: what every check of kura's reads, on both sides.

A quote is looked up in this form, the floors fold look-alikes on top of it
(:func:`kura_core.floors.text.fold`), and the journal readers' evidence is compared in it
(:func:`kura_core.distill.evidence.normalize` is this). It sits low, beside the state, so
every layer that compares text can use it.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from .script import CJK, has_cjk, is_cjk

__all__ = ["normalize", "strip_invisible"]

#: Characters that render as nothing although they are not format characters (Cf).
_INVISIBLE_EXTRA = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u3164\uffa0\u2800"
)


def strip_invisible(text: str) -> str:
    """*text* without format characters and blank-rendering characters: what a reader
    sees, for matching."""
    if not text:
        return ""
    if text.isascii():
        return text
    # one look at each distinct character, not at each character
    hidden = {
        ord(ch): None
        for ch in set(text)
        if ch in _INVISIBLE_EXTRA or unicodedata.category(ch) == "Cf"
    }
    return text.translate(hidden) if hidden else text


_QUOTES: dict[int, str] = str.maketrans(
    {
        **{c: "'" for c in "\u2018\u2019\u201a\u201b\u2039\u203a\u02bc\uff40\u00b4\u2032"},
        **{
            c: '"'
            for c in "\u201c\u201d\u201e\u201f\u00ab\u00bb\u300c\u300d\u300e\u300f"
            "\u301d\u301e\u301f\ufe41\ufe42\ufe43\ufe44\u2033"
        },
    }
)

_QUOTE_MARK = re.compile("[" + re.escape("".join(chr(k) for k in _QUOTES)) + "]")


#: A space between a plain figure and a CJK character, either way round: "8 月",
#: "9 月 1 日", "合計 3 件" read as a person reads them, as 8月, 9月1日, 合計3件. Only a
#: figure standing alone: "/volume1 で" keeps its space (the path ends there).
_FIGURE = r"[0-9]+(?:[.,][0-9]+)*"
#: One space between two characters that are each a digit or a CJK character (a wider gap
#: or a tab parts a table's columns: "晨光咖啡    102" is two cells); which of them is a
#: figure standing alone is checked in Python, at these few places only.
_GAP = re.compile(rf"(?<=[0-9{CJK}]) (?=[0-9{CJK}])")
_FIGURE_AT = re.compile(_FIGURE)
_DIGITS = frozenset("0123456789")


def _figure_start(text: str, a: int) -> int:
    """Where the figure that ends at *a* (digits, with "." or "," between digits) starts."""
    k = a
    while k and text[k - 1] in _DIGITS:
        k -= 1
    while k >= 2 and text[k - 1] in ".," and text[k - 2] in _DIGITS:
        k -= 1
        while k and text[k - 1] in _DIGITS:
            k -= 1
    return k


def _stands_apart(ch: str) -> bool:
    """Whether *ch*, beside a figure, leaves it a figure of its own: a space, a CJK
    character, or a clause's punctuation (，4 月 20 日); not a letter or a character that
    joins an identifier (v1.2 版, A-4 号)."""
    return ch.isspace() or is_cjk(ch) or (not ch.isalnum() and ch not in "._-/:#@$%&+")


def _after_label(text: str, start: int) -> bool:
    """Whether the figure at *start* follows a CJK label's colon (开机费：800 元, NFKC's
    "开机费:800 元"): the colon parts a label from its value, as it does not in 10:30 or
    host:8080."""
    return start >= 2 and text[start - 1] == ":" and is_cjk(text[start - 2])


def _close_counters(text: str) -> str:
    if not has_cjk(text) or not any(c.isdigit() for c in text):
        return text

    def gap(m: re.Match[str]) -> str:
        a, b = m.start(), m.end()
        if not a:
            return m.group(0)
        before, after = text[a - 1], text[b]
        if before.isdigit() and is_cjk(after):
            start = _figure_start(text, a)
            alone = start == 0 or _stands_apart(text[start - 1]) or _after_label(text, start)
            return "" if alone else m.group(0)
        if is_cjk(before) and after.isdigit():
            fig = _FIGURE_AT.match(text, b)
            end = fig.end() if fig else b
            alone = end == len(text) or _stands_apart(text[end])
            return "" if alone else m.group(0)
        return m.group(0)

    return _GAP.sub(gap, text)


def normalize(text: str) -> str:
    """The one normal form of text, on the candidate's side and the evidence's alike: the
    form a quote is looked up in (SPEC §5.4), and the first step of every other check
    (:func:`fold` builds on it; :func:`kura_core.distill.evidence.normalize` is this).

    * NFKC: full-width letters, digits and punctuation (``13：10`` is ``13:10``, ``ＡＢＣ``
      is ``ABC``), ligatures, compatibility forms;
    * invisible format characters and blank-rendering characters removed;
    * quote marks (curly, guillemets, 「」『』, primes) as ASCII ``'`` and ``"``;
    * no space between a figure and a CJK character ("8 月" is 8月, "9 月 1 日" 9月1日)
      where one space parts them; a wider gap or a tab is a table's column and stays;
    * every run of whitespace as one space, ends stripped.

    No case folding ("NOT" and "not" are different words to a reader, so they are to the
    gate) and no look-alike folding (a quote is verbatim: a Cyrillic ``а`` in it is not
    the Latin one the evidence has).
    """
    if not text:
        return ""
    if text.isascii():
        return " ".join(text.split())  # str.split and \s agree on what whitespace is
    return _normalize(text)


@functools.lru_cache(maxsize=4096)
def _normalize(text: str) -> str:
    text = strip_invisible(unicodedata.normalize("NFKC", text))
    if text.isascii():
        return " ".join(text.split())
    if _QUOTE_MARK.search(text):
        text = _QUOTE_MARK.sub(lambda m: _QUOTES[ord(m.group(0))], text)
    text = _close_counters(text)  # before lines become spaces
    return " ".join(text.split())
