"""Aider's chat history: only the block aider writes for the person's input is USER.

Aider appends the person's input as a blank line and then every input line as ``#### ``
+ the line + a two-space Markdown hard break; the assistant's reply is its Markdown,
stripped, between blank lines. The generated histories below are written the way aider
writes them, with replies full of ``####`` headings. (A reply line in exactly the
person's form -- a blank line, ``#### ``, text, two spaces -- cannot be told apart from
the person's input; models do not end headings with a hard break.)"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from kura_core.distill.journals import read_aider


def human(text: str) -> str:
    """The person's input as aider appends it."""
    lines = text.splitlines() or ["<blank>"]
    return "\n#### " + "  \n#### ".join(lines).rstrip() + "  \n"


def reply(text: str) -> str:
    """An assistant reply as aider appends it."""
    return "\n" + text.strip() + "\n\n"


def tool(text: str) -> str:
    return "> " + text.strip() + "  \n"


HEADER = "\n# aider chat started at 2025-09-14 21:03:11\n\n"


def test_an_h4_heading_in_the_reply_is_not_the_person(tmp_path):
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(
        HEADER
        + human("add a healthcheck to the compose file")
        + reply(
            "#### Plan\n\nNOTHUMAN I'll add a healthcheck.\n\n#### Steps\n"
            "1. edit compose.yml\n\n```md\n#### not a person either  \n```"
        )
        + tool("Tokens: 1k sent, 20 received.")
        + human("thanks\nkeep the interval at 30s")
    )
    read = read_aider(path, 0)
    users = [s.text for s in read.segments if s.cls == "USER"]
    assert users == ["add a healthcheck to the compose file", "thanks\nkeep the interval at 30s"]
    selfs = "\n".join(s.text for s in read.segments if s.cls == "SELF")
    assert "#### Plan" in selfs and "#### Steps" in selfs


def test_an_empty_input_is_noted_not_read(tmp_path):
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(HEADER + human("") + reply("NOTHUMAN ok"))
    read = read_aider(path, 0)
    assert [s.cls for s in read.segments] == ["SELF"]
    assert any("<blank>" in n.reason for n in read.notes)


_WORDS = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\r\x0b\x0c"),
    min_size=1,
    max_size=40,
).filter(lambda s: s.strip() and "\n" not in s and "\x85" not in s)
_INPUT = st.lists(_WORDS, min_size=1, max_size=4).map("\n".join)
_MARKDOWN_LINE = st.one_of(
    _WORDS.map(lambda w: "#### " + w.rstrip()),  # a heading: no hard break
    # a line in the person's exact form, but glued to the line before it
    st.tuples(_WORDS, _WORDS).map(lambda p: f"x{p[0]}\n#### {p[1].strip()}  "),
    _WORDS,
    st.just(""),
    st.just("```"),
)
_REPLY = st.lists(_MARKDOWN_LINE, min_size=1, max_size=8).map("\n".join)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(turns=st.lists(st.tuples(_INPUT, _REPLY), min_size=1, max_size=5))
def test_user_is_exactly_what_the_person_typed(tmp_path: Path, turns):
    body = HEADER
    typed = []
    for said, answer in turns:
        body += human(said)
        if answer.strip():
            body += reply("NOTHUMAN " + answer)
        typed.append("\n".join(line.rstrip() for line in said.splitlines()).strip())
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(body, encoding="utf-8")
    read = read_aider(path, 0)
    users = [s.text for s in read.segments if s.cls == "USER"]
    assert users == [t for t in typed if t and t != "<blank>"]
    for s in read.segments:
        if s.cls != "USER":
            continue
        assert "NOTHUMAN" not in s.text


REAL = Path(__file__).resolve().parents[1] / "fixtures/journals/aider/real/.aider.chat.history.md"


def test_a_real_history_keeps_the_persons_block_whole_and_the_reply_apart():
    read = read_aider(REAL, 0)
    users = [s.text for s in read.segments if s.cls == "USER"]
    assert users == [
        "Please create an .aidar.json file in the root directory of the project to track the "
        "entire project directory",
        "Please create a clean project structure for a PyTorch IoT project. It should have a:\n"
        "\n-a src/ folder which has:\n\t-dataset.py\n\t-model.py\n\nDon’t write any code yet",
    ]
    selfs = "\n".join(s.text for s in read.segments if s.cls == "SELF")
    assert "#### Plan" in selfs  # the reply's heading stays the assistant's
    assert [s.text.split("\n", 1)[0] for s in read.segments if s.cls == "ACT"] == [
        "edit: .aidar.json",
        "edit: src/dataset.py",
    ]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    turns=st.lists(st.tuples(_INPUT, _REPLY), min_size=1, max_size=4),
    cut=st.floats(0.0, 1.0),
    limit=st.integers(1, 300),
)
def test_a_reply_still_being_written_waits_in_windows_of_any_size(
    tmp_path: Path, turns, cut, limit
):
    """The history as it stands mid-write (cut anywhere), read window by window: every
    window returns (a block still being written waits, however small the window), and
    the windows read what one whole read of the same bytes reads."""
    body = HEADER
    for said, answer in turns:
        body += human(said) + reply("NOTHUMAN " + answer)
    data = body.encode("utf-8")
    path = tmp_path / ".aider.chat.history.md"
    path.write_bytes(data[: int(len(data) * cut)])
    whole = read_aider(path, 0)
    got, start = [], 0
    for _ in range(len(data) + 1):
        read = read_aider(path, start, limit_bytes=limit)
        got.extend((s.cls, s.text) for s in read.segments)
        if read.end == start:
            break
        start = read.end
    assert start == whole.end
    assert got == [(s.cls, s.text) for s in whole.segments]


def test_a_json_line_the_person_pasted_leaves_the_history_aiders(tmp_path):
    """A chat history with a JSON response on a line of its own is still aider's: one JSON
    line among many Markdown lines makes no JSON Lines file."""
    from kura_core.distill.journals.detect import sniff_adapter

    path = tmp_path / ".aider.chat.history.md"
    path.write_text(
        HEADER
        + human("what does the health endpoint return?")
        + reply("Run `curl -s localhost:8080/health` and paste it.")
        + human("here:")
        + reply('{"status": "ok", "version": "2.4.1", "uptime_s": 86400}\n\nIt is healthy.')
    )
    assert sniff_adapter(path) == "aider"
    read = read_aider(path, 0)
    assert [s.text for s in read.segments if s.cls == "USER"][-1] == "here:"
    assert any('"version": "2.4.1"' in s.text for s in read.segments)
