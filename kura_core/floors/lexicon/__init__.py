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

__all__ = ["LANGUAGES", "pattern", "words"]

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


#: One place the lists' patterns are compiled (once each, by :func:`pattern`'s cache).
_compile = re.compile
