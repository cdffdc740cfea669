"""Classed evidence: what a journal said, who said it, and where.

Every journal adapter turns a transcript into :class:`Segment` values, each carrying one
of four classes:

* ``USER`` -- the human's own words; licenses "they decided", "they asked".
* ``TOOL`` -- machine output; the place measurements come from.
* ``ACT``  -- a tool that was invoked; licenses "this was done".
* ``SELF`` -- the agent's own prose; licenses a first-person judgement, never a bare fact.

:func:`normalize` is the one comparison form the gate uses on both sides of a quote check.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..vocabulary import PROVENANCE_CLASSES

#: the provenance classes, by the name the journal readers and the gate use
CLASSES = PROVENANCE_CLASSES

# Quote marks folded to ASCII. Full-width ＂ and ＇ are already folded by NFKC.
_SINGLE_QUOTES = "\u2018\u2019\u201a\u201b\u2039\u203a\u02bc\uff40"
_DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u00ab\u00bb\u300c\u300d\u300e\u300f\u301d\u301e\u301f\ufe41\ufe42\ufe43\ufe44"
_QUOTE_TABLE = str.maketrans(
    {**{c: "'" for c in _SINGLE_QUOTES}, **{c: '"' for c in _DOUBLE_QUOTES}}
)

_WS = re.compile(r"\s+")
_WS_CHAR = re.compile(r"\s")
_CURLY = re.compile("[" + re.escape(_SINGLE_QUOTES + _DOUBLE_QUOTES) + "]")
_CJK_CHAR = re.compile(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u31f0-\u31ff\uff66-\uff9f]"
)
_PREFIX = re.compile(r"^\s*\[\s*([A-Za-z]+)\s*\]\s*")


def strip_invisible(text: str) -> str:
    """Remove format characters (Unicode category Cf).

    Zero-width spaces and joiners, word joiners, BOMs, soft hyphens and bidi controls render
    as nothing, so a reader cannot see them; they must not change what the gate sees either.
    """
    if not text or text.isascii():
        return text or ""
    # one look at each distinct character, not at each character
    hidden = {ord(ch): None for ch in set(text) if unicodedata.category(ch) == "Cf"}
    return text.translate(hidden) if hidden else text


def normalize(text: str) -> str:
    """The comparison form of *text*.

    NFKC (folds full-width letters and digits, ligatures, compatibility forms), removal of
    invisible format characters, curly/CJK/guillemet quote marks folded to ASCII ``'`` and
    ``"``, every run of whitespace collapsed to one space, ends stripped. No case folding:
    "NOT" and "not" are different words to a reader, so they are different to the gate.
    """
    if not text:
        return ""
    if not text.isascii():  # NFKC, format characters and curly quotes are all beyond ASCII
        text = unicodedata.normalize("NFKC", text)
        text = strip_invisible(text)
        if _CURLY.search(text):
            text = text.translate(_QUOTE_TABLE)
    # str.split() and \s agree on what whitespace is (both ask Py_UNICODE_ISSPACE)
    return " ".join(text.split())


def is_cjk(ch: str) -> bool:
    """True for a CJK ideograph, kana or hangul syllable."""
    return bool(_CJK_CHAR.match(ch))


def quote_weight(normalized: str) -> int:
    """Length of a normalised quote as the gate counts it.

    Whitespace does not count; a CJK character counts two, because one ideograph carries
    about as much as two Latin letters. With the default minimum of 8 a quote needs eight
    visible Latin characters or four CJK characters.
    """
    if normalized.isascii():
        return len(normalized) - len(_WS_CHAR.findall(normalized))
    return (
        len(normalized)
        - len(_WS_CHAR.findall(normalized))
        + len(_CJK_CHAR.findall(normalized))  # a CJK character is never whitespace
    )


def parse_claimed(quote: str) -> tuple[str | None, str]:
    """Split a leading ``[USER]`` style class prefix off *quote*.

    Returns ``(class, rest)``. The class is upper-cased; an absent or unknown prefix gives
    ``(None, quote)`` with the quote unchanged. Full-width brackets are accepted.
    """
    if not isinstance(quote, str):
        return None, ""
    head = unicodedata.normalize("NFKC", quote[:24])
    match = _PREFIX.match(head)
    if match and match.group(1).upper() in CLASSES:
        # Map the prefix length in the folded head back onto the original string: NFKC on
        # the ASCII-or-full-width prefix is one character to one character.
        consumed = len(match.group(0))
        return match.group(1).upper(), quote[consumed:]
    return None, quote


@dataclass(frozen=True)
class Segment:
    """One classed piece of a journal.

    ``start``/``end`` locate the record in the journal in ``unit`` ("byte" offsets of the
    line for append-only transcripts, "seq" record numbers for rewritten archives).
    ``kind`` names the kind of record the text came from (``"user text"``,
    ``"tool_use Bash"``, ``"tool_result"`` …) so a person inspecting a journal can see why
    it got its class; it plays no part in the gate.
    """

    cls: str
    text: str
    source: str
    start: int
    end: int
    unit: str
    session_id: str = ""
    timestamp: str = ""
    kind: str = ""

    def line(self) -> str:
        """The segment as one prompt line: ``[USER] text`` with line breaks as spaces."""
        flat = " ".join(self.text.splitlines())
        return f"[{self.cls}] {flat}"
