"""TOML edited by appending and removing whole tables: the user's bytes elsewhere stay put.

kura adds one table of its own (``[mcp_servers.kura]`` in Codex's config.toml, a journal
root in kura.toml) at the end of the file and removes exactly that block again. Each edit is
checked by parsing the result: the new document must equal the old one plus (or minus) that
table and nothing else, otherwise the edit is refused with the reason (an inline table kura
cannot extend, a key already set by hand).
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import KuraError


class TomlEditError(KuraError):
    """A TOML file kura cannot change without touching the user's own lines."""


_BARE = re.compile(r"[A-Za-z0-9_-]+")


def key(k: str) -> str:
    return k if _BARE.fullmatch(k) else json.dumps(k, ensure_ascii=False)


def header(keys: Sequence[str]) -> str:
    return "[" + ".".join(key(k) for k in keys) + "]"


def value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):  # JSON's escapes are TOML's, but for DEL, which TOML refuses raw
        return json.dumps(v, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(v, list | tuple):
        return "[" + ", ".join(value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{key(k)} = {value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"no TOML form for {type(v).__name__}")


def block(keys: Sequence[str], values: Mapping[str, Any], newline: str = "\n") -> str:
    lines = [header(keys)] + [f"{key(k)} = {value(v)}" for k, v in values.items()]
    return newline.join(lines) + newline


def loads(text: str, where: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlEditError(f"{where} is not valid TOML ({exc}); fix it first") from None


def lookup(doc: Mapping[str, Any], keys: Sequence[str]) -> Any:
    cur: Any = doc
    for k in keys:
        if not isinstance(cur, Mapping) or k not in cur:
            return None
        cur = cur[k]
    return cur


def _with(doc: Mapping[str, Any], keys: Sequence[str], values: Any) -> dict[str, Any]:
    out = copy.deepcopy(dict(doc))
    cur = out
    for k in keys[:-1]:
        cur = cur.setdefault(k, {})
    if values is None:
        cur.pop(keys[-1], None)
    else:
        cur[keys[-1]] = dict(values)
    return out


def _normal(doc: Any) -> Any:
    """Equal documents compare equal: dates as text, and an empty table the same as none
    (a table kura removes may leave its parent empty)."""

    def drop_empty(v: Any) -> Any:
        if isinstance(v, dict):
            kept = {k: drop_empty(x) for k, x in v.items()}
            return {k: x for k, x in kept.items() if x != {} or not isinstance(v[k], dict)}
        return v

    return drop_empty(json.loads(json.dumps(doc, default=str, sort_keys=True)))


def append_table(text: str, keys: Sequence[str], values: Mapping[str, Any], where: str) -> str:
    """*text* with ``[keys]`` holding *values* at the end; unchanged when it already does;
    an existing table of that name is replaced (it is removed, then appended)."""
    doc = loads(text, where)
    if _normal(lookup(doc, keys)) == _normal(dict(values)):
        return text
    if lookup(doc, keys) is not None:
        text = remove_table(text, keys, where)
        doc = loads(text, where)
    newline = "\r\n" if "\r\n" in text else "\n"
    sep = (
        ""
        if not text or text.endswith("\n\n")
        else (newline if text.endswith("\n") else newline * 2)
    )
    new = text + sep + block(keys, values, newline)
    try:
        same = _normal(loads(new, where)) == _normal(_with(doc, keys, values))
    except TomlEditError:
        same = False
    if not same:
        raise TomlEditError(
            f"{where}: cannot add {header(keys)} at the end without changing your own "
            "tables (is it written as an inline table?); add it by hand"
        )
    return new


def _header_re(keys: Sequence[str]) -> re.Pattern[str]:
    parts = [rf"(?:{re.escape(k)}|\"{re.escape(k)}\"|'{re.escape(k)}')" for k in keys]
    return re.compile(
        r"^[ \t]*\[[ \t]*" + r"[ \t]*\.[ \t]*".join(parts) + r"[ \t]*\][ \t]*(?:#.*)?$"
    )


def remove_table(text: str, keys: Sequence[str], where: str) -> str:
    """*text* without the ``[keys]`` block (its header line to the next header, with the
    blank lines kura put before it); unchanged when there is none."""
    doc = loads(text, where)
    if lookup(doc, keys) is None:
        return text
    lines = text.splitlines(keepends=True)
    pat = _header_re(keys)
    at = next((i for i, ln in enumerate(lines) if pat.match(ln.rstrip("\r\n"))), None)
    if at is None:
        raise TomlEditError(f"{where}: {header(keys)} is not a table of its own; remove it by hand")
    end = at + 1
    while end < len(lines) and not lines[end].lstrip().startswith("["):
        end += 1
    if end < len(lines):  # the blank lines before the next table stay with it
        while end > at + 1 and not lines[end - 1].strip():
            end -= 1
    start = at - 1 if at > 0 and not lines[at - 1].strip() else at
    new = "".join(lines[:start] + lines[end:])
    if _normal(loads(new, where)) != _normal(_with(doc, keys, None)):
        raise TomlEditError(f"{where}: cannot remove {header(keys)} cleanly; remove it by hand")
    return new


def set_in_table(text: str, keys: Sequence[str], k: str, v: Any, where: str) -> str:
    """*text* with ``k = v`` added as the first line of the existing ``[keys]`` table."""
    doc = loads(text, where)
    table = lookup(doc, keys)
    if not isinstance(table, Mapping):
        raise TomlEditError(f"{where}: there is no {header(keys)} table to add {k} to")
    if k in table:
        if table[k] == v:
            return text
        raise TomlEditError(f"{where}: {header(keys)} already sets {k}; change it by hand")
    lines = text.splitlines(keepends=True)
    pat = _header_re(keys)
    at = next((i for i, ln in enumerate(lines) if pat.match(ln.rstrip("\r\n"))), None)
    if at is None:
        raise TomlEditError(f"{where}: {header(keys)} is not a table of its own; add {k} by hand")
    newline = "\r\n" if lines[at].endswith("\r\n") else "\n"
    if not lines[at].endswith("\n"):
        lines[at] += newline
    lines.insert(at + 1, f"{key(k)} = {value(v)}{newline}")
    new = "".join(lines)
    expected = _with(doc, keys, {**table, k: v})
    if _normal(loads(new, where)) != _normal(expected):
        raise TomlEditError(f"{where}: cannot add {k} to {header(keys)} cleanly; add it by hand")
    return new


def remove_key(text: str, keys: Sequence[str], k: str, where: str) -> str:
    """*text* without the ``k = …`` line of the ``[keys]`` table (one line only)."""
    doc = loads(text, where)
    table = lookup(doc, keys)
    if not isinstance(table, Mapping) or k not in table:
        return text
    lines = text.splitlines(keepends=True)
    pat = _header_re(keys)
    at = next((i for i, ln in enumerate(lines) if pat.match(ln.rstrip("\r\n"))), None)
    line = re.compile(r"^[ \t]*" + re.escape(key(k)) + r"[ \t]*=")
    for i in range(at + 1 if at is not None else len(lines), len(lines)):
        if lines[i].lstrip().startswith("["):
            break
        if line.match(lines[i]):
            new = "".join(lines[:i] + lines[i + 1 :])
            rest = {x: y for x, y in table.items() if x != k}
            if _normal(loads(new, where)) == _normal(_with(doc, keys, rest)):
                return new
            break
    raise TomlEditError(f"{where}: cannot remove {k} from {header(keys)} cleanly; do it by hand")
