"""Real journals people committed to public repositories, read against a ground truth taken
from each format's own structure (which text the person typed, which the agent or its host
wrote). Sources are in the NOTICE file beside each excerpt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from kura_core.distill.journals import ADAPTERS, guess_adapter
from kura_core.distill.journals.hostwords import command_template, person_words

PUBLIC = Path(__file__).resolve().parents[1] / "fixtures" / "journals"

#: file -> (the person's words, text that is never theirs); each a snippet of one segment
TRUTH: dict[str, tuple[list[str], list[str]]] = {
    "aider/public/roster.aider.chat.history.md": (
        ["create a table on roster page", "fix the error in toster.component.ts"],
        [
            "Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all",
            "Initial repo scan can be slow",
            "Retrying in 0.2 seconds",
            "You can use /undo to undo",
            "Tokens: 11k sent",
        ],
    ),
    "aider/public/stocks.aider.chat.history.md": (
        ["instead of navigating to http://localhost:4000", "done", "/add /Users/jason"],
        [
            "Add URL to the chat?",
            "Add lib/timeline_web/live/stock_live.ex to the chat?",
            "Added lib/timeline_web/router.ex to the chat",
            "Multiline mode: Enabled",
        ],
    ),
    "aider/public/gacha.aider.chat.history.md": (
        ["Give the app a feel reminiscent of an 80s hacker console"],
        [
            "Add components.json to the chat?",
            "Create new file? (Y)es/(N)o",
            "Attempt to fix lint errors?",
        ],
    ),
    "aider/public/breakout.aider.chat.history.md": (
        ["it crashed when bal hit the git brickes", "game got a bug, the trace of ball"],
        [
            "Add command output to the chat? (Y)es/(N)o/(D)on't ask again",
            "You can use /undo to undo and discard each aider commit.",
            "Run shell command?",
        ],
    ),
    "cline/public/api_conversation_history.json": (
        [
            "The attached is a technical writeup",
            "Here are the details for the new GCP environment",
            "Try again. My workstation was not on the corporate VPN",
            "I believe you were using the wrong account",
            "How do I get rid of these remnants of firebase?",
            "What model are you operating at?",
            "my image didn't come through",
        ],
        [
            "[TASK RESUMPTION]",
            "This task was interrupted",
            "Detailed Application Summary",
            "task_progress List (Optional",
            "TODO LIST UPDATE REQUIRED",
            "Visual Studio Code Visible Files",
            "Subagent results:",
            "The user has switched to ACT MODE",
            "The user denied this operation",
            "New message to respond to with plan_mode_respond",
            "The user provided the following feedback",
        ],
    ),
    "claude/public/8427ae52-excerpt.jsonl": (
        ["Can you allow any kind of wrap?", "If the keyword is quoted like"],
        ["hallucination-audit-stop.js", "stop_hook_summary", "turn_duration"],
    ),
    "cline/public/ui/ui_messages.json": (
        [
            "in my jiras->list UI in jira details section header add open button",
            "click on new button does nothing",
            "can we open it in chrome browser instead",
        ],
        [
            "npm run tauri dev",  # the agent asking to run a command: a confirm prompt
            "npm install @tauri-apps/plugin-shell",
            "added 1 package, changed 1 package",
            'Added an "Open in Jira" button',
        ],
    ),
    "claude/public/0017b058-excerpt.jsonl": (
        ["You are an expert AI Systems Architect", "Begin by executing Phase 1"],
        [
            "HISTORICAL REFERENCE ONLY",
            "PRIOR-SESSION SUMMARY",
            "can we fix some things with the luna-statusline",
            "Found 4 recent session(s)",
        ],
    ),
    "claude/public/4943577a/subagents/agent-a4387701e9b57fece.jsonl": (
        [],
        [
            "<fork-boilerplate>",
            "You are a worker fork",
            "Your directive:",
            "Fork started",
            "check whether Abacus dropped any OTHER functionality",
        ],
    ),
    "codex/public/rollout-2025-12-25T22-45-23-019b55c1-d022-7061-bbb9-b0c90708472b.jsonl": (
        [],  # the person typed a slash command with no arguments
        [
            "## User Input",
            "You **MUST** consider the user input",
            "You are updating the project constitution",
            "AGENTS.md instructions",
            "<environment_context>",
        ],
    ),
    "gemini/public/logs.json": (
        [
            "help me create the app under host-utility/",
            "lets start create a skeleton",
            "yes but use .yaml extension",
            "$ ls -l ~/.rd/docker.sock",
            "now add CHANGELOG as instructed",
        ],
        [],
    ),
}


def _read(rel: str):
    path = PUBLIC / rel
    return ADAPTERS[guess_adapter(path)](path, 0)


@pytest.mark.parametrize("rel", sorted(TRUTH))
def test_a_public_journal_gives_the_person_their_words_and_nothing_else(rel):
    read = _read(rel)
    assert not read.fatal
    said = [s.text for s in read.segments if s.cls == "USER"]
    theirs, not_theirs = TRUTH[rel]
    missing = [w for w in theirs if not any(w in t for t in said)]
    leaked = [w for w in not_theirs if any(w in t for t in said)]
    assert missing == [] and leaked == []


def test_newer_claude_code_records_each_get_their_own_reason():
    reasons = [n.reason for rel in TRUTH if rel.startswith("claude/") for n in _read(rel).notes]
    assert "session mode (normal, plan)" in reasons
    assert "reference to the parent's context (a forked subagent)" in reasons
    assert not [r for r in reasons if "unknown type" in r or r == "not a Claude Code record"]


def test_each_public_excerpt_is_told_from_its_content():
    agents = {rel: guess_adapter(PUBLIC / rel) for rel in TRUTH}
    assert agents == {rel: rel.split("/")[0] for rel in TRUTH}


# --------------------------------------------------------------------------- aider status lines

_STATUS_LINES = [
    "You can use /undo to undo and discard each aider commit.",
    "Tokens: 5.9k sent, 114 received. Cost: $0.03 message, $0.26 session.",
    "Applied edit to breakout.py",
    "Commit d323516 fix: replace tuple with list",
    "Added 29 lines of output to the chat.",
    "Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]:",
]

_words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ,.!?'", min_size=1, max_size=40).filter(
    lambda t: t.strip() not in ("", "<blank>")
)


@settings(max_examples=60, deadline=None)
@given(
    person=st.lists(_words, min_size=1, max_size=4),
    status=st.lists(st.sampled_from(_STATUS_LINES), min_size=1, max_size=3),
    at=st.integers(0, 4),
)
def test_aider_status_lines_in_the_persons_block_are_never_theirs(
    tmp_path_factory, person, status, at
):
    lines = [p.strip() for p in person]
    mixed = lines[:at] + status + lines[at:]
    path = tmp_path_factory.mktemp("aider") / ".aider.chat.history.md"
    body = "".join(f"#### {ln}  \n" for ln in mixed)
    path.write_text(f"\n# aider chat started at 2026-01-01 10:00:00\n\n{body}\nSure.\n")
    read = ADAPTERS["aider"](path, 0)
    said = [s.text for s in read.segments if s.cls == "USER"]
    assert said == ["\n".join(lines)]
    tool = "\n".join(s.text for s in read.segments if s.cls == "TOOL")
    assert all(s in tool for s in status)


@pytest.mark.parametrize(
    "line",
    [
        "Commit the change and push it",  # a person's sentence that starts like a status line
        "Applied edit to the wrong file, undo it",
        "Tokens are expensive, keep it short",
        "You can use /undo to undo and discard each aider commit. Then redo the tests",
    ],
)
def test_a_persons_line_that_starts_like_a_status_stays_theirs(tmp_path, line):
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(f"\n# aider chat started at 2026-01-01 10:00:00\n\n#### {line}  \n\nSure.\n")
    read = ADAPTERS["aider"](path, 0)
    assert [s.text for s in read.segments if s.cls == "USER"] == [line]


# --------------------------------------------------------------------------- command templates

_ARGS = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="`\r"),
    max_size=60,
)


@settings(max_examples=80, deadline=None)
@given(args=_ARGS, lang=st.sampled_from(["text", "", "markdown"]), lead=st.sampled_from(["", "\n"]))
def test_only_the_arguments_of_an_expanded_command_are_the_persons(args, lang, lead):
    template = (
        f"{lead}## User Input\n\n```{lang}\n{args}\n```\n\n"
        "You **MUST** consider the user input before proceeding (if not empty).\n\n"
        "## Outline\n\nDraft the plan from the spec."
    )
    found = command_template(template)
    assert found is not None
    assert found[0] == args.strip()
    assert person_words(template) == args.strip()
    assert "Outline" not in person_words(template)


@pytest.mark.parametrize(
    "text",
    [
        "## User Input\n\nplease add retries",  # a person's own heading, no template
        "Look at this:\n## User Input\n\n```text\nx\n```\n\nYou **MUST** consider the user input",
        "You **MUST** consider the user input",
    ],
)
def test_text_that_is_not_a_command_template_stays_the_persons(text):
    assert command_template(text) is None
    assert person_words(text) == text.strip()


def test_a_codex_slash_command_gives_its_arguments_and_its_template_apart(tmp_path):
    template = (
        "## User Input\n\n```text\nuse PostgreSQL\n```\n\n"
        "You **MUST** consider the user input before proceeding (if not empty).\n\nDo things."
    )
    lines = [
        {"timestamp": "2025-12-25T13:45:23.750Z", "type": "session_meta", "payload": {"id": "x"}},
        {
            "timestamp": "2025-12-25T13:45:32.732Z",
            "type": "event_msg",
            "payload": {"type": "user_message", "message": template, "images": []},
        },
    ]
    path = tmp_path / "rollout-2025-12-25T13-45-23-x.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    read = ADAPTERS["codex"](path, 0)
    assert [s.text for s in read.segments if s.cls == "USER"] == ["use PostgreSQL"]
    assert [s.cls for s in read.segments if "consider the user input" in s.text] == ["TOOL"]
