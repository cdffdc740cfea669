"""The cursor-agent CLI's chat stores: ``~/.cursor/chats/<workspace-hash>/<chat-id>/store.db``.

One SQLite database per chat, in WAL mode, read through a read-only connection
(:mod:`.databases`). Table ``meta``: key ``0`` holds hex-encoded JSON ``{agentId,
latestRootBlobId, name, mode, createdAt, lastUsedModel}``. Table ``blobs`` (``id``: a
SHA-256, ``data``) is content-addressed: a blob is a message (JSON, opening with ``{``) or
a tree node (repeated ``0x0A 0x20`` + a 32-byte child id, perhaps a JSON message after
them). The conversation as it stands is the walk of the tree from the latest root; a
store without a usable root is read in row order instead.

When Cursor also wrote the chat's agent transcript (``~/.cursor/projects/<ws>/agent-
transcripts/<chat>/…``, its canonical text, read by ``cursor``), the store's messages are
counted in notes and not read again, so one conversation is never evidence twice.

Watermark (``seq``): the message's index in that walk -- a chat only grows at its end, and
Cursor keeps no time per message. Messages: ``user`` text is USER only inside
``<user_query>`` (``<user_info>``, rules, attached files and the other blocks Cursor adds
are its own; :func:`.cursor.typed_words`); ``assistant`` ``text`` SELF, ``reasoning`` not
read, ``tool-call`` ACT; ``tool`` ``tool-result`` TOOL or SELF by provenance; ``system``
bookkeeping.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from . import provenance as pv
from .base import IGNORED, SKIPPED, Intake, Read, refused, safe_label, scrub
from .cursor import typed_words
from .databases import nothing_yet, read_only, tables
from .documents import ToolCalls
from .registry import Adapter, Head

UNIT = "seq"
_LINK = b"\x0a\x20"


def _meta(con: sqlite3.Connection) -> dict:
    if "meta" not in tables(con):
        return {}
    row = con.execute("SELECT value FROM meta WHERE key = '0'").fetchone()
    if row is None:
        return {}
    raw = row[0]
    try:
        text = bytes.fromhex(raw).decode("utf-8") if isinstance(raw, str) else bytes(raw).decode()
        obj = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        try:
            obj = json.loads(raw)
        except (TypeError, ValueError):
            return {}
    return obj if isinstance(obj, dict) else {}


def _message(data: bytes) -> dict | None:
    try:
        obj = json.loads(data.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return None
    return scrub(obj)[0] if isinstance(obj, dict) else None


def walk(blobs: dict[str, bytes], root: str) -> list[tuple[str, bytes]]:
    """``(blob id, message JSON)`` in conversation order, from the tree under *root*: a
    node's children first, then the message embedded after its links. Iterative and
    visiting each blob once, so a deep or shared tree costs its size."""
    out: list[tuple[str, bytes]] = []
    stack: list[tuple[str, bytes | None]] = [(root, None)]
    seen: set[str] = set()
    while stack:
        bid, embedded = stack.pop()
        if embedded is not None:
            out.append((bid, embedded))
            continue
        if bid in seen or bid not in blobs:
            continue
        seen.add(bid)
        data = blobs[bid]
        if data[:1] == b"{":
            out.append((bid, data))
            continue
        children: list[str] = []
        at = 0
        while data[at : at + 2] == _LINK and at + 34 <= len(data):
            children.append(data[at + 2 : at + 34].hex())
            at += 34
        tail = data.find(b"{", at)
        if tail >= 0:
            stack.append((bid, data[tail:]))
        stack.extend((c, None) for c in reversed(children))
    return out


def messages(path: Path) -> tuple[dict, list[tuple[str, bytes]]]:
    """The chat's meta and its messages in order."""
    with read_only(path) as con:
        if "blobs" not in tables(con):
            raise sqlite3.DatabaseError("no blobs table")
        rows = con.execute("SELECT rowid, id, data FROM blobs ORDER BY rowid").fetchall()
        meta = _meta(con)
    blobs = {str(r[1]): bytes(r[2] or b"") for r in rows}
    root = str(meta.get("latestRootBlobId") or "")
    if root in blobs:
        return meta, walk(blobs, root)
    return meta, [(str(r[1]), bytes(r[2])) for r in rows if bytes(r[2] or b"")[:1] == b"{"]


class _Chat:
    def __init__(self) -> None:
        self.tools = ToolCalls()

    def pieces(self, msg: dict) -> list[pv.Piece]:
        role = msg.get("role")
        content = msg.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        out: list[pv.Piece] = []
        for b in blocks if isinstance(blocks, list) else ():
            if not isinstance(b, dict):
                continue
            kind, text = b.get("type"), b.get("text")
            if kind == "text" and isinstance(text, str) and role == "user":
                words = typed_words(text)
                if words:
                    out.append(pv.Piece("USER", words, "user query"))
            elif kind == "text" and isinstance(text, str) and role == "assistant" and text.strip():
                out.append(pv.Piece("SELF", text, "assistant text"))
            elif kind == "tool-call":
                out.extend(
                    self.tools.call(
                        str(b.get("toolCallId") or ""), b.get("toolName"), b.get("args")
                    )
                )
            elif kind == "tool-result":
                body = _result(b.get("result", b.get("output")))
                call = self.tools.calls.get(str(b.get("toolCallId") or ""))
                if body.strip():
                    out.append(self.tools.result(call, body))
        return out


def _result(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(_result(v) for v in value if _result(v))
    if isinstance(value, dict):
        for key in ("text", "value", "content", "output"):
            if key in value:
                return _result(value[key])
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else str(value)


def transcript_beside(path: Path, chat: str) -> Path | None:
    """The agent transcript Cursor writes for the same chat (``<cursor home>/projects/<ws>/
    agent-transcripts/<chat>/<chat>.jsonl``, or ``<chat>.jsonl`` / ``.txt`` in older builds),
    when there is one: the chat is then read from it (by ``cursor``), never twice."""
    if not chat or len(path.parents) < 4:
        return None
    projects = path.parents[3] / "projects"
    if not projects.is_dir():
        return None
    names = (f"{chat}/{chat}.jsonl", f"{chat}.jsonl", f"{chat}.txt")
    for ws in projects.iterdir():
        for name in names:
            found = ws / "agent-transcripts" / name
            if found.is_file():
                return found
    return None


def read_cursor_store(
    path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None
) -> Read:
    """Read a cursor-agent ``store.db`` from message index *start*."""
    p = Path(path)
    if nothing_yet(p):
        return Intake(str(p), UNIT).result(start, start)
    try:
        meta, msgs = messages(p)
    except (sqlite3.Error, OSError) as exc:
        return refused(UNIT, start, f"cannot read the cursor-agent chat store: {exc}")
    intake = Intake(str(p), UNIT)
    intake.variant = "chat store"
    session = str(meta.get("agentId") or p.parent.name)
    chat = _Chat()
    if start > len(msgs):
        intake.note(start, start, "journal shorter than watermark")
        return intake.result(start, start)
    if transcript_beside(p, session) is not None:
        for i in range(start, len(msgs)):
            intake.begin(i, i + 1)
            intake.note(i, i + 1, "read from the chat's agent transcript (not twice)", IGNORED)
        return intake.result(start, len(msgs))
    for i, (_bid, data) in enumerate(msgs):
        msg = _message(data)
        if i < start:
            if msg is not None:
                chat.pieces(msg)
            continue
        intake.begin(i, i + 1)
        if msg is None:
            intake.note(i, i + 1, "unreadable message blob (not JSON)", SKIPPED)
            continue
        for piece in chat.pieces(msg):
            intake.add(piece.cls, piece.text, i, i + 1, session=session, kind=piece.kind)
        if not intake.segments or intake.segments[-1].start != i:
            intake.note(
                i, i + 1, f"{safe_label(msg.get('role'))} message without words to read", IGNORED
            )
    return intake.result(start, len(msgs))


def sniff(head: Head) -> float:
    """A chat store: ``blobs`` and ``meta`` tables, the meta naming the chat's root blob or
    agent (two table names alone are too common to claim a database by)."""
    if head.tables is None or not {"blobs", "meta"} <= head.tables:
        return 0.0
    try:
        with read_only(head.path) as con:
            meta = _meta(con)
    except sqlite3.Error:
        return 0.0
    return 1.0 if "latestRootBlobId" in meta or "agentId" in meta else 0.0


ADAPTER = Adapter(
    name="cursor-agent",
    label="cursor-agent chat store",
    unit=UNIT,
    read=read_cursor_store,
    sniff=sniff,
    roots={os_: ("~/.cursor/chats",) for os_ in ("linux", "darwin", "win32")},
    include=("**/store.db",),
    variants=("chat store",),
)
