"""Zed's agent panel: every thread in one SQLite database, ``threads/threads.db`` under
Zed's data directory.

Table ``threads`` (``id``, ``summary``, ``updated_at``, ``data_type``, ``data``, and in newer
versions ``parent_id``, ``folder_paths``, ``created_at``). ``data`` is the thread as JSON,
zstd-compressed when ``data_type`` is ``zstd``: ``{title, messages, updated_at, version,
…}`` where each message is ``{"User": {id, content}}``, ``{"Agent": {content,
tool_results}}`` or ``"Resume"``. User content is ``{"Text": …}`` (the person's words),
``{"Mention": {uri, content}}`` (a file, symbol or thread the person attached: its text is
the attachment, TOOL) or ``{"Image": …}``; agent content is ``{"Text": …}`` (SELF),
``{"Thinking": …}`` (not read) and ``{"ToolUse": {id, name, input}}`` (ACT), with the
results in ``tool_results`` by tool-use id (TOOL or SELF by provenance). In a sub-agent's
thread (``parent_id``) the "user" is the parent agent: SELF.

Zed rewrites a thread's row whole on every change and keeps no time per message, so the
unit read is the thread: the watermark (``seq``) is the thread's ``updated_at`` in
milliseconds, and a record is one thread version. A thread changed within
:data:`~.base.HOLD_SECONDS` is held back (it is likely still growing); a thread changed
again after it was read is read again whole -- Zed's format leaves no mark of which of its
messages are new.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from . import provenance as pv
from .base import HOLD_SECONDS, IGNORED, SKIPPED, Intake, JournalError, Read, refused, scrub
from .databases import columns, nothing_yet, read_only, tables, unzstd
from .documents import ToolCalls, typed_piece
from .hostwords import person_words
from .registry import Adapter, Head

UNIT = "seq"


def _millis(stamp: Any) -> int:
    try:
        return int(dt.datetime.fromisoformat(str(stamp).replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return 0


def thread_json(data_type: Any, data: Any) -> tuple[Any, str]:
    """The decoded thread of one row, or ``None`` and why it cannot be read."""
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data or b"")
    if str(data_type) == "zstd":
        try:
            raw = unzstd(raw, limit=512 << 20)
        except JournalError as exc:
            return None, str(exc)
    try:
        return scrub(json.loads(raw.decode("utf-8", errors="replace")))[0], ""
    except (ValueError, RecursionError):
        return None, "thread data is not JSON"


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in ("Text", "text"):
            if isinstance(value.get(key), str):
                return value[key]
        if "Image" in value:
            return "[image]"
    if isinstance(value, list):
        return "\n".join(t for t in (_text(v) for v in value) if t)
    return ""


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def user_pieces(content: Any, *, child: bool) -> list[pv.Piece]:
    out: list[pv.Piece] = []
    for item in _list(content):
        if not isinstance(item, dict):
            continue
        if isinstance(item.get("Text"), str):
            words = person_words(item["Text"])
            if words:
                out.append(typed_piece(words, child=child))
        elif isinstance(item.get("Mention"), dict):
            body = item["Mention"].get("content")
            if isinstance(body, str) and body.strip():
                out.append(pv.Piece("TOOL", body, "mention (attached context)"))
        elif "Image" in item:
            out.append(pv.Piece("TOOL", "[image]", "attachment"))
    return out


def agent_pieces(msg: dict, tools: ToolCalls) -> list[pv.Piece]:
    out: list[pv.Piece] = []
    for item in _list(msg.get("content")):
        if not isinstance(item, dict):
            continue
        if isinstance(item.get("Text"), str) and item["Text"].strip():
            out.append(pv.Piece("SELF", item["Text"], "assistant text"))
        elif isinstance(item.get("ToolUse"), dict):
            use = item["ToolUse"]
            args = use.get("input") if use.get("input") is not None else use.get("raw_input")
            out.extend(tools.call(str(use.get("id") or ""), use.get("name"), args))
    results = msg.get("tool_results")
    for key, res in results.items() if isinstance(results, dict) else ():
        if not isinstance(res, dict):
            continue
        text = _text(res.get("content")) or _text(res.get("output"))
        call = tools.calls.get(str(res.get("tool_use_id") or key))
        if text.strip():
            out.append(tools.result(call, text))
    return out


def thread_pieces(thread: Any, *, child: bool) -> list[pv.Piece]:
    """The classed texts of one thread, in order."""
    if not isinstance(thread, dict):
        return []
    tools = ToolCalls()
    out: list[pv.Piece] = []
    for msg in _list(thread.get("messages")):
        if isinstance(msg, dict) and isinstance(msg.get("User"), dict):
            out.extend(user_pieces(msg["User"].get("content"), child=child))
        elif isinstance(msg, dict) and isinstance(msg.get("Agent"), dict):
            out.extend(agent_pieces(msg["Agent"], tools))
        elif isinstance(msg, dict) and msg.get("role") in ("user", "assistant"):
            out.extend(_legacy(msg, tools, child=child))
    return out


def _legacy(msg: dict, tools: ToolCalls, *, child: bool) -> list[pv.Piece]:
    """A message of the earlier thread format (``role``, ``segments``, ``tool_uses``)."""
    segments = [
        (str(s.get("type") or "text"), s["text"])
        for s in _list(msg.get("segments"))
        if isinstance(s, dict) and isinstance(s.get("text"), str) and s["text"].strip()
    ]
    out: list[pv.Piece] = []
    if msg["role"] == "user":
        words = person_words("\n".join(text for _kind, text in segments))
        return [typed_piece(words, child=child)] if words else []
    for kind, text in segments:
        if kind in ("text", "Text"):  # thinking segments are not read
            out.append(pv.Piece("SELF", text, "assistant text"))
    for use in msg.get("tool_uses") or ():
        if isinstance(use, dict):
            out.extend(tools.call(str(use.get("id") or ""), use.get("name"), use.get("input")))
    for res in msg.get("tool_results") or ():
        if isinstance(res, dict) and _text(res.get("content")).strip():
            call = tools.calls.get(str(res.get("tool_use_id") or ""))
            out.append(tools.result(call, _text(res.get("content"))))
    return out


def read_zed(
    path: str | os.PathLike[str],
    start: int,
    *,
    limit_bytes: int | None = None,
    now: float | None = None,
) -> Read:
    """Read Zed's threads database: the threads changed at or after *start* (ms)."""
    p = Path(path)
    clock = time.time() if now is None else now
    if nothing_yet(p):
        return Intake(str(p), UNIT).result(start, start)
    try:
        with read_only(p) as con:
            if "threads" not in tables(con) or not {"data_type", "data"} <= columns(con, "threads"):
                return refused(UNIT, start, f"{p.name} is a database without Zed's threads")
            parent = "parent_id" if "parent_id" in columns(con, "threads") else "NULL"
            rows = con.execute(
                f"SELECT id, updated_at, data_type, data, {parent} FROM threads"
            ).fetchall()
    except (sqlite3.Error, OSError) as exc:
        return refused(UNIT, start, f"cannot read Zed's threads database: {exc}")
    intake = Intake(str(p), UNIT)
    intake.variant = "threads database"
    ordered = sorted(((_millis(r[1]), str(r[0]), r) for r in rows), key=lambda t: t[:2])
    end = start
    for when, tid, (_id, _u, dtype, data, parent_id) in ordered:
        if when < start:
            continue
        if clock * 1000 - when < HOLD_SECONDS * 1000:
            later = sum(1 for w, _t, _r in ordered if w >= when) - 1
            intake.hold(
                when, when + 1, f"thread still changing: it and {later} later are read later"
            )
            break
        intake.begin(when, when + 1)
        thread, why = thread_json(dtype, data)
        if thread is None:
            intake.note(when, when + 1, f"unreadable thread ({why})", SKIPPED)
        else:
            for piece in thread_pieces(thread, child=bool(parent_id)):
                intake.add(piece.cls, piece.text, when, when + 1, session=tid, kind=piece.kind)
            if not intake.segments or intake.segments[-1].start != when:
                intake.note(when, when + 1, "thread without messages", IGNORED)
        end = when + 1
    return intake.result(start, end)


def sniff(head: Head) -> float:
    if head.tables is None or "threads" not in head.tables:
        return 0.0
    try:
        with read_only(head.path) as con:
            ok = {"id", "summary", "data_type", "data"} <= columns(con, "threads")
    except sqlite3.Error:
        return 0.0
    return 1.0 if ok else 0.0


ROOTS = {
    "linux": ("~/.local/share/zed/threads",),
    "darwin": ("~/Library/Application Support/Zed/threads",),
    "win32": ("~/AppData/Local/Zed/threads",),
}

ADAPTER = Adapter(
    name="zed",
    label="Zed",
    unit=UNIT,
    read=read_zed,
    sniff=sniff,
    roots=ROOTS,
    include=("**/threads.db",),
    variants=("threads database",),
)
