"""The demo workspace: three stores and a distiller's work in progress, with no model.

:func:`build_demo` writes a complete kura workspace from data shipped in this package:

    <dest>/.kura-demo                    marks the directory as a demo workspace
    <dest>/kura.toml                     three stores, their modes and journal roots; no [models]
    <dest>/stores/maker/                 English: Ren's home lab, the LLM box "forge", the bench
    <dest>/stores/kurashi/               Japanese: 暮らし — family schedule, health, money, the NAS
    <dest>/stores/eq/                    English, small: how Ren thinks things through
    <dest>/journals/<store>/<id>.jsonl   Claude Code transcripts the stores drink from
    <dest>/candidates/<store>/<id>.json  what a brain proposed for each transcript
                                         (``kura_candidates`` shape, for ``kura gate``)

The memories are written through :meth:`Store.write`, so every file has its index line.
The drafts are real: each transcript is read with the Claude Code adapter, the candidates
are passed through :func:`~kura_core.distill.gate.run_gate` with the store's
``human_names`` and echo detection against the store, and every kept candidate becomes a
draft with its evidence manifest. Candidates the gate drops are in the gate log with the
gate's reasons; ideas are waiting seeds; one draft per store is tossed by hand, so the log
also shows a toss. Nothing is poured.

The journals are left undrunk: no watermark is written, so ``kura distill run`` with a
model configured starts from the beginning of each transcript, as it would for a new
journal root.

Everything is a function of ``today``: memory dates, transcript timestamps, gate-log
times and draft creation times are derived from it, and no path of the destination is
recorded anywhere (journal sources are relative to the workspace), so two builds with the
same ``today`` produce the same bytes in any directory.
"""

from __future__ import annotations

import calendar
import datetime as dt
import hashlib
import json
import os
import shutil
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from ..config import load_config
from ..distill import drafts as drafts_mod
from ..distill.drafts import Draft, save_draft, write_manifest
from ..distill.evidence import Segment
from ..distill.gate import GateResult, run_gate
from ..distill.journals import read_claude
from ..distill.pipeline import echo_detector
from ..errors import KuraError
from ..floors import check_surface, messages
from ..fsutil import atomic_write_text
from ..registry import Registry
from ..shapes import list_at
from ..store import Store, slugify
from ..vocabulary import CURATION_FIELDS, DraftDecision, GateLogKind, GateVerdict, ProvenanceClass

__all__ = ["MARKER", "build_demo", "default_demo_dir", "is_demo_workspace"]

MARKER = ".kura-demo"
CONFIG = "kura.toml"
STORES = ("maker", "kurashi", "eq")

_NS = uuid.UUID("5b0f7c9e-2d41-4c8a-9e3f-6a1d2b7c8e90")
_MODEL = "claude-sonnet-4-5-20250929"
_CC_VERSION = "2.0.14"


# --------------------------------------------------------------------------- public API


def default_demo_dir() -> Path:
    """Where ``kura demo`` puts its workspace: ``$XDG_DATA_HOME/kura/demo``, or
    ``~/.local/share/kura/demo`` when XDG_DATA_HOME is unset or not absolute."""
    base = os.environ.get("XDG_DATA_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "kura" / "demo"


def is_demo_workspace(path: str | os.PathLike) -> bool:
    """True when *path* is a directory holding a demo workspace marker."""
    p = Path(path)
    return p.is_dir() and (p / MARKER).is_file()


def build_demo(
    dest: str | os.PathLike, *, today: dt.date | None = None, force: bool = False
) -> Path:
    """Create the demo workspace in *dest* and return the path of its ``kura.toml``.

    An existing demo workspace is reused as it is unless *force* is true, in which case it
    is rebuilt. A *dest* that exists, is not empty and is not a demo workspace is refused:
    the demo never writes into, or deletes, anything it did not make. The workspace is
    assembled in a sibling directory and moved into place whole, so an interrupted build
    leaves no half-built workspace behind.
    """
    dest = Path(os.path.abspath(Path(dest).expanduser()))
    today = today or dt.date.today()
    if dest.exists() or dest.is_symlink():
        if dest.is_symlink() or not dest.is_dir():
            raise KuraError(
                f"{dest} exists and is not a directory; choose another place for the demo"
            )
        if is_demo_workspace(dest):
            if not force and (dest / CONFIG).is_file():
                return dest / CONFIG
        elif any(dest.iterdir()):
            raise KuraError(
                f"{dest} is not empty and is not a kura demo workspace (it has no {MARKER} file); "
                "choose an empty or new directory for the demo"
            )
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = dest.parent / f".{dest.name}.kura-demo-build-{os.getpid()}"
    if staging.exists():
        shutil.rmtree(staging)
    try:
        _build(staging, today)
        _swap_into_place(staging, dest)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return dest / CONFIG


def _swap_into_place(staging: Path, dest: Path) -> None:
    old = None
    if dest.exists():
        if any(dest.iterdir()):
            old = dest.parent / f".{dest.name}.kura-demo-old-{os.getpid()}"
            if old.exists():
                shutil.rmtree(old)
            os.replace(dest, old)
        else:
            dest.rmdir()
    os.replace(staging, dest)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


# --------------------------------------------------------------------------- data


def _data() -> Any:
    return resources.files(__package__).joinpath("data")


def _data_text(*parts: str) -> str:
    node = _data()
    for p in parts:
        node = node.joinpath(p)
    return node.read_text(encoding="utf-8")


def _data_yaml(*parts: str) -> Any:
    node = _data()
    for p in parts:
        node = node.joinpath(p)
    if not node.is_file():
        return None
    return yaml.safe_load(node.read_text(encoding="utf-8"))


class _Clock:
    """A clock that starts at a fixed instant and advances a few seconds per reading."""

    def __init__(self, start: dt.datetime, step: float = 3.0):
        self._t = float(calendar.timegm(start.timetuple()))
        self._step = step

    def __call__(self) -> float:
        self._t += self._step
        return self._t

    def iso(self) -> str:
        return dt.datetime.fromtimestamp(self(), dt.UTC).strftime("%Y-%m-%dT%H:%M:%S")


# --------------------------------------------------------------------------- the build


def _build(root: Path, today: dt.date) -> None:
    root.mkdir(parents=True)
    atomic_write_text(root / CONFIG, _data_text(CONFIG))
    config = load_config(root / CONFIG, env={})
    # The distiller's night run: after the newest transcript, before `today` begins.
    clock = _Clock(dt.datetime.combine(today - dt.timedelta(days=1), dt.time(23, 40)))
    reg = Registry(config, env={}, clock=clock, today=lambda: today)
    tossed = _data_yaml("tossed.yaml") or {}
    try:
        for name in STORES:
            store = reg.store(name)
            store.init(label=config.stores[name].label)
            atomic_write_text(store.charter_path, _data_text(name, "charter.md"))
            _write_memories(store, _data_yaml(name, "memories.yaml") or [], today)
            sessions = _data_yaml(name, "sessions.yaml") or []
            if not sessions:
                continue
            candidates = _data_yaml(name, "candidates.yaml") or {}
            for session in sessions:
                journal = _write_journal(root, name, store, session, today)
                batch = candidates.get(session["file"], [])
                _write_candidates(root, name, session, batch)
                _distil(root, reg, name, journal, session, batch, clock)
            for toss in tossed.get(name, []):
                drafts_mod.toss(reg, name, toss["slug"], toss["reason"], by="hand")
    finally:
        reg.close()
    atomic_write_text(
        root / MARKER, "kura demo workspace: `kura demo --rebuild` builds it afresh.\n"
    )


def _write_memories(store: Store, entries: Sequence[Mapping[str, Any]], today: dt.date) -> None:
    for e in entries:
        created = today - dt.timedelta(days=int(e["age"]))
        meta: dict[str, Any] = {"metadata": {"created": created.isoformat()}}
        for key in CURATION_FIELDS:
            if e.get(key):
                meta[key] = e[key]
        store.write(
            e["slug"],
            title=e["title"],
            description=e["description"],
            body=e["body"],
            type=e.get("type", "project"),
            tags=e.get("tags") or [],
            meta=meta,
            sector=e.get("sector", ""),
            create_only=True,
        )
        stamp = _local_noon(created)
        os.utime(store.memory_path(e["slug"]), (stamp, stamp))


def _local_noon(day: dt.date) -> float:
    return dt.datetime.combine(day, dt.time(12, 0)).timestamp()


# --------------------------------------------------------------------------- journals


def _journal_path(root: Path, store_name: str, session: Mapping[str, Any]) -> Path:
    return root / "journals" / store_name / f"{session['id']}.jsonl"


def _write_journal(
    root: Path, store_name: str, store: Store, session: Mapping[str, Any], today: dt.date
) -> Path:
    path = _journal_path(root, store_name, session)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines, last = _render_session(session, store, today)
    atomic_write_text(path, "".join(lines))
    stamp = calendar.timegm(last.timetuple())
    os.utime(path, (stamp, stamp))
    return path


class _SessionLines:
    """Claude Code JSONL lines for one scripted session, written one entry at a time."""

    def __init__(self, session: Mapping[str, Any], today: dt.date) -> None:
        self.sid = str(session["id"])
        day = today - dt.timedelta(days=int(session["days_ago"]))
        self.t = dt.datetime.combine(day, dt.time.fromisoformat(str(session["start"])))
        self.base = {
            "isSidechain": False,
            "userType": "external",
            "cwd": session.get("cwd", "/home/ren"),
            "sessionId": self.sid,
            "version": _CC_VERSION,
            "gitBranch": "",
        }
        self.out: list[str] = []
        self.parent: str | None = None
        self.pending_tool: list[str] = []
        self.n = 0

    def ident(self, prefix: str, *parts: Any) -> str:
        h = hashlib.sha256(":".join([self.sid, *map(str, parts)]).encode()).hexdigest()
        return f"{prefix}{h[:24]}"

    def emit(self, kind: str, message: dict[str, Any], gap: float) -> None:
        n = self.n
        self.t = self.t + dt.timedelta(seconds=gap)
        u = str(uuid.uuid5(_NS, f"{self.sid}:{n}"))
        entry = {
            "parentUuid": self.parent,
            **self.base,
            "type": kind,
            "message": message,
            "uuid": u,
            "timestamp": self.t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{n * 37 % 1000:03d}Z",
        }
        if kind == "assistant":
            entry["requestId"] = self.ident("req_", "r", n)
        self.out.append(json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n")
        self.parent = u
        self.n += 1

    def assistant(self, content: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": self.ident("msg_", "m", self.n),
            "type": "message",
            "role": "assistant",
            "model": _MODEL,
            "content": content,
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 8, "output_tokens": 64},
        }

    def tool_use(self, name: str, payload: Mapping[str, Any], gap: float) -> None:
        tid = self.ident("toolu_", "t", self.n)
        self.pending_tool.append(tid)
        call = {"type": "tool_use", "id": tid, "name": name, "input": dict(payload)}
        self.emit("assistant", self.assistant([call]), gap)

    def tool_result(self, content: Any, gap: float) -> None:
        if not self.pending_tool:
            raise KuraError(f"demo session {self.sid}: a tool result with no tool call before it")
        tid = self.pending_tool.pop()
        result = {"tool_use_id": tid, "type": "tool_result", "content": content, "is_error": False}
        self.emit("user", {"role": "user", "content": [result]}, gap)


def _render_session(
    session: Mapping[str, Any], store: Store, today: dt.date
) -> tuple[list[str], dt.datetime]:
    """Claude Code JSONL lines for one scripted session, and the time of the last one."""
    w = _SessionLines(session, today)
    for turn in session["turns"]:
        gap = float(turn.get("gap", 6 if "tool" in turn else 25))
        if "user" in turn:
            w.emit("user", {"role": "user", "content": turn["user"].strip()}, gap)
        elif "self" in turn:
            w.emit("assistant", w.assistant([{"type": "text", "text": turn["self"].strip()}]), gap)
        elif "act" in turn:
            w.tool_use(turn["act"]["name"], turn["act"].get("input") or {}, gap)
        elif "tool" in turn:
            text = turn["tool"]
            last_call = json.loads(w.out[-1])["message"]["content"][0]
            if last_call.get("name") in ("Task", "Agent"):
                w.tool_result([{"type": "text", "text": text}], gap)
            else:
                w.tool_result(text, gap)
        elif "read_memory" in turn:
            slug = turn["read_memory"]
            w.tool_use("mcp__kura__kura_read", {"slug": slug}, gap)
            text = store.memory_path(slug).read_text(encoding="utf-8")
            w.tool_result([{"type": "text", "text": text}], 1)
        else:
            raise KuraError(f"demo session {w.sid}: unknown turn {sorted(turn)}")
    return w.out, w.t


def _write_candidates(
    root: Path, store_name: str, session: Mapping[str, Any], batch: Sequence[Mapping[str, Any]]
) -> None:
    path = root / "candidates" / store_name / f"{session['id']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"candidates": list(batch)}, ensure_ascii=False, indent=2) + "\n"
    atomic_write_text(path, text)


# --------------------------------------------------------------------------- distilling


def _segment_json(seg: Segment) -> dict[str, Any]:
    return {
        "cls": seg.cls,
        "text": seg.text,
        "source": seg.source,
        "start": seg.start,
        "end": seg.end,
        "unit": seg.unit,
    }


def _quote_json(q: Any) -> dict[str, Any]:
    seg = q.segment
    return {
        "text": q.text,
        "cls": q.cls,
        "claimed": q.claimed,
        "status": q.status,
        "source": seg.source if seg else "",
        "start": seg.start if seg else 0,
        "end": seg.end if seg else 0,
        "unit": seg.unit if seg else "",
    }


def _decisive_reason(r: GateResult) -> str:
    why = r.reasons[-1] if r.reasons else "dropped"
    if r.violations:
        why += ": " + "; ".join(messages(r.violations))
    return why


def _distil(
    root: Path,
    reg: Registry,
    name: str,
    journal: Path,
    session: Mapping[str, Any],
    batch: Sequence[Mapping[str, Any]],
    clock: _Clock,
) -> None:
    store = reg.store(name)
    ws = reg.workshop(name)
    spec = reg.config.stores[name]
    rel = journal.relative_to(root).as_posix()
    read = read_claude(journal, 0)
    segments = [replace(s, source=rel) for s in read.segments]
    info = {
        "journal": rel,
        "adapter": "claude",
        "unit": read.unit,
        "start": read.start,
        "end": read.end,
        "segments": len(segments),
        "records": read.records,
        "session_id": str(session["id"]),
    }
    results = run_gate(
        [dict(c) for c in batch],
        segments,
        is_echo=echo_detector(store),
        human_names=spec.distill.human_names,
        min_quote_chars=spec.distill.min_quote_chars,
    )
    existing = set(store.file_slugs())
    for cand, r in zip(batch, results, strict=False):
        gate_json = {**r.to_json(), "batch": info}
        if r.verdict == GateVerdict.SEED:
            verified = [_quote_json(q) for q in r.survivors]
            ws.plant_seed(
                title=r.title,
                body=str(cand.get("body", "")).strip(),
                quotes=json.dumps(verified, ensure_ascii=False),
                source=rel,
                at=clock(),
            )
            continue
        if r.verdict != GateVerdict.KEPT:
            ws.log_gate(
                GateLogKind.DROPPED, title=r.title, reason=_decisive_reason(r), detail=gate_json
            )
            continue
        evidence = _unique_segments(q.segment for q in r.survivors if q.segment is not None)
        target = str(cand.get("extends") or "")
        fields = {
            k: str(cand.get(k) or "") for k in ("title", "description", "body", *CURATION_FIELDS)
        }
        given = []
        if target:
            cur = store.read(target)
            given = [cur.title, cur.description, cur.body]
        final = check_surface(
            fields,
            r.evidence,
            human_names=spec.distill.human_names,
            existing_slugs=existing,
            given=given,
        )
        if final:
            ws.log_gate(
                GateLogKind.DROPPED,
                title=r.title,
                reason="refused by the final floor: " + "; ".join(messages(final)),
                detail={**gate_json, "violations": [v.to_json() for v in final]},
            )
            continue
        _make_draft(store, cand, r, evidence, info, rel, target, clock)


def _unique_segments(segs: Iterable[Segment]) -> list[Segment]:
    seen: dict[tuple, Segment] = {}
    for s in segs:
        seen.setdefault((s.source, s.start, s.end, s.cls, s.text), s)
    return list(seen.values())


def _make_draft(
    store: Store,
    cand: Mapping[str, Any],
    r: GateResult,
    evidence: Sequence[Segment],
    info: Mapping[str, Any],
    rel: str,
    target: str,
    clock: _Clock,
) -> Draft:
    quotes = [_quote_json(q) for q in r.survivors]
    gate = {
        "verdict": r.verdict,
        "reasons": list(r.reasons),
        "violations": [v.to_json() for v in r.violations],
        "tag_checks": dict(r.tag_checks),
        "classes": list(r.classes),
    }
    decision, digest = "new", ""
    if target:
        decision = "extends"
        digest = drafts_mod.body_digest(store.read(target).body)
    segments = [_segment_json(s) for s in evidence]
    if target:
        cur = store.read(target)
        segments.append(
            _segment_json(
                Segment(
                    ProvenanceClass.TOOL,
                    cur.description + "\n" + cur.body,
                    f"memory:{target}",
                    0,
                    0,
                    "byte",
                )
            )
        )
    payload = {
        "batch": dict(info),
        "segments": segments,
        "quotes": quotes,
        "evidence": r.evidence.to_json(),
        "gate": r.to_json(),
        "candidate": dict(cand),
        "decision": decision,
        "target": target,
    }
    manifest = write_manifest(store, payload)
    tags = list_at(r.candidate, "tags")
    draft = Draft(
        slug=str(cand.get("slug") or "") or slugify(r.title),
        title=r.title,
        description=" ".join(str(cand.get("description", "")).split()),
        body=str(cand.get("body", "")).strip("\n"),
        type=str(cand.get("type") or "project"),
        tags=tuple(str(t) for t in tags),
        decision=decision,
        target=target,
        target_digest=digest,
        kind=str(cand.get("kind") or "fact"),
        label=r.label,
        quotes=tuple(quotes),
        gate=gate,
        curation={k: str(cand[k]) for k in CURATION_FIELDS if cand.get(k)},
        manifest=manifest,
        created=clock.iso(),
        source=rel,
    )
    return save_draft(store, draft, unique=decision == DraftDecision.NEW)
