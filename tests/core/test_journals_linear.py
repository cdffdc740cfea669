"""Every adapter entry point reads pathological input in linear time and never raises.

Each payload (runs of Markdown/ASCII-art characters at line starts, unclosed tags, fences,
here-documents and quotes before large bodies, long digit and CJK runs, minified JSON, ...)
is placed in every position of every journal format that an adapter decodes (the person's
text, a shell command and its output, a file write, a patch, an answer, a refusal), and
read whole, window by window, sniffed and detected. The test compares growth: 10x the
input may take at most ~15x the CPU time (plus a small absolute slack: a small input runs
from cache, a big one does not), and nothing may take longer than a generous cap.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from kura_core.distill.journals import (
    ADAPTERS,
    JournalError,
    guess_adapter,
    provenance as pv,
    shell,
)
from kura_core.distill.journals.aider import assistant_pieces
from kura_core.distill.journals.base import CONTEXTS
from kura_core.distill.journals.hostwords import person_words

SMALL, BIG = 1_000, 10_000
GROWTH = 15.0  # 10x the input, at most ~15x the time
SLACK = 0.08  # CPU seconds: cache and allocator effects that a small input escapes
CAP = 30.0  # seconds: no entry point may take longer on the big input


def _count(unit: str, n: int) -> int:
    """How many times *unit* fits in about *n* characters -- exactly ten times as many
    for ten times *n*, so the big input has the same shape (say, the same parity of
    quotes) as the small one."""
    return max(1, n // 500) * max(1, 500 // len(unit))


def _lines(unit: str, n: int) -> str:
    return "\n".join(unit for _ in range(_count(unit + "\n", n)))


def _repeat(unit: str, n: int) -> str:
    return unit * _count(unit, n)


PAYLOADS: dict[str, Callable[[int], str]] = {
    # lines of 40 at line starts, then one run of the whole size
    **{
        f"runs of {c!r}": (lambda n, c=c: _lines(c * 40, n // 2) + "\n" + _repeat(c, n // 2))
        for c in "-# "
    },
    # the other marks of Markdown and ASCII art: lines of 40 of each, then a long run of
    # each, every run a tenth of the size (one payload, not one a mark)
    "runs of each mark": lambda n: (
        _lines("\n".join(c * 40 for c in "*>+=|~_\t"), n // 2)
        + "\n"
        + "\n".join(c * (n // 16) for c in "*>+=|~_\t")
    ),
    "mixed runs": lambda n: _lines("-#*>+=|~_ -#*>+=|~_ #### >>>> ----", n),
    "table borders": lambda n: _lines("+" + "-" * 30 + "+", n),
    "unclosed tag": lambda n: "<system-reminder>" + _repeat("body ", n),
    "many unclosed tags": lambda n: _repeat("<task-notification><environment_context>", n),
    "unclosed fence": lambda n: "```\n" + _lines("code line", n),
    "many fences": lambda n: _repeat("```\n", n),
    "unclosed diff fence": lambda n: _repeat("```diff\n+++ b/a.py\n+x\n", n),
    "unclosed heredoc": lambda n: "cat <<EOF > notes.md\n" + _lines("line $x `y`", n),
    "many heredocs": lambda n: _repeat("cat <<EOF\n", n),
    "heredoc openers": lambda n: _repeat("<<", n),
    "unclosed double quote": lambda n: 'echo "' + _repeat("a$b ", n),
    "unclosed single quote": lambda n: "echo '" + _repeat("a b ", n),
    "unclosed ansi quote": lambda n: "echo $'" + _repeat("\\n", n),
    "dollars": lambda n: "echo " + _repeat("$a", n),
    "unclosed expansions": lambda n: _repeat("$(", n),
    "unclosed backquote": lambda n: "echo `" + _repeat("a", n),
    "wrappers": lambda n: _repeat("sudo ", n) + "echo hi",
    "commands": lambda n: _repeat("echo a; ", n),
    "pipes": lambda n: _repeat("echo a | ", n) + "cat",
    "search markers": lambda n: _repeat("<<<<<<< SEARCH\n", n),
    "search dividers": lambda n: _repeat("<<<<<<< SEARCH\n=======\n", n),
    "unclosed search": lambda n: "a.py\n```\n<<<<<<< SEARCH\n" + _lines("x = 1", n),
    "patch": lambda n: "*** Begin Patch\n*** Update File: a.py\n" + _lines("+x", n),
    "digits": lambda n: _repeat("1", n),
    "digits before 万": lambda n: _repeat("1", n) + "万",
    "CJK numerals": lambda n: _repeat("一二三四五六七八九十百千万億", n),
    "Japanese without punctuation": lambda n: _repeat("これは句読点のない長い日本語の文章です", n),
    "Chinese without punctuation": lambda n: _repeat("这是一个没有标点符号的很长的中文句子", n),
    "minified JSON": lambda n: json.dumps(
        [{"a": [1, {"b": "c"}], "d": None} for _ in range(_count("." * 32, n))],
        separators=(",", ":"),
    ),
    "nested JSON": lambda n: _repeat('{"a":', n) + "1",
    "torn JSON": lambda n: _repeat('{"a":[1,{"b":', n),
    "answers": lambda n: _repeat('"q"="a"', n),
    "refusal": lambda n: "The user doesn't want to proceed with this tool use. " + _repeat("x ", n),
}


# --------------------------------------------------------------------------- carriers


def _jsonl(records: list[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def _claude(p: str) -> str:
    def entry(kind: str, content: object, uuid: str, **extra: object) -> dict:
        return {
            "type": kind,
            "message": {"role": kind, "content": content},
            "sessionId": "s",
            "uuid": uuid,
            **extra,
        }

    def use(i: str, name: str, args: dict) -> dict:
        return entry("assistant", [{"type": "tool_use", "id": i, "name": name, "input": args}], i)

    def result(i: str, text: str, **extra: object) -> dict:
        block = {"type": "tool_result", "tool_use_id": i, "content": text, **extra}
        return entry("user", [block], "r" + i)

    return _jsonl(
        [
            entry("user", p, "u1"),
            entry("assistant", [{"type": "text", "text": p}], "a1"),
            use("t1", "Bash", {"command": p}),
            result("t1", p),
            use("t2", "Write", {"file_path": "/r/notes.md", "content": p}),
            use("t3", "Edit", {"file_path": "/r/app.py", "old_string": p, "new_string": p}),
            use("t4", "AskUserQuestion", {"questions": [{"question": p}]}),
            result("t4", "User has answered your questions: " + p),
            result("t2", p, is_error=True),
            entry("user", "<bash-input>" + p + "</bash-input>", "u2"),
        ]
    )


def _codex(p: str) -> str:
    def rec(kind: str, payload: dict) -> dict:
        return {"timestamp": "2025-01-01T00:00:00Z", "type": kind, "payload": payload}

    call = {"command": ["bash", "-lc", p], "workdir": "/r"}
    return _jsonl(
        [
            rec("session_meta", {"id": "s", "cwd": "/r"}),
            rec("event_msg", {"type": "user_message", "message": p}),
            rec("response_item", {"type": "message", "role": "user", "content": p}),
            rec(
                "response_item",
                {"type": "message", "role": "assistant", "content": [{"type": "text", "text": p}]},
            ),
            rec(
                "response_item",
                {
                    "type": "function_call",
                    "name": "shell",
                    "call_id": "c",
                    "arguments": json.dumps(call),
                },
            ),
            rec("response_item", {"type": "function_call_output", "call_id": "c", "output": p}),
            rec(
                "response_item",
                {"type": "custom_tool_call", "name": "apply_patch", "call_id": "d", "input": p},
            ),
            rec("compacted", {"message": p}),
        ]
    )


def _gemini_messages(p: str) -> list[dict]:
    calls = [
        {"id": "c1", "name": "run_shell_command", "args": {"command": p}, "status": "success"},
        {"id": "c2", "name": "write_file", "args": {"file_path": "n.md", "content": p}},
    ]
    for c in calls:
        c.setdefault("status", "success")
        c["result"] = [{"functionResponse": {"name": c["name"], "response": {"output": p}}}]
    return [
        {"id": "m1", "type": "user", "content": p},
        {"id": "m2", "type": "gemini", "content": p, "toolCalls": calls},
        {"id": "m3", "type": "info", "content": p},
    ]


def _gemini_saved(p: str) -> str:
    return json.dumps({"sessionId": "s", "projectHash": "h", "messages": _gemini_messages(p)})


def _gemini_stream(p: str) -> str:
    return _jsonl([{"sessionId": "s", "projectHash": "h"}, *_gemini_messages(p)])


def _opencode(p: str) -> str:
    def tool(name: str, args: dict) -> dict:
        state = {"status": "completed", "input": args, "output": p}
        return {"type": "tool", "tool": name, "state": state}

    done = {"created": 2, "completed": 3}
    return json.dumps(
        {
            "info": {"id": "ses_1", "title": "t"},
            "messages": [
                {
                    "info": {"id": "m1", "role": "user", "time": {"created": 1}},
                    "parts": [{"type": "text", "text": p}],
                },
                {
                    "info": {"id": "m2", "role": "assistant", "time": done},
                    "parts": [
                        {"type": "text", "text": p},
                        tool("bash", {"command": p}),
                        tool("write", {"filePath": "/r/n.md", "content": p}),
                        tool("question", {"questions": [{"question": p}]}),
                    ],
                },
            ],
        }
    )


def _aider(p: str) -> str:
    said = "".join(f"#### {line}  \n" for line in p.splitlines()[:5000] or [p])
    return (
        "\n# aider chat started at 2025-01-01 00:00:00\n\n"
        + "\n"
        + said
        + "\n"
        + p.strip()
        + "\n\n> "
        + p[:5000].replace("\n", " ")
        + "  \n"
    )


def _evidence(p: str) -> str:
    return _jsonl([{"schema_version": 1, "class": "USER", "text": p, "session_id": "s"}])


def _copilot(p: str) -> str:
    start = {"type": "session.start", "data": {"sessionId": "s"}, "id": "0"}
    return _jsonl([start, {"type": "user.message", "data": {"content": p}, "id": "u"}])


def _qwen(p: str) -> str:
    said = {"role": "user", "parts": [{"text": p}]}
    return _jsonl([{"type": "user", "sessionId": "s", "message": said}])


def _cursor(p: str) -> str:
    turn = {"role": "user", "message": {"content": [{"type": "text", "text": p}]}}
    return _jsonl([turn, {"type": "turn_ended", "status": "success"}])


def _amp(p: str) -> str:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": p}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": p},
                {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"cmd": p}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "toolUseID": "t1", "run": {"result": {"output": p}}}
            ],
        },
    ]
    return json.dumps({"v": 1, "id": "T-x", "created": 1, "messages": messages}, indent=1)


def _antigravity(p: str) -> str:
    return (
        "# Chat Conversation\n\n### User Input\n\n" + p + "\n\n*Viewed [a](file:///a) *\n\n"
        "*User accepted the command `" + p + "`*\n\n### Planner Response\n\n" + p + "\n"
    )


def _deepseek(p: str) -> str:
    def ev(seq: int, kind: str, data: dict) -> dict:
        return {"seq": seq, "time": seq, "type": kind, "data": data}

    return _jsonl(
        [
            {"type": "session", "version": 4, "id": "s", "delegationDepth": 0},
            ev(
                1,
                "user/message",
                {"source": {"kind": "user"}, "content": [{"type": "text", "text": p}]},
            ),
            ev(
                2,
                "assistant/chunk",
                {"turn": 1, "step": 1, "chunk": {"type": "text-delta", "text": p}},
            ),
            ev(3, "tool/call", {"callId": "c", "name": "bash", "arguments": {"command": p}}),
            ev(
                4,
                "tool/result",
                {"message": {"content": [{"type": "tool-result", "toolCallId": "c", "output": p}]}},
            ),
        ]
    )


CARRIERS: dict[str, tuple[str, str, Callable[[str], str]]] = {
    "claude": ("claude", "s.jsonl", _claude),
    "codex": ("codex", "rollout-x.jsonl", _codex),
    "gemini saved": ("gemini", "session-x.json", _gemini_saved),
    "gemini stream": ("gemini", "session-x.jsonl", _gemini_stream),
    "opencode": ("opencode", "export.json", _opencode),
    "aider": ("aider", ".aider.chat.history.md", _aider),
    "evidence": ("evidence", "evidence.jsonl", _evidence),
    "text": ("text", "notes.md", lambda p: p + "\n"),
    "copilot": ("copilot", "events.jsonl", _copilot),
    "kimi": ("kimi", "context.jsonl", lambda p: _jsonl([{"role": "user", "content": p}])),
    "qwen": ("qwen", "sess.jsonl", _qwen),
    "cursor": ("cursor", "t.jsonl", _cursor),
    "amp": ("amp", "T-x.json", _amp),
    "antigravity": ("antigravity", "chat.md", _antigravity),
    "deepseek": ("deepseek", "session.jsonl", _deepseek),
}


# --------------------------------------------------------------------------- entry points


def _reset() -> None:
    """Forget what earlier reads cached, so each run does the whole work."""
    CONTEXTS.clear()
    shell._analyze.cache_clear()


def _read_everything(adapter: str, path: Path) -> None:
    """Every entry point an adapter offers on one file: detection, a whole read, and a
    read window by window (the pipeline's way) for the adapters that take windows."""
    _reset()
    # sniffs every adapter on the file's head; "cannot tell" is an answer too
    with contextlib.suppress(JournalError):
        guess_adapter(path)
    whole = ADAPTERS[adapter](path, 0)
    assert whole.records >= 1 or whole.fatal == ""
    if whole.unit == "byte":
        size = path.stat().st_size
        pos, steps = 0, 0
        while pos < whole.end and steps < 64:
            part = ADAPTERS[adapter](path, pos, limit_bytes=max(1, size // 8))
            if part.end <= pos:
                break
            pos, steps = part.end, steps + 1


def _decode_directly(text: str) -> None:
    """The decoders every adapter shares, on the bare text."""
    _reset()
    shell.analyze(text, "/r")
    pv.decode_call("Bash", {"command": text})
    pv.decode_call("apply_patch", text)
    pv.patch_files(text)
    pv.answers(text)
    pv.rejection(text)
    assistant_pieces(text)
    person_words(text)


def _seconds(run: Callable[[], None], repeats: int) -> float:
    """The best CPU time of *repeats* runs: CPU time, not wall time, so the other
    processes of a loaded machine do not count against the code under test."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        run()
        best = min(best, time.process_time() - t0)
    return best


def assert_linear(small: Callable[[], None], big: Callable[[], None], what: str) -> None:
    """10x the input costs at most ~15x the time. A miss is measured again (best of more
    runs) before it counts, so one stall of a loaded machine does not fail the test."""
    ts = tb = 0.0
    for repeats in (1, 2, 3):
        ts, tb = _seconds(small, repeats), _seconds(big, repeats)
        assert tb < CAP, f"{what}: {tb:.1f}s on the big input"
        if tb <= GROWTH * ts + SLACK:
            return
    pytest.fail(f"{what}: {ts * 1000:.1f} ms → {tb * 1000:.1f} ms for 10x the input")


@pytest.mark.slow
@pytest.mark.parametrize("payload", sorted(PAYLOADS))
def test_every_adapter_reads_it_in_linear_time(tmp_path, payload):
    make = PAYLOADS[payload]
    small_text, big_text = make(SMALL), make(BIG)
    assert 9 * len(small_text) <= len(big_text) <= 11 * len(small_text)
    assert_linear(
        lambda: _decode_directly(small_text),
        lambda: _decode_directly(big_text),
        f"{payload} / decoders",
    )
    for carrier, (adapter, name, wrap) in CARRIERS.items():
        files = []
        for size, text in (("small", small_text), ("big", big_text)):
            folder = tmp_path / carrier.replace(" ", "-") / size
            folder.mkdir(parents=True)
            path = folder / name
            path.write_text(wrap(text), encoding="utf-8")
            files.append(path)
        assert_linear(
            lambda a=adapter, f=files[0]: _read_everything(a, f),
            lambda a=adapter, f=files[1]: _read_everything(a, f),
            f"{payload} / {carrier}",
        )


# --------------------------------------------------------------------------- answers

#: The pattern the answer parser replaced (it backtracks quadratically on text with many
#: quotes and no closing words); kept here as the oracle the linear parser must agree with.
_ANSWER_ORACLE = re.compile(
    r'"(?P<q>.+?)"="(?P<a>.*?)"(?=\s*(?:,\s*"|\.\s*You can now|\.?\s*$))', re.DOTALL
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(['"', "=", ",", " ", ".", "a", "You can now", "\n", '"="', '", "', "é"]),
        max_size=16,
    ).map("".join)
)
def test_answers_are_split_as_the_harness_writes_them(text):
    want = [(m.group("q"), m.group("a")) for m in _ANSWER_ORACLE.finditer(text)]
    assert pv._answer_pairs(text) == want
