"""Journal adapters: read a transcript from a watermark, return classed segments.

One adapter per format, each in its own module ending in one :class:`~.registry.Adapter`
value; :mod:`.registry` lists them (and plug-ins of the ``kura.adapters`` entry-point
group), and every table below is derived from it:

==========  ==========================================================  ==========
adapter     reads                                                       watermark
==========  ==========================================================  ==========
claude      Claude Code JSONL (``~/.claude/projects``)                    byte
codex       Codex CLI rollouts (``~/.codex/sessions``)                    byte
gemini      Gemini CLI chats, saved JSON or JSONL (``~/.gemini/tmp``)     seq
opencode    opencode export JSON, file storage, database                  seq
aider       ``.aider.chat.history.md``                                    byte
evidence    versioned evidence JSONL                                      seq
text        plain text / Markdown (each paragraph USER; never detected)   byte
cline       Cline / Roo Code / Kilo Code task files                       seq
continue    Continue (and Kiro IDE) session documents                     seq
copilot     GitHub Copilot CLI ``events.jsonl``                           byte
copilot-    earlier Copilot CLI session documents                         seq
legacy
cursor      Cursor agent transcripts, Grok CLI chat history               byte
specstory   SpecStory Markdown exports of Cursor chats                    seq
kimi        Kimi CLI ``context.jsonl`` / ``wire.jsonl``                   byte
qwen        Qwen Code chat recordings                                     byte
crush       Crush's ``.crush/crush.db`` (SQLite)                          seq (rowid)
zed         Zed's ``threads.db`` (SQLite, zstd JSON)                      seq (ms)
amp         Amp ``threads/T-*.json``                                      seq
cursor-     the cursor-agent CLI's ``store.db`` chat stores               seq
agent
antigra-    Antigravity / Windsurf Cascade Markdown exports               seq
vity
deepseek    DeepSeek Harness ``session.jsonl.zstd``                       seq
==========  ==========================================================  ==========

Byte offsets suit files that only grow; ``seq`` numbers (a message, line or record index,
or for opencode's database a message's creation time) suit files rewritten whole. Every
adapter takes ``(path, start, *, limit_bytes=None)`` and returns a :class:`Read`; it
consumes only complete records, never moves past half of one, and accounts for every
record it consumes (a segment or a note). Provenance -- who wrote each text -- is decided
by the same rules for every adapter (:mod:`.provenance`, :mod:`.shell`, :mod:`.paths`);
``docs/DESIGN.md`` lists each record type of each format and its class.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from . import registry
from .aider import read_aider
from .base import HELD, IGNORED, REPAIRED, SKIPPED, JournalError, Note, Read
from .claude import read_claude
from .cline import read_cline
from .codex import read_codex
from .continue_dev import read_continue
from .copilot import read_copilot, read_copilot_legacy
from .cursor import read_cursor, read_specstory
from .detect import adapter_names, guess_adapter, sniff_adapter
from .discovery import JournalFile, JournalRoot, default_roots, discover
from .gemini import read_gemini
from .inspect import Inspection, SegmentContext, inspect, read_journal, segment_context
from .kimi import read_kimi
from .opencode import read_opencode
from .plain import read_evidence, read_text
from .qwen import read_qwen
from .registry import Adapter, Head, JournalAdapter


class _Derived(Mapping[str, Any]):
    """A read-only table of one attribute of every registered adapter, looked up when
    used, so a plug-in adapter appears in it like a built-in one."""

    def __init__(self, pick: Callable[[JournalAdapter], Any]) -> None:
        self._pick = pick

    def __getitem__(self, name: str) -> Any:
        a = registry.get(name)
        if a is None:
            raise KeyError(name)
        return self._pick(a)

    def __iter__(self) -> Iterator[str]:
        return iter(registry.names())

    def __len__(self) -> int:
        return len(registry.names())


#: name → read function
ADAPTERS: Mapping[str, Callable[..., Read]] = _Derived(lambda a: a.read)
#: name → watermark unit ("byte" or "seq")
UNITS: Mapping[str, str] = _Derived(lambda a: a.unit)
#: name → the globs of journal files under a root
DEFAULT_INCLUDE: Mapping[str, tuple[str, ...]] = _Derived(lambda a: a.include)
#: every adapter's name (``name in ADAPTER_NAMES``; iterating gives the names)
ADAPTER_NAMES: Mapping[str, str] = _Derived(lambda a: a.label)


__all__ = [
    "ADAPTERS",
    "ADAPTER_NAMES",
    "DEFAULT_INCLUDE",
    "HELD",
    "IGNORED",
    "REPAIRED",
    "SKIPPED",
    "UNITS",
    "Adapter",
    "Head",
    "Inspection",
    "JournalAdapter",
    "JournalError",
    "JournalFile",
    "JournalRoot",
    "Note",
    "Read",
    "SegmentContext",
    "adapter_names",
    "default_roots",
    "discover",
    "guess_adapter",
    "inspect",
    "read_aider",
    "read_specstory",
    "read_qwen",
    "read_kimi",
    "read_cursor",
    "read_copilot_legacy",
    "read_copilot",
    "read_continue",
    "read_cline",
    "read_claude",
    "read_codex",
    "read_evidence",
    "read_gemini",
    "read_journal",
    "read_opencode",
    "read_text",
    "registry",
    "segment_context",
    "sniff_adapter",
]
