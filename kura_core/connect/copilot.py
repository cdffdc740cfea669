"""GitHub Copilot CLI: MCP in ~/.copilot/mcp-config.json, a user hook file of kura's own.

Copilot CLI reads hook files (``{"version": 1, "hooks": {"sessionStart": [...]}}``, a
``bash`` command per handler) from the user's ``~/.copilot/hooks`` as well as a repository's
``.github/hooks``; kura writes its own file there, so nothing of the user's is touched. Its
CLI is not run here (see AGENTS-WIRING.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from . import jsonc
from .base import FileChange, Found, Where, Wiring, read_text, store_of_hook
from .claude import found_in
from .edit import JsonFile, whole_file


def _dir(where: Where) -> Path:
    return where.var("COPILOT_HOME", where.home / ".copilot")


def hooks_file(wiring: Wiring) -> str:
    events = {"sessionStart": "session-start"}
    if wiring.recall:
        events["userPromptSubmitted"] = "prompt"
    doc: dict[str, Any] = {"version": 1, "hooks": {}}
    for name, event in events.items():
        doc["hooks"][name] = [
            {
                "type": "command",
                "bash": wiring.hook_line(event, "copilot"),
                "timeoutSec": wiring.agent_timeout,
            }
        ]
    return json.dumps(doc, indent=2) + "\n"


class Copilot:
    name = "copilot"
    title = "GitHub Copilot CLI"
    adapter = "copilot"
    formats = "sessionStart hook additionalContext (JSON)"

    def journal_root(self, where: Where) -> Path | None:
        return _dir(where) / "session-state"

    def changes(self, where: Where, wiring: Wiring) -> list[FileChange]:
        mcp = JsonFile(_dir(where) / "mcp-config.json")
        argv = wiring.mcp_argv()
        entry: dict[str, Any] = (
            {"type": "http", "url": wiring.url, "tools": ["*"]}
            if wiring.url
            else {
                "type": "local",
                "command": argv[0],
                "args": argv[1:],
                "env": wiring.mcp_env(),
                "tools": ["*"],
            }
        )
        mcp.set(("mcpServers", "kura"), entry, f"MCP server kura (store {wiring.store})")
        hooks = whole_file(
            _dir(where) / "hooks" / "kura.json", hooks_file(wiring), "sessionStart hook: kura"
        )
        return [mcp.change(), hooks]

    def found(self, where: Where) -> Found:
        path = _dir(where) / "mcp-config.json"
        f = found_in(self.name, path, ("mcpServers", "kura"), Path("/nonexistent"))
        hook = _dir(where) / "hooks" / "kura.json"
        events: tuple[str, ...] = ()
        store = None
        if hook.is_file():
            try:
                doc = jsonc.load(read_text(hook))
                events = tuple(doc.get("hooks", {}))
                first = next(iter(doc["hooks"].values()))[0]
                store = store_of_hook(first.get("bash"))
            except (ValueError, KeyError, StopIteration, AttributeError, jsonc.JsoncError):
                events = ()
        return Found(self.name, f.mcp, events, store, (str(path), str(hook)))
