"""The loom: weave the index into the three-layer cloth an agent wears.

    pinned   frontmatter type in ``pinned_types``   kept in full
    fresh    changed within ``fresh_days``          kept in full
    trigger  everything else                        compressed to about ``trigger_tokens``

Trigger lines are written by the scribe (task ``kura_trigger``) and kept in the workshop's
``trigger_ledger`` keyed on sha256(description, budget, LEDGER_VERSION), so a steady-state
re-weave asks no model anything. Every scribe line passes the trigger floors (no invented or
re-bound number, no dropped or added negation, no invented attribution, no dropped ⚠️, no
added link); a refused line is logged (gate_log kind ``trigger-refused``) and the mechanical
trim is worn instead. With no scribe reachable the loom trims mechanically: never blank,
never inside a number, ⚠️ and negations kept, cut at a word boundary and marked "…".

Age is the newest date written inside the memory (:meth:`Memory.date`: frontmatter
``created``/``updated``/``date``, or a date in the file's first 4,000 characters such as
``Settled on 2026-11-28`` or ``2026年11月28日``; one later than tomorrow is ignored), else
the file's mtime —
unless that mtime's calendar day is shared by a fifth or more of the store's memories
(``cp -r``, a restore or a checkout resets every timestamp), in which case the age is
unknown and the memory is not fresh.

The cloth keeps exactly the index's entry links in the same order, and every other line
of ``MEMORY.md`` untouched. It is written to ``_still/woven.md`` compare-and-swap
(:mod:`kura_core.cloth`: the header comment carries the sha256 of the ``MEMORY.md`` text it
was built from, and when the index changed while weaving nothing is written).

A weave is a few named steps (see "weaving, step by step" below), each a function or a small
value that can be run and tested on its own; :func:`weave` only runs them in order.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .cloth import (
    WOVEN_FILE,
    Persisted,
    index_sha,
    read_cloth as read_cloth,  # where callers have always found it
    write_cloth,
)
from .config import PrefillConfig
from .errors import KuraError, ModelUnavailable
from .floors import BUDGET, MARKUP, ORDER, Violation, check_rewrite, negations_in, scan
from .floors.kura_messages import WEAVE_RETRY, kura_message_violations
from .floors.quantities import covers
from .prefill import frame_overhead, header_text
from .profile import preamble
from .prompts import messages as build_messages
from .script import CJK, CJK_CHAR
from .store import INDEX_FILE, Entry, Index, Memory, links_in as wiki_links, parse_index
from .tokens import estimate_tokens
from .vocabulary import GateLogKind

#: Bump to invalidate every cached trigger (a new prompt, new floors).
LEDGER_VERSION = "1"
#: A refused trigger is not asked again for this long; the mechanical line is worn meanwhile.
REFUSED_RETRY_S = 7 * 24 * 3600.0
#: Ledger rows no line has used for this long are forgotten (they only save a model call).
LEDGER_KEEP_S = 90 * 24 * 3600.0
#: A scribe line may run this much over ``trigger_tokens`` ("about" the budget).
SCRIBE_SLACK = 1.25
#: After this many failed scribe calls in one weave, the rest of it trims mechanically.
MAX_FAILURES = 3
#: Scribe calls in flight at once.
CONCURRENCY = 4

LAYERS = ("pinned", "fresh", "trigger")

TRIGGER_SCHEMA = {
    "type": "object",
    "properties": {"trigger": {"type": "string"}},
    "required": ["trigger"],
}

TRIGGER_INSTRUCTIONS = """\
You write the trigger lines of a long-term memory's map. The map is worn in an agent's
system prompt, one line per memory; older memories are shown only by a short recognition
trigger, so the agent can tell at a glance that the store knows something about a subject
and recall it for the detail.

You will be given one memory's title and its index line (the description). Rewrite the
description as a recognition trigger of at most {budget} tokens (about {words} English words,
or about {budget} characters of Japanese or Chinese).

Keep what makes the memory recognisable: proper nouns, the numbers exactly as written with
their units, every ⚠️ marker, every negation (not, never, no, don't, ない, 不…), and the
conclusion reached. Drop filler. If the line could be swapped with another memory's line and
still read fine, it is not doing its job.

Never add anything the description does not say: no number, no name, no link, no ⚠️, no
claim about who decided, asked or said something. Write in the description's language, as
one line of plain text: no Markdown link, no title, no leading dash.

Reply with JSON only: {{"trigger": "..."}}"""

# =========================================================================== results


@dataclass(frozen=True)
class WeaveResult:
    store: str
    lines: tuple[tuple[str, str, str], ...]  # (layer, slug, worn text) in index order
    layers: Mapping[str, int]
    tokens_est: int  # the resident block this cloth makes (header and markers included)
    budget_tokens: int
    ceiling_tokens: int
    fresh_days: int  # configured
    fresh_days_used: int | None  # None when no setting fits
    model_calls: int
    mechanical: int  # lines worn from the mechanical trim
    refused: tuple[tuple[str, str], ...]  # (slug, reason)
    written: bool
    reason: str  # why nothing was written ("" when written)
    heaviest: tuple[tuple[str, str, int], ...]  # (slug, layer, tokens), heaviest first
    weight: Mapping[str, int] = field(default_factory=dict)  # tokens per layer, "other" lines too
    ledger_hits: int = 0
    unchanged: bool = False  # the cloth on disk was already this one
    index_sha256: str = ""
    path: str = ""
    cloth: str = ""
    distrusted_days: tuple[str, ...] = ()
    model_error: str = ""  # why the scribe stopped being asked, when it did
    elapsed_ms: float = 0.0
    #: True when no setting fits the budget: the lightest map was woven (and written) anyway,
    #: and ``warning`` says so and where the weight is.
    over_budget: bool = False
    warning: str = ""
    fresh_days_worn: int | None = None  # the fresh window the cloth was woven with

    def to_json(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "written": self.written,
            "reason": self.reason,
            "unchanged": self.unchanged,
            "layers": dict(self.layers),
            "tokens_est": self.tokens_est,
            "budget_tokens": self.budget_tokens,
            "ceiling_tokens": self.ceiling_tokens,
            "fresh_days": self.fresh_days,
            "fresh_days_used": self.fresh_days_used,
            "model_calls": self.model_calls,
            "ledger_hits": self.ledger_hits,
            "mechanical": self.mechanical,
            "refused": [{"slug": s, "reason": r} for s, r in self.refused],
            "heaviest": [{"slug": s, "layer": l, "tokens": t} for s, l, t in self.heaviest],
            "weight": dict(self.weight),
            "distrusted_days": list(self.distrusted_days),
            "model_error": self.model_error,
            "over_budget": self.over_budget,
            "warning": self.warning,
            "fresh_days_worn": self.fresh_days_worn,
            "index_sha256": self.index_sha256,
            "path": self.path,
            "elapsed_ms": round(self.elapsed_ms, 2),
            "lines": [{"layer": l, "slug": s, "text": t} for l, s, t in self.lines],
        }


class WeaveError(KuraError):
    """The cloth could not be woven faithfully (it would lose, add or reorder a link)."""


# =========================================================================== the floors


#: ``[text](target)``; the text holds no ``[`` of its own, so each bracket starts at most one
#: attempt (with ``[`` allowed, a line of them took quadratic time)
_MD_LINK = re.compile(r"\[[^\[\]\n]*+\]\([^)\s]*+\)")
_URL = re.compile(r"\b(?:https?|ftp|file)://\S+", re.IGNORECASE)
_MARKUP = ("<<<", ">>>", "<!--", "-->")


def _links(text: str) -> set[str]:

    found = {f"[[{s}]]" for s in wiki_links(text)}
    found |= {m.group(0) for m in _MD_LINK.finditer(text)}
    found |= {m.group(0).rstrip(".,;:)") for m in _URL.finditer(text)}
    return found


def trigger_floor(
    trigger: str, description: str, *, budget: int | None = None, human_names: Sequence[str] = ()
) -> list[Any]:
    """Why *trigger* may not stand for *description* (empty: it may), as the floors'
    structured violations (:func:`kura_core.floors.check_rewrite` and three of its own):

    * blank;
    * a figure the description does not have (the same value and unit, by meaning), or
      figures in another order than the description's (a swap re-binds them);
    * a negation dropped or added; a ⚠️ dropped or added;
    * kura's own words (a retry's explanation pasted back,
      :mod:`kura_core.floors.kura_messages`);
    * an attribution the description does not make;
    * a link (``[[slug]]``, ``[..](..)``, URL) or map markup (``<<<``, ``>>>``, HTML
      comments) the description does not have;
    * with *budget*: more than ``SCRIBE_SLACK`` × budget tokens.
    """

    out = check_rewrite(trigger, description, field_name="trigger", human_names=human_names)
    if out and out[0].rule == "empty":
        return out
    # a retry's explanation pasted back ("⚠️ landmine mark (trigger)") is kura's, not the line's
    out += kura_message_violations({"trigger": trigger}, source=description)
    d_q = scan(description)
    order = []
    flagged = {v.text for v in out if v.kind == "number"}
    for q in scan(trigger):
        for i, e in enumerate(d_q):
            if covers(q, e):
                order.append(i)
                if not covers(e, q) and q.canon not in flagged:
                    # a trigger keeps a figure whole, with its unit, or leaves it out
                    out.append(Violation("number", "trigger", q.canon, "partial", e.canon))
                break
    for a, b in zip(order, order[1:], strict=False):
        if b < a:
            out.append(Violation(ORDER, "trigger", f"{d_q[a].canon} and {d_q[b].canon}", "swapped"))
            break
    d_links = _links(description)
    for link in sorted(_links(trigger) - d_links):
        out.append(Violation(MARKUP, "trigger", link, "link"))
    for mark in _MARKUP:
        if mark in trigger and mark not in description:
            out.append(Violation(MARKUP, "trigger", mark, "markup"))
    if budget is not None:
        tokens = estimate_tokens(trigger)
        if tokens > budget * SCRIBE_SLACK:
            out.append(Violation(BUDGET, "trigger", str(tokens), "over", str(budget)))
    return out


# =========================================================================== mechanical trim

#: a word or one CJK character, with the spaces before it (read from the first of them)
_ATOM = re.compile(rf"(?<!\s)\s*+(?:[{CJK}]|[^\s{CJK}]++)")
_TRAIL = ",;:、，；：—–-([{（「『/\\|&+ "
ELLIPSIS = "…"


@functools.lru_cache(maxsize=1 << 16)
def _tokens(text: str) -> int:
    return estimate_tokens(text)


def _rstrip_join(text: str) -> str:
    return text.rstrip(_TRAIL)


def _render(atoms: Sequence[str], kept: Sequence[int]) -> str:
    parts: list[str] = []
    prev = -1
    for i in kept:
        a = atoms[i]
        if prev >= 0 and i != prev + 1:
            parts[-1] = _rstrip_join(parts[-1])
            parts.append(" " + ELLIPSIS if a[:1].isspace() else ELLIPSIS)
        parts.append(a)
        prev = i
    text = "".join(parts).strip()
    if prev != len(atoms) - 1:
        text = _rstrip_join(text).rstrip() + ELLIPSIS
    return text


def _must_keep(atoms: Sequence[str]) -> tuple[set[int], set[int]]:
    """Atoms that carry a ⚠️ or a negation (must), and a little context after each
    negation (what it negates)."""

    must: set[int] = set()
    context: set[int] = set()
    n = len(atoms)
    for i, a in enumerate(atoms):
        if "⚠" in a:
            must.add(i)
    if not negations_in("".join(atoms)):
        return must, context
    for i in range(n):
        lo = max(0, i - 4)
        before = negations_in("".join(atoms[lo:i]))
        after = negations_in("".join(atoms[lo : i + 1]))
        if len(after) > len(before):
            word = after[-1]
            cjk = bool(CJK_CHAR.fullmatch(atoms[i].strip() or "x"))
            back = len(word) - 1 if cjk else 0
            for j in range(max(0, i - back), i + 1):
                must.add(j)
            # what is negated: after it in English and Chinese, before it in Japanese
            reach_back, reach_on = (4, 3) if cjk else (0, 2)
            for j in range(max(0, i - back - reach_back), min(n, i + 1 + reach_on)):
                context.add(j)
    return must, context - must


def _script(ch: str) -> str:
    o = ord(ch)
    if 0x3040 <= o <= 0x309F:
        return "h"
    if 0x30A0 <= o <= 0x30FF or 0x31F0 <= o <= 0x31FF or 0xFF66 <= o <= 0xFF9F:
        return "k"
    if CJK_CHAR.match(ch):
        return "c"
    if ch.isalnum():
        return "l"
    return "p"


def _good_cut(atoms: Sequence[str], p: int) -> bool:
    """Whether cutting before atom *p* falls on a word boundary. Latin words are whole
    atoms; between CJK characters a boundary is a change of script (not kanji followed by
    its kana ending) or punctuation."""
    if p >= len(atoms) or atoms[p][:1].isspace():
        return True
    prev, nxt = atoms[p - 1][-1], atoms[p][0]
    sp, sn = _script(prev), _script(nxt)
    if sp == "p":
        return True
    if sn == "p":
        return False
    return sp != sn and not (sp == "c" and sn == "h")


#: where a Chinese or Japanese line splits into clauses: after its punctuation (full or
#: half width), and after a spaced dash
_CLAUSE_END = re.compile(r"(?<=[。、，；：！？,;:!?])|(?<=\s—)\s|(?<=\s-)\s")


#: where a Latin-script line splits into clauses: after , ; : . ! ? or a closing bracket
#: followed by a space (never inside "1,000" or "3.2"), and around a spaced dash
_LATIN_CLAUSE_END = re.compile(r"(?<=[,;:.!?…)\]])(?=\s)|(?<=\s[—–-])(?=\s)")


def _whole_clauses(desc: str, budget: int, *, cjk: bool) -> str:
    """*desc* trimmed by whole clauses, not by words or characters, or "" (no answer).

    Cutting inside a clause leaves fragments a reader cannot parse ("家族の…ない…"), so
    whole clauses are kept: the first one, every clause that carries a ⚠️ or a negation,
    then following clauses while they fit *budget*. If the first clause and the clauses
    that must stay do not fit together, the first clause gives way. A Chinese or Japanese
    line (*cjk*) may run up to half again over the budget rather than lose its sense, and
    its clauses and "…" are joined with no spaces.
    """

    splitter, slack = (_CLAUSE_END, 1.5) if cjk else (_LATIN_CLAUSE_END, 1.0)
    clauses = [c for c in splitter.split(desc) if c and c.strip()]
    if len(clauses) < 2:
        return ""
    cost = [estimate_tokens(c) for c in clauses]
    must = {i for i, c in enumerate(clauses) if "⚠" in c or negations_in(c)}
    for start in [0] if 0 in must else [0, None]:
        kept = set(must) | ({start} if start is not None else set())
        if not kept:
            continue
        used = sum(cost[i] for i in kept)
        for i in range(len(clauses)):
            if i not in kept and used + cost[i] <= budget and (i == 0 or i - 1 in kept):
                kept.add(i)
                used += cost[i]
        if cjk and used > budget * slack:  # the clauses alone already run over
            continue
        text = _join_clauses(clauses, sorted(kept), "" if cjk else " ")
        if estimate_tokens(text) <= budget * slack and not trigger_floor(text, desc):
            return text
    return ""


def _join_clauses(clauses: Sequence[str], kept: Sequence[int], space: str) -> str:
    """The *kept* clauses, a "…" (with *space* around it) for each stretch left out.
    With no *space* (Chinese and Japanese), no space between two clauses either."""
    parts: list[str] = []
    prev = -1
    for i in kept:
        if prev >= 0 and i != prev + 1:
            parts[-1] = _rstrip_join(parts[-1]).rstrip()
            parts.append(space + ELLIPSIS + space)
        elif prev < 0 and i > 0:
            parts.append(ELLIPSIS + space)
        gap = prev < 0 or i != prev + 1
        parts.append(clauses[i].strip() if gap or not space else clauses[i].rstrip())
        prev = i
    text = "".join(parts)
    if prev != len(clauses) - 1:
        text = _rstrip_join(text).rstrip() + ELLIPSIS
    return text


def _prefix_cut(atoms: Sequence[str], desc: str, budget: int) -> str:
    """The longest start of the line that ends on a word boundary, fits *budget* with its
    "…" and keeps every ⚠️ and negation with what it negates: no stretch in the middle is
    ever skipped. "" when no such start fits."""
    must, context = _must_keep(atoms)
    need = max(must | context, default=-1) + 1
    for dangling_ok in (False, True):  # first try not to end on "the", "and", "on"…
        for p in range(len(atoms) - 1, max(need, 1) - 1, -1):
            if not _good_cut(atoms, p):
                continue
            if not dangling_ok and atoms[p - 1].strip().lower() in _DANGLING:
                continue
            text = _rstrip_join("".join(atoms[:p])).strip() + ELLIPSIS
            if estimate_tokens(text) <= budget and not trigger_floor(text, desc):
                return text
    return ""


#: words a line should not end on before its "…": they promise a word that was cut
_DANGLING = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "with",
        "into",
        "onto",
        "as",
        "than",
        "that",
        "which",
    ]
)


@functools.lru_cache(maxsize=65536)
def mechanical_trigger(description: str, budget: int) -> str:
    """The description trimmed to about *budget* tokens without a model.

    Whole clauses first: the first clause, every clause that carries a ⚠️ or a negation,
    then the clauses that follow while they fit; a skipped clause is marked "…", so the
    line never reads as a phrase cut in the middle ("…at … not cut the…"). A line that is
    one long clause loses its end at a word boundary ("…"), never a stretch inside it.
    Never blank, never cut inside a number; when the floors cannot be kept within the
    budget, the floors win and the line is worn whole.
    """
    desc = " ".join(description.split())
    if not desc or estimate_tokens(desc) <= budget:
        return desc
    by_clause = _whole_clauses(desc, budget, cjk=bool(CJK_CHAR.search(desc)))
    if by_clause:
        return by_clause
    atoms = _ATOM.findall(desc)
    if len(atoms) <= 1:
        return desc
    return _prefix_cut(atoms, desc, budget) or desc


def trimmed_away(description: str, worn: str) -> tuple[str, ...]:
    """What a trimmed line left out of its description, stretch by stretch, in order: the
    pieces of the description between the parts the worn line kept ("…" marks each gap).
    Empty when *worn* is the description, or is not a trim of it (a scribe's rewrite)."""
    desc = " ".join(description.split())
    if ELLIPSIS not in worn or worn == desc:
        return ()
    kept = [k.strip(_TRAIL + " ") for k in worn.split(ELLIPSIS)]
    out: list[str] = []
    at = 0
    for k in kept:
        if not k:
            continue
        i = desc.find(k, at)
        if i < 0:
            return ()  # not a trim of this description
        gap = desc[at:i].strip(_TRAIL + " ")
        if gap:
            out.append(gap)
        at = i + len(k)
    tail = desc[at:].strip(_TRAIL + " ")
    if tail:
        out.append(tail)
    return tuple(out)


# =========================================================================== age


def _mtime_day(m: Memory) -> dt.date | None:
    if not m.mtime_ns:
        return None
    try:
        return dt.datetime.fromtimestamp(m.mtime_ns / 1e9).date()
    except (OverflowError, OSError, ValueError):
        return None


def distrusted_days(memories: Sequence[Memory]) -> set[dt.date]:
    """mtime calendar days shared by a fifth or more of the store's memories (and by at
    least two: one file alone shares its day with nobody)."""
    days = Counter(d for d in (_mtime_day(m) for m in memories) if d is not None)
    n = len(memories)
    return {d for d, c in days.items() if c >= 2 and c * 5 >= n}


def ages(memories: Sequence[Memory], today: dt.date) -> tuple[dict[str, int | None], set[dt.date]]:
    """Age in days per slug (None = unknown), and the mtime days that were distrusted."""
    bad = distrusted_days(memories)
    out: dict[str, int | None] = {}
    for m in memories:
        d = m.date(today)
        if d is None:
            md = _mtime_day(m)
            d = md if md is not None and md not in bad else None
        out[m.slug] = None if d is None else max(0, (today - d).days)
    return out, bad


# =========================================================================== ledger


def ledger_key(description: str, budget: int) -> str:
    raw = f"{description}\x00{budget}\x00{LEDGER_VERSION}"
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def _load_ledger(ws: Any, keys: Iterable[str]) -> dict[str, tuple[str, str, float]]:
    return ws.ledger(keys)


def prune_ledger(ws: Any, keep: set[str], before: float) -> int:
    """Forget ledger rows written before *before* that no line of this weave uses."""
    dead = [k for k in ws.ledger_keys_before(before) if k not in keep]
    if dead:
        ws.forget_ledger(dead)
    return len(dead)


def fill_ledger(ws: Any, rows: Iterable[tuple[str, str, str]], at: float) -> None:
    """Write (key, trigger, source) rows into the trigger ledger."""
    rows = list(rows)
    if rows:
        ws.fill_ledger(rows, at)


# =========================================================================== the scribe


@dataclass
class Scribe:
    """Writes trigger lines with the scribe model, each checked by :func:`trigger_floor`
    (one retry naming what was refused). Shared by the threads of one weave; after
    ``MAX_FAILURES`` failed calls, or one that says the model cannot be reached at all
    (:attr:`ModelUnavailable.unreachable`), it stops asking and ``stopped`` says why."""

    models: Any
    charter: Any  # the store's Preamble (charter, then profile)
    budget: int
    human_names: Sequence[str]
    calls: int = 0
    failures: int = 0
    stopped: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def instructions(self) -> str:
        return TRIGGER_INSTRUCTIONS.format(budget=self.budget, words=max(1, self.budget * 3 // 4))

    def write(self, title: str, description: str) -> tuple[str, str]:
        """('ok', trigger) | ('refused', reason) | ('failed', reason)."""
        base = f"Title: {title}\nDescription: {description}"
        task = base
        reason = ""
        for attempt in range(2):
            with self.lock:
                if self.stopped:
                    return "failed", self.stopped
                self.calls += 1
            try:
                reply = self.models.ask(
                    "scribe",
                    "kura_trigger",
                    build_messages(self.charter, self.instructions(), task),
                    TRIGGER_SCHEMA,
                )
            except ModelUnavailable as exc:
                msg = str(exc)
                with self.lock:
                    self.failures += 1
                    if self.failures >= MAX_FAILURES or exc.unreachable:
                        self.stopped = self.stopped or f"scribe: {msg}"
                return "failed", msg
            trigger = " ".join(str(reply.get("trigger", "")).split()).strip()
            trigger = trigger.lstrip("—–-•* ").strip()
            problems = trigger_floor(
                trigger, description, budget=self.budget, human_names=self.human_names
            )
            if not problems:
                return "ok", trigger
            reason = "; ".join(str(p) for p in problems)
            if attempt == 0:
                task = f"{base}\n\n" + WEAVE_RETRY.format(reason=reason)
        return "refused", reason


# =========================================================================== weaving, step by step
#
#   read_loom       read the index and the memories, age them          -> Loom
#   layer_of        pinned, fresh or trigger, for one fresh window
#   Triggers        each trigger line from the ledger, the scribe or the mechanical trim
#   fit_budget      the widest fresh window that fits (the lightest map when none does) -> Fit
#   render_cloth    the woven MEMORY.md and its weight                   -> Cloth
#   verify_links    the cloth keeps exactly the index's links, in order
#   write_cloth     persist compare-and-swap (kura_core.cloth)           -> Persisted


def woven_line(entry: Entry, text: str) -> str:
    line = f"- [{entry.title}]({entry.target})"
    return f"{line} — {text}" if text else line


def verify_links(index: str | Index, cloth: str) -> None:
    """Raise WeaveError unless *cloth* has exactly the index's entry links, in order."""
    idx = parse_index(index) if isinstance(index, str) else index
    want = [(e.slug, e.target) for e in idx.entries]
    got = [(e.slug, e.target) for e in parse_index(cloth).entries]
    if want == got:
        return
    for i, (a, b) in enumerate(zip(want, got, strict=False)):
        if a != b:
            raise WeaveError(
                f"the woven map would change link {i + 1} ({a[1]} became {b[1]}); "
                "nothing was written"
            )
    if len(got) < len(want):
        raise WeaveError(
            f"the woven map would lose {len(want) - len(got)} link(s) "
            f"(first: {want[len(got)][1]}); nothing was written"
        )
    raise WeaveError(
        f"the woven map would add {len(got) - len(want)} link(s) "
        f"(first: {got[len(want)][1]}); nothing was written"
    )


@dataclass(frozen=True)
class Line:
    """One index entry as the loom sees it. A line's tokens are its link's plus its text's
    (+1 for the dash): pieces never span a space."""

    entry: Entry
    pinned: bool
    age: int | None  # days since the memory's date; None when unknown or there is no file
    link_tokens: int  # `- [Title](target)` alone
    full_tokens: int  # with the whole description
    fits: bool  # the description is within the trigger budget already


@dataclass(frozen=True)
class Loom:
    """What one weave reads, once: the index it weaves, its entries aged, and the budget."""

    store: str
    index: Index
    index_sha: str
    lines: tuple[Line, ...]
    other_tokens: int  # the index's lines that are not entries (headings, prose, comments)
    overhead: int  # the resident block's markers and header around the map
    config: PrefillConfig
    budget_tokens: int
    ceiling_tokens: int
    distrusted_days: tuple[str, ...]  # ISO days whose mtimes were not trusted as ages


def read_loom(reg: Any, name: str, day: dt.date) -> Loom:
    """Read store *name*'s index and memories and age them as of *day*. KuraError when the
    store has no index."""
    store = reg.store(name)
    cfg = reg.spec(name).prefill
    if not store.index_path.is_file():
        raise KuraError(
            f"store {name!r} has no {INDEX_FILE}: run `kura init {name} --path {store.root}`"
        )
    index_text = store.index_text()
    idx = parse_index(index_text)
    scan = store.scan()
    mems = scan.by_slug()
    age_of, bad_days = ages(scan.memories, day)
    budget_t = cfg.trigger_tokens
    pinned_types = set(cfg.pinned_types)
    lines: list[Line] = []
    for e in idx.entries:
        if e.grouped:
            continue  # a grouped line is worn as written: it has no one memory's description
        m = mems.get(e.slug)
        link_t = _tokens(woven_line(e, ""))
        desc_t = _tokens(e.description)
        lines.append(
            Line(
                entry=e,
                pinned=bool(m and m.type and m.type in pinned_types),
                age=age_of.get(e.slug) if m else None,
                link_tokens=link_t,
                full_tokens=link_t + (desc_t + 1 if e.description else 0),
                fits=desc_t <= budget_t,
            )
        )
    entry_lines = {e.line_no for e in idx.entries if not e.grouped}
    return Loom(
        store=name,
        index=idx,
        index_sha=index_sha(index_text),
        lines=tuple(lines),
        other_tokens=sum(_tokens(l) for i, l in enumerate(idx.lines) if i not in entry_lines),
        overhead=frame_overhead(name, header_text(cfg)),
        config=cfg,
        budget_tokens=int(cfg.window_tokens * cfg.budget_fraction),
        ceiling_tokens=int(cfg.window_tokens * cfg.hard_fraction),
        distrusted_days=tuple(sorted(d.isoformat() for d in bad_days)),
    )


def layer_of(line: Line, fresh_days: int) -> str:
    """The layer *line* is worn in when memories younger than *fresh_days* are fresh."""
    if line.pinned:
        return "pinned"
    if line.age is not None and line.age < fresh_days:
        return "fresh"
    return "trigger"


def fresh_windows(loom: Loom) -> list[int]:
    """The fresh windows to try, widest first: the configured one, then each known age
    below it (the window where that age leaves the fresh layer)."""
    known = sorted(
        {
            l.age
            for l in loom.lines
            if not l.pinned and l.age is not None and l.age < loom.config.fresh_days
        },
        reverse=True,
    )
    return [loom.config.fresh_days] + known


@dataclass(frozen=True)
class Worn:
    """A trigger line's text and where it came from, and the whole line's tokens."""

    text: str
    source: str  # fits | ledger | scribe | mechanical | refused
    tokens: int


class Triggers:
    """The trigger lines of one weave, each resolved once: the description itself when it
    fits the budget, else the ledger's line, else the scribe's (checked by the floors),
    else the mechanical trim. Scribe lines and refusals are collected as ledger rows and
    written by :meth:`settle`.
    """

    def __init__(
        self,
        ws: Any,
        budget: int,
        *,
        scribe: Scribe | None = None,
        now: float,
        concurrency: int = CONCURRENCY,
    ) -> None:
        self.ws = ws
        self.budget = budget
        self.scribe = scribe
        self.now = now
        self.concurrency = concurrency
        self.worn: dict[int, Worn] = {}  # by the entry's line number in the index
        self.ledger_hits = 0
        self.refused: list[tuple[str, str]] = []  # (slug, reason), this weave's refusals
        self.new_rows: list[tuple[str, str, str]] = []  # (key, trigger, source) for the ledger

    @property
    def model_calls(self) -> int:
        return self.scribe.calls if self.scribe else 0

    @property
    def model_error(self) -> str:
        return self.scribe.stopped if self.scribe else ""

    def of(self, line: Line) -> Worn:
        return self.worn[line.entry.line_no]

    def resolve(self, lines: Iterable[Line]) -> None:
        """Give every line in *lines* not resolved yet its trigger."""
        pending = [l for l in lines if l.entry.line_no not in self.worn]
        todo: list[Line] = []
        for l in pending:
            if l.fits:
                self._wear(l, l.entry.description, "fits")
            else:
                todo.append(l)
        if todo:
            self._ask(self._from_ledger(todo))

    def _wear(self, line: Line, text: str, source: str) -> None:
        self.worn[line.entry.line_no] = Worn(
            text, source, line.link_tokens + (_tokens(text) + 1 if text else 0)
        )

    def _mechanical(self, line: Line, source: str = "mechanical") -> None:
        self._wear(line, mechanical_trigger(line.entry.description, self.budget), source)

    def _from_ledger(self, todo: list[Line]) -> list[Line]:
        """Wear what the ledger holds; the lines left for the scribe."""
        cached = _load_ledger(self.ws, (ledger_key(l.entry.description, self.budget) for l in todo))
        ask: list[Line] = []
        for l in todo:
            row = cached.get(ledger_key(l.entry.description, self.budget))
            if row and row[1] == "scribe":
                self._wear(l, row[0], "ledger")
                self.ledger_hits += 1
            elif row and row[1] == "refused" and self.now - row[2] < REFUSED_RETRY_S:
                self._mechanical(l, "refused")
                self.ledger_hits += 1
            elif self.scribe is not None and not self.scribe.stopped:
                ask.append(l)
            else:
                self._mechanical(l)
        return ask

    def _ask(self, ask: list[Line]) -> None:
        """One scribe call per distinct description; the first alone, so an unreachable
        scribe is found by one call, not by a volley."""
        if not ask or self.scribe is None:
            return
        scribe = self.scribe
        groups: dict[str, list[Line]] = {}
        for l in ask:
            groups.setdefault(l.entry.description, []).append(l)
        jobs = list(groups.items())

        def run(job: tuple[str, list[Line]]) -> tuple[str, str]:
            desc, ls = job
            return scribe.write(ls[0].entry.title, desc)

        outcomes = [run(jobs[0])]
        rest = jobs[1:]
        workers = max(1, min(self.concurrency, len(rest)))
        if workers == 1 or scribe.stopped:
            outcomes += [run(j) for j in rest]
        elif rest:
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kura-weave") as pool:
                outcomes += list(pool.map(run, rest))
        for (desc, ls), (status, value) in zip(jobs, outcomes, strict=False):
            key = ledger_key(desc, self.budget)
            mech = mechanical_trigger(desc, self.budget)
            if status == "ok":
                self.new_rows.append((key, value, "scribe"))
                for l in ls:
                    self._wear(l, value, "scribe")
            elif status == "refused":
                self.new_rows.append((key, mech, "refused"))
                for l in ls:
                    self._wear(l, mech, "refused")
                    self.refused.append((l.entry.slug, value))
                self.ws.log_gate(
                    GateLogKind.TRIGGER_REFUSED,
                    title=ls[0].entry.title,
                    slug=ls[0].entry.slug,
                    reason=value,
                    detail={
                        "description": desc,
                        "budget": self.budget,
                        "slugs": [x.entry.slug for x in ls],
                    },
                )
            else:
                for l in ls:
                    self._wear(l, mech, "mechanical")

    def settle(self, lines: Sequence[Line], *, prune: bool) -> None:
        """Write this weave's new ledger rows; with *prune*, forget old rows none of *lines*
        uses."""
        if self.new_rows:
            fill_ledger(self.ws, self.new_rows, self.now)
        if prune:
            used = {ledger_key(l.entry.description, self.budget) for l in lines if not l.fits}
            prune_ledger(self.ws, used, self.now - LEDGER_KEEP_S)


def map_tokens(loom: Loom, triggers: Triggers, fresh_days: int) -> int:
    """The resident block's tokens with *fresh_days* (its trigger lines resolved)."""
    return (
        loom.overhead
        + loom.other_tokens
        + sum(
            triggers.of(l).tokens if layer_of(l, fresh_days) == "trigger" else l.full_tokens
            for l in loom.lines
        )
    )


@dataclass(frozen=True)
class Fit:
    """The fresh window that fits the budget."""

    fresh_days: int | None  # the widest that fits; None when none does
    worn_days: int  # the one the cloth is woven with (the narrowest tried when none fits)
    tokens: int  # the block's tokens with ``worn_days``


def fit_budget(loom: Loom, triggers: Triggers) -> Fit:
    """Shrink the fresh window until the map fits ``budget_tokens``; when nothing fits, the
    narrowest window (the lightest map). Resolves exactly the trigger lines it tries."""
    windows = fresh_windows(loom)
    tokens = 0
    for d in windows:
        triggers.resolve(l for l in loom.lines if layer_of(l, d) == "trigger")
        tokens = map_tokens(loom, triggers, d)
        if tokens <= loom.budget_tokens:
            return Fit(d, d, tokens)
    return Fit(None, windows[-1], tokens)


@dataclass(frozen=True)
class Cloth:
    """The woven MEMORY.md and where its weight is."""

    text: str
    lines: tuple[tuple[str, str, str], ...]  # (layer, slug, worn text) in index order
    layers: Mapping[str, int]
    weight: Mapping[str, int]  # tokens per layer, "other" lines too
    heaviest: tuple[tuple[str, str, int], ...]  # (slug, layer, tokens), heaviest first, ten
    mechanical: int  # trigger lines worn from the mechanical trim


def render_cloth(loom: Loom, triggers: Triggers, fresh_days: int) -> Cloth:
    """Every entry line woven for *fresh_days*; every other line of the index as it stands."""
    out = list(loom.index.lines)
    worn: list[tuple[str, str, str]] = []
    weight = {"pinned": 0, "fresh": 0, "trigger": 0, "other": loom.other_tokens}
    per_line: list[tuple[str, str, int]] = []
    mechanical = 0
    for l in loom.lines:
        lay = layer_of(l, fresh_days)
        if lay == "trigger":
            w = triggers.of(l)
            text, t = w.text, w.tokens
            mechanical += w.source in ("mechanical", "refused")
        else:
            text, t = l.entry.description, l.full_tokens
        out[l.entry.line_no] = woven_line(l.entry, text or "")
        weight[lay] += t
        per_line.append((l.entry.slug, lay, t))
        worn.append((lay, l.entry.slug, text or ""))
    return Cloth(
        text="\n".join(out),
        lines=tuple(worn),
        layers={k: sum(1 for w in worn if w[0] == k) for k in LAYERS},
        weight=weight,
        heaviest=tuple(sorted(per_line, key=lambda x: (-x[2], x[0]))[:10]),
        mechanical=mechanical,
    )


def over_budget_warning(loom: Loom, cloth: Cloth, tokens: int) -> str:
    """What to say when even the lightest map is over the budget, and where the weight is."""
    cfg = loom.config
    heavy = ", ".join(f"{s} ({l}, {t})" for s, l, t in cloth.heaviest[:5])
    lays = ", ".join(f"{k} {v}" for k, v in cloth.weight.items())
    return (
        f"the map does not fit: even with no fresh layer it is ~{tokens} tokens, over "
        f"the budget of {loom.budget_tokens} (window_tokens {cfg.window_tokens} × "
        f"budget_fraction {cfg.budget_fraction}). Weight by layer: {lays} (header "
        f"and markers {loom.overhead}). Heaviest lines: {heavy}. The lightest map kura can "
        f"make was woven instead; lower trigger_tokens, trim pinned lines, or raise "
        f"budget_fraction"
    )


def weave(
    reg: Any,
    selector: str | None = None,
    *,
    today: Callable[[], dt.date] | None = None,
    write: bool = True,
    ask: bool | None = None,
    concurrency: int = CONCURRENCY,
) -> WeaveResult:
    """Weave store *selector*'s index into its resident map and persist it (CAS).

    ``write=False`` weaves without persisting (a preview); a preview asks the scribe
    nothing unless ``ask=True`` (lines the ledger lacks are trimmed mechanically). Raises
    KuraError when the store has no index or the cloth would not keep the index's links.
    """
    started = time.perf_counter()
    name = reg.resolve(selector)
    store = reg.store(name)
    loom = read_loom(reg, name, (today or reg.today)())

    scribe = None
    models = reg.models(name)
    if (write if ask is None else ask) and models.configured("scribe"):
        scribe = Scribe(
            models, preamble(store), loom.config.trigger_tokens, reg.spec(name).distill.human_names
        )
    triggers = Triggers(
        reg.workshop(name),
        loom.config.trigger_tokens,
        scribe=scribe,
        now=reg.clock(),
        concurrency=concurrency,
    )
    fit = fit_budget(loom, triggers)
    triggers.settle(loom.lines, prune=write)

    cloth = render_cloth(loom, triggers, fit.worn_days)
    verify_links(loom.index, cloth.text)
    # the better map, not none: the lightest cloth is still lighter than the raw index a
    # host would otherwise fall back to, so it is woven and written, with a warning
    warning = over_budget_warning(loom, cloth, fit.tokens) if fit.fresh_days is None else ""
    if write:
        saved = write_cloth(store, loom.index_sha, cloth.text)
    else:
        saved = Persisted(False, False, "not written (preview)", str(store.still / WOVEN_FILE))

    return WeaveResult(
        store=name,
        lines=cloth.lines,
        layers=cloth.layers,
        tokens_est=fit.tokens,
        budget_tokens=loom.budget_tokens,
        ceiling_tokens=loom.ceiling_tokens,
        fresh_days=loom.config.fresh_days,
        fresh_days_used=fit.fresh_days,
        model_calls=triggers.model_calls,
        mechanical=cloth.mechanical,
        refused=tuple(triggers.refused),
        written=saved.written,
        reason=saved.reason or (warning if not saved.written else ""),
        heaviest=cloth.heaviest,
        weight=cloth.weight,
        ledger_hits=triggers.ledger_hits,
        unchanged=saved.unchanged,
        index_sha256=loom.index_sha,
        path=saved.path,
        cloth=cloth.text,
        distrusted_days=loom.distrusted_days,
        model_error=triggers.model_error,
        elapsed_ms=(time.perf_counter() - started) * 1000.0,
        over_budget=fit.fresh_days is None,
        warning=warning,
        fresh_days_worn=fit.worn_days,
    )
