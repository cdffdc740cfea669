"""Crush (Charm's coding agent): the SQLite database ``.crush/crush.db`` in each project.

Tables ``sessions`` (``id``, ``parent_session_id``, ``title`` …) and ``messages`` (``id``,
``session_id``, ``role``, ``parts``, ``created_at``, ``updated_at``, ``finished_at``,
``is_summary_message``). ``parts`` is a JSON array of ``{type, data}`` -- in newer
versions compressed as one zstd frame (told by the frame's magic number; plain JSON rows
of older versions stay as they were).

Watermark (``seq``): the ``rowid`` of the ``messages`` table. A message is inserted once
and rewritten in place while it streams, so its rowid never moves, and a new message
always gets a larger one. The database is opened read-only (:mod:`.databases`).

Classes: in a top-level session the person's ``text`` is USER (host blocks such as a
``<system_reminder>`` never are); in a sub-agent's session (``parent_session_id``) the
"user" is the parent agent: SELF. Assistant ``text`` is SELF (a summary message too),
``reasoning`` is not read, ``tool_call`` is ACT (plus SELF for prose in its input),
``tool_result`` TOOL or SELF by provenance; ``shell_command`` (a command the person ran
with ``!``) is ACT and its output TOOL; ``binary`` / ``image_url`` attachments are noted
as ``[image]`` / ``[file NAME]``; ``finish`` parts and ``system`` messages are bookkeeping.

Where: each project's ``.crush`` folder; the projects are the ones Crush lists in its
``projects.json`` (:class:`ProjectRoots`).

Still being written: the last message of a session whose ``finished_at`` is empty or
whose tool call is not finished, changed within :data:`~.base.HOLD_SECONDS`, is held back
with every message after it; once later messages exist in its session, or it has been
quiet that long, it is read as it stands.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import provenance as pv
from .base import (
    HOLD_SECONDS,
    IGNORED,
    SKIPPED,
    Intake,
    JournalError,
    Read,
    refused,
    safe_label,
    scrub,
)
from .databases import columns, is_zstd, nothing_yet, read_only, tables, unzstd
from .documents import ToolCalls, typed_piece
from .hostwords import person_words
from .registry import OSES, Adapter, Head, os_key

UNIT = "seq"


@dataclass
class Row:
    rowid: int
    session: str
    role: str
    parts: list[dict] | None
    why: str = ""
    finished: bool = True
    changed: float = 0.0
    summary: bool = False


@dataclass
class _State:
    children: dict[str, bool]
    tools: dict[str, ToolCalls] = field(default_factory=dict)

    def calls(self, session: str) -> ToolCalls:
        return self.tools.setdefault(session, ToolCalls())


def decode_parts(raw: Any) -> tuple[list[dict] | None, str]:
    """The parts of one ``parts`` column value, or ``None`` and why they cannot be read."""
    if raw is None:
        return [], ""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else bytes(raw)
    if is_zstd(data):
        try:
            data = unzstd(data, limit=256 << 20)
        except JournalError as exc:
            return None, str(exc)
    try:
        value = json.loads(data.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return None, "parts are not JSON"
    value = scrub(value)[0]
    if not isinstance(value, list):
        return None, "parts are not a list"
    return [p for p in value if isinstance(p, dict)], ""


def _data(part: dict) -> dict:
    d = part.get("data")
    return d if isinstance(d, dict) else {}


def part_pieces(row: Row, part: dict, state: _State) -> list[pv.Piece]:
    """The classed texts of one part of *row*."""
    kind, d = part.get("type"), _data(part)
    calls = state.calls(row.session)
    if kind == "text":
        text = str(d.get("text") or "")
        if row.role == "user":
            words = person_words(text)
            child = state.children.get(row.session, False)
            return [typed_piece(words, child=child)] if words else []
        if row.role == "assistant":
            return [pv.Piece("SELF", text, "summary" if row.summary else "assistant text")]
        return []
    if kind == "tool_call":
        return calls.call(str(d.get("id") or ""), d.get("name"), d.get("input"))
    if kind == "tool_result":
        text = str(d.get("content") or "")
        call = calls.calls.get(str(d.get("tool_call_id") or ""))
        return [calls.result(call, text)] if text.strip() else []
    if kind == "shell_command":
        out = [pv.Piece("ACT", str(d.get("command") or ""), "shell command the person ran")]
        if str(d.get("output") or "").strip():
            out.append(pv.Piece("TOOL", str(d["output"]), "shell command output"))
        return out
    if kind in ("binary", "image_url"):
        mime = str(d.get("MIMEType") or d.get("mime_type") or "")
        name = os.path.basename(str(d.get("Path") or d.get("url") or ""))
        label = "[image]" if mime.startswith("image") or kind == "image_url" else f"[file {name}]"
        return [pv.Piece("TOOL", label, "attachment")]
    return []


def _unfinished(row: Row) -> bool:
    if row.parts is None:
        return False
    if row.role == "assistant" and not row.finished:
        return True
    return any(
        p.get("type") == "tool_call" and _data(p).get("finished") is False for p in row.parts
    )


def _rows(con: sqlite3.Connection, start: int) -> tuple[list[Row], dict[str, bool]]:
    """The messages from rowid *start* on, and before it only the assistant messages of the
    sessions those continue (the tool calls a later result answers): a read from a
    watermark never decodes the whole history again."""
    mcols = columns(con, "messages")
    extra = [c if c in mcols else "NULL" for c in ("finished_at", "updated_at")]
    extra.append("is_summary_message" if "is_summary_message" in mcols else "0")
    query = (
        f"SELECT rowid, session_id, role, parts, {', '.join(extra)} FROM messages"
        " WHERE rowid >= ? OR (role = 'assistant' AND session_id IN"
        " (SELECT session_id FROM messages WHERE rowid >= ?)) ORDER BY rowid"
    )
    rows = []
    for rowid, sid, role, raw, finished_at, updated_at, summary in con.execute(
        query, (start, start)
    ):
        parts, why = decode_parts(raw)
        rows.append(
            Row(
                int(rowid),
                str(sid or ""),
                str(role or ""),
                parts,
                why,
                finished_at is not None,
                float(updated_at or 0),
                bool(summary),
            )
        )
    children: dict[str, bool] = {}
    if "sessions" in tables(con) and "parent_session_id" in columns(con, "sessions"):
        for sid, parent in con.execute("SELECT id, parent_session_id FROM sessions"):
            children[str(sid)] = bool(parent)
    return rows, children


def _settle(intake: Intake, rows: list[Row], start: int, now: float) -> int:
    """Where this read stops: before the first message still being written."""
    last: dict[str, int] = {}
    for r in rows:
        last[r.session] = r.rowid
    for i, r in enumerate(rows):
        if r.rowid < start or last[r.session] != r.rowid or not _unfinished(r):
            continue
        if now - r.changed < HOLD_SECONDS:
            later = len(rows) - i - 1
            intake.hold(
                r.rowid,
                r.rowid + 1,
                f"still being written: it and the {later} message(s) after it are read later",
            )
            return r.rowid
    return max(start, rows[-1].rowid + 1) if rows else start


def _emit(intake: Intake, row: Row, state: _State) -> None:
    rid = row.rowid
    if row.parts is None:
        intake.note(rid, rid + 1, f"unreadable message row ({row.why})", SKIPPED)
        return
    if row.role not in ("user", "assistant", "tool"):
        intake.note(rid, rid + 1, f"{safe_label(row.role)} message", IGNORED)
        return
    for part in row.parts:
        for p in part_pieces(row, part, state):
            intake.add(p.cls, p.text, rid, rid + 1, session=row.session, kind=p.kind)
    if not intake.segments or intake.segments[-1].start != rid:
        kinds = sorted({str(p.get("type")) for p in row.parts}) or ["no"]
        intake.note(rid, rid + 1, f"{'/'.join(map(safe_label, kinds))} parts only", IGNORED)


def read_crush(
    path: str | os.PathLike[str],
    start: int,
    *,
    limit_bytes: int | None = None,
    now: float | None = None,
) -> Read:
    """Read Crush's database from message rowid *start*."""
    p = Path(path)
    clock = time.time() if now is None else now
    if nothing_yet(p):
        return Intake(str(p), UNIT).result(start, start)
    try:
        with read_only(p) as con:
            have = tables(con)
            if not {"messages"} <= have or "parts" not in columns(con, "messages"):
                return refused(UNIT, start, f"{p.name} is a database without Crush's messages")
            rows, children = _rows(con, start)
    except (sqlite3.Error, OSError) as exc:
        return refused(UNIT, start, f"cannot read the Crush database: {exc}")
    intake = Intake(str(p), UNIT)
    intake.variant = "database"
    state = _State(children)
    end = _settle(intake, rows, start, clock)
    for r in rows:
        if r.rowid < start:
            for part in r.parts or ():
                part_pieces(r, part, state)  # the calls a later result answers
        elif r.rowid < end:
            intake.begin(r.rowid, r.rowid + 1)
            _emit(intake, r, state)
    return intake.result(start, end)


class ProjectRoots(Mapping[str, tuple[str, ...]]):
    """Crush's journal places on this machine: the ``.crush`` data folder of every project
    Crush lists in its ``projects.json`` (beside its global data, ``$CRUSH_GLOBAL_DATA``,
    ``$XDG_DATA_HOME/crush`` or ``~/.local/share/crush``; ``%LOCALAPPDATA%\\crush`` on
    Windows). Read when asked, so a project opened since is offered too; another system's
    list is empty (the file describes this machine only)."""

    def _file(self) -> Path:
        env = os.environ
        if env.get("CRUSH_GLOBAL_DATA"):
            return Path(env["CRUSH_GLOBAL_DATA"]).expanduser() / "projects.json"
        if env.get("XDG_DATA_HOME"):
            return Path(env["XDG_DATA_HOME"]) / "crush" / "projects.json"
        if sys.platform == "win32":
            local = env.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
            return Path(local) / "crush" / "projects.json"
        return Path.home() / ".local" / "share" / "crush" / "projects.json"

    def _here(self) -> tuple[str, ...]:
        try:
            doc = json.loads(self._file().read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return ()
        items = doc.get("projects") if isinstance(doc, dict) else None
        dirs = (
            [
                p.get("data_dir") or os.path.join(str(p.get("path") or ""), ".crush")
                for p in items
                if isinstance(p, dict) and (p.get("data_dir") or p.get("path"))
            ]
            if isinstance(items, list)
            else []
        )
        return tuple(dict.fromkeys(str(d) for d in dirs))

    def __getitem__(self, key: str) -> tuple[str, ...]:
        if key not in OSES:
            raise KeyError(key)
        return self._here() if key == os_key() else ()

    def __iter__(self) -> Iterator[str]:
        return iter(OSES)

    def __len__(self) -> int:
        return len(OSES)


def is_crush(found: frozenset[str] | set[str] | None) -> bool:
    return found is not None and {"sessions", "messages"} <= found


def sniff(head: Head) -> float:
    """Crush's database: ``sessions`` and ``messages`` tables (opencode's are singular)."""
    if not is_crush(head.tables):
        return 0.0
    try:
        with read_only(head.path) as con:
            ok = {"parts", "role", "session_id"} <= columns(con, "messages")
    except sqlite3.Error:
        return 0.0
    return 1.0 if ok else 0.0


ADAPTER = Adapter(
    name="crush",
    label="Crush",
    unit=UNIT,
    read=read_crush,
    sniff=sniff,
    roots=ProjectRoots(),
    include=("**/crush.db",),
    variants=("database",),
)
