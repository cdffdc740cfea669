"""Journal adapters and discovery."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from kura_core.distill.journals import (
    ADAPTERS,
    DEFAULT_INCLUDE,
    UNITS,
    JournalError,
    JournalRoot,
    Read,
    discover,
    guess_adapter,
    read_claude,
    read_evidence,
    read_text,
)
from kura_core.errors import KuraError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "journals"
CLAUDE = FIXTURES / "claude_session.jsonl"
EVIDENCE = FIXTURES / "evidence.jsonl"
NOTES = FIXTURES / "notes.md"
CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "seed-retention" / "corpus.jsonl"


def pairs(read: Read) -> list[tuple[str, str]]:
    return [(s.cls, s.text) for s in read.segments]


def copy_to(tmp_path: Path, src: Path, name: str | None = None) -> Path:
    dst = tmp_path / (name or src.name)
    shutil.copyfile(src, dst)
    return dst


# ---------------------------------------------------------------------------- claude

CLAUDE_EXPECTED = [
    ("USER", "the archive goes on the slow disk from now on"),
    ("SELF", "Understood. I will check the disks first."),
    ("ACT", "Bash: df -h /data /scratch"),  # the command as typed, not a JSON dump
    ("TOOL", "/data 3.2T used 1.1T avail\n/scratch 900G used 120G avail"),
    ("ACT", "Task"),
    ("SELF", "survey"),  # the subagent's description and prompt are the agent's words
    ("SELF", "Look at the fan logs"),
    ("SELF", "Look at the fan logs and report the throughput figure"),  # sidechain prompt
    ("ACT", "Read: /var/log/fans.log"),  # sidechain tool call
    ("TOOL", "fan rpm 2400 steady"),  # sidechain tool output is still machine output
    ("SELF", "The fans look fine; throughput is probably 99 tok/s."),  # subagent report
    ("ACT", "Bash: uptime"),  # "!" shell input
    ("TOOL", "up 12 days, load 0.42"),
    (
        "SELF",
        "This session is being continued from a previous conversation that ran out of "
        "context. The user decided everything.",
    ),
    ("USER", "one index, always.\n[image]"),  # the image is noted where it was
    ("SELF", "Noted: 一つのインデックス。"),
]


def test_claude_classes_every_segment():
    read = read_claude(CLAUDE, 0)
    assert pairs(read) == CLAUDE_EXPECTED
    assert read.unit == "byte" and read.start == 0
    assert read.end == CLAUDE.stat().st_size
    assert read.records == 22
    assert dict(read.skipped) == {"bad json": 1, "not an object": 1}


def test_claude_skips_injected_and_hidden_text():
    texts = " ".join(s.text for s in read_claude(CLAUDE, 0).segments)
    assert texts.strip()
    for hidden in (
        "CLAUDE.md rules",  # system reminder
        "TodoWrite",  # reminder inside a real user turn
        "secret plan",  # thinking block
        "/clear",  # command wrapper
        "cleared",  # local command output
        "Caveat",  # isMeta entry
        "Request interrupted",
        "Disk layout talk",  # summary entry
        "hooks ran",  # system entry
    ):
        assert hidden not in texts


def test_claude_segments_locate_their_line():
    raw = CLAUDE.read_bytes()
    segments = read_claude(CLAUDE, 0).segments
    assert segments
    for seg in segments:
        line = raw[seg.start : seg.end]
        assert line.endswith(b"\n")
        entry = json.loads(line)
        assert entry["sessionId"] == seg.session_id
        assert entry["timestamp"] == seg.timestamp
        assert seg.source == str(CLAUDE)


def test_claude_subagent_file_is_self():
    read = read_claude(FIXTURES / "subagents" / "agent-a1.jsonl", 0)
    assert [s.cls for s in read.segments] == ["SELF", "SELF"]


def test_claude_partial_trailing_line_is_not_consumed(tmp_path):
    path = copy_to(tmp_path, CLAUDE)
    size = path.stat().st_size
    line = json.dumps({"type": "user", "message": {"content": "put it on the NAS instead"}})
    with open(path, "ab") as fh:
        fh.write(line[:25].encode())
    first = read_claude(path, 0)
    assert first.end == size
    assert pairs(first) == CLAUDE_EXPECTED
    with open(path, "ab") as fh:
        fh.write(line[25:].encode() + b"\n")
    second = read_claude(path, first.end)
    assert pairs(second) == [("USER", "put it on the NAS instead")]
    assert second.start == size and second.end == path.stat().st_size
    assert second.records == 1


def test_claude_resume_in_small_steps_equals_one_read():
    whole = read_claude(CLAUDE, 0)
    mark, pieces, steps = 0, [], 0
    while mark < whole.end:
        step = read_claude(CLAUDE, mark, limit_bytes=300)
        assert step.end > mark  # always progresses, even when a line is longer than the limit
        assert step.start == mark
        pieces.extend(step.segments)
        mark = step.end
        steps += 1
    assert steps > 3
    assert [(s.cls, s.text) for s in pieces] == CLAUDE_EXPECTED
    assert read_claude(CLAUDE, whole.end).segments == ()


def test_claude_watermark_inside_a_line_skips_the_fragment():
    raw = CLAUDE.read_bytes()
    first_nl = raw.index(b"\n")
    read = read_claude(CLAUDE, first_nl - 5)
    assert read.skipped["partial line at watermark"] == 1
    assert pairs(read) == CLAUDE_EXPECTED


def test_claude_watermark_past_the_end_is_reported():
    read = read_claude(CLAUDE, CLAUDE.stat().st_size + 100)
    assert read.segments == ()
    assert read.end == read.start
    assert read.skipped == {"journal shorter than watermark": 1}


def test_seed_retention_corpus_classes():
    read = read_claude(CORPUS, 0)
    assert [s.cls for s in read.segments] == [
        "USER",
        "ACT",
        "TOOL",
        "USER",
        "SELF",
        "USER",
        "ACT",
        "TOOL",
        "USER",
        "USER",
        "USER",
        "USER",
        "SELF",
        "USER",
        "USER",
        "USER",
    ]
    assert read.records == 16 and dict(read.skipped) == {}
    tool = [s.text for s in read.segments if s.cls == "TOOL"]
    assert tool[1] == "throughput 43.7 tok/s (was 12.4 tok/s before the fan install)"
    act = [s.text for s in read.segments if s.cls == "ACT"]
    assert act == ["Bash: df -h /data /scratch", "Bash: ./bench --iters 200"]
    # no sessionId in the corpus: the file stem stands in
    assert {s.session_id for s in read.segments} == {"corpus"}


# ---------------------------------------------------------------------------- evidence


def test_evidence_reads_valid_records_and_reports_the_rest():
    read = read_evidence(EVIDENCE, 0)
    assert pairs(read) == [
        ("USER", "put the archive on the NAS"),
        ("TOOL", "throughput 43.7 tok/s"),
        ("SELF", "I think one index is enough."),
        ("ACT", 'Bash: {"command": "df -h"}'),
    ]
    assert [(s.start, s.end) for s in read.segments] == [(0, 1), (1, 2), (10, 11), (11, 12)]
    assert read.unit == "seq" and read.end == 12 and read.records == 11
    assert dict(read.skipped) == {
        "bad json": 1,
        "missing schema_version": 1,
        "missing text": 1,
        "not an object": 1,
        "unknown class": 1,
        "unknown schema_version": 2,
    }
    assert read.segments[0].session_id == "s1"
    assert read.segments[0].timestamp == "2026-11-02T10:00:00Z"


def test_evidence_intake_report_never_echoes_payload():
    read = read_evidence(EVIDENCE, 0)
    assert len(read.skipped) >= 5  # the fixture's damaged records, each with a reason
    for key in read.skipped:
        assert "secret" not in key and "BOSS" not in key and "future" not in key


def test_evidence_resume_and_partial_line(tmp_path):
    path = copy_to(tmp_path, EVIDENCE)
    first = read_evidence(path, 0)
    record = json.dumps(
        {"schema_version": 1, "session_id": "s3", "class": "USER", "text": "new words"}
    )
    with open(path, "a") as fh:
        fh.write(record[:20])
    assert read_evidence(path, first.end).segments == ()
    assert read_evidence(path, first.end).end == first.end
    with open(path, "a") as fh:
        fh.write(record[20:] + "\n")
    second = read_evidence(path, first.end)
    assert pairs(second) == [("USER", "new words")]
    assert (second.start, second.end) == (12, 13)
    assert second.segments[0].start == 12


def test_evidence_watermark_past_the_end():
    read = read_evidence(EVIDENCE, 50)
    assert read.segments == () and read.end == 50
    assert read.skipped == {"journal shorter than watermark": 1}


# ---------------------------------------------------------------------------- text


def test_text_paragraphs_are_user():
    read = read_text(NOTES, 0)
    assert pairs(read) == [
        ("USER", "# Household notes"),
        ("USER", "The archive goes on the NAS.\nIt is mirrored nightly."),
        ("USER", "Never run the backup while the scanner is on."),
        ("USER", "Last paragraph about the fans."),
    ]
    raw = NOTES.read_bytes()
    second = read.segments[1]
    assert (
        raw[second.start : second.end].decode()
        == "The archive goes on the NAS.\nIt is mirrored nightly.\n"
    )
    assert read.end == len(raw) and read.records == 4 and read.unit == "byte"


def test_text_unfinished_last_paragraph_waits(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes(b"first para\n\nsecond para line one\nsecond para still being wri")
    read = read_text(path, 0)
    assert pairs(read) == [("USER", "first para")]
    assert read.end == len(b"first para\n\n")
    with open(path, "ab") as fh:
        fh.write(b"tten\n")
    again = read_text(path, read.end)
    assert pairs(again) == [("USER", "second para line one\nsecond para still being written")]
    assert again.end == path.stat().st_size


def test_text_final_paragraph_needs_a_newline(tmp_path):
    path = tmp_path / "n.md"
    path.write_bytes(b"only para")
    assert read_text(path, 0).segments == ()
    assert read_text(path, 0).end == 0
    path.write_bytes(b"only para\n")
    assert pairs(read_text(path, 0)) == [("USER", "only para")]


def test_text_resume_yields_only_new_paragraphs(tmp_path):
    path = copy_to(tmp_path, NOTES)
    first = read_text(path, 0)
    with open(path, "ab") as fh:
        fh.write("\n新しい段落です。\n".encode())
    second = read_text(path, first.end)
    assert pairs(second) == [("USER", "新しい段落です。")]


def test_text_crlf_and_bom(tmp_path):
    path = tmp_path / "w.txt"
    path.write_bytes("\ufeffline one\r\nline two\r\n\r\nnext\r\n".encode())
    assert pairs(read_text(path, 0)) == [("USER", "line one\nline two"), ("USER", "next")]


# ---------------------------------------------------------------------------- registry


def test_adapters_registry():
    assert ADAPTERS["claude"] is read_claude
    assert ADAPTERS["evidence"] is read_evidence
    assert ADAPTERS["text"] is read_text
    assert set(ADAPTERS) == {
        "claude",
        "codex",
        "gemini",
        "opencode",
        "aider",
        "evidence",
        "text",
    } | {
        "cline",
        "continue",
        "copilot",
        "copilot-legacy",
        "cursor",
        "specstory",
        "kimi",
        "qwen",
    } | {"crush", "amp", "zed", "deepseek", "cursor-agent", "antigravity"}
    assert set(UNITS) == set(ADAPTERS) == set(DEFAULT_INCLUDE)
    assert {UNITS[a] for a in ("claude", "codex", "aider", "text")} == {"byte"}
    assert {UNITS[a] for a in ("gemini", "opencode", "evidence")} == {"seq"}


def test_guess_adapter(tmp_path):
    assert guess_adapter(CLAUDE) == "claude"
    assert guess_adapter(EVIDENCE) == "evidence"
    with pytest.raises(JournalError, match="--adapter text"):
        guess_adapter(NOTES)  # plain text is never detected: its every paragraph is USER
    assert guess_adapter(FIXTURES / "gate_session.jsonl") == "claude"
    assert guess_adapter(FIXTURES / "gate_batch.jsonl") == "evidence"
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert guess_adapter(empty) == "claude"
    garbage_first = tmp_path / "g.jsonl"
    garbage_first.write_text('not json\n{"schema_version": 1, "class": "USER", "text": "x"}\n')
    assert guess_adapter(garbage_first) == "evidence"
    with pytest.raises(JournalError) as err:
        guess_adapter(tmp_path / "photo.png")
    assert isinstance(err.value, KuraError)
    assert "--adapter" in str(err.value)


# ---------------------------------------------------------------------------- discovery


def _touch(path: Path, text: str, mtime: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, ns=(mtime, mtime))
    return path


def test_discover_excludes_stores_links_and_hard_links(tmp_path):
    root = tmp_path / "projects"
    store = tmp_path / "store"
    nested_store = root / "inner-store"
    outside = tmp_path / "elsewhere"
    old = _touch(root / "a" / "old.jsonl", "{}\n", 1_000_000_000)
    new = _touch(root / "b" / "new.jsonl", "{}\n", 3_000_000_000)
    mid = _touch(root / "mid.jsonl", "{}\n", 2_000_000_000)
    _touch(root / "readme.txt", "not a transcript\n", 4_000_000_000)
    _touch(root / "skip" / "ignored.jsonl", "{}\n", 5_000_000_000)
    secret = _touch(store / "_still" / "log.jsonl", "{}\n", 6_000_000_000)
    _touch(nested_store / "x.jsonl", "{}\n", 6_000_000_000)
    target = _touch(outside / "shared.jsonl", "{}\n", 500_000_000)
    (root / "to-store.jsonl").symlink_to(secret)
    (root / "dir-to-store").symlink_to(store, target_is_directory=True)
    os.link(secret, root / "hard-to-store.jsonl")
    os.link(target, root / "hard-ok.jsonl")  # hard link, but not to a store file
    (root / "alias.jsonl").symlink_to(mid)  # same file twice: listed once

    found = discover(
        [JournalRoot("claude", root, exclude_glob="skip/*")],
        forbidden_dirs=[store, nested_store],
    )
    paths = [f.path for f in found]
    assert paths[:3] == [new, mid, old]
    assert root / "hard-ok.jsonl" in paths
    assert len(paths) == 4
    for f in found:
        assert f.adapter == "claude"
        assert f.size == f.path.stat().st_size
        assert f.mtime_ns == f.path.stat().st_mtime_ns


def test_discover_include_glob_and_missing_root(tmp_path):
    root = tmp_path / "notes"
    md = _touch(root / "a.md", "para\n", 1_000_000_000)
    txt = _touch(root / "b.txt", "para\n", 2_000_000_000)
    assert [f.path for f in discover([JournalRoot("text", root)], forbidden_dirs=[])] == [md]
    found = discover(
        [
            JournalRoot("text", root, include_glob="**/*.txt"),
            JournalRoot("text", tmp_path / "nope"),
        ],
        forbidden_dirs=[],
    )
    assert [f.path for f in found] == [txt]


def test_discover_root_inside_a_store_yields_nothing(tmp_path):
    store = tmp_path / "store"
    _touch(store / "journal" / "x.jsonl", "{}\n", 1_000_000_000)
    assert discover([JournalRoot("claude", store / "journal")], forbidden_dirs=[store]) == []


def test_claude_subagent_report_without_its_call_in_view(tmp_path):
    """The Task call may lie before the watermark; the result entry still says whose
    words these are."""
    path = tmp_path / "s.jsonl"
    entry = {
        "type": "user",
        "message": {
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_x", "content": "all good, 7 of 7"}
            ]
        },
        "toolUseResult": {"status": "completed", "agentId": "ab12", "totalToolUseCount": 3},
    }
    plain = {
        "type": "user",
        "message": {
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_y", "content": "7 of 7 passed"}
            ]
        },
        "toolUseResult": {"stdout": "7 of 7 passed", "stderr": ""},
    }
    path.write_text(json.dumps(entry) + "\n" + json.dumps(plain) + "\n")
    assert pairs(read_claude(path, 0)) == [("SELF", "all good, 7 of 7"), ("TOOL", "7 of 7 passed")]


def test_claude_malformed_lines_are_counted_not_fatal(tmp_path):
    path = tmp_path / "bad.jsonl"
    good = json.dumps({"type": "user", "message": {"content": "still read after the junk"}})
    junk = [
        "[" * 100_000,  # nesting deep enough to exhaust the parser
        '{"type": "user", "message": "not a dict"}',
        '{"type": "user", "message": {"content": 42}}',
        '{"type": "assistant", "message": {"content": [{"type": "tool_result", "tool_use_id": ["x"]}]}}',
        '{"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": ["x"], "content": "ok"}]}}',
    ]
    path.write_bytes(("\n".join(junk + [good]) + "\n").encode() + b"\xff\xfe not utf-8\n")
    read = read_claude(path, 0)
    assert pairs(read) == [("TOOL", "ok"), ("USER", "still read after the junk")]
    assert dict(read.skipped) == {"bad json": 2, "bad message": 2}
    assert read.end == path.stat().st_size


def test_discover_a_file_root_and_an_adapters_several_default_patterns(tmp_path):
    one = _touch(tmp_path / "single" / "chat.jsonl", "{}\n", 1_000_000_000)
    assert [f.path for f in discover([JournalRoot("claude", one)], forbidden_dirs=[])] == [one]
    gem = tmp_path / "gemini"
    saved = _touch(
        gem / "abc" / "chats" / "session-2025-01-01T10-00-aaaa.json", "{}", 2_000_000_000
    )
    stream = _touch(
        gem / "abc" / "chats" / "session-2025-01-02T10-00-bbbb.jsonl", "{}\n", 3_000_000_000
    )
    _touch(gem / "abc" / "logs.json", "[]", 4_000_000_000)  # prompts log: not a chat
    found = discover([JournalRoot("gemini", gem)], forbidden_dirs=[])
    assert [f.path for f in found] == [stream, saved]
