"""The distiller: journal → evidence → candidates → GATE → new? → draft → judged → poured.

`run` drinks journal under reservations and leaves drafts; `drain` has the scribe
re-read each draft cold and pour, fix or toss it. Nothing enters the store except
through `drafts.pour`, and every model reply is validated before anything is believed.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from ..budget import Deadline, Overran
from ..config import StoreConfig
from ..errors import KuraError, ModelUnavailable, NotFound, StorageError
from ..floors import messages
from ..floors.kura_messages import COMPOSE_RETRY, kura_message_violations
from ..llm import CUT_OFF_KEY
from ..profile import preamble
from ..prompts import TRUST_QUESTIONS, messages as build_messages
from ..registry import Registry
from ..reports import tally_of
from ..secrets import remembering, under_store_rules
from ..shapes import dict_at
from ..store import Store, check_slug, slugify
from ..tokens import estimate_tokens
from ..vocabulary import (
    CURATION_FIELDS,
    MEMORY_TYPES,
    ClaimKind,
    DraftDecision,
    GateLogKind,
    GateVerdict,
    ProvenanceClass,
    WritePolicy,
    tag_passed,
)
from ..workshop import Workshop
from . import marks
from .drafts import (
    Draft,
    FloorRefused,
    body_digest,
    claimed,
    evidence_of,
    finish_pours,
    fix as fix_draft,
    is_poured,
    list_drafts,
    pour,
    read_draft,
    read_manifest,
    save_draft,
    toss,
    write_manifest,
)
from .evidence import Segment, normalize
from .gate import Floors, GateResult, StoreEcho, run_gate
from .journals import ADAPTERS, UNITS, JournalRoot, discover, registry as journal_registry
from .journals.inspect import settled

Progress = Callable[[str, Mapping[str, Any]], None]

#: model failures in a row after which a run stops: one bad reply moves on to the next
#: stretch (it is shelved and retried next run), a model that keeps failing ends the run.
MAX_MODEL_FAILURES = 3
#: Failures of one reply (the server answered, the answer could not be used): the scribe's
#: compose that fails so drops that candidate with its reason; the rest of the batch goes on.
REPLY_FAILURES = frozenset({"unparseable", "schema", "cut_off", "reasoning_only"})

#: longest segment text shown to a model; the gate always checks the whole segment.
SHOW_CHARS = 1500

CANDIDATES_SCHEMA = {
    "type": "object",
    "properties": {
        "candidates": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "kind": {"type": "string", "enum": ["fact", "judgement", "idea"]},
                    "title": {"type": "string"},
                    "description": {"type": "string"},
                    "body": {"type": "string"},
                    "quotes": {"type": "array", "items": {"type": "string"}},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "belongs_because": {"type": "string"},
                    "keep": {"type": "string"},
                    "may_fade": {"type": "string"},
                },
                "required": ["kind", "title", "description", "body", "quotes"],
            },
        }
    },
    "required": ["candidates"],
}

#: What a brain's reply must be as a whole: a list of candidates. Each candidate is judged
#: on its own by the gate (a boolean where text belongs, a tag with spaces, a candidate that
#: is not an object drops that candidate with its reason, never the batch).
CANDIDATES_REPLY_SCHEMA = {
    "type": "object",
    "properties": {"candidates": {"type": "array"}},
    "required": ["candidates"],
}

COMPOSE_SCHEMA = {
    "type": "object",
    "properties": {
        "decision": {"type": "string", "enum": ["new", "extends", "covered"]},
        "target": {"type": "string"},
        "slug": {"type": "string"},
        "title": {"type": "string"},
        "description": {"type": "string"},
        "type": {"type": "string"},
        "body": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "belongs_because": {"type": "string"},
        "keep": {"type": "string"},
        "may_fade": {"type": "string"},
    },
    "required": ["decision"],
}

JUDGE_SCHEMA = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string"},
        "reason": {"type": "string"},
        "fix": {
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "description": {"type": "string"},
                "body": {"type": "string"},
            },
        },
    },
    "required": ["verdict"],
}

SEED_SCHEMA = {
    "type": "object",
    "properties": {
        "confirms": {"type": "array", "items": {"type": "integer"}},
        "quotes": {"type": "object"},
    },
    "required": ["confirms"],
}

CANDIDATES_INSTRUCTIONS = """\
You are the brain of a long-term memory. You read a stretch of an agent's journal and
propose what is worth remembering for a long time. Each evidence line starts with its class:
[USER] the human's own words — licenses "they decided", "they asked";
[TOOL] machine output — the only source of measurements and numbers;
[ACT] a tool that was invoked — licenses "this was done";
[SELF] the agent's own prose — at most a first-person judgement, never a bare fact.
Propose candidates as JSON: {"candidates": [{"kind": "fact"|"judgement"|"idea", "title",
"description", "body", "quotes": ["[USER] exact words", ...], "tags": [...],
"belongs_because", "keep", "may_fade"}]}.
Rules: every quote must be copied character for character from ONE evidence line, prefixed
with that line's class; a candidate without such a quote is thrown away. Numbers only from
[TOOL], [ACT] or [USER] lines. Never credit the human with anything no [USER] line says.
"description" is a one-line recognition trigger: proper nouns, numbers, ⚠️ for landmines,
the conclusion reached. Small talk, one-off chatter and secrets are not memories.
Ideas and hunches are welcome as kind "idea"; they are kept apart until evidence confirms them."""

COMPOSE_INSTRUCTIONS = """\
You are the scribe of a long-term memory. You receive one candidate memory that passed the
evidence gate, its verified evidence, and the most similar memories already in the store.
Decide: "covered" (an existing memory already says this — give its slug as target),
"extends" (it adds to one existing memory — give its slug as target and write that memory's
whole new body), or "new". For new and extends, write: slug (lower-case ascii kebab), title,
description (a one-line recognition trigger, not a summary), type (user | feedback | project |
reference), body (the fact, then **Why:** and **How to apply:** lines where they are known,
[[slug]] links only to memories listed to you), tags, belongs_because, keep, may_fade.
Every number must come from the evidence; credit the human only with what a [USER] line
says. Reply with JSON only."""

JUDGE_INSTRUCTIONS = (
    """\
You are the last gate of a long-term memory. Read the draft below cold, against its
evidence. A deterministic gate has already checked that every quote is verbatim, that
every number occurs in the evidence and that the human is credited only with what a
[USER] line says -- but it cannot read meaning. Check what it cannot: that the text agrees
with its quotes (no claim the quotes contradict, no two figures swapped, no "not" lost, a
decision not turned into its opposite, an idea not turned into a fact, the agent's own
view not turned into the human's). Answer "pour" if it is true to the evidence, useful for
a long time and belongs in this store; "fix" with corrected title/description/body if it
is worth keeping but says more or less than the evidence; "toss" if it is chatter, wrong,
contradicts its evidence, or does not belong. Give a short reason. Reply with JSON only:
{"verdict", "reason", "fix": {"title", "description", "body"}}.

"""
    + TRUST_QUESTIONS
)

SEED_INSTRUCTIONS = """\
Below are ideas kept aside until later evidence confirms them, then a new stretch of journal.
Reply {"confirms": [ids], "quotes": {"<id>": ["[CLASS] exact words", ...]}} naming the ideas
this evidence confirms, each with the evidence lines that confirm it, copied exactly."""


@dataclass(frozen=True)
class RunReport:
    """What one distil run did (frozen; counted as it ran in a :data:`_RunTally`)."""

    store: str
    journals: int = 0
    batches: int = 0
    segments: int = 0
    raw_tokens: int = 0
    candidates: int = 0
    drafts: tuple[str, ...] = ()
    dropped: int = 0
    seeds: int = 0
    graduated: int = 0
    covered: int = 0
    recurred: int = 0
    shelved: int = 0
    overran: int = 0  # stretches shelved over the time budget; the run moved on past them
    stopped: str = ""
    errors: tuple[str, ...] = ()
    intake: Mapping[str, int] = field(default_factory=dict)
    refused: tuple[str, ...] = ()  # journals no adapter could read, each with why

    @property
    def did_work(self) -> bool:
        return self.batches > 0 or self.shelved > 0

    def to_json(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "drafts": len(self.drafts),
            "draft_slugs": list(self.drafts),
            "dropped": self.dropped,
            "seeds": self.seeds,
            "graduated": self.graduated,
            "segments": self.segments,
            "batches": self.batches,
            "journals": self.journals,
            "raw_tokens": self.raw_tokens,
            "candidates": self.candidates,
            "covered": self.covered,
            "recurred": self.recurred,
            "shelved": self.shelved,
            "overran": self.overran,
            "stopped": self.stopped,
            "errors": list(self.errors),
            "intake_skipped": dict(self.intake),
            "refused_journals": list(self.refused),
        }


_RunTally = tally_of(RunReport)


@dataclass(frozen=True)
class Checks:
    """kura's own checks on a chunk and the clock their time budget runs on: a seam, so a
    test can put a slow fake floor and a fake clock in place of the real ones."""

    floors: Floors = field(default_factory=Floors)
    clock: Callable[[], float] = time.monotonic


class _Timed:
    """A model client whose calls do not count against the chunk's time budget (they have
    their own timeouts)."""

    def __init__(self, models: Any, deadline: Deadline) -> None:
        self.models, self.deadline = models, deadline

    def ask(self, *args: Any, **kw: Any) -> Any:
        with self.deadline.paused():
            return self.models.ask(*args, **kw)

    def configured(self, role: str) -> bool:
        return bool(self.models.configured(role))


#: an instance of :data:`_RunTally`; made at import, so the type checker sees it as Any
RunTally = Any


# --------------------------------------------------------------------------- journals


def journal_files(reg: Registry, name: str) -> list[tuple[str, Path]]:
    """(adapter, path) of every journal this store drinks, newest first."""
    spec = reg.config.stores[name]
    roots = []
    for j in spec.distill.journals:
        roots.append(JournalRoot(j.adapter, Path(j.root), j.include_glob, j.exclude_glob))
    forbidden = [s.path for s in reg.config.stores.values()]
    out = []
    for jf in discover(roots, forbidden_dirs=forbidden):
        out.append((jf.adapter, jf.path))
    return out


def no_journals_reason(reg: Registry, name: str) -> str:
    """Why store *name* drinks no journal, and what to write in kura.toml."""
    if len(reg.config.stores) > 1 and reg.config.distill.journals:
        return (
            f"store {name!r} drinks no journal: with two or more stores kura does not guess "
            f"whose [distill.journals] are; give it [stores.{name}.journals], or set "
            f"inherit_global_journals = true under [stores.{name}]"
        )
    return (
        f"no journals configured: add [distill.journals] or [stores.{name}.journals] to kura.toml"
    )


def _anything_waiting(ws: Any, files: Sequence[tuple[str, Path]], budget: int) -> bool:
    """Whether a run would find anything to drink, without reserving it: a shelved or held
    stretch, or complete records past the frontier of any journal."""
    for adapter, path in files:
        key = marks.journal_key(adapter, path)
        if ws.waiting_stretch(key):
            return True
        start = ws.frontier(key)[1]
        if read_stretch(adapter, path, start, budget)[1] > start:
            return True
    return False


def missing_roots(reg: Registry, name: str) -> list[str]:
    """Configured journal roots of a store that do not exist (a typo, or not created yet)."""
    return [
        f"{j.root} ({j.adapter})"
        for j in reg.config.stores[name].distill.journals
        if not Path(j.root).exists()
    ]


def _unit(adapter: str) -> str:
    return UNITS.get(adapter, "byte")


def _windowed(adapter: str) -> bool:
    """Does the adapter read a window of the file from a watermark (else the whole file)?"""
    a = journal_registry.get(adapter)
    return a is not None and a.windowed


class StretchRead(NamedTuple):
    segments: list[Segment]
    end: int
    skipped: dict[str, int]
    fatal: str = ""  # the adapter refuses the file as a whole, and why


def read_stretch(
    adapter: str, path: Path, start: int, budget_chars: int, end: int | None = None
) -> StretchRead:
    """Segments of one whole-record stretch from *start*: exactly [start, end) when *end*
    is given (re-reading a reserved stretch), else as much as fits *budget_chars*."""
    reader = ADAPTERS[adapter]
    with remembering() as seen:  # a value repeated in the stretch is redacted there too
        if _windowed(adapter):
            limit = (end - start) if end is not None else budget_chars * 4
            read = reader(path, start, limit_bytes=max(1, limit))
        else:
            read = reader(path, start)
        read = settled(read, seen)
    segs = list(read.segments)
    if end is not None:
        return StretchRead([s for s in segs if s.start < end], end, dict(read.skipped), read.fatal)
    stop = read.end
    taken: list[Segment] = []
    used = 0
    for s in segs:
        cost = min(len(s.text), SHOW_CHARS)
        if taken and used + cost > budget_chars and s.start != taken[-1].start:
            stop = s.start
            break
        taken.append(s)
        used += cost
    return StretchRead(taken, stop, dict(read.skipped), read.fatal)


def evidence_lines(segments: Sequence[Segment]) -> str:
    out = []
    for s in segments:
        text = " ".join(s.text.split())
        if len(text) > SHOW_CHARS:
            text = text[:SHOW_CHARS] + " …"
        out.append(f"[{s.cls}] {text}")
    return "\n".join(out)


# --------------------------------------------------------------------------- run


@under_store_rules  # the store's own secret patterns and allowlist apply while it drinks
def run(
    reg: Registry,
    selector: str | None,
    *,
    max_batches: int | None = None,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
    owner: str | None = None,
    checks: Checks | None = None,
) -> RunReport:
    """Drink the store's journals chunk by chunk into drafts. A chunk whose model call
    fails is shelved and the run stops; a chunk on which kura's own checks run past
    ``chunk_seconds`` is shelved with a note and the run moves on to the next."""
    name = reg.resolve(selector)
    store = reg.store(name)
    if not store.index_path.is_file():
        raise KuraError(
            f"store {name!r} does not exist yet: run `kura init {name} --path {store.root}`"
        )
    spec = reg.config.stores[name]
    if spec.write_policy == WritePolicy.FROZEN:
        raise KuraError(f"store {name!r} is frozen: nothing is distilled into it")
    ws = reg.workshop(name)
    report = _RunTally(store=name)
    files = journal_files(reg, name)
    report.journals = len(files)
    if not files:
        report.stopped = _why_no_files(reg, name)
        return report.freeze()
    if not _models_ready(reg.models(name), ws, files, spec.distill.chunk_chars):
        # nothing new: that is "nothing to do" (exit 2), model or no model
        report.stopped = "nothing new in the journals"
        return report.freeze()
    go = _Run(
        reg,
        name,
        store,
        ws,
        spec.distill.chunk_chars,
        owner or marks.owner_id(),
        report,
        progress,
        should_stop,
        max_batches,
        checks or Checks(),
    )
    for adapter, path in files:
        if not go.journal(adapter, path):
            break
    return report.freeze()


class _Run:
    """One distil run over the store's journals, batch by batch, counted in *report*."""

    def __init__(
        self,
        reg: Registry,
        name: str,
        store: Store,
        ws: Workshop,
        budget: int,
        owner: str,
        report: RunTally,
        progress: Progress | None,
        should_stop: Callable[[], bool] | None,
        max_batches: int | None,
        checks: Checks,
    ):
        self.reg, self.name, self.store, self.ws, self.budget, self.owner = (
            reg,
            name,
            store,
            ws,
            budget,
            owner,
        )
        self.report, self.progress, self.should_stop, self.max_batches = (
            report,
            progress,
            should_stop,
            max_batches,
        )
        self.echo_for, self.echo = store.fingerprint(), echo_detector(store)
        self.checks = checks
        self.seconds = reg.config.stores[name].distill.chunk_seconds
        self.tried: set[int] = set()  # stretches shelved in this run: not tried again in it
        self.failed = 0  # model failures in a row

    def _must_stop(self) -> str:
        if self.should_stop and self.should_stop():
            return "asked to stop"
        if self.max_batches is not None and self.report.batches >= self.max_batches:
            return "batch limit reached"
        return ""

    def journal(self, adapter: str, path: Path) -> bool:
        """Drink one journal up to its end; False when the run must stop here."""
        key, unit, report = marks.journal_key(adapter, path), _unit(adapter), self.report
        refused: dict[str, str] = {}

        def measure(start: int) -> int:
            got = read_stretch(adapter, path, start, self.budget)
            if got.fatal:
                refused["why"] = got.fatal
            return got.end

        while True:
            report.stopped = self._must_stop()
            if report.stopped:
                return False
            stretch = marks.reserve(
                self.ws,
                key,
                adapter=adapter,
                unit=unit,
                owner=self.owner,
                measure=measure,
                skip=self.tried,
            )
            if stretch is None:
                if refused:
                    report.refused.append(f"{path}: {refused['why']}")
                return True
            done = self._batch(adapter, path, stretch)
            if done is None:
                continue  # shelved over the time budget: on to the next stretch
            if not done:
                return False
            marks.commit(self.ws, stretch, adapter=adapter, unit=unit)
            report.batches += 1
            if (
                self.store.fingerprint() != self.echo_for
            ):  # another process wrote: read the store again
                self.echo_for, self.echo = self.store.fingerprint(), echo_detector(self.store)

    def _batch(self, adapter: str, path: Path, stretch: marks.Stretch) -> bool | None:
        """One reserved stretch through the scribe and the gate; False when the run must
        stop (a model cannot be reached or keeps failing; the stretch is shelved and retried
        next run), None when it is shelved and the run moves on (kura's own checks ran past
        the time budget, or one model reply could not be used)."""
        deadline = Deadline(self.seconds, self.checks.clock)
        try:
            with deadline.preempting():
                return self._drink_stretch(adapter, path, stretch, deadline)
        except Overran as exc:
            self._overran(adapter, path, stretch, exc)
            return None

    def _drink_stretch(
        self, adapter: str, path: Path, stretch: marks.Stretch, deadline: Deadline
    ) -> bool | None:
        report = self.report
        with deadline.step(f"reading the journal ({adapter} adapter)"):
            segs, _, skipped, _fatal = read_stretch(
                adapter, path, stretch.start, self.budget, end=stretch.end
            )
        for k, v in skipped.items():
            report.intake[k] = report.intake.get(k, 0) + v
        if self.progress:
            self.progress(
                "batch",
                {
                    "journal": str(path),
                    "start": stretch.start,
                    "end": stretch.end,
                    "segments": len(segs),
                },
            )
        try:
            _drink(
                self.reg,
                self.name,
                self.store,
                adapter,
                path,
                stretch,
                segs,
                report,
                self.echo,
                _Chunk(deadline, self.checks.floors),
            )
        except Overran:
            raise
        except ModelUnavailable as exc:
            marks.shelve(self.ws, stretch, str(exc))
            report.shelved += 1
            report.errors.append(
                f"{path.name} {stretch.start}–{stretch.end}: {exc} (shelved; retried next run)"
            )
            self.failed += 1
            if exc.unreachable or self.failed >= MAX_MODEL_FAILURES:
                why = "unreachable" if exc.unreachable else f"failed {self.failed} times"
                report.stopped = f"a model failed ({why}): {exc}"
                return False
            self.tried.add(stretch.id)  # one bad reply: on to the next stretch
            return None
        except BaseException:
            marks.shelve(self.ws, stretch, "interrupted")
            raise
        self.failed = 0
        return True

    def _overran(self, adapter: str, path: Path, stretch: marks.Stretch, exc: Overran) -> None:
        """Shelve a stretch whose checks ran past the budget, and say so where an operator
        looks: the reservation's reason (doctor, the journals pane), the gate log and the
        run's errors (the tender's log)."""
        unit = _unit(adapter)
        note = overran_note(path, unit, stretch.start, stretch.end, exc)
        marks.shelve(self.ws, stretch, note)
        self.tried.add(stretch.id)
        self.ws.log_gate(
            GateLogKind.SHELVED,
            title=path.name,
            reason=note,
            detail={
                "journal": str(path),
                "unit": unit,
                "start": stretch.start,
                "end": stretch.end,
                "check": exc.check,
                "spent_s": round(exc.spent, 3),
                "budget_s": exc.budget,
                "attempts": stretch.attempts,
            },
        )
        self.report.overran += 1
        self.report.errors.append(note)


#: how every note of a stretch shelved over the time budget begins
OVERRAN = "over the time budget"


def overran_note(path: Path, unit: str, start: int, end: int, exc: Overran) -> str:
    """The note of a stretch shelved over the time budget: the file, the offset, the check."""
    return (
        f"{OVERRAN}: {path} {unit} {start}–{end}: {exc.check} took {exc.spent:.1f}s of "
        f"{exc.budget:g}s; shelved, the next stretch is drunk, and a later run tries it again"
    )


@dataclass(frozen=True)
class _Chunk:
    """What the steps of one chunk share: its deadline and the floors they check with."""

    deadline: Deadline
    floors: Floors


def _why_no_files(reg: Registry, name: str) -> str:
    """Why no journal file was found for store *name*, and what to fix."""
    missing = missing_roots(reg, name)
    if missing:
        return (
            "journal root " + ", ".join(missing) + " does not exist: fix [distill.journals] "
            f"or [stores.{name}.journals] in kura.toml"
        )
    if not reg.config.stores[name].distill.journals:
        return no_journals_reason(reg, name)
    return "no journal files found under the configured roots"


def _models_ready(models: Any, ws: Any, files: list, budget: int) -> bool:
    """Whether both distilling roles have a model. False when one is missing but nothing
    waits to be distilled anyway; raises when something waits and a model is missing."""
    for role in ("brain", "scribe"):
        if not models.configured(role):
            if not _anything_waiting(ws, files, budget):
                return False
            raise KuraError(
                f"distilling needs a {role} model: add [models.thinker] (one model does every role) "
                "or [models.{role}] to kura.toml".replace("{role}", role)
            )
    return True


COVERAGE_NOTE = """\

Already taken from this evidence by an earlier pass (do not propose these again, in any
wording):
{taken}

Read the evidence again for what that pass missed: anything else worth keeping that the
list above does not already cover. If nothing is left, reply {{"candidates": []}}."""


def _taken_key(c: Mapping[str, Any]) -> str:
    return " ".join(str(c.get("title", "")).lower().split())


def _coverage_passes(
    models: Any, charter: Any, task: str, first: list[dict], passes: int, max_items: int
) -> list[dict]:
    """The brain's extra passes over one batch (``coverage_passes`` - 1 of them).

    Each pass sees the same evidence with a list of what earlier passes already took, and
    is asked only for what they missed; a candidate whose title was already taken is not
    taken twice, and a pass that adds nothing ends the passes. The same gate judges every
    pass's candidates. The evidence stays where it was in the prompt, so the prefix a local
    server cached for the first pass serves the others.
    """
    taken = list(first)
    extra: list[dict] = []
    for _ in range(max(0, passes - 1)):
        listing = (
            "\n".join(
                f"- {str(c.get('title', '')).strip() or '(untitled)'}: {' '.join(str(c.get('description', '')).split())}"
                for c in taken
            )
            or "- (nothing)"
        )
        reply = models.ask(
            "brain",
            "kura_candidates",
            build_messages(
                charter, CANDIDATES_INSTRUCTIONS, task + COVERAGE_NOTE.format(taken=listing)
            ),
            CANDIDATES_SCHEMA,
            check=CANDIDATES_REPLY_SCHEMA,
        )
        seen = {_taken_key(c) for c in taken}
        new = []
        for c in reply.get("candidates", []):
            if isinstance(c, dict) and _taken_key(c) not in seen:
                seen.add(_taken_key(c))
                new.append(c)
        new = new[:max_items]
        if not new:
            break
        taken += new
        extra += new
    return extra


def echo_detector(store: Store) -> StoreEcho:
    """is_echo for the gate: a normalised quote (or piece of tool output) the store already
    holds -- in its index or in any memory -- is the store reading itself back, not new
    material, and vouches for nothing."""
    texts = [store.index_text()]
    for m in store.scan().memories:
        texts.append(m.title)
        texts.append(m.description)
        texts.append(m.body)
    return StoreEcho(texts)


def _drink(
    reg: Registry,
    name: str,
    store: Store,
    adapter: str,
    path: Path,
    stretch: marks.Stretch,
    segs: list[Segment],
    report: RunTally,
    echo: Callable[[str], bool],
    chunk: _Chunk,
) -> None:
    ws = reg.workshop(name)
    spec = reg.config.stores[name]
    models = _Timed(reg.models(name), chunk.deadline)
    report.segments += len(segs)
    raw_tokens = sum(estimate_tokens(s.text) for s in segs)
    report.raw_tokens += raw_tokens
    batch_id = ws.add_batch(
        journal=stretch.journal,
        start=stretch.start,
        end=stretch.end,
        unit=_unit(adapter),
        segments=len(segs),
        raw_tokens=raw_tokens,
    )
    if not segs:
        return
    cands = _propose(models, store, spec, path, segs, report.errors)
    report.candidates += len(cands)
    results = run_gate(
        cands,
        segs,
        is_echo=echo,
        human_names=spec.distill.human_names,
        min_quote_chars=spec.distill.min_quote_chars,
        deadline=chunk.deadline,
        floors=chunk.floors,
    )
    n_drafts, n_dropped, n_seeds = _file_results(
        reg, name, store, results, path, batch_id, stretch, models, chunk, report
    )
    report.graduated += _check_seeds(reg, name, store, segs, path, batch_id, echo, models, chunk)
    report.dropped += n_dropped
    report.seeds += n_seeds
    ws.finish_batch(
        batch_id, candidates=len(cands), drafts=n_drafts, dropped=n_dropped, seeds=n_seeds
    )


def _propose(
    models: _Timed,
    store: Store,
    spec: StoreConfig,
    path: Path,
    segs: list[Segment],
    notes: list[str],
) -> list[dict]:
    """The brain's candidates for one stretch of evidence, with the coverage passes; what a
    person should know about the replies (one cut off at its bound) goes to *notes*."""
    charter = preamble(store)
    lines = evidence_lines(segs)
    lang = spec.distill.language
    task = (
        f"At most {spec.distill.max_items} candidates."
        + (f" Write titles, descriptions and bodies in {lang}." if lang else "")
        + f"\n\nEvidence ({path.name}):\n{lines}"
    )
    reply = models.ask(
        "brain",
        "kura_candidates",
        build_messages(charter, CANDIDATES_INSTRUCTIONS, task),
        CANDIDATES_SCHEMA,
        check=CANDIDATES_REPLY_SCHEMA,
        salvage="candidates",
    )
    if reply.get(CUT_OFF_KEY):
        notes.append(
            f"{path.name}: the brain's reply was {reply[CUT_OFF_KEY]}; the candidates it wrote "
            "whole before the cut were judged"
        )
    cands = _distinct([c for c in reply.get("candidates", []) if isinstance(c, dict)])
    cands = cands[: spec.distill.max_items]
    return cands + _coverage_passes(
        models, charter, task, cands, spec.distill.coverage_passes, spec.distill.max_items
    )


def _distinct(cands: list[dict]) -> list[dict]:
    """*cands* without exact repeats: a small model that loops writes one candidate again
    and again. Two candidates that share only a title are two candidates."""
    seen: set[str] = set()
    out = []
    for c in cands:
        key = json.dumps(c, sort_keys=True, ensure_ascii=False, default=str)
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def _file_results(
    reg: Registry,
    name: str,
    store: Store,
    results: Sequence[GateResult],
    path: Path,
    batch_id: int,
    stretch: marks.Stretch,
    models: _Timed,
    chunk: _Chunk,
    report: RunTally,
) -> tuple[int, int, int]:
    """Each gate result where it belongs: a drop in the gate log, a seed planted, a kept
    candidate composed into a draft. Returns (drafts, dropped, seeds)."""
    ws = reg.workshop(name)
    n_drafts = n_dropped = n_seeds = 0
    drafted = _drafted_evidence(store)
    for res in results:
        if res.verdict == GateVerdict.KEPT and _already_drafted(res, drafted):
            # a stretch drunk again after a failure: its drafts from last time are still waiting
            report.covered += 1
            continue
        if res.verdict == GateVerdict.DROPPED:
            n_dropped += 1
            ws.log_gate(
                GateLogKind.DROPPED,
                title=res.title,
                reason="; ".join(list(res.reasons) + messages(res.violations)),
                detail={"gate": res.to_json(), "journal": str(path), "batch": batch_id},
            )
            continue
        if res.verdict == GateVerdict.SEED:
            n_seeds += 1
            _plant_seed(ws, res, path)
            continue
        try:
            d = _compose(reg, name, store, res, path, batch_id, stretch, models, chunk)
        except (_Dropped, ModelUnavailable) as exc:
            if isinstance(exc, ModelUnavailable) and exc.kind not in REPLY_FAILURES:
                raise  # the server, not this reply: shelve the stretch, retried next run
            n_dropped += 1
            why = str(exc)
            if isinstance(exc, ModelUnavailable):
                why = f"the scribe's reply could not be used: {exc}"
                report.errors.append(f"{res.title}: {why}")
            ws.log_gate(
                GateLogKind.DROPPED,
                title=res.title,
                reason=why,
                detail={
                    "gate": res.to_json(),
                    "journal": str(path),
                    "batch": batch_id,
                    "at": "compose",
                },
            )
            continue
        if d is None:
            report.covered += 1
            continue
        n_drafts += 1
        report.drafts.append(d.slug)
    return n_drafts, n_dropped, n_seeds


def _evidence_key(source: str, start: int, text: str) -> tuple[str, int, str]:
    return (str(source), int(start), normalize(text))


def _drafted_evidence(store: Store) -> set[tuple[str, int, str]]:
    keys = set()
    for d in list_drafts(store):
        for q in d.quotes:
            if q.get("status") == "verified" and q.get("source") is not None:
                keys.add(_evidence_key(q["source"], q.get("start", 0), q.get("text", "")))
    return keys


def _already_drafted(res: GateResult, drafted: set[tuple[str, int, str]]) -> bool:
    keys = {
        _evidence_key(q.segment.source, q.segment.start, q.text) for q in res.survivors if q.segment
    }
    return bool(keys) and keys <= drafted


class _Dropped(Exception):
    pass


def _plant_seed(ws: Any, res: GateResult, path: Path) -> None:
    c = res.candidate
    if ws.seed_waiting(res.title):
        return  # the same idea again (or the same stretch drunk again): one seed is enough
    ws.plant_seed(
        title=res.title,
        body=str(c.get("body", "")),
        quotes=json.dumps([q.to_json() for q in res.quotes], ensure_ascii=False),
        source=str(path),
    )


def _neighbours(reg: Registry, name: str, text: str, top: int = 3) -> list[Any]:
    from ..recall import word_index

    store = reg.store(name)
    out = []
    for slug, _ in word_index(reg, name).search(text, top):
        try:
            out.append(store.read(slug))
        except KuraError:
            continue
    return out


def _manifest_payload(
    res: GateResult,
    path: Path,
    batch_id: int,
    stretch: marks.Stretch,
    extra: Sequence[Segment] = (),
) -> dict[str, Any]:
    segs: dict[tuple, Segment] = {}
    for q in res.survivors:
        if q.segment is not None:
            segs[(q.segment.source, q.segment.start, q.segment.cls, q.segment.text)] = q.segment
    for s in extra:
        segs[(s.source, s.start, s.cls, s.text)] = s
    return {
        "version": 1,
        "journal": str(path),
        "stretch": {"start": stretch.start, "end": stretch.end},
        "batch": batch_id,
        "sessions": sorted({s.session_id for s in segs.values() if s.session_id}),
        "segments": [
            {
                "cls": s.cls,
                "text": s.text,
                "source": s.source,
                "start": s.start,
                "end": s.end,
                "unit": s.unit,
                "session_id": s.session_id,
            }
            for s in segs.values()
        ],
        "quotes": [q.to_json() for q in res.quotes],
        "gate": {k: v for k, v in res.to_json().items() if k != "quotes"},
        "label": res.label,
        "evidence": res.evidence.to_json(),
    }


def _quote_dicts(res: GateResult) -> tuple[dict[str, Any], ...]:
    out = []
    for q in res.quotes:
        d: dict[str, Any] = {
            "text": q.text,
            "cls": q.cls or "",
            "claimed": q.claimed or "",
            "status": q.status,
        }
        if q.segment is not None:
            d.update(
                source=q.segment.source,
                start=q.segment.start,
                end=q.segment.end,
                unit=q.segment.unit,
            )
        out.append(d)
    return tuple(out)


def _compose_task(reg: Registry, name: str, res: GateResult, chunk: _Chunk) -> str:
    """What the scribe is asked: the candidate, its verified evidence and the memories
    most like it in the store."""
    c = res.candidate
    with chunk.deadline.paused():  # the store's word index, not a check on the journal
        near = _neighbours(
            reg, name, " ".join(str(c.get(k, "")) for k in ("title", "description", "body"))
        )
    evidence = [q.segment for q in res.survivors if q.segment is not None]
    near_text = (
        "\n\n".join(
            f"slug: {m.slug}\ntitle: {m.title}\ndescription: {m.description}\nbody:\n{m.body.strip()[:1200]}"
            for m in near
        )
        or "(none)"
    )
    label = (
        "\nOnly the agent's own words vouch for this: write it as a first-person judgement "
        '("I judged …"), never as a fact.'
        if res.label == ClaimKind.JUDGEMENT
        else ""
    )
    task = (
        "Candidate:\n"
        + json.dumps(
            {
                k: c.get(k)
                for k in (
                    "kind",
                    "title",
                    "description",
                    "body",
                    "tags",
                    *CURATION_FIELDS,
                )
            },
            ensure_ascii=False,
        )
        + "\n\nVerified evidence:\n"
        + evidence_lines(evidence)
        + "\n\nMost similar memories in the store:\n"
        + near_text
        + label
    )
    return task


def _extended(
    store: Store, target: str, existing: set[str]
) -> tuple[list[Segment], str, list[str]]:
    """For a draft that extends *target*: the memory as evidence the scribe may repeat (a
    TOOL segment), the digest of the body it extends, and its text as given."""
    if target not in existing:
        raise _Dropped(f"the scribe extends {target!r}, which is not in the store")
    cur = store.read(target)
    seg = Segment(
        cls=ProvenanceClass.TOOL,
        text=cur.description + "\n" + cur.body,
        source=f"memory:{target}",
        start=0,
        end=0,
        unit="byte",
    )
    return [seg], body_digest(cur.body), [cur.title, cur.description, cur.body]


def _compose(
    reg: Registry,
    name: str,
    store: Store,
    res: GateResult,
    path: Path,
    batch_id: int,
    stretch: marks.Stretch,
    models: Any,
    chunk: _Chunk,
) -> Draft | None:
    spec = reg.config.stores[name]
    c = res.candidate
    task = _compose_task(reg, name, res, chunk)
    msgs = build_messages(preamble(store), COMPOSE_INSTRUCTIONS, task)
    existing = set(store.file_slugs())
    for attempt in (1, 2):
        reply = models.ask("scribe", "kura_compose", msgs, COMPOSE_SCHEMA)
        decision = reply.get("decision")
        target = str(reply.get("target") or "").strip()
        if decision == DraftDecision.COVERED:
            if target not in existing:
                raise _Dropped(
                    f"the scribe called it covered by {target!r}, which is not in the store"
                )
            _maybe_recurred(reg, name, store, target, res)
            reg.workshop(name).log_gate(
                GateLogKind.COVERED,
                title=res.title,
                slug=target,
                reason=f"already covered by {target}",
                detail={"batch": batch_id},
            )
            return None
        extended = _extended(store, target, existing) if decision == DraftDecision.EXTENDS else None
        extra, target_digest, given = extended or ([], "", [])
        raw = {k: reply.get(k) for k in ("title", "description", "body", *CURATION_FIELDS)}
        fields = {k: v if isinstance(v, str) else "" for k, v in raw.items()}
        tags, tag_problems = _compose_tags(reply.get("tags"), res, spec.distill.human_names)
        if not fields["description"].strip() or not fields["body"].strip():
            problems = ["the reply has no description or no body"]
        else:
            slug_for_links = target if decision == DraftDecision.EXTENDS else ""
            with chunk.deadline.step("floor: the scribe's draft"):
                found = chunk.floors.surface(
                    {k: v for k, v in raw.items() if v is not None},
                    res.evidence,
                    human_names=spec.distill.human_names,
                    given=given,
                    existing_slugs=existing | ({slug_for_links} if slug_for_links else set()),
                )
            found += kura_message_violations(
                {k: v for k, v in raw.items() if v is not None},
                source="\n".join([*(t for _c, t in res.evidence.segments), *given]),
            )
            problems = messages(found) + tag_problems
        if not problems:
            break
        if attempt == 2:
            raise _Dropped("refused by the floor after one retry: " + "; ".join(problems))
        msgs = msgs + [
            {"role": "assistant", "content": json.dumps(reply, ensure_ascii=False)},
            {"role": "user", "content": COMPOSE_RETRY.format(reason="; ".join(problems))},
        ]
    slug = str(reply.get("slug") or "").strip()
    try:
        check_slug(slug)
    except KuraError:
        slug = slugify(fields["title"] or res.title)
    if decision == DraftDecision.EXTENDS:
        slug = f"{target}-ext"
    mtype = str(reply.get("type") or "project")
    if mtype not in MEMORY_TYPES:
        mtype = "project"
    with chunk.deadline.paused():  # a write to the store, never interrupted half-way
        manifest = write_manifest(store, _manifest_payload(res, path, batch_id, stretch, extra))
    draft = Draft(
        slug=slug,
        title=fields["title"] or res.title,
        description=fields["description"],
        body=fields["body"],
        type=mtype,
        tags=tuple(dict.fromkeys(tags)),
        decision="extends" if decision == DraftDecision.EXTENDS else "new",
        target=target if decision == DraftDecision.EXTENDS else "",
        target_digest=target_digest,
        kind=str(c.get("kind") or "fact"),
        label=res.label,
        quotes=_quote_dicts(res),
        gate={k: v for k, v in res.to_json().items() if k != "quotes"},
        curation={k: fields[k] for k in CURATION_FIELDS if fields[k]},
        manifest=manifest,
        created=_now_iso(reg),
        source=str(path),
    )
    with chunk.deadline.paused():
        return save_draft(store, draft)


def _compose_tags(
    proposed: object, res: GateResult, human_names: Sequence[str]
) -> tuple[list[str], list[str]]:
    """The scribe's tags, through the same tag floor as every tag: claim tags the evidence
    does not back, the distiller's own tags and tags the gate took off the candidate are
    left out quietly; a tag that is not one word, or carries a figure or a claim no
    evidence vouches for, is a problem the scribe must fix."""
    from ..floors import check_tags

    if not isinstance(proposed, list) or not proposed:
        proposed = [t for t in res.candidate.get("tags") or [] if isinstance(t, str)]
    refused = {t for t, v in res.tag_checks.items() if not tag_passed(v)}
    out: list[str] = []
    problems: list[str] = []
    for tag in proposed:
        if not isinstance(tag, str) or tag in refused:
            continue
        found = check_tags([tag], res.evidence, human_names=human_names)
        if any(v.kind == "tag" and v.rule in ("needs_evidence", "distiller_only") for v in found):
            continue
        if found:
            problems += messages(found)
            continue
        if tag not in out:
            out.append(tag)
    return out, problems


def _now_iso(reg: Registry) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(reg.clock()).isoformat(timespec="seconds")


def _maybe_recurred(reg: Registry, name: str, store: Store, target: str, res: GateResult) -> None:
    """The human raised a covered topic again from another session: mark it, once."""
    user_sessions = {
        q.segment.session_id or q.segment.source
        for q in res.survivors
        if q.cls == ProvenanceClass.USER and q.segment is not None
    }
    if not user_sessions:
        return
    mem = store.read(target)
    if "recurred" in mem.tags:
        return
    md = dict_at(mem.meta, "metadata")
    ref = md.get("evidence_manifest")
    before: set[str] = set()
    if isinstance(ref, str):
        try:
            man = read_manifest(store, ref)
            before = {
                s.get("session_id") or s.get("source")
                for s in man.get("segments", [])
                if s.get("cls") == ProvenanceClass.USER
            }
        except KuraError:
            before = set()
    if before and user_sessions - before:
        store.add_tag(target, "recurred")
        reg.workshop(name).log_gate(
            GateLogKind.RECURRED,
            title=res.title,
            slug=target,
            reason="the human raised it again from another session",
        )


def wither_seeds(reg: Registry, name: str) -> int:
    """Wither the waiting seeds of store *name* that waited ``seed_wither_days`` or were
    checked ``seed_wither_checks`` times unconfirmed ([distill]; 0 turns a test off).
    Returns how many withered; each is logged, listed and can be revived."""
    d = reg.config.stores[name].distill
    ws = reg.workshop(name)
    older = ws.clock() - d.seed_wither_days * 86400 if d.seed_wither_days else None
    return len(ws.wither_seeds(older_than=older, checks=d.seed_wither_checks or None))


def _check_seeds(
    reg: Registry,
    name: str,
    store: Store,
    segs: list[Segment],
    path: Path,
    batch_id: int,
    echo: Callable[[str], bool],
    models: Any,
    chunk: _Chunk,
) -> int:
    """Ask whether this stretch confirms any waiting idea; graduate only on verified quotes."""
    ws = reg.workshop(name)
    wither_seeds(reg, name)
    waiting = ws.waiting_seeds(limit=reg.config.stores[name].distill.seed_check)
    if not waiting or not segs:
        return 0
    ws.note_seed_checks([r["id"] for r in waiting])
    ideas = "\n".join(f"{r['id']}: {r['title']} — {r['body'][:300]}" for r in waiting)
    task = f"Ideas:\n{ideas}\n\nNew evidence ({path.name}):\n{evidence_lines(segs)}"
    try:
        reply = models.ask(
            "brain",
            "kura_seed_check",
            build_messages(preamble(store), SEED_INSTRUCTIONS, task),
            SEED_SCHEMA,
        )
    except ModelUnavailable:
        return 0  # a seed check is optional; the batch itself already succeeded
    ids = {r["id"]: r for r in waiting}
    quotes = dict_at(reply, "quotes")
    graduated = 0
    spec = reg.config.stores[name]
    for sid in reply.get("confirms", []):
        if sid not in ids:
            continue
        qs = [q for q in (quotes.get(str(sid)) or []) if isinstance(q, str)]
        cand = {
            "kind": "fact",
            "title": ids[sid]["title"],
            "description": ids[sid]["title"],
            "body": ids[sid]["body"],
            "quotes": qs,
            "tags": [],
        }
        res = run_gate(
            [cand],
            segs,
            is_echo=echo,
            human_names=spec.distill.human_names,
            min_quote_chars=spec.distill.min_quote_chars,
            deadline=chunk.deadline,
            floors=chunk.floors,
        )[0]
        if res.verdict != GateVerdict.KEPT:
            ws.log_gate(
                GateLogKind.SEED_UNCONFIRMED,
                title=ids[sid]["title"],
                reason="; ".join(res.reasons) or "no verified quote",
                detail={"seed": sid},
            )
            continue
        try:
            d = _compose(
                reg,
                name,
                store,
                res,
                path,
                batch_id,
                marks.Stretch(0, "", 0, 0, 0, False),
                models,
                chunk,
            )
        except (_Dropped, ModelUnavailable) as exc:
            ws.log_gate(
                GateLogKind.SEED_UNCONFIRMED,
                title=ids[sid]["title"],
                reason=str(exc),
                detail={"seed": sid},
            )
            continue
        ws.graduate_seed(sid)
        ws.log_gate(
            GateLogKind.GRADUATED,
            title=ids[sid]["title"],
            slug=d.slug if d is not None else "",
            reason="later evidence confirmed the idea"
            + ("" if d is not None else "; the store already covers it"),
            detail={
                "seed": sid,
                "draft": d.slug if d is not None else "",
                "journal": str(path),
                "batch": batch_id,
                "quotes": [q.to_json() for q in res.survivors],
            },
        )
        if d is not None:
            graduated += 1
    return graduated


# --------------------------------------------------------------------------- catch-up


@dataclass(frozen=True)
class MarkMoved:
    journal: str
    mark: int
    unit: str


@dataclass(frozen=True)
class CatchupReport:
    """Which watermarks `kura distill catchup` moved to the present."""

    store: str
    moved: tuple[MarkMoved, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "moved": [{"journal": m.journal, "mark": m.mark, "unit": m.unit} for m in self.moved],
        }


def catchup(reg: Registry, selector: str | None) -> CatchupReport:
    """Move every watermark to the present without drinking."""
    name = reg.resolve(selector)
    ws = reg.workshop(name)
    moved = []
    for adapter, path in journal_files(reg, name):
        key = marks.journal_key(adapter, path)
        unit = _unit(adapter)
        end = ADAPTERS[adapter](path, marks.mark_of(ws, key) if _windowed(adapter) else 0).end
        if marks.catch_up(ws, key, adapter=adapter, unit=unit, end=end):
            moved.append(MarkMoved(str(path), end, unit))
    return CatchupReport(name, tuple(moved))


# --------------------------------------------------------------------------- drain


@dataclass(frozen=True)
class DrainReport:
    """What one drain did (frozen; counted as it ran in a :data:`_DrainTally`)."""

    store: str
    poured: tuple[str, ...] = ()
    fixed: tuple[str, ...] = ()
    tossed: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    stopped: str = ""
    #: drafts not judged because the drain stopped (each waits for the next drain)
    left: tuple[str, ...] = ()

    @property
    def did_work(self) -> bool:
        return bool(self.poured or self.tossed or self.fixed)

    def to_json(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "poured": list(self.poured),
            "fixed": list(self.fixed),
            "tossed": list(self.tossed),
            "kept": list(self.kept),
            "errors": list(self.errors),
            "stopped": self.stopped,
            "left": list(self.left),
        }


_DrainTally = tally_of(DrainReport)
#: an instance of :data:`_DrainTally` (see :data:`RunTally`)
DrainTally = Any


@under_store_rules  # a fix the scribe writes is checked with the store's own rules
def drain(
    reg: Registry,
    selector: str | None,
    *,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> DrainReport:
    """The scribe re-reads each draft cold: pour, fix or toss. No verdict keeps the draft.

    Pours a crash interrupted are finished (and logged once) first, without asking the
    scribe; each draft is claimed while it is judged, so two drains never judge one draft
    at once; and a draft poured or tossed by someone else meanwhile is passed over. One
    failed call keeps that draft and moves on; a scribe that cannot be reached, or fails
    :data:`MAX_MODEL_FAILURES` times in a row, stops the drain, and the drafts not judged
    are named in ``left``.
    """
    name = reg.resolve(selector)
    store = reg.store(name)
    report = _DrainTally(store=name)
    models = reg.models(name)
    if not models.configured("scribe"):
        raise KuraError(
            "drain needs a scribe model: add [models.thinker] or [models.scribe] to kura.toml; "
            "or review drafts by hand with `kura distill pour|toss`"
        )
    finish_pours(reg, name)
    failed = 0
    waiting = list_drafts(store)
    for index, listed in enumerate(waiting):
        if should_stop and should_stop():
            report.stopped = "asked to stop"
            report.left.extend(d.slug for d in waiting[index:])
            break
        with claimed(store, listed.slug) as mine:
            if not mine:
                continue  # another drain is judging it now
            try:
                d = read_draft(store, listed.slug)
            except NotFound:
                continue  # poured or tossed since the list was made
            if d.created != listed.created or d.manifest != listed.manifest:
                continue  # another draft took the name since; it gets its own turn
            if is_poured(store, d):
                finish_pours(reg, name)
                continue
            error = _judge(reg, name, store, models, d, report, progress)
        if error is None:
            failed = 0
            continue
        failed += 1
        if error.unreachable or failed >= MAX_MODEL_FAILURES:
            why = "unreachable" if error.unreachable else f"failed {failed} times in a row"
            report.stopped = f"the scribe failed ({why}): {error}"
            report.left.extend(d.slug for d in waiting[index + 1 :])
            break
    return report.freeze()


#: Words in a judge's reason that say the draft does not match its evidence. A verdict
#: that says so never pours, whatever its verdict word ("does not contradict" is not one).
_CONTRADICTS = re.compile(
    r"\b(?:contradict\w*|misquot\w*|misrepresent\w*|misattribut\w*"
    r"|(?:does|do|did)\s*(?:not|n't)\s+match|not\s+supported\s+by|unsupported\s+by"
    r"|opposite\s+of|not\s+what\s+the\s+(?:quote|evidence|user)\w*\s+sa(?:y|id)\w*)",
    re.IGNORECASE,
)
#: A negation just before such words takes them back ("no contradiction", "does not
#: contradict", "never misquotes").
_TAKEN_BACK = re.compile(r"(?:\bnot|\bno|\bnever|\bwithout|n't)\s+(?:\w+\s+)?$", re.IGNORECASE)


def says_it_contradicts(reason: str) -> bool:
    """Whether a judge's *reason* says the draft does not match its evidence."""
    for m in _CONTRADICTS.finditer(reason):
        if not _TAKEN_BACK.search(reason[max(0, m.start() - 24) : m.start()]):
            return True
    return False


def _fix_text(reply: Mapping[str, Any]) -> dict[str, str]:
    """The fixed fields a judge gave (text only, blank ones left out)."""
    f = dict_at(reply, "fix")
    return {
        k: v
        for k in ("title", "description", "body")
        if isinstance(v := f.get(k), str) and v.strip()
    }


def _keep(reg: Registry, name: str, d: Draft, report: DrainTally, why: str) -> None:
    reg.workshop(name).log_gate(GateLogKind.KEPT, title=d.title, slug=d.slug, reason=why)
    report.kept.append(d.slug)


def _judge(
    reg: Registry,
    name: str,
    store: Store,
    models: Any,
    d: Draft,
    report: DrainTally,
    progress: Progress | None,
) -> ModelUnavailable | None:
    """Ask the scribe about one draft and act on the verdict; the failure when the call
    failed (the draft stays as it was)."""
    if progress:
        progress("draft", {"slug": d.slug})
    try:
        reply = models.ask(
            "scribe",
            "kura_judge",
            build_messages(preamble(store), JUDGE_INSTRUCTIONS, _judge_task(store, d)),
            JUDGE_SCHEMA,
        )
    except ModelUnavailable as exc:
        report.errors.append(f"{d.slug}: {exc}")
        return exc
    verdict = str(reply.get("verdict", "")).strip().lower()
    reason = " ".join(str(reply.get("reason") or "").split())
    try:
        _act(reg, name, d, verdict, reason, reply, report)
    except NotFound:
        pass  # poured or tossed by someone else while the scribe read it
    except StorageError:
        raise  # the disk refuses: every later draft would fail the same way; say so once
    except (FloorRefused, KuraError) as exc:
        report.kept.append(d.slug)
        report.errors.append(f"{d.slug}: {exc}")
    return None


def _judge_task(store: Store, d: Draft) -> str:
    segs, _ev, _given = evidence_of(store, d)
    return (
        "Draft:\n"
        + json.dumps(
            {
                "title": d.title,
                "description": d.description,
                "body": d.body,
                "type": d.type,
                "tags": list(d.tags),
                "decision": d.decision,
                "target": d.target,
                "label": d.label,
                **dict(d.curation),
            },
            ensure_ascii=False,
        )
        + "\n\nEvidence:\n"
        + evidence_lines(segs)
    )


def _act(
    reg: Registry,
    name: str,
    d: Draft,
    verdict: str,
    reason: str,
    reply: Mapping[str, Any],
    report: DrainTally,
) -> None:
    """Do what the judge said, and only what it approved: a pour whose reason says the
    draft contradicts its evidence is kept; a fix without fixed text is kept; a fix goes
    through the draft's floors and keeps its negations and ⚠️ before it pours."""
    contradicts = says_it_contradicts(reason)
    if verdict == "toss":
        toss(reg, name, d.slug, reason or "tossed by the scribe without a reason", by="scribe")
        report.tossed.append(d.slug)
    elif verdict == "pour" and contradicts:
        _keep(reg, name, d, report, f"the judge said pour, but also: {reason}; kept for review")
    elif verdict == "pour":
        pour(reg, name, d.slug, by="scribe")
        report.poured.append(d.slug)
    elif verdict == "fix":
        fixed = _fix_text(reply)
        if not fixed:
            _keep(
                reg, name, d, report, f"the judge asked for a fix but gave no fixed text: {reason}"
            )
            return
        fix_draft(reg, name, d.slug, **fixed, by="scribe", reason=reason, keep_marks=True)
        report.fixed.append(d.slug)
        if contradicts and "body" not in fixed:
            _keep(reg, name, d, report, f"fixed, but the body was not: {reason}; kept for review")
            return
        pour(reg, name, d.slug, by="scribe")
        report.poured.append(d.slug)
    else:
        _keep(
            reg, name, d, report, f"the judge named no valid verdict ({verdict or 'empty'!s}); kept"
        )
