"""Journal adapters: read a transcript from a watermark, return classed segments.

One adapter per format, each in its own module:

==========  ==========================================================  ==========
adapter     reads                                                       watermark
==========  ==========================================================  ==========
claude      Claude Code JSONL (``~/.claude/projects``)                    byte
codex       Codex CLI rollouts (``~/.codex/sessions``)                    byte
gemini      Gemini CLI chats, saved JSON or JSONL (``~/.gemini/tmp``)     seq
opencode    opencode export JSON, file storage, database                  seq
aider       ``.aider.chat.history.md``                                    byte
evidence    versioned evidence JSONL                                      seq
text        plain text / Markdown (each paragraph USER)                   byte
cline       Cline / Roo Code / Kilo Code task files                       seq
continue    Continue (and Kiro IDE) session documents                     seq
copilot     GitHub Copilot CLI ``events.jsonl``                           byte
copilot-    earlier Copilot CLI session documents                         seq
legacy
cursor      Cursor agent transcripts, Grok CLI chat history               byte
specstory   SpecStory Markdown exports of Cursor chats                    seq
kimi        Kimi CLI ``context.jsonl`` / ``wire.jsonl``                   byte
qwen        Qwen Code chat recordings                                     byte
==========  ==========================================================  ==========

Byte offsets suit files that only grow; ``seq`` numbers (a message, line or record index,
or for opencode's database a message's creation time) suit files rewritten whole. Every
adapter takes ``(path, start, *, limit_bytes=None)`` and returns a :class:`Read`; it
consumes only complete records and never moves past half of one. Provenance -- who
wrote each text -- is decided by the same rules for every adapter
(:mod:`.provenance`, :mod:`.shell`, :mod:`.paths`); ``docs/DESIGN.md`` lists each record
type of each format and its class.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from .aider import read_aider
from .base import IGNORED, REPAIRED, SKIPPED, JournalError, Note, Read
from .claude import read_claude
from .cline import read_cline
from .codex import read_codex
from .continue_dev import read_continue
from .copilot import read_copilot, read_copilot_legacy
from .cursor import read_cursor, read_specstory
from .detect import ADAPTER_NAMES, guess_adapter, sniff_adapter
from .discovery import DEFAULT_INCLUDE, DEFAULT_ROOTS, JournalFile, JournalRoot, discover
from .gemini import read_gemini
from .inspect import Inspection, SegmentContext, inspect, read_journal, segment_context
from .kimi import read_kimi
from .opencode import read_opencode
from .plain import read_evidence, read_text
from .qwen import read_qwen


def _read_specstory(
    path: str | os.PathLike[str], start: int, *, limit_bytes: int | None = None
) -> Read:
    return read_specstory(path, start)


ADAPTERS: dict[str, Callable[..., Read]] = {
    "claude": read_claude,
    "codex": read_codex,
    "gemini": read_gemini,
    "opencode": read_opencode,
    "aider": read_aider,
    "evidence": read_evidence,
    "text": read_text,
    "cline": read_cline,
    "continue": read_continue,
    "copilot": read_copilot,
    "copilot-legacy": read_copilot_legacy,
    "cursor": read_cursor,
    "specstory": _read_specstory,
    "kimi": read_kimi,
    "qwen": read_qwen,
}

UNITS: dict[str, str] = {
    "claude": "byte",
    "codex": "byte",
    "gemini": "seq",
    "opencode": "seq",
    "aider": "byte",
    "evidence": "seq",
    "text": "byte",
    "cline": "seq",
    "continue": "seq",
    "copilot": "byte",
    "copilot-legacy": "seq",
    "cursor": "byte",
    "specstory": "seq",
    "kimi": "byte",
    "qwen": "byte",
}


__all__ = [
    "ADAPTERS",
    "ADAPTER_NAMES",
    "DEFAULT_INCLUDE",
    "DEFAULT_ROOTS",
    "IGNORED",
    "REPAIRED",
    "SKIPPED",
    "UNITS",
    "Inspection",
    "JournalError",
    "JournalFile",
    "JournalRoot",
    "Note",
    "Read",
    "SegmentContext",
    "discover",
    "guess_adapter",
    "inspect",
    "read_aider",
    "read_claude",
    "read_cline",
    "read_continue",
    "read_copilot",
    "read_copilot_legacy",
    "read_cursor",
    "read_kimi",
    "read_qwen",
    "read_specstory",
    "read_codex",
    "read_evidence",
    "read_gemini",
    "read_journal",
    "read_opencode",
    "read_text",
    "segment_context",
    "sniff_adapter",
]
