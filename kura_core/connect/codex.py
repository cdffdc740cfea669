"""Codex CLI: MCP in ~/.codex/config.toml, hooks in ~/.codex/hooks.json, trust in config.toml.

Codex runs a hook only once someone trusted it: ``codex exec`` skips an untrusted hook in
silence. Codex's own /hooks screen writes ``[hooks.state."<key>"] trusted_hash`` into
config.toml; kura does the same after it has written hooks.json, asking ``codex app-server``
(``hooks/list``) for each kura hook's key and hash, so a person who runs ``kura connect codex``
has trusted kura's hook exactly as they would in /hooks. The key holds the hook's position, so
kura appends its group after the user's and never moves theirs.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

from .base import (
    ConnectError,
    FileChange,
    Found,
    Where,
    Wiring,
    is_kura_command,
    read_text,
    store_of_hook,
)
from .claude import found_in, hook_changes
from .edit import JsonFile, TomlFile
from .tomledit import loads

EVENTS = {"session-start": "SessionStart", "prompt": "UserPromptSubmit"}


def _dir(where: Where) -> Path:
    return where.var("CODEX_HOME", where.home / ".codex")


def mcp_table(wiring: Wiring) -> dict[str, Any]:
    if wiring.url:
        return {"url": wiring.url}
    argv = wiring.mcp_argv()
    return {"command": argv[0], "args": argv[1:], "env": wiring.mcp_env()}


class Codex:
    name = "codex"
    title = "Codex CLI"
    adapter = "codex"
    formats = "SessionStart hook stdout (a developer message)"

    def journal_root(self, where: Where) -> Path | None:
        return _dir(where) / "sessions"

    def changes(self, where: Where, wiring: Wiring) -> list[FileChange]:
        config = TomlFile(_dir(where) / "config.toml")
        config.table(
            ("mcp_servers", "kura"), mcp_table(wiring), f"MCP server kura (store {wiring.store})"
        )
        hooks = JsonFile(_dir(where) / "hooks.json")
        hook_changes(hooks, wiring, self.name, EVENTS)
        return [config.change(), hooks.change()]

    def after(self, where: Where, wiring: Wiring) -> list[FileChange]:
        """Trust kura's hooks the way Codex's /hooks screen does (see the module text)."""
        listed = app_server_hooks(where)
        config = TomlFile(_dir(where) / "config.toml")
        for h in listed:
            if not is_kura_hook(h) or h.get("trustStatus") == "trusted":
                continue
            key, digest = str(h.get("key", "")), str(h.get("currentHash", ""))
            if key and digest:
                config.table(
                    ("hooks", "state", key),
                    {"trusted_hash": digest},
                    f"trust kura's {h.get('eventName', 'hook')} hook (as Codex's /hooks does)",
                )
        return [config.change()]

    def found(self, where: Where) -> Found:
        f = found_in(self.name, Path("/nonexistent"), ("x",), _dir(where) / "hooks.json")
        path = _dir(where) / "config.toml"
        mcp = None
        try:
            doc = loads(read_text(path), str(path))
        except ConnectError:
            doc = {}
        entry = (doc.get("mcp_servers") or {}).get("kura") if isinstance(doc, dict) else None
        if isinstance(entry, dict):
            mcp = str((entry.get("env") or {}).get("KURA_STORE", ""))
        return Found(self.name, mcp, f.hooks, f.hook_store, (str(path), f.files[1]))


def is_kura_hook(h: dict[str, Any]) -> bool:
    return is_kura_command(h.get("command")) and store_of_hook(h.get("command")) is not None


def app_server_hooks(where: Where, timeout: float = 30.0) -> list[dict[str, Any]]:
    """Every hook Codex sees for the home directory, as ``codex app-server`` lists them.
    Raises ConnectError when codex is not on PATH or does not answer."""
    exe = shutil.which("codex", path=where.env.get("PATH"))
    if not exe:
        raise ConnectError(
            "codex is not on PATH, so kura cannot trust its hook the way Codex does; "
            "open codex and trust the kura hook in /hooks, or put codex on PATH and run "
            "`kura connect codex` again"
        )
    msgs = [
        {
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "kura", "version": "1"}},
        },
        {"method": "initialized"},
        {"id": 2, "method": "hooks/list", "params": {"cwds": [str(where.home)]}},
    ]
    env = {**where.env, "HOME": str(where.home)}
    proc = subprocess.Popen(
        [exe, "app-server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=str(where.home),
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in msgs))
        proc.stdin.flush()
        reply = _await_reply(proc, 2, timeout)
    finally:
        proc.stdin.close()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    data = (reply.get("result") or {}).get("data") or []
    return [h for entry in data for h in entry.get("hooks", [])]


def _await_reply(proc: subprocess.Popen[str], want: int, timeout: float) -> dict[str, Any]:
    found: dict[str, Any] = {}

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if isinstance(msg, dict) and msg.get("id") == want:
                found.update(msg)
                return

    t = threading.Thread(target=read, daemon=True)
    t.start()
    t.join(timeout)
    if not found:
        proc.kill()
        raise ConnectError(
            f"codex app-server did not list its hooks within {timeout:g} s; trust the kura "
            "hook in codex's /hooks screen instead"
        )
    return found
