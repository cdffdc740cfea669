"""What every agent's wiring is made of: where things live, what kura wires, one file change.

An agent module (claude.py, codex.py, …) turns a :class:`Wiring` into :class:`FileChange`
values: the bytes a file holds now, the bytes it will hold, a line per change for the person
to read, and the structural steps that take kura out again when the agent itself has
rewritten the file since (Claude Code and Gemini CLI reformat their own settings).
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..errors import KuraError

#: The hard deadline of a hook, in seconds, when the person sets none.
DEFAULT_DEADLINE = 1.5

#: Words that mark a hook command or plugin as kura's own (and nothing else's).
HOOK_MARK = " hook "


class ConnectError(KuraError):
    """A wiring kura will not write, with what to do instead."""


@dataclass(frozen=True)
class Where:
    """The home the agents' files live under and the environment that may move them."""

    home: Path
    env: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def here(cls) -> Where:
        return cls(Path.home(), dict(os.environ))

    def var(self, name: str, default: Path) -> Path:
        v = self.env.get(name, "")
        return Path(v).expanduser() if v else default

    @property
    def state(self) -> Path:
        """kura's own state for wiring: the ledger, the backups and the hook log."""
        return self.var("XDG_STATE_HOME", self.home / ".local" / "state") / "kura"

    @property
    def hook_log(self) -> Path:
        return self.state / "hooks.log"


@dataclass(frozen=True)
class Wiring:
    """What one connect writes into one agent."""

    store: str
    config: Path  # kura.toml, named in every command so a project's ./kura.toml cannot hijack
    kura: tuple[str, ...]  # how to start kura (its absolute path, or python -m …)
    deadline: float = DEFAULT_DEADLINE
    recall: bool = False  # per-prompt recall, off by default
    url: str = ""  # MCP over HTTP (kura serve) instead of stdio, when set

    def hook(self, event: str, agent: str) -> list[str]:
        cmd = [*self.kura, "hook", event, "--agent", agent, "-c", str(self.config)]
        cmd += ["-s", self.store]
        if self.deadline != DEFAULT_DEADLINE:
            cmd += ["--deadline", f"{self.deadline:g}"]
        return cmd

    def hook_line(self, event: str, agent: str) -> str:
        return shlex.join(self.hook(event, agent))

    def mcp_argv(self) -> list[str]:
        return [*self.kura, "mcp"]

    def mcp_env(self) -> dict[str, str]:
        return {"KURA_STORE": self.store, "KURA_CONFIG": str(self.config)}

    @property
    def agent_timeout(self) -> int:
        """Whole seconds an agent may wait on a kura hook: the deadline plus start-up, a
        backstop only (the hook stops itself at its deadline)."""
        return max(2, int(self.deadline + 1.99))


def kura_command(env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The absolute path of the running kura (hosts start hooks and MCP servers with a bare
    PATH), or the interpreter running the CLI module when no script is installed."""
    beside = Path(sys.executable).parent / "kura"
    if beside.is_file() and os.access(beside, os.X_OK):
        return (str(beside),)
    found = shutil.which("kura", path=(env or os.environ).get("PATH"))
    if found:
        return (str(Path(found).resolve()),)
    return (sys.executable, "-m", "kura_core")


def is_kura_command(command: Any) -> bool:
    """True when a hook command (a string or an argv list) is kura's own hook."""
    text = " ".join(command) if isinstance(command, list) else str(command or "")
    return HOOK_MARK in text and "--agent" in text and "kura" in text


@dataclass(frozen=True)
class Undo:
    """One structural step that takes kura out of a file the agent has rewritten since.

    op: ``member`` (remove the JSON member at *path*), ``items`` (remove the elements of
    the JSON array at *path* that are kura's), ``table`` (remove the TOML table *path*),
    ``file`` (delete a file kura created)."""

    op: str
    path: tuple[str, ...] = ()
    keep: int = 0  # how many leading keys of *path* were there before kura (never pruned)

    def to_json(self) -> dict[str, Any]:
        return {"op": self.op, "path": list(self.path), "keep": self.keep}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Undo:
        path = tuple(str(p) for p in d.get("path", ()))
        return cls(str(d["op"]), path, int(d.get("keep", 0)))


@dataclass(frozen=True)
class FileChange:
    path: Path
    before: bytes | None  # None: the file does not exist
    after: bytes
    what: tuple[str, ...]  # a line per change, for the person
    undo: tuple[Undo, ...]
    fmt: str = "json"  # json | toml | text

    @property
    def changes(self) -> bool:
        if self.before is None:
            return bool(self.after)  # nothing to write where there was nothing
        return self.before != self.after


@dataclass(frozen=True)
class Found:
    """What an agent's files say about kura now: the store each part points at."""

    agent: str
    mcp: str | None  # the store kura's MCP entry is bound to ("" unbound, None absent)
    hooks: tuple[str, ...]  # the events kura's hooks answer
    hook_store: str | None
    files: tuple[str, ...]

    @property
    def wired(self) -> bool:
        return self.mcp is not None or bool(self.hooks)

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "mcp": self.mcp,
            "hooks": list(self.hooks),
            "hook_store": self.hook_store,
            "files": list(self.files),
        }


class Agent(Protocol):
    name: str  # the name on the command line: claude-code, codex, …
    title: str
    adapter: str  # the journal adapter that reads its transcripts ("" when none)
    formats: str  # how its transcript reaches the session, for docs and status

    def journal_root(self, where: Where) -> Path | None: ...

    def changes(self, where: Where, wiring: Wiring) -> list[FileChange]: ...

    def found(self, where: Where) -> Found: ...


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConnectError(f"cannot read {path} ({exc.strerror}); fix its permissions") from None


def read_text(path: Path) -> str:
    raw = read_bytes(path)
    if raw is None:
        return ""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConnectError(f"{path} is not UTF-8 text; kura will not edit it") from None


def store_of_hook(command: Any) -> str | None:
    """The store a kura hook command names with -s (None when it names none)."""
    argv = command if isinstance(command, list) else _split(str(command or ""))
    for i, a in enumerate(argv[:-1]):
        if a in ("-s", "--store"):
            return str(argv[i + 1])
    return None


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()
