"""No silent stops: every record a journal adapter consumes is read as segments or counted
in a note, and a record held back as still being written is released once later records
exist or its file has been quiet long enough."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from kura_core.distill.journals import (
    ADAPTERS,
    JournalError,
    Read,
    guess_adapter,
    inspect,
    read_codex,
    read_gemini,
    read_opencode,
)
from kura_core.distill.journals.base import (
    HELD,
    HOLD_SECONDS,
    IGNORED,
    NO_TEXT,
    REPAIRED,
    SKIPPED,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
JOURNALS = FIXTURES / "journals"
OPENCODE = JOURNALS / "opencode" / "export-ses_7f3a2b1c.json"
GEMINI = JOURNALS / "gemini" / "session-2025-10-02T07-00-6a1e9b2c.json"
LATER = 4e9  # a clock long after every fixture was written
COUNTED = (SKIPPED, IGNORED)


def _fixture_journals() -> list[tuple[str, Path]]:
    """Every journal under tests/fixtures that an adapter recognises from its content (the
    message and part files of opencode's storage are read through their session file)."""
    found = []
    for path in sorted(FIXTURES.rglob("*")):
        if not path.is_file() or {"message", "part"} & set(path.parts[-3:-1]):
            continue
        if path.suffix not in (".jsonl", ".json", ".md", ".db") and "journals" not in path.parts:
            continue
        try:
            found.append((guess_adapter(path), path))
        except JournalError:
            if path.suffix == ".md" and "journals" in path.parts:
                found.append(("text", path))  # read as text only when named
    return found


def accounted(read: Read) -> None:
    """Every consumed record has a segment or a counting note at its position, and no
    position holds more than one record's worth of accounting."""
    with_segments = {s.start for s in read.segments}
    noted = {n.start for n in read.notes if n.kind in COUNTED} - with_segments
    assert read.records == len(with_segments) + len(noted), (
        read.records,
        len(with_segments),
        len(noted),
    )
    assert all(n.kind in (SKIPPED, IGNORED, REPAIRED, HELD) for n in read.notes)


def _jsonl_lines(path: Path) -> int | None:
    """The number of non-blank complete lines when *path* is JSON Lines, else None."""
    raw = path.read_bytes()
    lines = [ln for ln in raw[: raw.rfind(b"\n") + 1].split(b"\n") if ln.strip()]
    if len(lines) < 2 or not all(ln.lstrip().startswith(b"{") for ln in lines):
        return None
    return len(lines)


FIXTURE_JOURNALS = _fixture_journals()


def test_the_fixture_set_is_the_one_expected():
    adapters = {a for a, _ in FIXTURE_JOURNALS}
    assert {"claude", "codex", "gemini", "opencode", "aider", "evidence", "text"} <= adapters
    assert {"crush", "zed", "amp", "cursor-agent", "antigravity", "deepseek"} <= adapters
    assert len(FIXTURE_JOURNALS) >= 15


@pytest.mark.slow  # a sweep over every fixture journal, blind sets included
@pytest.mark.parametrize(
    ("adapter", "path"),
    FIXTURE_JOURNALS,
    ids=[str(p.relative_to(FIXTURES)) for _, p in FIXTURE_JOURNALS],
)
def test_every_fixture_record_is_read_or_noted(adapter, path):
    read = ADAPTERS[adapter](path, 0)
    assert not read.fatal
    accounted(read)
    assert read.held == 0  # every fixture is complete
    # every record the adapter did not read got its own reason, not the safety net's
    assert not [n for n in read.notes if n.reason == NO_TEXT]
    lines = _jsonl_lines(path)
    if lines is not None and read.unit == "byte":
        assert read.records == lines  # one record per line, none lost
    # reading record by record accounts for the same records as one read
    total, pos, steps = 0, 0, 0
    while pos < read.end and steps < 10_000:
        part = ADAPTERS[adapter](path, pos, limit_bytes=1)
        accounted(part)
        total += part.records
        if part.end <= pos:
            break
        pos, steps = part.end, steps + 1
    assert total == read.records


# --------------------------------------------------------------------------- opencode


def _export(tmp_path: Path, edit) -> Path:
    doc = json.loads(OPENCODE.read_text())
    edit(doc["messages"])
    path = tmp_path / "export.json"
    path.write_text(json.dumps(doc))
    return path


def _interrupted(msgs: list, at: int) -> None:
    """An assistant message the person cancelled: no parts, no completion time."""
    info = dict(msgs[at]["info"], id="msg_0x", role="assistant")
    info["time"] = {"created": msgs[at]["info"]["time"]["created"] - 1}
    info.pop("finish", None)
    msgs.insert(at, {"info": info, "parts": []})


def test_an_interrupted_opencode_reply_never_stops_the_journal(tmp_path):
    path = _export(tmp_path, lambda msgs: _interrupted(msgs, 2))
    read = read_opencode(path, 0)
    assert read.end == 5 and read.held == 0  # the later turns are read
    assert "Done: refresh is 30s." in [s.text for s in read.segments]
    why = [n.reason for n in read.notes if n.start == 2]
    assert why and "interrupted" in why[0]
    accounted(read)


def test_an_unfinished_last_opencode_message_is_held_then_released(tmp_path):
    def unfinish(msgs: list) -> None:
        del msgs[-1]["info"]["time"]["completed"], msgs[-1]["info"]["finish"]

    path = _export(tmp_path, unfinish)
    fresh = read_opencode(path, 0, now=os.path.getmtime(path) + 1)
    assert fresh.end == 3 and fresh.held == 1
    assert [n.kind for n in fresh.notes if n.start == 3] == [HELD]
    stale = read_opencode(path, 3, now=os.path.getmtime(path) + HOLD_SECONDS + 1)
    assert stale.end == 4 and stale.held == 0 and stale.segments
    accounted(fresh)
    accounted(stale)
    shown = inspect(path)
    assert shown.held in (0, 1) and "counts" in shown.to_json()


def _storage(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "oc"
    shutil.copytree(JOURNALS / "opencode" / "storage", root / "storage")
    session = root / "storage" / "session" / "prj1" / "ses_7f3a2b1c0d9eXyZ.json"
    return root / "storage", session


def test_unreadable_opencode_part_files_are_noted(tmp_path):
    storage, session = _storage(tmp_path)
    (storage / "part" / "msg_02" / "prt_02z.json").write_text('{"id": "prt_02z", "type": ')
    read = read_opencode(session, 0, now=LATER)
    notes = [n for n in read.notes if n.start == 1]
    assert any("unreadable part" in n.reason for n in notes)
    assert read.end == 4
    accounted(read)


def test_an_unreadable_opencode_message_file_is_held_while_fresh_then_noted(tmp_path):
    storage, session = _storage(tmp_path)
    broken = storage / "message" / "ses_7f3a2b1c0d9eXyZ" / "msg_05.json"
    broken.write_text('{"id": "msg_05", "role": "us')
    fresh = read_opencode(session, 0, now=os.path.getmtime(broken) + 1)
    assert fresh.end == 4 and fresh.held == 1
    stale = read_opencode(session, fresh.end, now=LATER)
    assert stale.end == 5 and [n.kind for n in stale.notes] == [SKIPPED]
    assert "unreadable message file" in stale.notes[0].reason
    accounted(stale)


def _db(path: Path, rows: list[tuple[str, str, int, dict, list[dict]]]) -> None:
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT);
        CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER,
                              time_updated INTEGER, data TEXT);
        CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, data TEXT);
    """)
    for sid in {r[1] for r in rows}:
        con.execute("INSERT INTO session VALUES (?, NULL)", (sid,))
    for mid, sid, t, info, parts in rows:
        con.execute("INSERT INTO message VALUES (?,?,?,?,?)", (mid, sid, t, t, json.dumps(info)))
        for i, p in enumerate(parts):
            con.execute("INSERT INTO part VALUES (?,?,?)", (f"{mid}_{i}", mid, json.dumps(p)))
    con.commit()
    con.close()


def _said(text: str) -> list[dict]:
    return [{"type": "text", "text": text}]


def test_an_interrupted_message_in_the_database_holds_no_other_session(tmp_path):
    db = tmp_path / "opencode.db"
    t = 1_760_000_000_000
    _db(
        db,
        [
            ("m1", "a", t, {"role": "user"}, _said("rotate the logs weekly")),
            ("m2", "a", t + 1, {"role": "assistant", "time": {"created": t + 1}}, []),
            ("m3", "b", t + 2, {"role": "user"}, _said("pin the kernel to 6.6")),
            ("m4", "a", t + 3, {"role": "user"}, _said("and keep eight of them")),
            ("m5", "b", t + 4, {"role": "assistant", "time": {"created": t + 4}}, []),
        ],
    )
    now = (t + 5) / 1000
    read = read_opencode(db, 0, now=now)
    texts = [s.text for s in read.segments]
    assert texts == ["rotate the logs weekly", "pin the kernel to 6.6", "and keep eight of them"]
    assert read.held == 1 and read.end == t + 4  # only b's last message waits
    accounted(read)
    later = read_opencode(db, read.end, now=now + HOLD_SECONDS)
    assert later.end == t + 5 and later.held == 0 and later.records == 1
    accounted(later)


# --------------------------------------------------------------------------- gemini


def test_a_gemini_chat_whose_last_tool_call_runs_is_held_then_released(tmp_path):
    doc = json.loads(GEMINI.read_text())
    last = next(m for m in reversed(doc["messages"]) if m.get("toolCalls"))
    doc["messages"] = doc["messages"][: doc["messages"].index(last) + 1]
    last["toolCalls"][-1]["status"] = "executing"
    path = tmp_path / "session-x.json"
    path.write_text(json.dumps(doc))
    n = len(doc["messages"])
    fresh = read_gemini(path, 0, now=os.path.getmtime(path) + 1)
    assert fresh.end == n - 1 and fresh.held == 1
    stale = read_gemini(path, 0, now=os.path.getmtime(path) + HOLD_SECONDS + 1)
    assert stale.end == n and stale.held == 0
    accounted(fresh)
    accounted(stale)


# --------------------------------------------------------------------------- generated

_BLANKS = st.sampled_from(["", " ", "\n", " \t\n ", "\u3000"])


def _codex_record(kind: str, blank: str) -> dict:
    payloads = {
        "output": {"type": "function_call_output", "call_id": "c1", "output": blank},
        "assistant": {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": blank}],
        },
        "user": {"type": "user_message", "message": blank},
        "call": {"type": "function_call", "name": "shell", "call_id": "c1", "arguments": "{}"},
        "search": {"type": "web_search_call", "action": {}},
    }
    p = payloads[kind]
    rtype = "event_msg" if kind == "user" else "response_item"
    return {"timestamp": "2025-01-01T00:00:00Z", "type": rtype, "payload": p}


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    records=st.lists(
        st.tuples(st.sampled_from(["output", "assistant", "user", "call", "search"]), _BLANKS),
        min_size=1,
        max_size=12,
    )
)
def test_codex_records_with_empty_or_blank_text_are_noted(tmp_path, records):
    path = tmp_path / "rollout-x.jsonl"
    meta = {"timestamp": "t", "type": "session_meta", "payload": {"id": "s1"}}
    lines = [meta] + [_codex_record(k, b) for k, b in records]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    read = read_codex(path, 0)
    assert read.records == len(lines)
    accounted(read)


def test_journal_inspect_shows_held_back_and_skipped_counts(tmp_path):
    def unfinish(msgs: list) -> None:
        del msgs[-1]["info"]["time"]["completed"], msgs[-1]["info"]["finish"]

    path = _export(tmp_path, unfinish)
    out = subprocess.run(
        [sys.executable, "-m", "kura_core", "journal", "inspect", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    head = out.stdout.splitlines()[0]
    assert "opencode adapter (export)" in head
    assert "0 skipped" in head and "1 held back" in head
    assert any(line.split()[1:2] == ["held"] for line in out.stdout.splitlines()[1:])
    data = json.loads(
        subprocess.run(
            [sys.executable, "-m", "kura_core", "journal", "inspect", str(path), "--json"],
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
    )
    assert data["counts"]["held"] == 1 and data["variant"] == "export"
