"""Secrets already stored: found by place and kind (never by value), and scrubbed.

Journal intake redacts every segment (:mod:`kura_core.secrets`) and the store refuses a
write that carries a raw secret, but a store may predate that, or a person may paste a key
into a memory file by hand. :func:`stored_secrets` looks through everything a store keeps
as text -- the index, memory files, charter, profile and its drafts, the workshop's drafts
and evidence manifests, the tender's log and the free-text cells of the workshop database
-- and :func:`scrub` rewrites each place with markers in place of the values: every file
by the crash-safe temp-file-and-rename of :mod:`kura_core.fsutil` under the store's write
lock, the database in one transaction followed by a rebuild (so no freed page keeps an old
value). The originals go to a backup directory outside the store (a store is often synced
with git; a backup inside it would publish what was scrubbed), and the gate log records
what was done, by place and kind.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import KuraError
from .fsutil import atomic_write_bytes, atomic_write_text, storage_error
from .secrets import SecretRules, redact_value
from .store import Store
from .vocabulary import GateLogKind
from .workshop import Workshop


@dataclass(frozen=True)
class StoredSecret:
    """One secret found in a store: where (a file relative to the store, or a workshop
    cell such as ``gate_log.reason #12``), which line, and its kind. Never the value."""

    place: str
    kind: str
    line: int = 1

    def to_json(self) -> dict[str, Any]:
        return {"place": self.place, "kind": self.kind, "line": self.line}

    def __str__(self) -> str:
        return f"{self.kind} in {self.place} line {self.line}"


@dataclass(frozen=True)
class ScrubReport:
    """What :func:`scrub` redacted, and where the originals were kept."""

    store: str
    scrubbed: tuple[StoredSecret, ...]
    places: tuple[str, ...]
    backup: str
    dry_run: bool = False

    @property
    def did_work(self) -> bool:
        return bool(self.scrubbed) and not self.dry_run

    def to_json(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "scrubbed": [s.to_json() for s in self.scrubbed],
            "places": list(self.places),
            "backup": self.backup,
            "dry_run": self.dry_run,
        }

    def summary(self) -> str:
        kinds = Counter(s.kind for s in self.scrubbed)
        listed = ", ".join(f"{k} x{n}" if n > 1 else k for k, n in sorted(kinds.items()))
        return f"{len(self.scrubbed)} secret(s) in {len(self.places)} place(s): {listed}"


# --------------------------------------------------------------------------- places


def _text_files(store: Store) -> Iterator[Path]:
    """Every file inside the store kept as text that a secret could be in (a symbolic
    link is never followed: a store answers only for its own files)."""
    still = store.still
    paths = [store.index_path]
    paths += [store.root / f"{slug}.md" for slug in store.file_slugs()]
    paths += [store.charter_path, store.profile_path]
    paths += [still / n for n in ("profile-draft.md", "profile-previous.md", "tend.log")]
    for sub, pattern in (("drafts", "*.md"), ("manifests", "*.json")):
        d = still / sub
        if d.is_dir() and not d.is_symlink():
            paths += sorted(d.glob(pattern))
    for path in paths:
        if path.is_file() and not path.is_symlink() and _inside(path, store.root):
            yield path


def _place(store: Store, path: Path) -> str:
    try:
        return path.relative_to(store.root).as_posix()
    except ValueError:
        return str(path)


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return None


def _redacted_file(path: Path, text: str, rules: SecretRules) -> str:
    """*text* of *path* with its secrets replaced; a JSON file stays valid JSON."""
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except ValueError:
            return rules.redact(text).text
        return json.dumps(
            redact_value(data, rules), ensure_ascii=False, sort_keys=True, separators=(",", ":")
        )
    return rules.redact(text).text


def _redacted_cell(text: str, rules: SecretRules) -> str:
    try:
        data = json.loads(text)
    except ValueError:
        return rules.redact(text).text
    if isinstance(data, (dict, list)):
        return json.dumps(redact_value(data, rules), ensure_ascii=False)
    return rules.redact(text).text


def _found_in(place: str, text: str, rules: SecretRules) -> list[StoredSecret]:
    return [StoredSecret(place, f.kind, f.line(text)) for f in rules.find(text)]


def stored_secrets(
    store: Store, ws: Workshop | None, rules: SecretRules
) -> tuple[StoredSecret, ...]:
    """Every secret the store keeps, by place, line and kind."""
    out: list[StoredSecret] = []
    for path in _text_files(store):
        text = _read(path)
        if text:
            out += _found_in(_place(store, path), text, rules)
    if ws is not None and ws.path.is_file():
        for table, column, rowid, text in ws.text_cells():
            out += _found_in(f"{table}.{column} #{rowid}", text, rules)
    return tuple(out)


# --------------------------------------------------------------------------- scrub


def default_backup_root(env: dict[str, str]) -> Path:
    """Where scrub keeps originals unless told: ``$XDG_STATE_HOME/kura/scrub`` (else
    ``~/.local/state/kura/scrub``), outside every store."""
    state = env.get("XDG_STATE_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".local", "state"
    )
    return Path(state) / "kura" / "scrub"


def scrub(
    store: Store,
    ws: Workshop,
    rules: SecretRules,
    *,
    backup_root: Path,
    now: float,
    dry_run: bool = False,
) -> ScrubReport:
    """Redact every stored secret in place (see the module docstring). With *dry_run*
    only report what would be redacted. Raises StorageError when the disk refuses; what
    was already rewritten stays rewritten, and running it again finishes the rest."""
    stamp = dt.datetime.fromtimestamp(now).strftime("%Y%m%dT%H%M%S")
    backup = backup_root / f"{store.name}-{stamp}"
    if _inside(backup, store.root):
        raise KuraError(
            f"the scrub backup {backup} is inside the store {store.root}: a backup there "
            "would keep the secrets in the store; choose --backup outside it"
        )
    found: list[StoredSecret] = []
    places: list[str] = []
    with store.locked("scrub the secrets stored in the store"):
        for path in _text_files(store):
            text = _read(path)
            hits = _found_in(_place(store, path), text, rules) if text else []
            if not hits or text is None:
                continue
            found += hits
            places.append(hits[0].place)
            if not dry_run:
                _keep(backup, hits[0].place, path.read_bytes())
                _rewrite(path, _redacted_file(path, text, rules))
        cells = _scrub_cells(ws, rules, found, places)
        if cells and not dry_run:
            original = [list(c) for c in ws.text_cells() if (c[0], c[1], c[2]) in cells]
            _keep(backup, "workshop-cells.json", json.dumps(original).encode("utf-8"))
            ws.rewrite_cells([(t, c, r, v) for (t, c, r), v in cells.items()])
    report = ScrubReport(
        store.name,
        tuple(found),
        tuple(places),
        "" if dry_run or not found else str(backup),
        dry_run,
    )
    if report.did_work:
        ws.log_gate(
            GateLogKind.SCRUBBED,
            reason=f"redacted {report.summary()}; originals kept in {backup}",
            detail={"places": list(places), "kinds": [s.kind for s in found]},
        )
    return report


def _scrub_cells(
    ws: Workshop, rules: SecretRules, found: list[StoredSecret], places: list[str]
) -> dict[tuple[str, str, int], str]:
    cells: dict[tuple[str, str, int], str] = {}
    if not ws.path.is_file():
        return cells
    for table, column, rowid, text in ws.text_cells():
        place = f"{table}.{column} #{rowid}"
        hits = _found_in(place, text, rules)
        if hits:
            found += hits
            places.append(place)
            cells[(table, column, rowid)] = _redacted_cell(text, rules)
    return cells


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def _keep(backup: Path, place: str, data: bytes) -> None:
    """Copy an original into the backup directory (owner-only: it holds the secrets)."""
    target = backup / place
    try:
        backup.mkdir(parents=True, exist_ok=True, mode=0o700)
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        atomic_write_bytes(target, data)
        os.chmod(target, 0o600)
    except OSError as exc:
        raise storage_error(exc, "keep a backup before scrubbing", target) from None


def _rewrite(path: Path, text: str) -> None:
    try:
        atomic_write_text(path, text)
    except OSError as exc:
        raise storage_error(exc, f"scrub {path.name}", path) from None
