"""opencode: MCP in ~/.config/opencode/opencode.json, the map through a plugin of kura's own.

opencode runs no shell hooks. A plugin in ``~/.config/opencode/plugins`` loads by itself; its
``experimental.chat.system.transform`` adds the map to the system prompt of every request
(so it is there again after a compaction). The plugin asks ``kura hook session-start`` once
per session, with the same deadline, and adds nothing when kura does not answer in time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .base import FileChange, Found, Where, Wiring, read_text, store_of_hook
from .claude import found_in
from .edit import JsonFile, whole_file

PLUGIN = """\
// kura: the resident map of store {store} in the system prompt of each opencode session.
// Written by `kura connect opencode`; `kura connect opencode --undo` removes it.
// When kura is missing, slow or broken the session goes on without the map: the command
// stops at its deadline, and its reasons go to kura's own log, never into the prompt.
import {{ execFile }} from "node:child_process";

const COMMAND = {command};
const DEADLINE_MS = {deadline_ms};
const maps = new Map();

function ask() {{
  return new Promise((resolve) => {{
    try {{
      execFile(COMMAND[0], COMMAND.slice(1), {{ timeout: DEADLINE_MS, encoding: "utf8" }},
        (error, stdout) => resolve(error ? "" : String(stdout).trim()));
    }} catch {{
      resolve("");
    }}
  }});
}}

export const KuraMap = async () => ({{
  "experimental.chat.system.transform": async (input, output) => {{
    if (process.env.KURA_OFF === "1") return;
    const key = (input && input.sessionID) || "";
    if (!maps.has(key)) maps.set(key, ask());
    const text = await maps.get(key);
    if (text && output && Array.isArray(output.system)) output.system.push(text);
  }},
}});
"""


def _dir(where: Where) -> Path:
    return where.var("XDG_CONFIG_HOME", where.home / ".config") / "opencode"


def _config(where: Where) -> Path:
    jsonc_file = _dir(where) / "opencode.jsonc"
    return jsonc_file if jsonc_file.is_file() else _dir(where) / "opencode.json"


def plugin_text(wiring: Wiring) -> str:
    command = wiring.hook("session-start", "opencode")
    deadline_ms = int(wiring.agent_timeout * 1000)
    return PLUGIN.format(
        store=json.dumps(wiring.store), command=json.dumps(command), deadline_ms=deadline_ms
    )


class Opencode:
    name = "opencode"
    title = "opencode"
    adapter = "opencode"
    formats = "a plugin's experimental.chat.system.transform"

    def journal_root(self, where: Where) -> Path | None:
        share = where.var("XDG_DATA_HOME", where.home / ".local" / "share")
        return share / "opencode"

    def changes(self, where: Where, wiring: Wiring) -> list[FileChange]:
        config = JsonFile(_config(where))
        entry: dict[str, Any]
        if wiring.url:
            entry = {"type": "remote", "url": wiring.url, "enabled": True}
        else:
            entry = {
                "type": "local",
                "command": wiring.mcp_argv(),
                "environment": wiring.mcp_env(),
                "enabled": True,
            }
        config.set(("mcp", "kura"), entry, f"MCP server kura (store {wiring.store})")
        plugin = whole_file(
            _dir(where) / "plugins" / "kura.js",
            plugin_text(wiring),
            f"plugin kura.js: the map of store {wiring.store} in the system prompt",
        )
        return [config.change(), plugin]

    def found(self, where: Where) -> Found:
        path = _config(where)
        f = found_in(self.name, path, ("mcp", "kura"), Path("/nonexistent"))
        plugin = _dir(where) / "plugins" / "kura.js"
        events: tuple[str, ...] = ()
        store = None
        if plugin.is_file():
            text = read_text(plugin)
            start = text.find("const COMMAND = ")
            if start >= 0:
                line = text[start + len("const COMMAND = ") :].split(";\n", 1)[0]
                try:
                    store = store_of_hook(json.loads(line))
                    events = ("system.transform",)
                except ValueError:
                    events = ()
        return Found(self.name, f.mcp, events, store, (str(path), str(plugin)))
