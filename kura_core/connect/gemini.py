"""Gemini CLI (and Qwen Code, its fork): MCP and hooks in ~/.gemini/settings.json.

Gemini CLI injects only JSON ``hookSpecificOutput.additionalContext`` (plain stdout is shown
on the terminal, not sent), and its hook timeouts are in milliseconds. The map comes at
SessionStart; per-prompt recall is a BeforeAgent hook. Transcripts are under
``~/.gemini/tmp/<project>/chats``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import FileChange, Found, Where, Wiring
from .claude import found_in, hook_changes
from .edit import JsonFile

EVENTS = {"session-start": "SessionStart", "prompt": "BeforeAgent"}


def mcp_entry(wiring: Wiring) -> dict[str, Any]:
    if wiring.url:
        return {"httpUrl": wiring.url}
    argv = wiring.mcp_argv()
    return {"command": argv[0], "args": argv[1:], "env": wiring.mcp_env()}


def hook_group(wiring: Wiring, event: str, agent: str) -> dict[str, Any]:
    cmd = wiring.hook_line(event, agent)
    timeout_ms = wiring.agent_timeout * 1000
    return {"hooks": [{"type": "command", "name": "kura", "command": cmd, "timeout": timeout_ms}]}


class Gemini:
    name = "gemini"
    title = "Gemini CLI"
    adapter = "gemini"
    formats = "SessionStart hookSpecificOutput.additionalContext (JSON)"
    dirname = ".gemini"

    def _dir(self, where: Where) -> Path:
        return where.home / self.dirname

    def journal_root(self, where: Where) -> Path | None:
        return self._dir(where) / "tmp"

    def changes(self, where: Where, wiring: Wiring) -> list[FileChange]:
        settings = JsonFile(self._dir(where) / "settings.json")
        settings.set(
            ("mcpServers", "kura"), mcp_entry(wiring), f"MCP server kura (store {wiring.store})"
        )
        hook_changes(settings, wiring, self.name, EVENTS, hook_group)
        return [settings.change()]

    def found(self, where: Where) -> Found:
        path = self._dir(where) / "settings.json"
        f = found_in(self.name, path, ("mcpServers", "kura"), path)
        return Found(self.name, f.mcp, f.hooks, f.hook_store, (str(path),))


class QwenCode(Gemini):
    """Qwen Code keeps Gemini CLI's settings shape under ~/.qwen (MCP servers, and hooks in
    the versions that have them); its CLI is not run here (see AGENTS-WIRING.md)."""

    name = "qwen-code"
    title = "Qwen Code"
    adapter = "qwen"
    dirname = ".qwen"

    def journal_root(self, where: Where) -> Path | None:
        return self._dir(where) / "projects"
