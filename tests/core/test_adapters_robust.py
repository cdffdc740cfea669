"""Broken, odd and growing journals: a clear report, no lost record, no crash."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from kura_core.distill.journals import (
    ADAPTERS,
    REPAIRED,
    JournalError,
    guess_adapter,
    inspect,
    read_aider,
    read_claude,
    read_codex,
    read_copilot,
    read_cursor,
    read_evidence,
    read_gemini,
    read_kimi,
    read_opencode,
    read_qwen,
    read_text,
    segment_context,
)

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "journals"
CODEX = next((FIX / "codex").glob("rollout-2025-*.jsonl"))


def pairs(read) -> list[tuple[str, str]]:
    return [(s.cls, s.text) for s in read.segments]


def claude_user(text: str, **extra) -> str:
    return json.dumps(
        {"type": "user", "sessionId": "s", "message": {"role": "user", "content": text}, **extra},
        ensure_ascii=False,
    )


def codex_user(text: str) -> str:
    return json.dumps(
        {
            "timestamp": "t",
            "type": "event_msg",
            "payload": {"type": "user_message", "message": text, "kind": "plain"},
        }
    )


def gemini_user(mid: str, text: str) -> str:
    return json.dumps({"id": mid, "timestamp": "t", "type": "user", "content": text})


def evidence_user(text: str) -> str:
    return json.dumps({"schema_version": 1, "session_id": "s", "class": "USER", "text": text})


FORMS = [
    pytest.param(
        read_claude,
        claude_user,
        json.dumps({"type": "summary", "summary": "x", "leafUuid": "y"}),
        id="claude",
    ),
    pytest.param(
        read_codex,
        codex_user,
        json.dumps({"timestamp": "t", "type": "session_meta", "payload": {"id": "s1"}}),
        id="codex",
    ),
    pytest.param(
        read_gemini,
        lambda t: gemini_user("m9", t),
        json.dumps({"sessionId": "s", "projectHash": "h", "startTime": "t", "lastUpdated": "t"}),
        id="gemini",
    ),
    pytest.param(read_evidence, evidence_user, evidence_user("first record"), id="evidence"),
    pytest.param(
        read_copilot,
        lambda t: json.dumps({"type": "user.message", "data": {"content": t}, "id": "u"}),
        json.dumps({"type": "session.start", "data": {"sessionId": "s"}, "id": "0"}),
        id="copilot",
    ),
    pytest.param(
        read_kimi,
        lambda t: json.dumps({"role": "user", "content": t}),
        json.dumps({"role": "_checkpoint", "id": 0}),
        id="kimi",
    ),
    pytest.param(
        read_qwen,
        lambda t: json.dumps(
            {"type": "user", "sessionId": "s", "message": {"role": "user", "parts": [{"text": t}]}}
        ),
        json.dumps({"type": "system", "subtype": "ui_telemetry", "systemPayload": {}}),
        id="qwen",
    ),
    pytest.param(
        read_cursor,
        lambda t: json.dumps(
            {"role": "user", "message": {"content": [{"type": "text", "text": t}]}}
        ),
        json.dumps({"type": "turn_ended", "status": "success"}),
        id="cursor",
    ),
]


# ---------------------------------------------------------------------------- torn lines


@pytest.mark.parametrize(("reader", "user", "first"), FORMS)
def test_a_torn_line_followed_by_a_complete_record_loses_nothing(tmp_path, reader, user, first):
    path = tmp_path / "j.jsonl"
    torn = user("this turn was cut off by a crash")[:30]
    path.write_text(
        first + "\n" + torn + user("the archive stays on the slow disk") + "\n", encoding="utf-8"
    )
    read = reader(path, 0)
    assert ("USER", "the archive stays on the slow disk") in pairs(read)
    assert any("torn" in n.reason for n in read.notes)
    assert "torn record (an unfinished line before a complete one)" in read.skipped
    assert not any("cut off" in s.text for s in read.segments)


@pytest.mark.parametrize(("reader", "user", "first"), FORMS)
def test_a_line_still_being_written_waits_and_resumes(tmp_path, reader, user, first):
    path = tmp_path / "j.jsonl"
    line = user("move the backups to the NAS")
    path.write_text(first + "\n" + line[:25], encoding="utf-8")
    one = reader(path, 0)
    assert not any(s.cls == "USER" and "NAS" in s.text for s in one.segments)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line[25:] + "\n")
    two = reader(path, one.end)
    assert ("USER", "move the backups to the NAS") in pairs(two)
    assert reader(path, two.end).segments == ()


@pytest.mark.parametrize(("reader", "user", "first"), FORMS)
def test_invalid_json_is_reported_and_the_rest_is_read(tmp_path, reader, user, first):
    path = tmp_path / "j.jsonl"
    path.write_text(
        first + "\n{this is not json\n[1, 2]\n" + user("keep the old router") + "\n",
        encoding="utf-8",
    )
    read = reader(path, 0)
    assert ("USER", "keep the old router") in pairs(read)
    assert read.skipped.get("bad json") == 1 and read.skipped.get("not an object") == 1
    assert read.fatal == ""


@pytest.mark.parametrize(("reader", "user", "first"), FORMS)
def test_one_invalid_utf8_byte_keeps_the_record(tmp_path, reader, user, first):
    path = tmp_path / "j.jsonl"
    line = user("the fan curve Xstarts at 30 percent").encode().replace(b"X", b"\xff")
    path.write_bytes(first.encode() + b"\n" + line + b"\n")
    read = reader(path, 0)
    (said,) = [s.text for s in read.segments if s.cls == "USER" and "fan curve" in s.text]
    assert said == "the fan curve \ufffdstarts at 30 percent"
    assert any(n.kind == REPAIRED for n in read.notes)
    assert not read.skipped


@pytest.mark.parametrize(("reader", "user", "first"), FORMS)
def test_lone_surrogates_are_replaced_so_nothing_fails_to_encode(tmp_path, reader, user, first):
    path = tmp_path / "j.jsonl"
    line = user("PLACEHOLDER keep the spare disk").replace("PLACEHOLDER", "\\ud800")
    path.write_text(first + "\n" + line + "\n", encoding="utf-8")
    read = reader(path, 0)
    (said,) = [s.text for s in read.segments if s.cls == "USER" and "spare disk" in s.text]
    assert said == "\ufffd keep the spare disk"
    for s in read.segments:
        s.text.encode("utf-8")
        s.session_id.encode("utf-8")


def test_a_lone_surrogate_does_not_crash_the_gate_cli(tmp_path):
    journal = tmp_path / "s.jsonl"
    journal.write_text(
        '{"type": "user", "sessionId": "s", "message": {"content": "\\udc80 the spare disk stays in the drawer"}}\n'
    )
    cands = tmp_path / "c.json"
    cands.write_text(
        json.dumps(
            {
                "candidates": [
                    {
                        "kind": "fact",
                        "title": "Spare disk in the drawer",
                        "description": "where the spare disk is",
                        "body": "The spare disk stays in the drawer.",
                        "quotes": ["[USER] the spare disk stays in the drawer"],
                        "tags": [],
                        "belongs_because": "",
                        "keep": "",
                        "may_fade": "",
                    }
                ]
            }
        )
    )
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "kura_core",
            "gate",
            "--journal",
            str(journal),
            "--candidates",
            str(cands),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "KEPT" in out.stdout and "internal error" not in out.stderr


# ---------------------------------------------------------------------------- whole files


@pytest.mark.parametrize("reader", list(ADAPTERS.values()), ids=list(ADAPTERS))
def test_an_empty_file_is_nothing_to_read(tmp_path, reader):
    path = tmp_path / "empty"
    path.write_bytes(b"")
    read = reader(path, 0)
    assert read.segments == () and read.end == 0 and read.fatal == ""


def test_an_empty_file_is_named_by_its_suffix_only(tmp_path):
    (tmp_path / "e.jsonl").write_bytes(b"")
    (tmp_path / "e.md").write_bytes(b"")
    (tmp_path / "e.log").write_bytes(b"")
    assert guess_adapter(tmp_path / "e.jsonl") == "claude"
    for name in ("e.md", "e.log"):  # never "text" by elimination
        with pytest.raises(JournalError, match="empty"):
            guess_adapter(tmp_path / name)


@pytest.mark.parametrize(
    "reader",
    [read_claude, read_codex, read_gemini, read_evidence, read_aider, read_text, read_opencode]
    + [ADAPTERS[n] for n in ("cline", "continue", "copilot", "copilot-legacy", "cursor")]
    + [ADAPTERS[n] for n in ("specstory", "kimi", "qwen")],
    ids=["claude", "codex", "gemini", "evidence", "aider", "text", "opencode"]
    + ["cline", "continue", "copilot", "copilot-legacy", "cursor", "specstory", "kimi", "qwen"],
)
def test_utf16_is_refused_with_what_to_do(tmp_path, reader):
    path = tmp_path / "s.jsonl"
    path.write_text(claude_user("hello there") + "\n", encoding="utf-16")
    read = reader(path, 0)
    assert read.segments == () and read.end == 0
    assert "UTF-16" in read.fatal and "iconv" in read.fatal
    with pytest.raises(JournalError, match="UTF-16"):
        guess_adapter(path)


def test_pretty_printed_records_are_refused_not_read_as_nothing(tmp_path):
    path = tmp_path / "s.jsonl"
    rows = [
        {"type": "user", "sessionId": "s", "message": {"content": "one"}},
        {"type": "user", "sessionId": "s", "message": {"content": "two"}},
    ]
    path.write_text("\n".join(json.dumps(r, indent=2) for r in rows) + "\n")
    for reader in (read_claude, read_codex, read_evidence):
        read = reader(path, 0)
        assert read.segments == () and "spread over many lines" in read.fatal
    with pytest.raises(JournalError, match="pretty-printed"):
        guess_adapter(path)


def test_a_transcript_of_another_agent_is_refused_by_name(tmp_path):
    codex = tmp_path / "a.jsonl"
    shutil.copyfile(CODEX, codex)
    read = read_claude(codex, 0)
    assert (
        read.segments == ()
        and "not a Claude Code transcript" in read.fatal
        and "codex" in read.fatal
    )
    claude = tmp_path / "b.jsonl"
    shutil.copyfile(FIX / "claude_session.jsonl", claude)
    read = read_codex(claude, 0)
    assert "not a Codex rollout" in read.fatal and "claude" in read.fatal


def test_an_unrecognised_file_is_an_error_naming_the_adapters(tmp_path):
    odd = tmp_path / "odd.jsonl"
    odd.write_text('{"kind": "metric", "value": 3}\n{"kind": "metric", "value": 4}\n')
    blob = tmp_path / "blob.bin"
    blob.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 10)
    for path in (odd, blob):
        with pytest.raises(JournalError) as err:
            guess_adapter(path)
        for name in ("claude", "codex", "gemini", "opencode", "aider", "evidence", "text"):
            assert name in str(err.value)


def test_a_multi_megabyte_line_is_read_whole_and_the_mark_moves(tmp_path):
    path = tmp_path / "big.jsonl"
    big = "row 42 ok\n" * 300_000  # about 3 MB of tool output on one line
    lines = [
        json.dumps(
            {
                "type": "assistant",
                "sessionId": "s",
                "message": {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "t1",
                            "name": "Bash",
                            "input": {"command": "seq-report"},
                        }
                    ]
                },
            }
        ),
        json.dumps(
            {
                "type": "user",
                "sessionId": "s",
                "message": {
                    "content": [{"type": "tool_result", "tool_use_id": "t1", "content": big}]
                },
            }
        ),
        claude_user("that is enough rows"),
    ]
    path.write_text("\n".join(lines) + "\n")
    mark, got = 0, []
    while mark < path.stat().st_size:
        step = read_claude(path, mark, limit_bytes=4096)
        assert step.end > mark
        got += pairs(step)
        mark = step.end
    assert [c for c, _ in got] == ["ACT", "TOOL", "USER"]
    assert len(got[1][1]) == len(big.strip())


# ---------------------------------------------------------------------------- rewritten files


def test_a_saved_gemini_chat_holds_back_a_turn_whose_tools_still_run(tmp_path):
    path = tmp_path / "session-x.json"
    chat = json.loads((next((FIX / "gemini").glob("*.json"))).read_text())
    last = chat["messages"][1]
    last["toolCalls"][-1]["status"] = "executing"
    del last["toolCalls"][-1]["result"]
    chat["messages"] = chat["messages"][:2]
    path.write_text(json.dumps(chat))
    first = read_gemini(path, 0)
    assert first.end == 1 and [s.cls for s in first.segments] == ["TOOL", "USER"]
    last["toolCalls"][-1]["status"] = "error"
    last["toolCalls"][-1]["result"] = [
        {
            "functionResponse": {
                "id": "c8",
                "name": "run_shell_command",
                "response": {"error": "exit 2"},
            }
        }
    ]
    path.write_text(json.dumps(chat))
    second = read_gemini(path, first.end)
    assert second.start == 1 and second.end == 2
    assert ("TOOL", "exit 2") in pairs(second)


def test_a_saved_chat_being_rewritten_or_shortened_is_reported(tmp_path):
    path = tmp_path / "session-y.json"
    path.write_text('{"sessionId": "s", "projectHash": "h", "messages": [{"id": "1", "ty')
    read = read_gemini(path, 0)
    assert read.segments == () and read.end == 0 and "read again later" in read.notes[0].reason
    path.write_text(json.dumps({"sessionId": "s", "projectHash": "h", "messages": []}))
    assert read_gemini(path, 5).notes[0].reason == "journal shorter than watermark"


def test_a_gemini_stream_yields_a_rerecorded_message_only_once(tmp_path):
    src = next((FIX / "gemini").glob("*.jsonl"))
    whole = read_gemini(src, 0)
    texts = [s.text for s in whole.segments]
    assert texts.count("run_shell_command: heatctl set night 18") == 1
    # reading line by line gives the same segments as one read
    got = []
    for seq in range(whole.end):
        path = tmp_path / "g.jsonl"
        lines = src.read_text().splitlines(keepends=True)[: seq + 1]
        path.write_text("".join(lines))
        got += pairs(read_gemini(path, seq))
    assert got == pairs(whole)


def test_opencode_storage_holds_back_an_unfinished_reply(tmp_path):
    root = tmp_path / "oc"
    shutil.copytree(FIX / "opencode" / "storage", root / "storage")
    session = root / "storage" / "session" / "prj1" / "ses_7f3a2b1c0d9eXyZ.json"
    msg = root / "storage" / "message" / "ses_7f3a2b1c0d9eXyZ" / "msg_04.json"
    info = json.loads(msg.read_text())
    del info["time"]["completed"], info["finish"]
    msg.write_text(json.dumps(info))
    read = read_opencode(session, 0)
    assert read.end == 3 and "Done: refresh is 30s." not in [s.text for s in read.segments]
    info["time"]["completed"] = info["time"]["created"] + 5
    msg.write_text(json.dumps(info))
    assert pairs(read_opencode(session, read.end)) == [("SELF", "Done: refresh is 30s.")]


def _opencode_db(path: Path) -> None:
    export = json.loads((FIX / "opencode" / "export-ses_7f3a2b1c.json").read_text())
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, title TEXT);
        CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER,
                              time_updated INTEGER, data TEXT);
        CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT,
                           time_created INTEGER, time_updated INTEGER, data TEXT);
    """)
    sid = export["info"]["id"]
    con.execute("INSERT INTO session VALUES (?, NULL, ?)", (sid, "t"))
    con.execute("INSERT INTO session VALUES ('ses_child', ?, 'c')", (sid,))
    for m in export["messages"]:
        info = {k: v for k, v in m["info"].items() if k not in ("id", "sessionID")}
        created = m["info"]["time"]["created"]
        con.execute(
            "INSERT INTO message VALUES (?,?,?,?,?)",
            (m["info"]["id"], sid, created, created, json.dumps(info)),
        )
        for p in m["parts"]:
            data = {k: v for k, v in p.items() if k not in ("id", "sessionID", "messageID")}
            con.execute(
                "INSERT INTO part VALUES (?,?,?,?,?,?)",
                (p["id"], m["info"]["id"], sid, created, created, json.dumps(data)),
            )
    con.commit()
    con.close()


def test_the_opencode_database_is_read_by_creation_time(tmp_path):
    db = tmp_path / "opencode.db"
    _opencode_db(db)
    assert guess_adapter(db) == "opencode"
    read = read_opencode(db, 0)
    export = read_opencode(FIX / "opencode" / "export-ses_7f3a2b1c.json", 0)
    assert pairs(read) == pairs(export)
    assert read.unit == "seq" and read.end == max(s.start for s in read.segments) + 1
    assert read_opencode(db, read.end).segments == ()
    con = sqlite3.connect(db)
    t = read.end + 10_000
    con.execute(
        "INSERT INTO message VALUES ('msg_09', 'ses_child', ?, ?, ?)",
        (t, t, json.dumps({"role": "user", "time": {"created": t}})),
    )
    con.execute(
        "INSERT INTO part VALUES ('prt_09', 'msg_09', 'ses_child', ?, ?, ?)",
        (t, t, json.dumps({"type": "text", "text": "NOTHUMAN prompt from the parent"})),
    )
    con.commit()
    con.close()
    more = read_opencode(db, read.end)
    assert pairs(more) == [("SELF", "NOTHUMAN prompt from the parent")]  # a child session


def test_aider_resumes_after_a_partial_reply(tmp_path):
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(
        "\n# aider chat started at 2025-01-01 10:00:00\n\n#### rotate the logs daily  \n\n"
        "NOTHUMAN I will add a logrotate rule"
    )
    one = read_aider(path, 0)
    assert pairs(one) == [("USER", "rotate the logs daily")]
    with open(path, "a") as fh:
        fh.write(".\n\n> Applied edit to logrotate.conf  \n")
    two = read_aider(path, one.end)
    assert pairs(two) == [
        ("SELF", "NOTHUMAN I will add a logrotate rule."),
        ("TOOL", "Applied edit to logrotate.conf"),
    ]
    assert all(s.session_id == "2025-01-01 10:00:00" for s in two.segments)


# ---------------------------------------------------------------------------- inspect


def test_inspect_lists_every_skipped_record_with_its_reason():
    got = inspect(FIX / "claude_session.jsonl")
    assert got.adapter == "claude" and got.unit == "byte" and got.fatal == ""
    reasons = [(n.kind, n.reason) for n in got.notes]
    assert ("skipped", "bad json") in reasons and ("skipped", "not an object") in reasons
    assert ("ignored", "session summary (written by a model)") in reasons
    positions = [pos for pos, _, _ in got.entries()]
    assert positions == sorted(positions)
    js = got.to_json()
    assert js["classes"]["USER"] == 2 and js["skipped"] == {"bad json": 1, "not an object": 1}
    assert {"cls", "kind", "start", "end", "unit", "text"} <= set(js["segments"][0])


def test_segment_context_opens_the_stretch_around_a_quote():
    read = read_claude(FIX / "claude_v2_session.jsonl", 0)
    (target,) = [s for s in read.segments if s.text == "40 percent"]
    got = segment_context(FIX / "claude_v2_session.jsonl", target.start, unit="byte", radius=2)
    focus = [got.segments[i] for i in got.focus]
    assert [s.text for s in focus] == ["NOTHUMAN Which duty cycle should stay?", "40 percent"]
    assert len(got.segments) == len(focus) + 4
    with pytest.raises(JournalError, match="seq"):
        segment_context(FIX / "claude_v2_session.jsonl", target.start, unit="seq")
    seq = segment_context(FIX / "opencode" / "export-ses_7f3a2b1c.json", 2, radius=1)
    assert [seq.segments[i].text for i in seq.focus] == ["thanks, that's it for today"]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kura_core", *args], capture_output=True, text=True, timeout=120
    )


def test_journal_inspect_cli(tmp_path):
    out = run_cli("journal", "inspect", str(FIX / "claude_session.jsonl"))
    assert out.returncode == 0, out.stderr
    assert "claude adapter" in out.stdout and "skipped  bad json" in out.stdout
    assert "[USER]" in out.stdout
    js = run_cli("journal", "inspect", str(CODEX), "--json")
    data = json.loads(js.stdout)
    assert data["adapter"] == "codex" and data["unit"] == "byte" and data["segments"]
    utf16 = tmp_path / "s.jsonl"
    utf16.write_text(claude_user("hi") + "\n", encoding="utf-16")
    bad = run_cli("journal", "inspect", str(utf16))
    assert bad.returncode == 1 and "UTF-16" in bad.stderr + bad.stdout
    forced = run_cli("journal", "inspect", str(utf16), "--adapter", "claude")
    assert forced.returncode == 1 and "UTF-16" in forced.stdout
    gate = run_cli(
        "gate", "--journal", str(utf16), "--candidates", str(utf16), "--adapter", "claude"
    )
    assert gate.returncode == 1 and "UTF-16" in gate.stderr
    ctx = run_cli("journal", "context", str(FIX / "claude_session.jsonl"), "--at", "849", "--json")
    assert (
        json.loads(ctx.stdout)["segments"][0]["text"]
        == "the archive goes on the slow disk from now on"
    )


def test_an_opencode_export_with_a_status_line_before_it_is_still_read(tmp_path):
    src = FIX / "opencode" / "export-ses_7f3a2b1c.json"
    path = tmp_path / "session.txt"
    path.write_text("Exporting session: ses_7f3a2b1c0d9eXyZ\n" + src.read_text())
    assert guess_adapter(path) == "opencode"
    assert pairs(read_opencode(path, 0)) == pairs(read_opencode(src, 0))


def test_a_markdown_note_with_level_four_headings_is_not_aider(tmp_path):
    note = tmp_path / "notes.md"
    note.write_text(
        "# Lab\n\n#### Fans\n\nThe top card runs a 30% floor.\n\n> quoted from the manual\n"
    )
    with pytest.raises(JournalError, match="cannot tell which agent"):
        guess_adapter(note)  # a note is text only when named: never "everything is USER"


def test_a_gemini_call_cancelled_with_no_result_is_answered_by_its_status(tmp_path):
    """A call the person cancelled leaves no result in a saved chat, only its status: the
    status stands as the call's result, marked as an error, so nothing reads it as run."""
    path = tmp_path / "session-c.json"
    chat = json.loads((next((FIX / "gemini").glob("*.json"))).read_text())
    last = chat["messages"][1]
    last["toolCalls"][-1]["status"] = "cancelled"
    del last["toolCalls"][-1]["result"]
    last["toolCalls"][-1].pop("resultDisplay", None)
    chat["messages"] = chat["messages"][:2]
    path.write_text(json.dumps(chat))
    segs = read_gemini(path, 0).segments
    acts = [i for i, s in enumerate(segs) if s.cls == "ACT"]
    after = segs[acts[-1] + 1]
    assert after.cls == "TOOL" and after.text == "cancelled"
    assert after.kind.endswith("(error)")
