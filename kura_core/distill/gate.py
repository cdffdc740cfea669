"""The gate: deterministic checks between a model's candidates and the store.

No model is involved. A candidate memory survives only on quotes that exist verbatim in
one single segment of the batch -- whole words, with the negation that governs them --
and only with numbers, attributions and tags that those quotes license. The checks on
the candidate's own text are the floors (:mod:`kura_core.floors`), the same ones every
later surface passes (a composed draft, a judge's fix, a hand fix, a trigger line).

What each evidence class licenses:

* USER -- statements about the human ("they decided", "they asked") and numbers;
* TOOL -- numbers (measurements) and the ``landmine`` tag;
* ACT  -- "this was done" and numbers (a command's arguments, a value written to a config);
* SELF -- a first-person judgement only. SELF vouches for no number and no attribution.

Provenance beats position. A quote is filed under the class of the segment it really
comes from, whatever the model claimed; tool output that only repeats what the agent
itself typed earlier in the batch (an ``echo`` of its own guess, a ``cat`` of notes it
wrote) vouches for nothing; and tool output that prints the store's own memories is the
store reading itself back (an *echo*), which vouches for nothing either.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..budget import Deadline
from ..floors import (
    CLAIM_TAGS,
    DISTILLER_TAGS,
    Evidence,
    Violation,
    check_surface,
    check_tags,
    claims,
    cut_reason,
    disguises,
    is_tag_word,
    lexicon,
    scan,
    session_context,
    tag_carried,
    tag_key,
)
from ..floors.answers import picked
from ..floors.attribution import HUMAN, content_tokens, reverses, said_otherwise
from ..floors.comparison import comparison
from ..floors.names import ZH_SURNAMES, is_configured
from ..floors.negation import negations_in
from ..floors.payloads import prose_spans
from ..floors.quantities import (
    DATE,
    NUMBER,
    RANGE,
    TIME,
    WEEKDAY,
    Quantity,
    Vouchers,
    session_currency,
    session_date_order,
)
from ..floors.readings import cjk_forms
from ..floors.scope import RULES as SCOPE_RULES, judge as judge_scope, reported_source
from ..floors.text import fold
from ..floors.voices import Voice, addressed, home_owner, introduced, is_delimiter, voices
from ..script import has_cjk
from ..secrets import BUILTIN, SecretRules, active_rules, collecting, using_rules
from ..vocabulary import ClaimKind, FloorKind, FloorRule, ProvenanceClass
from .evidence import CLASSES, NO_OUTPUT, SAME_CALL, Segment, normalize, parse_claimed, quote_weight
from .search import first_occurrences

if TYPE_CHECKING:
    from .journals.base import Read as JournalRead

KINDS = ("fact", "judgement", "idea")
FLOOR_FIELDS = ("title", "description", "body", "belongs_because", "keep", "may_fade")
#: The fields that state what the memory says (the curation fields say why it is kept).
CLAIM_FIELDS = ("title", "description", "body")

#: Where a quote found in several segments is filed. USER first: if the human's own
#: words contain the text, the human said it, whoever else repeated it. Then TOOL and ACT,
#: which license numbers; SELF last, because it licenses least.
CLASS_PREFERENCE = {cls: rank for rank, cls in enumerate(CLASSES)}
#: The classes whose claim orders where a quote is looked for first.
_MACHINE = frozenset({ProvenanceClass.ACT, ProvenanceClass.TOOL})

#: Why a candidate was dropped, as a code faces and tests can branch on.
DROP_CODES = (
    "not_an_object",
    "malformed",
    "kind",
    "no_quotes",
    "no_survivor",
    "all_echo",
    "floor",
    "self_only_fact",
    "not_first_person",
    "fact_as_idea",
)

Echo = Callable[[str], bool]


@dataclass(frozen=True)
class Floors:
    """The floor checks the gate runs on a candidate's own text: a seam, so a test can put
    a fake in place of one (a slow one, to see a chunk shelved over its time budget)."""

    surface: Callable[..., list[Violation]] = check_surface
    tags: Callable[..., list[Violation]] = check_tags


# =========================================================================== echoes

#: Where a tool's output is split into pieces that are checked one by one against the
#: store and against the agent's own earlier words: lines, sentences, fields of a
#: ``grep``-style "path:line:" prefix or a table.
_PIECES = re.compile(r"\n|(?<=[.!?])\s+|[。！？；;|\t]|:\s|\s[—–]\s|(?<=\S):(?=\S)(?![0-9/])")


def _pieces(text: str) -> list[tuple[int, int]]:
    out = []
    pos = 0
    for m in _PIECES.finditer(text):
        if m.start() > pos:
            out.append((pos, m.start()))
        pos = m.end()
    if pos < len(text):
        out.append((pos, len(text)))
    return out


def _strip_echoes(
    text: str, is_echo: Callable[[str], bool], min_weight: int = 8
) -> tuple[str, bool]:
    """*text* with every piece that *is_echo* recognises blanked out; and whether any was."""
    return _blank(text, _weighed_pieces(text, min_weight), is_echo)


Spans = list[tuple[int, int, str]]


def _weighed_pieces(text: str, min_weight: int = 8) -> Spans:
    """Where each piece of *text* heavy enough to be asked about lies, and its normalised
    form: what :func:`_strip_echoes` asks *is_echo* about."""
    out = []
    for a, b in _pieces(text):
        piece = text[a:b].strip()
        if piece and quote_weight(piece) >= min_weight:
            out.append((a, b, normalize(piece)))
    return out


def _blank(text: str, spans: Spans, is_echo: Callable[[str], bool]) -> tuple[str, bool]:
    out = []
    pos = 0
    hit = False
    for a, b, norm in spans:
        if is_echo(norm):
            out.append(text[pos:a])
            out.append(" \u2026 ")
            pos = b
            hit = True
    out.append(text[pos:])
    return "".join(out), hit


_LEAD_ELLIPSIS = re.compile(r"^(?:\.\.\.|…)\s*+")
#: an ellipsis ending a quote, with the spaces before it (read from the first of them)
_TRAIL_ELLIPSIS = re.compile(r"(?<!\s)\s*+(?:\.\.\.|…)$")


def _strip_prose_payloads(text: str) -> tuple[str, bool]:
    """A command's text without the agent's prose riding in it (what it prints, posts,
    commits or writes into a text file, :func:`kura_core.floors.payloads.prose_spans`) --
    what it writes into a configuration, code or data file is the action itself."""
    spans = prose_spans(text)
    if not spans:
        return text, False
    out, pos = [], 0
    for a, b in sorted(spans):
        if a < pos:
            continue
        out.append(text[pos:a])
        out.append(" \u2026 ")
        pos = b
    out.append(text[pos:])
    return "".join(out), True


def _is_prose(piece: str) -> bool:
    """Words, not a lone identifier: a path or a name the agent typed comes back in a
    tool's output as a matter of course (``du /volume1/photo`` prints the path); a
    sentence it typed does not."""
    return " " in piece.strip() or has_cjk(piece)


#: What a tool's result says when the call did not do what it was asked: an exit status
#: other than 0, or the words tools print when they fail.
_EXIT_FAILED = re.compile(
    r"exit(?:ed)?\s+(?:with\s+)?(?:code|status)\s*[:=]?\s*[1-9]|\"exit_code\"\s*:\s*[1-9]"
    # an error with its code at the head of a line: "ERROR 409: slot unavailable",
    # "Error E1001: …", "HTTP 503 Service Unavailable"
    r"|(?m:^[ \t]*(?:error|err|fatal)[ \t]+[A-Z]?\d{1,6}\b[ \t]*[:\-—])"
    r"|(?m:^[ \t]*HTTP(?:/\d(?:\.\d)?)?[ \t]+[45]\d\d\b)",
    re.IGNORECASE,
)


#: A result that is only the host's word that the call was stopped (Codex's "aborted").
_STOPPED_ONLY = frozenset(
    {"aborted", "interrupted", "cancelled", "canceled", "killed", "timed out"}
)


def _result_failed(seg: Segment) -> bool:
    if seg.kind.endswith("(error)"):
        return True
    if seg.text.strip().strip(".").lower() in _STOPPED_ONLY:
        return True
    head = seg.text[:600]
    if _EXIT_FAILED.search(head):
        return True
    if _EXIT_OK.search(seg.text[:4000]):
        return False  # "Exit Code: 0" (Gemini CLI, Qwen Code): whatever the output says
    return lexicon.pattern("call_failed").search(fold(head).lower()) is not None


#: A result that says its command exited with status 0 ("Exit Code: 0", "exit_code": 0,
#: "exited with code 0"): the call ran; "Error: (none)" beside it is no error.
_EXIT_OK = re.compile(
    r"(?i)(?:^|\n)[ \t]*exit[ _]code[ \t]*:[ \t]*0[ \t]*(?:\n|$)|\"exit_code\"[ \t]*:[ \t]*0\b"
    r"|\bexit(?:ed)?\s+(?:with\s+)?(?:code|status)\s*[:=]?\s*0\b"
)


def _is_result(seg: Segment) -> bool:
    """Whether a segment is what a call gave back, whatever its class."""
    return seg.kind.startswith("tool_result")


def _agent_spoke(seg: Segment) -> bool:
    """Whether *seg* is the agent's own message (not a piece of its call: the call's
    description, the prose a command prints)."""
    return seg.cls == ProvenanceClass.SELF and seg.kind.startswith(
        ("assistant message", "assistant text", "model text")
    )


#: A result that says the person refused the call (the host's words for it).
_REFUSED_RESULT = re.compile(
    # aider: "Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: n", answered no
    r"(?im)\bRun shell commands?\? \(Y\)es/\(N\)o[^\n]{0,60}\]:[ \t]*no?[ \t]*$"
    r"|\b(?:rejected|declined|denied|refused|cancell?ed)\s+by\s+(?:the\s+)?user\b"
    r"|\b(?:the\s+)?user\s+(?:has\s+)?(?:rejected|declined|denied|refused|cancell?ed)\b"
    r"|\bexecution[-_ ]denied\b|\bpermission\s+denied\s+by\s+(?:the\s+)?user\b"
    r"|\b(?:the\s+)?user\s+did\s*n[o']t\s+(?:allow|approve|permit|accept)\b"
    r"|\bnot\s+(?:allowed|approved|permitted)\s+by\s+(?:the\s+)?user\b"
    # Claude Code: "The user doesn't want to proceed with this tool use. The tool use was
    # rejected …"
    r"|\buser\s+does(?:n[’']t|\s+not)\s+want\s+to\s+proceed\b|\btool\s+use\s+was\s+rejected\b"
    r"|用户(?:已)?(?:拒绝|取消)|被用户拒绝|用户(?:未|没有?|不)(?:允许|批准|同意)"
    r"|ユーザーが(?:拒否|却下|キャンセル)|ユーザーに(?:より)?拒否|ユーザーが(?:許可|承認)しなかった"
)


def _call_head(segments: Sequence[Segment], i: int) -> int:
    """The first part of the call ACT segment *i* is a later part of (the first file of
    one patch), or *i*: the call's one result answers every part."""
    if not segments[i].kind.endswith(SAME_CALL):
        return i
    head = i - 1
    while head > 0 and not (
        segments[head].cls == ProvenanceClass.ACT and not segments[head].kind.endswith(SAME_CALL)
    ):
        if segments[head].cls not in (ProvenanceClass.ACT, ProvenanceClass.SELF):
            break
        head -= 1
    return head if segments[head].cls == ProvenanceClass.ACT else i


def call_outcome(segments: Sequence[Segment], i: int, records: bool | None = None) -> str:
    """How the call of ACT segment *i* went, from the result that answers it: the calls
    of a run (the agent's own words between them aside) are answered in their order by
    the results that follow the run. ``refused`` when the person refused it (their reason
    stands in the result's place), ``failed`` when the result is an error, ``unanswered``
    when the person spoke again before any result came in a journal that records results
    (a call the host cancelled or never ran leaves no result), else ""."""
    if segments[i].kind.endswith(NO_OUTPUT):
        return ""  # the journal says it completed, printing nothing
    i = _call_head(segments, i)
    start = i
    while start > 0 and segments[start - 1].cls in (ProvenanceClass.ACT, ProvenanceClass.SELF):
        start -= 1
    nth = 0  # the calls before this one that no result has answered yet
    for s in segments[start:i]:
        if s.cls == ProvenanceClass.ACT and not s.kind.endswith((NO_OUTPUT, SAME_CALL)):
            nth += 1
        elif _is_result(s) and nth:
            nth -= 1  # a result the journal files as the agent's (a file it wrote, a
            # sub-agent's answer) still answers its call
    j = i + 1
    while (
        j < len(segments)
        and segments[j].cls in (ProvenanceClass.ACT, ProvenanceClass.SELF)
        and not _is_result(segments[j])
    ):
        j += 1
    answers = 0
    # the agent wrote on after the call: it came back (an empty output leaves no record;
    # an agent speaks after a call only once it has returned)
    spoke = any(_agent_spoke(s) for s in segments[i + 1 : j])
    for seg in segments[j:]:
        if seg.cls == ProvenanceClass.SELF and not _is_result(seg):
            spoke = True
            continue
        if seg.cls == ProvenanceClass.SELF:
            if answers == nth:
                return ""  # answered: what it gave back is the agent's own
            answers += 1
            continue
        if seg.cls == ProvenanceClass.USER and "refus" not in seg.kind:
            # the person spoke before anything answered the call: where the journal
            # records results, it did not run (or nobody knows that it did)
            if records is None:
                records = any(s.cls == ProvenanceClass.TOOL for s in segments)
            return "unanswered" if records and not (spoke and nth == 0) else ""
        if seg.cls == ProvenanceClass.ACT:
            return ""
        if answers == nth:
            return _answer_outcome(seg)
        answers += 1
    return ""


def _answer_outcome(seg: Segment) -> str:
    """How the result *seg* that answers a call says it went: ``refused`` (the person's
    reason in its place, the host's refusal: "exec command rejected by user"), ``failed``
    (an error), or ""."""
    if seg.cls == ProvenanceClass.USER or "refus" in seg.kind:
        return "refused"
    if _REFUSED_RESULT.search(seg.text[:200]):
        return "refused"
    return "failed" if _result_failed(seg) else ""


class StoreEcho:
    """What a store already holds, for the gate: a quote that is in the store is an echo,
    and a tool result's pieces that are in the store vouch for nothing."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.blob = "\n".join(normalize(t) for t in texts if t)

    def __call__(self, quote: str) -> bool:
        return bool(quote) and quote in self.blob


# =========================================================================== results


@dataclass(frozen=True)
class QuoteCheck:
    """One quote of a candidate: as given, as claimed, as found.

    ``status``: verified | not_found | echo | too_short | cut (found, but starting or
    ending inside a word, or leaving out what governs it -- ``why`` says, and ``rule``
    names it: ``word``, ``negation``, ``condition``, ``report``, ``question``, ``hedge``
    or ``scope`` for left-out words not known to be harmless).
    """

    text: str
    claimed: str | None
    cls: str | None
    status: str
    segment: Segment | None = None
    why: str = ""
    rule: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "text": self.text,
            "claimed": self.claimed,
            "class": self.cls,
            "status": self.status,
        }
        if self.why:
            out["why"] = self.why
            out["rule"] = self.rule
        if self.segment is not None:
            out["where"] = {
                "source": self.segment.source,
                "start": self.segment.start,
                "end": self.segment.end,
                "unit": self.segment.unit,
            }
        return out


@dataclass(frozen=True)
class GateResult:
    title: str
    verdict: str  # kept | dropped | seed
    reasons: tuple[str, ...]
    classes: tuple[str, ...]
    quotes: tuple[QuoteCheck, ...]
    violations: tuple[Violation, ...]
    label: str = ""
    tag_checks: Mapping[str, str] = field(default_factory=dict)
    candidate: Mapping[str, Any] = field(default_factory=dict)
    drop: str = ""
    evidence: Evidence = field(default_factory=Evidence, compare=False, repr=False)

    @property
    def survivors(self) -> tuple[QuoteCheck, ...]:
        return tuple(q for q in self.quotes if q.status == "verified")

    def to_json(self) -> dict[str, Any]:
        """The per-candidate object of ``kura gate --json`` (SPEC §12), plus ``label``,
        ``tag_checks`` and the ``drop`` code; each violation is an object with ``kind``,
        ``field``, ``text``, ``rule`` and its ``message``."""
        return {
            "title": self.title,
            "verdict": self.verdict,
            "reasons": list(self.reasons),
            "classes": list(self.classes),
            "quotes": [q.to_json() for q in self.quotes],
            "violations": [v.to_json() for v in self.violations],
            "label": self.label,
            "tag_checks": dict(self.tag_checks),
            "drop": self.drop,
        }


# =========================================================================== the batch index


class _Index:
    """The batch, prepared once per gate run.

    Every segment's comparison text is made once and joined into one text, so a quote is
    looked up with one scan of the batch whatever its size. Everything else is made lazily,
    only for the segments a quote lands in: the text that may vouch (store echoes and the
    agent's own repeated words removed) and whether a tool's output only repeats what the
    agent wrote or typed earlier. That last lookup is one pass over everything the agent
    typed (:class:`_Typed`), shared by every segment looked at in a run.
    """

    def __init__(
        self,
        segments: Sequence[Segment],
        is_echo: Echo,
        deadline: Deadline | None = None,
        human_names: Sequence[str] = (),
    ) -> None:
        self.segments = list(segments)
        self.human_names = tuple(human_names)
        self.deadline = deadline or Deadline.unlimited()
        self.is_echo = is_echo
        self._raw: dict[int, str] = {}  # TOOL/ACT: the text without the agent's own words
        self._spans: dict[int, Spans] = {}  # TOOL: the pieces of its text, made once
        self._asked: set[int] = set()  # TOOL: its pieces are placed in the typed text
        self._own: dict[int, str] = {}
        self._vouch: dict[int, str] = {}
        self._session: list[tuple[str, str, str]] | None = None
        self._date_order: str | None = None
        self._currency: str | None = None
        self._breaks: dict[int, tuple[int, ...]] = {}
        self._outcome: dict[int, str] = {}
        self._records: bool | None = None  # whether the batch holds any tool result
        self._pasted: dict[int, list[tuple[int, int]]] = {}
        with self.deadline.step("gate: batch index"):
            self.texts = [normalize(s.text) for s in self.segments]
            # "\n" never occurs in a normalised text: a needle found in the joined text lies
            # in one segment, and the segment is the last start at or before it
            self._joined = "\n".join(self.texts)
            self._starts = _starts(self.texts)
            typed = [i for i, s in enumerate(self.segments) if s.cls in ("SELF", "ACT")]
            self._typed = _Typed(typed, [self.texts[i] for i in typed], self.deadline)

    # ---- lookups ------------------------------------------------------------------
    def holding(self, needle: str) -> list[int]:
        """The positions of the segments whose text holds *needle*, in batch order."""
        out: list[int] = []
        if not needle:
            return list(range(len(self.texts)))
        joined, starts = self._joined, self._starts
        pos = joined.find(needle)
        while pos >= 0:
            i = bisect_right(starts, pos) - 1
            out.append(i)
            if i + 1 >= len(starts):
                break
            pos = joined.find(needle, starts[i + 1])
        return out

    def warm(self, needles: Sequence[str]) -> None:
        """Make ready, in one pass over what the agent typed, what looking up every one of
        *needles* will most likely ask: for each, the first tool output (in the order
        :meth:`find` looks) whose pieces must be checked against the agent's own words."""
        wanted = {i for i in map(self._first_question, needles) if i is not None}
        self._ask(sorted(wanted))

    def _unasked(self, i: int) -> bool:
        """Whether segment *i* needs the typed text and its pieces have not been asked."""
        return i not in self._asked and i not in self._own and self._needs_typed(i)

    def _ask(self, positions: Sequence[int]) -> None:
        """Place the pieces of the segments at *positions* in the typed text, in one pass."""
        self._typed.learn(norm for i in positions for _, _, norm in self._pieces_of(i))
        self._asked.update(positions)

    def _first_question(self, needle: str) -> int | None:
        """The first segment :meth:`find` will look at for *needle* that needs the typed
        text, unless a segment before it settles the lookup."""
        for i in self._ranked(needle):
            if self._unasked(i):
                return i
            own = self.own_echo(i)
            if not (own and needle not in own) and not self._cut(i, needle)[0]:
                return None
        return None

    def _ranked(self, needle: str, claimed: str | None = None) -> list[int]:
        """The segments holding *needle*: the person's first, then of the claimed class
        when it names a machine (a tool's output or a call), then best class first, then
        in batch order."""
        cls = self.segments
        return sorted(
            self.holding(needle),
            key=lambda i: (
                cls[i].cls != ProvenanceClass.USER,
                cls[i].cls != claimed if claimed in _MACHINE else False,
                CLASS_PREFERENCE.get(cls[i].cls, 9),
                bool(self.outcome(i)),
                i,
            ),
        )

    def outcome(self, i: int) -> str:
        """For an ACT segment, how the call went when it did not happen: ``refused`` (the
        person said no), ``failed`` (its result is an error), or "" (it ran, or the
        journal does not say)."""
        seg = self.segments[i]
        if seg.cls == ProvenanceClass.TOOL and seg.kind.startswith("tool block"):
            # a block that holds the call and what came of it (SpecStory): its own record
            if _REFUSED_RESULT.search(seg.text[:4000]):
                return "refused"
            return "failed" if _result_failed(seg) else ""
        if seg.cls != ProvenanceClass.ACT:
            return ""
        if _REFUSED_RESULT.search(seg.text[:4000]):
            return "refused"  # the call's own line says it was refused (Antigravity)
        if i not in self._outcome:
            if self._records is None:
                self._records = any(s.cls == ProvenanceClass.TOOL for s in self.segments)
            self._outcome[i] = call_outcome(self.segments, i, self._records)
        return self._outcome[i]

    def _cut(self, i: int, needle: str, prose: str = "") -> tuple[bool, str]:
        """Whether every occurrence of *needle* in segment *i* is cut -- inside a word, or
        out of the clause that governs it -- and the first why."""
        text = self.texts[i]
        cls = self.segments[i].cls
        why = ""
        start = text.find(needle)
        if cls in (ProvenanceClass.TOOL, ProvenanceClass.ACT):
            lines = self.breaks(i)
        else:
            lines = _paragraph_breaks(self.segments[i].text, text)
        while start >= 0:
            end = start + len(needle)
            reason = _cut_in_line(text, start, end, lines)
            if not reason and cls != ProvenanceClass.SELF:
                strict = cls == ProvenanceClass.USER
                reason = _scope_reason(text, start, end, prose, self.breaks(i), strict=strict)
            if not reason:
                return False, ""
            why = why or reason
            start = text.find(needle, start + 1)
        return True, why

    def _pieces_of(self, i: int) -> Spans:
        if i not in self._spans:
            self._spans[i] = _weighed_pieces(self.segments[i].text)
        return self._spans[i]

    def _needs_typed(self, i: int) -> bool:
        return self.segments[i].cls == ProvenanceClass.TOOL and self._typed.any_before(i)

    def _adds_output(self, i: int, needle: str) -> bool:
        """Whether *needle* holds a piece of tool output *i* that is not the agent's own
        words: ``grep -o 'Firmware Version[^<]*'`` typed the label, the router printed
        "OpenWrt 23.05.3" after it. The quote is the tool's; what it vouches is still read
        without the agent's words (:meth:`vouch`)."""
        if not self._needs_typed(i):
            return False
        return any(
            norm in needle
            and sum(ch.isalnum() for ch in norm) >= 4
            and not self._typed.before(i, norm)
            for _, _, norm in self._pieces_of(i)
        )

    def own_echo(self, i: int) -> str:
        """Segment *i*'s text without what only repeats or carries the agent's own words
        (normalised), or "" when nothing was taken out."""
        if i not in self._own:
            with self.deadline.step("gate: the agent's own words"):
                self._raw[i], self._own[i] = self._strip_own(i)
        return self._own[i]

    def _strip_own(self, i: int) -> tuple[str, str]:
        seg = self.segments[i]
        text, own = seg.text, ""
        if self._needs_typed(i):
            spans = self._pieces_of(i)
            if i not in self._asked:
                self._ask([i])
            text, hit = _blank(text, spans, partial(self._typed.before, i))
            if hit:
                own = normalize(text)
        elif seg.cls == ProvenanceClass.ACT:
            text, hit = _strip_prose_payloads(text)
            if hit:
                own = normalize(text)
        return text, own

    def vouch(self, i: int) -> str:
        """The text of segment *i* that may vouch for a number or a claim."""
        if i not in self._vouch:
            seg = self.segments[i]
            text = seg.text
            if seg.cls in ("TOOL", "ACT"):
                self.own_echo(i)
                with self.deadline.step("gate: store echoes"):
                    raw = self._raw[i]
                    if raw is seg.text:  # nothing of the agent's own taken out: same pieces
                        text, _ = _blank(raw, self._pieces_of(i), self.is_echo)
                    else:
                        text, _ = _strip_echoes(raw, self.is_echo)
            self._vouch[i] = text
        return self._vouch[i]

    def breaks(self, i: int) -> tuple[int, ...]:
        """Where segment *i*'s lines break in its comparison text (computed once)."""
        got = self._breaks.get(i)
        if got is None:
            got = self._breaks[i] = _line_breaks(self.segments[i].text, self.texts[i])
        return got

    def find(
        self, needle: str, prose: str = "", claimed: str | None = None
    ) -> tuple[Segment | None, str, int]:
        """The segment the needle is filed under (or None), why a cut occurrence does not
        count, and the segment's position in the batch. *prose* is the candidate's own
        text, folded: a reported claim stands when it names its source. *claimed* is the
        class the candidate's tag names: among segments holding the needle, one of that
        class is tried first (a grep that prints back a line the agent's edit wrote holds
        it too); what the quote is filed under is still the segment's own class."""
        with self.deadline.step("gate: quote lookup"):
            return self._find(needle, prose, claimed)

    def _find(
        self, needle: str, prose: str, claimed: str | None = None
    ) -> tuple[Segment | None, str, int]:
        # best class first; a segment's own words are stripped only when it is reached
        ranked = self._ranked(needle, claimed)
        why, found, ahead = "", False, 1
        for k, i in enumerate(ranked):
            if self._unasked(i):
                # a needle that many tool outputs hold, cut in each: ask about the pieces of
                # the next 1, 2, 4 … of them at once, so the typed text is scanned a
                # logarithmic number of times, not once per segment
                self._ask([j for j in ranked[k:] if self._unasked(j)][:ahead])
                ahead *= 2
            own = self.own_echo(i)
            if own and needle not in own and not self._adds_output(i, needle):
                continue  # only inside the agent's own words, repeated by a tool or a command
            found = True
            cut, reason = self._cut(i, needle, prose)
            if not cut:
                return self._voiced(i, needle), "", i
            why = why or reason
            self.deadline.check()
        if found:
            return None, why, -1
        # the agent's own words, repeated by a tool or carried by a command, and nowhere
        # else verbatim: they are what they are, SELF
        for i in sorted(ranked):
            cut, reason = self._cut(i, needle, prose)
            if not cut:
                return _as_self(self.segments[i]), "", i
            why = why or reason
            self.deadline.check()
        return None, why, -1

    # ---- voices -------------------------------------------------------------------
    def _voiced(self, i: int, needle: str) -> Segment:
        """Segment *i* as the quote *needle* is filed under it: a USER segment's pasted
        material (a mail, minutes, a hand-off, another speaker's line) is not the person's
        own words -- it vouches figures as a tool's output does (TOOL), and the agent's
        own words quoted back to it stay the agent's (SELF)."""
        seg = self.segments[i]
        if seg.cls != ProvenanceClass.USER:
            return seg
        if not self._in_pasted(i, needle):
            # 「看護師を1人増やせば…」の行は根拠がないので消して: the agent's words (what it
            # said or wrote into a file) quoted back in quotation marks stay the agent's
            if self._quoted_back(i, needle):
                return _as_self(seg)
            return seg
        earlier = [j for j in self.holding(needle) if j < i]
        if any(self.segments[j].cls == ProvenanceClass.SELF for j in earlier):
            return _as_self(seg)
        return replace(seg, cls=ProvenanceClass.TOOL)

    def _quoted_back(self, i: int, needle: str) -> bool:
        """Whether *needle* stands in segment *i* only inside quotation marks and an earlier
        segment of the agent's (its words, or a call that wrote them) holds it."""
        text = self.texts[i]
        at = text.find(needle)
        if at < 0:
            return False
        while at >= 0:
            before = text[max(0, at - 1) : at]
            after = text[at + len(needle) : at + len(needle) + 1]
            if before not in _OPEN_QUOTES or after not in _CLOSE_QUOTES:
                return False
            at = text.find(needle, at + 1)
        return any(
            self.segments[j].cls in (ProvenanceClass.SELF, ProvenanceClass.ACT)
            for j in self.holding(needle)
            if j < i
        )

    def pasted(self, i: int) -> list[tuple[int, int]]:
        """Where segment *i*'s pasted material lies in its comparison text."""
        if i not in self._pasted:
            text, spans, cursor = self.texts[i], [], 0
            for v in self.voices(i):
                piece = normalize(self.segments[i].text[v.start : v.end])
                at = text.find(piece, cursor) if piece else -1
                if at >= 0:
                    spans.append((at, at + len(piece)))
                    cursor = at + len(piece)
            self._pasted[i] = spans
        return self._pasted[i]

    def voices(self, i: int) -> list[Voice]:
        """The spans of segment *i* that are not the person's own words: pasted material and
        lines under another speaker's label, not lines under the person's own name ("Dee:
        no wine this time" in minutes Dee pasted)."""
        return [
            v
            for v in voices(self.segments[i].text)
            if not (v.speaker and is_configured(v.speaker, self.human_names))
        ]

    def _in_pasted(self, i: int, needle: str) -> bool:
        """Whether every occurrence of *needle* in segment *i* lies in pasted material."""
        spans = self.pasted(i)
        if not spans:
            return False
        text = self.texts[i]
        at = text.find(needle)
        while at >= 0:
            if not any(a <= at and at + len(needle) <= b for a, b in spans):
                return False
            at = text.find(needle, at + 1)
        return True

    def session(self) -> list[tuple[str, str, str]]:
        """Every segment of the batch as ``(class, text, the person's own words)``: the
        context a name or a curation sentence may be vouched by (worked out once)."""
        if self._session is None:
            self._session = [
                (seg.cls, seg.text, self.own_words(i)) for i, seg in enumerate(self.segments)
            ]
        return self._session

    def date_order(self) -> str:
        """The order the batch writes its numeric days in (worked out once)."""
        if self._date_order is None:
            self._date_order = session_date_order(
                seg.text for seg in self.segments if seg.cls != ProvenanceClass.SELF
            )
        return self._date_order

    def currency(self) -> str:
        """The one currency the person's turns write amounts in (worked out once)."""
        if self._currency is None:
            # the person's own turns: a tool's "$5" is as often awk's fifth field
            self._currency = session_currency(
                seg.text for seg in self.segments if seg.cls == ProvenanceClass.USER
            )
        return self._currency

    def whole_output(self, needle: str) -> int:
        """The position of a tool's output that is *needle* and nothing else (-1 when
        none): a quote too short to be found safely anywhere is still all of one output."""
        if not needle:
            return -1
        for i in self.holding(needle):
            if self.segments[i].cls == ProvenanceClass.TOOL and self.texts[i].strip() == needle:
                return i
        return -1

    def answered(self, i: int) -> str:
        """What the person's reply at *i* picks from the agent's message just before it
        (an option by its letter, a question by a yes: :func:`.floors.answers.picked`),
        "" when it picks nothing. Tool calls and output between them are passed over;
        another turn of the person's ends the search."""
        for j in range(i - 1, max(-1, i - 8), -1):
            cls = self.segments[j].cls
            if cls == ProvenanceClass.USER:
                return ""
            if cls == ProvenanceClass.SELF:
                return picked(self.segments[i].text, self.segments[j].text)
        return ""

    def own_words(self, i: int) -> str:
        """The text of segment *i* without its pasted material: for a USER segment, the
        words that are the person's own."""
        seg = self.segments[i]
        if seg.cls != ProvenanceClass.USER:
            return seg.text
        found = self.voices(i)
        if not found:
            return seg.text
        out, pos = [], 0
        for v in found:
            out.append(seg.text[pos : v.start])
            # a quoted line that says nothing stands in its place: the line that introduced
            # the material still opens a block, and the person's words after it stay theirs
            out.append(_PASTED_GAP)
            pos = v.end
        out.append(seg.text[pos:])
        return "".join(out)

    def vouching(self, i: int, cls: str) -> str:
        """The text of segment *i* that vouches for a quote filed as *cls*: its own (less
        store echoes) where the quote keeps the segment's class, the pasted material
        alone for a quote of what the person pasted, else the segment's text."""
        if cls == self.segments[i].cls:
            return self.vouch(i)
        if self.segments[i].cls == ProvenanceClass.USER:
            return self.pasted_words(i)
        return self.segments[i].text

    def pasted_words(self, i: int) -> str:
        """The pasted material of USER segment *i*, each piece on its own lines: what a
        quote of the paste may vouch with (the person's own words beside it, a figure they
        took back among them, are not the paste's); the whole text when nothing is."""
        seg = self.segments[i]
        found = self.voices(i) if seg.cls == ProvenanceClass.USER else ()
        if not found:
            return seg.text
        out: list[str] = []
        end = 0
        for v in found:
            # the line right above a piece heads it (a table's header over the rule that
            # opened the paste, the line that introduced it): its units are the paste's
            above = seg.text.rfind("\n", 0, max(0, v.start - 1)) + 1
            if above > 0 and is_delimiter(seg.text[above : v.start].rstrip("\n")):
                above = seg.text.rfind("\n", 0, above - 1) + 1  # the header over its rule
            if above >= end and above < v.start:
                out.append(seg.text[above : v.start].rstrip("\n"))
            out.append(seg.text[v.start : v.end])
            end = v.end
        return "\n".join(out)


#: What stands where pasted material was taken out of the person's words.
_PASTED_GAP = "> …"


_OPEN_QUOTES = frozenset("「『“\"'‘")
_CLOSE_QUOTES = frozenset("」』”\"'’")


def _cut_in_line(text: str, start: int, end: int, lines: Sequence[int]) -> str:
    """:func:`cut_reason` on the line of *text* that holds the quote, when *lines* (where
    a tool's output or a command broke its lines) are given: each line of a machine's
    output is a record of its own, so "Connection refused" on one line negates nothing of
    "42 passed" on the next."""
    if not lines:
        return cut_reason(text, start, end)
    k = bisect_right(lines, start)
    a = lines[k - 1] + 1 if k else 0
    b = lines[k] if k < len(lines) else len(text)
    if a > start or b < end:
        return cut_reason(text, start, end)  # the quote spans a line break
    return cut_reason(text[a:b], start - a, end - a)


def _starts(texts: Sequence[str]) -> list[int]:
    """Where each text starts in ``"\\n".join(texts)``."""
    out, pos = [], 0
    for t in texts:
        out.append(pos)
        pos += len(t) + 1
    return out


class _Typed:
    """What the agent wrote or typed (its SELF and ACT texts, in batch order), asked whether
    a piece of a tool's output is prose it wrote *before* a given segment.

    "Before segment i" means: a substring of one of those texts at an earlier position of
    the batch. Each piece's first occurrence is found once, for every piece asked about in
    a run together, by one Aho-Corasick pass over the joined texts; a piece the pass has
    already placed is never searched for again.
    """

    def __init__(self, positions: Sequence[int], texts: Sequence[str], deadline: Deadline):
        self.positions = list(positions)  # batch position of each typed text
        self.joined = "\n".join(texts)
        self.starts = _starts(texts)
        self.first: dict[str, int] = {}  # piece -> batch position of the first text holding it
        self.deadline = deadline

    def any_before(self, i: int) -> bool:
        return bool(self.positions) and self.positions[0] < i

    def before(self, i: int, piece: str) -> bool:
        """Whether *piece* (normalised) is prose the agent wrote or typed before segment
        *i*; the piece must have been learnt."""
        return _is_prose(piece) and self.first.get(piece, i) < i

    def learn(self, pieces: Iterable[str]) -> None:
        """Place the first occurrence of every new piece of prose (the only pieces the
        agent's own words can echo)."""
        new = {p for p in pieces if p not in self.first and p and _is_prose(p)}
        if not new:
            return
        for piece, at in first_occurrences(self.joined, new, self.deadline).items():
            self.first[piece] = (
                sys.maxsize if at < 0 else self.positions[bisect_right(self.starts, at) - 1]
            )
        self.deadline.check("gate: the agent's own words")


def _breaks_between(pieces: list[str], norm: str, ends: Callable[[str], bool]) -> tuple[int, ...]:
    """The positions in *norm* of the spaces that join *pieces* (each already in the
    comparison form), after each piece *ends* accepts; none when they do not add up to
    *norm*."""
    parts = [x for x in pieces if x]
    if " ".join(parts) != norm:
        return ()
    out, pos = [], -1
    for part in parts[:-1]:
        pos += len(part) + 1
        if ends(part):
            out.append(pos)
    return tuple(out)


def _line_breaks(raw: str, norm: str) -> tuple[int, ...]:
    """The positions in *norm* (the comparison form of *raw*) of the spaces that stand for
    a line break of *raw*; none when the lines do not add up to *norm*."""
    if "\n" not in raw:
        return ()
    return _breaks_between([normalize(line) for line in raw.split("\n")], norm, bool)


_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")


def _paragraph_breaks(raw: str, norm: str) -> tuple[int, ...]:
    """The positions in *norm* of the spaces that stand for a blank line of *raw* after a
    paragraph that ends its sentence or holds a command (a pasted command line before a
    request is not part of the request; "please do not\n\ndelete …" is one sentence)."""
    if "\n" not in raw or not _PARAGRAPH.search(raw):
        return ()
    pieces = [normalize(p) for p in _PARAGRAPH.split(raw)]
    return _breaks_between(pieces, norm, _ends_its_sentence)


def _ends_its_sentence(paragraph: str) -> bool:
    return paragraph.endswith(_PARAGRAPH_END) or _CODE_LINE.search(paragraph) is not None


#: What ends a paragraph's sentence, or marks its last line as a command or code.
_PARAGRAPH_END = (".", "!", "?", ":", "。", "！", "？", "：", "—", "…", ")", "）", "」", "`")
_CODE_LINE = re.compile(r"[+=/_$<>{}\[\]|\\]|--|^\s*[#$>]")


def _scope_reason(
    text: str, start: int, end: int, prose: str, breaks: Sequence[int] = (), strict: bool = True
) -> str:
    """Why a quote leaves the clause that governs it ("" when it does not): the rule, a
    colon, and the reason in words. A report stands when *prose* names its source. The
    agent's own words are not judged (they vouch for nothing but its labelled view); a
    person's words are judged strictly (see :func:`kura_core.floors.scope.judge`)."""
    scope = judge_scope(text, start, end, breaks, strict=strict)
    if not scope or (scope.source and fold(scope.source).lower() in prose):
        return ""
    return f"{scope.rule}:{scope.why}"


def _as_self(seg: Segment) -> Segment:
    return Segment(
        "SELF", seg.text, seg.source, seg.start, seg.end, seg.unit, seg.session_id, seg.timestamp
    )


_WRAP_PAIRS = {'"': '"', "'": "'"}


def _variants(quote: str) -> list[str]:
    """The quote as given, then with one wrapping pair of quote marks and leading or
    trailing ellipses removed (models often mark a quote that way). Whatever remains must
    still be verbatim; an ellipsis inside a quote is never a wildcard."""
    out = [quote]
    current = quote
    for _ in range(2):
        changed = current
        if (
            len(changed) >= 2
            and changed[0] in _WRAP_PAIRS
            and changed[-1] == _WRAP_PAIRS[changed[0]]
        ):
            changed = changed[1:-1].strip()
        changed = _LEAD_ELLIPSIS.sub("", changed)
        changed = _TRAIL_ELLIPSIS.sub("", changed)
        if changed != current and changed:
            out.append(changed)
            current = changed
    return out


def _check_quote(
    raw: object, index: _Index, is_echo: Echo, min_chars: int, prose: str = ""
) -> tuple[QuoteCheck, int]:
    if not isinstance(raw, str):
        return QuoteCheck(text="", claimed=None, cls=None, status="not_found"), -1
    claimed, rest = parse_claimed(raw)
    shown = rest.strip()
    variants = _variants(normalize(rest))
    # lines of a tool's output joined with spaces ("693.0 拾叁咖啡" for "693.0\n拾叁咖啡"):
    # a figure and the CJK word after it are joined only where one space parts them, so
    # the quote is also looked up with its spaces read as the line breaks they stand for
    as_lines = normalize(rest.replace(" ", "\n"))
    if as_lines not in variants:
        variants.append(as_lines)
    if all(quote_weight(v) < min_chars for v in variants):
        whole = index.whole_output(normalize(rest).strip())
        if whole >= 0:  # a tool printed just this ("0.629"): the quote is all it said
            output = index.segments[whole]
            return QuoteCheck(shown, claimed, output.cls, "verified", output), whole
        return QuoteCheck(shown, claimed, None, "too_short"), -1
    why = ""
    for needle in variants:
        if quote_weight(needle) < min_chars:
            continue
        seg, cut, pos = index.find(needle, prose, claimed)
        if seg is not None:
            status = "echo" if is_echo(needle) else "verified"
            return QuoteCheck(shown, claimed, seg.cls, status, seg), pos
        why = why or cut
    if why:
        rule, _, text = why.partition(":") if why.split(":", 1)[0] in SCOPE_RULES else ("", "", why)
        if not rule:
            rule = "negation" if "negation" in why else "word"
        return QuoteCheck(shown, claimed, None, "cut", why=text, rule=rule), -1
    return QuoteCheck(shown, claimed, None, "not_found"), -1


# =========================================================================== the gate


def _prose(candidate: Mapping[str, Any], names: Sequence[str] = FLOOR_FIELDS) -> str:
    """Everything the candidate writes that will be stored (or its fields *names*),
    folded, lower case."""
    parts = [candidate.get(k) for k in names]
    return fold("\n".join(p for p in parts if isinstance(p, str))).lower()


def _prose_lines(candidate: Mapping[str, Any], names: Sequence[str] = FLOOR_FIELDS) -> str:
    """:func:`_prose`, each field on a line of its own: a clause ends with its field."""
    parts = [candidate.get(k) for k in names]
    return "\n".join(fold(p).lower() for p in parts if isinstance(p, str))


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


_FIRST_PERSON = re.compile(
    r"\b(?:I|I'm|I've|I'd|I'll|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself)\b|私|僕|俺|わたし|自分は|と思う|と思います|"
    r"と判断|と考え|"
    r"我(?!们|們)|本人认为"
    # the agent naming itself as the one who holds the view: "the assistant's view",
    # 助手自己的判断, アシスタントの見解
    r"|\b(?:the\s+)?(?:assistant|agent)(?:'s|’s)\s+(?:own\s+)?"
    r"(?:view|judg(?:e)?ment|opinion|take|assessment|reading)\b"
    r"|(?:助手|智能体|AI)(?:自己|本身)?的(?:看法|判断|判斷|意见|意見|观点|觀點|评估)"
    r"|(?:アシスタント|エージェント|AI)(?:自身|自体)?の(?:見解|判断|意見|考え|見立て)"
)


def _malformed(candidate: Mapping[str, Any]) -> list[Violation]:
    from ..floors import shape_violations

    fields = {k: candidate.get(k) for k in FLOOR_FIELDS if k in candidate}
    out = shape_violations(fields)
    kind = candidate.get("kind", "fact")
    if kind is not None and not isinstance(kind, str):
        out.append(Violation("shape", "kind", type(kind).__name__, "not_a_string"))
    quotes = candidate.get("quotes")
    if quotes is not None and not isinstance(quotes, list):
        out.append(Violation("shape", "quotes", type(quotes).__name__, "not_a_list"))
    elif isinstance(quotes, list) and any(not isinstance(q, str) for q in quotes):
        out.append(Violation("shape", "quotes", "a quote that is not text", "not_a_string"))
    tags = candidate.get("tags")
    if tags is not None:
        if not isinstance(tags, list):
            out.append(Violation("shape", "tags", type(tags).__name__, "not_a_list"))
        else:
            for t in tags:
                if not isinstance(t, str):
                    out.append(Violation("shape", "tags", type(t).__name__, "not_a_string"))
                elif not is_tag_word(normalize(t)):
                    out.append(Violation("tag", "tags", t[:40], "not_a_word"))
    return out


def _quote_reasons(checks: Sequence[QuoteCheck]) -> list[str]:
    """What a person should know about the quotes: re-filed classes and cut quotes."""
    out = []
    for q in checks:
        if q.status in ("verified", "echo") and q.claimed and q.claimed != q.cls:
            out.append(f"quote re-filed from {q.claimed} to {q.cls}: {_short(q.text)}")
        if q.status == "cut":
            out.append(f"quote {q.why}: {_short(q.text)}")
    return out


def _no_survivor(result: Callable[..., GateResult], checks: Sequence[QuoteCheck]) -> GateResult:
    counts: dict[str, int] = {}
    for q in checks:
        counts[q.status] = counts.get(q.status, 0) + 1
    detail = ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in sorted(counts.items()))
    if not checks:
        return result("dropped", "no quotes given", drop="no_quotes")
    if counts.get("echo") and len(counts) == 1:
        return result("dropped", f"every quote is an echo of the store ({detail})", drop="all_echo")
    return result("dropped", f"no quote survived ({detail})", drop="no_survivor")


def _gate_one(
    candidate: object,
    index: _Index,
    *,
    is_echo: Echo,
    human_names: Sequence[str],
    min_quote_chars: int,
    floors: Floors,
) -> GateResult:
    if not isinstance(candidate, Mapping):
        return GateResult(
            "", "dropped", ("candidate is not a JSON object",), (), (), (), drop="not_an_object"
        )
    title = candidate.get("title") if isinstance(candidate.get("title"), str) else ""
    kind_raw = candidate.get("kind", "fact")
    kind = kind_raw.strip().lower() if isinstance(kind_raw, str) else ""
    raw_quotes = candidate.get("quotes")
    quote_list: list[Any] = raw_quotes if isinstance(raw_quotes, list) else []
    prose = _prose(candidate)
    found = [_check_quote(q, index, is_echo, min_quote_chars, prose) for q in quote_list]
    checks = tuple(q for q, _ in found)
    reasons = _quote_reasons(checks)
    survivors = [(q, pos) for q, pos in found if q.status == "verified"]
    classes = tuple(sorted({q.cls for q, _ in survivors if q.cls}))
    copy = dict(candidate)
    evidence = _evidence(index, survivors)

    def result(
        verdict: str,
        *why: str,
        drop: str = "",
        violations: Sequence[Violation] = (),
        tag_checks: Mapping[str, str] | None = None,
        label: str = "",
    ) -> GateResult:
        return GateResult(
            str(title),
            verdict,
            tuple(reasons) + why,
            classes,
            checks,
            tuple(violations),
            label,
            tag_checks or {},
            copy,
            drop,
            evidence,
        )

    with index.deadline.step("floor: the candidate's shape"):
        malformed = _malformed(candidate)
    if malformed:
        return result(
            "dropped",
            "malformed candidate: " + "; ".join(v.message() for v in malformed),
            drop="malformed",
            violations=malformed,
        )
    if kind not in KINDS:
        return result("dropped", "kind must be fact, judgement or idea", drop="kind")
    fields = {name: candidate.get(name) or "" for name in FLOOR_FIELDS}
    with index.deadline.step("floor: the session around the quotes"):
        context = session_context(fields, evidence, index.session(), human_names=human_names)
    evidence = replace(
        evidence.with_context(context),
        date_order=index.date_order(),
        currency=index.currency(),
        _vouch=[],
    )
    if kind == ClaimKind.IDEA:
        with index.deadline.step("floor: the idea's text"):
            return _idea(result, fields, evidence, human_names, candidate, floors, index.session())
    if not survivors:
        return _no_survivor(result, checks)

    tag_checks, tag_notes = _sift_tags(candidate.get("tags"), evidence)
    reasons.extend(tag_notes)
    if "tags" in copy:
        copy["tags"] = [
            t
            for t in candidate.get("tags") or []
            if not (isinstance(t, str) and tag_key(t) in DISTILLER_TAGS)
        ]
    with index.deadline.step("floor: the candidate's text"):
        violations = floors.surface(fields, evidence, human_names=human_names)
    violations += _what_the_quotes_leave(index, survivors, found, fields, candidate, kind)
    with index.deadline.step("floor: the candidate's tags"):
        violations += [
            v
            for v in floors.tags(copy.get("tags") or [], evidence, human_names=human_names)
            if v.kind != "tag" or v.rule == FloorRule.NEEDS_EVIDENCE
        ]
    return _settle(
        result, reasons, kind, set(classes), fields, violations, tag_checks, len(survivors)
    )


def _what_the_quotes_leave(
    index: _Index,
    survivors: Sequence[tuple[QuoteCheck, int]],
    found: Sequence[tuple[QuoteCheck, int]],
    fields: Mapping[str, object],
    candidate: Mapping[str, Any],
    kind: str,
) -> list[Violation]:
    """The candidate's text against what its quotes leave open or undone: a call only
    tried, a question, a removed line, a quote cut from what governs it."""
    # what the memory says happened is its claim; a tag ("发没发") or why it belongs is no
    # word that it was only tried
    out = _not_done(index, survivors, _prose_lines(candidate, CLAIM_FIELDS))
    out += _asked_as_stated(survivors, _prose(candidate, ("title", "body")))
    out += _figure_only_asked(
        survivors,
        _prose(candidate, ("title", "body")),
        [q for q, _ in found if q.status == "cut" and q.rule == "question"],
    )
    out += (
        _removed_only(index, survivors)
        or _superseded(index, survivors, _prose(candidate, CLAIM_FIELDS))
        or _removed_later(index, survivors, _prose(candidate, CLAIM_FIELDS))
        or _corrected_later(index, survivors, _prose(candidate, CLAIM_FIELDS))
    )
    out += _said_of_candidate(fields, survivors, kind)
    out += _restates_cut(
        [(q, _cut_from(index, q, pos)) for q, pos in found],
        # the agent's own words hold no figure for the person: an option it offered is
        # no choice made
        [q.text for q, _ in survivors if q.cls != ProvenanceClass.SELF],
        fold("\n".join(str(fields.get(k) or "") for k in CLAIM_FIELDS)).lower(),
    )
    return out


def _cut_from(index: _Index, q: QuoteCheck, pos: int) -> str:
    """The text of the segment a quote was found in (a cut quote keeps no position)."""
    if q.status != "cut":
        return ""
    if pos >= 0:
        return index.segments[pos].text
    held = index.holding(normalize(q.text))
    return index.segments[held[0]].text if held else ""


#: A word of part, in what a cut quote left out; and a word of all, in the text.
_SOME = re.compile(r"部分|一部|若干|一些|有些|(?i:\bsome\b|\bpart of\b|\bcertain\b|\bselected\b)")
_EVERY = re.compile(r"全部|所有|全て|すべて|全部の|全件|(?i:\ball\b|\bevery\b|\bentire\b)")


def _restates_cut(
    checks: Sequence[tuple[QuoteCheck, str]], kept: Sequence[str], claim: str
) -> list[Violation]:
    """A figure the candidate gives that only a quote cut from its clause holds: the quote
    was refused for what it leaves out ("学会旅費は1人8万円" without its "まで（仮）",
    "00个以上3.2元" cut inside "3000个以上"), so what it says stands unvouched -- unless the
    candidate keeps what was left out (a bound, a hedge, a tentative mark)."""
    cut = [(q, seg) for q, seg in checks if q.status == "cut"]
    if not cut:
        return []
    for q, _seg in cut:
        # a quote cut from "召回部分批次…" beside a text that says 全部, 所有, all: the part
        # the quote left out is what the text makes the whole of
        some = _SOME.search(q.why)
        every = _EVERY.search(claim) if some else None
        if every:
            return [Violation(FloorKind.SCOPE, "body", every.group(0), FloorRule.AS_SETTLED)]
    for q, seg in cut:
        if (restated := _restated_bare(q, seg, kept, claim)) is not None:
            return [restated]
    # the claim comes folded to lower case: the quotes are read so too (NT$ as nt$)
    held = {x.canon for text in kept for x in scan(fold(text).lower())}
    tentative = lexicon.pattern("tentative_kept").search(claim)
    told = lexicon.pattern("retraction_told").search(claim)
    negated = [
        v
        for q, _seg in cut
        if (q.rule == "negation" or _PROHIBITION.search(_left_out(q.why)))
        and (v := _negation_dropped(q, claim))
    ]
    if early := negated[:1] or _hearsay_settled(cut, claim):
        return early
    for q, seg in cut:
        if q.rule == "retracted":
            taken = _taken_back(q.text, seg, claim, held) or _restated_whole(q.text, claim)
            if taken and not (told and _told_beside(claim, taken)):
                return [Violation(FloorKind.SCOPE, "body", taken, FloorRule.AS_SETTLED)]
            continue
        if q.rule not in _SCOPE_CUTS and q.rule != "word":
            continue  # a negation cut is judged by its own rule
        if _open_kept(q, claim, tentative):
            # what the clause goes on with after the quote: a tentative mark there
            # (…8万円まで（仮）) is kept only by a tentative word, not by a bound
            said, quoted = fold(seg), fold(q.text)
            at = said.find(quoted)
            after = said[at + len(quoted) : at + len(quoted) + 16] if at >= 0 else ""
            if tentative or not lexicon.pattern("tentative").search(after):
                continue
        mine = {
            x.canon for x in scan(fold(q.text).lower()) if x.kind in (NUMBER, RANGE, DATE, WEEKDAY)
        }
        for figure in scan(claim):
            if figure.canon in mine and figure.canon not in held:
                return [Violation(FloorKind.SCOPE, "body", figure.text, FloorRule.AS_SETTLED)]
    return []


#: A prohibition a cut quote left out: it negates what the quote says, as "not" does.
_PROHIBITION = re.compile(
    r"严禁|嚴禁|禁止|不得|不准|不许|不許|请勿|請勿|切勿|禁じ|厳禁|してはならない"
    r"|(?i:prohibit|forbid|must[ \t]not|never)"
)


#: Where a quote's first clause ends (a list's 、 joins nouns, not clauses).
_FIRST_CLAUSE = re.compile(r"[，；;]|,(?!\d{3})|或")


def _restated_whole(quote: str, claim: str) -> str:
    """A quote taken back later in its turn that a sentence of the candidate says whole
    (every word of it, figures too) with no word of the change: the candidate states what
    was taken back. "" when none does."""
    words = content_tokens(quote)
    if len(words) < 3:
        return ""
    for m in _SENTENCES.finditer(claim):
        sentence = m.group(0)
        if words <= content_tokens(sentence) and not lexicon.pattern("retraction_told").search(
            sentence
        ):
            return _short(quote, 40)
    return ""


def _negation_dropped(q: QuoteCheck, claim: str) -> Violation | None:
    """A quote cut from the negation that governs it ("waiving the late fee this time" out
    of "I'm not waiving …") whose words a sentence of the candidate says with no negation
    of its own: the candidate states what the person said is not so, whatever other
    quote it keeps. The clause the negation governs is the quote's first when it is left
    out before it ("recommend the rooflight …, as it would sit over the beam")."""
    whole = content_tokens(q.text)
    first = content_tokens(_FIRST_CLAUSE.split(q.text, 1)[0]) if "before" in q.why else whole
    for words in (whole, first):
        if len(words) < 2:
            continue
        v = _said_without_negation(q, words, claim)
        if v is not None:
            return v
    return None


def _said_without_negation(q: QuoteCheck, words: frozenset[str], claim: str) -> Violation | None:
    for m in _SENTENCES.finditer(claim):
        sentence = m.group(0)
        if 3 * len(words & content_tokens(sentence)) >= 2 * len(words) and not negations_in(
            sentence
        ):
            left_out = q.why.split("'")[1] if q.why.count("'") >= 2 else "not"
            return Violation(FloorKind.NEGATION, "body", left_out, FloorRule.DROPPED)
    return None


def _taken_back(quote: str, segment: str, claim: str, held: set[str]) -> str:
    """A figure of *quote* that the candidate gives and the retraction after it replaces
    with another of its kind ("Add the second shooter at £350. Actually no, make it
    £300"): the rest of the turn does not vouch for what was taken back. "" when none."""
    said, quoted = fold(segment), fold(quote)
    at = said.find(quoted)
    if at < 0:
        return ""
    back = lexicon.pattern("retraction").search(said.lower(), at + len(quoted))
    if back is None:
        return ""
    end = _SENTENCE_END.search(said, back.end())
    instead = scan(said[back.start() : end.end() if end else len(said)])
    mine = [x for x in scan(quote) if x.kind in (NUMBER, RANGE, DATE, TIME)]
    given = {x.canon for x in scan(claim)}
    for old in mine:
        if (
            old.canon in given
            and old.canon not in held
            and any(
                new.kind == old.kind and new.unit == old.unit and new.canon != old.canon
                for new in instead
            )
        ):
            return old.text
    return ""


def _told_beside(claim: str, figure: str) -> bool:
    """Whether the candidate tells of the retraction beside the figure taken back ("first
    said £350, then £300"; 8:50ではなく): a word of changing elsewhere in it (送迎変更 in a
    title) tells nothing of this figure."""
    folded = fold(figure).lower()
    at = claim.find(folded)
    while at >= 0:
        start = max((m.end() for m in _TOLD_STOP.finditer(claim, max(0, at - 40), at)), default=0)
        stop = _TOLD_STOP.search(claim, at + len(folded))
        if lexicon.pattern("retraction_told").search(claim[start : stop.start() if stop else None]):
            return True
        at = claim.find(folded, at + 1)
    return False


#: Where the clause around a figure ends, as :func:`_told_beside` reads it.
_TOLD_STOP = re.compile(r"[,、。;；:：!?！？]|(?<=[^\x00-\x7f])\s(?=\S)")


#: The end of the sentence a retraction opens.
_SENTENCE_END = re.compile(r"[.!?。！？\n]")


#: What keeps a question a question, and a report a report, in the candidate's text.
_ASKED_KEPT = re.compile(
    r"[?？]|(?i:\bask(?:s|ed|ing)?\b|\bwhether\b|\bwonder|\bquestion)|吗|嗎|是否|要不要|"
    r"かどうか|か[？?]|聞い|尋ね|質問|问|問"
)
_REPORT_KEPT = re.compile(
    r"(?i:\bsays?\b|\bsaid\b|\baccording\b|\bper\b|\bclaims?\b|\breport|\btold\b|\bheard\b)"
    r"|によると|によれば|とのこと|そうです|らしい|知らせ|通知|听说|聽說|据说|據說|说|說|称|稱"
    r"|(?i:\bnotice\b|\bannounce)"
)


def _restated_bare(q: QuoteCheck, seg: str, kept: Sequence[str], claim: str) -> Violation | None:
    """A quote cut for its reporter ("zeffy is free" after "hollis says"), whose words the
    candidate states as its own while another quote of the turn carries it through, or cut
    for its question ("can we afford the mulch thing") where the candidate credits the
    person with it, or cut from its hedge, condition or tentative mark ("maybe we vat them
    together"): refused unless the candidate keeps it a report, a question or open. Words
    another kept quote also says stand."""
    if q.rule == "question":
        asked = _sentence_of(seg, q.text)
        if not any(c.who == HUMAN for c in claims(claim)) and (
            _REQUEST_ASKED.search(asked) or _TOLD_TO.match(asked.lstrip())
        ):
            return None  # "tell me what's still owed?", answered by a tool: a request
        mark = _ASKED_KEPT
    elif q.rule == "report":
        mark = _REPORT_KEPT
        source = reported_source(q.why)
        if source and fold(source).lower() in claim:
            return None  # the candidate names where it comes from (（連絡帳での知らせ）)
    elif q.rule in ("hedge", "condition", "tentative", "scope"):
        # "maybe we vat them together" cut to "we vat them together", told as decided
        if lexicon.search("unsettled_kept", claim) or lexicon.search("unsettled_mark", claim):
            return None
        mark = _ASKED_KEPT
    else:
        return None
    words = content_tokens(q.text) - set().union(*(content_tokens(k) for k in kept))
    if len(words) < 2 or mark.search(claim):
        return None
    said = words & content_tokens(claim)
    if 3 * len(said) < 2 * len(words):
        return None
    return Violation(FloorKind.SCOPE, "body", _short(q.text, 50), FloorRule.AS_SETTLED)


def _sentence_of(segment: str, quote: str) -> str:
    """The sentence of *segment* a quote was cut from (folded), from the sentence's start
    to the end of the one the quote ends in."""
    said, quoted = "\n".join(fold(line) for line in segment.split("\n")), fold(quote)
    at = said.find(quoted)
    if at < 0:
        return quoted
    start = max((m.end() for m in _SENTENCE_STOP.finditer(said, 0, at)), default=0)
    stop = _SENTENCE_STOP.search(said, at + len(quoted))
    return said[start : stop.end() if stop else len(said)]


_SENTENCE_STOP = re.compile(r"[.!?](?=\s|$)|[。！？\n]")
#: A sentence that tells the agent to find something out, however it ends: "tell me …?",
#: 查一下…？, 教えて…？ -- a request, not a question of what is so.
_TOLD_TO = re.compile(
    r"(?i:(?:tell|show|give|send|find|list|check|let)\s+(?:me|us)\b|(?:list|check|find)\b)"
    r"|告诉我|告訴我|查一下|查查|看一下|看看|列出|列一下|给我|給我|教えて|見せて|調べて"
)


#: Cuts for what the quote's clause says around it, which the candidate may keep itself.
_SCOPE_CUTS = frozenset({"scope", "hedge", "condition", "tentative", "exception", "example"})


def _hearsay_settled(cut: Sequence[tuple[QuoteCheck, str]], claim: str) -> list[Violation]:
    """A quote cut from who said it (听孙师傅说 left out of 明年面粉要涨到130一袋) told as a
    fact, with neither the teller nor a word of hearsay: what someone said, settled."""
    if _HEARSAY_KEPT.search(claim) or _REPORT_KEPT.search(claim):
        return []
    for q, _seg in cut:
        if q.rule != "report":
            continue
        source = _left_out(q.why)
        named = reported_source(q.why)
        if named and fold(named).lower() in claim:
            continue  # the candidate names where it comes from (（連絡帳での知らせ）)
        if _SPEAKERS_HERE.search(source):
            continue  # 你刚才…: the person answering the agent, no one else's word
        if not content_tokens(source) & content_tokens(claim):
            return [Violation(FloorKind.SCOPE, "body", _short(q.text, 40), FloorRule.AS_SETTLED)]
    return []


#: The two who speak in a session, as a report names them: 你刚才, 我, "you said".
_SPEAKERS_HERE = re.compile(r"[你您我]|あなた|私|僕|俺|(?i:\b(?:you|i|we)\b)")
#: A word that keeps what someone said as said: 听说, 据说, らしい, と聞いた, "reportedly".
_HEARSAY_KEPT = re.compile(
    r"听说|聽說|据说|據說|据|據|说|說|称|稱|表示|指出|提到|传|傳|らしい|そうだ|そうです|と聞|によると|によれば|の話では|伝聞"
    r"|(?i:\b(?:reportedly|apparently|according to|said|says|say|heard|hears|told|tells|claims?|rumou?r)\b)"
)


#: An error denied ("without errors", 没有报错, エラーなし): says it went well, not that it was
#: only tried.
_NO_ERROR = re.compile(
    r"(?i)\b(?:without|no|zero|0)\s+(?:any\s+)?(?:errors?|failures?)\b|\berror[- ]free\b"
    r"|没有(?:任何)?(?:报错|错误|出错|失败)|无(?:报错|错误)|不报错|零报错"
    r"|エラー(?:なし|なく|も出ず|が出ず|は出ず|もなく|はなく|ゼロ)|エラーを出さず|失敗なし"
)


#: A clause of what came before, to its comma or its sentence's end: "After the remote
#: rejected a normal push, …", "… force-pushed after the normal push was rejected".
_FRONTED_CLAUSE = re.compile(
    r"(?i)(?:(?:^|(?<=[.!?\n]))[ \t]*+(?:right[ \t]+|just[ \t]+)?(?:because|while)"
    r"|(?<![\w-])(?:after|when|once|since|as[ \t]+soon[ \t]+as|now[ \t]+that))\b"
    r"[^,.!?\n;]{1,160}"
)


def _not_done(
    index: _Index, survivors: Sequence[tuple[QuoteCheck, int]], prose: str
) -> list[Violation]:
    """ACT vouches only for what happened: a quote of a call that failed or that the person
    refused vouches "it was tried", so the candidate must say that much (tried, failed,
    refused, 失敗, 取消 ...), or it writes as done what was not."""
    undone = [
        (q, index.outcome(pos))
        for q, pos in survivors
        if q.cls in (ProvenanceClass.ACT, ProvenanceClass.TOOL) and pos >= 0 and index.outcome(pos)
    ]
    # a call the person typed out before the agent ran it ("… - python3 cost.py --pdf …"),
    # quoted as the call: their words vouch that they asked, the call's result how it went
    for q, _pos in survivors:
        if q.claimed == "ACT" and q.cls == ProvenanceClass.USER:
            hows = [
                index.outcome(i)
                for i in index.holding(normalize(q.text).strip())
                if index.segments[i].cls == ProvenanceClass.ACT
            ]
            if hows and all(hows):  # no run of it went through
                undone.append((q, hows[0]))
    # a question ("old_receipts はまだある？", a description's cue) says nothing was tried
    said = _ASKED_SENTENCE.sub(" ", _NO_ERROR.sub(" ", prose))
    if not undone:
        return []
    calls = " ".join(fold(q.text).lower() for q, _how in undone)
    # the words of the commands themselves, not of what answered them ("User rejected the
    # command." says 拒否 as the memory does)
    call_words = set(
        content_tokens(" ".join(q.text for q, _how in undone if q.cls != ProvenanceClass.TOOL))
    )
    # "After the remote rejected a normal push, …": a clause set before the sentence's
    # own tells of something else that went wrong, not of this call
    fronted = [m.span() for m in _FRONTED_CLAUSE.finditer(said)]
    for m in lexicon.pattern("attempt").finditer(said):
        if any(a <= m.start() < b for a, b in fronted):
            continue
        # "the timer was stopped" for `systemctl stop`: the call's own verb says what it
        # would have done, not that it was only tried -- in the call's language or in
        # another (キャンセルした for `yoyaku.py cancel`)
        if m.group(0)[:4] in calls or _PURPOSE_BEFORE.search(
            said, max(0, m.start() - 8), m.start()
        ):
            continue  # "… so the pivot would not run": what the deed was for
        verb = content_tokens(m.group(0))
        if not m.group(0).isascii() and verb and said_otherwise(verb, call_words) == verb:
            continue
        return []
    if lexicon.pattern("call_failed").search(said) or _ERROR_NAME.search(prose):
        return []  # it writes the error the call gave ("ModuleNotFoundError"): it failed
    q, how = undone[0]
    return [Violation(FloorKind.ACT, "body", _short(q.text, 50), FloorRule.NOT_DONE, how)]


def _asked_as_stated(survivors: Sequence[tuple[QuoteCheck, int]], stated: str) -> list[Violation]:
    """A question quoted as what is so: where every quote of what was said asks (ends in
    ?, 吗, か？; "班费是不是又要交了？"), the memory's title and body must say it was asked
    ("asked whether", 问, 聞いた) -- a request put as a question ("can you …?", 能不能帮…,
    〜てもらえますか) asks for something and is none."""
    said = [q.text for q, _ in survivors if q.cls in (ProvenanceClass.USER, ProvenanceClass.TOOL)]
    if not said or not all(_asks(t) for t in said) or _ASKING.search(stated):
        return []
    return [Violation(FloorKind.SCOPE, "body", _short(said[0], 50), FloorRule.AS_SETTLED, "asked")]


def _figure_only_asked(
    survivors: Sequence[tuple[QuoteCheck, int]],
    stated: str,
    cut_questions: Sequence[QuoteCheck] = (),
) -> list[Violation]:
    """A figure the memory states that the quotes give only inside a question
    ("另外电芯能不能上到 600mAh？" for "容量上到 600mAh"; "could we get it to 40?"): asked,
    not so, unless the memory says it was asked or keeps it open. Requests put as questions
    are none. A quote cut from its question (我要20斤，价格能不能按去年620一斤) gives its
    figures as asked."""
    if _ASKING.search(stated) or _DELIBERATED.search(stated):
        return []
    asked: set[Decimal] = {
        x.value
        for q in cut_questions
        for x in scan(fold(q.text))
        if x.kind in (NUMBER, RANGE) and x.value
    }
    plain: set[Decimal] = set()
    for q, _ in survivors:
        if q.cls == ProvenanceClass.SELF:
            continue
        for line in q.text.split("\n"):
            for m in _SENTENCE_OR_QUESTION.finditer(fold(line)):
                sentence = m.group(0)
                found = {x.value for x in scan(sentence) if x.kind in (NUMBER, RANGE) and x.value}
                (asked if _asks(sentence) else plain).update(found)
    only = asked - plain
    if not only:
        return []
    for figure in scan(stated):
        if figure.kind not in (NUMBER, RANGE) or figure.value not in only:
            continue
        start, _ = _clause_around(stated, figure.start)
        _, stop = _clause_around(stated, figure.end)
        if lexicon.search("unsettled_mark", stated[start:stop]):
            continue  # "maybe 40, not sure yet": kept open beside the figure (说 keeps no
            # question open: it says whose words they are)
        return [Violation(FloorKind.SCOPE, "body", figure.text, FloorRule.AS_SETTLED, "asked")]
    return []


#: A memory that keeps a question open: 要不要, 是不是, かどうか, "whether".
_DELIBERATED = re.compile(r"要不要|是不是|能不能|会不会|有没有|可不可以|かどうか|べきか")


#: A sentence of a line, with the mark that ends it (a question's ？ or 吗 stays in it).
_SENTENCE_OR_QUESTION = re.compile(r"[^.!?。！？]+(?:[.!?。！？]+|$)")


def _asks(quote: str) -> bool:
    """Whether *quote* is a question that is no request: its last sentence ends in a
    question mark or a question particle."""
    text = _CLOSING_TAIL.sub("", fold(quote).strip())
    if not text or _REQUEST_ASKED.search(text):
        return False
    return text.endswith(("?", "？")) or bool(_PARTICLE_ASKS.search(text))


_CLOSING_TAIL = re.compile(r"[」』”\"')）\s]+$")
_PARTICLE_ASKS = re.compile(r"(?:吗|嗎|ですか|ますか|でしょうか|のか|かな)$")
#: A request written as a question: it asks for something, not whether something is so.
_REQUEST_ASKED = re.compile(
    r"(?i:\b(?:can|could|would|will)\s+(?:you|u)\b|\bplease\b|\bmind\b|\bhow about\b|\bwhy not\b)"
    r"|能不能帮|可不可以帮|可以帮|能帮|帮我|幫我|帮忙|幫忙|麻烦|麻煩|请|請|"
    r"てもらえ|ていただけ|てくれ|ください|お願い|しましょうか|しませんか"
)
#: Words that say something was asked: asked, whether, 问, 聞いた, かどうか.
_ASKING = re.compile(
    r"(?i:\bask|\bquestion|\bwhether\b|\bwonder|\binquir|\benquir|\bif\b|\?)"
    r"|问|問|询|詢|咨询|諮詢|是否|吗|嗎|？|聞|尋ね|質問|かどうか|確認|确认|問い合わせ"
)


#: A modal before "not run": the purpose of a deed, not its failure.
_PURPOSE_BEFORE = re.compile(r"(?:\bwould|\bwill|\bshould|\bcould)\s+$")
#: The name of an error a call raised, as a memory that says it failed writes it.
_ERROR_NAME = re.compile(r"(?i:\b[a-z]*(?:error|exception)\b)|\b(?:E[A-Z]{3,12}|errno)\b")


#: A sentence that asks: it ends with a question mark.
_ASKED_SENTENCE = re.compile(r"[^.!?。！？\n]{0,400}[?？]")


#: A diff in a tool's output: a hunk header or a fenced diff.
_DIFF_MARK = re.compile(r"(?m)^(?:@@ |```diff|diff --git )")


def _diff_lines(text: str, quote: str) -> str:
    """Whether *quote* stands on lines of a diff in *text* that the change removed (``-``)
    or added (``+``): "-", "+" or "" (neither, or not found, or both)."""
    at = text.find(quote)
    if at < 0:
        return ""
    if not _DIFF_MARK.search(text):
        diff = _json_diff(text)  # {"diff": "-power_kw: 10\n+power_kw: 15"}: an edit's report
        if diff is None or quote not in diff:
            return ""
        text, at = diff, diff.find(quote)
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at + len(quote))
    signs = {
        line[:1]
        for line in text[start : end if end >= 0 else len(text)].split("\n")
        if not line.startswith(("---", "+++"))
    }
    return signs.pop() if len(signs) == 1 and signs <= {"-", "+"} else ""


#: A tool's JSON report of an edit: its "diff" (or "patch") field, a string.
_JSON_DIFF = re.compile(r'"(?:diff|patch)"[ \t]*:[ \t]*"((?:[^"\\\n]|\\.){1,200000}+)"')


def _json_diff(text: str) -> str | None:
    """The diff a tool's JSON report of an edit holds, unescaped (None when none)."""
    m = _JSON_DIFF.search(text)
    if m is None:
        return None
    try:
        diff = json.loads(f'"{m.group(1)}"')
    except ValueError:
        return None
    return diff if isinstance(diff, str) and "\n" in diff else None


def _removed_only(index: _Index, survivors: Sequence[tuple[QuoteCheck, int]]) -> list[Violation]:
    """A line a diff took out, quoted from the tool's report of the edit (``-112,…,0,``),
    is what the file held before, not what is set: the candidate must quote what replaced
    it too, or it writes the old value as the current one."""
    sides: dict[int, set[str]] = {}
    removed: list[QuoteCheck] = []
    for q, pos in survivors:
        if pos < 0 or q.cls not in (ProvenanceClass.ACT, ProvenanceClass.TOOL):
            continue
        sign = _diff_lines(index.segments[pos].text, q.text)
        sides.setdefault(pos, set()).add(sign)
        if sign == "-":
            removed.append(q)
    for q, pos in survivors:
        if q in removed and "+" not in sides.get(pos, set()):
            how = "undone by its own edit (a removed line)"
            return [Violation(FloorKind.ACT, "body", _short(q.text, 50), FloorRule.NOT_DONE, how)]
    return []


#: A figure of a row, blanked to compare rows by what is not a figure.
_ROW_FIGURE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


def _row_skeleton(line: str) -> str:
    """A line with its figures blanked ("Country butter (#g),each,#,#%"), or "" when too
    little of it is words to name a row."""
    line = line.strip()
    skeleton = _ROW_FIGURE.sub("#", line)
    return skeleton if skeleton != line and sum(c.isalpha() for c in skeleton) >= 6 else ""


def _changed_figure(was: str, now: str) -> str:
    """The one figure two rows of one skeleton differ in, as the first writes it ("" when
    none, or more than one: another row, another batch or day, of the same shape)."""
    a, b = _ROW_FIGURE.findall(was), _ROW_FIGURE.findall(now)
    if len(a) != len(b):
        return ""
    changed = [x for x, y in zip(a, b, strict=True) if x != y]
    return changed[0] if len(changed) == 1 else ""


def _superseded(
    index: _Index, survivors: Sequence[tuple[QuoteCheck, int]], prose: str
) -> list[Violation]:
    """A row of a file a tool printed, quoted as it stood, that a later edit wrote again
    with another figure ("Country butter (250g),each,4.20" read, then edited to 4.50), where
    the memory writes the old figure: what the file held before, not what is set, unless a
    quote of the edit says what replaced it."""
    quoted = {pos for _q, pos in survivors}
    said = {q.value for q in scan(prose) if q.value is not None}
    for q, pos in survivors:
        if pos < 0 or q.cls != ProvenanceClass.TOOL or "\n" in q.text.strip():
            continue
        skeleton = _row_skeleton(q.text)
        if not skeleton:
            continue
        for j in range(pos + 1, min(len(index.segments), pos + 200)):
            seg = index.segments[j]
            if seg.cls != ProvenanceClass.ACT or j in quoted:
                continue
            if any(
                _row_skeleton(line) == skeleton
                and (old := _changed_figure(q.text, line))
                and any(f.value in said for f in scan(old))
                for line in seg.text.split("\n")
            ):
                how = "written again by a later edit (the row as it stood before)"
                return [
                    Violation(FloorKind.ACT, "body", _short(q.text, 50), FloorRule.NOT_DONE, how)
                ]
    return []


#: Where a sentence of a turn ends: its end mark, a line break, a stop after a word.
_SENTENCE_OF_TURN = re.compile(r"[。！？!?\n]|(?<=[a-z0-9)])\.(?=\s)")


def _corrected_later(
    index: _Index, survivors: Sequence[tuple[QuoteCheck, int]], prose: str
) -> list[Violation]:
    """A figure of the person's own words that a later turn of theirs corrects ("さっきの
    ふじ4,800円、あれ間違いだ。ネットは5,200円だ", "刚才说的42不对，是45"), stated as it
    first stood: a sentence of the later turn names the figure beside a word of correcting,
    the turn gives another figure of its unit, and the memory neither quotes that turn nor
    gives that other figure nor tells the correction. A turn that says the figure is right
    ("Typo on my side — 24 is right") gives no other one."""
    said = [q for q in scan(prose) if q.kind == NUMBER and q.value is not None]
    told = fold(prose).lower()
    if not said or lexicon.pattern("correction").search(told):
        return []
    if lexicon.pattern("retraction_told").search(told):
        return []
    quoted = {pos for _q, pos in survivors}
    for q, pos in survivors:
        if pos < 0 or q.cls != ProvenanceClass.USER:
            continue
        mine = [
            f
            for f in scan(q.text)
            if f.kind == NUMBER
            and f.value is not None
            and (f.unit or f.value >= 10)
            and any(s.value == f.value and s.unit == f.unit for s in said)
        ]
        for j in range(pos + 1, min(len(index.segments), pos + 300)):
            seg = index.segments[j]
            if not mine:
                break
            if seg.cls != ProvenanceClass.USER or j in quoted:
                continue
            turn = [f for f in scan(seg.text) if f.kind == NUMBER and f.value is not None]
            for sentence in _SENTENCE_OF_TURN.split(seg.text):
                if not lexicon.pattern("correction").search(fold(sentence).lower()):
                    continue
                there = scan(sentence)
                for m in mine:
                    if not any(f.value == m.value and f.unit in (m.unit, "") for f in there):
                        continue
                    others = [f for f in turn if f.unit == m.unit and f.value != m.value]
                    if not others or any(
                        s.value == f.value and s.unit == f.unit for f in others for s in said
                    ):
                        continue  # no other figure given, or the memory gives it too
                    how = "corrected by a later turn of the person's (the figure as first said)"
                    return [
                        Violation(
                            FloorKind.NUMBER, "body", _short(q.text, 50), FloorRule.CORRECTED, how
                        )
                    ]
    return []


#: What says a line is gone: "removed", "taken off", "no longer", 削除, 删咗, 去掉.
_TOLD_REMOVED = re.compile(
    r"(?i:\b(?:remov|delet|dropp|taken off|took off|struck|strike|cut from|no longer|not any ?more"
    r"|off the (?:list|menu|sheet)|gone from|was (?:on|in) the)\w*)"
    r"|削除|消し|消した|外し|外した|取り除|なくなった|無くなった|載っていない|载"
    r"|删|刪|去掉|移除|拿掉|撤下|下架|取消|已经冇|已經冇"
)


#: A line of data: cells parted by commas, bars or tabs.
_DATA_ROW = re.compile(r"[,|│｜\t].*[,|│｜\t]|,")


def _diff_line(text: str, line: str, sign: str) -> bool:
    """Whether *text* holds *line* as a diff's line of *sign* (``-`` taken out, ``+`` put
    in): the sign right before it (a space between allowed) at a line's start, after an
    escaped line break or a JSON string's quote, and the line's end right after it."""
    at = text.find(line)
    while at >= 0:
        lead = at - 1 - (at >= 1 and text[at - 1] == " ")
        if lead >= 0 and text[lead] == sign:
            before = text[max(0, lead - 2) : lead]
            opened = lead == 0 or before.endswith(("\n", '"')) or before == "\\n"
            end = at + len(line)
            rest = text[end : end + 2]
            closed = not rest.strip(" \t") or rest[:1] in ("\n", '"') or rest == "\\n"
            if opened and closed:
                return True
        at = text.find(line, at + 1)
    return False


def _removed_later(
    index: _Index, survivors: Sequence[tuple[QuoteCheck, int]], prose: str
) -> list[Violation]:
    """A line a tool printed (a file read), quoted as it stood, that a later edit took out
    (``-アイスコーヒー,500,終日,`` in the edit's report, ``{"diff": "-R06,…"}``) and wrote
    nowhere again: what the file held before. A memory that tells it as removed is right."""
    if _TOLD_REMOVED.search(prose):
        return []
    skeletons = {_row_skeleton(q.text) for q, _pos in survivors}
    for q, pos in survivors:
        line = q.text.strip()
        if pos < 0 or q.cls not in (ProvenanceClass.TOOL, ProvenanceClass.ACT) or "\n" in line:
            continue
        skeleton = _row_skeleton(line)
        if len(line) < 8 or not skeleton or not _DATA_ROW.search(line):
            continue  # a row of data (a CSV line, a table's row), not a sentence of prose
        if sum(1 for other in skeletons if other == skeleton) > 1 or any(
            _row_skeleton(o.text) == skeleton and o.text.strip() != line for o, _p in survivors
        ):
            continue  # what replaced it is quoted too: "480円から500円になった"
        for j in range(pos, min(len(index.segments), pos + 200)):
            seg = index.segments[j]
            if seg.cls not in (ProvenanceClass.ACT, ProvenanceClass.TOOL):
                continue
            if _diff_line(seg.text, line, "-") and not _diff_line(seg.text, line, "+"):
                if any(
                    o.text.strip() != line and "+" + o.text.strip() in seg.text
                    for o, _p in survivors
                ):
                    continue  # the line that replaced it is quoted too
                how = "taken out by a later edit (the line as it stood before)"
                return [Violation(FloorKind.ACT, "body", _short(line, 50), FloorRule.NOT_DONE, how)]
    return []


def _written_done(prose: str) -> bool:
    """Whether *prose* writes something done beyond doubt (has been, already, 済み, 已经),
    not denied right before ("has not been" is no such word; 还没/まだ deny it)."""
    for m in lexicon.pattern("done_strong").finditer(prose):
        if not _NOT_DONE_BEFORE.search(prose, max(0, m.start() - 6), m.start()):
            return True
    return False


#: A denial right before a word of a deed done: "not already", 还没, 未, まだ.
_NOT_DONE_BEFORE = re.compile(r"(?:\bnot|n't|\bnever)\s+$|(?:还没|還沒|没有|沒有|未|まだ|没)$")


def _short_lines(quotes: Sequence[str]) -> list[str]:
    """The short lines of the quotes that have lines (a notice's heading, a scheme's
    name), folded as the quotes are read."""
    return [
        fold(line).lower().strip()
        for q in quotes
        if "\n" in q
        for line in q.split("\n")
        if 0 < len(line.strip()) <= 16
    ]


def _heading_word(said: str, m: re.Match[str], heads: Sequence[str]) -> bool:
    """Whether *m* ends one of the quotes' short lines of its own (強制驗樓計劃)."""
    return any(h.endswith(m.group(0)) and said.startswith(h, m.end() - len(h)) for h in heads)


def _deeds_told_done(stated: str, quotes: Sequence[str]) -> bool:
    """Whether each sentence of *stated* that keeps no plan says what a quote without a
    word of planning carries best: "消火器の点検はもう業者に頼んである" is 消火器はもう業者に
    頼んだで, a deed done, not 見積もり頼むわ beside it, a plan. Several quotes, one plan
    among them, and every deed told matched to another."""
    if len(quotes) < 2:
        return False
    plan = lexicon.pattern("plan_mark")
    done = lexicon.pattern("done_mark")
    quoted = [
        (content_tokens(q), bool(plan.search(fold(q).lower()) or _I_WILL.search(q))) for q in quotes
    ]
    told_done = [bool(done.search(fold(q).lower()) or _ALREADY_DONE.search(q)) for q in quotes]
    if all(planned for _, planned in quoted) or not any(planned for _, planned in quoted):
        return False
    sentences = [
        clause
        for m in _SENTENCES.finditer(stated)
        for clause in _CLAUSE_PARTS.split(m.group(0))
        if clause.strip()
    ]
    kept = [content_tokens(x) for x in sentences if _kept_a_plan(x)]
    if not all(any(toks & k for k in kept) for toks, planned in quoted if planned):
        return False  # a plan the memory keeps nowhere as a plan
    for sentence in sentences:
        if _kept_a_plan(sentence):
            continue
        words = content_tokens(sentence)
        most = max(len(tq[0] & words) for tq in quoted)
        best = [i for i, (toks, _p) in enumerate(quoted) if len(toks & words) == most]
        if not most:
            continue  # a heading of the memory's own (消防の指摘への対応): no quote's deed
        if any(quoted[i][1] for i in best):
            return False  # a plan says it as well as any quote
        deed = done.search(fold(sentence).lower()) or _ALREADY_DONE.search(sentence)
        if (deed or _written_done(sentence)) and not all(told_done[i] for i in best):
            return False  # told done where the quote saying it tells nothing done
    return True


#: Where a sentence parts into clauses a title strings together (消火器は依頼済み、段ボールは
#: これから).
_CLAUSE_PARTS = re.compile(r"[、，；;：:]|,\s")
#: A deed told done in the person's words: もう業者に頼んだ, 既に送った, "already booked".
_ALREADY_DONE = re.compile(
    r"(?:もう|既に|すでに)[^。！？!?\n]{0,24}?[ただ](?:で|よ|わ|ね|けど|から|って)?(?:[。！？!?\n]|$)"
    r"|(?i:\balready\b)"
)


def _kept_a_plan(prose: str) -> bool:
    """Whether *prose* keeps a plan a plan: a word of planning or deciding, or a time still
    to come when nothing says it was done ("来月から15円に値上げされた" is done)."""
    if lexicon.pattern("plan").search(prose) or _UNTIL_NOT.search(prose):
        return True
    if _ONLY_IF.search(prose):
        return True  # "goes down Wednesday only if the bus can do two trips": still to come
    return bool(lexicon.pattern("plan_time").search(prose)) and not lexicon.pattern(
        "done_mark"
    ).search(prose)


#: A deed held back until something is done: 確定するまで送らない, "not until it's
#: confirmed", 确认之前不发 -- the plan kept a plan, its time still to come.
_UNTIL_NOT = re.compile(
    r"まで(?:は)?[^。！？\n]{0,24}?(?:しない|しません|ない|待つ|待って|控え)"
    r"|(?i:\b(?:not|n't|never|nothing|no\s+one|none)\b[^.!?\n]{0,40}?\buntil\b"
    r"|\buntil\b[^.!?\n]{0,40}?\b(?:not|n't|wait)\b)"
    r"|(?:之前|以前|前)[^。！？\n]{0,6}?(?:不|别|先不|暂不)"
)
#: A condition that keeps a deed still to come: only if, unless, otherwise, 才, 的话, なら.
_ONLY_IF = re.compile(
    r"(?i:\bonly\s+if\b|\bunless\b|\bprovided\s+that\b|\bas\s+long\s+as\b)"
    r"|只有[^。！？\n]{0,20}?才|除非|的话|的話|場合のみ|場合に限り|ならば|の場合は"
)
#: What must be done, not what was: must, have to, 须, 必须, なければならない.
_OBLIGATION = re.compile(
    r"(?i:\bmust\b|\bha(?:ve|s)\s+to\b|\bneeds?\s+to\b|\bis\s+required\s+to\b)"
    r"|(?<![无無必])须|必须|必須|应当|應當|なければ(?:ならない|なりません|いけない)|必要があ"
)
#: A negation right before a plan's words: "not going to", "never gonna".
_NOT_BEFORE = re.compile(r"(?:\bnot|n't|\bnever)\s+$")
#: The speaker's own "I will" in Japanese: 私が書きます, 俺がやる.
_I_WILL = re.compile(
    r"(?:私|俺|僕|わたし|自分)が[^。！？\n]{0,24}?(?:ます|する|やる)(?=[。！!\s]|$)"
)


def _standing(quote: str) -> str:
    """What a quote says after the last retraction in it ("3万ちょっとで出すつもり…いや、
    やっぱり32,000円ぴったりで" stands at 32,000円: the plan before it was taken back)."""
    folded = fold(quote).lower()
    at, m = 0, lexicon.search("retraction", folded)
    while m is not None:
        at = m.end()
        m = lexicon.search("retraction", folded, at)
    return folded[at:] if at else quote


def _said_of_candidate(
    fields: Mapping[str, object], survivors: Sequence[tuple[QuoteCheck, int]], kind: str
) -> list[Violation]:
    """:func:`_said_of_quotes` on a candidate's text: all it says, and what its title and
    body state."""
    claim = fold("\n".join(str(fields.get(k) or "") for k in CLAIM_FIELDS)).lower()
    stated = fold("\n".join(str(fields.get(k) or "") for k in ("title", "body"))).lower()
    acted = any(q.cls == ProvenanceClass.ACT for q, _ in survivors)
    calls = [q.text for q, _ in survivors if q.cls == ProvenanceClass.ACT]
    shown = any(q.cls in (ProvenanceClass.ACT, ProvenanceClass.TOOL) for q, _ in survivors)
    return _said_of_quotes(
        [q.text for q, _ in survivors],
        claim,
        kind,
        acted=acted,
        stated=stated,
        calls=calls,
        shown=shown,
    )


def _carried_out(said: str, plan: re.Match[str], calls: Sequence[str]) -> bool:
    """Whether a quoted call did what the plan in *said* names: the calls give a time, a
    date or a figure of the plan's sentence (a plan with no figure is not matched to a
    call by its words)."""
    sentence = next(
        (m.group(0) for m in _SENTENCES.finditer(said) if m.start() <= plan.start() < m.end()),
        said,
    )
    figures = [q for q in scan(sentence) if q.kind in (NUMBER, RANGE, DATE, TIME)]
    if not figures or not calls:
        return False
    done = Vouchers(fold(c) for c in calls)
    return any(done.vouches(q) for q in figures)


#: The English verb a plan mark opens ("i'll send them myself": send), past adverbs.
_PLAN_VERB = re.compile(r"\s+(?:(?:just|then|probably|always|only|still|also)\s+)?([a-z]{2,})\b")
_IRREGULAR_PAIRS = [
    tuple(pair.split(" ", 1)) for pair in lexicon.words("irregular_verbs", ("en",)) if " " in pair
]
_PAST_FORMS = {
    base: frozenset(f for f, b in _IRREGULAR_PAIRS if b == base) for _f, base in _IRREGULAR_PAIRS
}
_WORD = re.compile(r"[a-z]+")


def _present_third(verb: str) -> str:
    """The verb's third person present: sends, pushes, carries, has."""
    if verb in ("have", "be", "do", "go"):
        return {"have": "has", "be": "is", "do": "does", "go": "goes"}[verb]
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _habitual(stated: str, said: str, plan: re.Match[str]) -> bool:
    """Whether an English "I'll …" is told as what the person does, in the present ("I'll
    send them myself" as "she sends them herself"): the plan's verb in its third person
    present, with no past form of it and no word of a deed done. A division of labour, not
    a deed reported done ("the user sent them" is still refused)."""
    m = _PLAN_VERB.match(said, plan.end())
    if m is None or not plan.group(0).isascii() or lexicon.pattern("done_mark").search(stated):
        return False
    verb, words = m.group(1), set(_WORD.findall(stated))
    if _present_third(verb) not in words:
        return False
    past = _PAST_FORMS.get(verb) or frozenset(
        {verb + "d" if verb.endswith("e") else verb + "ed", verb[:-1] + "ied"}
    )
    return not past & words


def _said_of_quotes(
    quotes: Sequence[str],
    prose: str,
    kind: str = "fact",
    *,
    acted: bool = False,
    stated: str | None = None,
    calls: Sequence[str] = (),
    shown: bool = False,
) -> list[Violation]:
    """What a candidate may say only when its quotes say it too: a deed where they say a
    plan ("I'll update the firmware" is not "the firmware was updated": the candidate must
    keep it a plan or a decision; where only the description or the curation says a plan
    word, "保護者会の準備をするとき" beside a body that says 作成した, its title or body --
    *stated* -- must not say it was done), and a comparison or a
    superlative ("cheaper", 最安, 更快) where no quote compares and no figure of the
    candidate shows it."""
    stated = prose if stated is None else stated
    said = fold("\n".join(_standing(q) for q in quotes)).lower()
    out: list[Violation] = []
    heads = _short_lines(quotes)
    plan = next(
        (
            m
            for m in lexicon.pattern("plan_mark").finditer(said)
            # "we are not going to add a second index" decides against: no plan to do it
            if not _NOT_BEFORE.search(said, max(0, m.start() - 6), m.start())
            # a heading that ends in the word (強制驗樓計劃): a programme's name, no plan
            and not _heading_word(said, m, heads)
        ),
        None,
    )
    done = lexicon.pattern("done_mark")
    if plan is None and not acted and not done.search(said) and done.search(prose):
        # "报告周五前发给陈思远", "leave the restart for tonight", 理由書は私が書きます: a time
        # to come, or the speaker's own "I will", in a quote that says nothing was done yet
        # is a plan, which a text saying it was done is not (a quoted call is what was
        # done: "反映済み" beside it speaks of the call)
        plan = lexicon.pattern("plan_time").search(said) or _I_WILL.search(said)
    if plan and acted and _carried_out(said, plan, calls):
        plan = None  # "I'll put it in for half two" and the call that wrote 14:30: done
    if plan and _habitual(stated, said, plan):
        plan = None  # "just make the PDFs, I'll send them myself": "she sends them herself"
    if plan and _deeds_told_done(stated, quotes):
        plan = None  # 消火器はもう業者に頼んだ beside 見積もり頼むわ: the deed is the one done
    if plan and (
        (not _kept_a_plan(stated) and (not _kept_a_plan(prose) or done.search(stated)))
        # "has been set …, as the user asked": a deed written done beyond doubt, where the
        # quotes say nothing was done, is no plan whatever asking word stands beside it
        or (not acted and not done.search(said) and _written_done(stated))
    ):
        out.append(Violation(FloorKind.SCOPE, "body", plan.group(0), FloorRule.PLAN_AS_DONE))
    owed = _OBLIGATION.search(said)
    if (
        owed
        and not out
        and not acted
        and not done.search(said)
        and done.search(stated)
        and not _kept_a_plan(stated)
        and not _OBLIGATION.search(stated)
    ):
        # 须提前30日报备 written 已提前30日报备: what must be done, written as done
        out.append(Violation(FloorKind.SCOPE, "body", owed.group(0), FloorRule.PLAN_AS_DONE))
    wish = lexicon.search("unsettled_wish", said)
    if wish and not out and not shown and not done.search(said) and _written_done(stated):
        # 練習試合入れたい。written 決まっている（先方了承済み）: a wish, settled by no one,
        # where no call or tool shows what was done
        out.append(Violation(FloorKind.SCOPE, "body", wish.group(0), FloorRule.PLAN_AS_DONE))
    tentative = lexicon.pattern("tentative").search(said)
    if tentative and not lexicon.pattern("tentative_kept").search(prose):
        # the quote keeps its mark, "（仮）", whole; a text that drops it settles the matter
        out.append(Violation(FloorKind.SCOPE, "body", tentative.group(0), FloorRule.PLAN_AS_DONE))
    if kind == ClaimKind.FACT:  # a judgement or an idea is a view: it may stay open
        out += _settled_figures(quotes, prose, calls)
    compared = _unshown_comparison(prose)
    if compared and not (comparison(said) or _says_extreme(said)):
        out.append(Violation(FloorKind.CONTENT, "body", compared, FloorRule.UNVOUCHED))
    if turned := reverses(prose, quotes):
        # "usage went up" where the quotes say it went down: a comparison no quote makes
        out.append(Violation(FloorKind.CONTENT, "body", turned, FloorRule.UNVOUCHED))
    return out


def _says_extreme(said: str) -> bool:
    """Whether quotes name a value the most or the least of its kind (max_grade, "peak
    load", "highest grade")."""
    return bool(
        lexicon.pattern("extreme_said").search(said.replace("_", " "))
        or _EXTREME_FIELD.search(said)
    )


#: A field named for the most or the least of something: max_grade, min-temp, grade.max.
_EXTREME_FIELD = re.compile(
    r"(?<![a-z0-9])(?:max|min)(?:imum)?[_.-](?=[a-z])|(?<=[a-z])[_.-](?:max|min)(?:imum)?(?![a-z0-9])"
)


#: A sentence: up to a stop (a Latin one followed by a space or the end, so "£7.15/kg" and
#: "v2.1" do not end one), a semicolon or a line break.
_SENTENCES = re.compile(r"(?:[^.!?。！？;；\n]|[.!?](?![\s.!?]|$))++(?:[.!?。！？;；]++|\n|$)")


#: Column names side by side, no figure among them: a table's header row (最低品温(℃)
#: 最高品温(℃) names columns; its 最高 bounds nothing).
_COLUMN_GAP = re.compile(r"\S(?:\t|[ \u3000]{2,}|,|\|)\S")


def _header_row(quote: str) -> bool:
    """Whether *quote* is one line of column names: two gaps or more, and no cell of it a
    bare figure (12℃超(回) is a name)."""
    line = quote.strip()
    if "\n" in line or len(_COLUMN_GAP.findall(line)) < 2:
        return False
    return not any(_BARE_FIGURE.fullmatch(cell) for cell in _CELL_SPLIT.split(line))


_CELL_SPLIT = re.compile(r"\t|[ \u3000]{2,}|,|\|")
#: A cell that is a value: a figure (with its sign, currency or a short unit), a date, a
#: clock time. A row with one is data, not column names.
_BARE_FIGURE = re.compile(
    r"\s*(?:[-+]?[¥$€£]?[\d.,]+(?:%|円|元|[A-Za-z]{1,3})?|\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|"
    r"\d{1,2}/\d{1,2}|\d{1,2}:\d{2}(?::\d{2})?)\s*"
)


def _settled_figures(
    quotes: Sequence[str], prose: str, calls: Sequence[str] = ()
) -> list[Violation]:
    """What a quote gives in a sentence that leaves it open -- a hedge, a deliberation, a
    bound or a wish ("pork might go up to 17.5", 12,800円に改定する方向で検討したい,
    "we might switch to the vegan menu") -- is vouched only as open: a sentence of the
    candidate that gives its figure, or says most of what it says, must keep it so
    (might, expected, proposed, 予定, 検討, 预计, a credit that says whose view it is …).
    The sentence is the unit, so a hedge in another sentence of the quote leaves the
    rest alone; a bound (up to, 上限) is the figure's own, and one sentence that gives the
    figure with it is enough ("人数上限 24 人 … max_riders: 24")."""
    folded_prose = fold(prose).lower()
    weak = (
        lexicon.words("unsettled_kept_weak")
        | lexicon.words("unsettled_bound")
        | lexicon.words("unsettled_partial")
    )
    keeps = _keep_words(folded_prose)
    if (not keeps or keeps <= weak) and (found := _one_sentence_mark(quotes, keeps, weak)):
        return found
    open_values, open_words = _left_open(quotes)
    for value in _set_by_acts(calls):
        # 2泊の予定を1泊に短縮したい beside the booking row the agent wrote with 1: what a
        # call set is settled, whatever a wish gave the same figure
        open_values.pop(value, None)
    if not open_values and not open_words:
        return []
    bounds = lexicon.words("unsettled_bound")
    restated = bool(
        lexicon.pattern("unsettled_partial").search(folded_prose) or _RESTATED.search(folded_prose)
    )
    bounded_kept: set[object] = set()
    bare: list[object] = []  # figures of a bound given in a sentence without it
    for m in _SENTENCES.finditer(folded_prose):
        sentence = m.group(0)
        values = [q.value for q in scan(sentence) if q.value in open_values]
        keeps = _keep_words(sentence)
        if keeps:
            if keeps <= weak and (
                hedged := [v for v in values if not _of_kind(open_values[v], weak)]
            ):
                # "decided to order 40 … before 27 November" for "maybe 40?": a time before, a
                # bound or a part keeps only a mark of its own kind open, never a hedge
                return [
                    Violation(FloorKind.SCOPE, "body", open_values[hedged[0]], FloorRule.AS_SETTLED)
                ]
            if crossed := _crossed(keeps, values, open_values):
                # "20俵以上" for 20俵まで, "at least 40" for "up to 40": a bound of the other side
                return [
                    Violation(
                        FloorKind.SCOPE, "body", open_values[crossed[0]], FloorRule.AS_SETTLED
                    )
                ]
            bounded_kept.update(values)
            continue
        if not values:
            have = content_tokens(sentence)
            hedges = [
                h
                for words, h in open_words
                if 2 * len(words & have) > len(words)
                # "except on rainy days" restated by another sentence of the text ("when it
                # rains, the hall instead"): the exception is kept, sentence apart
                and not (h in lexicon.words("unsettled_partial") and restated)
            ]
            if hedges:
                return [Violation(FloorKind.SCOPE, "body", hedges[0], FloorRule.AS_SETTLED)]
        for v in values:
            if open_values[v] not in bounds:
                return [Violation(FloorKind.SCOPE, "body", open_values[v], FloorRule.AS_SETTLED)]
            bare.append(v)
    unkept = [v for v in bare if v not in bounded_kept]
    if unkept:
        return [Violation(FloorKind.SCOPE, "body", open_values[unkept[0]], FloorRule.AS_SETTLED)]
    return []


#: An exception restated as a condition in another sentence: when it rains, 如果下雨, 雨の場合.
_RESTATED = re.compile(
    r"\b(?:when|if|unless|otherwise|instead)\b|除非|如果|要是|否则|的话|の場合|場合は|なら|ときは"
)


@functools.cache
def _sentence_only() -> frozenset[str]:
    """The marks read only in the sentence that restates them: bounds ("up to 24") and
    parts, exceptions and regrets (some of, 除了, べきだった)."""
    return (
        lexicon.words("unsettled_bound")
        | lexicon.words("unsettled_partial")
        | lexicon.words("unsettled_wish", ("ja",))
    )


def _left_open(
    quotes: Sequence[str],
) -> tuple[dict[object, str], list[tuple[frozenset[str], str]]]:
    """The figures the quotes give in a sentence that leaves them open (value -> the mark),
    and the words of such sentences that give no figure (with their mark)."""
    open_values: dict[object, str] = {}
    open_words: list[tuple[frozenset[str], str]] = []
    stated: set[object] = set()  # figures a sentence gives with nothing leaving them open
    for quote in quotes:
        if _header_row(quote):
            continue  # 最高品温(℃) names a column: it leaves no figure open
        for m, row in _sentences_and_rows(quote):
            approximate = _approximate(m.group(0))
            for q, approx in approximate:
                open_values.setdefault(q.value, approx)  # "about ¥300,000", 30万円くらい
            hedge = open_mark(m.group(0))
            if hedge is None:
                if not approximate:
                    stated.update(
                        q.value
                        for q in scan(m.group(0))
                        if q.kind == NUMBER and q.value is not None
                    )
                continue
            partial = hedge.group(0) in lexicon.words("unsettled_partial")
            figures = _figures_left_open(m.group(0), hedge, row)
            if figures is None:
                continue  # 他这个月加班最多——: "the most", a superlative, bounds nothing
            for q in figures:
                open_values.setdefault(q.value, hedge.group(0))
            if not figures and hedge.group(0) in lexicon.words("unsettled_wish", ("ja",)):
                continue  # "…送れるようにしたいです": a request, which the work may fulfil
            if not figures:
                words = content_tokens(m.group(0)[: hedge.start()] + m.group(0)[hedge.end() :])
                if len(words) >= (2 if partial else 3):
                    open_words.append((words, hedge.group(0)))
    for value in stated:
        # a figure one sentence hedges and another states is stated: 1127号牛可能是… beside
        # "我已经让挤奶工把1127单独挤了"
        open_values.pop(value, None)
    return open_values, open_words


def open_mark(sentence: str) -> re.Match[str] | None:
    """The mark that leaves a sentence's figures open: its first hedge, wish or other mark,
    else its first bound -- a bound that bounds only a figure beside it (``bound_beside``:
    "at least 40", 14時以降) counts only there ("after Thanksgiving, not before" and
    盖章以后 bound nothing; 以上价格 is "the prices above")."""
    bound: re.Match[str] | None = None
    found = lexicon.search("unsettled_mark", sentence)
    while found is not None:
        word = found.group(0)
        if _checked(sentence, found):
            pass  # 重点检查…是否保存不少于6个月, "check whether": what is checked, not doubted
        elif _AS_PLANNED.match(sentence, found.start()):
            pass  # 予定どおり2月12日でいけます: it goes as planned, the plan holds
        elif word == "最多" and _MOST_OF.match(sentence, found.end()):
            pass  # 最多品目: 小倉トースト (688食), 最多的是: the most, no bound
        elif word not in lexicon.words("unsettled_bound"):
            return found
        elif bound is None and _bounds_here(sentence, found):
            bound = found
        found = lexicon.search("unsettled_mark", sentence, found.end())
    return bound


#: "As planned": 予定どおり, 予定通り, 計画どおり -- what was planned holds.
_AS_PLANNED = re.compile(r"(?:予定|計画)(?:どおり|通り|どうり)")
#: What follows 最多 when it names the most of something, not an upper bound: 最多品目,
#: 最多の, 最多的, 最多记录.
_MOST_OF = re.compile(r"[ \t]*(?:の|的|品目|项目|項目|記録|记录|纪录|紀錄|者|回数|次数|得票)")
#: Words of a check whose object a "whether" opens: 检查…是否, 確認…かどうか, check whether.
_CHECKED = re.compile(
    r"检查|檢查|核查|查验|查驗|核实|核實|审核|審核|检测|檢測|抽查|巡查|确认|確認|点検|検査|調査|チェック"
    r"|(?i:\b(?:check|checks|checked|checking|verify|verifies|verified|inspect|inspects"
    r"|inspected|confirm|confirms|audit|audits|audited)\b)"
)
_WHETHER = frozenset({"是否", "是不是", "有没有", "かどうか", "whether"})


def _first_mark(sentence: str) -> re.Match[str] | None:
    """A sentence's first open mark, a bound that bounds no figure beside it passed over."""
    found = lexicon.search("unsettled_mark", sentence)
    while found is not None and (not _bounds_here(sentence, found) or _checked(sentence, found)):
        found = lexicon.search("unsettled_mark", sentence, found.end())
    return found


def _checked(sentence: str, mark: re.Match[str]) -> bool:
    """Whether a "whether" opens what a check before it checks (检查…是否, "verify
    whether"): the object of an inspection, not a doubt the person holds."""
    return mark.group(0) in _WHETHER and (
        _CHECKED.search(sentence, max(0, mark.start() - 40), mark.start()) is not None
    )


def _bounds_here(sentence: str, mark: re.Match[str]) -> bool:
    return mark.group(0) not in lexicon.words("bound_beside") or _beside(sentence, mark)


#: A figure right before a bound (3人以上, "2pm or later", 两点以后) or right after one
#: ("at least 40", 至少 3 天): its digits or numerals, and a unit of a few letters.
_FIGURE_BEFORE = re.compile(
    r"(?:\d[\d,]*(?:\.\d+)?|[〇一二两三四五六七八九十百千万]+)\s?[^\W\d]{0,3}\s?$"
)
_FIGURE_AFTER = re.compile(r"\s?[$¥€£]?\s?[\d〇一二两三四五六七八九十]")


def _beside(sentence: str, mark: re.Match[str]) -> bool:
    return bool(
        _FIGURE_BEFORE.search(sentence[max(0, mark.start() - 12) : mark.start()])
        or _FIGURE_AFTER.match(sentence, mark.end())
    )


def _figures_left_open(sentence: str, hedge: re.Match[str], row: bool) -> list[Quantity] | None:
    """The figures a sentence's open mark (*hedge*) leaves open, or None where the mark
    leaves nothing open at all (a superlative that ends its clause)."""
    figures = [
        q
        for q in scan(sentence)
        if q.kind in (NUMBER, RANGE)
        and q.value is not None
        # 第9〜14章 names the chapters the estimate is of: an ordinal is a label
        and sentence[max(0, q.start - 1) : q.start] != "第"
    ]
    if row:
        # a row's note (7/24までに振込予定) leaves only its own cell open, not the amount
        # beside it
        a, b = _cell_around(sentence, hedge.start())
        figures = [q for q in figures if a <= q.start < b]
    if hedge.group(0) in lexicon.words("unsettled_partial"):
        return []  # "some of the photos: the 2019 ones" leaves no figure open
    if hedge.group(0) in lexicon.words("unsettled_bound"):
        # a bound is its figure's own: "年額48,600円、補償額の上限は300万円" bounds only the
        # 300万円 of its clause
        a, b = _clause_around(sentence, hedge.start())
        own = [q for q in figures if a <= q.start < b]
        if (
            not own
            and hedge.group(0) in lexicon.words("bound_superlative")
            and _ENDS_CLAUSE.match(sentence, hedge.end())
        ):
            return None
        return own or figures
    return figures


def _of_kind(mark: str, weak: frozenset[str]) -> bool:
    """Whether an open mark is a bound, a time before, a part or an exception (以前は holds
    以前; "except for" is one): a word of its own kind keeps it."""
    return mark in weak or any(w in mark for w in weak if not w.isascii())


def _one_sentence_mark(
    quotes: Sequence[str], keeps: set[str], weak: frozenset[str]
) -> list[Violation]:
    """A one-sentence quote that holds an open mark was chosen to vouch the candidate: the
    candidate keeps it open somewhere, whatever its own sentences say -- with a figure or
    without one ("できれば来週から" is no date settled); a bound or a time before keeps only
    a mark of its own kind."""
    for quote in quotes:
        said = [m.group(0) for m in _SENTENCES.finditer(fold(quote).lower())]
        hedge = _first_mark(said[0]) if len(said) == 1 and not _header_row(quote) else None
        if hedge is None or hedge.group(0) in _sentence_only():
            continue
        if not _of_kind(hedge.group(0), weak) or not keeps:
            return [Violation(FloorKind.SCOPE, "body", hedge.group(0), FloorRule.AS_SETTLED)]
    return []


def _crossed(
    keeps: set[str], values: Sequence[object], marks: Mapping[object, str]
) -> list[object]:
    """The figures of a sentence whose bound it keeps on the other side only ("at least
    40" for "up to 40")."""
    sides = {_bound_side(k) for k in keeps} - {""}
    if len(sides) != 1:
        return []
    return [v for v in values if _bound_side(marks[v]) not in ("", *sides)]


def _bound_side(word: str) -> str:
    """Which side of its figure a bound is: "low" (at least, 以上, 以后), "high" (up to,
    まで, 最多), or "" for a word that is no bound."""
    if word in lexicon.words("bound_lower"):
        return "low"
    if word in lexicon.words("unsettled_bound") or word in ("まで", "までに"):
        return "high"
    return ""


#: A condition a candidate keeps for a quote cut from one: if, unless, 如果, 的话, 場合, なら.
_CONDITION_KEPT = re.compile(
    r"(?i:\b(?:if|unless|when|whenever|once|provided|providing|assuming|as[ \t]long[ \t]as"
    r"|only[ \t]after|condition(?:al|s)?|depends?|depending)\b)"
    r"|如果|要是|假如|若是|倘若|的话|的話|只要|除非|万一|萬一|前提|条件|條件|才"
    r"|場合|なら|たら|れば|限り|次第|ときは|時は"
)


def _open_kept(q: QuoteCheck, claim: str, tentative: object) -> bool:
    """Whether *claim* keeps open what cut quote *q* left out: a condition by a condition
    ("a quote" keeps none), a bound or a hedge by a keeper of the same side, or a tentative
    word."""
    if q.rule == "condition" and not _CONDITION_KEPT.search(claim):
        return False
    return q.rule in _SCOPE_CUTS and (_bound_kept(q, claim) or bool(tentative))


def _bound_kept(q: QuoteCheck, claim: str) -> bool:
    """Whether *claim* keeps an open mark for what cut quote *q* left out: a bound of the
    same side, or any other keeper (20俵まで told as 20俵以上 keeps nothing)."""
    bounded = lexicon.search("unsettled_kept", claim)
    return bounded is not None and not _opposite_bounds(_left_out(q.why), bounded.group(0))


def _opposite_bounds(a: str, b: str) -> bool:
    """Whether two bounds stand on the two sides of a figure."""
    x, y = _bound_side(a), _bound_side(b)
    return bool(x and y and x != y)


_LEFT_OUT = re.compile(r"leaves out (?:the \w+ )?'([^']{1,20})'")


def _left_out(why: str) -> str:
    """The word a cut quote left out, as its reason names it ("leaves out 'まで' of …")."""
    m = _LEFT_OUT.search(why)
    return m.group(1) if m else ""


def _keep_words(sentence: str) -> set[str]:
    """Every word of ``unsettled_kept`` in *sentence*, once each (none inside a longer word
    that is no keeper: 予約 holds 約)."""
    out: set[str] = set()
    m = lexicon.search("unsettled_kept", sentence)
    while m is not None:
        out.add(m.group(0))
        m = lexicon.search("unsettled_kept", sentence, m.end())
    return out


def _set_by_acts(calls: Sequence[str]) -> set[object]:
    """The figures the quoted calls (ACT) give where nothing leaves them open: what was
    written or set, as it was."""
    out: set[object] = set()
    for quote in calls:
        if _header_row(quote):
            continue
        for m, row in _sentences_and_rows(quote):
            # a row's cells each on their own (2026-02-20,1 is no list of days)
            for part in _CELL_MARK.split(m.group(0)) if row else [m.group(0)]:
                if lexicon.search("unsettled_mark", part) is None:
                    out.update(
                        q.value
                        for q in scan(part)
                        if q.kind in (NUMBER, RANGE) and q.value is not None
                    )
    return out


#: Where a data row's cells part: a comma no digit group's, a tab, a bar.
_CELL_MARK = re.compile(r",(?!\d{3}(?!\d))|\t|\|")


def _data_row(quote: str) -> bool:
    """Whether a quote is one row of a table or a CSV file: one line of four cells or
    more, parted by commas with no space after them, tabs or bars (prose parts a list
    with ", ")."""
    line = quote.strip()
    return "\n" not in line and ", " not in line and len(_CELL_MARK.findall(line)) >= 3


def _sentences_and_rows(quote: str) -> Iterator[tuple[re.Match[str], bool]]:
    """The sentences of a quote, folded and lower-cased, each with whether it is a row of a
    table: a line of CSV a call wrote or printed is one on its own; the lines between rows
    are read as prose, a sentence running on over a wrapped line."""
    block: list[str] = []
    for line in [*quote.split("\n"), None]:
        if line is not None and not _data_row(line):
            block.append(line)
            continue
        if block:
            yield from ((m, False) for m in _SENTENCES.finditer(fold("\n".join(block)).lower()))
            block = []
        if line is not None:
            yield from ((m, True) for m in _SENTENCES.finditer(fold(line).lower()))


def _cell_around(row: str, at: int) -> tuple[int, int]:
    """The cell of a data *row* that holds position *at*."""
    return _part_around(row, at, _CELL_MARK)


#: Nothing but the end of a clause after a word: a dash, a comma, a stop or the end.
_ENDS_CLAUSE = re.compile(r"[ \t]*(?:[—―\-–~〜、，,；;。.!！?？…]|$)")

#: Where a clause of a sentence ends: a comma that is no digit group's, a semicolon.
_CLAUSE_MARK = re.compile(r"[、，；;]|,(?!\d{3})")


def _clause_around(sentence: str, at: int) -> tuple[int, int]:
    """The clause of *sentence* that holds position *at*."""
    return _part_around(sentence, at, _CLAUSE_MARK)


def _part_around(text: str, at: int, marks: re.Pattern[str]) -> tuple[int, int]:
    """The part of *text* between two *marks* that holds position *at*."""
    start = 0
    for m in marks.finditer(text, 0, at):
        start = m.end()
    end = marks.search(text, at)
    return start, end.start() if end else len(text)


#: What makes a figure approximate, right before it (about, 約, 大约) or right after it
#: (くらい, 左右, "or so").
_APPROX_BEFORE = re.compile(
    r"(?:\b(?:about|around|roughly|approximately|approx\.?|circa|ca\.|some)|~|〜|约|約|大约|大約|大概|"
    r"およそ|おおよそ|ざっと|だいたい|大体)[ \t]*$"
)
_APPROX_AFTER = re.compile(
    r"[ \t]*(?:くらい|ぐらい|程度|前後|ほど|左右|上下|来|多|ish\b|or[ \t]+so\b)"
)


def _approximate(sentence: str) -> list[tuple[Quantity, str]]:
    """The figures of *sentence* that it gives as approximate, each with its word."""
    out = []
    for q in scan(sentence):
        if q.kind not in (NUMBER, RANGE) or q.value is None:
            continue
        before = _APPROX_BEFORE.search(sentence[max(0, q.start - 16) : q.start])
        after = _APPROX_AFTER.match(sentence, q.end, min(len(sentence), q.end + 8))
        found = before or after
        if found:
            out.append((q, found.group(0).strip()))
    return out


#: A comparison with another time: than last season, 比去年, 去年より.
_THAN_A_TIME = re.compile(
    r"(?i:\bthan\s+(?:last|the\s+previous|previous|the\s+last|a|the)\s+(?:season|year|month|week|time|quarter)"
    r"|\bthan\s+(?:last\s+)?(?:yesterday|before|ever|usual))"
    r"|比(?:去年|上次|上个月|上個月|以前|往年|前年|上季|上一季)|(?:去年|前年|先月|前回|昨年|以前|前期)(?:より|と比べ)"
)
_FULL_SENTENCES = re.compile(r"(?:[^.!?。！？\n]|[.!?](?![\s.!?]|$))++(?:[.!?。！？]++|\n|$)")


def _unshown_comparison(prose: str) -> str:
    """The first comparison or superlative that no two values of its own sentence show
    ("10,400 EUR is cheaper than 11,900 EUR" shows it; "2 hour seatings are more
    profitable" does not: one figure compares nothing). "" when there is none."""
    shown: set[str] = set()
    unshown: list[str] = []
    for m in _FULL_SENTENCES.finditer(prose):
        sentence = m.group(0)  # a list after a semicolon goes on comparing (…最大…；其次…)
        compared = comparison(sentence)
        if not compared:
            continue
        units: dict[str, set] = {}
        for q in scan(sentence):
            if q.kind in (NUMBER, RANGE) and q.value is not None:
                units.setdefault(q.unit, set()).add(q.value)
        if any(len(values) >= 2 for values in units.values()) and not _THAN_A_TIME.search(sentence):
            shown.add(compared)  # not "…148% and 131%, better than last season": two
            # figures of this season show nothing about another
        else:
            unshown.append(compared)
    # a title's "金额最大的是…" stands when the body's sentence with the same word shows it
    return next((c for c in unshown if c not in shown), "")


def _settle(
    result: Callable[..., GateResult],
    reasons: list[str],
    kind: str,
    present: set[str],
    fields: Mapping[str, Any],
    violations: Sequence[Violation],
    tag_checks: Mapping[str, str],
    survived: int,
) -> GateResult:
    """The verdict on a candidate whose quotes survived: SELF alone keeps only a judgement in
    the first person; any floor violation drops it."""
    if present == {ProvenanceClass.SELF} and kind != ClaimKind.JUDGEMENT:
        return result(
            "dropped",
            "only the agent's own words vouch for it: a SELF-only candidate "
            "is kept only as a first-person judgement (kind judgement)",
            drop="self_only_fact",
            violations=violations,
            tag_checks=tag_checks,
        )
    if violations:
        return result(
            "dropped",
            "refused by the floor",
            drop="floor",
            violations=violations,
            tag_checks=tag_checks,
        )
    if present == {"SELF"}:
        prose = "\n".join(v for v in fields.values() if isinstance(v, str))
        if not _FIRST_PERSON.search(prose):
            return result(
                "dropped",
                "a judgement resting on the agent's own words must be written in "
                "the first person, as its view",
                drop="not_first_person",
                tag_checks=tag_checks,
            )
        reasons.append("kept as a first-person judgement: only SELF evidence survived")
        return result("kept", tag_checks=tag_checks, label="judgement")
    reasons.append(f"{survived} quote(s) verified ({', '.join(sorted(present))})")
    return result("kept", tag_checks=tag_checks)


def _idea(
    result,
    fields: Mapping[str, str],
    evidence: Evidence,
    human_names: Sequence[str],
    candidate: Mapping[str, Any],
    floors: Floors,
    session: Sequence[tuple[str, str, str]] = (),
) -> GateResult:
    """Ideas go to seeds, with or without quotes -- unless they are facts dressed as ideas."""
    prose = "\n".join(v for v in fields.values() if v)
    settled = _settled_credit(prose, human_names)
    if settled:
        return result(
            "dropped",
            f'fact dressed as an idea: credits someone with a decision ("{_short(settled, 40)}")',
            drop="fact_as_idea",
        )
    measured = _measurements(prose, evidence)
    if measured and not lexicon.search("idea_proposes", fold(prose).lower()):
        return result(
            "dropped",
            f"fact dressed as an idea: states the measurement {measured[0]}",
            drop="fact_as_idea",
        )
    violations = floors.surface(fields, evidence, human_names=human_names)
    # an idea may say what someone said or wants, as a fact may: only what its quotes carry
    # ("the user approved X" with nothing of the person's behind it is a fact dressed up)
    credits = [v for v in violations if v.kind == FloorKind.ATTRIBUTION]
    if credits:
        return result(
            "dropped",
            f'fact dressed as an idea: credits someone ("{_short(credits[0].text, 40)}") '
            "with what no quote of theirs carries",
            drop="fact_as_idea",
            violations=credits,
        )
    violations += floors.tags(candidate.get("tags") or [], evidence, human_names=human_names)
    # an idea is the agent's own: its figures may come from the agent's own words, and it
    # may name what it proposes (a seed is not stored; it graduates only through the gate,
    # on evidence that vouches its figures and names)
    # ... and an idea may use a figure the session gives (3号棚, the 403 it saw): a seed is
    # not stored as a memory, and graduates only through the gate, on its own quotes
    told = _session_figures(fields, session)
    violations = [
        v
        for v in violations
        if not (v.kind == FloorKind.TAG and v.rule == FloorRule.NEEDS_EVIDENCE)
        and not (v.kind == FloorKind.NUMBER and v.rule == FloorRule.SELF_ONLY)
        and not (v.kind == FloorKind.NUMBER and v.text in told)
        and v.kind != FloorKind.NAME
    ]
    if violations:
        return result("dropped", "refused by the floor", drop="floor", violations=violations)
    return result("seed", "ideas go to seeds, never to the store")


def _session_figures(
    fields: Mapping[str, str], session: Sequence[tuple[str, str, str]]
) -> frozenset[str]:
    """The figures of an idea (canonical form) that some segment of the session gives."""
    found = [q for v in fields.values() if v for q in scan(v)]
    if not found or not session:
        return frozenset()
    vouch = Vouchers(t for c, t, _own in session)
    return frozenset(q.canon for q in found if vouch.vouches(q))


def _settled_credit(prose: str, human_names: Sequence[str]) -> str:
    """The first credit in an idea that says the person took a decision ("the user approved
    X", ユーザーは…を承認した, 用户决定…): an idea proposes, a decision is a fact ("" when
    there is none). What else an idea credits is judged as a fact's credit is."""
    folded = fold(prose).lower()
    settled = lexicon.pattern("settled")
    for claim in claims(prose, human_names):
        if claim.who != HUMAN:
            continue
        near = folded[claim.start : claim.end + _SETTLED_REACH]
        if settled.search(near) and not lexicon.pattern("idea_unsettled").search(near):
            return claim.phrase
    return ""


#: How far after a credit to the person its verb may stand (ユーザーは…を承認した).
_SETTLED_REACH = 40


def _measurements(prose: str, evidence: Evidence) -> list[str]:
    """Figures in an idea that state a measurement: an amount that TOOL output among the
    idea's evidence gives (a tool measured it, whoever repeats it). A figure only the
    person gave ("maybe raise it to 240元 next year") is theirs to muse on, and a day or
    a date is no measurement. An idea that proposes (could, 可以, かも: the list
    ``idea_proposes``) may state one as its ground."""
    tool = Vouchers(t for c, t in evidence.segments if c == "TOOL")
    out: dict[str, None] = {}
    for q in scan(prose):
        if q.kind in (NUMBER, RANGE) and tool.vouches(q):
            out.setdefault(q.canon, None)
    return list(out)


def _sift_tags(tags: object, evidence: Evidence) -> tuple[dict[str, str], list[str]]:
    """The check of each tag, kept in the manifest: the distiller's own tags are taken off a
    candidate (it survives without them); a claim tag without its evidence -- a surviving
    quote of its class that says what it claims -- is a floor violation (the tag is text
    the store would keep, and it is checked as the text is), so it stays to be refused."""
    checks: dict[str, str] = {}
    notes: list[str] = []
    if not isinstance(tags, list):
        return checks, notes
    for tag in tags:
        if not isinstance(tag, str):
            continue
        key = tag_key(tag)
        if key in DISTILLER_TAGS:
            checks[tag] = f"{key} is written by the distiller, not proposed"
            notes.append(f"tag {tag} removed: {checks[tag]}")
        elif not tag_carried(key, evidence):
            needs = CLAIM_TAGS[key]
            classes = " or ".join(c for c in CLASSES if c in needs)
            checks[tag] = f"needs a surviving {classes} quote that says it"
        else:
            checks[tag] = "ok"
    return checks, notes


def _evidence(index: _Index, survivors: Sequence[tuple[QuoteCheck, int]]) -> Evidence:
    segs: dict[tuple[int, str], tuple[str, str]] = {}
    quotes = []
    heard: list[str] = []
    pasted: list[str] = []
    for q, pos in survivors:
        if pos < 0 or q.segment is None:
            continue
        cls = q.segment.cls
        text = index.vouching(pos, cls)
        # a reply that picks an option says what the option says ("b." for "(b) a CSV file
        # in the repo"): the option's words, figures and names are the person's choice
        choice = index.answered(pos) if cls == ProvenanceClass.USER else ""
        segs[(pos, cls)] = (cls, f"{text}\n{choice}" if choice else text)
        if cls == ProvenanceClass.USER:
            words = index.own_words(pos) + (f"\n{choice}" if choice else "")
            quotes.append((cls, q.text, words))
            if normalize(q.text) not in normalize(words):
                # a quote from what the person pasted (a label's line and its message):
                # the paste, whole, tells whose words they are
                heard.append(q.segment.text)
            elif words != index.segments[pos].text:
                pasted.append(q.segment.text)  # their own words beside someone's paste
            continue
        if index.segments[pos].cls == ProvenanceClass.USER:
            heard.append(q.segment.text)  # what the person pasted: someone's words
        quotes.append((cls, q.text, q.segment.text))
    refused: list[str] = []
    for q, pos in survivors:
        if pos < 0 or q.segment is None:
            continue
        if q.segment.cls == ProvenanceClass.ACT and index.outcome(pos) == "refused":
            refused.append(q.segment.text)
        elif q.segment.cls == ProvenanceClass.TOOL and _REFUSED_RESULT.search(
            q.segment.text[:4000]
        ):
            # the host's record of the refusal, quoted: "User rejected the command." in or
            # after a block that files the command itself as output (SpecStory)
            call = index.segments[pos - 1].text if pos else ""
            refused.append(f"{call}\n{q.segment.text}")
        elif q.segment.cls == ProvenanceClass.USER:
            # the person's reason, typed as they refused the call just before it
            for j in range(pos - 1, max(-1, pos - 3), -1):
                if index.segments[j].cls == ProvenanceClass.ACT:
                    if index.outcome(j) == "refused":
                        refused.append(index.segments[j].text)
                    break
    return Evidence.of(
        segs.values(),
        quotes,
        refused=list(dict.fromkeys(refused)),
        heard=dict.fromkeys(heard),
        pasted=dict.fromkeys(pasted),
    )


def evidence_from_segments(
    segments: Sequence[Segment],
    quotes: Sequence[tuple[str, str, str]] = (),
    *,
    vouch: Mapping[int, str] | None = None,
) -> Evidence:
    """An :class:`Evidence` for the floors from whole segments (a draft's manifest)."""
    vouch = vouch or {}
    return Evidence.of(((s.cls, vouch.get(i, s.text)) for i, s in enumerate(segments)), quotes)


def run_gate(
    candidates: list[dict],
    segments: Sequence[Segment],
    *,
    is_echo: Echo = lambda s: False,
    human_names: Sequence[str] = (),
    min_quote_chars: int = 8,
    deadline: Deadline | None = None,
    floors: Floors | None = None,
) -> list[GateResult]:
    """Gate every candidate against the batch *segments*; one result per candidate, in
    order. ``is_echo`` receives a normalised quote (or a piece of a tool's output) and
    says whether the store already holds it (see :class:`StoreEcho`). With a *deadline*,
    a check that runs past it raises :class:`~kura_core.budget.Overran` naming itself."""
    candidates = [_quotes_as_read(c) for c in candidates]
    human_names = _with_introduced(human_names, segments)
    index = _Index(segments, is_echo, deadline, human_names)
    index.warm(_needles(candidates, min_quote_chars))
    out = []
    for c in candidates:
        out.append(
            _gate_one(
                c,
                index,
                is_echo=is_echo,
                human_names=human_names,
                min_quote_chars=min_quote_chars,
                floors=floors or Floors(),
            )
        )
    return out


def _with_introduced(human_names: Sequence[str], segments: Sequence[Segment]) -> tuple[str, ...]:
    """The configured names of the person, the ones they give themselves in the batch in
    their own words ("Hi, I'm Dana", 田村でございます, 我是小林), the names they are called by
    where a message they received or the agent's reply speaks to them (佐藤様, "好的王园长，")
    and the owner of the home directory the session works in (/home/dana): a memory that
    names them so credits the person, as it would with the name configured."""
    found: list[str] = list(human_names)
    for s in segments:
        if s.cls == ProvenanceClass.USER:
            found += introduced(s.text) + addressed(s.text)
        elif s.cls == ProvenanceClass.SELF and s.kind.startswith(
            ("assistant message", "assistant text", "model text")
        ):
            found += addressed(s.text, agent=True)
        found += home_owner(s.text)
    # the person's login or Latin name as the session's Chinese or Japanese writes them
    # (/home/kuroki is 黒木さん, /home/lin is 林老板)
    found += [f for n in list(found) for f in cjk_forms(n, ZH_SURNAMES)]
    return tuple(dict.fromkeys(found))


def gate_journal(
    journal: str | os.PathLike[str],
    candidates: Sequence[Any] | Callable[[], Sequence[Any]],
    *,
    adapter: str | None = None,
    rules: SecretRules | None = None,
    is_echo: Echo = lambda s: False,
    human_names: Sequence[str] = (),
    min_quote_chars: int = 8,
) -> tuple[str, JournalRead, list[GateResult], dict[str, str]]:
    """The gate on *candidates* against one whole journal, as ``kura gate`` runs it: the
    journal read and the gate run under one set of secret *rules* (the store's, or the
    built-in ones), the same rules and floors the distiller runs under. *candidates* may be
    a function that loads them, called once the journal is read (a journal that cannot be
    read is reported first). Returns the adapter used, what was read, one result per
    candidate, and the values the journal's redaction took out (raw value -> kind).

    The distiller's model only ever sees the journal redacted; candidates handed to
    ``kura gate`` may copy the raw journal. The gate runs under the rules *and* the values
    their redaction took out: a quote that copies one reads with its marker, as the
    evidence does, and a stored field that copies one is a raw secret to the shape floor,
    whatever the value looks like on its own."""
    from .journals import read_journal

    active = rules or BUILTIN
    with using_rules(active), collecting() as known:
        used, read = read_journal(Path(journal), adapter)
    given = list(candidates() if callable(candidates) else candidates)
    with using_rules(active.knowing(known)):
        results = run_gate(
            given,
            list(read.segments),
            is_echo=is_echo,
            human_names=human_names,
            min_quote_chars=min_quote_chars,
        )
    return used, read, results, dict(known)


def _quotes_as_read(candidate: Any) -> Any:
    """*candidate* with its quotes redacted as the journal readers redact the evidence (the
    rules active here, :func:`kura_core.secrets.active_rules`), so a quote that copies a
    secret finds the marker that stands for it. Only the quotes: a raw secret in a field
    that would be stored is the shape floor's to refuse, whoever calls the gate."""
    if not isinstance(candidate, Mapping) or not isinstance(candidate.get("quotes"), list):
        return candidate
    rules = active_rules()
    quotes = [rules.redact(q).text if isinstance(q, str) else q for q in candidate["quotes"]]
    return {**candidate, "quotes": quotes}


def _needles(candidates: Sequence[object], min_chars: int) -> list[str]:
    """Every form of every quote the gate will look up (see :func:`_check_quote`)."""
    out: list[str] = []
    for c in candidates:
        quotes = c.get("quotes") if isinstance(c, Mapping) else None
        for raw in quotes if isinstance(quotes, list) else []:
            if isinstance(raw, str):
                rest = parse_claimed(raw)[1]
                out += [v for v in _variants(normalize(rest)) if quote_weight(v) >= min_chars]
    return out


__all__ = [
    "CLASS_PREFERENCE",
    "DROP_CODES",
    "FLOOR_FIELDS",
    "Floors",
    "GateResult",
    "KINDS",
    "QuoteCheck",
    "StoreEcho",
    "disguises",
    "evidence_from_segments",
    "gate_journal",
    "run_gate",
]
