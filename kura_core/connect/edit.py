"""One agent file being changed: the edits kura makes, and the steps that take them out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from . import jsonc, tomledit
from .base import ConnectError, FileChange, Undo, is_kura_command, read_bytes


def _decode(path: Path, raw: bytes | None) -> str:
    if raw is None:
        return ""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConnectError(f"{path} is not UTF-8 text; kura will not edit it") from None


def _existing_depth(text: str, path: Sequence[str]) -> int:
    """How many leading keys of *path* already exist in *text* (JSON)."""
    value: Any = jsonc.load(text) if text.strip() else {}
    depth = 0
    for key in path:
        if not isinstance(value, dict) or key not in value:
            break
        value, depth = value[key], depth + 1
    return depth


def is_kura_group(group: Any) -> bool:
    """A hook group (Claude Code's shape, shared by Codex, Gemini CLI and Qwen Code) whose
    every handler is kura's."""
    if not isinstance(group, Mapping):
        return False
    hooks = group.get("hooks")
    if not isinstance(hooks, list) or not hooks:
        return False
    return all(isinstance(h, Mapping) and is_kura_command(h.get("command")) for h in hooks)


class JsonFile:
    """A JSON (with comments) file changed by splicing, as :mod:`jsonc` does."""

    fmt = "json"

    def __init__(self, path: Path):
        self.path = path
        self.before = read_bytes(path)
        self.text = _decode(path, self.before)
        self.what: list[str] = []
        self.undo: list[Undo] = []
        try:
            if self.text.strip():
                jsonc.parse(self.text)
        except jsonc.JsoncError as exc:
            raise ConnectError(f"{path}: {exc}; fix the file, then connect again") from None

    def set(self, path: Sequence[str], value: Any, what: str) -> None:
        depth = _existing_depth(self.text, path)
        new = jsonc.set_member(self.text, path, value)
        if new != self.text:
            self.text = new
            self.what.append(what)
            self.undo.append(Undo("member", tuple(path), min(depth, len(path) - 1)))

    def group(self, path: Sequence[str], group: Mapping[str, Any], what: str) -> None:
        """Kura's one hook group in the list at *path*: kept when it is already there as it
        should be, changed in place when it differs, appended after the user's own when it
        is missing, so their positions (and Codex's trust in them, keyed on position) stay."""
        current = jsonc.get(self.text, path)
        if current is not None and not isinstance(current, list):
            raise ConnectError(f"{self.path}: {'.'.join(path)} is not a list; fix it by hand")
        ours = [i for i, g in enumerate(current or []) if is_kura_group(g)]
        if len(ours) == 1 and (current or [])[ours[0]] == dict(group):
            return
        depth = _existing_depth(self.text, path)
        if len(ours) == 1:  # changed in place: every other group keeps its position
            self.text = jsonc.replace_item(self.text, path, ours[0], dict(group))
        else:
            new = jsonc.remove_items(self.text, path, is_kura_group)
            self.text = jsonc.append_item(new, path, dict(group))
        self.what.append(what)
        self.undo.append(Undo("items", tuple(path), min(depth, len(path))))

    def drop_groups(self, path: Sequence[str], what: str) -> None:
        """Take kura's hook groups out of the list at *path* (a hook no longer wanted)."""
        current = jsonc.get(self.text, path)
        if isinstance(current, list) and any(is_kura_group(g) for g in current):
            self.text = jsonc.remove_items(self.text, path, is_kura_group)
            self.what.append(what)

    def change(self) -> FileChange:
        after = self.text.encode("utf-8")
        if self.before is None and not self.what:
            after = b""
        return FileChange(self.path, self.before, after, tuple(self.what), tuple(self.undo), "json")


class TomlFile:
    fmt = "toml"

    def __init__(self, path: Path):
        self.path = path
        self.before = read_bytes(path)
        self.text = _decode(path, self.before)
        self.what: list[str] = []
        self.undo: list[Undo] = []
        tomledit.loads(self.text, str(path))

    def table(self, keys: Sequence[str], values: Mapping[str, Any], what: str) -> None:
        new = tomledit.append_table(self.text, keys, values, str(self.path))
        if new != self.text:
            self.text = new
            self.what.append(what)
            self.undo.append(Undo("table", tuple(keys)))

    def get(self, keys: Sequence[str]) -> Any:
        return tomledit.lookup(tomledit.loads(self.text, str(self.path)), keys)

    def change(self) -> FileChange:
        after = self.text.encode("utf-8")
        if self.before is None and not self.what:
            after = b""
        return FileChange(self.path, self.before, after, tuple(self.what), tuple(self.undo), "toml")


def whole_file(path: Path, text: str, what: str) -> FileChange:
    """A file that is kura's alone (an opencode plugin): written whole, deleted on undo."""
    before = read_bytes(path)
    after = text.encode("utf-8")
    return FileChange(
        path, before, after, (what,) if before != after else (), (Undo("file"),), "text"
    )


# --------------------------------------------------------------------------- taking out


def _prune(text: str, path: Sequence[str], keep: int) -> str:
    """Remove the now-empty containers along *path* that kura created (deeper than *keep*)."""
    for depth in range(len(path), keep, -1):
        value = jsonc.get(text, path[:depth])
        if value in ({}, []):
            text = jsonc.remove_member(text, path[:depth])
        else:
            break
    return text


def take_out(text: str, steps: Sequence[Undo], fmt: str, where: str) -> str:
    """*text* without what kura put in, by structure (for a file rewritten since)."""
    for step in reversed(steps):
        if fmt == "toml" and step.op == "table":
            text = tomledit.remove_table(text, step.path, where)
        elif fmt == "toml" and step.op == "key":
            text = tomledit.remove_key(text, step.path[:-1], step.path[-1], where)
        elif fmt == "json" and step.op == "member":
            text = _prune(jsonc.remove_member(text, step.path), step.path[:-1], step.keep)
        elif fmt == "json" and step.op == "items":
            text = _prune(jsonc.remove_items(text, step.path, is_kura_group), step.path, step.keep)
    return text
