"""Aider chat history (``.aider.chat.history.md`` at the root of each repository).

Markdown appended as the chat runs: byte-offset watermarks.

* ``#### `` lines are what the person typed (USER), commands such as ``/add`` included;
  consecutive ``#### `` lines are one message.
* ``> `` lines are aider itself and the tools it runs -- version banners, "Applied edit",
  commit lines, ``/run`` output, lint errors, token counts -- machine output (TOOL). A line
  without the prefix directly after one (no blank line between) continues it.
* ``# aider chat started at …`` starts a session: it is ignored, and its timestamp becomes
  the session id of what follows.
* Everything else is the assistant: SELF. Its edit blocks are decoded: the new text of a
  ``SEARCH/REPLACE`` block or of a unified diff is ACT for a configuration, code or data
  file (what was set), SELF for a prose document, and is cut out of the SELF text around
  it so the same words are never both.

A block is consumed once another block follows it, or when it is the last one and the
file ends with a newline; a block whose last line is still being written waits.
"""

from __future__ import annotations

import os
import re

from . import provenance as pv
from .base import (
    BACKSCAN_BYTES,
    IGNORED,
    REPAIRED,
    Intake,
    Read,
    decode_bytes,
    encoding_problem,
    open_lines,
    refused,
)
from .paths import is_prose_path

UNIT = "byte"
#: the header line; what follows "at" is read up to its last non-space character in one
#: pass (a lazy group retried the rest of the line at every character)
_HEADER = re.compile(r"^# aider chat started at (.*\S|.)\s*+$")
_SEARCH = re.compile(
    r"(?P<pre>(?:^[^\n]*\n)?(?:^```[^\n]*\n)?)^<{5,9} SEARCH[^\n]*\n(?P<old>.*?)^={5,9}[ \t]*\n"
    r"(?P<new>.*?)^>{5,9} REPLACE[^\n]*\n?(?:^```[ \t]*\n?)?",
    re.DOTALL | re.MULTILINE,
)
_DIFF = re.compile(r"^```diff[^\n]*\n(?P<body>.*?)^```[ \t]*$\n?", re.DOTALL | re.MULTILINE)
_FENCE = re.compile(r"^```")
_HEADERS = re.compile(r"^# aider chat started at (.*\S|.)", re.MULTILINE)
_USER_MARK = re.compile(r"^####\s?")
_TOOL_MARK = re.compile(r"^>\s?")


def _kind(line: str) -> str:
    if _HEADER.match(line):
        return "header"
    if line.startswith("####"):
        return "user"
    if line.startswith("> ") or line.rstrip() == ">":
        return "tool"
    return "blank" if not line.strip() else "text"


def _edit_file(pre: str, text_before: str) -> str:
    """The file an edit block belongs to: the line before its fence (or before the
    ``SEARCH`` marker), falling back to the last such line in the text before it."""
    lines = [l.strip() for l in pre.splitlines() if l.strip() and not _FENCE.match(l.strip())]
    if lines:
        return lines[-1].strip("`*: ")
    prior = [
        l.strip() for l in text_before.splitlines() if l.strip() and not _FENCE.match(l.strip())
    ]
    return prior[-1].strip("`*: ") if prior else ""


def assistant_pieces(text: str) -> list[pv.Piece]:
    """SELF prose with its edit blocks taken out as ACT (or SELF for prose files)."""
    pieces: list[pv.Piece] = []
    out: list[str] = []
    pos = 0
    spans: list[tuple[int, int, list[pv.Piece]]] = []
    for m in _SEARCH.finditer(text):
        path = _edit_file(m.group("pre"), text[: m.start()])
        got: list[pv.Piece] = []
        new = m.group("new").rstrip("\n")
        header = f"edit: {path or '(file not named)'}"
        if path and is_prose_path(path):
            got.append(pv.Piece("ACT", header, "edit block"))
            if new.strip():
                got.append(pv.Piece("SELF", new, f"prose written to {path.rsplit('/', 1)[-1]}"))
        else:
            got.append(pv.Piece("ACT", header + ("\n" + new if new else ""), "edit block"))
        spans.append((m.start(), m.end(), got))
    for m in _DIFF.finditer(text):
        if any(s <= m.start() < e for s, e, _ in spans):
            continue
        files = pv.patch_files(m.group("body"))
        if not files:
            continue
        got = []
        for _op, path, new in files:
            header = f"edit: {path}"
            if is_prose_path(path):
                got.append(pv.Piece("ACT", header, "edit block"))
                if new.strip():
                    got.append(pv.Piece("SELF", new, f"prose written to {path.rsplit('/', 1)[-1]}"))
            else:
                got.append(pv.Piece("ACT", header + ("\n" + new if new else ""), "edit block"))
        spans.append((m.start(), m.end(), got))
    spans.sort()
    for s, e, got in spans:
        out.append(text[pos:s])
        names = [p.text.split("\n", 1)[0] for p in got if p.cls == "ACT"]
        out.append("[" + "; ".join(names) + "]\n")
        pieces.extend(got)
        pos = e
    out.append(text[pos:])
    prose = "".join(out).strip()
    if prose:
        pieces.insert(0, pv.Piece("SELF", prose, "assistant text"))
    return pieces


def _session_before(path: str | os.PathLike[str], start: int) -> tuple[str, str]:
    """``(session id, kind of the line just before start)``."""
    if start <= 0:
        return "", "blank"
    with open(path, "rb") as fh:
        begin = max(0, start - BACKSCAN_BYTES)
        fh.seek(begin)
        data = fh.read(start - begin)
    text, _ = decode_bytes(data)
    session = ""
    for m in _HEADERS.finditer(text):
        session = m.group(1)
    lines = text.split("\n")
    last = lines[-2] if len(lines) >= 2 else ""
    return session, _kind(last)


def read_aider(path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None) -> Read:
    """Read an aider chat history from byte offset *start* (see the module docstring)."""
    source = str(path)
    problem = encoding_problem(path)
    if problem:
        return refused(UNIT, start, problem)
    intake = Intake(source, UNIT)
    first, lines, end, tail = open_lines(path, start, limit_bytes, intake)
    session, prev = _session_before(path, start)
    blocks, state = _blocks(lines, intake, prev)
    consumed = first
    if blocks and tail and (blocks[-1][0] == "text" or state != "blank"):
        blocks.pop()  # the line still being written may continue it
    for k, b_start, b_end, texts in blocks:
        consumed = b_end
        intake.records += 1
        session = _add_block(intake, k, b_start, b_end, texts, session)
    if not tail and lines:
        consumed = end
    return intake.result(start, max(consumed, start))


def _blocks(lines: list[tuple[int, bytes]], intake: Intake, prev: str) -> tuple[list[list], str]:
    """Consecutive lines of one kind as ``[kind, start, end, [texts]]``, and the kind of
    the last line (``"blank"`` after a blank one)."""
    blocks: list[list] = []
    state = prev if prev in ("tool",) else "blank"
    for offset, raw in lines:
        text, repaired = decode_bytes(raw)
        if offset == 0:
            text = text.lstrip("\ufeff")
        if repaired:
            intake.note(offset, offset + len(raw), "invalid UTF-8 replaced (kept)", REPAIRED)
        line = text.rstrip("\r\n")
        k = _kind(line)
        if k == "text" and state == "tool":
            k = "tool"  # an unprefixed line right after aider's output continues it
        if k == "blank":
            if blocks and blocks[-1][0] == "text":
                blocks[-1][2] = offset + len(raw)
                blocks[-1][3].append(line)
            state = "blank"
            continue
        if blocks and blocks[-1][0] == k and k in ("user", "tool", "text"):
            blocks[-1][2] = offset + len(raw)
            blocks[-1][3].append(line)
        else:
            blocks.append([k, offset, offset + len(raw), [line]])
        state = k
    return blocks, state


def _add_block(
    intake: Intake, k: str, b_start: int, b_end: int, texts: list[str], session: str
) -> str:
    """Add one block's segments; the session it belongs to (a header starts a new one)."""
    if k == "header":
        m = _HEADER.match(texts[0])
        intake.note(b_start, b_end, "session start", IGNORED)
        return m.group(1) if m else session
    if k == "user":
        body = "\n".join(_USER_MARK.sub("", t).rstrip() for t in texts).strip()
        intake.add("USER", body, b_start, b_end, session=session, stamp=session, kind="user prompt")
    elif k == "tool":
        body = "\n".join(_TOOL_MARK.sub("", t).rstrip() for t in texts).strip()
        intake.add(
            "TOOL", body, b_start, b_end, session=session, stamp=session, kind="aider output"
        )
    else:
        for p in assistant_pieces("\n".join(texts) + "\n"):
            intake.add(p.cls, p.text, b_start, b_end, session=session, stamp=session, kind=p.kind)
    return session
