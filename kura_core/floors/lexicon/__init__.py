"""The floors' word lists, as data: one folder per language, one file per list.

``<lang>/<name>.txt`` holds one entry a line (a word or a phrase, compared after
:func:`kura_core.floors.text.fold` and, for spaced scripts, in lower case); ``#`` starts a
comment. A list is read once, on first use, and is the union of every language's file of
that name -- a text may mix languages, and a Japanese word in an English sentence still
means what it means. Adding a language is a folder of these files.
"""

from __future__ import annotations

import functools
import re
from importlib import resources

__all__ = ["LANGUAGES", "pattern", "search", "words"]

#: The languages with a lexicon folder.
LANGUAGES = ("en", "ja", "zh")


@functools.cache
def words(name: str, langs: tuple[str, ...] = LANGUAGES) -> frozenset[str]:
    """Every entry of list *name*, in every language of *langs* that has it (by default all:
    a list kept per language, such as one for spaced English words and one for CJK text,
    names the languages it reads)."""
    from ..text import fold

    out: set[str] = set()
    root = resources.files(__name__)
    found = False
    for lang in langs:
        path = root / lang / f"{name}.txt"
        if not path.is_file():
            continue
        found = True
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = line.split("#", 1)[0].strip()
            if entry:
                entry = fold(entry)
                out.add(entry.lower() if entry.isascii() else entry)
    if not found:
        raise LookupError(f"no lexicon named {name!r} in any of {', '.join(langs)}")
    return frozenset(out)


@functools.cache
def pattern(name: str) -> re.Pattern[str]:
    """A pattern finding any entry of list *name* in folded, lower-cased text: a spaced
    entry only as whole words, a CJK one anywhere. Longest entries first, one
    alternation (no nested repeats): linear in the text."""
    spaced: list[str] = []
    bare: list[str] = []
    for w in sorted(words(name), key=len, reverse=True):
        (spaced if w.isascii() else bare).append(re.escape(w))
    parts = []
    if spaced:
        parts.append(r"(?<![\w'])(?:" + "|".join(spaced) + r")(?![\w'])")
    if bare:
        parts.append("(?:" + "|".join(bare) + ")")
    return _compile("|".join(parts) or r"(?!)")


@functools.cache
def _containers(name: str) -> re.Pattern[str] | None:
    """The words that hold an entry of list *name* without being it (预算了 holds 算了),
    from the list ``<name>_inside``; None when the list has none."""
    try:
        return pattern(f"{name}_inside")
    except LookupError:
        return None


def search(name: str, text: str, pos: int = 0) -> re.Match[str] | None:
    """The first entry of list *name* in *text* from *pos* that is not part of a longer
    word listed in ``<name>_inside`` (a CJK entry is otherwise found anywhere, and 预算了
    is not 算了). Each containing word is found once, left to right: linear in the text."""
    found = pattern(name)
    holders = _containers(name)
    held: list[tuple[int, int]] = []
    if holders is not None:
        held = [(h.start(), h.end()) for h in holders.finditer(text, max(0, pos - 8))]
    for m in found.finditer(text, pos):
        if not any(a <= m.start() < b or a < m.end() <= b for a, b in held):
            return m
    return None


#: One place the lists' patterns are compiled (once each, by :func:`pattern`'s cache).
_compile = re.compile
