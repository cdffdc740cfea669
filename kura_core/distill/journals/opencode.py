"""opencode sessions: ``opencode export`` JSON, the JSON file storage, and the database.

Three ways opencode keeps a session, one adapter, one watermark unit (``seq``):

* ``opencode export <session>`` writes ``{info, messages: [{info, parts}]}`` -- the
  watermark is the message index;
* the file storage of earlier versions (``~/.local/share/opencode/storage``): the journal
  is the session's info file ``storage/session/<project>/<session>.json``; its messages
  (``storage/message/<session>/*.json``) and their parts (``storage/part/<message>/*.json``)
  are read beside it -- the watermark is the message index in creation order;
* the SQLite database of current versions (``~/.local/share/opencode/opencode.db``), every
  session in one file -- the watermark is the creation time of the last message read (in
  milliseconds), so deleting a session never shifts what comes after.

Part types: a person's ``text`` is USER (``synthetic`` text opencode adds, such as an
attached file's contents, is TOOL; ``ignored`` text is skipped); a ``file`` is noted as
``[image]`` or ``[file NAME]``; ``subtask`` prompts are SELF. The assistant's ``text`` is
SELF, ``reasoning`` is skipped, a ``tool`` part is ACT plus SELF for the prose in its
input, its output TOOL or SELF by provenance, its error TOOL. Step, snapshot, patch,
retry, agent and compaction parts are bookkeeping. In a child session (``parentID``) the
"user" is the parent agent: SELF.

Still being written: a message whose tool calls are still running, an assistant message
not yet finished, or one whose file is not complete JSON yet is held back (a ``held``
note) -- but only while it is the last message of its session and its files changed
within :data:`~.base.HOLD_SECONDS`. An interrupted message (the agent died or the person
cancelled it) with later messages after it, or quiet that long, is read as it stands and
noted, so it never stops the journal. Unreadable message and part files are noted, never
dropped silently.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...shapes import dict_at, str_at
from ...vocabulary import ProvenanceClass
from ..evidence import NO_OUTPUT
from . import provenance as pv
from .base import (
    HOLD_SECONDS,
    IGNORED,
    REPAIRED,
    SKIPPED,
    Intake,
    Read,
    decode_bytes,
    encoding_problem,
    refused,
    scrub,
)
from .documents import classed_result, decode_noted, typed_piece
from .registry import Adapter, Head

UNIT = "seq"
_RUNNING = {"pending", "running"}


def _load(path: Path) -> Any:
    data, _ = decode_bytes(path.read_bytes())
    data = data.lstrip("\ufeff")
    try:
        obj = json.loads(data)
    except ValueError:
        # `opencode export > file` may carry a status line before the JSON document
        at = data.find("\n{")
        if at < 0 or data.lstrip().startswith("{"):
            raise
        obj = json.loads(data[at + 1 :])
    return scrub(obj)[0]


def _created(info: dict) -> float:
    t = dict_at(info, "time")
    c = t.get("created")
    return float(c) if isinstance(c, (int, float)) and not isinstance(c, bool) else 0.0


def _unfinished(info: dict, parts: list[dict]) -> str:
    """Why a message looks still being written (``""`` when it is complete)."""
    for p in parts:
        if p.get("type") == "tool":
            state = dict_at(p, "state")
            if state.get("status") in _RUNNING:
                return "a tool call is still running"
    if info.get("role") == "assistant":
        t = dict_at(info, "time")
        if not t.get("completed") and not info.get("error") and not info.get("finish"):
            return "the reply is not finished"
    if info.get(_BROKEN):
        return "a file of it is not complete JSON"
    return ""


#: Keys a message carries when some of its files could not be read (being written, or
#: damaged): the reason, noted when the message is read as it stands.
_BROKEN = "\x00broken"
_MTIME = "\x00mtime"


def _quiet(mtime: float, now: float | None) -> bool:
    """Has a record's file been unchanged for :data:`HOLD_SECONDS`?"""
    return (time.time() if now is None else now) - mtime >= HOLD_SECONDS


def _settle(
    intake: Intake, msgs: list[tuple[dict, list[dict]]], start: int, quiet: Callable[[int], bool]
) -> int:
    """Where this read stops: before the last message when it is still being written.

    Only the last message is ever held back: a message with later ones after it was
    interrupted (the agent moved on) and is read as it stands, and so is a last message
    whose files have been quiet for :data:`HOLD_SECONDS`.
    """
    last = len(msgs) - 1
    if last < start:
        return len(msgs)
    why = _unfinished(*msgs[last])
    if why and not quiet(last):
        intake.hold(last, last + 1, f"still being written ({why}): read again later")
        return last
    return len(msgs)


def message_pieces(
    info: dict, parts: list[dict], *, child: bool, prose: set[str]
) -> list[pv.Piece]:
    role = info.get("role")
    out: list[pv.Piece] = []
    said: list[str] = []
    said_at = -1
    for p in parts:
        if not isinstance(p, dict):
            continue
        t = p.get("type")
        if t == "text" and isinstance(p.get("text"), str):
            if p.get("ignored") is True:
                continue
            if role == "user":
                if p.get("synthetic") is True:
                    out.append(pv.Piece("TOOL", p["text"], "text opencode added (attached file)"))
                else:
                    said_at = len(out) if said_at < 0 else said_at
                    said.append(p["text"])
            else:
                out.append(pv.Piece("SELF", p["text"], "assistant text"))
        elif t == "file":
            mime = str(p.get("mime") or "")
            name = str_at(p, "filename")
            marker = "[image]" if mime.startswith("image/") else f"[file {name}]".replace(" ]", "]")
            if role == "user":
                said_at = len(out) if said_at < 0 else said_at
                said.append(marker)
            else:
                out.append(pv.Piece("SELF", marker, "file"))
        elif t == "subtask":
            texts = [
                x
                for x in (p.get("description"), p.get("prompt"))
                if isinstance(x, str) and x.strip()
            ]
            if texts:
                out.append(
                    pv.Piece("SELF", "\n".join(texts), "subtask prompt (a template or the agent)")
                )
        elif t == "tool":
            out.extend(_tool_part(p, prose))
    if said:
        out.insert(said_at, typed_piece("\n".join(said), child=child, kind="user text"))
    return out


def _tool_part(p: dict, prose: set[str]) -> list[pv.Piece]:
    """A tool part: the call, and its output or error classed by what the tool does."""
    state = dict_at(p, "state")
    name = str_at(p, "tool", "tool")
    got, call = decode_noted(name, state.get("input"), prose)
    out = list(got)
    status = state.get("status")
    output, error = str_at(state, "output"), str_at(state, "error")
    if status == "completed" and not output.strip():
        # it ran and printed nothing (an edit, a write): no result follows, so the call
        # says how it went itself
        out = [
            pv.Piece(x.cls, x.text, f"{x.kind} {NO_OUTPUT}") if x.cls == ProvenanceClass.ACT else x
            for x in out
        ]
    elif status == "completed" and output.strip():
        if call.family == pv.ASK:
            answered = pv.answers(output, state.get("metadata"))
            out.extend(answered or [pv.Piece("SELF", output, f"tool_result {name}")])
        else:
            out.append(classed_result(call, output, prose))
    elif status == "error" and error.strip():
        refused_ = pv.rejection(error)
        out.extend(
            refused_
            if refused_ is not None
            else [pv.Piece("TOOL", error, f"tool_result {name} (error)")]
        )
    return out


def _emit(
    intake: Intake,
    seq: int,
    info: dict,
    parts: list[dict],
    *,
    child: bool,
    prose: set[str],
    session: str,
) -> None:
    pieces = message_pieces(info, parts, child=child, prose=prose)
    broken = info.get(_BROKEN)
    if isinstance(broken, str):
        intake.note(seq, seq + 1, broken, SKIPPED if not pieces else REPAIRED)
    why = _unfinished(info, parts)
    if not pieces and isinstance(broken, str):
        pass  # noted above
    elif not pieces and why:
        intake.note(seq, seq + 1, f"interrupted message, never finished ({why}): no text", IGNORED)
    elif not pieces:
        kinds = sorted({str(p.get("type")) for p in parts if isinstance(p, dict)})[:4]
        intake.note(
            seq,
            seq + 1,
            "no text (" + (", ".join(k for k in kinds if len(k) < 20) or "empty") + ")",
            IGNORED,
        )
    stamp = ""
    created = _created(info)
    if created:
        import datetime as dt

        stamp = dt.datetime.fromtimestamp(created / 1000, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    for p in pieces:
        intake.add(p.cls, p.text, seq, seq + 1, session=session, stamp=stamp, kind=p.kind)


# --------------------------------------------------------------------------- forms


def _messages_of_export(obj: dict) -> tuple[str, bool, list[tuple[dict, list[dict]]]]:
    info = dict_at(obj, "info")
    session = str_at(info, "id")
    child = bool(info.get("parentID"))
    msgs = []
    for m in obj.get("messages") or []:
        if isinstance(m, dict):
            mi = dict_at(m, "info")
            parts = [p for p in (m.get("parts") or []) if isinstance(p, dict)]
            msgs.append((mi, parts))
    return session, child, msgs


def _storage_dirs(path: Path, session: str) -> tuple[Path, Path] | None:
    """``(message dir, part root)`` of a session in the file storage."""
    for anc in path.parents:
        if (anc / "message" / session).is_dir():
            return anc / "message" / session, anc / "part"
        if (anc / "session" / "message" / session).is_dir():
            return anc / "session" / "message" / session, anc / "session" / "part" / session
    return None


def _messages_of_storage(path: Path, obj: dict) -> list[tuple[dict, list[dict]]]:
    """The messages of a storage session, oldest first. A message file that is not
    complete JSON (being written, or damaged) is kept as a record of its own, last, so
    it is held back while it may still be written and noted once it is not; a part file
    that is not complete JSON marks its message the same way."""
    session = obj["id"]
    dirs = _storage_dirs(path, session)
    if dirs is None:
        return []
    mdir, proot = dirs
    msgs: list[tuple[dict, list[dict]]] = []
    broken: list[tuple[dict, list[dict]]] = []
    for f in mdir.glob("*.json"):
        mtime = _mtime(f)
        try:
            info = _load(f)
        except (OSError, ValueError, RecursionError):
            info = None
        if not isinstance(info, dict):
            why = "unreadable message file (not complete JSON): skipped"
            broken.append(({"id": f.stem, _BROKEN: why, _MTIME: mtime}, []))
            continue
        mid = str_at(info, "id", f.stem)
        parts, bad = _parts_of(proot / mid)
        info[_MTIME] = max([mtime, *(m for _, m in parts)])
        if bad:
            info[_BROKEN] = f"{bad} unreadable part file(s) (not complete JSON): read without them"
        msgs.append((info, [p for p, _ in parts]))
    msgs.sort(key=lambda m: (_created(m[0]), str(m[0].get("id", ""))))
    broken.sort(key=lambda m: str(m[0]["id"]))
    return msgs + broken


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _parts_of(pdir: Path) -> tuple[list[tuple[dict, float]], int]:
    """A message's parts with each file's mtime, in id order, and how many could not be read."""
    parts: list[tuple[dict, float]] = []
    bad = 0
    for pf in sorted(pdir.glob("*.json")) if pdir.is_dir() else []:
        try:
            part = _load(pf)
        except (OSError, ValueError, RecursionError):
            part = None
        if isinstance(part, dict):
            parts.append((part, _mtime(pf)))
        else:
            bad += 1
    parts.sort(key=lambda p: str(p[0].get("id", "")))
    return parts, bad


def kind_of(obj: Any) -> str:
    """``"export"``, ``"storage"`` or ``""`` for a decoded opencode JSON file."""
    if not isinstance(obj, dict):
        return ""
    if isinstance(obj.get("info"), dict) and isinstance(obj.get("messages"), list):
        return "export"
    if (
        isinstance(obj.get("id"), str)
        and obj["id"].startswith("ses")
        and ("projectID" in obj or "time" in obj or "directory" in obj)
        and "messages" not in obj
    ):
        return "storage"
    return ""


def read_opencode(
    path: str | os.PathLike[str],
    start: int,
    *,
    limit_bytes: int | None = None,
    now: float | None = None,
) -> Read:
    """Read an opencode session (export, storage session file or database) from *start*.

    *now* is the clock (seconds since the epoch) that decides whether an unfinished last
    message has been quiet long enough to be read as it stands."""
    source = str(path)
    p = Path(path)
    with open(p, "rb") as fh:
        head = fh.read(16)
    if head.startswith(b"SQLite format 3"):
        return _read_database(p, start, now)
    problem = encoding_problem(p)
    if problem:
        return refused(UNIT, start, problem)
    intake = Intake(source, UNIT)
    try:
        obj = _load(p)
    except (ValueError, RecursionError):
        intake.hold(start, start + 1, "not complete JSON (being written?): read again later")
        return intake.result(start, start)
    kind = kind_of(obj)
    if kind == "export":
        session, child, msgs = _messages_of_export(obj)
        times = [_mtime(p)] * len(msgs)
    elif kind == "storage":
        session, child = obj["id"], bool(obj.get("parentID"))
        msgs = _messages_of_storage(p, obj)
        times = [float(info.get(_MTIME) or 0.0) for info, _ in msgs]
    else:
        return refused(
            UNIT,
            start,
            f"{p.name} is not an opencode session (neither an "
            "`opencode export` file nor a storage session file)",
        )
    intake.variant = kind
    if start > len(msgs):
        intake.note(start, start, "journal shorter than watermark")
        return intake.result(start, start)
    prose: set[str] = set()
    for info, parts in msgs[:start]:
        message_pieces(info, parts, child=child, prose=prose)
    end = _settle(intake, msgs, start, lambda i: _quiet(times[i], now))
    for i in range(start, end):
        info, parts = msgs[i]
        intake.begin(i, i + 1)
        _emit(intake, i, info, parts, child=child, prose=prose, session=session)
    return intake.result(start, end)


def _child_sessions(con: sqlite3.Connection, tables: set[str]) -> dict[str, bool]:
    """Which sessions were started by another (a subagent's), by session id."""
    if "session" not in tables:
        return {}
    cols = {r[1] for r in con.execute("PRAGMA table_info(session)")}
    if "parent_id" not in cols:
        return {}
    return {sid: bool(pid) for sid, pid in con.execute("SELECT id, parent_id FROM session")}


def _db_messages(
    rows: list, *, timed: bool, parts_by: dict[str, list[dict]], bad_parts: dict[str, int]
) -> list[tuple[int, str, str, dict, list[dict]]]:
    """``(when, message id, session id, info, parts)`` of every message row, oldest first;
    a row whose data is not a JSON object is kept, marked as unreadable."""
    msgs = []
    for row in rows:
        mid, sid, data = row[0], row[1], row[2]
        try:
            info = scrub(json.loads(data))[0]
        except (TypeError, ValueError, RecursionError):
            info = None
        if not isinstance(info, dict):
            info = {_BROKEN: "unreadable message row (its data is not a JSON object): skipped"}
        elif bad_parts.get(mid):
            info[_BROKEN] = (
                f"{bad_parts[mid]} unreadable part row(s) (not a JSON object): read without them"
            )
        when = int(row[3]) if timed and isinstance(row[3], (int, float)) else int(_created(info))
        updated = row[4] if timed and len(row) > 4 and isinstance(row[4], (int, float)) else when
        info[_MTIME] = max(when, int(updated)) / 1000
        msgs.append((when, mid, sid, info, parts_by.get(mid, [])))
    msgs.sort(key=lambda m: (m[0], m[1]))
    return msgs


def _db_rows(con: sqlite3.Connection) -> tuple[list, bool, dict[str, list[dict]], dict[str, int]]:
    """Message rows, whether they carry creation times, and the parts of each message
    (with how many part rows of each could not be read)."""
    mcols = {r[1] for r in con.execute("PRAGMA table_info(message)")}
    timed = "time_created" in mcols
    updated = ", time_updated" if timed and "time_updated" in mcols else ""
    rows = con.execute(
        "SELECT id, session_id, data"
        + (", time_created" + updated if timed else "")
        + " FROM message"
        + (" ORDER BY time_created, id" if timed else " ORDER BY id")
    ).fetchall()
    parts_by: dict[str, list[dict]] = {}
    bad: dict[str, int] = {}
    for mid, data in con.execute("SELECT message_id, data FROM part ORDER BY message_id, id"):
        try:
            part = scrub(json.loads(data))[0]
        except (TypeError, ValueError, RecursionError):
            part = None
        if isinstance(part, dict):
            parts_by.setdefault(mid, []).append(part)
        else:
            bad[mid] = bad.get(mid, 0) + 1
    return rows, timed, parts_by, bad


def _read_database(path: Path, start: int, now: float | None) -> Read:
    source = str(path)
    intake = Intake(source, UNIT)
    intake.variant = "database"
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error as exc:
        return refused(UNIT, start, f"cannot open the opencode database: {exc}")
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"message", "part"} <= tables:
            return refused(
                UNIT, start, f"{path.name} is a database without opencode's message and part tables"
            )
        parents = _child_sessions(con, tables)
        rows, timed, parts_by, bad = _db_rows(con)
    except sqlite3.Error as exc:
        return refused(UNIT, start, f"cannot read the opencode database: {exc}")
    finally:
        con.close()
    msgs = _db_messages(rows, timed=timed, parts_by=parts_by, bad_parts=bad)
    prose: dict[str, set[str]] = {}
    end = _db_settle(intake, msgs, start, now)
    for when, _mid, sid, info, parts in msgs:
        child, known = parents.get(sid, False), prose.setdefault(sid, set())
        if when < start:
            message_pieces(info, parts, child=child, prose=known)
        elif when < end:
            intake.begin(when, when + 1)
            _emit(intake, when, info, parts, child=child, prose=known, session=sid)
    return intake.result(start, end)


def _db_settle(
    intake: Intake,
    msgs: list[tuple[int, str, str, dict, list[dict]]],
    start: int,
    now: float | None,
) -> int:
    """Where a database read stops (a creation time): before the first message that is
    still being written -- the last of its session, unfinished, and changed within
    :data:`HOLD_SECONDS`. A session's interrupted message with later ones after it, or
    quiet that long, is read as it stands; other sessions never wait on it for good."""
    if not msgs:
        return start
    last_of: dict[str, str] = {}
    for _when, mid, sid, _info, _parts in msgs:
        last_of[sid] = mid
    for when, mid, sid, info, parts in msgs:
        if when < start or last_of.get(sid) != mid:
            continue
        why = _unfinished(info, parts)
        if why and not _quiet(float(info.get(_MTIME) or 0.0), now):
            later = sum(1 for m in msgs if m[0] > when)
            intake.hold(
                when,
                when + 1,
                f"still being written ({why}): it and the {later} message(s) after it "
                "are read later",
            )
            return when
    return max(start, msgs[-1][0] + 1)


# --------------------------------------------------------------------------- detection


def sniff(head: Head) -> float:
    """An ``opencode export`` file, a storage session file, or the SQLite database."""
    if head.tables is not None:
        return 1.0 if {"message", "part"} <= head.tables else 0.0
    return 1.0 if kind_of(head.document) else 0.0


ADAPTER = Adapter(
    name="opencode",
    label="opencode",
    unit=UNIT,
    read=read_opencode,
    sniff=sniff,
    roots={os_: ("~/.local/share/opencode",) for os_ in ("linux", "darwin", "win32")},
    include=("**/storage/session/**/ses_*.json", "**/opencode*.db"),
    variants=("export", "storage", "database"),
)
