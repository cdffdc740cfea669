"""The eye the metabolism needs: what is in a store, and what is broken.

Broken (doctor exits non-zero): no store is configured, the store is missing, a memory
file cannot be read, the index and the files disagree, a link points at nothing, a
memory's evidence manifest is gone, a tender that was running has stopped beating, the
store refuses writes (read-only, unless its write_policy is frozen), the workshop
database cannot be used (damaged, full), or a write is still waiting to be finished.
Worth knowing but not broken: islands, waiting drafts, a model that is down (kura
still answers, degraded), malformed tags, a busy workshop database, a workshop database
that was missing and started afresh, YAML-ish frontmatter (read in the line form,
normalised on kura's next write), Markdown files whose names are not slugs, a store that
drinks no journal, a journal root two stores drink, a capacity limit reached, the learned
profile's state.

Doctor never fails because of what it diagnoses: it answers with the problem named.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import socket
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .config import shared_journal_roots
from .distill.pipeline import missing_roots, no_journals_reason
from .errors import BusyError, KuraError, ReadOnlyStore
from .fsutil import FULL_ERRNOS, READ_ONLY_ERRNOS, is_temp_name, probe_write, reason_of
from .llm import ModelClient, probe_line
from .profile import ProfileState, profile_state
from .registry import Registry
from .scrub import StoredSecret, stored_secrets
from .store import RESERVED, Index, Scan, Store, slugify
from .tokens import estimate_tokens
from .vocabulary import StretchState, TenderState, WritePolicy
from .workshop import Workshop

#: a tender that has not beaten for this long is stale; for DEAD_AFTER, dead.
STALE_AFTER = 180.0
DEAD_AFTER = 600.0


def heartbeat_state(row: dict[str, Any] | None, now: float) -> dict[str, Any]:
    if not row:
        return {"state": TenderState.NEVER_STARTED}
    age = now - row["beat"]
    state = row.get("state") or ""
    if state == TenderState.STOPPED:
        verdict = TenderState.STOPPED
    elif age > DEAD_AFTER or not _pid_alive(row):
        verdict = TenderState.DEAD
    elif age > STALE_AFTER:
        verdict = TenderState.STALE
    else:
        verdict = TenderState.ALIVE
    out = {"state": verdict, "pid": row["pid"], "last_beat_s": round(age, 1), "doing": state}
    try:
        out["counts"] = json.loads(row.get("counts") or "{}")
    except ValueError:
        out["counts"] = {}
    return out


def _pid_alive(row: dict[str, Any]) -> bool:

    if row.get("host") and row["host"] != socket.gethostname():
        return True  # cannot tell from here; trust the clock
    try:
        os.kill(int(row["pid"]), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, ValueError, OSError):
        return True
    return True


# =========================================================================== the report


@dataclass(frozen=True)
class FileIssue:
    """A file and why it is named: unreadable, read in another form, or not read at all."""

    file: str
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "why": self.why}


@dataclass(frozen=True)
class DeadLink:
    """``[[target]]`` in memory ``source`` names no memory."""

    source: str
    target: str

    def to_json(self) -> dict[str, Any]:
        return {"from": self.source, "to": self.target}


@dataclass(frozen=True)
class IndexDrift:
    """Where ``MEMORY.md`` and the memory files disagree."""

    files_without_line: tuple[str, ...] = ()
    lines_without_file: tuple[str, ...] = ()
    duplicate_lines: tuple[str, ...] = ()
    bad_targets: tuple[str, ...] = ()  # entry-shaped lines whose link is not a slug

    def items(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """(field name, values) in report order."""
        return (
            ("files_without_line", self.files_without_line),
            ("lines_without_file", self.lines_without_file),
            ("duplicate_lines", self.duplicate_lines),
            ("bad_targets", self.bad_targets),
        )

    def to_json(self) -> dict[str, Any]:
        return {k: list(v) for k, v in self.items()}


@dataclass(frozen=True)
class Tender:
    """The tender's heartbeat as doctor reads it. ``state``: alive, stale, dead, stopped,
    never started, or unknown (the workshop could not be read). The other fields are there
    when a heartbeat was found (``beat``)."""

    state: str
    pid: int | None = None
    last_beat_s: float | None = None
    doing: str = ""
    counts: Mapping[str, Any] = field(default_factory=dict)

    @property
    def beat(self) -> bool:
        return self.last_beat_s is not None

    @classmethod
    def from_heartbeat(cls, hb: Mapping[str, Any]) -> Tender:
        if "last_beat_s" not in hb:
            return cls(str(hb["state"]))
        return cls(
            str(hb["state"]),
            hb.get("pid"),
            hb["last_beat_s"],
            hb.get("doing") or "",
            MappingProxyType(dict(hb.get("counts") or {})),
        )

    def to_json(self) -> dict[str, Any]:
        if not self.beat:
            return {"state": self.state}
        return {
            "state": self.state,
            "pid": self.pid,
            "last_beat_s": self.last_beat_s,
            "doing": self.doing,
            "counts": dict(self.counts),
        }


@dataclass(frozen=True)
class ModelRole:
    """One model role: its configuration, how its calls have gone (from the workshop, so
    every process's calls count), and, when probed or unconfigured, whether it answers."""

    role: str
    configured: bool
    url: str | None
    model: str | None
    calls: int = 0
    failures: int = 0
    last_ok_at: float | None = None
    last_error: str | None = None
    last_error_at: float | None = None
    reachable: bool | None = None  # None: configured and not probed
    reason: str | None = None
    #: the structured-output shape its endpoint accepts (learnt; the probe learns afresh)
    shape: str | None = None
    #: what the probe measured: the time to its answer, and the server's refusals on the way
    latency_ms: float | None = None
    refused: tuple[str, ...] = ()
    max_tokens: int | None = None  # the role's own setting (None: each task's default)
    deadline: float | None = None

    @property
    def failing(self) -> bool:
        """The last call failed (no success since the last error)."""
        return bool(self.last_error_at and (self.last_ok_at or 0) < self.last_error_at)

    @property
    def said(self) -> str:
        """What the probe brought back (or the shape learnt), in words."""
        return probe_line(self.reachable, self.reason, self.shape, self.refused)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "configured": self.configured,
            "url": self.url,
            "model": self.model,
            "calls": self.calls,
            "failures": self.failures,
            "last_ok_at": self.last_ok_at,
            "last_error": self.last_error,
            "last_error_at": self.last_error_at,
            "failing": self.failing,
            "shape": self.shape,
            "max_tokens": self.max_tokens,
            "deadline": self.deadline,
        }
        if self.reachable is not None:
            out["reachable"] = self.reachable
            out["reason"] = self.reason
        if self.latency_ms is not None:
            out["latency_ms"] = round(self.latency_ms, 1)
            out["refused"] = list(self.refused)
        return out


@dataclass(frozen=True)
class Capacity:
    """The store's size in doctor's four units; ``limit`` (the units set in [capacity]) and
    ``pressure`` (the fullest unit's share of its limit) are None until a limit is set."""

    memories: int = 0
    index_tokens: int = 0
    body_tokens: int = 0
    bytes: int = 0
    limit: Mapping[str, int] | None = None
    pressure: float | None = None

    def used(self, unit: str) -> int:
        return {
            "memories": self.memories,
            "index_tokens": self.index_tokens,
            "body_tokens": self.body_tokens,
            "bytes": self.bytes,
        }[unit]

    def to_json(self) -> dict[str, Any]:
        return {
            "memories": self.memories,
            "index_tokens": self.index_tokens,
            "body_tokens": self.body_tokens,
            "bytes": self.bytes,
            "limit": dict(self.limit) if self.limit is not None else None,
            "pressure": self.pressure,
        }


@dataclass(frozen=True)
class JournalRoot:
    adapter: str
    root: str


@dataclass(frozen=True)
class SharedRoot:
    """A journal root this store drinks together with other stores."""

    root: str
    stores: tuple[str, ...]


@dataclass(frozen=True)
class Journals:
    """Which journals the store drinks: ``source`` is where they come from (``journals.from``)."""

    source: str
    roots: tuple[JournalRoot, ...] = ()
    shared: tuple[SharedRoot, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "from": self.source,
            "roots": [{"adapter": r.adapter, "root": r.root} for r in self.roots],
            "shared": [{"root": s.root, "stores": list(s.stores)} for s in self.shared],
        }


@dataclass(frozen=True)
class Charter:
    """Whether the store has a charter (``charter.md``), and where it is or would be."""

    present: bool
    path: str


@dataclass(frozen=True)
class DoctorReport:
    """What is in one store and what is broken: one shape whether the store exists or not
    (a missing store has ``workshop == "missing"``, nothing counted, and the problem named).

    ``to_json()`` is the face's JSON (``kura doctor --json``, ``GET /doctor``,
    ``kura_doctor``): SPEC §12's keys and the extras beside them.
    """

    store: str
    path: str
    label: str
    write_policy: str
    ok: bool
    memories: int
    dead_links: tuple[DeadLink, ...]
    islands: tuple[str, ...]
    index_drift: IndexDrift
    unreadable: tuple[FileIssue, ...]
    manifests_missing: tuple[str, ...]
    drafts_waiting: int
    seeds: int
    normalise_on_write: tuple[FileIssue, ...]
    ignored_files: tuple[FileIssue, ...]
    profile: ProfileState | None  # None when the store does not exist
    charter: Charter
    journals: Journals
    tender: Tender
    models: Mapping[str, ModelRole]  # thinker, brain, scribe
    capacity: Capacity
    writable: bool
    workshop: str  # ok | new | recreated | read-only | busy | unavailable | missing
    problems: tuple[str, ...]  # what makes it broken (``ok`` is False when there is any)
    notes: tuple[str, ...]  # worth knowing, not broken
    #: secrets kept in the store's files or workshop, by place and kind (``kura scrub``)
    secrets: tuple[StoredSecret, ...] = ()

    @property
    def exists(self) -> bool:
        return self.workshop != "missing"

    def to_json(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "path": self.path,
            "label": self.label,
            "write_policy": self.write_policy,
            "ok": self.ok,
            "memories": self.memories,
            "dead_links": [d.to_json() for d in self.dead_links],
            "islands": list(self.islands),
            "index_drift": self.index_drift.to_json(),
            "unreadable": [u.to_json() for u in self.unreadable],
            "manifests_missing": list(self.manifests_missing),
            "drafts_waiting": self.drafts_waiting,
            "seeds": self.seeds,
            "normalise_on_write": [n.to_json() for n in self.normalise_on_write],
            "ignored_files": [f.to_json() for f in self.ignored_files],
            "profile": self.profile.to_json(text=False) if self.profile is not None else None,
            "charter": {"present": self.charter.present, "path": self.charter.path},
            "journals": self.journals.to_json(),
            "tender": self.tender.to_json(),
            "models": {role: m.to_json() for role, m in self.models.items()},
            "capacity": self.capacity.to_json(),
            "writable": self.writable,
            "workshop": self.workshop,
            "problems": list(self.problems),
            "notes": list(self.notes),
            "secrets": [x.to_json() for x in self.secrets],
        }


@dataclass(frozen=True)
class DoctorAll:
    """Every configured store's report. ``problems`` names what is wrong beyond one store
    (no store configured at all)."""

    ok: bool
    stores: tuple[DoctorReport, ...]
    at: float
    problems: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "stores": [r.to_json() for r in self.stores],
            "at": self.at,
            "problems": list(self.problems),
        }


# =========================================================================== diagnosing


def diagnose(reg: Registry, selector: str | None = None, *, probe: bool = False) -> DoctorReport:
    """What is in store *selector* and what is broken. Never raises for what it finds."""
    name = reg.resolve(selector)
    store = reg.store(name)
    spec = reg.config.stores[name]
    problems: list[str] = []
    notes: list[str] = []
    if not store.root.is_dir() or not store.index_path.is_file():
        return _no_store(reg, name, store, spec)

    scan = store.scan()
    present = set(store.file_slugs())
    dead, islands = _links(scan, present)
    drift = _drift(scan.index, present)
    unreadable, normalise, manifests_missing = _file_findings(store, scan)
    ignored = _ignored_files(store)
    drafts_dir = store.still / "drafts"
    drafts_waiting = len(list(drafts_dir.glob("*.md"))) if drafts_dir.is_dir() else 0
    workshop = _workshop(reg, name, store, spec.write_policy, problems, notes)
    tender = Tender.from_heartbeat(workshop["tender"])
    for what in store.pending():
        problems.append(
            f"{what}: free space or make the store writable; the next write or "
            "`kura distill drain` finishes it"
        )
    problems += _found_problems(name, scan, dead, drift, manifests_missing, tender)
    secrets = _stored_secrets(reg, name, store, spec)
    if secrets:
        problems.append(
            f"{len(secrets)} secret(s) are stored in the store (first: {secrets[0]}); "
            f"run `kura scrub -s {name}` to redact them (the originals go to a backup "
            "outside the store)"
        )
    notes += _found_notes(reg, name, scan, tender, islands, drafts_waiting, normalise, ignored)
    notes += _huge_notes(scan, reg.config.stores[name].recall.chars)
    journals = _journals(reg, name, notes)

    profile = profile_state(reg, name)
    if profile.problem:
        notes.append(f"the learned profile cannot be read: {profile.problem}")
    elif profile.draft_present:
        notes.append(
            f"a profile draft is waiting: read it with `kura profile show -s {name}`, "
            f"apply it with `kura profile apply -s {name}`"
        )
    models = _models(reg, name, probe=probe, calls=workshop["calls"], dialects=workshop["dialects"])
    notes += [
        f"model {role}: {st.last_error}"
        for role, st in models.items()
        if st.last_error and st.failing
    ]
    capacity = _capacity(spec, _usage(store, scan, len(present)))
    if capacity.pressure is not None and capacity.pressure >= 1.0 and capacity.limit:
        over = ", ".join(
            f"{k} {capacity.used(k)} of {v}"
            for k, v in capacity.limit.items()
            if capacity.used(k) >= v
        )
        notes.append(
            f"the store is at or over its capacity limit ({over}); kura keeps every memory "
            "— tidy, merge or raise [capacity] in kura.toml"
        )
    return DoctorReport(
        store=name,
        path=str(store.root),
        label=spec.label,
        write_policy=spec.write_policy,
        ok=not problems,
        memories=len(present),
        dead_links=tuple(dead),
        islands=tuple(islands),
        index_drift=drift,
        unreadable=tuple(unreadable),
        manifests_missing=tuple(manifests_missing),
        drafts_waiting=drafts_waiting,
        seeds=workshop["seeds"],
        normalise_on_write=tuple(normalise),
        ignored_files=tuple(ignored),
        profile=profile,
        charter=Charter(bool(store.charter()), str(store.charter_path)),
        journals=journals,
        tender=tender,
        models=models,
        capacity=capacity,
        writable=workshop["writable"],
        workshop=workshop["state"],
        problems=tuple(problems),
        notes=tuple(notes),
        secrets=secrets,
    )


def _stored_secrets(reg: Registry, name: str, store: Store, spec: Any) -> tuple[StoredSecret, ...]:
    """Secrets in the store's files, and in its workshop when that can be read."""
    try:
        ws: Workshop | None = reg.workshop(name)
        return stored_secrets(store, ws, spec.secrets)
    except KuraError:
        return stored_secrets(store, None, spec.secrets)


def _no_store(reg: Registry, name: str, store: Store, spec: Any) -> DoctorReport:
    """The report for a store whose directory or MEMORY.md is not there."""
    notes: list[str] = []
    journals = _journals(reg, name, notes)
    return DoctorReport(
        store=name,
        path=str(store.root),
        label=spec.label,
        write_policy=spec.write_policy,
        ok=False,
        memories=0,
        dead_links=(),
        islands=(),
        index_drift=IndexDrift(),
        unreadable=(),
        manifests_missing=(),
        drafts_waiting=0,
        seeds=0,
        normalise_on_write=(),
        ignored_files=(),
        profile=None,
        charter=Charter(False, str(store.charter_path)),
        journals=journals,
        tender=Tender("never started"),
        models=_models(reg, name, probe=False),
        capacity=_capacity(spec, {"memories": 0, "index_tokens": 0, "body_tokens": 0, "bytes": 0}),
        writable=False,
        workshop="missing",
        problems=(
            f"the store directory {store.root} has no MEMORY.md: run `kura init {name} --path {store.root}`",
        ),
        notes=tuple(notes),
    )


def _links(scan: Scan, present: set[str]) -> tuple[list[DeadLink], list[str]]:
    """Links to no memory, and memories nothing links to (when there is more than one)."""
    dead: list[DeadLink] = []
    incoming: Counter[str] = Counter()
    for m in scan.memories:
        for target in dict.fromkeys(m.links):
            if target in present:
                if target != m.slug:
                    incoming[target] += 1
            else:
                dead.append(DeadLink(m.slug, target))
    mems = scan.by_slug()
    islands = sorted(s for s in mems if incoming[s] == 0) if len(mems) > 1 else []
    return dead, islands


def _drift(idx: Index, present: set[str]) -> IndexDrift:
    """Where MEMORY.md and the memory files disagree."""
    counts = Counter(e.slug for e in idx.entries)
    return IndexDrift(
        files_without_line=tuple(sorted(present - set(counts))),
        lines_without_file=tuple(sorted(s for s in counts if s not in present)),
        duplicate_lines=tuple(sorted(s for s, c in counts.items() if c > 1)),
        bad_targets=tuple(t for _, t in idx.foreign_links),
    )


def _file_findings(store: Store, scan: Scan) -> tuple[list[FileIssue], list[FileIssue], list[str]]:
    """Files that cannot be read (or read only in part), files in the line form, and
    memories whose evidence manifest is gone."""
    unreadable = [FileIssue(f, why) for f, why in scan.unreadable]
    unreadable += [FileIssue(f"{m.slug}.md", p) for m in scan.memories for p in m.problems]
    # YAML-ish frontmatter (hand-written, other tools): read in the line form, not broken
    normalise = [FileIssue(f"{m.slug}.md", m.form_why) for m in scan.memories if m.form != "yaml"]
    manifests_missing = []
    for m in scan.memories:
        raw_md = m.meta.get("metadata")
        md: dict[str, Any] = raw_md if isinstance(raw_md, dict) else {}
        ref = md.get("evidence_manifest")
        if (
            isinstance(ref, str)
            and ref.startswith("sha256:")
            and not (store.still / "manifests" / f"{ref[7:]}.json").is_file()
        ):
            manifests_missing.append(m.slug)
    return unreadable, normalise, manifests_missing


def _usage(store: Store, scan: Scan, memories: int) -> dict[str, int]:
    """How much of its capacity the store uses: memories, tokens and bytes."""
    nbytes = sum(m.size for m in scan.memories)
    with contextlib.suppress(OSError):
        nbytes += store.index_path.stat().st_size
    return {
        "memories": memories,
        "index_tokens": estimate_tokens(store.index_text()),
        "body_tokens": sum(estimate_tokens(m.body) for m in scan.memories),
        "bytes": nbytes,
    }


def _found_problems(
    name: str,
    scan: Scan,
    dead: list[DeadLink],
    drift: IndexDrift,
    manifests_missing: list[str],
    tender: Tender,
) -> list[str]:
    """What is broken in the store's files, one line each."""
    out: list[str] = []
    if dead:
        out.append(
            f"{len(dead)} link(s) point at no memory (first: [[{dead[0].target}]] in "
            f"{dead[0].source}): run `kura relink {dead[0].target} -s {name}` to make them "
            f"plain text, or add `--to SLUG` to point them at another memory"
        )
    if drift.files_without_line:
        out.append(
            f"{len(drift.files_without_line)} memory file(s) have no index line "
            f"(first: {drift.files_without_line[0]}.md): run `kura adopt -s {name}` to "
            "write their index lines"
        )
    if drift.lines_without_file:
        out.append(
            f"{len(drift.lines_without_file)} index line(s) point at no file "
            f"(first: {drift.lines_without_file[0]}.md)"
        )
    if drift.duplicate_lines:
        out.append(f"{len(drift.duplicate_lines)} memory(ies) have more than one index line")
    if drift.bad_targets:
        out.append(f"{len(drift.bad_targets)} index line(s) link to a name that is not a slug")
    if scan.unreadable:
        out.append(
            f"{len(scan.unreadable)} memory file(s) cannot be read (first: "
            f"{scan.unreadable[0][0]}: {scan.unreadable[0][1]})"
        )
    if manifests_missing:
        out.append(
            f"{len(manifests_missing)} memory(ies) point at an evidence manifest that is gone"
        )
    if tender.state == TenderState.DEAD:
        out.append(
            "the tender has stopped beating: it is dead; restart `kura tend -s " + name + "`"
        )
    return out


def _found_notes(
    reg: Registry,
    name: str,
    scan: Scan,
    tender: Tender,
    islands: list[str],
    drafts_waiting: int,
    normalise: list[FileIssue],
    ignored: list[FileIssue],
) -> list[str]:
    """What is worth knowing but not broken, one line each."""

    out: list[str] = []
    if tender.state == TenderState.STALE:
        out.append("the tender's heartbeat is late")
    out += [
        f"journal root {root} does not exist: nothing is distilled from it"
        for root in missing_roots(reg, name)
    ]
    if islands:
        out.append(f"{len(islands)} memory(ies) are islands: nothing links to them")
    if drafts_waiting:
        out.append(f"{drafts_waiting} draft(s) waiting for drain or review")
    if any(m.problems for m in scan.memories):
        out.append("some frontmatter fields could not be read; see unreadable")
    if normalise:
        out.append(
            f"{len(normalise)} memory file(s) have YAML-ish frontmatter, read in the line form "
            f"(first: {normalise[0].file}); kura writes them as YAML the next time it "
            "writes them — nothing to fix"
        )
    out += [f"{f.file} is not read as a memory: {f.why}" for f in ignored]
    return out


def body_warning(body: str, budget_chars: int) -> str:
    """A warning when a memory's body is far over the store's body budget (its whole recall
    context, ``[recall] chars``): recall can only ever return a part of it, so what it holds
    is mostly out of reach. "" when it is within."""
    size = len(body.strip())
    if size <= budget_chars:
        return ""
    return (
        f"its body is {size:,} characters, over the store's whole recall budget of "
        f"{budget_chars:,} ([recall] chars): recall only ever returns a part of it; "
        "split it into smaller memories that link to each other"
    )


def _huge_notes(scan: Scan, budget_chars: int) -> list[str]:
    """One line naming the memories far over the body budget, biggest first."""
    huge = sorted(
        (m for m in scan.memories if body_warning(m.body, budget_chars)),
        key=lambda m: -len(m.body),
    )
    if not huge:
        return []
    return [
        f"{len(huge)} memory(ies) have a body over the recall budget of {budget_chars:,} "
        f"characters (biggest: {huge[0].slug}, {len(huge[0].body.strip()):,}): recall only "
        "ever returns a part of them; split them into smaller memories"
    ]


def _shelved_notes(rows: Sequence[Any]) -> list[str]:
    """One line per shelved stretch of journal: where it is, why, and that it waits."""
    out = []
    for r in rows:
        journal = str(r["journal"]).partition(":")[2] or r["journal"]
        out.append(
            f"shelved stretch {journal} {r['start']}–{r['end']} (tried {r['attempts']}×): "
            f"{r['reason'] or 'no reason recorded'} — the watermark waits below it and the "
            "next distil tries it again"
        )
    return out


def _capacity(spec: Any, used: dict[str, int]) -> Capacity:
    """The four units side by side, with ``limit`` (the units set in [capacity]) and
    ``pressure`` (the fullest unit's share of its limit): both None until a limit is set."""
    limits = spec.capacity.limits()
    pressure = max((used[k] / v for k, v in limits.items()), default=None) if limits else None
    return Capacity(
        **used,
        limit=MappingProxyType(dict(limits)) if limits else None,
        pressure=None if pressure is None else round(pressure, 4),
    )


def _journals(reg: Registry, name: str, notes: list[str]) -> Journals:
    """Which journal roots this store drinks, and any it shares with another store."""

    spec = reg.config.stores[name]
    roots = [{"adapter": j.adapter, "root": str(j.root)} for j in spec.distill.journals]
    shared = [s for s in shared_journal_roots(reg.config) if name in s["stores"]]
    if spec.journals_from == "none" and len(reg.config.stores) > 1 and reg.config.distill.journals:
        # the case that used to share journals by accident: global journals, and this store
        # neither names its own nor inherits them (with no journals anywhere, nothing is
        # distilled for any store, and `journals.from` says "none")
        notes.append(
            no_journals_reason(reg, name).replace(" drinks no journal:", " drinks nothing:")
        )
    for s in shared:
        others = ", ".join(x for x in s["stores"] if x != name)
        notes.append(
            f"journal root {s['root']} is drunk by this store and by {others}: what is said "
            "there can become a memory in each (see docs/TRUST.md)"
        )
    return Journals(
        spec.journals_from,
        tuple(JournalRoot(r["adapter"], r["root"]) for r in roots),
        tuple(SharedRoot(s["root"], tuple(s["stores"])) for s in shared),
    )


def _ignored_files(store: Store) -> list[FileIssue]:
    """Markdown files in the store's directory that are not read as memories because their
    name is not a slug (memory tools often write user_role.md or Notes.md)."""

    out: list[FileIssue] = []
    try:
        names = sorted(os.listdir(store.root))
    except OSError:
        return out
    known = set(store.file_slugs())
    for n in names:
        if not n.endswith(".md") or is_temp_name(n) or n == "MEMORY.md":
            continue
        stem = n[:-3]
        if (
            stem in known
            or stem.lower() in RESERVED
            or stem.startswith("_")
            or not (store.root / n).is_file()
        ):
            continue
        out.append(
            FileIssue(
                n,
                f"its name is not a slug; rename it to {slugify(stem)}.md "
                "(lower-case words joined by '-') to make it a memory",
            )
        )
    return out


def _workshop(
    reg: Registry, name: str, store: Store, policy: str, problems: list[str], notes: list[str]
) -> dict[str, Any]:
    """What the workshop database says (seeds, tender, model calls), and what is wrong
    with it or with writing to the store — said precisely, never raised: doctor answers
    even when the database is gone, busy, read-only or damaged, or the disk is full."""
    out: dict[str, Any] = {
        "seeds": 0,
        "tender": {"state": "unknown"},
        "calls": {},
        "dialects": {},
        "state": "ok",
        "writable": True,
    }
    # a real write in the workshop (never in the store directory itself, whose mtime keys the
    # recall caches); access(2) for the store directory, which also says no on a read-only mount
    refused = probe_write(store.still) if store.still.is_dir() else None
    if refused is None and not os.access(store.root, os.W_OK):
        refused = OSError(errno.EACCES, os.strerror(errno.EACCES), str(store.root))
    writable = refused is None or refused.errno not in READ_ONLY_ERRNOS
    out["writable"] = writable
    if refused is not None and not writable:
        text = (
            f"store {name!r} is read-only ({store.root}: {reason_of(refused)}): memories can be read; "
            "remembering, distilling and pouring are refused"
        )
        if policy == WritePolicy.FROZEN:
            notes.append(text)
        else:
            problems.append(
                text + " — remount it read-write or give this user write access. "
                "Do not move kura.db aside: it holds the watermarks, gate log and seeds"
            )
    elif refused is not None:
        problems.append(
            f"store {name!r} cannot be written ({store.root}: {reason_of(refused)}): reads keep "
            "working, every write is refused until "
            + ("space is freed" if refused.errno in FULL_ERRNOS else "the disk is fixed")
        )
    ws = reg.workshop(name)
    fresh = not ws.path.exists()
    try:
        out["seeds"] = ws.count_waiting_seeds()
        out["tender"] = heartbeat_state(ws.heartbeat(), reg.clock())
        out["calls"] = ws.model_calls()
        out["dialects"] = ws.learnt_dialects()
        notes += _shelved_notes(
            [r for r in ws.reservations() if r["state"] == StretchState.SHELVED]
        )
    except BusyError as exc:
        out["state"] = "busy"
        notes.append(str(exc))
        return out
    except KuraError as exc:
        out["state"] = "unavailable"
        if writable or not isinstance(exc, ReadOnlyStore):
            problems.append(str(exc))
        return out
    if ws.recreated or fresh:
        out["state"] = "recreated" if ws.recreated else "new"
        if ws.recreated or (store.still / "manifests").is_dir():  # it had distilled before
            notes.append(
                f"the workshop database {ws.path} was missing and a fresh one was started: "
                "watermarks, the gate log and seeds start over. Restore kura.db from a backup, "
                "or run `kura distill catchup` before the next distil so old journal is not drunk again"
            )
    elif ws.readonly:
        out["state"] = "read-only"
    return out


def _models(
    reg: Registry,
    name: str,
    *,
    probe: bool,
    calls: Mapping[str, Any] | None = None,
    dialects: Mapping[str, Any] | None = None,
) -> Mapping[str, ModelRole]:
    """Each role's model, how its calls went, the shape its endpoint was learnt to accept,
    and -- with *probe* -- what one tiny real request in the role's shape brought back."""
    calls = calls or {}
    dialects = dialects or {}
    client = reg.models(name) if probe else None
    out: dict[str, ModelRole] = {}
    for role in ("thinker", "brain", "scribe"):
        spec = reg.config.models.get(role)
        c = calls.get(role, {})
        seen: dict[str, Any] = {}
        if spec is None:
            seen["reachable"] = False
            seen["reason"] = f"{role} is not configured" + (
                "" if role == "thinker" else " (and nothing to inherit)"
            )
        else:
            learnt = dialects.get(ModelClient.endpoint_key(spec)) or {}
            seen["shape"] = learnt.get("shape")
            seen["max_tokens"], seen["deadline"] = spec.max_tokens, spec.timeout
            if client is not None:
                result = client.check(role)
                seen.update(
                    reachable=result.ok,
                    reason=result.summary,
                    shape=result.shape or None,
                    latency_ms=result.latency_ms,
                    refused=result.tried,
                )
        out[role] = ModelRole(
            role=role,
            configured=spec is not None,
            url=spec.url if spec else None,
            model=spec.model if spec else None,
            calls=c.get("calls", 0),
            failures=c.get("failures", 0),
            last_ok_at=c.get("last_ok_at"),
            last_error=c.get("last_error") or None,
            last_error_at=c.get("last_error_at"),
            **seen,
        )
    return MappingProxyType(out)


NO_STORES = (
    "no stores are configured: add a store with `kura init NAME --path DIR`, or a "
    '[stores.NAME] table with path = "DIR" to kura.toml'
)


def diagnose_all(reg: Registry, *, probe: bool = False) -> DoctorAll:
    """Every configured store's report; not ok when any store is broken or none is configured."""
    reports = tuple(diagnose(reg, n, probe=probe) for n in reg.names())
    problems: tuple[str, ...] = ()
    if not reports:
        where = f" ({reg.config.source})" if getattr(reg.config, "source", None) else ""
        problems = (NO_STORES.replace("kura.toml", f"kura.toml{where}"),)
    return DoctorAll(
        ok=bool(reports) and all(r.ok for r in reports),
        stores=reports,
        at=time.time(),
        problems=problems,
    )


def elapsed_label(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f}s"
    if seconds < 5400:
        return f"{seconds / 60:.0f}m"
    return f"{seconds / 3600:.1f}h"


__all__ = [
    "Capacity",
    "Charter",
    "DeadLink",
    "DoctorAll",
    "DoctorReport",
    "FileIssue",
    "IndexDrift",
    "JournalRoot",
    "Journals",
    "ModelRole",
    "SharedRoot",
    "Tender",
    "diagnose",
    "diagnose_all",
    "heartbeat_state",
    "Store",
]
