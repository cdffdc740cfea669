"""The two adapters that need no agent: a versioned evidence JSONL and plain text.

* ``evidence`` -- ``{"schema_version": 1, "session_id", "class", "text", "timestamp"}`` per
  line; the class is taken as written (the file's author vouches for it). Watermark: the
  record sequence number (0-based line number), because such archives get rewritten.
* ``text`` -- plain text or Markdown, each paragraph USER (a person's own notes). Byte
  watermark; a paragraph is consumed once a blank line follows it, or when it is the last
  one and the file ends with a newline.
"""

from __future__ import annotations

import os

from kura_core.distill.evidence import CLASSES

from .base import (
    REPAIRED,
    Intake,
    Read,
    decode_bytes,
    decode_line,
    encoding_problem,
    jsonl_problem,
    open_lines,
    refused,
)
from .registry import Adapter, Head

SCHEMA_VERSION = 1


def read_evidence(
    path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None
) -> Read:
    """Read a versioned evidence JSONL from record number *start*.

    The sequence number of a record is its 0-based line number; blank lines hold a number
    but carry no record. Invalid lines are skipped and noted by reason. ``limit_bytes`` is
    accepted for a uniform signature and ignored (the unit is records, not bytes).
    """
    source = str(path)
    problem = jsonl_problem(path, "evidence")
    if problem:
        return refused("seq", start, problem)
    intake = Intake(source, "seq")
    intake.variant = f"schema_version {SCHEMA_VERSION}"
    with open(path, "rb") as fh:
        data = fh.read()
    cut = data.rfind(b"\n")
    complete = data[:cut].split(b"\n") if cut >= 0 else []
    if start > len(complete):
        intake.note(start, start, "journal shorter than watermark")
        return intake.result(start, start)
    for seq in range(start, len(complete)):
        raw = complete[seq]
        if not raw.strip():
            continue
        intake.begin(seq, seq + 1)
        _evidence_record(raw, seq, intake)
    return intake.result(start, len(complete))


def _evidence_record(raw: bytes, seq: int, intake: Intake) -> None:
    line = decode_line(raw, first=seq == 0)
    for why, kind in line.problems:
        intake.note(seq, seq + 1, why, kind)
    obj = line.obj
    if obj is None:
        return
    reason = _problem(obj)
    if reason:
        intake.note(seq, seq + 1, reason)
        return
    intake.add(
        obj["class"].strip().upper(),
        obj["text"],
        seq,
        seq + 1,
        session=obj.get("session_id") or "",
        stamp=obj.get("timestamp") or "",
        kind="evidence record",
    )


def _problem(obj: dict) -> str:
    if "schema_version" not in obj:
        return "missing schema_version"
    version = obj["schema_version"]
    if isinstance(version, bool) or version != SCHEMA_VERSION:
        return "unknown schema_version"
    cls = obj.get("class")
    if not isinstance(cls, str) or cls.strip().upper() not in CLASSES:
        return "unknown class"
    text = obj.get("text")
    if not isinstance(text, str) or not text.strip():
        return "missing text"
    if obj.get("session_id") is not None and not isinstance(obj.get("session_id"), str):
        return "bad session_id"
    if obj.get("timestamp") is not None and not isinstance(obj.get("timestamp"), str):
        return "bad timestamp"
    return ""


def read_text(path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None) -> Read:
    """Read plain text or Markdown from byte offset *start*; each paragraph is USER.

    Paragraphs are separated by blank (whitespace-only) lines. A paragraph whose last
    line has no newline yet is left whole for the next read -- so a half-written
    paragraph is never split. ``limit_bytes`` is accepted and ignored.
    """
    source = str(path)
    problem = encoding_problem(path)
    if problem:
        return refused("byte", start, problem)
    intake = Intake(source, "byte")
    intake.variant = "paragraphs"
    first, lines, end, tail = open_lines(path, start, None, intake)
    para: list[tuple[int, str]] = []

    def flush() -> None:
        if not para:
            return
        text = "\n".join(t.rstrip("\r\n") for _, t in para)
        begin = para[0][0]
        intake.begin(begin, stop_of[begin])
        intake.add("USER", text.strip("\n"), begin, stop_of[begin], kind="paragraph")
        para.clear()

    stop_of: dict[int, int] = {}
    consumed = first
    for offset, raw in lines:
        text, repaired = decode_bytes(raw)
        if offset == 0:
            text = text.lstrip("\ufeff")
        if repaired:
            intake.note(offset, offset + len(raw), "invalid UTF-8 replaced (kept)", REPAIRED)
        if text.strip():
            para.append((offset, text))
            stop_of[para[0][0]] = offset + len(raw)
        else:
            flush()
            consumed = offset + len(raw)
    if para and tail:
        para.clear()  # the last paragraph continues on a line still being written
    elif para:
        flush()
        consumed = end
    return intake.result(start, max(consumed, start))


# --------------------------------------------------------------------------- detection


def _claims_evidence(obj: dict, _index: int) -> bool:
    return "schema_version" in obj and "class" in obj


def sniff_evidence(head: Head) -> float:
    """Evidence JSONL: ``schema_version`` + ``class`` on every record."""
    return head.share(_claims_evidence)


def sniff_text(_head: Head) -> float:
    """Plain text is never detected: any file would do, and every paragraph is USER."""
    return 0.0


EVIDENCE = Adapter(
    name="evidence",
    label="evidence JSONL",
    unit="seq",
    read=read_evidence,
    sniff=sniff_evidence,
    include=("**/*.jsonl",),
    variants=(f"schema_version {SCHEMA_VERSION}",),
)

TEXT = Adapter(
    name="text",
    label="plain text",
    unit="byte",
    read=read_text,
    sniff=sniff_text,
    include=("**/*.md",),
    variants=("paragraphs",),
    auto=False,
)
