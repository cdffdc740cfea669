"""What kura wrote where, kept so that ``--undo`` can put every byte back.

The first time kura changes a file for an agent, the file's bytes are copied to a backup
(once: a later connect never overwrites the original). The ledger records the hash of what
kura wrote. ``--undo`` restores the backup exactly when the file still holds what kura wrote;
when someone (often the agent itself) has rewritten it since, only kura's parts are taken out
by structure, and the rest of that later edit stays.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..fsutil import atomic_write_bytes
from .base import ConnectError, FileChange, Undo, Where, Wiring, read_bytes
from .edit import take_out


def sha(data: bytes | None) -> str:
    return "" if data is None else hashlib.sha256(data).hexdigest()


def _dir(where: Where) -> Path:
    return where.state / "connect"


def ledger_path(where: Where, agent: str) -> Path:
    return _dir(where) / f"{agent}.json"


def load(where: Where, agent: str) -> dict[str, Any] | None:
    raw = read_bytes(ledger_path(where, agent))
    if raw is None:
        return None
    try:
        doc = json.loads(raw)
    except ValueError:
        raise ConnectError(
            f"{ledger_path(where, agent)} is damaged; kura cannot tell what it wrote — "
            "remove the kura entries from the agent's config by hand"
        ) from None
    return doc if isinstance(doc, dict) else None


def write_file(path: Path, data: bytes, like: Path | None = None) -> None:
    mode = None
    try:
        mode = (like or path).stat().st_mode & 0o7777
    except OSError:
        mode = None
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, data)
    if mode is not None:
        os.chmod(path, mode)


@dataclass(frozen=True)
class Written:
    path: str
    backup: str  # "" when kura created the file


def record(
    where: Where,
    agent: str,
    wiring: Wiring,
    changes: Sequence[FileChange],
    clock: Callable[[], float] = time.time,
) -> list[Written]:
    """Write *changes* (those that change something) and note them in the ledger."""
    doc = load(where, agent) or {"agent": agent, "files": []}
    files: dict[str, dict[str, Any]] = {f["path"]: f for f in doc.get("files", [])}
    out: list[Written] = []
    backups = _dir(where) / "backups" / agent
    for ch in changes:
        if not ch.changes:
            continue
        key = str(ch.path)
        entry = files.get(key)
        if entry is None:
            backup = ""
            if ch.before is not None:
                backups.mkdir(parents=True, exist_ok=True)
                bpath = backups / f"{len(files)}-{ch.path.name}"
                write_file(bpath, ch.before)
                backup = str(bpath)
            entry = {"path": key, "backup": backup, "original": sha(ch.before), "undo": []}
            files[key] = entry
        write_file(ch.path, ch.after)
        entry["written"] = sha(ch.after)
        entry["fmt"] = ch.fmt
        steps = [Undo.from_json(u) for u in entry["undo"]]
        steps += [u for u in ch.undo if u not in steps]
        entry["undo"] = [u.to_json() for u in steps]
        out.append(Written(key, entry["backup"]))
    doc.update(
        agent=agent,
        store=wiring.store,
        config=str(wiring.config),
        kura=list(wiring.kura),
        deadline=wiring.deadline,
        recall=wiring.recall,
        url=wiring.url,
        at=clock(),
        files=list(files.values()),
    )
    write_file(ledger_path(where, agent), json.dumps(doc, indent=2).encode("utf-8"))
    return out


def wiring_of(doc: dict[str, Any]) -> Wiring:
    return Wiring(
        store=str(doc["store"]),
        config=Path(doc["config"]),
        kura=tuple(doc.get("kura") or ("kura",)),
        deadline=float(doc.get("deadline", 1.5)),
        recall=bool(doc.get("recall", False)),
        url=str(doc.get("url", "")),
    )


@dataclass(frozen=True)
class Restored:
    path: str
    how: str  # restored | removed | taken-out | unchanged


def undo(where: Where, agent: str) -> list[Restored]:
    """Take kura out of every file the ledger names (see the module text)."""
    doc = load(where, agent)
    if doc is None:
        return []  # kura never wired it here: nothing to undo
    out: list[Restored] = []
    for entry in reversed(doc.get("files", [])):
        out.append(_undo_one(entry))
    ledger_path(where, agent).unlink(missing_ok=True)
    for f in doc.get("files", []):
        if f.get("backup"):
            Path(f["backup"]).unlink(missing_ok=True)
    return out


def _undo_one(entry: dict[str, Any]) -> Restored:
    path = Path(entry["path"])
    now = read_bytes(path)
    steps = [Undo.from_json(u) for u in entry.get("undo", [])]
    if sha(now) == entry.get("written"):
        if entry.get("backup"):
            original = Path(entry["backup"]).read_bytes()
            write_file(path, original)
            return Restored(str(path), "restored")
        path.unlink(missing_ok=True)
        return Restored(str(path), "removed")
    if now is None:
        return Restored(str(path), "unchanged")
    if any(s.op == "file" for s in steps):
        if not entry.get("backup"):
            path.unlink(missing_ok=True)
            return Restored(str(path), "removed")
        write_file(path, Path(entry["backup"]).read_bytes())
        return Restored(str(path), "restored")
    text = now.decode("utf-8")
    new = take_out(text, steps, str(entry.get("fmt", "json")), str(path))
    if new == text:
        return Restored(str(path), "unchanged")
    write_file(path, new.encode("utf-8"))
    return Restored(str(path), "taken-out")
