"""kura's own words in a model's text: the floor that keeps them out of the store and the map.

When a floor refuses a model's text, kura asks again and says why ("drops the ⚠️ landmine
mark (trigger)", "Refused: number 30 is not in the source (body). Write it again ...").
A weak model pastes that explanation into its next answer, where every other floor passes
it: the words are not a number, a claim or a link. :func:`kura_words_in` finds such
fragments -- the wording of every floor message, the sentences of kura's retry prompts,
and a field name in parentheses as kura's messages end -- so the weave, the composer, the
judge's fix and the pour refuse them. A fragment the source itself has (the description a
trigger stands for, the evidence a draft quotes) is the source's, not kura's, and passes.

The check folds case and plurals, reads words only (punctuation and marks between them do
not hide a phrase), and costs one pass over the text per phrase.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from . import SHAPE, Violation

#: The rule of the violation :func:`kura_message_violations` reports (kind ``shape``).
RULE = "kura_message"

#: The sentences kura's retry prompts are made of. The prompts are built from these, so
#: the floor knows every word of them.
WEAVE_RETRY = "Your previous trigger was refused: {reason}. Write it again within the rules."
COMPOSE_RETRY = (
    "Refused: {reason}. Write it again without these; every number must appear in the evidence."
)
RETRY_PHRASES: tuple[str, ...] = (
    "your previous trigger was refused",
    "previous trigger was refused",
    "write it again within the rules",
    "write it again without these",
    "every number must appear in the evidence",
    "was refused by the floor",
    "refused by the floor after one retry",
    "landmine mark",
)

#: Words that make a fragment of a floor message kura's (a fragment of three plain words
#: such as "is only part of" is everyone's).
_KURA_WORDS = frozenset(
    {
        "source",
        "evidence",
        "vouched",
        "landmine",
        "negation",
        "attribution",
        "budget",
        "markup",
        "quote",
        "segment",
        "refused",
        "distiller",
        "gate",
        "floor",
        "re-bound",
    }
)

FIELD_NAMES = (
    "trigger",
    "title",
    "description",
    "body",
    "tags",
    "quotes",
    "keep",
    "may_fade",
    "belongs_because",
)
_FIELD_TAG = re.compile(r"\(\s*(?:" + "|".join(FIELD_NAMES) + r")\s*\)", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"\{[a-z]\}")
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*", re.UNICODE)


def _stem(word: str) -> str:
    w = word.lower().replace("’", "'")
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    return w


def _words(text: str) -> str:
    """*text* as its folded words, one space apart, with a space at each end."""
    return " " + " ".join(_stem(m.group()) for m in _WORD.finditer(text)) + " "


def _template_pieces() -> list[str]:
    """The literal pieces of every floor message template (what stays when the figure, the
    field and the name are taken out)."""
    from . import _MESSAGES  # the floors' own wording; read, never changed

    out: list[str] = []
    for template in _MESSAGES.values():
        for piece in _PLACEHOLDER.split(template):
            out.append(piece)
    return out


@functools.cache
def _phrases() -> tuple[str, ...]:
    found: dict[str, None] = {}
    for piece in (*RETRY_PHRASES, *_template_pieces()):
        folded = _words(piece).strip()
        words = folded.split()
        if not words:
            continue
        if piece in RETRY_PHRASES or (len(words) >= 3 and _KURA_WORDS & set(words)):
            found[folded] = None
    return tuple(found)


def kura_words_in(text: str, *, source: str = "") -> list[str]:
    """The fragments of kura's own messages in *text* that *source* does not have."""
    if not text:
        return []
    folded = _words(text)
    given = _words(source) if source else " "
    out = [p for p in _phrases() if f" {p} " in folded and f" {p} " not in given]
    source_tags = {m.group().lower() for m in _FIELD_TAG.finditer(source or "")}
    for m in _FIELD_TAG.finditer(text):
        tag = m.group().lower()
        if tag not in source_tags and tag not in out:
            out.append(tag)
    return out


def kura_message_violations(fields: Mapping[str, object], *, source: str = "") -> list[Violation]:
    """One violation per field that carries kura's own words (see :func:`kura_words_in`)."""
    out: list[Violation] = []
    for name, value in fields.items():
        if isinstance(value, str) and value:
            found = kura_words_in(value, source=source)
            if found:
                out.append(Violation(SHAPE, name, "kura's own words: " + ", ".join(found), RULE))
    return out
