"""Classed evidence: what a journal said, who said it, and where.

Every journal adapter turns a transcript into :class:`Segment` values, each carrying one
of four classes:

* ``USER`` -- the human's own words; licenses "they decided", "they asked".
* ``TOOL`` -- machine output; the place measurements come from.
* ``ACT``  -- a tool that was invoked; licenses "this was done".
* ``SELF`` -- the agent's own prose; licenses a first-person judgement, never a bare fact.

:func:`normalize` is the one comparison form the gate uses on both sides of a quote check:
the floors' own (:func:`kura_core.floors.text.normalize`), so a quote is looked up in the
form every later check reads it in.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..normal import normalize as normalize, strip_invisible as strip_invisible
from ..script import CJK_CHAR as _CJK_CHAR, is_cjk as is_cjk
from ..vocabulary import PROVENANCE_CLASSES

#: the provenance classes, by the name the journal readers and the gate use
CLASSES = PROVENANCE_CLASSES

_WS_CHAR = re.compile(r"\s")
_PREFIX = re.compile(r"^\s*\[\s*([A-Za-z]+)\s*\]\s*")


#: The end of a call's kind when its journal says it completed and printed nothing: no
#: result answers it, and none is awaited.
NO_OUTPUT = "(completed, no output)"
#: The end of the ``kind`` of an ACT piece that is a later part of the call before it (the
#: second file of one patch): the call's one result answers them all.
SAME_CALL = "(same call)"


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
