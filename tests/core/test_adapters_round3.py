"""Crush, Zed, Amp, cursor-agent, Antigravity / Cascade and DeepSeek Harness journals, the
read-only way databases are opened, and the host wrappers that never pass as the person."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from kura_core.distill.journals import (
    ADAPTERS,
    JournalRoot,
    databases,
    discover,
    guess_adapter,
    hostwords,
)
from kura_core.distill.journals.antigravity import read_antigravity
from kura_core.distill.journals.base import HELD, IGNORED, JournalError
from kura_core.distill.journals.crush import read_crush
from kura_core.distill.journals.cursor_agent import walk
from kura_core.distill.journals.zed import read_zed

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "journals"
CRUSH = FIXTURES / "crush" / ".crush" / "crush.db"
ZED = FIXTURES / "zed" / "threads" / "threads.db"
AMP = FIXTURES / "amp" / "threads" / "T-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001.json"
CURSOR = next((FIXTURES / "cursor-agent").rglob("store.db"))
ANTIGRAVITY = FIXTURES / "antigravity" / "2026-01-27_map_crm_chat.md"
DSH = next((FIXTURES / "deepseek").rglob("session.jsonl.zstd"))
LATER = 4e9


def users(read) -> list[str]:
    return [s.text for s in read.segments if s.cls == "USER"]


def classes(read) -> set[str]:
    return {s.cls for s in read.segments}


# --------------------------------------------------------------------------- each format


def test_each_new_fixture_is_told_from_its_content():
    found = {p: guess_adapter(p) for p in (CRUSH, ZED, AMP, CURSOR, ANTIGRAVITY, DSH)}
    assert found == {
        CRUSH: "crush",
        ZED: "zed",
        AMP: "amp",
        CURSOR: "cursor-agent",
        ANTIGRAVITY: "antigravity",
        DSH: "deepseek",
    }


def test_crush_reads_the_person_the_agent_and_the_tools():
    read = read_crush(CRUSH, 0, now=LATER)
    assert users(read) == [
        "Add a --dry-run flag to scripts/deploy.sh so it prints the rsync command instead "
        "of running it.",
        "Also the staging host is called stage-2 now, not stage-1.",
    ]
    sub = [s for s in read.segments if s.session_id == "s2"]
    assert [s.cls for s in sub] == ["SELF", "SELF"]  # a sub-agent's prompt is the parent's
    assert {"ACT", "TOOL", "SELF"} <= classes(read)
    assert any(s.kind == "summary" for s in read.segments)
    assert not any("Find the key" in s.text or "read it first" in s.text for s in read.segments)


def test_crush_watermark_is_the_message_rowid(tmp_path):
    db = tmp_path / "crush.db"
    shutil.copy(CRUSH, db)
    first = read_crush(db, 0, now=LATER)
    con = sqlite3.connect(db)
    parts = json.dumps([{"type": "text", "data": {"text": "Ship it on Friday."}}])
    con.execute(
        "INSERT INTO messages (id, session_id, role, parts, created_at, updated_at, finished_at)"
        " VALUES ('new', 's1', 'user', ?, 1, 1, 1)",
        (parts,),
    )
    con.commit()
    con.close()
    again = read_crush(db, first.end, now=LATER)
    assert users(again) == ["Ship it on Friday."]
    assert again.records == 1 and again.start == first.end


def test_crush_holds_an_unfinished_reply_then_reads_it(tmp_path):
    db = tmp_path / "crush.db"
    shutil.copy(CRUSH, db)
    con = sqlite3.connect(db)
    parts = json.dumps([{"type": "text", "data": {"text": "Working on"}}])
    now = time.time()
    con.execute(
        "INSERT INTO messages (id, session_id, role, parts, created_at, updated_at, finished_at)"
        " VALUES ('busy', 's1', 'assistant', ?, ?, ?, NULL)",
        (parts, int(now), int(now)),
    )
    con.commit()
    con.close()
    fresh = read_crush(db, 0, now=now)
    assert fresh.held == 1 and "Working on" not in [s.text for s in fresh.segments]
    assert any(n.kind == HELD for n in fresh.notes)
    quiet = read_crush(db, fresh.end, now=now + 3600)
    assert [s.text for s in quiet.segments] == ["Working on"]


def test_zed_reads_threads_and_their_attachments_apart():
    read = read_zed(ZED, 0, now=LATER)
    assert users(read) == [
        "What does the build script do?",
        "Make the upload retry three times with backoff; never retry on a 4xx.",
        "Good. The staging bucket is uploads-stage, not uploads-test.",
    ]
    mention = [s for s in read.segments if s.kind.startswith("mention")]
    assert mention and all(s.cls == "TOOL" for s in mention)
    child = [s for s in read.segments if s.session_id == "t-child"]
    assert child and all(s.cls == "SELF" for s in child)


def test_zed_watermark_is_the_update_time_and_a_fresh_thread_waits(tmp_path):
    db = tmp_path / "threads.db"
    shutil.copy(ZED, db)
    first = read_zed(db, 0, now=LATER)
    assert first.records == 3
    assert read_zed(db, first.end, now=LATER).records == 0
    con = sqlite3.connect(db)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    thread = {
        "title": "t",
        "version": "0.3.0",
        "updated_at": stamp,
        "messages": [{"User": {"id": "u", "content": [{"Text": "Keep the retries."}]}}],
    }
    con.execute(
        "UPDATE threads SET updated_at = ?, data_type = 'json', data = ? WHERE id = 't-old'",
        (stamp, json.dumps(thread)),
    )
    con.commit()
    con.close()
    fresh = read_zed(db, first.end, now=time.time())
    assert fresh.held == 1 and not fresh.segments
    later = read_zed(db, first.end, now=time.time() + 3600)
    assert users(later) == ["Keep the retries."]


def test_amp_reads_the_person_and_never_a_host_block():
    read = ADAPTERS["amp"](AMP, 0)
    assert users(read) == [
        "fix the loop bound in src/a.rs, it skips the last row",
        "We never use unsafe in this crate.",
    ]
    assert not any(
        "system-reminder" in s.text or "opened src/b.rs" in s.text
        for s in read.segments
        if s.cls == "USER"
    )
    errors = [s.text for s in read.segments if s.cls == "TOOL"]
    assert "Save path already exists" in errors and "user pressed esc" in errors


def test_cursor_agent_reads_the_tree_in_order():
    read = ADAPTERS["cursor-agent"](CURSOR, 0)
    assert users(read) == [
        "Why does the health check return 503 after a deploy?",
        "OK. Our load balancer waits 60s before it routes traffic, so that is fine.",
    ]
    assert read.segments[-1].text == "Then the 503s are expected and harmless."
    assert read.records == 7 and read.end == 7
    assert not any("OS: linux" in s.text for s in read.segments)


def test_the_blob_walk_visits_each_blob_once_even_in_a_cycle():
    a, b = "aa" * 32, "bb" * 32
    blobs = {
        a: b"\x0a\x20" + bytes.fromhex(b) + b"\x0a\x20" + bytes.fromhex(a),
        b: b'{"role": "user", "content": "x"}',
    }
    assert [bid for bid, _ in walk(blobs, a)] == [b]


def test_antigravity_keeps_actions_out_of_the_person_words():
    read = read_antigravity(ANTIGRAVITY, 0)
    said = users(read)
    assert "Make sure to start the server." in said
    assert "Where is the full absolute path?" in said
    assert not any(line.startswith(("Viewed", "User accepted", "Edited")) for line in said)
    acts = [s.text for s in read.segments if s.cls == "ACT"]
    assert "User accepted the command `npm run dev`" in acts
    assert any("$assets" in a and "foreach" in a for a in acts)  # a command over many lines
    reply = [s.text for s in read.segments if s.cls == "SELF"]
    assert len(reply) == 1 and "(a heading quoted inside a code fence" in reply[0]


def test_deepseek_reads_only_the_person_source_as_the_person():
    read = ADAPTERS["deepseek"](DSH, 0)
    assert users(read) == [
        "Rename the config key timeout_s to timeout_seconds everywhere; keep reading the "
        "old key for one release.",
        "Thanks. We ship on Fridays only, so hold the release note until then.",
    ]
    texts = [s.text for s in read.segments]
    assert "I'll find every use of timeout_s." in texts  # chunks joined at the block end
    assert not any(
        "Relevant memory" in t or "Current runtime" in t or "Todo list" in t for t in texts
    )
    assert not any("Find the key first" in t for t in texts)  # reasoning is never read
    assert read.end == 21


def test_deepseek_waits_for_a_frame_still_being_written(tmp_path):
    raw = DSH.read_bytes()
    log = tmp_path / "session.jsonl.zstd"
    log.write_bytes(raw[:-7])  # the last frame cut short
    read = ADAPTERS["deepseek"](log, 0)
    assert read.held >= 1 and read.end <= 10
    assert not read.fatal
    log.write_bytes(raw)
    rest = ADAPTERS["deepseek"](log, read.end)
    assert rest.end == 21 and rest.start == read.end


def test_default_roots_find_each_agent_where_it_keeps_its_files(tmp_path):
    home = tmp_path
    places = {
        "amp": home / ".local/share/amp/threads/T-1.json",
        "zed": home / ".local/share/zed/threads/threads.db",
        "deepseek": home / ".dsh/sessions/w/s1/session.jsonl.zstd",
        "cursor-agent": home / ".cursor/chats/h/c1/store.db",
    }
    sources = {"amp": AMP, "zed": ZED, "deepseek": DSH, "cursor-agent": CURSOR}
    roots = []
    from kura_core.distill.journals import registry

    for name, path in places.items():
        path.parent.mkdir(parents=True)
        shutil.copy(sources[name], path)
        for root in registry.get(name).roots["linux"]:
            roots.append(JournalRoot(name, Path(root.replace("~", str(home)))))
    found = {(f.adapter, f.path) for f in discover(roots, forbidden_dirs=[])}
    assert found == set(places.items())


# --------------------------------------------------------------------------- databases


def _wal_db(path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA wal_autocheckpoint=0")
    con.executescript(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT);"
        "CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT, role TEXT, parts BLOB,"
        " created_at INTEGER, updated_at INTEGER, finished_at INTEGER);"
    )
    con.execute("INSERT INTO sessions VALUES ('s', NULL, 't')")
    con.commit()
    return con


def test_a_database_is_read_with_its_write_ahead_log_and_left_untouched(tmp_path):
    db = tmp_path / "crush.db"
    writer = _wal_db(db)
    parts = json.dumps([{"type": "text", "data": {"text": "only in the log"}}])
    writer.execute("INSERT INTO messages VALUES ('m', 's', 'user', ?, 1, 1, 1)", (parts,))
    writer.commit()  # committed to the -wal, never checkpointed: the writer stays open
    wal = db.with_name("crush.db-wal")
    assert wal.stat().st_size > 0
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (db, wal)}
    read = read_crush(db, 0, now=LATER)
    assert users(read) == ["only in the log"]
    after = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (db, wal)}
    assert after == before
    writer.close()


def test_a_database_the_read_only_open_cannot_reach_is_read_from_a_copy(tmp_path, monkeypatch):
    db = tmp_path / "crush.db"
    writer = _wal_db(db)
    parts = json.dumps([{"type": "text", "data": {"text": "from the copy"}}])
    writer.execute("INSERT INTO messages VALUES ('m', 's', 'user', ?, 1, 1, 1)", (parts,))
    writer.commit()
    real = sqlite3.connect

    def no_uri(target, *a, **kw):
        if kw.get("uri"):
            raise sqlite3.OperationalError("unable to open database file")
        return real(target, *a, **kw)

    monkeypatch.setattr(databases.sqlite3, "connect", no_uri)
    before = db.read_bytes()
    assert users(read_crush(db, 0, now=LATER)) == ["from the copy"]
    assert db.read_bytes() == before
    writer.close()


def test_a_missing_zstd_module_names_the_package(monkeypatch):
    monkeypatch.setattr(databases, "_zstd", lambda: None)
    with pytest.raises(JournalError, match="backports.zstd"):
        databases.unzstd(b"\x28\xb5\x2f\xfd")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(max_size=200), min_size=1, max_size=5), st.integers(0, 50))
def test_zstd_frames_decode_whole_or_stop_at_the_torn_one(chunks, cut):
    zstd = databases._zstd()
    frames = [zstd.compress(c) for c in chunks]
    data = b"".join(frames)
    assert databases.unzstd(data) == b"".join(chunks)
    torn = data[: max(0, len(data) - cut)] if cut else data
    if not torn:
        return
    got, whole = databases.unzstd_frames(torn)
    ends = [sum(len(f) for f in frames[: i + 1]) for i in range(len(frames))]
    assert whole == (len(torn) in ends)  # whole exactly when the cut falls between frames
    done = max((i + 1 for i, e in enumerate(ends) if e <= len(torn)), default=0)
    assert got == b"".join(chunks[:done])


# --------------------------------------------------------------------------- host words

person = st.text(st.characters(blacklist_characters="<>"), min_size=1, max_size=40).filter(
    lambda t: t.strip()
)
host = st.text(max_size=60)


@settings(max_examples=200, deadline=None)
@given(person, host, st.sampled_from(hostwords.HOST_TAGS), st.booleans())
def test_host_blocks_never_pass_as_the_person(words, inserted, tag, closed):
    name = tag.replace("_", "-") if len(inserted) % 2 else tag
    block = f"<{name}>{inserted}" + (f"</{name}>" if closed else "")
    got = hostwords.person_words(f"{words}\n{block}")
    assert got == words.strip()


@settings(max_examples=200, deadline=None)
@given(person, host, host)
def test_inside_a_wrapper_only_the_person_block_is_theirs(words, before, after):
    before, after = before.replace("<", "("), after.replace("<", "(")
    text = f"User steering update:\n{before}<user_input>\n{words}\n</user_input>\n{after}"
    assert hostwords.person_words(text) == words.strip()


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_person_words_never_adds_text(text):
    got = hostwords.person_words(text)
    assert len(got) <= len(text)
    if "<" not in text:
        assert got == text.strip()


# --------------------------------------------------------------------------- properties

blocks = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "tool_use", "tool_result", "thinking", "image", "x"])},
    optional={
        "text": st.text(max_size=30),
        "id": st.sampled_from(["a", "b"]),
        "name": st.sampled_from(["Bash", "edit_file", "Read"]),
        "input": st.dictionaries(st.sampled_from(["cmd", "path"]), st.text(max_size=10)),
        "toolUseID": st.sampled_from(["a", "b"]),
        "run": st.fixed_dictionaries(
            {}, optional={"status": st.text(max_size=5), "result": st.text(max_size=10)}
        ),
    },
)
messages = st.lists(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["user", "assistant", "info", "?"])},
        optional={"content": st.lists(blocks, max_size=4) | st.text(max_size=20)},
    )
    | st.integers(),
    max_size=8,
)


def _accounted(read) -> None:
    with_segments = {s.start for s in read.segments}
    noted = {n.start for n in read.notes if n.kind in ("skipped", IGNORED)} - with_segments
    assert read.records == len(with_segments) + len(noted)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(messages)
def test_any_amp_thread_is_read_whole_and_accounted(tmp_path, msgs):
    path = tmp_path / "T-p.json"
    path.write_text(json.dumps({"v": 1, "id": "T-p", "created": 1, "messages": msgs}))
    read = ADAPTERS["amp"](path, 0)
    _accounted(read)
    assert read.records == len(msgs) and not read.fatal


events = st.lists(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(
                [
                    "user/message",
                    "assistant/chunk",
                    "assistant/message",
                    "tool/call",
                    "tool/result",
                    "turn/end",
                ]
            ),
            "data": st.fixed_dictionaries(
                {},
                optional={
                    "source": st.fixed_dictionaries({"kind": st.sampled_from(["user", "plugin"])}),
                    "content": st.lists(
                        st.fixed_dictionaries(
                            {
                                "type": st.sampled_from(["text", "tool-result"]),
                                "text": st.text(max_size=9),
                            }
                        ),
                        max_size=2,
                    ),
                    "turn": st.integers(0, 2),
                    "step": st.integers(0, 2),
                    "chunk": st.fixed_dictionaries(
                        {
                            "type": st.sampled_from(["text-delta", "usage"]),
                            "text": st.text(max_size=9),
                        }
                    ),
                    "name": st.text(max_size=5),
                    "callId": st.sampled_from(["a", "b"]),
                },
            ),
        }
    ),
    max_size=12,
)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(events, st.integers(0, 12))
def test_any_deepseek_log_is_accounted_from_any_watermark(tmp_path, evs, start):
    zstd = databases._zstd()
    lines = [json.dumps({"type": "session", "version": 4, "id": "s", "delegationDepth": 0})]
    lines += [json.dumps({"seq": i + 1, "time": i, **e}) for i, e in enumerate(evs)]
    path = tmp_path / "session.jsonl.zstd"
    path.write_bytes(zstd.compress(("\n".join(lines) + "\n").encode()))
    old = time.time() - 7200
    os.utime(path, (old, old))
    read = ADAPTERS["deepseek"](path, start)
    _accounted(read)
    assert read.records == sum(1 for i in range(len(evs)) if i + 1 >= start)
    assert not any(s.cls == "USER" and s.text == "" for s in read.segments)


sections = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "### User Input",
                "### Planner Response",
                "```",
                "*Viewed [a](b) *",
                "*User accepted the command `ls`*",
                "plain words",
                "*Edited relevant file*",
            ]
        ),
        st.text(st.characters(codec="utf-8", exclude_characters="*#`<\x00"), max_size=20),
    ),
    max_size=15,
)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(sections)
def test_any_export_keeps_actions_out_of_the_person_words(tmp_path, parts):
    text = "# Chat Conversation\n\n### User Input\n\nhello\n\n" + "\n\n".join(
        f"{a}\n{b}" for a, b in parts
    )
    path = tmp_path / "chat.md"
    path.write_text(text)
    read = read_antigravity(path, 0)
    _accounted(read)
    for s in read.segments:
        if s.cls == "USER":
            assert "*Viewed" not in s.text and "User accepted" not in s.text


# --------------------------------------------------------------------------- misreadings

STEERING = (
    "User steering update:\n<user_input>\nskip the flaky upload test for now\n</user_input>\n"
    "Internal instruction: Re-evaluate the active plan using this user steering update.\n"
    "Classify it as ADD_TASK, MODIFY_TASK, CANCEL_TASK, or EXTRA_CONTEXT.\n"
    "Apply minimal-diff changes only to affected tasks and keep unaffected tasks active."
)


def test_a_gemini_steering_update_gives_only_the_person_words(tmp_path):
    chat = {
        "sessionId": "s",
        "projectHash": "f" * 64,
        "startTime": "2026-01-01T00:00:00Z",
        "lastUpdated": "2026-01-01T00:01:00Z",
        "messages": [
            {
                "id": "1",
                "timestamp": "2026-01-01T00:00:00Z",
                "type": "user",
                "content": "run the tests",
            },
            {"id": "2", "timestamp": "2026-01-01T00:00:30Z", "type": "user", "content": STEERING},
            {
                "id": "3",
                "timestamp": "2026-01-01T00:00:40Z",
                "type": "user",
                "content": [
                    {"text": STEERING},
                    {
                        "functionResponse": {
                            "name": "run_shell_command",
                            "response": {"output": "ok"},
                        }
                    },
                ],
            },
        ],
    }
    path = tmp_path / "session-2026-01-01T00-00-aaaaaaaa.json"
    path.write_text(json.dumps(chat))
    read = ADAPTERS[guess_adapter(path)](path, 0)
    assert users(read) == ["run the tests", *["skip the flaky upload test for now"] * 2]
    assert not any("Internal instruction" in s.text or "ADD_TASK" in s.text for s in read.segments)


def _qwen(tmp_path: Path, records: list[dict]) -> Path:
    base = {"sessionId": "s", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}
    path = tmp_path / "chats" / "s.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps({**base, **r}) + "\n" for r in records))
    return path


def test_a_qwen_slash_command_line_is_the_person_and_its_expansion_is_not(tmp_path):
    path = _qwen(
        tmp_path,
        [
            {
                "type": "system",
                "subtype": "slash_command",
                "uuid": "a",
                "systemPayload": {"phase": "invocation", "rawCommand": "/sp.plan use sqlite"},
            },
            {
                "type": "user",
                "uuid": "b",
                "message": {
                    "role": "user",
                    "parts": [{"text": "You are a planner. Given the spec…"}],
                },
            },
            {
                "type": "user",
                "subtype": "slash_command",
                "uuid": "c",
                "message": {
                    "role": "user",
                    "parts": [{"text": "/sp.tasks Break down the plan into tasks"}],
                },
            },
            {
                "type": "user",
                "uuid": "d",
                "message": {"role": "user", "parts": [{"text": STEERING}]},
            },
        ],
    )
    read = ADAPTERS["qwen"](path, 0)
    assert users(read) == [
        "/sp.plan use sqlite",
        "/sp.tasks Break down the plan into tasks",
        "skip the flaky upload test for now",
    ]
    assert any("expanded template" in n.reason for n in read.notes)


def test_aider_confirm_prompts_are_aider_not_the_person(tmp_path):
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(
        "\n# aider chat started at 2026-01-01 10:00:00\n\n#### add retries to upload.py  \n\n"
        "Sure, editing upload.py.\n\n"
        "#### Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]:  - all  \n\n"
        "> Add upload.py to the chat? (Y)es/(N)o [Yes]: y  \n"
    )
    read = ADAPTERS["aider"](path, 0)
    assert users(read) == ["add retries to upload.py"]
    assert any(s.kind == "aider confirm prompt" and s.cls == "TOOL" for s in read.segments)


def test_a_cline_tool_result_in_two_text_blocks_is_read(tmp_path):
    history = [
        {
            "role": "user",
            "content": [{"type": "text", "text": "<task>\nfix the flaky test\n</task>"}],
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "<read_file>\n<path>t.py</path>\n</read_file>"}],
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "[read_file for 't.py'] Result:"},
                {"type": "text", "text": "def test_upload():\n    assert retry(3)"},
                {"type": "text", "text": "<feedback>\nthe retry count must stay at 3\n</feedback>"},
                {
                    "type": "text",
                    "text": "<environment_details>\n# VSCode Visible Files\nt.py\n</environment_details>",
                },
            ],
        },
    ]
    path = tmp_path / "1770000000000" / "api_conversation_history.json"
    path.parent.mkdir()
    path.write_text(json.dumps(history))
    read = ADAPTERS["cline"](path, 0)
    assert users(read) == ["fix the flaky test", "the retry count must stay at 3"]
    results = [s.text for s in read.segments if s.start == 2 and s.cls != "USER"]
    assert results == ["def test_upload():\n    assert retry(3)"]
    assert not any("VSCode Visible Files" in s.text for s in read.segments)


# --------------------------------------------------------------------------- database parsers

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=10,
)
crush_parts = st.lists(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(
                [
                    "text",
                    "reasoning",
                    "tool_call",
                    "tool_result",
                    "binary",
                    "image_url",
                    "finish",
                    "shell_command",
                    "?",
                ]
            )
        },
        optional={
            "data": st.dictionaries(
                st.sampled_from(
                    [
                        "text",
                        "id",
                        "name",
                        "input",
                        "tool_call_id",
                        "content",
                        "command",
                        "output",
                        "finished",
                        "Path",
                        "MIMEType",
                    ]
                ),
                json_values,
                max_size=4,
            )
        },
    )
    | json_values,
    max_size=5,
)


@settings(max_examples=120, deadline=None)
@given(crush_parts, st.sampled_from(["user", "assistant", "tool", "system"]), st.booleans())
def test_any_crush_parts_are_decoded_without_raising(parts, role, child):
    from kura_core.distill.journals.crush import Row, _State, decode_parts, part_pieces

    got, why = decode_parts(json.dumps(parts))
    assert (got is None) == bool(why)
    state = _State({"s": child})
    for part in got or ():
        for piece in part_pieces(Row(1, "s", role, got), part, state):
            assert piece.cls in ("USER", "SELF", "ACT", "TOOL")
            assert piece.cls != "USER" or (role == "user" and not child)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=64))
def test_any_parts_column_bytes_are_refused_with_a_reason_or_read(raw):
    from kura_core.distill.journals.crush import decode_parts

    got, why = decode_parts(raw)
    assert got is not None or why


zed_messages = st.lists(
    st.one_of(
        st.just("Resume"),
        st.fixed_dictionaries(
            {
                "User": st.fixed_dictionaries(
                    {
                        "content": st.lists(
                            st.one_of(
                                st.fixed_dictionaries({"Text": st.text(max_size=15)}),
                                st.fixed_dictionaries(
                                    {
                                        "Mention": st.fixed_dictionaries(
                                            {
                                                "uri": st.text(max_size=5),
                                                "content": st.text(max_size=15),
                                            }
                                        )
                                    }
                                ),
                                json_values,
                            ),
                            max_size=3,
                        )
                    }
                )
            }
        ),
        st.fixed_dictionaries(
            {
                "Agent": st.fixed_dictionaries(
                    {
                        "content": st.lists(
                            st.one_of(
                                st.fixed_dictionaries({"Text": st.text(max_size=15)}),
                                st.fixed_dictionaries(
                                    {
                                        "ToolUse": st.fixed_dictionaries(
                                            {
                                                "id": st.sampled_from(["a", "b"]),
                                                "name": st.sampled_from(["edit_file", "terminal"]),
                                                "input": json_values,
                                            }
                                        )
                                    }
                                ),
                                json_values,
                            ),
                            max_size=3,
                        ),
                        "tool_results": st.dictionaries(
                            st.sampled_from(["a", "b"]), json_values, max_size=2
                        ),
                    }
                )
            }
        ),
        json_values,
    ),
    max_size=6,
)


@settings(max_examples=120, deadline=None)
@given(zed_messages, st.booleans())
def test_any_zed_thread_gives_the_person_only_their_text(msgs, child):
    from kura_core.distill.journals.zed import thread_pieces

    said = {
        item["Text"].strip()
        for m in msgs
        if isinstance(m, dict) and isinstance(m.get("User"), dict)
        for item in m["User"]["content"]
        if isinstance(item, dict) and isinstance(item.get("Text"), str)
    }
    for piece in thread_pieces({"messages": msgs}, child=child):
        if piece.cls == "USER":
            assert not child and any(piece.text in text for text in said)


def test_a_long_chain_of_blobs_is_walked_in_linear_time():
    from tests.core.linear_inputs import grows_linearly

    def run(text: str) -> None:
        n = len(text)
        ids = [f"{i:064x}" for i in range(n)]
        blobs = {
            ids[i]: b"\x0a\x20" + bytes.fromhex(ids[i + 1]) + b'{"role":"user","content":"x"}'
            for i in range(n - 1)
        }
        blobs[ids[-1]] = b'{"role": "user", "content": "end"}'
        assert len(walk(blobs, ids[0])) == n

    growth = grows_linearly(run, lambda n: "x" * n, 2_000)
    assert growth.ok, growth.why


@pytest.mark.parametrize("fixture", [CRUSH, ZED, CURSOR], ids=["crush", "zed", "cursor-agent"])
def test_every_database_adapter_leaves_a_live_database_as_it_found_it(tmp_path, fixture):
    db = tmp_path / fixture.name
    shutil.copy(fixture, db)
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE probe (x)")
    writer.execute("INSERT INTO probe VALUES (1)")
    writer.commit()  # in the log, not checkpointed, the writer still open
    # the database and its log: the -shm index is shared memory every reader takes its
    # read lock in (SQLite's protocol between a writer and its readers), not stored data
    files = [db, db.with_name(db.name + "-wal")]
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files}
    name = guess_adapter(db)
    read = ADAPTERS[name](db, 0)
    assert read.records and not read.fatal
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files} == before
    writer.close()


def test_a_database_with_common_table_names_is_not_claimed(tmp_path):
    db = tmp_path / "app.db"
    con = sqlite3.connect(db)
    con.executescript(
        "CREATE TABLE blobs (id TEXT, data BLOB); CREATE TABLE meta (key TEXT, value TEXT);"
        "INSERT INTO meta VALUES ('0', 'not ours');"
        "CREATE TABLE threads (id TEXT, title TEXT);"
    )
    con.commit()
    con.close()
    with pytest.raises(JournalError, match="SQLite database"):
        guess_adapter(db)


def test_crush_projects_are_found_through_its_project_list(tmp_path, monkeypatch):
    from kura_core.distill.journals import default_roots

    data = tmp_path / "data"
    projects = []
    for name in ("api", "web"):
        folder = tmp_path / name / ".crush"
        folder.mkdir(parents=True)
        shutil.copy(CRUSH, folder / "crush.db")
        projects.append({"path": str(tmp_path / name), "data_dir": str(folder)})
    (data / "crush").mkdir(parents=True)
    (data / "crush" / "projects.json").write_text(json.dumps({"projects": projects}))
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.delenv("CRUSH_GLOBAL_DATA", raising=False)
    roots = default_roots("linux")["crush"]
    assert roots == tuple(p["data_dir"] for p in projects)
    assert "crush" not in default_roots("win32")
    found = discover([JournalRoot("crush", Path(r)) for r in roots], forbidden_dirs=[])
    assert sorted(f.path.parent.parent.name for f in found) == ["api", "web"]


def test_a_delegated_deepseek_session_has_the_parent_agent_as_its_user(tmp_path):
    lines = [
        {"type": "session", "version": 4, "id": "child", "delegationDepth": 1},
        {
            "seq": 1,
            "time": 1,
            "type": "user/message",
            "data": {
                "source": {"kind": "user"},
                "content": [{"type": "text", "text": "list the callers"}],
            },
        },
    ]
    plain = tmp_path / "session.jsonl"
    plain.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert guess_adapter(plain) == "deepseek"
    read = ADAPTERS["deepseek"](plain, 0)
    assert [(s.cls, s.text) for s in read.segments] == [("SELF", "list the callers")]


def test_a_chat_with_its_agent_transcript_beside_is_read_once(tmp_path):
    home = tmp_path / ".cursor"
    store = home / "chats" / "h" / "ac437fdf-3e7e-4a54-98a4-7bb04fd3efc6" / "store.db"
    store.parent.mkdir(parents=True)
    shutil.copy(CURSOR, store)
    alone = ADAPTERS["cursor-agent"](store, 0)
    assert users(alone)  # no transcript: the store is the only copy
    chat = "ac437fdf-3e7e-4a54-98a4-7bb04fd3efc6"
    transcript = home / "projects" / "home-dev-api" / "agent-transcripts" / chat / f"{chat}.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text(
        json.dumps(
            {
                "role": "user",
                "message": {
                    "content": [{"type": "text", "text": "<user_query>\nWhy 503?\n</user_query>"}]
                },
            }
        )
        + "\n"
    )
    twice = ADAPTERS["cursor-agent"](store, 0)
    assert not twice.segments and twice.records == alone.records
    _accounted(twice)


def test_a_crush_read_from_a_watermark_still_knows_the_calls_before_it():
    whole = {(s.start, s.cls, s.kind) for s in read_crush(CRUSH, 0, now=LATER).segments}
    later = read_crush(CRUSH, 3, now=LATER)
    assert {(s.start, s.cls, s.kind) for s in later.segments} == {x for x in whole if x[0] >= 3}
    assert any(s.kind == "tool_result view" for s in later.segments)
