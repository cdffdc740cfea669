"""Agents that take MCP servers but run no hooks kura could use: Crush, Zed and Amp.

Each gets kura's MCP server in its own settings file (the map then comes from the server's
instructions and its ``map`` tool, not from a hook), and its transcripts as a journal of
the store:

* Crush: ``mcp.kura`` (``type: stdio`` or ``http``) in ``crush.json`` under
  ``$CRUSH_GLOBAL_CONFIG`` or ``$XDG_CONFIG_HOME/crush`` (``~/.config/crush``). Crush keeps
  its sessions per project (``<project>/.crush/crush.db``): the journal added is the
  ``.crush`` folder of the directory ``kura connect`` runs in, when it has one.
* Zed: ``context_servers.kura`` (``command``, ``args``, ``env``; or ``url``) in
  ``~/.config/zed/settings.json`` (JSON with comments, kept to the byte); its threads are
  in ``threads/threads.db`` under Zed's data directory.
* Amp: ``amp.mcpServers.kura`` (a flat dotted key) in ``~/.config/amp/settings.json``; its
  threads are ``~/.local/share/amp/threads/T-*.json``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .base import FileChange, Found, Where, Wiring
from .claude import found_in
from .edit import JsonFile


def _config_home(where: Where) -> Path:
    return where.var("XDG_CONFIG_HOME", where.home / ".config")


def _data_home(where: Where) -> Path:
    return where.var("XDG_DATA_HOME", where.home / ".local" / "share")


def stdio_entry(wiring: Wiring, **extra: Any) -> dict[str, Any]:
    argv = wiring.mcp_argv()
    return {**extra, "command": argv[0], "args": argv[1:], "env": wiring.mcp_env()}


class _McpOnly:
    name = ""
    title = ""
    adapter = ""
    formats = "MCP server instructions and its map tool (no hooks)"
    key: tuple[str, ...] = ()

    def settings(self, where: Where) -> Path:
        raise NotImplementedError

    def entry(self, wiring: Wiring) -> dict[str, Any]:
        raise NotImplementedError

    def changes(self, where: Where, wiring: Wiring) -> list[FileChange]:
        settings = JsonFile(self.settings(where))
        settings.set(self.key, self.entry(wiring), f"MCP server kura (store {wiring.store})")
        return [settings.change()]

    def found(self, where: Where) -> Found:
        path = self.settings(where)
        f = found_in(self.name, path, self.key, Path("/nonexistent"))
        return Found(self.name, f.mcp, (), None, (str(path),))


class Crush(_McpOnly):
    name = "crush"
    title = "Crush"
    adapter = "crush"
    key = ("mcp", "kura")

    def settings(self, where: Where) -> Path:
        base = where.env.get("CRUSH_GLOBAL_CONFIG", "")
        return (Path(base).expanduser() if base else _config_home(where) / "crush") / "crush.json"

    def entry(self, wiring: Wiring) -> dict[str, Any]:
        if wiring.url:
            return {"type": "http", "url": wiring.url}
        return stdio_entry(wiring, type="stdio")

    def journal_root(self, where: Where) -> Path | None:
        here = where.env.get("PWD", "")
        project = Path(here) / ".crush" if here else None
        return project if project is not None and (project / "crush.db").is_file() else None


class Zed(_McpOnly):
    name = "zed"
    title = "Zed"
    adapter = "zed"
    key = ("context_servers", "kura")

    def settings(self, where: Where) -> Path:
        if sys.platform == "win32":
            return (
                where.var("APPDATA", where.home / "AppData" / "Roaming") / "Zed" / "settings.json"
            )
        return _config_home(where) / "zed" / "settings.json"

    def entry(self, wiring: Wiring) -> dict[str, Any]:
        return {"url": wiring.url} if wiring.url else stdio_entry(wiring)

    def journal_root(self, where: Where) -> Path | None:
        if sys.platform == "darwin":
            return where.home / "Library" / "Application Support" / "Zed" / "threads"
        if sys.platform == "win32":
            return where.var("LOCALAPPDATA", where.home / "AppData" / "Local") / "Zed" / "threads"
        return _data_home(where) / "zed" / "threads"


class Amp(_McpOnly):
    name = "amp"
    title = "Amp"
    adapter = "amp"
    key = ("amp.mcpServers", "kura")

    def settings(self, where: Where) -> Path:
        return _config_home(where) / "amp" / "settings.json"

    def entry(self, wiring: Wiring) -> dict[str, Any]:
        return {"url": wiring.url} if wiring.url else stdio_entry(wiring)

    def journal_root(self, where: Where) -> Path | None:
        return _data_home(where) / "amp" / "threads"
