"""The floors: deterministic checks on every text a model writes that will be stored.

One module for every place a model's words reach the store or the map -- the gate, the
scribe's composed draft, the judge's fix, a hand fix, tidy's rewrites, tags, and the
curation sentences of a direct write. Each check returns structured :class:`Violation`
values (kind, field, text, rule); faces render them with :meth:`Violation.message` and
code branches on ``kind``/``rule``, never on wording.

* **shape** -- every stored field is a string; tags are one-word strings;
* **disguise** -- no bidi controls or invisible characters in a stored field;
* **numbers** -- every quantity (:mod:`.quantities`) is vouched for by TOOL, ACT or USER
  evidence with the same value and unit; SELF vouches for nothing;
* **attribution** -- a clause crediting the human (:mod:`.attribution`) needs a surviving
  USER quote that carries what it credits; a named third person, evidence that says it
  of them;
* **links** -- ``[[slug]]`` names a memory that exists;
* **tags** -- claim tags need their kind of evidence; the distiller's own tags are not
  set by hand; tags pass the number and attribution floors too.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import re
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..script import has_cjk
from ..secrets import active_rules
from ..store import links_in
from ..vocabulary import PROVENANCE_CLASSES, FloorKind, FloorRule, ProvenanceClass
from . import lexicon, voices as _voices
from .attribution import (
    CLAIM_REACH,
    HUMAN,
    PRONOUN,
    THIRD,
    UNNAMED_REPORTS,
    VALUE_MARK,
    Claim,
    attribution_claims,
    carries,
    claims,
    codes_unsaid,
    content_tokens,
    fold_lines,
    foreign_words,
    names_a_topic,
    opens_clause,
    own_words,
    restates_negated,
    said_otherwise,
    says_opposite,
    slot_clauses,
    slot_swapped,
    someone_says,
    subordinate_opening,
    unwrap,
)
from .entities import (
    FAMILIAR_NAME,
    KinNameFinder,
    NameVouchers,
    SwapFinder,
    WordSwapFinder,
    people_in_text,
)
from .identifiers import IDENTIFIER
from .names import GIVEN_NAMES, is_configured, names_in
from .negation import cut_reason, negations_in
from .quantities import (
    DATE,
    NUMBER as FIGURE,
    RANGE,
    Quantity,
    Vouchers,
    _show,
    covers,
    numbers_in,
    per_word,
    scan,
    scanned_text,
    unvouched,
    with_units_first,
    wrong_weekdays,
)
from .scope import ka_is_word
from .tables import Rows
from .text import disguises, fold, strip_invisible
from .units import COUNTER, SOFT

__all__ = [
    "session_context",
    "tag_carried",
    "CLAIM_TAGS",
    "DISTILLER_TAGS",
    "Evidence",
    "Violation",
    "attribution_claims",
    "carries",
    "check_surface",
    "check_tags",
    "claims",
    "cut_reason",
    "disguises",
    "fold",
    "messages",
    "negations_in",
    "numbers_in",
    "scan",
    "strip_invisible",
    "unvouched",
    "Quantity",
    "Vouchers",
]

# kinds
NUMBER, ATTRIBUTION, LINK, TAG, DISGUISE, SHAPE = (
    FloorKind.NUMBER,
    FloorKind.ATTRIBUTION,
    FloorKind.LINK,
    FloorKind.TAG,
    FloorKind.DISGUISE,
    FloorKind.SHAPE,
)
NEGATION, MARK, ORDER, BUDGET, MARKUP = (
    FloorKind.NEGATION,
    FloorKind.MARK,
    FloorKind.ORDER,
    FloorKind.BUDGET,
    FloorKind.MARKUP,
)
R = FloorRule

#: Tags that claim something about the human, and the classes that can vouch for them.
CLAIM_TAGS: Mapping[str, frozenset[str]] = {
    "entrusted": frozenset({"USER"}),
    "emotion-carried": frozenset({"USER"}),
    "commitment": frozenset({"USER"}),
    "landmine": frozenset({"USER", "TOOL"}),
}


def tag_carried(key: str, evidence: Evidence) -> bool:
    """Whether a claim tag (:data:`CLAIM_TAGS`) has its evidence: a surviving quote of its
    class that says what the tag claims -- a worry for ``emotion-carried``, "up to you" for
    ``entrusted``, a promise for ``commitment``, a warning or a failure for ``landmine``
    (the list ``tag_marks``). A quote of the right class that says none of it does not."""
    needs = CLAIM_TAGS.get(key)
    if needs is None:
        return True
    marks = _tag_marks().get(key)
    for cls, quote, _seg in evidence.quotes:
        if cls in needs and (marks is None or marks.search(fold(quote).lower())):
            return True
    return False


@functools.cache
def _tag_marks() -> dict[str, re.Pattern[str]]:
    """Each claim tag's marks (the list ``tag_marks``: "tag: mark" a line), as one pattern
    per tag: a spaced mark as whole words, a CJK one anywhere."""
    by_tag: dict[str, list[str]] = {}
    for entry in lexicon.words("tag_marks"):
        tag, _, mark = entry.partition(":")
        if mark.strip():
            by_tag.setdefault(tag.strip(), []).append(mark.strip())
    return {tag: _alternation(marks) for tag, marks in by_tag.items()}


def _alternation(marks: Sequence[str]) -> re.Pattern[str]:
    parts = [
        (rf"(?<![\w']){re.escape(m)}(?![\w'])" if m.isascii() else re.escape(m))
        for m in sorted(marks, key=len, reverse=True)
    ]
    return _compile_once("|".join(parts))


#: Patterns built from a lexicon are compiled here, once each (cached by the caller).
_compile_once = re.compile


#: Tags only the distiller writes (SPEC §5.5); no model and no person sets them.
DISTILLER_TAGS = frozenset({"recurred"})
_CLASS_ORDER = PROVENANCE_CLASSES


@dataclass(frozen=True)
class Violation:
    """One reason a text may not be stored.

    ``kind`` is the floor (number, attribution, link, tag, disguise, shape), ``field`` the
    field it was found in, ``text`` the offending figure, phrase, tag or character, and
    ``rule`` which rule of that floor refused it (``unvouched``, ``self_only``,
    ``no_user_quote``, ``not_carried``, ``third_party``, ``no_memory``, ``invisible``,
    ``not_a_string``, ``not_a_word``, ``needs_evidence``, ``distiller_only``). ``note``
    carries what the message needs besides (a name, the classes a tag needs).
    """

    kind: str
    field: str
    text: str
    rule: str
    note: str = ""

    def message(self) -> str:
        """The violation in words, for a person (code reads ``kind`` and ``rule``)."""
        template = _MESSAGES.get((self.kind, self.rule)) or _MESSAGES.get((self.kind, "*"))
        if template is None:
            return f"{self.kind} {self.text} ({self.field})"
        return template.format(
            t=self.text, f=self.field, n=self.note or "someone", q=repr(self.text)
        )

    __str__ = message

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "field": self.field,
            "text": self.text,
            "rule": self.rule,
            "note": self.note,
            "message": self.message(),
        }

    @classmethod
    def from_json(cls, data: Any) -> Violation:
        """A violation as stored in a draft or the gate log; an old plain string becomes
        kind ``legacy`` with its text."""
        if isinstance(data, Mapping):
            return cls(
                str(data.get("kind", "")),
                str(data.get("field", "")),
                str(data.get("text", "")),
                str(data.get("rule", "")),
                str(data.get("note", "")),
            )
        text = str(data)
        kind = (
            text.split(" ", 1)[0]
            if text.split(" ", 1)[0] in (NUMBER, ATTRIBUTION, LINK, TAG)
            else "legacy"
        )
        return cls(kind, "", text, R.LEGACY)


#: How each (kind, rule) reads; "*" is the kind's fallback. {t} the text, {f} the field,
#: {n} the note, {q} the text quoted.
_MESSAGES: dict[tuple[str, str], str] = {
    (NUMBER, R.NOT_IN_SOURCE): "number {t} is not in the source ({f})",
    (NUMBER, R.PARTIAL): "number {t} is only part of {n} in the source ({f})",
    (NUMBER, R.SELF_ONLY): "number {t} is vouched only by SELF ({f})",
    (NUMBER, R.OTHER_ROW): (
        "number {t} stands in another row of the table than the one the sentence names ({f})"
    ),
    (NUMBER, "*"): "number {t} is not in the evidence ({f})",
    (ATTRIBUTION, R.NOT_IN_SOURCE): 'attribution "{t}" is not in the source ({f})',
    (ATTRIBUTION, R.NO_USER_QUOTE): 'attribution "{t}" needs a surviving USER quote ({f})',
    (
        ATTRIBUTION,
        R.NOT_CARRIED,
    ): 'attribution "{t}" needs a USER quote that says what it credits ({f})',
    (
        ATTRIBUTION,
        R.THIRD_PARTY,
    ): 'attribution "{t}" credits {n} with what no evidence says of them ({f})',
    (ATTRIBUTION, R.NOT_ONE_SEGMENT): (
        'attribution "{t}" needs one USER segment that says all it credits, figures too ({f})'
    ),
    (ATTRIBUTION, "*"): 'attribution "{t}" is refused ({f})',
    (LINK, "*"): "link [[{t}]] names no memory in this store ({f})",
    (FloorKind.SCOPE, R.PLAN_AS_DONE): (
        "writes as done what its quote only plans ({q}): keep it a plan ({f})"
    ),
    (FloorKind.SCOPE, R.AS_SETTLED): (
        "states as settled a figure its quote gives with {q}: keep it open ({f})"
    ),
    (FloorKind.CONTENT, R.UNVOUCHED): (
        "says {q}, a comparison no quote makes and no figure shows ({f})"
    ),
    (FloorKind.NAME, R.UNVOUCHED): (
        "names {q}, which no quoted evidence gives: a name is vouched like a figure ({f})"
    ),
    (FloorKind.ACT, R.NOT_DONE): (
        "writes as done a call that was {n} ({t}): say it was tried, or leave it out ({f})"
    ),
    (DISGUISE, "*"): "{t} reads differently to a person than to the gate ({f})",
    (SHAPE, R.NOT_A_STRING): "{f} must be a string, not {t}",
    (SHAPE, R.NOT_A_LIST): "{f} must be a list of one-word strings, not {t}",
    (SHAPE, R.EMPTY): "{f} is empty",
    (SHAPE, R.ONE_LINE): "{f} must be one sentence on one line",
    (SHAPE, R.TOO_LONG): "{f} is {t}; keep it under {n}",
    (SHAPE, R.RAW_SECRET): (
        "{f} carries a raw secret ({t}): write the marker [secret:{t}] in its place"
    ),
    (SHAPE, "*"): "{f} is malformed: {t}",
    (NEGATION, R.ADDED): "adds the negation {q} ({f})",
    (NEGATION, "*"): "drops the negation {q} ({f})",
    (MARK, R.ADDED): "adds a {t} landmine mark ({f})",
    (MARK, "*"): "drops the {t} landmine mark ({f})",
    (ORDER, "*"): "numbers {t} are in another order than in the source (re-bound) ({f})",
    (BUDGET, "*"): "is ~{t} tokens, over the budget of {n} ({f})",
    (MARKUP, R.ADDED_LINK): "adds a link ({t}) the source does not have ({f})",
    (MARKUP, R.INDEX_LINK): (
        "{f} carries a link ({t}): the index line is plain text, only the writer links it"
    ),
    (MARKUP, "*"): "adds map markup ({t}) the source does not have ({f})",
    (TAG, R.NOT_A_WORD): "tag {q} is not one word or a hyphenated phrase",
    (TAG, R.DISTILLER_ONLY): "tag {t} is written by the distiller, not proposed or set by hand",
    (TAG, R.NEEDS_EVIDENCE): (
        "tag {t} needs a surviving {n} quote (a memory written directly has no evidence "
        "manifest: leave the tag off, or let the distiller propose it)"
    ),
    (TAG, "*"): "tag {t} is refused",
}


def messages(violations: Iterable[Violation]) -> list[str]:
    return [v.message() for v in violations]


@dataclass(frozen=True)
class Evidence:
    """What vouches for a text: the segments a candidate's surviving quotes were found in,
    as ``(class, text)`` with store echoes and the agent's own repeated words already
    removed, and the surviving quotes themselves as ``(class, quote, segment text)``."""

    segments: tuple[tuple[str, str], ...] = ()
    quotes: tuple[tuple[str, str, str], ...] = ()
    #: The session around the quotes (``(class, text)``, the person's turns as their own
    #: words): segments no quote was found in that give a name the memory mentions, or what
    #: a curation sentence credits. They vouch for those two only, never for a figure or
    #: for what the memory itself credits (SPEC §5.4: those need the quotes).
    context: tuple[tuple[str, str], ...] = ()
    #: The quoted ACT calls the journal shows the person refused: a credit that says they
    #: refused it ("被用户拒绝", "the user declined the deploy") is carried by the event.
    refused: tuple[str, ...] = ()
    #: The person's turns that hold pasted material a quote was taken from: someone's
    #: words, which a report that names no one (…とのこと) may retell.
    heard: tuple[str, ...] = ()
    #: The person's turns, whole, that a quote of their own words came from where they also
    #: pasted someone's: who speaks in the paste is told by these, not by the own words.
    pasted: tuple[str, ...] = ()
    #: The order the whole session writes numeric days in ("dmy", "mdy", ""): what an
    #: ambiguous "1/4" of the quotes means (:func:`~.quantities.session_date_order`).
    date_order: str = ""
    #: The one currency the whole session writes its amounts in ("" when none or more):
    #: what a bare amount a word makes money is in (:func:`~.quantities.session_currency`).
    currency: str = ""
    _vouch: list = field(default_factory=list, compare=False, repr=False)

    @classmethod
    def of(
        cls,
        segments: Iterable[tuple[str, str]],
        quotes: Iterable[tuple[str, str, str]] = (),
        context: Iterable[tuple[str, str]] = (),
        refused: Iterable[str] = (),
        heard: Iterable[str] = (),
        pasted: Iterable[str] = (),
    ) -> Evidence:
        return cls(
            tuple((c, t) for c, t in segments),
            tuple(quotes),
            tuple((c, t) for c, t in context),
            tuple(refused),
            tuple(heard),
            tuple(pasted),
        )

    def with_context(self, context: Iterable[tuple[str, str]]) -> Evidence:
        """This evidence with *context* segments added to its own."""
        more = tuple(x for x in dict.fromkeys(context) if x not in self.context)
        if not more:
            return self
        return dataclasses.replace(self, context=self.context + more, _vouch=[])

    def rows(self) -> Rows:
        """The table rows of the quoted segments (:mod:`.tables`), read once."""
        if len(self._vouch) < 3:
            self._vouchers()
            self._vouch.append(Rows(t for c, t in self.segments if c != SELF_CLASS))
        return self._vouch[2]

    def context_vouches(self, q: Quantity) -> bool:
        """Whether the session around the quotes gives *q* (a code, or a figure of a
        curation sentence: see :func:`session_context`)."""
        if not self.context:
            return False
        if len(self._vouch) < 4:
            self.rows()
            self._vouch.append(
                Vouchers(
                    (t for c, t in self.context if c != SELF_CLASS), self.date_order, self.currency
                )
            )
        return bool(self._vouch[3].vouches(q))

    def name_texts(self) -> list[str]:
        """Every text a name may be found in: the quoted segments and the context."""
        return [t for _c, t in self.segments] + [t for c, t in self.context if c != SELF_CLASS]

    def for_curation(self) -> Evidence:
        """The evidence a curation sentence is checked against: the person's turns in the
        context count as their words (why a memory belongs restates what the session was
        about: "the store of our move from Wuhan to Hangzhou")."""
        more = tuple((c, t) for c, t in self.context if c != SELF_CLASS)
        if not more:
            return self
        return dataclasses.replace(
            self,
            segments=self.segments + more,
            quotes=self.quotes + tuple((c, t, t) for c, t in more),
            context=(),
            _vouch=[],
        )

    @property
    def classes(self) -> frozenset[str]:
        return frozenset(c for c, _q, _s in self.quotes)

    def _vouchers(self) -> tuple[Vouchers, Vouchers]:
        if not self._vouch:
            for mine in (False, True):
                texts = (t for c, t in self.segments if (c == "SELF") == mine)
                self._vouch.append(Vouchers(texts, self.date_order, self.currency))
        return self._vouch[0], self._vouch[1]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "segments": [list(x) for x in self.segments],
            "quotes": [list(x) for x in self.quotes],
        }
        if self.context:
            out["context"] = [list(x) for x in self.context]
        if self.refused:
            out["refused"] = list(self.refused)
        return out

    @classmethod
    def from_json(cls, data: Any) -> Evidence:
        if not isinstance(data, Mapping):
            return cls()
        segs = [
            (str(x[0]), str(x[1]))
            for x in data.get("segments") or []
            if isinstance(x, list) and len(x) == 2
        ]
        quotes = [
            (str(x[0]), str(x[1]), str(x[2]))
            for x in data.get("quotes") or []
            if isinstance(x, list) and len(x) == 3
        ]
        context = [
            (str(x[0]), str(x[1]))
            for x in data.get("context") or []
            if isinstance(x, list) and len(x) == 2
        ]
        refused = [str(x) for x in data.get("refused") or [] if isinstance(x, str)]
        return cls.of(segs, quotes, context, refused)

    def user_texts(self) -> list[str]:
        """The human's own words behind the surviving USER quotes (their whole turns)."""
        return list(dict.fromkeys(s for c, _q, s in self.quotes if c == "USER"))


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def shape_violations(
    fields: Mapping[str, object], *, optional_null: bool = True
) -> list[Violation]:
    out = []
    for name, value in fields.items():
        if value is None and optional_null:
            continue
        if not isinstance(value, str):
            out.append(Violation(SHAPE, name, _type_name(value), R.NOT_A_STRING))
        elif found := active_rules().find(value):  # a raw secret is never stored (kura.secrets)
            out.append(Violation(SHAPE, name, found[0].kind, R.RAW_SECRET))
    return out


_SENTENCE_STOP = re.compile(r"[.;!?\n]")
#: A relative clause about a person: ", who knows the old Landini", "who runs the depot".
_WHO_CLAUSE = re.compile(r"(?i)\bwho(?:m|se)?[ \t]+([^,.;:!?\n]{1,120})")


def _relative_tokens(text: str) -> frozenset[str]:
    """The content tokens of the relative clauses about a person in the sentence *text*
    opens with: what it says of someone it names, not of the one it credits."""
    sentence = _SENTENCE_STOP.split(text, maxsplit=1)[0]
    out: set[str] = set()
    for m in _WHO_CLAUSE.finditer(sentence):
        out |= content_tokens(m.group(1))
    return frozenset(out)


#: The joint of a change written from its old value to its new one: "from 40 to 45",
#: 由68跌返59, 从600涨到800, 3万から3万5千に, 18变19, 40 → 45.
_CHANGE_JOINT = re.compile(
    r"[ \t]*+(?:(?i:to|up to|down to)|→|->|⇒|[到至]|[涨漲升降跌加减減调調改][到至返回成]|变成|變成|[变變]|から)"
    r"[ \t]*+$"
)
_CHANGE_FROM = re.compile(r"(?:(?i:\bfrom)|由|从|從)[ \t]*+(?:[^\d\n]{0,8}?)$")
#: What marks a value as the one before a change: 之前系59, 原来是600, "was £40", 以前は800.
_OLD_VALUE = re.compile(
    r"(?:之前|以前|原来|原來|原本|本来|本來|先前|上次|旧|舊|原价|原價)(?:系|是|為|为|都是|係)?[ \t]*+$"
    r"|(?i:\b(?:was|were|previously|formerly|used to be|up from|down from|old price(?: was)?)[ \t]*+[:：]?[ \t]*+)$"
    r"|(?:前は|以前は|これまで|今まで|従来|旧価格)[ \t]*+$"
)


def _changes(text: str) -> list[tuple[Decimal, Decimal]]:
    """The changes *text* writes as one, from its old value to its new one: "from 40 to
    45", 由68跌返59, 18变19, 3万から3万5千円に ((40, 45), (68, 59), …)."""
    scanned = scan(text)
    found = [q for q in scanned if q.kind == FIGURE and q.value is not None]
    out: list[tuple[Decimal, Decimal]] = [
        (q.value, q.high)
        for q in scanned
        if q.kind == RANGE
        and q.value is not None
        and q.high is not None
        and _CHANGE_FROM.search(text, max(0, q.start - 16), q.start)
    ]
    for a, b in zip(found, found[1:], strict=False):
        between = text[a.end : b.start]
        if len(between) > 8 or not _CHANGE_JOINT.search(between.rstrip("元円蚊块塊")):
            continue
        joint = between.strip(" \t元円蚊块塊")
        directed = joint not in ("to", "到", "至", "→", "->", "⇒") or _CHANGE_FROM.search(
            text, max(0, a.start - 16), a.start
        )
        if (
            directed
            and a.value is not None
            and b.value is not None
            and (not a.unit or not b.unit or a.unit == b.unit)
        ):
            out.append((a.value, b.value))
    return out


def _old_values(text: str) -> set[Decimal]:
    """The figures *text* gives as what was before (之前系59蚊, "was £40")."""
    return {
        q.value
        for q in scan(text)
        if q.kind == FIGURE
        and q.value is not None
        and _OLD_VALUE.search(text, max(0, q.start - 16), q.start)
    }


def reversed_changes(value: str, quoted: Sequence[str]) -> list[str]:
    """The changes *value* writes the other way round from the quotes: "fell from 68 to 59"
    where the quote has 59 before and 68 now (要68蚊，之前系59蚊) or a change from 59 to 68,
    and none from 68 to 59. Each as "68 -> 59"."""
    if not any(ch.isdigit() for ch in value):
        return []
    said = _changes(value)
    if not said:
        return []
    out = []
    for old, new in said:
        if old == new:
            continue
        forward = backward = False
        for text in quoted:
            values = {q.value for q in scan(text) if q.kind == FIGURE}
            if not {old, new} <= values:
                continue
            changes = _changes(text)
            olds = _old_values(text)
            forward = forward or (old, new) in changes or (old in olds and new not in olds)
            backward = backward or (new, old) in changes or (new in olds and old not in olds)
        if backward and not forward:
            out.append(f"{_show(old)} -> {_show(new)}")
    return out


def _reversed(
    name: str, value: str, quoted: Sequence[str], seen: set[tuple[str, str]]
) -> list[Violation]:
    """:func:`reversed_changes` of one field, each reported once."""
    out = []
    for pair in reversed_changes(value, quoted):
        if (ORDER, pair) not in seen:
            seen.add((ORDER, pair))
            out.append(Violation(ORDER, name, pair, R.SWAPPED))
    return out


_CJK_NUMERAL_RUN = re.compile(r"[〇一二三四五六七八九十百千]+")


def _numeral_in_a_name(value: str, q: Quantity, evidence: Evidence) -> bool:
    """Whether the figure *q* of *value* is numerals that open a word the evidence writes
    whole: 五十嵐, 九十九里浜, 十和田 -- a name, not fifty. The numerals and the character
    after them must stand so in the quotes or the session."""
    word = _numeral_word(value, q)
    return bool(word) and any(word in t for t in evidence.name_texts())


def _numeral_word(value: str, q: Quantity) -> str:
    """The numerals of *q* and the character after them, when *q* is numerals with no unit
    right before a Chinese character (五十嵐), else ""."""
    if q.unit or not _CJK_NUMERAL_RUN.fullmatch(q.text):
        return ""
    word = value[q.start : q.end + 1]
    return word if len(word) > len(q.text) and has_cjk(word[-1]) else ""


def _human_claim_ok(
    claim: Claim,
    evidence: Evidence,
    field_name: str,
    text: str,
    names: tuple[str, ...],
    raw: Sequence[str],
    user: Sequence[str],
    figures: Sequence[Quantity],
) -> Violation | None:
    """:func:`_claim_ok` for a credit to the person: one segment of theirs carries it, its
    figures too, the people it names are in their words, and it is no mere question."""
    if not user:
        return Violation(ATTRIBUTION, field_name, claim.phrase, R.NO_USER_QUOTE)
    whole = claim
    found = None
    described = _rows_described(evidence, user)
    readings = []
    # what the memory says of someone else in a relative clause ("phone Dawid, who knows the
    # old Landini"): theirs in the person's words too ("he knows that old Landini")
    of_others = _relative_tokens(text[claim.end :]) if text else frozenset()
    for reading, clause_figures in _readings(claim, text, figures, names):
        mine = [
            o
            for u, o in zip(raw, user, strict=True)
            if not (reading.content - of_others) & foreign_words(u, names)
        ]
        readings.append(
            (reading.content - described or reading.content, reading, clause_figures, mine)
        )
    found = _carried_reading(readings, evidence)
    if found is None:
        # a credit told in other words carries a third of what it says, in the slots of the
        # person's own sentence (not another thing in one of them)
        clause = _credit_clause(text, claim) if text else ""
        if clause and len(clause) <= len(claim.phrase) + 1:
            clause = _credit_sentence(text, claim)  # ユーザーは、…: the clause after its comma
        for credited, reading, clause_figures, mine in readings:
            if (
                clause
                and carries(credited, mine, 3)
                and not slot_swapped(clause, mine)
                and not _denied_beside(clause, mine)
            ):
                found = (dataclasses.replace(reading, content=credited), clause_figures, mine, 3)
                break
    if found is None:
        return Violation(ATTRIBUTION, field_name, claim.phrase, R.NOT_CARRIED)
    if text and says_opposite(_credit_sentence(text, claim), raw):
        # "the user approved the refund" for "hold off on the refund"
        return Violation(ATTRIBUTION, field_name, claim.phrase, R.NOT_CARRIED)
    if (
        text
        # "the user refused a force push" for "don't force push": the refusal is the "not"
        and not _credits_refusal(claim, text)
        and (word := restates_negated(_clause_or_sentence(text, claim), raw))
    ):
        # "the owner wants GP5000s ordered" for "do not order the GP5000s"
        return Violation(ATTRIBUTION, field_name, claim.phrase, R.NOT_CARRIED, word)
    claim, figures, carrying, share = found
    mine = list(carrying)
    if unsaid := codes_unsaid(whole.content, mine):
        # "… runs only in sgp1 and the staging cluster moves to nyc3" over 只跑在 sgp1
        return Violation(ATTRIBUTION, field_name, claim.phrase, R.NOT_CARRIED, min(unsaid))
    glossed = _glossed_for(figures, evidence)
    if not any(
        _one_segment(claim, figures, u, share, glossed, evidence)
        or _kept_as_is(claim, figures, u, evidence)
        or _pointed_at(claim, figures, u, share, evidence)
        for u in mine
    ):
        return Violation(ATTRIBUTION, field_name, claim.phrase, R.NOT_ONE_SEGMENT)
    others = _people_unsaid(whole, mine) or _people_unquoted(whole, evidence, text, names)
    if others:
        # 由老周带队 for the person's 小陈带队: who does it is what is credited
        return Violation(ATTRIBUTION, field_name, claim.phrase, R.NOT_CARRIED, others[0])
    if _only_asked(claim, evidence, text):
        return Violation(ATTRIBUTION, field_name, claim.phrase, R.NOT_CARRIED, "a question")
    return None


def _claim_ok(
    claim: Claim,
    evidence: Evidence,
    field_name: str,
    text: str = "",
    human_names: Sequence[str] = (),
) -> Violation | None:
    """:func:`_claim_once` on a claim's reading, and on its whole sentence's when it opens
    a comma clause of Chinese or Japanese (either reading carried carries it)."""
    found = _claim_once(claim, evidence, field_name, text, human_names)
    if found is None or not claim.wider:
        return found
    wide = dataclasses.replace(claim, content=claim.wider, wider=frozenset())
    return found if _claim_once(wide, evidence, field_name, text, human_names) else None


def _refusal_read(
    claim: Claim, evidence: Evidence, text: str
) -> tuple[frozenset[str], frozenset[str] | None, list[str]]:
    """What *claim* says (its words, and the refusal words when it tells of permission
    withheld), those words of withholding, and the person's texts, each with the refusal
    words added where it refuses: a refused call quoted, or a clause that forbids what the
    credit says was refused ("don't force push, …")."""
    raw = evidence.user_texts()
    said = claim.content | content_tokens(claim.phrase)
    told = _refusal_words(claim, text) if claim.who == HUMAN and text else None
    if told is not None:
        said = said | _REFUSAL_TOKENS
    if claim.who != HUMAN or not said & _REFUSAL_TOKENS:
        return said, told, raw
    if evidence.refused:
        # the person's refusal of a call is their act: the call and the refusal carry it
        raw = raw + [f"{call}\n{_REFUSAL_WORDS}" for call in evidence.refused]
    wanted = claim.content - _REFUSAL_TOKENS
    raw = [
        f"{u}\n{_REFUSAL_WORDS}"
        if wanted and any(carries(wanted, [c]) for c in _forbidden(fold(u)))
        else u
        for u in raw
    ]
    return said, told, raw


def _claim_once(
    claim: Claim,
    evidence: Evidence,
    field_name: str,
    text: str = "",
    human_names: Sequence[str] = (),
) -> Violation | None:
    """Whether the evidence carries what *claim* credits. What is credited to a person comes
    from one segment of theirs: its words and every figure of the claim's clause (a figure
    from another quote, or a name from one segment with another's content, is not it). What
    the human's segment credits to someone else ("Mika decided to …", "Mika: …") is not the
    human's: only the segment's own words (:func:`.attribution.own_words`) vouch for them,
    and a segment that has a credited word only in someone else's mouth vouches for none of
    it ("Mika: use Postgres" beside the human's "use SQLite")."""
    names = tuple(n for n in human_names if isinstance(n, str))
    said, told, raw = _refusal_read(claim, evidence, text)
    user = [own_words(u, names) for u in raw]
    if (
        claim.who == HUMAN
        and told is None
        and not evidence.refused
        and _credits_refusal(claim, text)
        and not any(_refuses(u, claim.content - _REFUSAL_TOKENS) for u in user)
    ):
        # "the user refused the deploy" for "deploy the site now": a refusal credited
        # where the person's words refuse nothing and no refused call is quoted
        return Violation(ATTRIBUTION, field_name, claim.phrase, R.NOT_CARRIED, "a refusal")
    figures: Sequence[Quantity] = _claim_figures(text, claim) if text else ()
    if (
        claim.who == HUMAN
        and said & _REFUSAL_TOKENS
        and _refusal_told(claim, evidence.refused, text, told or frozenset())
    ):
        return None
    if claim.who == HUMAN and _passed_on(claim, evidence, text):
        return None
    if claim.who == HUMAN:
        return _human_claim_ok(claim, evidence, field_name, text, names, raw, user, figures)
    if claim.who == THIRD:
        claim = _named_as_said(claim, evidence)
        # someone who speaks in what the person pasted beside their own words: the person's
        # own sentences are theirs only where they name them ("山口さんから Slack 来とった"
        # gives 山口 none of the person's "見積は4人日で出す")
        pasting = any(
            _speaker_is(claim.name, v.speaker, p)
            for p in evidence.pasted
            for v in _voices.voices(p)
            if v.speaker
        )
        said_of = [
            own_words(
                _naming_sentences(claim.name, seg)
                if pasting
                else _naming_paragraphs(claim.name, theirs)
                if theirs == seg
                else theirs,
                names,
                claim.name,
            )
            if c == "USER"
            else theirs
            for c, _q, seg in evidence.quotes
            if c != "SELF" and (names_in(claim.name, seg) or _speaks_in(claim.name, seg))
            if (theirs := _said_by(claim.name, seg))
        ]
        # what the person pasted, whole: a quote from someone's message under their label
        said_of += [
            theirs
            for seg in evidence.heard
            if names_in(claim.name, seg) or _speaks_in(claim.name, seg)
            if (theirs := _said_by(claim.name, seg))
        ]
        glossed = _glossed_for(figures, evidence)
        for reading, clause_figures in _readings(claim, text, figures, names):
            if any(
                _one_segment(reading, clause_figures, s, glossed=glossed, session=evidence)
                for s in dict.fromkeys(said_of)
                if s
            ):
                return None
        phrase = fold(claim.phrase)
        if any(phrase in fold(u) and carries(claim.content, [u]) for u in user if has_cjk(phrase)):
            return None  # 以妈妈说的为准: the person's own sentence names what 妈妈 says
        if claim.name.lower() in _GROUPS and any(
            _WE.search(fold(u)) and _one_segment(claim, figures, o, session=evidence)
            for u, o in zip(raw, user, strict=True)
        ):
            return None  # "the team is over budget" for the person's "we're over budget"
        if fold(claim.name).lower() in _SELF_ROLES and (
            _human_claim_ok(claim, evidence, field_name, text, names, raw, user, figures) is None
        ):
            # "the maintainer ruled", 老板认为, 店長が決めた: the role the person holds
            # where they run the thing, carried by their own words as their credit is
            return None
        return Violation(ATTRIBUTION, field_name, claim.phrase, R.THIRD_PARTY, claim.name)
    if _pronoun_carried(claim, evidence, raw, user):
        return None
    return Violation(
        ATTRIBUTION, field_name, claim.phrase, R.NO_USER_QUOTE if not user else R.NOT_CARRIED
    )


#: A name's tail in kanji after a run of another script (マルフク井上: the company's 井上).
_KANJI_TAIL = re.compile(r"(?<=[\u30a0-\u30ffA-Za-z])[\u4e00-\u9fff]{2,4}$")


def _naming_sentences(name: str, text: str) -> str:
    """The sentences of *text* that name *name*."""
    return "\n".join(s for s in _SENTENCE_OF.findall(text) if names_in(name, s))


def _named_as_said(claim: Claim, evidence: Evidence) -> Claim:
    """*claim* with its person named as the evidence names them: マルフク井上さん is the
    井上 of company マルフク when only 井上 speaks or is named there."""
    m = _KANJI_TAIL.search(claim.name)
    if m is None:
        return claim
    texts = [seg for _c, _q, seg in evidence.quotes] + list(evidence.heard)
    if any(names_in(claim.name, t) for t in texts):
        return claim
    tail = m.group(0)
    if any(names_in(tail, t) or _speaks_in(tail, t) for t in texts):
        return dataclasses.replace(claim, name=tail)
    return claim


def _carried_reading(
    readings: Sequence[tuple[frozenset[str], Claim, Sequence[Quantity], Sequence[str]]],
    evidence: Evidence,
) -> tuple[Claim, Sequence[Quantity], Sequence[str], int] | None:
    """The narrowest reading the person's words carry that one segment of theirs says
    whole (a title from one turn and a price from another carry a narrow reading only
    together), else the narrowest they carry at all, else None."""
    found = None
    for credited, reading, clause_figures, mine in readings:
        if carries(credited, mine):
            here = (dataclasses.replace(reading, content=credited), clause_figures, mine, 2)
            found = found or here
            if _in_one_segment(here, evidence):
                return here
    return found


def _in_one_segment(
    found: tuple[Claim, Sequence[Quantity], Sequence[str], int], evidence: Evidence
) -> bool:
    """Whether one segment of the person's carries a reading with its figures."""
    claim, figures, mine, share = found
    glossed = _glossed_for(figures, evidence)
    return any(_one_segment(claim, figures, u, share, glossed, evidence) for u in mine)


def _passed_on(claim: Claim, evidence: Evidence, text: str) -> bool:
    """Whether a credit says the person passed on what someone else wrote ("the notes the
    user pasted", ユーザーが転送したメール, 用户转发的消息) and the material a quote came
    from, pasted into their turn, says what it credits: the act is theirs, the words the
    material's (which vouches for them as a tool's output does)."""
    if not evidence.heard:
        return False
    told = fold(text[claim.start : claim.end + 12] if text else claim.phrase).lower()
    if not lexicon.pattern("attribution_shared").search(told):
        return False
    return carries(claim.content, evidence.heard)


def _people_unsaid(claim: Claim, mine: Sequence[str]) -> list[str]:
    """The people a credit to the person names (老周, 小陈) that the person's words carrying
    it do not: the person credited with someone they did not name."""
    named = [t for t in claim.content if len(t) == 2 and FAMILIAR_NAME.fullmatch(t)]
    if not named:
        return []
    have = set().union(*(content_tokens(u) for u in mine)) if mine else set()
    return [t for t in named if t not in have]


def _people_unquoted(
    claim: Claim, evidence: Evidence, text: str, names: tuple[str, ...]
) -> list[str]:
    """The people a credit to the person names in what it credits ("Sharlene said Kemar
    approves installs") that none of the segments its quotes come from names: someone put
    in where the person named another. The session around the quotes vouches a name the
    memory mentions, never a person inside what it credits."""
    if not text:
        return []
    clause = _clause_or_sentence(text, claim)
    if len(clause) <= len(claim.phrase):
        return []
    quoted = [seg for _c, seg in evidence.segments]
    speakers = {v.speaker for seg in quoted for v in _voices.voices(seg) if v.speaker}
    people = [
        who
        for who in people_in_text(clause, speakers)
        if not is_configured(who, names)
        and not names_in(who, claim.phrase)
        and not any(names_in(who, seg) for seg in quoted)
    ]
    if not people:
        return []
    # a name the quoted segments give in another script (Tanaka for 田中さん) is theirs
    return NameVouchers(quoted, names).unvouched_of(people, clause)


def _clause_or_sentence(text: str, claim: Claim) -> str:
    """The clause a credit opens, or its sentence when a comma right after the credit ends
    that clause (沢井さんは、…を選んだ: what follows is what it credits)."""
    clause = _credit_clause(text, claim)
    return _credit_sentence(text, claim) if len(clause) <= len(claim.phrase) + 1 else clause


def _pronoun_carried(
    claim: Claim, evidence: Evidence, raw: Sequence[str], user: Sequence[str]
) -> bool:
    """Whether a pronoun's claim is carried: by the human's own words, by someone the
    human's words report ("据她说 …" for 她说…, "she said …"), or by a third person that
    non-SELF evidence itself quotes."""
    if user and carries(claim.content, user):
        return True
    if raw and someone_says(claim.phrase) and carries(claim.content, raw):
        return True
    if claim.phrase in UNNAMED_REPORTS:
        # "…とのこと" names no one: hearsay retold from what the person pasted
        return bool(evidence.heard) and carries(claim.content, evidence.heard)
    others = [
        seg for c, _q, seg in evidence.quotes if c in ("TOOL", "ACT") and _speaks_of_someone(seg)
    ]
    # what the person pasted under someone's label ("小鱼干 21:47\n…我把存档发你邮箱了"):
    # the pronoun stands for the one who speaks there
    others += [seg for seg in evidence.heard if _voices.voices(seg)]
    return bool(others) and carries(claim.content, others)


SELF_CLASS, USER_CLASS = ProvenanceClass.SELF, ProvenanceClass.USER

#: The curation sentences of a candidate (SPEC §5.3): why it is kept, not what it says.
_CURATION_FIELDS = frozenset({"belongs_because", "keep", "may_fade"})

#: A group the person belongs to, named by its role ("the team", 团队): what the person
#: says of "we" may be said of it.
_GROUPS = frozenset({"team", "团队", "團隊", "チーム"})
#: The person speaking for a group they belong to.
_WE = re.compile(
    r"\b(?:we|we're|we've|we'll|our|us)\b|我们|我們|咱们|咱們|私たち|うちら|僕ら|俺ら", re.I
)

#: A quote that asks: it ends in a question mark or a question particle.
_ASKS = re.compile(r"(?:[?？]|[吗嗎呢]|(?<![しなだ])か|ですか|ますか)[\s。.！!」』\"”']*$")


def _asks(text: str) -> bool:
    """Whether *text* ends asking: a question mark or particle, not a word ending in か."""
    m = _ASKS.search(text)
    return m is not None and not (m.group(0).startswith("か") and ka_is_word(text[: m.start() + 1]))


#: A question that is a request: "can you …?", "could you please …?", …てくれる？, 请…吗.
_REQUEST = re.compile(
    r"^\W*(?:(?:can|could|would|will)\s+(?:you|u)\b|please\b)|\bplease\b"
    r"|ください|くださ|てくれ|てもらえ|[てで](?:いただけ|頂け|いただきたい|頂きたい)|お願い"
    r"|请|請|帮我|幫我|麻烦|麻煩",
    re.IGNORECASE,
)
#: A credit that keeps a question a question: asked, wondered, whether, 聞いた, 问, 是否 …
_KEEPS_ASKING = re.compile(
    r"\b(?:ask(?:ed|s|ing)?|wonder(?:ed|s|ing)?|whether|question(?:ed|s)?|unsure|inquir\w*)\b"
    r"|聞い|聞か|尋ね|質問|かどうか|か聞|问|問|是否|要不要|吗|嗎|能否|可否",
    re.IGNORECASE,
)


def _only_asked(claim: Claim, evidence: Evidence, text: str) -> bool:
    """Whether every quote of the person's that carries *claim* asks a question while the
    text credits it as said or decided ("Can we email the cast?" is not "the user decided
    to email the cast")."""
    carrying = [q for c, q, _s in evidence.quotes if c == "USER" and carries(claim.content, [q])]
    if not carrying:
        # the figures the credit gives, where the person's turn gives them only in a
        # question ("maybe the 25 m² ones too, to £19?" for "the user raised the fee for
        # the 25 m² plots to £19"), when no quote carries it alone
        carrying = _figures_asked(claim, evidence.user_texts())
        if not all(_asks(fold(q)) for q in carrying):
            # one figure of the credit the person's words give only in a question, the
            # rest said elsewhere ("(a). Would thirty-five be too many?" for "decided … up
            # to thirty-five")
            carrying = _a_figure_asked(claim, evidence.user_texts())
    if not carrying or not all(_asks(fold(q)) for q in carrying):
        return False
    if any(_REQUEST.search(fold(q)) for q in carrying):
        return False  # "can you …?" is a request, and a request may be credited as one
    return _KEEPS_ASKING.search(fold(text)) is None


#: A question that states and asks to be confirmed: 按 900g 算的吧？, …ですよね？, "…, right?".
_TAG_QUESTION = re.compile(
    r"(?:吧|吧吗|对吧|是吧|でしょ|でしょう|よね|だね|(?i:right|isn't it|aren't they|correct))"
    r"[\s。.,，]*[?？]\s*$"
)


def _a_figure_asked(claim: Claim, texts: Sequence[str]) -> list[str]:
    """The questions of *texts* that give a figure of *claim* no other sentence of them
    gives ([] when every figure is said outside a question, or not said at all)."""
    values = {t for t in claim.content if t.startswith(VALUE_MARK)}
    if not values:
        return []
    asked: dict[str, list[str]] = {}
    stated: set[str] = set()
    for text in texts:
        for m in _SENTENCE_OF.finditer(text):
            got = values & content_tokens(m.group(0))
            if not got:
                continue
            sentence = fold(m.group(0))
            if _asks(sentence) and not _TAG_QUESTION.search(sentence):
                for v in got:
                    asked.setdefault(v, []).append(m.group(0))
            else:
                stated |= got
    return [q for v, qs in asked.items() if v not in stated for q in qs]


def _figures_asked(claim: Claim, texts: Sequence[str]) -> list[str]:
    """Every sentence of *texts* that gives a figure of *claim*, when each of its figures is
    given by one ([] otherwise): all of them questions, the figures were only asked."""
    values = {t for t in claim.content if t.startswith(VALUE_MARK)}
    if not values:
        return []
    out: list[str] = []
    given: set[str] = set()
    for text in texts:
        for m in _SENTENCE_OF.finditer(text):
            got = values & content_tokens(m.group(0))
            if got:
                out.append(m.group(0))
                given |= got
    return out if values <= given else []


#: Where a Chinese or Japanese clause ends: a comma, a semicolon or a colon, but not the
#: separator of a figure's digits (6,820, 12:30).
_CJK_CLAUSE_EDGE = re.compile(r"[、，；;：]|(?<!\d)[,:]|[,:](?!\d)")


def _own_clause(claim: Claim, text: str) -> tuple[Claim, str]:
    """*claim* crediting only its own clause of a Japanese or Chinese sentence, and that
    clause: what an earlier clause says ("健太が…と提案し、ユーザーは…と答えた",
    "阿杰提出…；用户同意…") is credited to whoever that clause names, not to the human.
    An English claim, or one whose own clause names fewer than two things, is left as it
    is (with "" for its clause)."""
    if not text:
        return claim, ""
    folded, stops = _folded_with_stops(text)
    i = bisect.bisect_right(stops, claim.start) - 1
    start = stops[i] if i >= 0 else 0
    stop = bisect.bisect_left(stops, claim.end)
    end = stops[stop] if stop < len(stops) else len(folded)
    if not has_cjk(folded[start:end]):
        return claim, ""
    edges = [m.end() for m in _CJK_CLAUSE_EDGE.finditer(folded, start, claim.start)]
    clause = folded[max([start, *edges]) : end]
    own = claim.content & content_tokens(clause)
    if len(own) < 2 or own == claim.content:
        return claim, ""
    return dataclasses.replace(claim, content=frozenset(own)), clause


def _readings(
    claim: Claim, text: str, figures: Sequence[Quantity], names: tuple[str, ...]
) -> list[tuple[Claim, Sequence[Quantity]]]:
    """What a claim to the person may credit, narrowest first, with the figures of each:
    in Chinese and Japanese its own comma clause ("…8200元，超预算，用户先不考虑" credits
    only 先不考虑), then its clause to the sentence's end (:func:`_own_clause`), then --
    when no one else is credited earlier in the sentence -- all the sentence says
    ("星耀城还没定，用户明确纠正过": the correction is of what came before). The first
    reading the person's words carry is the one judged."""
    out: list[tuple[Claim, Sequence[Quantity]]] = []
    back = _said_before(claim, text) if text else None
    if back:
        return [back]  # "…。田中さんが提案した": what was proposed is the sentence before
    comma = _comma_clause(claim, text) if text else ""
    if not has_cjk(comma):
        if _ADVERBIAL_CREDIT.match(claim.phrase) and (own := claim.content & content_tokens(comma)):
            # "… is now 6 vials, raised from 4 at the user's request": a credit that says
            # how a clause came about credits that clause; the sentence is the other reading
            return [(dataclasses.replace(claim, content=own), _unaside(comma)), (claim, figures)]
        return [(claim, figures)]
    own = claim.content & content_tokens(comma)
    comma_figures = _unaside(comma)
    narrower = own != claim.content or [q.canon for q in comma_figures] != [
        q.canon for q in figures
    ]
    if (own or comma_figures) and narrower:
        # what the clause credits is in its words or its figures ("周敏说2023年1.2亿"); a
        # clause of the verb alone ("用户说，…") opens what follows and is no reading
        out.append((dataclasses.replace(claim, content=own), comma_figures))
    elif not own and not comma_figures and (after := _next_comma_clause(claim, text)):
        # 按用户要求，X 已改为 6Gi，replicaCount 仍为 6: a credit alone in its clause
        # credits the clause after it, where the rest of the sentence only says what
        # stays as it was (仍为, そのまま, still); a second deed after it is credited too
        following, rest = after
        mine = claim.content & content_tokens(_ASIDE.sub(_blank_worded, following))
        if mine and mine != claim.content and _only_unchanged(rest):
            out.append((dataclasses.replace(claim, content=mine), _unaside(following)))
    narrow, clause = _own_clause(claim, text)
    if clause:
        out.append((narrow, _unaside(clause)))
    if not clause or _first_in_sentence(claim, text, names):
        out.append((claim, figures))
    return out


def _speech_tokens() -> frozenset[str]:
    return frozenset().union(*(content_tokens(w) for w in lexicon.words("speech_acts")))


_SPEECH_ACT_TOKENS = _speech_tokens()


#: A quoted table row: three cells or more, split by commas, tabs or bars.
_ROW_CELLS = re.compile(r"[,\t|，]")


def _rows_described(evidence: Evidence, user: Sequence[str]) -> frozenset[str]:
    """The words of the quoted table rows (TOOL or ACT) that name a record the person's
    words name too -- by a value or a word they share ("土曜は9:30に" and the row
    "土,09:30,A教室,トム,キッズ英語"): the other cells describe that record, and a credit
    that describes it by them ("土曜のキッズ英語（A教室、トム）を9:30に") credits the
    person with no more than the record they named."""
    said = frozenset().union(*(content_tokens(u) for u in user)) if user else frozenset()
    out: set[str] = set()
    for cls, quote, _seg in evidence.quotes:
        if cls not in ("TOOL", "ACT") or len(_ROW_CELLS.findall(quote)) < 2:
            continue
        row = content_tokens(quote)
        if row & said:
            out |= row - said
    return frozenset(out)


_REFUSAL_WORDS = " ".join(sorted(lexicon.words("refusal_credit")))
#: Roles a person holds in what they run (the maintainer, 老板, 店長): a credit to one is
#: the person's when their own words carry it.
_SELF_ROLES = lexicon.words("self_roles")
_REFUSAL_TOKENS = content_tokens(_REFUSAL_WORDS)
#: What a call is called when a sentence tells of its refusal ("rejected the call", 実行を
#: 拒否, 拒绝了这次调用).
_CALL_TOKENS = content_tokens(" ".join(lexicon.words("call_nouns")))


#: A person forbidding a thing: don't, do not, never; しないで, やめて, ダメ; 不要, 别, 不许.
_FORBIDS = re.compile(
    r"(?i)\b(?:don[’']?t|do\s+not|never)\b|(?:ないで|ないでね|やめて|止めて|ダメ|だめ|するな"
    # "no good" in the dialects, after what it forbids: したらだちゃかん, やったらあかん
    r"|だちゃかん|だっちゃかん|だちかん|あかん|アカン|いかん|いけん|でけん)"
    r"|(?:不要|别|不许|不准|不用)"
)


_CLAUSE_END = re.compile(r"[,.;!?:、。，；！？：\n]")


#: A word that says no: the person's refusal in a word of their own.
_SAYS_NO = re.compile(
    r"(?i)\b(?:no|not|nope|nah|never|stop|cancel|hold\s+off|leave\s+it)\b|n[’']t\b"
    r"|(?:いや|いいえ|ない|やめ|止め|待って|ストップ|キャンセル|あかん|アカン|いかん|ならん|禁止"
    r"|ダメ|だめ|するな"
    r"|不|别|没|算了|停|先别|禁|勿|不得)"
)


def _credits_refusal(claim: Claim, text: str) -> bool:
    """Whether *claim* credits the person with a refusal: its verb is one ("the user
    refused", "the owner declined"), or a Chinese or Japanese credit, whose verb comes
    later, says one in its clause ("Maya asked to stop using the token" credits a
    request; 受け止めている holds 止め and refuses nothing)."""
    if content_tokens(claim.phrase) & _REFUSAL_TOKENS:
        return True
    if not text or not has_cjk(claim.phrase):
        return False
    return _CJK_REFUSAL.search(_credit_clause(text, claim)) is not None


#: A Chinese or Japanese refusal verb, not inside another word (受け止め, 止める for 止血).
_CJK_REFUSAL = re.compile(
    r"(?<!受け)(?<!受)(?:拒否|却下|断った|断りました|断られ|止めた|止めました|ストップした|中止した"
    r"|見送った|拒绝|拒絕|否决|否決|驳回|駁回|叫停|制止|拦下|攔下)"
)


def _refuses(text: str, what: frozenset[str]) -> bool:
    """Whether the person's words that name *what* (when anything is named) say no: a
    refusal word, a negation or a prohibition anywhere in them ("ちょっと待って！！止めた。
    …本番は来週" stops the upload the turn goes on to name)."""
    folded = fold(text)
    if what and not carries(what, [folded]):
        return True  # what they name is another check's to weigh
    return bool(_SAYS_NO.search(folded) or content_tokens(folded) & _REFUSAL_TOKENS)


def _forbidden(text: str) -> list[str]:
    """The clauses of *text* that forbid something, each from its forbidding word to the
    clause's end ("don't force push"; 不要删; 送らないで: the verb before it too)."""
    out = []
    stops = [m.start() for m in _CLAUSE_END.finditer(text)]  # read once: linear
    for m in _FORBIDS.finditer(text):
        k = bisect.bisect_left(stops, m.start())
        start = m.start()
        if not m.group(0).isascii() and m.group(0)[0] in "なやダだす止あアいで":
            # 消さないで: what is forbidden stands before the Japanese word
            start = stops[k - 1] + 1 if k else 0
        j = bisect.bisect_left(stops, m.end())
        if j < len(stops) and _REASON_AFTER.match(text, stops[j] + 1):
            j += 1  # "don't drop it to R150, that's way too low": the refusal's reason
        out.append(text[start : stops[j] if j < len(stops) else len(text)])
    return out


#: A clause that gives the reason for what the one before it forbids.
_REASON_AFTER = re.compile(
    r"(?i)[ \t]*(?:that'?s|it'?s|too|because|since|as[ \t]+it|which[ \t]+is)\b"
    r"|[ \t]*(?:太|因为|因為|高すぎ|安すぎ|低すぎ)"
)


def _refusal_words(claim: Claim, text: str) -> frozenset[str] | None:
    """The tokens of the words by which a credit tells that the person stopped a call where
    its words are no refusal alone: permission withheld (ユーザーが実行を許可しなかった, 用户没有
    允许, "the user did not approve") or a call cancelled by them (被用户取消了, "was cancelled
    by the user"); None when it tells no such thing. "The user cancelled the subscription"
    is a deed, not this."""
    found = _WITHHELD.search(_credit_sentence(text, claim)[: len(claim.phrase) + 40])
    return content_tokens(found.group(0)) if found else None


#: A credit that the person withheld permission for a call, or cancelled it.
_WITHHELD = re.compile(
    r"(?i)^(?:the\s+)?(?:user|owner|human)\s+(?:did\s*n[o'’]t|never)\s+(?:allow|approve|permit|accept)\b"
    r"|\b(?:was|were|got)\s+cancell?ed\s+by\s+(?:the\s+)?(?:user|owner|human)\b"
    r"|^ユーザー(?:が|は)(?:[^。、]{0,12}を)?(?:許可|承認|了承)(?:しなかった|せず|しません|されなかった)"
    r"|^ユーザー(?:に|によって)(?:キャンセル|取り消)され"
    r"|^(?:被)?用户(?:没有?|未|不)(?:允许|同意|批准|准许)|^被用户(?:取消|撤销|中止)"
)


def _refusal_told(
    claim: Claim, refused: Sequence[str], text: str = "", told: frozenset[str] = frozenset()
) -> bool:
    """Whether *claim* tells of the person refusing a call the journal shows they refused:
    what it names besides the refusal and the call itself is in that call (its command, a
    file, a word of it, the words of its path: 改价格配置的操作 for an edit of
    config/pricing.yaml), so "the user rejected the call", ユーザーが実行を拒否した and 用户拒绝了
    notify.py 的调用 are carried, and "the user refused the deploy" for a refused rm is not.
    A Chinese or Japanese credit is read in its own comma clause first (我提议…，改价格配置的
    操作被用户拒绝了: the refusal is of the clause it stands in)."""
    if not refused:
        return False
    have: set[str] = set()
    for call in refused:
        have |= content_tokens(call) | content_tokens(_PATH_SEPARATORS.sub(" ", call))
    comma = _comma_clause(claim, text) if text and has_cjk(claim.phrase) else ""
    readings = [claim.content & content_tokens(comma)] if comma else []
    for content in [*readings, claim.content]:
        rest = content - _REFUSAL_TOKENS - _CALL_TOKENS - told
        if not rest or rest & have or said_otherwise(rest, have):
            return True
    return False


#: What joins the words of a path or a file name (config/pricing.yaml, youlai_markup).
_PATH_SEPARATORS = re.compile(r"[/\\._\-]+")


def _said_before(claim: Claim, text: str) -> tuple[Claim, Sequence[Quantity]] | None:
    """A credit that only says someone said something ("田中さんが提案した", "Tanaka
    suggested it"): what it credits is the sentence before it, which is then read as the
    claim's content. None when the claim's verb is not one of saying ("the user dropped
    it" credits the dropping), when its clause says more than that (one word of
    circumstance, "in the review", is not more) or when nothing comes before it."""
    said = (claim.content | content_tokens(claim.phrase)) & _SPEECH_ACT_TOKENS
    if not said or len(claim.content - _SPEECH_ACT_TOKENS) > 1:
        return None
    folded, stops = _folded_with_stops(text)
    i = bisect.bisect_right(stops, claim.start) - 1
    if i < 0:
        return None
    before = folded[stops[i - 1] if i >= 1 else 0 : stops[i]]
    tokens = content_tokens(before)
    if not tokens:
        return None
    return dataclasses.replace(claim, content=tokens), scan(before)


#: A credit written as an adverbial, not a subject and its verb: "at the user's request",
#: "as requested", "per the owner", "on her instructions".
_ADVERBIAL_CREDIT = re.compile(r"(?i)(?:at|as|per|on|upon|by|according)\b")


def _comma_clause(claim: Claim, text: str) -> str:
    """The comma clause of a Chinese or Japanese sentence a claim stands in ("" when the
    claim has no words of its own between the commas)."""
    folded, stops = _folded_with_stops(text)
    i = bisect.bisect_right(stops, claim.start) - 1
    start = max(stops[i] if i >= 0 else 0, claim.start - CLAIM_REACH)
    stop = bisect.bisect_left(stops, claim.end)
    end = min(stops[stop] if stop < len(stops) else len(folded), claim.end + CLAIM_REACH)
    edges = [m.end() for m in _CJK_CLAUSE_EDGE.finditer(folded, start, claim.start)]
    after = _CJK_CLAUSE_EDGE.search(folded, claim.end, end)
    return folded[max([start, *edges]) : after.start() if after else end]


def _next_comma_clause(claim: Claim, text: str) -> tuple[str, str] | None:
    """The comma clause right after the one a claim stands alone in, and the rest of the
    sentence after it (None at the sentence's end)."""
    folded, stops = _folded_with_stops(text)
    stop = bisect.bisect_left(stops, claim.end)
    end = stops[stop] if stop < len(stops) else len(folded)
    edge = _CJK_CLAUSE_EDGE.search(folded, claim.end, end)
    if edge is None:
        return None
    after = _CJK_CLAUSE_EDGE.search(folded, edge.end(), end)
    cut = after.start() if after else end
    return folded[edge.end() : cut], folded[cut:end]


#: What says a thing stays as it was: 仍为 6, そのまま, still 6.
_UNCHANGED = re.compile(
    r"仍|依然|依旧|照旧|不变|没变|还是|そのまま|変わらず|のまま|(?i:\bstill\b|\bunchanged\b)"
)


def _only_unchanged(rest: str) -> bool:
    """Whether every clause of *rest* says something stays as it was (or there is none)."""
    parts = [p for p in _CJK_CLAUSE_EDGE.split(rest) if p.strip(" 。.")]
    return all(_UNCHANGED.search(p) for p in parts)


def _first_in_sentence(claim: Claim, text: str, names: tuple[str, ...]) -> bool:
    """Whether no one else is credited earlier in the claim's sentence."""
    _folded, stops = _folded_with_stops(text)
    i = bisect.bisect_right(stops, claim.start) - 1
    start = stops[i] if i >= 0 else 0
    return not any(start <= c.start < claim.start and c.who != HUMAN for c in claims(text, names))


def _speaker_is(name: str, speaker: str, segment: str = "") -> bool:
    """Whether a line's *speaker* is the person *name*: the same name, or in Chinese and
    Japanese the name with a role or a firm before it (销售李经理 speaks as 李经理), or a
    first name the minutes label a line with where the person is named in full ("Ann:"
    for Ann Hughes; "Dev:" for Okafor where *segment* names Dev Okafor)."""
    if names_in(name, speaker):
        return True
    key = speaker.split("(")[0].split("（")[0].strip()
    if len(key) >= 2 and has_cjk(key) and names_in(key, name):
        return True
    if not key.isalpha() or not key[:1].isupper() or has_cjk(name):
        return False
    words = name.split()
    if len(words) >= 2 and words[0] == key:
        return True
    return len(words) == 1 and any(
        m.group(1) == key and m.group(2) == name for m in _FULL_NAME.finditer(segment)
    )


#: A name written in full: a first name and a family name, both capitalised.
_FULL_NAME = re.compile(r"\b([A-Z][a-z]+)[ \t]+([A-Z][a-z'’-]+)\b")


def _speaks_in(name: str, segment: str) -> bool:
    """Whether *name* speaks a labelled line of *segment* (under a shorter form of the name:
    李经理 for 销售李经理)."""
    return any(_speaker_is(name, v.speaker, segment) for v in _voices.labelled_lines(segment))


#: Groups a meeting's lines speak for together (what "the committee" agreed is in them).
_MEETING_GROUPS = _GROUPS | frozenset(
    {
        "committee",
        "board",
        "council",
        "meeting",
        "group",
        "staff",
        "family",
        "minutes",
        "panel",
        "members",
        "everyone",
        "all",
        "家族",
        "委員会",
        "委员会",
        "理事会",
        "会議",
        "会议",
        "全員",
        "大家",
        "みんな",
    }
)
_LATIN_OR_CJK_NAME = re.compile(r"[A-Z][a-z]|[\u4e00-\u9fff\u30a0-\u30ff]")


def _said_by(name: str, segment: str) -> str:
    """What *segment* says of the person *name*: in a conversation or minutes (lines under
    speakers' labels), their own lines and whatever is not under another speaker's label
    (a line naming them, a heading); elsewhere the whole segment. "房东王姐：…" vouches
    王姐's words, never 中介小刘's line beside it."""
    if _only_addressed(name, segment):
        return ""  # "Hi Dana," heads a mail to Dana: it says nothing of what Dana said
    found = _voices.voices(segment)
    spoken = [v for v in found if v.speaker]
    if not spoken:
        spoken = list(_voices.labelled_lines(segment))  # "刘洋：…\n王芳：…" with no paste marked
    others = [v for v in spoken if not _speaker_is(name, v.speaker, segment)]
    if not others:
        if not spoken:
            return segment  # no one speaks here but the text itself
        # only *name* speaks: their lines (with the header lines of the mail they sent:
        # 日付, 件名), and the person's own lines that name them ("Marco says …"); the
        # person's other words beside a paste are not Marco's
        spoken = sorted([*spoken, *_headed(found, spoken, segment)], key=lambda v: v.start)
        theirs = [segment[v.start : v.end] for v in spoken]
        rest, pos = [], 0
        for v in spoken:
            rest.append(segment[pos : v.start])
            pos = max(pos, v.end)
        rest.append(segment[pos:])
        naming = [ln for part in rest for ln in part.split("\n") if names_in(name, ln)]
        return "\n".join(t for t in [*theirs, *naming] if t.strip())
    signers = {v.speaker for v in others if _signs(name, segment[v.start : v.end])}
    if signers:
        # "Regards, Teresa Ng" closes the mail billing@… sent: its lines are hers
        others = [v for v in others if v.speaker not in signers]
        if not others:
            return segment
    if len(others) == len(spoken):
        if name.lower() in _MEETING_GROUPS or not _LATIN_OR_CJK_NAME.search(name):
            return segment  # "the committee", 家族: the whole meeting speaks for the group
        # *name* speaks no line: only what is not another speaker's, or the sentences of
        # theirs that name them, is theirs ("notes typed by Priya Nair" over Desmond's
        # lines gives Priya none of them; Brenda's "We reviewed it with Dr. Okafor. We can
        # offer a credit." gives Dr. Okafor the review, not the offer)
        naming = [
            sentence
            for v in others
            for sentence in _SENTENCE_OF.findall(segment[v.start : v.end])
            if names_in(name, sentence)
        ]
        if not naming and all(names_in(name, segment[v.start : v.end]) for v in others):
            return segment
    else:
        naming = []
    parts, pos = [], 0
    for v in sorted(others, key=lambda v: v.start):
        parts.append(segment[pos : v.start])
        pos = max(pos, v.end)
    parts.append(segment[pos:])
    return "\n".join(p for p in [*parts, *naming] if p.strip())


def _signs(name: str, text: str) -> bool:
    """Whether *text* (a pasted voice) signs off with *name*: a short line that names them
    after a closing word, or their name alone ("Regards, Teresa Ng", "— Priya", "山下")."""
    for line in text.split("\n")[-4:]:
        line = line.strip()
        if not line or len(line) > 60 or not names_in(name, line):
            continue
        if _voices.signs_off(line) or _voices.name_line(line):
            return True
    return False


def _naming_paragraphs(name: str, text: str) -> str:
    """The paragraphs of the person's own *text* from the first that names *name* to the end
    of what they pasted ("山下様からのメールを貼ります", the mail, "--------"): what they
    report of them; their own view after the paste is not the other's."""
    out, on = [], False
    for part in _BLANK_LINE.split(text):
        on = on or names_in(name, part)
        if on:
            out.append(part)
        if _voices.is_delimiter(part.rstrip().rsplit("\n", 1)[-1]):
            on = False  # "--------" closes what they sent: the person speaks again after it
    return "\n\n".join(out)


_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def _headed(
    found: Sequence[_voices.Voice], spoken: Sequence[_voices.Voice], segment: str
) -> list[_voices.Voice]:
    """The pasted lines of no speaker that run straight into a speaker's lines (a mail's
    件名 and 日付 above its 差出人): the head of what that speaker sent."""
    starts = {v.start for v in spoken}
    out: list[_voices.Voice] = []
    for v in sorted((v for v in found if not v.speaker), key=lambda v: -v.start):
        nxt = v.end
        while nxt < len(segment) and segment[nxt] in "\r\n":
            nxt += 1
        if nxt in starts:
            out.append(v)
            starts.add(v.start)
    return out


#: A line that addresses someone: a greeting or a recipient line of a mail or a message.
_ADDRESS_LINE = re.compile(
    r"(?im)^[ \t>*-]{0,4}(?:(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|to|attn)"
    r"\b[^\n]{0,60}|[^\n]{0,20}(?:様|さま|殿|さん)[、,。 \t]{0,3}(?:お疲れ|こんにちは|いつも|$)[^\n]{0,40}"
    r"|[^\n]{0,12}(?:你好|您好)[^\n]{0,40})$"
)


def _only_addressed(name: str, segment: str) -> bool:
    """Whether *segment* names *name* only where it addresses them ("Hi Dana,", "To: …",
    田中様、, 王总您好): a mail to someone is not their words."""
    lines = [m.group(0) for m in _ADDRESS_LINE.finditer(segment)]
    if not lines or not any(names_in(name, line) for line in lines):
        return False
    rest = _ADDRESS_LINE.sub("", segment)
    return not names_in(name, rest)


#: The person's words that keep a value as it stands: 不用改, 别动, そのまま, 据え置き,
#: "as it is", "leave … alone", "unchanged".
_AS_IS = re.compile(
    r"(?i:\bas\s+(?:it|they)\s+(?:is|are|stands?)\b|\bleave\s+(?:it|them|the\s+\w+(?:\s+\w+)?)"
    r"\s+(?:alone|be|as)\b|\bunchanged\b|\bkeep\s+(?:it|them)\s+as\b|\bdon'?t\s+(?:change|touch)\b)"
    r"|不用改|不改|别改|別改|别动|別動|不动|保持不变|保持原|留着原|维持原|維持原|原样|原樣"
    r"|そのまま|据え置|変えない|変更しない|触らない|いじらない"
)


def _kept_as_is(
    claim: Claim, figures: Sequence[Quantity], segment: str, evidence: Evidence
) -> bool:
    """A credit that the person kept a value as it stands ("用户决定报价不改，保留原价3000"
    for 报价不用改，留着原价; 集合時間は12:00のまま for 集合時間はそのままで): their words carry
    it and say to keep it, and the value it names is the one a tool or a call in the
    evidence gives -- what stands is what the evidence shows."""
    if not figures or not _AS_IS.search(segment):
        return False
    kept = [
        m.group(0)
        for m in _SENTENCE_OF.finditer(segment)
        if _AS_IS.search(m.group(0)) and not scan(m.group(0))
    ]
    # the sentence that keeps the value carries the credit and gives no figure of its own
    # ("leave the rest as it is" beside "set the price to 50" credits no other price)
    if not kept or not carries(claim.content, kept):
        return False
    own = Vouchers([segment])
    shown, _self = evidence._vouchers()
    return all(own.vouches(q) or shown.vouches(q) for q in figures)


def _pointed_at(
    claim: Claim, figures: Sequence[Quantity], segment: str, share: int, evidence: Evidence
) -> bool:
    """A credit whose person pointed at the thing ("mark that batch as QUARANTINE", 那些是
    我的测试存档, その便): their words carry it, its figures are theirs but for the codes and
    names of files that say which thing, and those the quoted evidence around it gives."""
    if not figures or not _POINTING.search(segment) or not carries(claim.content, [segment], share):
        return False
    own = Vouchers([segment])
    shown, _self = evidence._vouchers()
    return all(own.vouches(q) or (q.kind == IDENTIFIER and shown.vouches(q)) for q in figures)


#: A word that points at a thing the session shows: that, this, those, 那些, 这个, その.
_POINTING = re.compile(
    r"(?i:\b(?:that|this|those|these)\b)|那些|这些|這些|那个|这个|這個|那個|那批|这批|"
    r"その|この|あの|それ|これ"
)


#: A sentence of the person's turn: to its stop or its line's end.
_SENTENCE_OF = re.compile(r"[^\n.!?。！？；;]+[.!?。！？；;]?")


def _denied_beside(clause: str, mine: Sequence[str]) -> bool:
    """Whether a clause of the person's that shares words with a credit told in other
    words denies something the credit does not ("not to all patients" for "run it for all
    patients"): such a credit is carried by half its words, or not at all."""
    if negations_in(clause):
        return False
    have = content_tokens(clause)
    return any(
        negations_in(sentence) and content_tokens(sentence) & have
        for u in mine
        for sentence in slot_clauses(u)
    )


def _one_segment(
    claim: Claim,
    figures: Sequence[Quantity],
    segment: str,
    share: int = 2,
    glossed: Sequence[tuple[str, Quantity]] = (),
    session: Evidence | None = None,
) -> bool:
    """Whether *segment* alone carries *claim* and vouches its figures, read the way the
    *session* writes its days and its money (its "05/02/2026" is the fifth of February)."""
    if not carries(claim.content, [segment], share):
        return False
    if not figures:
        return True
    own = Vouchers([segment], *((session.date_order, session.currency) if session else ()))
    return all(own.vouches(q) or _day_said(q, segment, glossed) for q in figures)


#: A day said relative to today with its date beside it: 明天（12月4号）, tomorrow (Dec
#: 4), 明日(12/4). The evidence that writes one tells which date the word means.
_DAYS_FROM_TODAY = (
    r"(明天|明日|今天|今日|昨天|昨日|后天|後天|明後日|あした|あす|きょう"
    r"|tomorrow|today|tonight|yesterday)"
)
_DAY_GLOSS = re.compile(
    rf"(?i)(?<![A-Za-z]){_DAYS_FROM_TODAY}[ \t]*[(（]([^()（）\n]{{1,24}})[)）]"
)


_RELATIVE_DAY = re.compile(rf"(?i)(?<![A-Za-z]){_DAYS_FROM_TODAY}(?![A-Za-z])")


def day_glosses(texts: Iterable[str]) -> list[tuple[str, Quantity]]:
    """Each relative day the texts gloss with a date, as (the word folded, the date)."""
    out: list[tuple[str, Quantity]] = []
    for text in texts:
        if "(" not in text and "（" not in text:
            continue
        for m in _DAY_GLOSS.finditer(text):
            out.extend((m.group(1).lower(), q) for q in scan(m.group(2)) if q.kind == DATE)
    return out


def _glossed_for(figures: Sequence[Quantity], evidence: Evidence) -> list[tuple[str, Quantity]]:
    """The evidence's glossed relative days, read only when a credit's figures hold a date."""
    if not any(q.kind == DATE for q in figures):
        return []
    return day_glosses(t for c, t in evidence.segments if c != SELF_CLASS)


def _day_said(q: Quantity, segment: str, glossed: Sequence[tuple[str, Quantity]]) -> bool:
    """Whether *segment* says the date *q* as a day relative to today whose date the
    evidence glosses elsewhere: 刘国强's 明天早上六点半 for "12月4日早上六点半" where the
    person wrote 明天（12月4号）."""
    if q.kind != DATE or not glossed:
        return False
    said = {m.group(1).lower() for m in _RELATIVE_DAY.finditer(segment)}
    return any(word in said and covers(q, d) for word, d in glossed)


_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[。！？;；\n]")
_CLAIM_CLAUSE_END = re.compile(
    r"[.!?](?=\s|$)|[。！？;；\n]|,\s(?:and|but|since|because|so|as|while|though|although)\b"
)


@functools.lru_cache(maxsize=32)
def _folded_with_stops(text: str) -> tuple[str, tuple[int, ...]]:
    """*text* folded, and where each of its sentences ends: worked out once per text, not
    once per claim in it (a page of claims in one unbroken sentence made that quadratic)."""
    folded = unwrap(fold_lines(text))  # the offsets of claims()
    return folded, tuple(m.end() for m in _SENTENCE_END.finditer(folded))


def _credit_sentence(text: str, claim: Claim) -> str:
    """The words of *claim* (in the folded form claims() reads) to its sentence's end, at
    most CLAIM_REACH characters past the claim (a line of thousands of claims and no stop
    is read once per claim, not whole)."""
    folded, stops = _folded_with_stops(text)
    i = bisect.bisect_right(stops, claim.start)
    end = stops[i] if i < len(stops) else len(folded)
    return folded[claim.start : min(end, claim.end + CLAIM_REACH)]


#: Where the clause a credit opens ends (Japanese and Chinese also at a comma:
#: ユーザーが消してよいと言ったので、…を削除した credits only the first).
_CREDIT_CLAUSE_END = re.compile(
    _CLAIM_CLAUSE_END.pattern + r"|[、，]|,(?=[^\x00-\x7f])|ので|から、"
)


def _credit_clause(text: str, claim: Claim) -> str:
    """The words of *claim* to the end of the clause it opens."""
    sentence = _credit_sentence(text, claim)
    stop = _CREDIT_CLAUSE_END.search(sentence, len(claim.phrase))
    return sentence[: stop.start()] if stop else sentence


def _claim_figures(text: str, claim: Claim) -> tuple[Quantity, ...]:
    """The figures of the clause a claim credits (in Japanese and Chinese, its sentence),
    looked for at most CLAIM_REACH characters either side of the claim."""
    folded, stops = _folded_with_stops(text)
    i = bisect.bisect_right(stops, claim.start) - 1
    start = max(stops[i] if i >= 0 else 0, claim.start - CLAIM_REACH)
    limit = min(len(folded), claim.end + CLAIM_REACH)
    stop = _CLAIM_CLAUSE_END.search(folded, claim.end, limit)
    end = stop.start() if stop else limit
    if subordinate_opening(folded[start : claim.start]):
        # "After the user rotated the key, the job got 401": the credit's clause ends at
        # the comma of the clause it opens
        comma = folded.find(",", claim.end, end)
        end = comma if comma >= 0 else end
    clause = folded[start:end]
    if not has_cjk(clause) or (claim.wider and opens_clause(folded[start : claim.start])):
        clause = folded[claim.start : end]  # the clause the credit opens (its narrow reading)
    return _unaside(clause)


def _unaside(clause: str) -> tuple[Quantity, ...]:
    """The figures a credit's clause gives outside its asides: a parenthesis that says
    something in words ("(they were 09:30 to 13:00)", "(68.50 in the ledger)", （旧价180）)
    is a clause of its own, and its figures are vouched as any figure is, not credited to
    the person."""
    bare = _ASIDE.sub(_blank_worded, clause)
    # numerals that open a name (五十嵐さんは…) are the name's, not a figure credited
    return tuple(q for q in scan(bare) if not _numeral_word(bare, q))


def _blank_worded(m: re.Match[str]) -> str:
    """An aside blanked when it says something in words ("(they were 09:30 to 13:00)",
    "(starting 2027-02-22)"); one of figures alone ("（1,386,000円）", "(£45)") is what the
    word before it names, and stays in the credit."""
    inner = m.group(0)[1:-1]
    bare = list(scanned_text(inner))
    for q in scan(inner):
        bare[q.start : q.end] = " " * (q.end - q.start)
    return " " * len(m.group(0)) if _WORD_IN_ASIDE.search("".join(bare)) else m.group(0)


#: A word: two Latin letters or one Chinese or Japanese character.
_WORD_IN_ASIDE = re.compile(r"[A-Za-z]{2}|[\u3040-\u30ff\u4e00-\u9fff]")


#: A parenthesis: an aside the credit does not reach ("(they were 09:30 to 13:00)").
_ASIDE = re.compile(r"\([^()\n]{1,120}\)|（[^（）\n]{1,80}）")


def _speaks_of_someone(text: str) -> bool:
    """Whether a text reports what a person said, decided or wants (a letter, a mail, a
    chat log): only then can "he", "she" or "they" refer to someone in it."""
    if any(v.speaker for v in _voices.voices(text)):
        return True  # minutes, a chat log, a mail: lines under their speakers' names
    return any(
        c.who in (THIRD, PRONOUN) or (c.who == HUMAN and c.phrase.lower().startswith(("i ", "we ")))
        for c in claims(text)
    )


_ALSO_WORDS = lexicon.words("names_also_words")
#: What ends a sentence or opens a part of one: after it, a capital says nothing.
_OPENERS = frozenset(".!?;:\n。！？；：([\"“'‘")


def _opens(before: str) -> bool:
    """Whether text after *before* opens a sentence, a line, a field or a bullet."""
    t = before.rstrip(" \t\n*_#>`")
    if not t or t[-1] in _OPENERS:
        return True
    return t[-1] in "-–—•" and (len(t) == 1 or t[-2].isspace())


#: A word in lower case as prose or a path writes it, not an address's or a handle's name
#: (marco@hopsource.example, @priya are a person's).
_LOWER_WORD = re.compile(r"(?<![A-Za-z@.])[a-z][a-z'’-]*[a-z](?![A-Za-z@]|\.[A-Za-z0-9.]*@)")


def _common_word_subject(
    claim: Claim, text: str, fields: Mapping[str, object], evidence: Evidence
) -> bool:
    """A capitalised word that opens a sentence and is written in lower case elsewhere in
    the candidate or its evidence ("Volume decides whether …" beside "SMS volume";
    "Internal notes:" beside "internal contract notes") is a common word, not a person.
    A given name that is also a word (Will, Grace) and a group that decides (Finance,
    Legal) stay people: the list ``names_also_words``."""
    name = claim.name
    if " " in name or not name[:1].isupper() or not name[1:].islower():
        return False
    low = name.lower()
    if low in GIVEN_NAMES or low in _ALSO_WORDS:
        return False
    if not _opens(text[: claim.start]):
        return False
    for value in [*fields.values(), *(t for _c, t in evidence.segments)]:
        if isinstance(value, str) and low in value and low in _LOWER_WORD.findall(value):
            return True
    return False


def _weekday_violations(
    name: str, value: str, vouch: Vouchers, seen: set[tuple[str, str]]
) -> list[Violation]:
    """A weekday written beside a date the evidence puts on another day (12月12日（日）
    where the evidence gives 令和8年12月12日（土）), once each."""
    out = []
    for q in wrong_weekdays(value, vouch):
        if (NUMBER, f"{q.canon}@") not in seen:
            seen.add((NUMBER, f"{q.canon}@"))
            out.append(Violation(NUMBER, name, q.text.strip("()（）"), R.UNVOUCHED))
    return out


def check_surface(
    fields: Mapping[str, object],
    evidence: Evidence,
    *,
    human_names: Sequence[str] = (),
    existing_slugs: Container[str] | None = None,
    given: Sequence[str] = (),
) -> list[Violation]:
    """Every floor on text a model (or a person fixing a draft) wrote, field by field.

    Each problem is reported once (the first field it appears in). ``existing_slugs`` None
    skips the link check. ``given`` is text already in the store that the new text may
    repeat (an extension rewrites its target's body; tidy rewrites a memory's own line):
    its figures vouch for themselves, and a claim it already makes stands."""
    out: list[Violation] = list(shape_violations(fields))
    vouch, self_only = evidence._vouchers()
    given_vouch = Vouchers(given) if given else None
    given_claims = (
        {c.phrase.lower() for g in given for c in claims(g, human_names)} if given else set()
    )
    seen: set[tuple[str, str]] = set()
    named = NameVouchers(evidence.name_texts() + [g for g in given if g], human_names)
    curating = evidence.for_curation() if evidence.context else evidence
    rows = evidence.rows()
    quoted = [t for c, t in evidence.segments if c != SELF_CLASS]
    swaps = (SwapFinder(quoted), WordSwapFinder(quoted), KinNameFinder(quoted))
    for name, value in fields.items():
        if not isinstance(value, str) or not value:
            continue
        for d in disguises(value):
            if (DISGUISE, d) not in seen:
                seen.add((DISGUISE, d))
                out.append(Violation(DISGUISE, name, d, R.INVISIBLE))
        found = with_units_first(value)
        for q in found:
            if (
                (NUMBER, q.canon) in seen
                or _one_per(q, found)
                or vouch.vouches(q)
                or (given_vouch and given_vouch.vouches(q))
                or ((_is_code(q) or name in _CURATION_FIELDS) and evidence.context_vouches(q))
                or (name in _CURATION_FIELDS and _small_count(q))
                or _numeral_in_a_name(value, q, evidence)
            ):
                continue
            seen.add((NUMBER, q.canon))
            rule = R.SELF_ONLY if self_only.vouches(q) else R.UNVOUCHED
            out.append(Violation(NUMBER, name, q.canon, rule))
        out.extend(_weekday_violations(name, value, vouch, seen))
        if name not in _CURATION_FIELDS:
            # the curation sentences say why a memory is kept, and may name its project
            out.extend(_content_violations(name, value, rows, named, swaps, seen))
            out.extend(_reversed(name, value, quoted, seen))
        unframed = _unframed(name, value)
        for claim in claims(unframed, human_names):
            if (ATTRIBUTION, claim.phrase) in seen:
                continue
            if claim.who == THIRD and _common_word_subject(claim, unframed, fields, evidence):
                continue  # "Volume decides whether …": a common word opening the sentence
            if claim.phrase.lower() in given_claims and carries(claim.content, given):
                continue  # the store already says it, in these words
            judged = curating if name in _CURATION_FIELDS else evidence
            if name in _CURATION_FIELDS and _says_why_kept(claim, unframed, fields, judged):
                continue
            v = _claim_ok(claim, judged, name, value, human_names)
            if v is not None and name in _CURATION_FIELDS:
                memory = [str(fields.get(f) or "") for f in _MEMORY_FIELDS] + list(given)
                v = _curation_credit(claim, judged, _unframed(name, value), human_names, memory, v)
            if v is not None:
                seen.add((ATTRIBUTION, claim.phrase))
                out.append(v)
        out.extend(_link_violations(name, value, existing_slugs, seen))
    return out


def _says_why_kept(
    claim: Claim, unframed: str, fields: Mapping[str, object], judged: Evidence
) -> bool:
    """Whether a credit in a curation sentence only says why the memory is kept: what the
    store keeps ("… and how the user runs the business", no act told), or, where the
    person's words are evidence, the kind of memory and its maker ("a product rule the
    human set") or the memory itself restated."""
    if claim.who == HUMAN and names_a_topic(unframed, claim):
        return True
    return bool(
        claim.who == HUMAN
        and judged.user_texts()
        and (_kind_credit(unframed, claim) or _restates_memory(claim, unframed, fields, judged))
    )


#: Where a curation sentence's clause ends.
_KIND_CLAUSE_END = re.compile(r"[;,.!?；，。！？、:：\n]|\s(?:and|but|so|because|since)\s|$")


def _kind_credit(text: str, claim: Claim) -> bool:
    """Whether a curation sentence's credit to the person names only the kind of memory
    they made: "a product rule the human set", "a preference the user stated" (the kind
    right before the credit, nothing after it in the clause), 用户定的规则, ユーザーが決めた
    ルール (the kind right after it). The memory's own sentences say what the rule is; the
    curation sentence says whose it is, and the person's quote carries that."""
    kinds = lexicon.words("curation_kinds")
    folded = fold(text)
    after = folded[claim.end :]
    end = _KIND_CLAUSE_END.search(after)
    rest = after[: end.start() if end else len(after)].strip()
    if has_cjk(claim.phrase):
        rest = rest.lstrip("的のが了下た")
        return bool(rest) and len(rest) <= 8 and any(rest.endswith(k) for k in kinds)
    if rest:
        return False
    words = folded[: claim.start].split()
    return bool(words) and words[-1].lower().strip(",;") in kinds


#: The fields that say what a memory is; the curation sentences say why it is kept.
_MEMORY_FIELDS = ("title", "description", "body")


def _restates_memory(
    claim: Claim, text: str, fields: Mapping[str, object], evidence: Evidence
) -> bool:
    """Whether a curation sentence's credit to the person ("the version the human chose for
    this release") restates the memory itself: what it credits is in the memory's own
    fields, which the floors judged against the evidence, and a quote of the person's
    shares a word or a figure with them (the version, the host, the rule) -- so it is the
    person's turn the memory came from, not a "thanks" beside a tool's output."""
    own = "\n".join(str(fields.get(f) or "") for f in _MEMORY_FIELDS)
    if not own.strip() or not carries(claim.content, [own]):
        return False
    if not _anchors(claim.content, text) <= content_tokens(own):
        return False  # "the level of 30 the user asked for" beside a memory without 30
    mine = content_tokens(own) - _WEAK_TOKENS
    return any(content_tokens(u) & mine for u in evidence.user_texts())


def _curation_credit(
    claim: Claim,
    evidence: Evidence,
    text: str,
    human_names: Sequence[str],
    memory: Sequence[str],
    refused: Violation,
) -> Violation | None:
    """A curation sentence's credit judged by what can be swapped in it. Why a memory
    belongs, what to keep and what may fade say whose the memory is in the writer's own
    words ("stock figures the user corrected by hand would otherwise be overwritten",
    用户定下的排班规则); the memory's fields carry the facts and are judged word for word.
    Here a credit to the person stands when the person has a quote in the evidence, what it
    credits (to them, or to a role they hold: "the maintainer settled") names no value, code
    or name (Ito, 老陈, 12:30, sgp1) the person's own words do
    not say, it is about what they spoke of (a word of it in their words, or in the memory's
    own text that shares a word with theirs), and it does not say the opposite of them; a
    credit to someone else stands when the evidence names them and gives what it names of
    theirs. Anything else keeps the refusal *refused*."""
    names = tuple(n for n in human_names if isinstance(n, str))
    anchors = _anchors(claim.content, text)
    if claim.who == THIRD and fold(claim.name).lower() not in _SELF_ROLES:
        theirs = [
            seg
            for c, _q, seg in evidence.quotes
            if c != "SELF" and (names_in(claim.name, seg) or _speaks_in(claim.name, seg))
        ]
        have = set().union(*(content_tokens(t) for t in theirs)) if theirs else set()
        return None if theirs and anchors <= have else refused
    raw = evidence.user_texts()
    if not raw:
        return refused
    have = set().union(*(content_tokens(own_words(u, names)) for u in raw))
    if not anchors <= have:
        return refused
    mine = set().union(*(content_tokens(m) for m in memory if m)) - _WEAK_TOKENS
    topic = claim.content - _WEAK_TOKENS - _SPEECH_ACT_TOKENS
    if not (topic & have or (topic & mine and mine & have)):
        return refused  # "the user asked to keep the archive" beside "the router rotates"
    if says_opposite(_credit_sentence(text, claim), raw):
        return refused
    return refused if restates_negated(_credit_clause(text, claim), raw) else None


#: A capitalised word inside a sentence: a name (Ito, Okafor, Mailchimp).
_CAPITALISED = re.compile(r"(?<![\w.])[A-Z][\w'’-]*[a-z][\w'’-]*")


def _anchors(content: frozenset[str], words: str) -> frozenset[str]:
    """What a credit names that no paraphrase can say otherwise: its values, its coded
    terms (sgp1, v2), the capitalised names in its words and the familiar names of
    Chinese (老陈, 小王)."""
    out = {
        t
        for t in content
        if t.startswith(VALUE_MARK) or any(ch.isdigit() for ch in t) or FAMILIAR_NAME.fullmatch(t)
    }
    for m in _CAPITALISED.finditer(words):
        if not _opens(words[max(0, m.start() - 64) : m.start()]):
            out |= content_tokens(m.group(0)) & content
    for m in _HONORIFIC_NAME.finditer(words):
        out |= content_tokens(m.group(1)) & content
    return frozenset(out)


#: A Japanese name before its honorific (田中さん, 山口コーチ, 佐藤先生).
_HONORIFIC_NAME = re.compile(
    r"([\u4e00-\u9fff々]{1,4}|[\u30a1-\u30fa\u30fc]{2,8})(?:さん|様|さま|氏|先生|くん|君|ちゃん|コーチ)"
)


#: Tokens too common to tie a person's turn to a memory.
_WEAK_TOKENS = frozenset({"use", "the", "not", "now", "new", "all"})


def _content_violations(
    name: str,
    value: str,
    rows: Rows,
    named: NameVouchers,
    swaps: tuple[SwapFinder, WordSwapFinder, KinNameFinder],
    seen: set[tuple[str, str]],
) -> list[Violation]:
    """A figure taken from a table row the sentence does not name, and a name no evidence
    gives, each once."""
    out = []
    for q in rows.moved(value):
        if (NUMBER, q.canon) not in seen:
            seen.add((NUMBER, q.canon))
            out.append(Violation(NUMBER, name, q.canon, R.OTHER_ROW))
    swapped = [w for finder in swaps for w in finder.swapped(value)]
    for entity in [*named.unvouched(value), *swapped]:
        if (FloorKind.NAME, entity.lower()) not in seen:
            seen.add((FloorKind.NAME, entity.lower()))
            out.append(Violation(FloorKind.NAME, name, entity, R.UNVOUCHED))
    return out


def _is_code(q: Quantity) -> bool:
    """A code, a file's path or a host's name: each names a thing as a name does, and the
    session may give it where the quotes do not (a URL or an address stays the quotes').
    A month with no day and no year (11月) is the period a memory is about, which the session
    names (帮我整理一下11月的开支, a call reading 2026-11.csv) where a table's rows do not."""
    if q.kind == DATE:
        return bool(_MONTH_ONLY.fullmatch(q.canon))
    return q.kind == IDENTIFIER and q.unit in ("code", "path", "domain")


_MONTH_ONLY = re.compile(r"\d{1,2}月")


def _unvouched_codes(fields: Mapping[str, object], evidence: Evidence) -> list[Quantity]:
    """The codes (PCS-44817, apc1500) the memory writes that its quotes' segments do not
    give: a code names a thing as a name does, and the session may give it."""
    vouch, _self = evidence._vouchers()
    out: dict[str, Quantity] = {}
    for value in fields.values():
        if isinstance(value, str) and value:
            for q in scan(value):
                if _is_code(q) and q.canon not in out and not vouch.vouches(q):
                    out[q.canon] = q
    return list(out.values())


def _numeral_words(fields: Mapping[str, object], evidence: Evidence) -> list[str]:
    """The words opening with numerals (五十嵐, 九十九里) the memory writes and its quotes'
    segments do not: a name, that the session may give as it gives any name."""
    out: list[str] = []
    for value in fields.values():
        if isinstance(value, str) and value and has_cjk(value):
            for q in scan(value):
                word = _numeral_word(value, q)
                if word and word not in out and not _numeral_in_a_name(value, q, evidence):
                    out.append(word)
    return out


def _one_per(q: Quantity, found: Sequence[Quantity]) -> bool:
    """One of a thing written as the denominator of the price after it (1泊9500円, 1人3000円):
    the rate's "per", which the price's own vouching judges, not a count."""
    return (
        q.kind == NUMBER
        and q.value == 1
        and q.uclass == COUNTER
        and any(o.per and 0 <= o.start - q.end <= 6 and per_word(q.unit) in o.per for o in found)
    )


def _small_count(q: Quantity) -> bool:
    """A count of one or two, or such an ordinal, with no money, measure or rate: a
    curation sentence says which of a memory's parts it keeps ("两个方向的单价", "2週目以降",
    "both prices") without claiming a figure of the evidence. A larger count ("3台のディスク")
    counts things of the world, and needs the evidence."""
    return (
        q.kind == NUMBER
        and q.value is not None
        and 0 < q.value <= 2
        and q.value == q.value.to_integral_value()
        and q.uclass in ("", COUNTER, SOFT)
        and not q.per
    )


def _unvouched_curation_figures(fields: Mapping[str, object], evidence: Evidence) -> list[Quantity]:
    """The figures of the curation sentences that the quotes' segments do not give: a
    curation sentence restates what the session is about ("the store of the TechKaigi
    Osaka 2026 talk"), and the session may give them. The memory's own figures need the
    quotes."""
    vouch, _self = evidence._vouchers()
    out: dict[str, Quantity] = {}
    for name, value in fields.items():
        if name in _CURATION_FIELDS and isinstance(value, str) and value:
            for q in scan(value):
                if q.canon not in out and not vouch.vouches(q):
                    out[q.canon] = q
    return list(out.values())


def _unframed(field_name: str, value: str) -> str:
    """A curation sentence without the words that name its store ("this store keeps …",
    这个库记录…, このストアは…): the claims are read in what follows them."""
    if field_name not in _CURATION_FIELDS:
        return value
    head = fold(value).lstrip()
    m = lexicon.pattern("curation_frame").match(head.lower() if head.isascii() else head)
    if m is None:
        m = lexicon.pattern("curation_frame").match(head.lower())
    return head[m.end() :] if m else value


def session_context(
    fields: Mapping[str, object],
    evidence: Evidence,
    batch: Sequence[tuple[str, str, str]],
    *,
    human_names: Sequence[str] = (),
) -> list[tuple[str, str]]:
    """The segments of the session (*batch*: ``(class, text, the person's own words)``)
    that the quotes were not found in but that vouch for a name or a code the memory
    mentions, or for what one of its curation sentences credits to the person: each the
    first that does. What the memory itself credits, and every figure, still need the
    quotes."""
    out = _naming_segments(fields, evidence, batch, human_names)
    out += _coding_segments(_unvouched_codes(fields, evidence), batch)
    out += _coding_segments(_unvouched_curation_figures(fields, evidence), batch)
    words = _numeral_words(fields, evidence)
    if words:
        out += _givers(words, batch, lambda text, left: [w for w in left if w not in text])
    out += _curation_segments(fields, evidence, batch, human_names)
    return list(dict.fromkeys(out))


def _naming_segments(
    fields: Mapping[str, object],
    evidence: Evidence,
    batch: Sequence[tuple[str, str, str]],
    human_names: Sequence[str],
) -> list[tuple[str, str]]:
    named = NameVouchers(evidence.name_texts(), human_names)
    wanted: list[str] = []
    for name, value in fields.items():
        if isinstance(value, str) and value and name not in _CURATION_FIELDS:
            wanted.extend(n for n in named.unvouched(value) if n not in wanted)
    return _givers(wanted, batch, lambda text, left: NameVouchers([text]).missing(left))


def _coding_segments(
    codes: list[Quantity], batch: Sequence[tuple[str, str, str]]
) -> list[tuple[str, str]]:
    def unvouched(text: str, left: list[Quantity]) -> list[Quantity]:
        here = Vouchers([text])
        return [q for q in left if not here.vouches(q)]

    return _givers(codes, batch, unvouched)


def _givers(
    wanted: list[Any],
    batch: Sequence[tuple[str, str, str]],
    left_after: Callable[[str, list[Any]], list[Any]],
) -> list[tuple[str, str]]:
    """The first segments of the session, in order, that give what is *wanted* (each
    thing once): ``left_after(text, wanted)`` is what a segment leaves ungiven."""
    out: list[tuple[str, str]] = []
    for cls, text, _own in batch:
        if not wanted:
            break
        if cls != SELF_CLASS:
            left = left_after(text, wanted)
            if len(left) < len(wanted):
                out.append((cls, text))
                wanted = left
    return out


def _curation_segments(
    fields: Mapping[str, object],
    evidence: Evidence,
    batch: Sequence[tuple[str, str, str]],
    human_names: Sequence[str],
) -> list[tuple[str, str]]:
    names = tuple(n for n in human_names if isinstance(n, str))
    out: list[tuple[str, str]] = []
    for name, value in fields.items():
        if name not in _CURATION_FIELDS or not isinstance(value, str) or not value:
            continue
        value = _unframed(name, value)
        for claim in claims(value, names):
            if _claim_ok(claim, evidence, name, value, names) is not None:
                out.extend(_first_voucher(claim, batch))
    return out


def _first_voucher(claim: Claim, batch: Sequence[tuple[str, str, str]]) -> list[tuple[str, str]]:
    """The first segment of the session that says what *claim* credits: the person's own
    words for a claim to them, a segment naming the third person for one to someone else."""
    for cls, text, own in batch:
        if cls == USER_CLASS and claim.who != THIRD and carries(claim.content, [own]):
            return [(USER_CLASS, own)]
        if claim.who == THIRD and cls != SELF_CLASS and names_in(claim.name, text):
            return [(cls, text)]
    return []


def _link_violations(
    name: str, value: str, existing_slugs: Container[str] | None, seen: set[tuple[str, str]]
) -> list[Violation]:
    """Links an index field may not carry, and ``[[slug]]`` links to no memory."""
    out = []
    if name in INDEX_FIELDS:
        for link in index_links(value):
            if (MARKUP, link) not in seen:
                seen.add((MARKUP, link))
                out.append(Violation(MARKUP, name, link, R.INDEX_LINK))
    if existing_slugs is not None:
        for slug in dict.fromkeys(links_in(value)):
            if slug not in existing_slugs and (LINK, slug) not in seen:
                seen.add((LINK, slug))
                out.append(Violation(LINK, name, slug, R.NO_MEMORY))
    return out


#: The fields that become the index line (MEMORY.md): no link rides in them.
INDEX_FIELDS = frozenset({"title", "description"})
#: Where a link starts: each alternative begins with a fixed mark, so the scan is linear.
_LINK_MARK = re.compile(
    # a scheme is read from the start of its run of scheme characters, once per run
    r"\]\(|\[\[|(?<![A-Za-z0-9+.-])[0-9+.-]*+[A-Za-z][A-Za-z0-9+.-]*+://|\bwww\.|"
    r"\b(?:mailto|javascript|data|file):",
    re.IGNORECASE,
)


def index_links(text: str) -> list[str]:
    """The links a title or description would carry into the index: a Markdown link, a
    ``[[slug]]``, a URL or an autolink. Only the writer makes index links (a link in the
    index is followed by every agent that reads it)."""
    folded = fold(text)
    out = []
    for m in _LINK_MARK.finditer(folded):
        a = max(0, m.start() - 20)
        out.append(" ".join(folded[a : m.end() + 30].split()))
    return out


#: One word: letters and digits, joined inside by hyphens, a name's middle dot (カフェ・ルポ,
#: 克里斯·王) or a dot or plus of a technology's name (node.js, c++); no space.
_TAG_WORD = re.compile(r"[^\W_](?:[\w-]|[・·.](?=[^\W_])){0,39}\+{0,2}")
_TAG_GAP = re.compile(r"[\s_]+")


def is_tag_word(tag: str) -> bool:
    """Whether *tag* (folded) is one word, as a tag must be."""
    return _TAG_WORD.fullmatch(tag) is not None


def tag_key(tag: str) -> str:
    """How a tag is compared: folded, lower case, spaces and underscores as hyphens."""
    return _TAG_GAP.sub("-", fold(tag).lower())


def check_tags(
    tags: object,
    evidence: Evidence,
    *,
    allowed: Sequence[str] = (),
    human_names: Sequence[str] = (),
    field_name: str = "tags",
) -> list[Violation]:
    """The floors on a list of tags: each a one-word string (no sentence hides in a tag),
    claim tags backed by a surviving quote of their class that says them, the distiller's tags left to the
    distiller (*allowed* lists tags already there), and the number and attribution floors
    on the words of the tags."""
    if tags is None:
        return []
    if not isinstance(tags, (list, tuple)):
        return [Violation(SHAPE, field_name, _type_name(tags), R.NOT_A_LIST)]
    out: list[Violation] = []
    words: list[str] = []
    for tag in tags:
        if not isinstance(tag, str):
            out.append(Violation(SHAPE, field_name, _type_name(tag), R.NOT_A_STRING))
            continue
        if disguises(tag):
            out.append(Violation(DISGUISE, field_name, disguises(tag)[0], R.INVISIBLE))
            continue
        if not is_tag_word(fold(tag)):
            out.append(Violation(TAG, field_name, tag[:40], R.NOT_A_WORD))
            continue
        # a tag's words as words ("user-approved" is "user approved", "99-percent-full"
        # 99 percent full); a tag that is an identifier stays one (W-0621)
        words.append(tag if _identifier_tag(tag) else tag.replace("-", " ").replace("_", " "))
        if tag in allowed:
            continue
        key = tag_key(tag)
        if key in DISTILLER_TAGS:
            out.append(Violation(TAG, field_name, tag, R.DISTILLER_ONLY))
            continue
        needs = CLAIM_TAGS.get(key)
        if needs is not None and not tag_carried(key, evidence):
            out.append(
                Violation(
                    TAG,
                    field_name,
                    tag,
                    R.NEEDS_EVIDENCE,
                    " or ".join(c for c in _CLASS_ORDER if c in needs),
                )
            )
    if words:
        for v in check_surface({field_name: ". ".join(words)}, evidence, human_names=human_names):
            out.append(v)
    return out


def _identifier_tag(tag: str) -> bool:
    """Whether *tag* reads, joins and all, as one identifier (W-0621, INV-2025-0318)."""
    if not any(c.isdigit() for c in tag):
        return False
    found = scan(tag)
    return len(found) == 1 and found[0].kind == IDENTIFIER and len(found[0].text) >= len(tag) - 1


def check_rewrite(
    new: str,
    source: str,
    *,
    field_name: str = "description",
    human_names: Sequence[str] = (),
    keep_from: str = "",
) -> list[Violation]:
    """The floors on a line rewritten from text the store already holds (tidy's rewrite of
    an index line, weave's trigger): every figure and every claim must be in *source*, the
    negations and the ⚠️ of *keep_from* (default: *source*) must stay, and none may be
    added that *keep_from* does not have."""
    if not new or not new.strip():
        return [Violation(SHAPE, field_name, "", R.EMPTY)]
    out: list[Violation] = []
    for d in disguises(new):
        out.append(Violation(DISGUISE, field_name, d, R.INVISIBLE))
    for q in unvouched(new, [source]):
        out.append(Violation(NUMBER, field_name, q.canon, R.NOT_IN_SOURCE))
    before = {c.phrase.lower() for c in claims(source, human_names)}
    for c in claims(new, human_names):
        if c.phrase.lower() not in before or not carries(c.content, [source]):
            out.append(Violation(ATTRIBUTION, field_name, c.phrase, R.NOT_IN_SOURCE))
    keep = keep_from or source
    old_neg = _negation_counts(keep)
    new_neg = _negation_counts(new)
    for w in old_neg:
        if new_neg.get(w, 0) < old_neg[w]:
            out.append(Violation(NEGATION, field_name, w, R.DROPPED))
    for w in new_neg:
        if old_neg.get(w, 0) < new_neg[w]:
            out.append(Violation(NEGATION, field_name, w, R.ADDED))
    if "⚠" in keep and "⚠" not in new:
        out.append(Violation(MARK, field_name, "⚠️", R.DROPPED))
    if "⚠" in new and "⚠" not in keep:
        out.append(Violation(MARK, field_name, "⚠️", R.ADDED))
    return out


def _negation_counts(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for word in negations_in(text):
        w = word.lower()
        if w.endswith("n't") or w == "cannot":
            w = "not"
        out[w] = out.get(w, 0) + 1
    return out
