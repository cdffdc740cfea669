"""Names written in Latin letters for names the evidence writes in Chinese or Japanese.

A memory in English about a Chinese or Japanese session writes its people and places as
they are read: "Li Wei" for 李伟, "Suzuki" for 鈴木, "Kanazawa" for 金沢, "Rakuten Travel"
for 楽天トラベル. The name is the same name when a reading of the evidence's characters
spells it:

* **Chinese** -- the run of capitalised words around the name, joined ("Li Wei" → liwei),
  is the pinyin of two to four consecutive Han characters of the evidence, any of each
  character's readings (曾 is zeng or ceng; ü is written u, v or yu). Readings come from
  ``pypinyin``'s dictionary, asked only for the characters the evidence holds.
* **Japanese** -- a word is the Hepburn reading of a form the evidence holds (the list
  ``readings``: family names, places, companies, common given names), or a katakana word of
  the evidence is its loan (Travel for トラベル, :mod:`.loanwords`).

Unknown means no: a name with no reading that matches stays unvouched. Linear in the
evidence: one pass over its Han characters, one regular expression per name.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence

from ..script import HAN
from . import lexicon
from .loanwords import same_loanword

__all__ = ["Readings", "cjk_forms"]

#: A run of capitalised words (a romanised name: Li Wei, Ouyang Na, Zhang Xiaoming).
_SEPARATOR = re.compile(r"[ -]")
_NAME_RUN = re.compile(r"[A-Z][a-z]+(?:[ -][A-Z][a-z]+){0,3}")
_HAN_CHAR = re.compile(f"[{HAN}]")
_KATAKANA_WORD = re.compile(r"[\u30a1-\u30fa\u30fc]{2,}")
#: Readings of a form longer than this are not looked for (a whole sentence's reading).
_MAX_CHARS = 4


@functools.cache
def _japanese() -> dict[str, tuple[str, ...]]:
    """Each Hepburn reading of the list ``readings`` with the forms it reads."""
    out: dict[str, list[str]] = {}
    for line in lexicon.words("readings", ("ja",)):
        form, _, reading = line.rpartition(" ")
        if form and reading.isascii() and reading.isalpha():
            out.setdefault(reading.lower(), []).append(form.strip())
    return {k: tuple(v) for k, v in out.items()}


def cjk_forms(name: str, zh_surnames: str) -> tuple[str, ...]:
    """How Chinese or Japanese write the person a Latin name or login reads: the Japanese
    forms of its Hepburn reading of two characters or more (kuroki → 黒木), and a Chinese
    family name of one character whose first reading it is, with a title (lin → 林总: 林
    alone is a word, so it is read only before a title)."""
    word = name.lower()
    if not (word.isascii() and word.isalpha()):
        return ()
    out = [f for f in _japanese().get(word, ()) if len(f) >= 2]
    if 2 <= len(word) <= 6:
        out += [f"{ch}总" for ch in zh_surnames if _pinyin(ch)[:1] == (word,)]
    return tuple(dict.fromkeys(out))


@functools.lru_cache(maxsize=65536)
def _pinyin(ch: str) -> tuple[str, ...]:
    """The toneless pinyin readings of one Han character (ü as u, v and yu)."""
    try:
        from pypinyin import Style, pinyin
    except ImportError:  # pragma: no cover - a dependency of the package
        return ()
    got = pinyin(ch, style=Style.NORMAL, heteronym=True, errors="ignore")
    out: list[str] = []
    for r in got[0] if got else ():
        r = unicodedata.normalize("NFKD", r)
        r = "".join(c for c in r if not unicodedata.combining(c)).lower()
        if not r.isascii() or not r.isalpha():
            continue
        out.append(r)
        if "v" in r:
            out += [r.replace("v", "u"), r.replace("v", "yu")]
    return tuple(dict.fromkeys(out))


class Readings:
    """The readings of one evidence text, read only when a Latin name asks for them."""

    def __init__(self, blob: str) -> None:
        self._blob = blob
        self._syllables: dict[str, set[str]] | None = None
        #: where each Han character of the evidence stands
        self._where: dict[str, list[int]] = {}
        self._kana: list[str] | None = None

    def vouched(self, name: str, text: str) -> bool:
        """Whether the Latin *name*, as *text* writes it, reads a name of the evidence."""
        word = name.lower()
        forms = _japanese().get(word, ())
        if any(f in self._blob for f in forms):
            return True
        if any(same_loanword(word[:5], k) for k in self._katakana()):
            return True
        return any(self._chinese(run) for run in _runs_around(name, text))

    def _katakana(self) -> list[str]:
        if self._kana is None:
            self._kana = list(dict.fromkeys(_KATAKANA_WORD.findall(self._blob)))
        return self._kana

    def _chinese(self, run: str) -> bool:
        target = _SEPARATOR.sub("", run).lower()
        if len(target) < 4:
            return False
        syllables = self._index()
        if not syllables:
            return False
        for parts in _segmentations(target, syllables):
            if not 2 <= len(parts) <= _MAX_CHARS:
                continue
            if self._spelled(tuple(syllables[p] for p in parts)):
                return True
        return False

    def _spelled(self, sets: tuple[set[str], ...]) -> bool:
        """Whether consecutive characters of the evidence are one of each of *sets*."""
        blob, n = self._blob, len(sets)
        for ch in sets[0]:
            for i in self._where.get(ch, ()):
                if all(i + k < len(blob) and blob[i + k] in sets[k] for k in range(1, n)):
                    return True
        return False

    def _index(self) -> dict[str, set[str]]:
        """Each pinyin syllable of the evidence's Han characters, with those characters."""
        if self._syllables is None:
            self._syllables = {}
            for m in _HAN_CHAR.finditer(self._blob):
                self._where.setdefault(m.group(0), []).append(m.start())
            for ch in self._where:
                for r in _pinyin(ch):
                    self._syllables.setdefault(r, set()).add(ch)
        return self._syllables


def _runs_around(name: str, text: str) -> Iterable[str]:
    """The runs of capitalised words of *text* that hold *name* as a word, and each shorter
    run within them that still holds it ("Yesterday Li Wei" gives "Li Wei" too)."""
    for m in _NAME_RUN.finditer(text):
        words = _SEPARATOR.split(m.group(0))
        for i, w in enumerate(words):
            if w != name:
                continue
            for a in range(i + 1):
                for b in range(i + 1, len(words) + 1):
                    yield " ".join(words[a:b])


def _segmentations(target: str, syllables: dict[str, set[str]]) -> list[Sequence[str]]:
    """The ways *target* splits into syllables the evidence's characters read (at most a
    few: a name is short)."""
    out: list[Sequence[str]] = []

    def walk(at: int, parts: list[str]) -> None:
        if len(out) >= 8 or len(parts) > _MAX_CHARS:
            return
        if at == len(target):
            out.append(tuple(parts))
            return
        for end in range(min(len(target), at + 6), at, -1):
            piece = target[at:end]
            if piece in syllables:
                walk(end, [*parts, piece])

    walk(0, [])
    return out
