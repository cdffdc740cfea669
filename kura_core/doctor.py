"""The eye the metabolism needs: what is in a store, and what is broken.

Broken (doctor exits non-zero): the store is missing, a memory file cannot be read,
the index and the files disagree, a link points at nothing, a memory's evidence
manifest is gone, or a tender that was running has stopped beating.
Worth knowing but not broken: islands, waiting drafts, a model that is down (kura
still answers, degraded), malformed tags, YAML-ish frontmatter (read in the line form,
normalised on kura's next write), Markdown files whose names are not slugs, a store that
drinks no journal, a journal root two stores drink, a capacity limit reached, the learned
profile's state.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from typing import Any

from .registry import Registry
from .store import Store
from .tokens import estimate_tokens

#: a tender that has not beaten for this long is stale; for DEAD_AFTER, dead.
STALE_AFTER = 180.0
DEAD_AFTER = 600.0


def heartbeat_state(row: dict[str, Any] | None, now: float) -> dict[str, Any]:
    if not row:
        return {"state": "never started"}
    age = now - row["beat"]
    state = row.get("state") or ""
    if state == "stopped":
        verdict = "stopped"
    elif age > DEAD_AFTER or not _pid_alive(row):
        verdict = "dead"
    elif age > STALE_AFTER:
        verdict = "stale"
    else:
        verdict = "alive"
    out = {"state": verdict, "pid": row["pid"], "last_beat_s": round(age, 1), "doing": state}
    try:
        import json

        out["counts"] = json.loads(row.get("counts") or "{}")
    except ValueError:
        out["counts"] = {}
    return out


def _pid_alive(row: dict[str, Any]) -> bool:
    import socket

    if row.get("host") and row["host"] != socket.gethostname():
        return True  # cannot tell from here; trust the clock
    try:
        os.kill(int(row["pid"]), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, ValueError, OSError):
        return True
    return True


def diagnose(reg: Registry, selector: str | None = None, *, probe: bool = False) -> dict[str, Any]:
    name = reg.resolve(selector)
    store = reg.store(name)
    spec = reg.config.stores[name]
    problems: list[str] = []
    notes: list[str] = []
    report: dict[str, Any] = {"store": name, "path": str(store.root), "label": spec.label,
                              "write_policy": spec.write_policy}

    if not store.root.is_dir() or not store.index_path.is_file():
        problems.append(f"the store directory {store.root} has no MEMORY.md: run `kura init {name} --path {store.root}`")
        report.update(ok=False, memories=0, dead_links=[], islands=[],
                      index_drift={"files_without_line": [], "lines_without_file": [], "duplicate_lines": []},
                      unreadable=[], drafts_waiting=0, seeds=0, tender={"state": "never started"},
                      models=_models(reg, name, probe=False),
                      capacity=_capacity(spec, {"memories": 0, "index_tokens": 0, "body_tokens": 0,
                                                 "bytes": 0}),
                      normalise_on_write=[], ignored_files=[],
                      journals=_journals(reg, name, notes), profile=None,
                      problems=problems, notes=notes)
        return report

    scan = store.scan()
    mems = scan.by_slug()
    idx = scan.index
    present = set(store.file_slugs())

    # links
    dead: list[dict[str, str]] = []
    incoming: Counter[str] = Counter()
    for m in scan.memories:
        for target in dict.fromkeys(m.links):
            if target in present:
                if target != m.slug:
                    incoming[target] += 1
            else:
                dead.append({"from": m.slug, "to": target})
    islands = sorted(s for s in mems if incoming[s] == 0) if len(mems) > 1 else []

    # drift
    counts = Counter(e.slug for e in idx.entries)
    drift = {
        "files_without_line": sorted(present - set(counts)),
        "lines_without_file": sorted(s for s in counts if s not in present),
        "duplicate_lines": sorted(s for s, c in counts.items() if c > 1),
        "bad_targets": [t for _, t in idx.foreign_links],
    }

    unreadable = [{"file": f, "why": why} for f, why in scan.unreadable]
    for m in scan.memories:
        for p in m.problems:
            unreadable.append({"file": f"{m.slug}.md", "why": p})
    # YAML-ish frontmatter (hand-written, other tools): read in the line form, not broken
    normalise = [{"file": f"{m.slug}.md", "why": m.form_why} for m in scan.memories if m.form != "yaml"]
    ignored = _ignored_files(store)

    manifests_missing = []
    for m in scan.memories:
        md = m.meta.get("metadata") if isinstance(m.meta.get("metadata"), dict) else {}
        ref = md.get("evidence_manifest")
        if isinstance(ref, str) and ref.startswith("sha256:"):
            if not (store.still / "manifests" / f"{ref[7:]}.json").is_file():
                manifests_missing.append(m.slug)

    drafts_dir = store.still / "drafts"
    drafts_waiting = len([p for p in drafts_dir.glob("*.md")]) if drafts_dir.is_dir() else 0
    ws = reg.workshop(name)
    seeds = ws.query("SELECT COUNT(*) AS n FROM seeds WHERE state='waiting'")[0]["n"]
    hb = ws.query("SELECT * FROM heartbeat WHERE name='tend'")
    tender = heartbeat_state(dict(hb[0]) if hb else None, reg.clock())

    index_tokens = estimate_tokens(store.index_text())
    body_tokens = sum(estimate_tokens(m.body) for m in scan.memories)
    nbytes = sum(m.size for m in scan.memories)
    try:
        nbytes += store.index_path.stat().st_size
    except OSError:
        pass

    if dead:
        problems.append(f"{len(dead)} link(s) point at no memory (first: [[{dead[0]['to']}]] in {dead[0]['from']})")
    if drift["files_without_line"]:
        problems.append(f"{len(drift['files_without_line'])} memory file(s) have no index line "
                        f"(first: {drift['files_without_line'][0]}.md)")
    if drift["lines_without_file"]:
        problems.append(f"{len(drift['lines_without_file'])} index line(s) point at no file "
                        f"(first: {drift['lines_without_file'][0]}.md)")
    if drift["duplicate_lines"]:
        problems.append(f"{len(drift['duplicate_lines'])} memory(ies) have more than one index line")
    if drift["bad_targets"]:
        problems.append(f"{len(drift['bad_targets'])} index line(s) link to a name that is not a slug")
    if scan.unreadable:
        problems.append(f"{len(scan.unreadable)} memory file(s) cannot be read (first: "
                        f"{scan.unreadable[0][0]}: {scan.unreadable[0][1]})")
    if manifests_missing:
        problems.append(f"{len(manifests_missing)} memory(ies) point at an evidence manifest that is gone")
    if tender["state"] == "dead":
        problems.append("the tender has stopped beating: it is dead; restart `kura tend -s " + name + "`")
    elif tender["state"] == "stale":
        notes.append("the tender's heartbeat is late")
    from .distill.pipeline import missing_roots

    for root in missing_roots(reg, name):
        notes.append(f"journal root {root} does not exist: nothing is distilled from it")
    if islands:
        notes.append(f"{len(islands)} memory(ies) are islands: nothing links to them")
    if drafts_waiting:
        notes.append(f"{drafts_waiting} draft(s) waiting for drain or review")
    if any(m.problems for m in scan.memories):
        notes.append("some frontmatter fields could not be read; see unreadable")
    if normalise:
        notes.append(f"{len(normalise)} memory file(s) have YAML-ish frontmatter, read in the line form "
                     f"(first: {normalise[0]['file']}); kura writes them as YAML the next time it "
                     "writes them — nothing to fix")
    for f in ignored:
        notes.append(f"{f['file']} is not read as a memory: {f['why']}")
    journals = _journals(reg, name, notes)
    from .profile import state_for_doctor

    profile_report = dict(state_for_doctor(reg, name))
    if profile_report["problem"]:
        notes.append(f"the learned profile cannot be read: {profile_report['problem']}")
    elif profile_report["draft"]["present"]:
        notes.append(f"a profile draft is waiting: read it with `kura profile show -s {name}`, "
                     f"apply it with `kura profile apply -s {name}`")

    models = _models(reg, name, probe=probe)
    for role, st in models.items():
        if st.get("last_error") and st.get("failing"):
            notes.append(f"model {role}: {st['last_error']}")

    capacity = _capacity(spec, {"memories": len(present), "index_tokens": index_tokens,
                                "body_tokens": body_tokens, "bytes": nbytes})
    if capacity["pressure"] is not None and capacity["pressure"] >= 1.0:
        over = ", ".join(f"{k} {capacity[k]} of {v}" for k, v in capacity["limit"].items()
                         if capacity[k] >= v)
        notes.append(f"the store is at or over its capacity limit ({over}); kura keeps every memory "
                     "— tidy, merge or raise [capacity] in kura.toml")
    report.update(
        ok=not problems,
        memories=len(present),
        dead_links=dead,
        islands=islands,
        index_drift=drift,
        unreadable=unreadable,
        manifests_missing=manifests_missing,
        drafts_waiting=drafts_waiting,
        seeds=seeds,
        normalise_on_write=normalise,
        ignored_files=ignored,
        profile=profile_report,
        charter={"present": bool(store.charter()), "path": str(store.charter_path)},
        journals=journals,
        tender=tender,
        models=models,
        capacity=capacity,
        problems=problems,
        notes=notes,
    )
    return report


def _capacity(spec: Any, used: dict[str, int]) -> dict[str, Any]:
    """The four units side by side, with ``limit`` (the units set in [capacity]) and
    ``pressure`` (the fullest unit's share of its limit): both None until a limit is set."""
    limits = spec.capacity.limits()
    pressure = max((used[k] / v for k, v in limits.items()), default=None) if limits else None
    return {**used, "limit": limits or None,
            "pressure": None if pressure is None else round(pressure, 4)}


def _journals(reg: Registry, name: str, notes: list[str]) -> dict[str, Any]:
    """Which journal roots this store drinks, and any it shares with another store."""
    from .config import shared_journal_roots
    from .distill.pipeline import no_journals_reason

    spec = reg.config.stores[name]
    roots = [{"adapter": j.adapter, "root": str(j.root)} for j in spec.distill.journals]
    shared = [s for s in shared_journal_roots(reg.config) if name in s["stores"]]
    if spec.journals_from == "none" and len(reg.config.stores) > 1 and reg.config.distill.journals:
        # the case that used to share journals by accident: global journals, and this store
        # neither names its own nor inherits them (with no journals anywhere, nothing is
        # distilled for any store, and `journals.from` says "none")
        notes.append(no_journals_reason(reg, name).replace(" drinks no journal:", " drinks nothing:"))
    for s in shared:
        others = ", ".join(x for x in s["stores"] if x != name)
        notes.append(f"journal root {s['root']} is drunk by this store and by {others}: what is said "
                     "there can become a memory in each (see docs/TRUST.md)")
    return {"from": spec.journals_from, "roots": roots, "shared": shared}


def _ignored_files(store: Store) -> list[dict[str, str]]:
    """Markdown files in the store's directory that are not read as memories because their
    name is not a slug (memory tools often write user_role.md or Notes.md)."""
    from .fsutil import is_temp_name
    from .store import RESERVED, slugify

    out = []
    try:
        names = sorted(os.listdir(store.root))
    except OSError:
        return out
    known = set(store.file_slugs())
    for n in names:
        if not n.endswith(".md") or is_temp_name(n) or n == "MEMORY.md":
            continue
        stem = n[:-3]
        if stem in known or stem.lower() in RESERVED or stem.startswith("_") or not (store.root / n).is_file():
            continue
        out.append({"file": n, "why": f"its name is not a slug; rename it to {slugify(stem)}.md "
                                      "(lower-case words joined by '-') to make it a memory"})
    return out


def _models(reg: Registry, name: str, *, probe: bool) -> dict[str, Any]:
    calls = reg.workshop(name).model_calls() if (reg.config.stores[name].path / "_still").is_dir() else {}
    client = reg.models(name) if probe else None
    out: dict[str, Any] = {}
    for role in ("thinker", "brain", "scribe"):
        spec = reg.config.models.get(role)
        c = calls.get(role, {})
        entry: dict[str, Any] = {
            "configured": spec is not None,
            "url": spec.url if spec else None,
            "model": spec.model if spec else None,
            "calls": c.get("calls", 0),
            "failures": c.get("failures", 0),
            "last_ok_at": c.get("last_ok_at"),
            "last_error": c.get("last_error") or None,
            "last_error_at": c.get("last_error_at"),
        }
        entry["failing"] = bool(entry["last_error_at"] and
                                (entry["last_ok_at"] or 0) < entry["last_error_at"])
        if spec is None:
            entry["reachable"] = False
            entry["reason"] = f"{role} is not configured" + (
                "" if role == "thinker" else " (and nothing to inherit)")
        elif client is not None:
            ok, why = client.probe(role)
            entry["reachable"] = ok
            entry["reason"] = why
        out[role] = entry
    return out


def diagnose_all(reg: Registry, *, probe: bool = False) -> dict[str, Any]:
    reports = [diagnose(reg, n, probe=probe) for n in reg.names()]
    return {"ok": all(r["ok"] for r in reports), "stores": reports, "at": time.time()}


def elapsed_label(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f}s"
    if seconds < 5400:
        return f"{seconds / 60:.0f}m"
    return f"{seconds / 3600:.1f}h"


__all__ = ["diagnose", "diagnose_all", "heartbeat_state", "Store"]
