"""``kura connect``: wire a store into the agents people run, and take it out again exactly.

For each agent: kura's MCP server in the agent's own config, the store's resident map put
into each session through the agent's own mechanism (a hook, or opencode's plugin), the
agent's transcripts added as a journal root of that store only, optional per-prompt recall
under a hard deadline. Every edit leaves the user's bytes alone, is shown as a diff first,
keeps a backup, changes nothing on a second run, and ``undo`` puts the files back.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import ledger
from .base import (
    DEFAULT_DEADLINE,
    Agent,
    ConnectError,
    FileChange,
    Found,
    Where,
    Wiring,
    kura_command,
)
from .claude import ClaudeCode
from .codex import Codex
from .copilot import Copilot
from .gemini import Gemini, QwenCode
from .mcponly import Amp, Crush, Zed
from .opencode import Opencode

if TYPE_CHECKING:
    from ..config import Config

AGENTS: dict[str, Agent] = {
    a.name: a
    for a in (
        ClaudeCode(),
        Codex(),
        Gemini(),
        Opencode(),
        QwenCode(),
        Copilot(),
        Crush(),
        Zed(),
        Amp(),
    )
}


def plugin_dir() -> Path:
    """The Claude Code plugin marketplace shipped in the package: ``claude plugin
    marketplace add <this>`` then ``claude plugin install kura@kura``."""
    return Path(__file__).resolve().parent / "plugin"


def agent(name: str) -> Agent:
    found = AGENTS.get(name)
    if found is None:
        raise ConnectError(f"unknown agent {name!r}; kura connects {', '.join(AGENTS)}")
    return found


@dataclass(frozen=True)
class Plan:
    agent: str
    wiring: Wiring
    changes: tuple[FileChange, ...]
    notes: tuple[str, ...] = ()

    @property
    def nothing(self) -> bool:
        return not any(c.changes for c in self.changes)

    def what(self) -> list[str]:
        return [f"{c.path}: {w}" for c in self.changes for w in c.what]

    def diff(self) -> str:
        out: list[str] = []
        for c in self.changes:
            if not c.changes:
                continue
            old = (c.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
            new = c.after.decode("utf-8", "replace").splitlines(keepends=True)
            a = str(c.path) if c.before is not None else "/dev/null"
            out += difflib.unified_diff(old, new, a, str(c.path))
            if out and not out[-1].endswith("\n"):
                out[-1] += "\n"
        return "".join(out)

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "store": self.wiring.store,
            "changes": self.what(),
            "files": [str(c.path) for c in self.changes if c.changes],
            "notes": list(self.notes),
            "diff": self.diff(),
        }


def wiring_for(
    config: Config,
    store: str,
    *,
    deadline: float = DEFAULT_DEADLINE,
    recall: bool = False,
    url: str = "",
    kura: tuple[str, ...] | None = None,
    where: Where | None = None,
) -> Wiring:
    if config.source is None:
        raise ConnectError(
            "kura has no config yet: run `kura init NAME --path DIR` first, then connect"
        )
    if not 0.1 <= deadline <= 60:
        raise ConnectError(f"--deadline must be between 0.1 and 60 seconds (got {deadline:g})")
    cmd = kura or kura_command(where.env if where else None)
    return Wiring(store, Path(config.source).resolve(), cmd, deadline, recall, url)


def plan(name: str, config: Config, wiring: Wiring, where: Where) -> Plan:
    """What connecting *name* to ``wiring.store`` would change (nothing is written)."""
    from .journal import journal_change

    a = agent(name)
    changes = list(a.changes(where, wiring))
    notes: list[str] = []
    earlier = ledger.load(where, name) or {}
    jchange, note = journal_change(
        config, wiring.store, a.adapter, a.journal_root(where), str(earlier.get("store", ""))
    )
    if jchange is not None:
        changes.append(jchange)
    if note:
        notes.append(note)
    if hasattr(a, "after"):
        notes.append("then kura trusts its hook the way Codex's /hooks screen does")
    return Plan(name, wiring, tuple(changes), tuple(notes))


@dataclass(frozen=True)
class Applied:
    agent: str
    store: str
    written: tuple[ledger.Written, ...]
    notes: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "store": self.store,
            "written": [{"path": w.path, "backup": w.backup} for w in self.written],
            "notes": list(self.notes),
        }


def apply(p: Plan, where: Where, clock: Callable[[], float] = time.time) -> Applied:
    """Write *p*, note it in the ledger, then let the agent finish (Codex's hook trust)."""
    written = ledger.record(where, p.agent, p.wiring, p.changes, clock)
    notes = [n for n in p.notes if not n.startswith("then kura trusts")]
    after = getattr(agent(p.agent), "after", None)
    if after is not None:
        try:
            more = after(where, p.wiring)
            written += ledger.record(where, p.agent, p.wiring, more, clock)
        except ConnectError as exc:
            notes.append(str(exc))
    return Applied(p.agent, p.wiring.store, tuple(written), tuple(notes))


def undo(name: str, where: Where) -> list[ledger.Restored]:
    agent(name)
    return ledger.undo(where, name)


@dataclass(frozen=True)
class Status:
    agent: str
    title: str
    found: Found
    store: str  # the store kura's ledger says it wired ("" when it has no record)
    matches: bool | None  # None: nothing wired by connect
    drift: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "title": self.title,
            "store": self.store,
            "wired": self.found.wired,
            "matches": self.matches,
            "drift": list(self.drift),
            **{k: v for k, v in self.found.to_json().items() if k != "agent"},
        }


def status(where: Where, config: Config | None = None) -> list[Status]:
    """Every agent: what its files say about kura, and whether that is still what
    ``kura connect`` wrote (a connect now would change nothing)."""
    out = []
    for name, a in AGENTS.items():
        try:
            found = a.found(where)
        except (ConnectError, ValueError) as exc:
            found = Found(name, None, (), None, (f"unreadable: {exc}",))
        doc = ledger.load(where, name)
        if doc is None:
            out.append(Status(name, a.title, found, "", None))
            continue
        wiring = ledger.wiring_of(doc)
        drift: list[str] = []
        try:
            changes = a.changes(where, wiring)
            drift = [f"{c.path}: {w}" for c in changes if c.changes for w in c.what]
        except ConnectError as exc:
            drift = [str(exc)]
        out.append(Status(name, a.title, found, wiring.store, not drift, tuple(drift)))
    return out


def status_for(where: Where, store: str, config: Config | None = None) -> list[Status]:
    return [s for s in status(where, config) if s.store == store or s.found.mcp == store]


__all__ = [
    "AGENTS",
    "DEFAULT_DEADLINE",
    "Applied",
    "ConnectError",
    "Plan",
    "Status",
    "Where",
    "Wiring",
    "apply",
    "doctor_lines",
    "plugin_dir",
    "plan",
    "status",
    "undo",
    "wiring_for",
]


def doctor_lines(where: Where, store: str, now: float | None = None) -> list[str]:
    """What ``kura doctor`` says about the agents wired to *store*: which, whether the
    wiring still matches what ``kura connect`` wrote, and recent hook failures."""
    from .hook import read_log

    out: list[str] = []
    for s in status(where):
        mine = s.store == store or (s.matches is None and s.found.mcp == store)
        if not mine:
            continue
        parts = ", ".join((["MCP"] if s.found.mcp is not None else []) + list(s.found.hooks))
        if s.matches:
            out.append(f"wired into {s.title} ({parts}): matches what kura connect wrote")
        elif s.matches is None:
            out.append(f"{s.title} has kura's MCP server bound to this store (not by kura connect)")
        else:
            out.append(
                f"wired into {s.title}, but its config changed since kura connect "
                f"({s.drift[0] if s.drift else 'kura entries missing'}); run "
                f"`kura connect {s.agent} -s {store}` again, or `--undo`"
            )
    now = time.time() if now is None else now
    failed = [r for r in read_log(where, now - 86400) if r.get("store") == store]
    if failed:
        last = failed[-1]
        out.append(
            f"agent hooks went on without kura {len(failed)} time(s) in the last day "
            f"(last, {last.get('agent')}: {last.get('reason')}); see {where.hook_log}"
        )
    return out
