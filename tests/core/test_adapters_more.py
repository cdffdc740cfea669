"""The adapters for Cline / Roo / Kilo, Continue, Copilot CLI, Cursor (and SpecStory, Grok
CLI), Kimi CLI, Qwen Code, and the Codex and Gemini CLI variants: recognised from content,
and USER only for the human's typed words (SPEC §5.1).

Each format is tested on excerpts of real files (tests/fixtures/journals/<agent>/SOURCE*.md)
and on generated sessions where random human words sit beside random machine text in the
places each agent puts it: the rule must hold for any text, not the fixture's."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from kura_core.distill.journals import (
    ADAPTER_NAMES,
    ADAPTERS,
    UNITS,
    JournalError,
    guess_adapter,
    read_journal,
)

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "journals"

# ---------------------------------------------------------------------------- real excerpts

#: fixture → (adapter recognised from content, the USER texts it must yield, in order)
EXPECTED: dict[str, tuple[str, list[str]]] = {
    "cline/tasks/1777073160794/api_conversation_history.json": (
        "cline",
        [
            "The attached is a technical writeup",
            "Here are the details for the new GCP environment.",
            "Approved - Proceed to Phase 2: Auth Refactor",
            "Approved - All phases complete, ready for deployment",
            'continue with "Next Steps" no database migrations are necessary.',
        ],
    ),
    "cline/tasks/1770482470358/ui_messages.json": (
        "cline",
        [
            "nono when we read history for tasks",
            "do not write code. just the doc",
            "great let's implement it relying on ui_messages.json",
        ],
    ),
    "cline/exported_conversation_1769053680585/api_conversation_history.json": (
        "cline",
        ["You have been given a Dockerized codebase"],
    ),
    "cline/exported_conversation_1769053680585/ui_messages.json": (
        "cline",
        ["You have been given a Dockerized codebase"],
    ),
    "cline/export/bob_task_codeguard.md": (
        "cline",
        ["You are the Lead Security Architect", "also check the dashboard folder"],
    ),
    "codex/rollout-2026-10-06T00-00-00-019a0000-0000-7000-8000-00000000c171.jsonl": (
        "codex",
        ["Fix the parser\n[image]", "also run the linter"],
    ),
    "codex/history.jsonl": ("codex", ["Fix the parser", "also run the linter", "/review"]),
    "copilot/session-state/4de47255-1c2b-4b7e-9f0a-2a6d3c1e9b10/events.jsonl": (
        "copilot",
        ["Run the build", "now deploy it to staging"],
    ),
    "copilot/history-session-state/session_8f1c7a2e_1759957816398.json": (
        "copilot-legacy",
        ["please add mcp servers"],
    ),
    "copilot/share/copilot-session-381474ec.md": (
        "copilot-legacy",
        ["Read and follow only the skill definition at"],
    ),
    "kimi/sessions/3f2a9c/6b1d0e8a-2c4f-4e9b-8a71-5d3c2b1a0f9e/context.jsonl": (
        "kimi",
        ["rename the config loader to load_settings", "thanks, commit it"],
    ),
    "kimi/sessions/3f2a9c/6b1d0e8a-2c4f-4e9b-8a71-5d3c2b1a0f9e/wire.jsonl": (
        "kimi",
        ["rename the config loader to load_settings"],
    ),
    "kimi/code/sessions/wd_proj/session_019f/agents/main/wire.jsonl": (
        "kimi",
        ["fix the bug in the date parser"],
    ),
    "kimi/code/sessions/wd_proj/session_019f/agents/coder-1/wire.jsonl": ("kimi", []),
    "qwen/projects/-home-synthetic-proj/chats/sess-1.jsonl": (
        "qwen",
        [
            "Explain @README.md in two lines",
            "/review src/main.py",
            "/about",
            "thanks, ship it",
            "run the tests",
        ],
    ),
    "cursor/projects/work-app/agent-transcripts/5d1f7b3e-9a2c-4e8f-b1d0-3c4a5b6c7d8e/"
    "5d1f7b3e-9a2c-4e8f-b1d0-3c4a5b6c7d8e.jsonl": (
        "cursor",
        ["fix the flaky test", "use vitest not jest"],
    ),
    "cursor/projects/home-dev-shop/agent-transcripts/8c1e2d3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f.txt": (
        "cursor",
        ["Study this", "keep the cart total in cents"],
    ),
    "cursor/grok/sessions/%2Fwork%2Fapp/0192-aaaa/chat_history.jsonl": ("cursor", ["hello there"]),
    "continue/sessions/7c9e6679-7425-40de-944b-e07fc1f90ae7.json": (
        "continue",
        ["add a retry to the http client", "looks good\n[image]"],
    ),
    "gemini/more/stream-json-gemini-3-pro.jsonl": (
        "gemini",
        ["What is 9 + 1? Reply with just the number."],
    ),
    "gemini/more/checkpoint-cache-miss.json": (
        "gemini",
        ["why does the cache miss on every request?"],
    ),
    "gemini/more/logs.json": ("gemini", ["summarise the open issues", "/chat save triage"]),
    "specstory/.specstory/history/2025-06-29_14-02Z-test-profile-bean.md": (
        "specstory",
        ["还是一样的错误", "请快速尝试A,B,C方式", "确认了，A和C都改了还是不行。请重新分析。"],
    ),
}


@pytest.mark.parametrize(
    "rel", list(EXPECTED), ids=[r.split("/")[0] + ":" + r[-24:] for r in EXPECTED]
)
def test_each_real_format_is_recognised_and_only_the_human_is_user(rel):
    path = FIX / rel
    adapter, users = EXPECTED[rel]
    assert guess_adapter(path) == adapter
    name, read = read_journal(path)
    said = [s.text for s in read.segments if s.cls == "USER"]
    assert len(said) == len(users), said
    for got, want in zip(said, users, strict=True):
        assert got.startswith(want), (got, want)
    assert not any("NOTHUMAN" in t for t in said)
    assert read.unit == UNITS[name] and read.fatal == ""
    # every record is read or noted: nothing is dropped silently
    assert read.records <= _covered(read)


def _covered(read) -> int:
    """How many records the segments and notes of *read* account for."""
    spans = {(s.start, s.end) for s in read.segments} | {(n.start, n.end) for n in read.notes}
    if read.unit == "seq":
        return len({i for a, b in spans for i in range(a, max(b, a + 1))})
    return len(spans)


def test_machine_text_is_never_lost_only_kept_out_of_user():
    """The tool output, the agent's words and actions of each fixture are still read."""
    for rel in EXPECTED:
        if "logs.json" in rel or "history.jsonl" in rel or "coder-1" in rel:
            continue
        _, read = read_journal(FIX / rel)
        classes = {s.cls for s in read.segments}
        assert "SELF" in classes, rel
        assert classes & {"ACT", "TOOL"} or "specstory" in rel or "main/wire" in rel, rel


def test_every_new_adapter_is_registered_everywhere():
    from kura_core.config import adapter_names
    from kura_core.distill.journals import DEFAULT_INCLUDE
    from kura_core.faces.cli import _adapter_choices

    CONFIG_ADAPTERS, _ADAPTER_CHOICES = adapter_names(), _adapter_choices()

    for name in ("cline", "continue", "copilot", "copilot-legacy", "cursor", "specstory"):
        for table in (ADAPTERS, UNITS, ADAPTER_NAMES, CONFIG_ADAPTERS, _ADAPTER_CHOICES):
            assert name in table, (name, table)
        assert name in DEFAULT_INCLUDE
    for name in ("kimi", "qwen"):
        assert name in ADAPTERS and name in CONFIG_ADAPTERS and name in DEFAULT_INCLUDE


def test_discovery_finds_each_agent_in_its_own_layout(tmp_path):
    from kura_core.distill.journals import JournalRoot, discover

    layouts = {  # adapter: (its journal, files beside it that are not journals)
        "cline": (
            "saoudrizwan.claude-dev/tasks/1/api_conversation_history.json",
            ["saoudrizwan.claude-dev/tasks/1/ui_messages.json", "settings/mcp.json"],
        ),
        "continue": ("7c9e6679-7425-40de-944b-e07fc1f90ae7.json", ["sessions.json"]),
        "copilot": ("4de47255/events.jsonl", ["4de47255/workspace.yaml"]),
        "cursor": ("work-app/agent-transcripts/a/a.jsonl", ["work-app/mcp.json"]),
        "kimi": ("3f2a9c/6b1d/context.jsonl", ["3f2a9c/6b1d/wire.jsonl"]),
        "kimi-code": ("wd_p/session_1/agents/main/wire.jsonl", ["wd_p/session_1/state.json"]),
        "qwen": ("-home-p/chats/sess-1.jsonl", ["-home-p/logs.jsonl"]),
    }
    for adapter, (rel, decoys) in layouts.items():
        root = tmp_path / adapter
        for name in [rel, *decoys]:
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text("{}\n")
        found = discover([JournalRoot(adapter.split("-")[0], root)], forbidden_dirs=[])
        assert [f.path for f in found] == [root / rel], adapter


# ---------------------------------------------------------------------------- generated

words = (
    st.text(
        alphabet=st.characters(
            codec="utf-8", exclude_categories=("Cs", "Cc"), exclude_characters="<>\\`_*"
        ),
        min_size=1,
        max_size=60,
    )
    .map(str.strip)
    .filter(lambda s: s and "NOTHUMAN" not in s and not s.startswith(("/", "[")))
)
machine = words.map(lambda s: "NOTHUMAN " + s)
GEN = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _users(tmp_path: Path, name: str, body: str, adapter: str | None = None) -> list[str]:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body, encoding="utf-8")
    got, read = read_journal(path, adapter)
    if adapter is None:
        assert got == guess_adapter(path)
    return [s.text for s in read.segments if s.cls == "USER"]


def _lines(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


@GEN
@given(human=words, noise=machine)
def test_cline_user_is_only_inside_the_human_tags(tmp_path, human, noise):
    msgs = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": f"<task>\n{human}\n</task>"},
                {"type": "text", "text": f"<environment_details>\n{noise}\n</environment_details>"},
            ],
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": f"<thinking>{noise}</thinking>ok"}],
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": f"[TASK RESUMPTION] {noise}"},
                {"type": "text", "text": f"[read_file for 'a.py'] Result:\n{noise}"},
                {"type": "text", "text": f"<feedback>\n{human}\n</feedback>"},
            ],
        },
    ]
    said = _users(tmp_path, "t/api_conversation_history.json", json.dumps(msgs), "cline")
    assert said == [human, human]


@GEN
@given(
    human=words, noise=machine, tag=st.sampled_from(["task", "feedback", "answer", "user_message"])
)
def test_cline_tags_quoted_in_a_tool_result_are_not_user(tmp_path, human, noise, tag):
    quoted = f"1 | # prompt\n2 | <{tag}>\n3 | {noise}\n4 | </{tag}>"
    msgs = [
        {"role": "user", "content": [{"type": "text", "text": f"<task>\n{human}\n</task>"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "p.md"}}
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": f"[read_file for 'p.md'] Result:\n{quoted}"},
                {
                    "type": "text",
                    "text": f"[ask_followup_question for 'q'] Result:\n<answer>\n{human}\n</answer>",
                },
                {
                    "type": "text",
                    "text": f"The user denied this operation and provided the following feedback:\n<feedback>\n{human}\n</feedback>",
                },
            ],
        },
    ]
    said = _users(tmp_path, "t/api_conversation_history.json", json.dumps(msgs), "cline")
    assert said == [human, human, human]


@GEN
@given(human=words, noise=machine)
def test_a_roo_subtask_s_task_is_the_parent_agent_s(tmp_path, human, noise):
    folder = tmp_path / "tasks" / "1788845325719"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "history_item.json").write_text(json.dumps({"id": "1", "parentTaskId": "0"}))
    msgs = [
        {"role": "user", "content": [{"type": "text", "text": f"<task>\n{noise}\n</task>"}]},
        {
            "role": "user",
            "content": [{"type": "text", "text": f"<feedback>\n{human}\n</feedback>"}],
        },
    ]
    (folder / "api_conversation_history.json").write_text(json.dumps(msgs))
    _, read = read_journal(folder / "api_conversation_history.json")
    assert [(x.cls, x.text) for x in read.segments] == [("SELF", noise), ("USER", human)]


@GEN
@given(human=words, noise=machine, kind=st.sampled_from(["newtask", "smol", "deploy.md", "skill"]))
def test_cline_slash_command_expansions_inside_the_task_are_not_user(tmp_path, human, noise, kind):
    text = f'<task>\n<explicit_instructions type="{kind}">\n{noise}\n</explicit_instructions>\n{human}\n</task>'
    msgs = [{"role": "user", "content": [{"type": "text", "text": text}]}]
    assert _users(tmp_path, "t/api_conversation_history.json", json.dumps(msgs), "cline") == [human]


@GEN
@given(human=words, noise=machine)
def test_codex_ide_context_before_the_request_is_not_user(tmp_path, human, noise):
    message = f"# Context from my IDE setup:\n\n## Active file: {noise}\n\n## My request for Codex:\n{human}"
    rows = [
        {"timestamp": "t", "type": "session_meta", "payload": {"id": "s"}},
        {
            "timestamp": "t",
            "type": "event_msg",
            "payload": {"type": "user_message", "message": message},
        },
    ]
    assert _users(tmp_path, "rollout-ide.jsonl", _lines(rows)) == [human]


@GEN
@given(human=words, noise=machine)
def test_copilot_user_is_the_typed_content_without_what_the_cli_adds(tmp_path, human, noise):
    rows = [
        {"type": "session.start", "data": {"sessionId": "s"}, "id": "1"},
        {
            "type": "user.message",
            "data": {
                "content": f"{human}\n\n<current_datetime>{noise}</current_datetime>",
                "transformedContent": noise,
            },
            "id": "2",
        },
        {"type": "user.message", "data": {"content": noise, "source": "autopilot"}, "id": "3"},
        {"type": "user.message", "data": {"content": "", "transformedContent": noise}, "id": "4"},
        {"type": "assistant.message", "data": {"content": noise, "toolRequests": []}, "id": "5"},
    ]
    assert _users(tmp_path, "s/events.jsonl", _lines(rows)) == [human]


@GEN
@given(human=words, noise=machine)
def test_kimi_user_is_the_person_not_the_cli_nor_the_main_agent(tmp_path, human, noise):
    rows = [
        {"role": "_system_prompt", "content": noise},
        {"role": "_checkpoint", "id": 0},
        {"role": "user", "content": [{"type": "text", "text": f"<system>{noise}</system>"}]},
        {"role": "user", "content": human},
        {"role": "assistant", "content": noise},
    ]
    summary = [
        {
            "type": "text",
            "text": "<system>Previous context has been compacted. Here is the compaction output:</system>",
        },
        {"type": "text", "text": noise},
    ]
    rows.append({"role": "user", "content": summary})
    rows.append({"role": "user", "content": f"# Skill\n{noise}\n\nUser request:\n{human}"})
    assert _users(tmp_path, "s/x/context.jsonl", _lines(rows)) == [human, human]
    assert _users(tmp_path, "s/x/subagents/a/context.jsonl", _lines(rows)) == []
    assert _users(tmp_path, "s/y/context_sub_1.jsonl", _lines(rows)) == []  # Task's subagent


@GEN
@given(human=words, noise=machine, command=words)
def test_qwen_expanded_slash_templates_and_tool_results_are_not_user(
    tmp_path, human, noise, command
):
    env = {"sessionId": "s", "cwd": "/p"}
    rows = [
        {
            **env,
            "type": "user",
            "uuid": "1",
            "message": {"role": "user", "parts": [{"text": human}]},
        },
        {
            **env,
            "type": "system",
            "subtype": "slash_command",
            "uuid": "2",
            "systemPayload": {"phase": "invocation", "rawCommand": "/" + command},
        },
        {
            **env,
            "type": "user",
            "uuid": "3",
            "message": {"role": "user", "parts": [{"text": noise}]},
        },
        {
            **env,
            "type": "tool_result",
            "uuid": "4",
            "message": {
                "role": "user",
                "parts": [{"functionResponse": {"id": "c", "response": {"output": noise}}}],
            },
        },
    ]
    assert _users(tmp_path, "c/s.jsonl", _lines(rows)) == [human, "/" + command]


@GEN
@given(human=words, noise=machine, label=st.sampled_from(["slash_command", "system", "hook"]))
def test_qwen_provenance_labels_say_whose_a_user_record_is(tmp_path, human, noise, label):
    env = {"sessionId": "s", "cwd": "/p", "version": "0.24.7"}
    say = {"role": "user", "parts": [{"text": noise}]}
    rows = [
        {
            **env,
            "type": "user",
            "uuid": "1",
            "provenance": "real_user",
            "message": say,
            "systemPayload": {"displayText": human},
        },
        {**env, "type": "user", "uuid": "2", "provenance": label, "message": say},
    ]
    assert _users(tmp_path, "c/s.jsonl", _lines(rows)) == [human]


@GEN
@given(human=words, noise=machine)
def test_cursor_user_is_the_query_only(tmp_path, human, noise):
    rows = [
        {
            "role": "user",
            "message": {
                "content": [
                    {
                        "type": "text",
                        "text": f"<user_info>\n{noise}\n</user_info>\n<user_query>\n{human}\n</user_query>",
                    }
                ]
            },
        },
        {
            "role": "user",
            "message": {"content": [{"type": "text", "text": f"<git_status>{noise}</git_status>"}]},
        },
        {"role": "assistant", "message": {"content": [{"type": "text", "text": noise}]}},
        {"type": "turn_ended", "status": "success"},
    ]
    assert _users(tmp_path, "a/a.jsonl", _lines(rows)) == [human]


@GEN
@given(human=words, noise=machine)
def test_cursor_text_transcripts_keep_only_the_query(tmp_path, human, noise):
    body = (
        f"user:\n<timestamp>{noise}</timestamp>\n<user_query>\n{human}\n</user_query>\n\n"
        f"A:\n[Thinking] {noise}\nok\n[Tool call] Shell\n  command: ls\n\n"
        f"[Tool result] Shell\n{noise}\n\nuser:\n<user_query>\n{human}\n</user_query>\n\n"
    )
    assert _users(tmp_path, "t.txt", body) == [human, human]


@GEN
@given(human=words, noise=machine)
def test_continue_reads_the_message_never_its_context_copies(tmp_path, human, noise):
    doc = {
        "sessionId": "s",
        "history": [
            {
                "message": {"role": "user", "content": human},
                "contextItems": [{"name": "f", "content": noise}],
                "promptLogs": [{"prompt": noise, "completion": noise}],
            },
            {"message": {"role": "thinking", "content": noise}},
            {"message": {"role": "tool", "content": noise, "toolCallId": "x"}},
        ],
    }
    assert _users(tmp_path, "s.json", json.dumps(doc)) == [human]


@GEN
@given(human=words, noise=machine)
def test_codex_current_cli_user_message_items_are_user_once(tmp_path, human, noise):
    item = {"type": "UserMessage", "id": "u", "content": [{"type": "text", "text": human}]}
    rows = [
        {"timestamp": "t", "type": "session_meta", "payload": {"id": "s"}},
        {"timestamp": "t", "type": "event_msg", "payload": {"type": "task_started"}},
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": noise}],
            },
        },
        {
            "timestamp": "t",
            "type": "event_msg",
            "payload": {"type": "user_message", "message": human},
        },
        {
            "timestamp": "t",
            "type": "event_msg",
            "payload": {"type": "item_completed", "item": item},
        },
    ]
    assert _users(tmp_path, "rollout-x.jsonl", _lines(rows)) == [human]


@GEN
@given(human=words, noise=machine)
def test_gemini_stream_json_prompt_is_user_and_chunks_are_one_reply(tmp_path, human, noise):
    rows = [
        {"type": "init", "timestamp": "t", "session_id": "s", "model": "m"},
        {"type": "message", "timestamp": "t", "role": "user", "content": human, "via": "wrapper"},
        {
            "type": "message",
            "timestamp": "t",
            "role": "assistant",
            "content": noise[:5],
            "delta": True,
        },
        {
            "type": "message",
            "timestamp": "t",
            "role": "assistant",
            "content": noise[5:],
            "delta": True,
        },
        {"type": "result", "timestamp": "t", "status": "success", "stats": {}},
    ]
    path = tmp_path / "out.jsonl"
    path.write_text("banner from a wrapper\n" + _lines(rows), encoding="utf-8")
    name, read = read_journal(path)
    assert name == "gemini"
    assert [s.text for s in read.segments if s.cls == "USER"] == [human]
    assert [s.text for s in read.segments if s.cls == "SELF"] == [noise.strip()]


@GEN
@given(
    human=words,
    noise=machine,
    label=st.sampled_from(["Current File Path", "Current Selection", "User Selected Files"]),
)
def test_editor_context_an_ide_appends_to_a_gemini_prompt_is_not_user(
    tmp_path, human, noise, label
):
    chat = [
        {"role": "user", "parts": [{"text": f"{human}\n\n{label}:\n```\n{noise}\n```"}]},
        {"role": "model", "parts": [{"text": noise}]},
    ]
    assert _users(tmp_path, "checkpoint-x.json", json.dumps(chat)) == [human]


@GEN
@given(human=words, noise=machine)
def test_specstory_headings_inside_fences_and_blocks_are_not_turns(tmp_path, human, noise):
    body = (
        "<!-- Generated by SpecStory -->\n\n_**User**_\n\n"
        f"{human}\n\n---\n\n_**Assistant**_\n\n```\n_**User**_\n\n{noise}\n```\n\n"
        f"<details><summary>x</summary>\n\n_**User**_\n\n{noise}\n\n</details>\n\n---\n"
    )
    assert _users(tmp_path, "h.md", body) == [human]


# ---------------------------------------------------------------------------- edge cases


@pytest.mark.parametrize("adapter", ["cline", "continue", "copilot-legacy"])
def test_a_document_being_rewritten_is_read_again_later_not_lost(tmp_path, adapter):
    path = tmp_path / "doc.json"
    path.write_text('[{"role": "user", "content": "<task>half', encoding="utf-8")
    read = ADAPTERS[adapter](path, 0)
    assert read.segments == () and read.end == 0 and read.fatal == ""
    assert any("read again later" in n.reason for n in read.notes)


def test_a_cline_panel_message_still_streaming_is_held_back(tmp_path):
    path = tmp_path / "ui_messages.json"
    rows = [
        {"ts": 1, "type": "say", "say": "text", "text": "sort the imports"},
        {"ts": 2, "type": "say", "say": "api_req_started", "text": '{"request": "NOTHUMAN"}'},
        {"ts": 3, "type": "say", "say": "text", "text": "Sorting", "partial": True},
    ]
    path.write_text(json.dumps(rows))
    one = ADAPTERS["cline"](path, 0)
    assert one.end == 2 and [(s.cls, s.text) for s in one.segments] == [
        ("USER", "sort the imports")
    ]
    rows[2]["partial"] = False
    rows[2]["text"] = "Sorting them now."
    path.write_text(json.dumps(rows))
    two = ADAPTERS["cline"](path, one.end)
    assert [(s.cls, s.text) for s in two.segments] == [("SELF", "Sorting them now.")]


def test_an_unfinished_last_message_is_read_once_its_file_is_quiet(tmp_path):
    path = tmp_path / "ui_messages.json"
    rows = [
        {"ts": 1, "type": "say", "say": "text", "text": "sort the imports"},
        {"ts": 2, "type": "say", "say": "api_req_started", "text": "{}"},
        {"ts": 3, "type": "say", "say": "text", "text": "Sorting th", "partial": True},
    ]
    path.write_text(json.dumps(rows))
    assert ADAPTERS["cline"](path, 0).end == 2  # still streaming: held
    old = path.stat().st_mtime - 3600
    os.utime(path, (old, old))  # the extension died an hour ago
    read = ADAPTERS["cline"](path, 0)
    assert read.end == 3 and ("SELF", "Sorting th") in [(s.cls, s.text) for s in read.segments]
    out = tmp_path / "out.jsonl"
    out.write_text(
        _lines(
            [
                {"type": "message", "timestamp": "t", "role": "user", "content": "add tests"},
                {
                    "type": "message",
                    "timestamp": "t",
                    "role": "assistant",
                    "content": "On",
                    "delta": True,
                },
            ]
        )
    )
    assert ADAPTERS["gemini"](out, 0).end == 1
    os.utime(out, (old, old))
    read = ADAPTERS["gemini"](out, 0)
    assert read.end == 2 and ("SELF", "On") in [(s.cls, s.text) for s in read.segments]


@pytest.mark.slow
def test_a_huge_copilot_message_is_read_whole(tmp_path):
    big = "keep the logs " * 300_000
    path = tmp_path / "events.jsonl"
    path.write_text(
        _lines([{"type": "user.message", "data": {"content": big}, "id": "1"}]), encoding="utf-8"
    )
    read = ADAPTERS["copilot"](path, 0, limit_bytes=1 << 16)
    assert [s.text for s in read.segments] == [big.strip()]
    assert read.end == path.stat().st_size


def test_bad_bytes_in_a_cline_document_are_replaced_not_fatal(tmp_path):
    path = tmp_path / "api_conversation_history.json"
    text = json.dumps(
        [{"role": "user", "content": [{"type": "text", "text": "<task>fix Xit</task>"}]}]
    )
    path.write_bytes(text.encode().replace(b"X", b"\xff"))
    read = ADAPTERS["cline"](path, 0)
    assert [s.text for s in read.segments] == ["fix \ufffdit"]
    assert any(n.kind == "repaired" for n in read.notes)


@pytest.mark.parametrize(
    "body",
    [
        '{"role": "user", "content": "anything"}\n{"role": "assistant", "content": "x"}\n',
        '[{"role": "user", "content": "no agent marks here"}]',
        '{"history": [{"text": "x"}]}',
        '{"type": "message", "content": "x"}\n',
        '{"type": "user", "content": "a log line"}\n{"type": "assistant", "content": "ok"}\n',
        '{"activeStep": 2, "chatMessages": [{"role": "user", "content": "hi"}]}',
    ],
)
def test_unknown_shapes_are_never_read_as_the_human(tmp_path, body):
    path = tmp_path / "x.json"
    path.write_text(body)
    with pytest.raises(JournalError):
        guess_adapter(path)


def test_reading_a_journal_with_another_agents_adapter_is_refused_by_name():
    path = FIX / "copilot/session-state/4de47255-1c2b-4b7e-9f0a-2a6d3c1e9b10/events.jsonl"
    read = ADAPTERS["kimi"](path, 0)
    assert read.fatal and "copilot" in read.fatal and read.segments == ()


READERS: dict[str, Callable] = {k: ADAPTERS[k] for k in ("copilot", "kimi", "qwen", "cursor")}
WINDOWED = [
    (a, r) for r, (a, _) in EXPECTED.items() if a in READERS and r.endswith((".jsonl", ".txt"))
]


@pytest.mark.parametrize(("adapter", "rel"), WINDOWED, ids=[r[-30:] for _, r in WINDOWED])
def test_reading_window_by_window_gives_the_same_segments(adapter, rel):
    path = FIX / rel
    whole = READERS[adapter](path, 0)
    pos, parts = 0, []
    while True:
        read = READERS[adapter](path, pos, limit_bytes=200)
        parts.extend(read.segments)
        if read.end == pos:
            break
        pos = read.end
    assert [(s.cls, s.text) for s in parts] == [(s.cls, s.text) for s in whole.segments]


def test_a_gemini_patch_record_adds_the_results_it_carries(tmp_path):
    rows = [
        {"sessionId": "a1", "projectHash": "9f", "startTime": "t", "lastUpdated": "t"},
        {"id": "u1", "timestamp": "t", "type": "user", "content": [{"text": "list src"}]},
        {
            "id": "g1",
            "timestamp": "t",
            "type": "gemini",
            "content": "Listing now.",
            "toolCalls": [{"id": "ls-1", "name": "list_directory", "args": {"path": "/p/src"}}],
        },
        {
            "$patch": {
                "id": "g1",
                "toolCalls": [
                    {
                        "id": "ls-1",
                        "status": "success",
                        "result": [{"functionResponse": {"response": {"output": "main.ts"}}}],
                    }
                ],
            }
        },
        {"$patch": {"id": "g1", "status": "done"}},
    ]
    path = tmp_path / "session-x.jsonl"
    path.write_text(_lines(rows))
    name, read = read_journal(path)
    got = [(s.cls, s.text, s.start) for s in read.segments]
    assert name == "gemini"
    assert ("TOOL", "main.ts", 3) in got and ("ACT", "list_directory: /p/src", 2) in got
    assert len([g for g in got if g[1] == "Listing now."]) == 1  # never read twice
    assert read.records == 5 and not read.skipped


def test_bad_bytes_in_a_specstory_export_are_replaced_and_noted(tmp_path):
    path = tmp_path / "h.md"
    body = "<!-- Generated by SpecStory -->\n\n_**User**_\n\nrename Xthe job\n"
    path.write_bytes(body.encode().replace(b"X", b"\xff"))
    read = ADAPTERS["specstory"](path, 0)
    assert [s.text for s in read.segments] == ["rename \ufffdthe job"]
    assert any(n.kind == "repaired" for n in read.notes)


def test_an_early_codex_rollout_of_only_messages_is_still_codex(tmp_path):
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    thought = {"type": "reasoning", "timestamp": "t", "summary": [{"type": "summary_text"}]}
    rows = [{"id": "s", "timestamp": "t", "instructions": None}] + [item, thought] * 15
    path = tmp_path / "rollout-early.jsonl"
    path.write_text(_lines(rows))
    assert guess_adapter(path) == "codex"


def test_the_new_adapters_through_the_distiller_once_each(tmp_path, model):
    """Discovery, detection, the watermark units and the classes, end to end."""
    from kura_core.distill import drafts as dr, pipeline
    from tests.core.test_adapters_pipeline import echo_scribe, setup, user_quoting_brain

    sources = {
        "cline": FIX / "cline",
        "continue": FIX / "continue" / "sessions",
        "copilot": FIX / "copilot" / "session-state",
        "cursor": FIX / "cursor" / "projects",
        "kimi": FIX / "kimi" / "sessions",
        "qwen": FIX / "qwen" / "projects",
        "copilot-legacy": FIX / "copilot" / "history-session-state",
        "specstory": FIX / "specstory",
    }
    roots = {}
    for adapter, src in sources.items():
        roots[adapter] = tmp_path / "journals" / adapter
        shutil.copytree(src, roots[adapter])
    model.script("kura_candidates", user_quoting_brain)
    model.script("kura_compose", echo_scribe)
    reg = setup(tmp_path, model.url, roots, chunk_chars=2000)
    rep = pipeline.run(reg, "main")
    assert not rep.errors
    quoted = {
        q["text"]: (q["cls"], q["unit"])
        for d in dr.list_drafts(reg.store("main"))
        for q in d.quotes
    }
    for phrase, unit in [
        ("Approved - Proceed to Phase 2", "seq"),  # cline
        ("add a retry to the http client", "seq"),  # continue
        ("now deploy it to staging", "byte"),  # copilot
        ("use vitest not jest", "byte"),  # cursor
        ("thanks, commit it", "byte"),  # kimi
        ("thanks, ship it", "byte"),  # qwen
        ("please add mcp servers", "seq"),  # copilot-legacy
        ("请快速尝试A,B,C方式", "seq"),  # specstory
    ]:
        hits = [v for k, v in quoted.items() if phrase in k]
        assert hits and all(v == ("USER", unit) for v in hits), (phrase, hits)
    assert not [t for t in quoted if "NOTHUMAN" in t]
    assert not pipeline.run(reg, "main").did_work


def test_a_kimi_wire_result_marked_as_an_error_is_read_as_one(tmp_path):
    rows = [
        {"type": "TurnBegin", "payload": {"user_input": "order the paint"}},
        {
            "type": "ToolCall",
            "payload": {
                "id": "t1",
                "function": {"name": "Shell", "arguments": '{"command": "order.py"}'},
            },
        },
        {
            "type": "ToolResult",
            "payload": {
                "tool_call_id": "t1",
                "return_value": {
                    "is_error": True,
                    "output": "",
                    "message": "The tool call is rejected by the user.",
                },
            },
        },
        {
            "type": "ToolCall",
            "payload": {
                "id": "t2",
                "function": {"name": "Shell", "arguments": '{"command": "ls"}'},
            },
        },
        {
            "type": "ToolResult",
            "payload": {"tool_call_id": "t2", "return_value": {"output": "plan.yaml"}},
        },
    ]
    path = tmp_path / "kimi" / "sessions" / "a" / "b" / "wire.jsonl"
    path.parent.mkdir(parents=True)
    wire = [{"type": "metadata", "protocol_version": "1.3"}]
    wire += [{"timestamp": 1774500000.0 + n, "message": r} for n, r in enumerate(rows)]
    path.write_text(_lines(wire), encoding="utf-8")
    _, read = read_journal(path, "kimi")
    kinds = [s.kind for s in read.segments if s.cls == "TOOL"]
    assert len(kinds) == 2 and kinds[0].endswith("(error)") and not kinds[1].endswith("(error)")


def test_an_amp_call_cancelled_or_failed_is_read_so(tmp_path):
    thread = {
        "v": 1,
        "id": "T-0199c1a2-5e6f-7a8b-9c0d-1e2f3a4b5c6d",
        "created": 1764000000000,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "order the brochures"}]},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "u1",
                        "name": "Bash",
                        "input": {"cmd": "python order.py"},
                    },
                    {
                        "type": "tool_use",
                        "id": "u2",
                        "name": "Bash",
                        "input": {"cmd": "python pay.py"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "toolUseID": "u1",
                        "run": {"status": "cancelled", "reason": "user pressed esc"},
                    },
                    {
                        "type": "tool_result",
                        "toolUseID": "u2",
                        "run": {"status": "error", "error": {"message": "ERROR 402"}},
                    },
                ],
            },
        ],
    }
    path = tmp_path / "amp" / "threads" / "T-0199c1a2-5e6f-7a8b-9c0d-1e2f3a4b5c6d.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(thread), encoding="utf-8")
    _, read = read_journal(path, "amp")
    kinds = [s.kind for s in read.segments if s.cls == "TOOL"]
    assert len(kinds) == 2 and kinds[0].endswith("(refused)") and kinds[1].endswith("(error)")


@GEN
@given(human=words, noise=machine)
def test_a_gemini_prompt_shown_without_its_at_files_still_gives_their_contents(
    tmp_path, human, noise
):
    """Gemini CLI keeps the person's typed words in ``displayContent`` and the prompt it
    sent, with the @-referenced files' contents, in ``content``: the files are read from
    the content, as output a tool gave, and the typed words stay the person's."""
    sent = (
        f"@notes.txt {human}\n--- Content from referenced files ---\n"
        f"Content from @notes.txt:\n{noise}\n--- End of content ---"
    )
    record = {
        "id": "u1",
        "timestamp": "2026-12-07T11:05:51Z",
        "type": "user",
        "content": [{"text": sent}],
        "displayContent": [{"text": f"@notes.txt {human}"}],
    }
    _assert_files_read_as_output(tmp_path, record, noise)


def _assert_files_read_as_output(tmp_path, record: dict, noise: str) -> None:
    """The Gemini CLI record *record*, read: the file's text (*noise*) is a tool's output,
    and the person's words hold nothing of it."""
    path = tmp_path / "session-2026-12-07T11-05-aaaa1111.jsonl"
    path.write_text(
        json.dumps({"sessionId": "s1", "projectHash": "p"}) + "\n" + json.dumps(record) + "\n"
    )
    read = ADAPTERS["gemini"](path, 0)
    tool = [s.text for s in read.segments if s.cls == "TOOL"]
    users = [s.text for s in read.segments if s.cls == "USER"]
    assert any(noise.strip() in t for t in tool), read.segments
    assert users and not any("NOTHUMAN" in u for u in users), users


@GEN
@given(human=words, noise=machine, shown=st.booleans())
def test_a_gemini_at_file_block_sent_as_parts_of_its_own_is_read_whole(
    tmp_path, human, noise, shown
):
    """Gemini CLI sends the @-referenced block as parts of their own (its opening line, the
    file's name, the file's text, its closing line): the file's text is read as a tool's
    output, whether or not ``displayContent`` holds the typed words."""
    parts = [
        {"text": f"@notes.txt {human}"},
        {"text": "\n--- Content from referenced files ---"},
        {"text": "\nContent from @notes.txt:\n"},
        {"text": f"{noise}\n"},
        {"text": "\n--- End of content ---"},
    ]
    record = {"id": "u1", "timestamp": "2026-12-07T11:05:51Z", "type": "user", "content": parts}
    if shown:
        record["displayContent"] = [{"text": f"@notes.txt {human}"}]
    _assert_files_read_as_output(tmp_path, record, noise)
