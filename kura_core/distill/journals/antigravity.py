"""Google Antigravity (and Windsurf Cascade) conversation exports: Markdown.

Antigravity keeps its conversations as protocol buffers under
``~/.gemini/antigravity/conversations`` (not a readable transcript); what it gives people is
the export, one Markdown file per conversation, which Windsurf's Cascade writes the same
way::

    # Chat Conversation                      (Windsurf: "# Cascade Chat Conversation")

    Note: _This is purely the output of the chat conversation …_

    ### User Input
    <what the person typed>
    *Viewed [name](file:///…) *              <- the agent's actions, one italic line each
    *User accepted the command `npm run dev`*
    ### Planner Response
    <the agent's reply>

Read as a whole (``seq`` watermark: the section index, like SpecStory). A ``User Input``
section is USER up to the first action line; every action line (``*Viewed …*``,
``*Edited relevant file*``, ``*User accepted the command `…`*`` -- the command is the
agent's, only the approval was the person's) is ACT wherever it stands; a ``Planner
Response`` is SELF. The title and the export note are bookkeeping. Headings are never
taken inside a code fence (:func:`.cursor.markdown_turns`).
"""

from __future__ import annotations

import os
import re

from . import provenance as pv
from .base import Intake, Read, decode_bytes, encoding_problem, read_turns, refused
from .databases import nothing_yet
from .registry import Adapter, Head

UNIT = "seq"

_HEADING = re.compile(r"^###[ \t]+(User Input|Planner Response)[ \t]*$")
_TITLE = re.compile(r"^#[ \t]+(?:Cascade[ \t]+)?Chat Conversation[ \t]*$", re.MULTILINE)
#: The verbs an action line starts with (the exporter's own words for each tool).
_VERBS = (
    "User accepted the command",
    "User rejected the command",
    "User declined",
    "Viewed",
    "Edited",
    "Listed directory",
    "Searched",
    "Grep searched",
    "Semantic searched",
    "Checked command status",
    "Ran",
    "Read",
    "Analyzed",
    "Opened",
    "Created",
    "Deleted",
    "Running MCP tool",
    "MCP Tool",
    "Called",
    "Updated",
    "Generated",
    "Asked user a question",
    "Accessed",
    "Captured",
    "Clicked",
    "Navigated",
    "Typed",
    "Scrolled",
    "Took",
    "Fetched",
    "Planned for action",
    "Proceeded",
    "Sent",
)
_ACTION = re.compile(r"^\*(?:" + "|".join(re.escape(v) for v in _VERBS) + r")\b")


def is_export(text: str) -> bool:
    """Does *text* open like an Antigravity / Cascade conversation export?"""
    head = text.lstrip("\ufeff \n")[:4096]
    return bool(_TITLE.match(head)) and ("### User Input" in text or "### Planner Response" in text)


def _split(body: str) -> list[tuple[str, str]]:
    """``(kind, text)`` runs of a section: ``"text"`` prose and ``"action"`` lines. An
    action that opens a command in backticks runs until the line that closes it."""
    runs: list[tuple[str, list[str]]] = []
    open_action = False
    for line in body.split("\n"):
        if open_action:
            runs[-1][1].append(line)
            open_action = not line.rstrip().endswith("*")
            continue
        if _ACTION.match(line):
            runs.append(("action", [line]))
            open_action = not line.rstrip().endswith("*")
            continue
        if not runs or runs[-1][0] != "text":
            runs.append(("text", []))
        runs[-1][1].append(line)
    return [(kind, "\n".join(lines).strip()) for kind, lines in runs if "".join(lines).strip()]


def _action_text(line: str) -> str:
    text = line.strip()
    if text.startswith("*") and text.endswith("*"):
        text = text[1:-1].strip()
    return text


def section_pieces(who: str, body: str) -> list[pv.Piece]:
    """The classed texts of one section."""
    out: list[pv.Piece] = []
    person = who == "User Input"
    acted = False
    for kind, text in _split(body):
        if kind == "action":
            acted = True
            out.append(pv.Piece("ACT", _action_text(text), "agent action (export)"))
        elif person and not acted:
            out.append(pv.Piece("USER", text, "user input (export)"))
        else:
            out.append(pv.Piece("SELF", text, "planner response (export)"))
    return out


def sections(text: str) -> list[tuple[str, str]]:
    from .cursor import markdown_turns

    return [
        (_HEADING.match(head).group(1), body)  # type: ignore[union-attr]
        for head, body in markdown_turns(text, _HEADING, ("###",))
    ]


def read_antigravity(
    path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None
) -> Read:
    """Read an Antigravity / Cascade conversation export from section *start*."""
    source = str(path)
    if nothing_yet(path):
        return Intake(source, UNIT).result(start, start)
    problem = encoding_problem(path)
    if problem:
        return refused(UNIT, start, problem)
    with open(path, "rb") as fh:
        text, repaired = decode_bytes(fh.read())
    if not is_export(text):
        name = os.path.basename(source)
        return refused(UNIT, start, f"{name} is not an Antigravity or Cascade conversation export")
    variant = "Cascade export" if "# Cascade" in text[:200] else "Antigravity export"
    return read_turns(
        source,
        UNIT,
        sections(text),
        start,
        section_pieces,
        repaired=repaired,
        empty="empty section",
        variant=variant,
    )


def sniff(head: Head) -> float:
    if not head.plain:
        return 0.0
    text, _ = decode_bytes(head.text)
    return 1.0 if is_export(text) else 0.0


ADAPTER = Adapter(
    name="antigravity",
    label="Antigravity / Cascade export",
    unit=UNIT,
    read=read_antigravity,
    sniff=sniff,
    include=("**/*.md",),
    variants=("Antigravity export", "Cascade export"),
)
