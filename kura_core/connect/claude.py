"""Claude Code: MCP in ~/.claude.json, hooks in ~/.claude/settings.json.

The map arrives through a SessionStart hook (``hookSpecificOutput.additionalContext``); the
hook has no matcher, so it answers every source, ``compact`` included: the map comes back
after a compaction. Per-prompt recall is a UserPromptSubmit hook. Transcripts are JSONL under
``~/.claude/projects``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import jsonc
from .base import FileChange, Found, Where, Wiring, is_kura_command, read_text, store_of_hook
from .edit import JsonFile, is_kura_group

EVENTS = {"session-start": "SessionStart", "prompt": "UserPromptSubmit"}


def _dir(where: Where) -> Path:
    return where.var("CLAUDE_CONFIG_DIR", where.home / ".claude")


def _state_file(where: Where) -> Path:
    if where.env.get("CLAUDE_CONFIG_DIR"):
        return _dir(where) / ".claude.json"
    return where.home / ".claude.json"


def mcp_entry(wiring: Wiring) -> dict[str, Any]:
    if wiring.url:
        return {"type": "http", "url": wiring.url}
    argv = wiring.mcp_argv()
    return {"type": "stdio", "command": argv[0], "args": argv[1:], "env": wiring.mcp_env()}


def hook_group(wiring: Wiring, event: str, agent: str = "claude-code") -> dict[str, Any]:
    cmd = wiring.hook_line(event, agent)
    return {"hooks": [{"type": "command", "command": cmd, "timeout": wiring.agent_timeout}]}


def hook_changes(
    settings: JsonFile,
    wiring: Wiring,
    agent: str,
    events: dict[str, str],
    make: Callable[[Wiring, str, str], dict[str, Any]] = hook_group,
) -> None:
    """Kura's hook groups in a settings file of Claude Code's shape."""
    for event, name in events.items():
        if event == "prompt" and not wiring.recall:
            settings.drop_groups(("hooks", name), f"{name} hook: per-prompt recall off")
            continue
        settings.group(
            ("hooks", name),
            make(wiring, event, agent),
            f"{name} hook: kura hook {event} (store {wiring.store})",
        )


class ClaudeCode:
    name = "claude-code"
    title = "Claude Code"
    adapter = "claude"
    formats = "SessionStart additionalContext"

    def journal_root(self, where: Where) -> Path | None:
        return _dir(where) / "projects"

    def changes(self, where: Where, wiring: Wiring) -> list[FileChange]:
        state = JsonFile(_state_file(where))
        state.set(
            ("mcpServers", "kura"), mcp_entry(wiring), f"MCP server kura (store {wiring.store})"
        )
        settings = JsonFile(_dir(where) / "settings.json")
        hook_changes(settings, wiring, self.name, EVENTS)
        return [state.change(), settings.change()]

    def found(self, where: Where) -> Found:
        settings = _dir(where) / "settings.json"
        f = found_in(self.name, _state_file(where), ("mcpServers", "kura"), settings)
        plugins = (
            jsonc.get(read_text(settings), ("enabledPlugins",)) if settings.is_file() else None
        )
        if isinstance(plugins, dict) and any(
            k.startswith("kura@") and v for k, v in plugins.items()
        ):  # the plugin shipped with kura: its default store, unless KURA_STORE says
            return Found(f.agent, f.mcp or "", (*f.hooks, "plugin"), f.hook_store, f.files)
        return f


def found_in(agent: str, mcp_file: Path, mcp_path: tuple[str, ...], hook_file: Path) -> Found:
    """What a pair of JSON files of Claude Code's shape say about kura."""
    entry = jsonc.get(read_text(mcp_file), mcp_path) if mcp_file.is_file() else None
    mcp = None
    if isinstance(entry, dict):
        env = entry.get("env") or entry.get("environment") or {}
        mcp = str(env.get("KURA_STORE", "")) if isinstance(env, dict) else ""
        if not mcp and entry.get("url"):
            mcp = _store_of_url(str(entry["url"]))
    events: list[str] = []
    store = None
    hooks = jsonc.get(read_text(hook_file), ("hooks",)) if hook_file.is_file() else None
    for name, groups in (hooks or {}).items() if isinstance(hooks, dict) else ():
        for g in groups if isinstance(groups, list) else ():
            if is_kura_group(g):
                events.append(name)
                store = store_of_hook(g["hooks"][0]["command"])
    files = tuple(str(p) for p in (mcp_file, hook_file))
    return Found(agent, mcp, tuple(events), store, files)


def _store_of_url(url: str) -> str:
    parts = url.split("/s/", 1)
    return parts[1].split("/", 1)[0] if len(parts) == 2 else ""


__all__ = ["ClaudeCode", "found_in", "hook_changes", "hook_group", "is_kura_command"]
