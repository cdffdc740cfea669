"""JSON with comments, edited in place: every byte kura did not mean to change stays put.

Agents keep their settings in JSON files that people edit by hand (Gemini CLI and opencode
allow ``//`` and ``/* */`` comments and trailing commas). Loading such a file and dumping it
again would drop the comments and reflow the user's layout. Instead the text is scanned once
into a tree of spans (where each value starts and ends), and an edit splices new text into
the old at one place: a member added before an object's closing brace, an element added at
the end of an array, a value replaced, a member removed with the comma that joined it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import KuraError


class JsoncError(KuraError):
    """A settings file that is not JSON (with comments): the edit is refused."""


@dataclass
class Node:
    kind: str  # object | array | string | number | literal
    start: int
    end: int
    members: list[Member] = field(default_factory=list)  # objects
    items: list[Node] = field(default_factory=list)  # arrays

    def member(self, key: str) -> Member | None:
        found = None
        for m in self.members:
            if m.key == key:
                found = m  # the last duplicate wins, as in JSON.parse
        return found


@dataclass
class Member:
    key: str
    start: int  # the opening quote of the key
    value: Node


class _Scanner:
    def __init__(self, text: str):
        self.text = text
        self.i = 0

    def fail(self, what: str) -> JsoncError:
        line = self.text.count("\n", 0, self.i) + 1
        col = self.i - (self.text.rfind("\n", 0, self.i) + 1) + 1
        return JsoncError(f"line {line}, column {col}: {what}")

    def skip(self) -> None:
        t, n = self.text, len(self.text)
        while self.i < n:
            c = t[self.i]
            if c in " \t\r\n\ufeff":
                self.i += 1
            elif t.startswith("//", self.i):
                j = t.find("\n", self.i)
                self.i = n if j < 0 else j + 1
            elif t.startswith("/*", self.i):
                j = t.find("*/", self.i + 2)
                if j < 0:
                    raise self.fail("a /* comment is never closed")
                self.i = j + 2
            else:
                return

    def value(self, depth: int = 0) -> Node:
        if depth > 200:
            raise self.fail("nested too deeply")
        self.skip()
        if self.i >= len(self.text):
            raise self.fail("a value is missing")
        c = self.text[self.i]
        if c == "{":
            return self.obj(depth)
        if c == "[":
            return self.arr(depth)
        if c == '"':
            start = self.i
            self.string()
            return Node("string", start, self.i)
        return self.scalar()

    def string(self) -> str:
        t, start = self.text, self.i
        j = start + 1
        while True:
            k = t.find('"', j)
            if k < 0:
                raise self.fail("a string is never closed")
            backslashes = 0
            while t[k - 1 - backslashes] == "\\":
                backslashes += 1
            if backslashes % 2 == 0:
                break
            j = k + 1
        self.i = k + 1
        try:
            decoded = json.loads(t[start : self.i])
        except ValueError:
            raise self.fail("a string holds a bad escape or a raw line break") from None
        return str(decoded)

    def scalar(self) -> Node:
        t, start = self.text, self.i
        while self.i < len(t) and (t[self.i].isalnum() or t[self.i] in "+-."):
            self.i += 1
        word = t[start : self.i]
        if word in ("true", "false", "null"):
            return Node("literal", start, self.i)
        try:
            json.loads(word)
        except ValueError:
            raise self.fail(f"unexpected {word[:20] or t[start]!r}") from None
        return Node("number", start, self.i)

    def obj(self, depth: int) -> Node:
        node = Node("object", self.i, self.i)
        self.i += 1
        while True:
            self.skip()
            if self.i < len(self.text) and self.text[self.i] == "}":
                self.i += 1
                node.end = self.i
                return node
            if self.i >= len(self.text) or self.text[self.i] != '"':
                raise self.fail("expected a quoted key or '}'")
            kstart = self.i
            key = self.string()
            self.skip()
            if self.i >= len(self.text) or self.text[self.i] != ":":
                raise self.fail("expected ':' after a key")
            self.i += 1
            node.members.append(Member(key, kstart, self.value(depth + 1)))
            if not self.comma("}"):
                raise self.fail("expected ',' or '}'")

    def arr(self, depth: int) -> Node:
        node = Node("array", self.i, self.i)
        self.i += 1
        while True:
            self.skip()
            if self.i < len(self.text) and self.text[self.i] == "]":
                self.i += 1
                node.end = self.i
                return node
            node.items.append(self.value(depth + 1))
            if not self.comma("]"):
                raise self.fail("expected ',' or ']'")

    def comma(self, close: str) -> bool:
        self.skip()
        if self.i < len(self.text) and self.text[self.i] == ",":
            self.i += 1
            return True
        return self.i < len(self.text) and self.text[self.i] == close


def parse(text: str) -> Node:
    """The span tree of *text*; JsoncError (with line and column) when it is not JSONC."""
    s = _Scanner(text)
    root = s.value()
    s.skip()
    if s.i != len(text):
        raise s.fail("text after the end of the JSON value")
    return root


def load(text: str) -> Any:
    """The value *text* holds, comments and trailing commas allowed."""
    return to_value(text, parse(text))


def to_value(text: str, node: Node) -> Any:
    if node.kind == "object":
        return {m.key: to_value(text, m.value) for m in node.members}
    if node.kind == "array":
        return [to_value(text, n) for n in node.items]
    return json.loads(text[node.start : node.end])


# --------------------------------------------------------------------------- layout


@dataclass(frozen=True)
class Layout:
    indent: str = "  "
    newline: str = "\n"


def layout_of(text: str) -> Layout:
    """The indentation unit and line ending the file already uses (two spaces, LF if none)."""
    newline = "\r\n" if "\r\n" in text else "\n"
    for line in text.splitlines():
        stripped = line.lstrip(" \t")
        if stripped and stripped != line and stripped[0] in '"{[}]':
            return Layout(line[: len(line) - len(stripped)], newline)
    return Layout("  ", newline)


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    j = start
    while j < len(text) and text[j] in " \t":
        j += 1
    return text[start:j]


def render(value: Any, lay: Layout, base: str) -> str:
    """*value* as JSON text indented like the file, starting at indentation *base*."""
    width = len(lay.indent.expandtabs(8)) or 2
    body = json.dumps(value, indent=width, ensure_ascii=False)
    lines = body.split("\n")
    out = [lines[0]]
    for line in lines[1:]:
        stripped = line.lstrip(" ")
        level = (len(line) - len(stripped)) // width
        out.append(base + lay.indent * level + stripped)
    return lay.newline.join(out)


# --------------------------------------------------------------------------- edits


def _descend(text: str, root: Node, path: Sequence[str]) -> tuple[Node, int]:
    """The deepest object along *path* that exists, and how many keys it consumed."""
    node, used = root, 0
    for key in path:
        m = node.member(key)
        if m is None or m.value.kind != "object":
            if m is not None and used < len(path) - 1:
                where = ".".join(path[: used + 1])
                raise JsoncError(f"{where} is not an object; kura will not overwrite it")
            break
        node, used = m.value, used + 1
    return node, used


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _one_line(text: str, node: Node) -> bool:
    return "\n" not in text[node.start : node.end]


def _insert_member(text: str, obj: Node, key: str, value: Any) -> str:
    lay = layout_of(text)
    if obj.members and _one_line(text, obj):
        at = obj.members[-1].value.end
        return text[:at] + ", " + json.dumps(key) + ": " + _compact(value) + text[at:]
    if obj.members:
        last = obj.members[-1]
        base = _line_indent(text, last.start)
        piece = "," + lay.newline + base + json.dumps(key) + ": " + render(value, lay, base)
        at = last.value.end
        return text[:at] + piece + text[at:]
    close = obj.end - 1
    outer = _line_indent(text, obj.start)
    base = outer + lay.indent
    piece = lay.newline + base + json.dumps(key) + ": " + render(value, lay, base)
    inside = text[obj.start + 1 : close]
    if not inside.strip():
        return text[: obj.start + 1] + piece + lay.newline + outer + text[close:]
    return text[:close] + piece + lay.newline + outer + text[close:]


def set_member(text: str, path: Sequence[str], value: Any) -> str:
    """*text* with the member at *path* set to *value* (parents created as needed)."""
    if not text.strip():
        text = "{}\n"
    root = parse(text)
    if root.kind != "object":
        raise JsoncError("the file does not hold a JSON object")
    node, used = _descend(text, root, path[:-1])
    if used == len(path) - 1:
        m = node.member(path[-1])
        if m is not None:
            if to_value(text, m.value) == value:
                return text
            base = _line_indent(text, m.start)
            v = m.value
            return text[: v.start] + render(value, layout_of(text), base) + text[v.end :]
    nested: Any = value
    for key in reversed(path[used + 1 :]):
        nested = {key: nested}
    return _insert_member(text, node, path[used], nested)


def append_item(text: str, path: Sequence[str], item: Any) -> str:
    """*text* with *item* appended to the array at *path* (created when missing)."""
    if not text.strip():
        text = "{}\n"
    root = parse(text)
    node, used = _descend(text, root, path[:-1])
    m = node.member(path[-1]) if used == len(path) - 1 else None
    if m is None:
        return set_member(text, path, [item])
    arr = m.value
    if arr.kind != "array":
        raise JsoncError(f"{'.'.join(path)} is not a list; kura will not overwrite it")
    lay = layout_of(text)
    if arr.items:
        last = arr.items[-1]
        base = _line_indent(text, last.start)
        if _one_line(text, arr):
            piece = ", " + _compact(item)
        else:
            piece = "," + lay.newline + base + render(item, lay, base)
        return text[: last.end] + piece + text[last.end :]
    outer = _line_indent(text, m.start)
    base = outer + lay.indent
    piece = "[" + lay.newline + base + render(item, lay, base) + lay.newline + outer + "]"
    return text[: arr.start] + piece + text[arr.end :]


def replace_item(text: str, path: Sequence[str], index: int, item: Any) -> str:
    """*text* with element *index* of the array at *path* replaced by *item*, in place."""
    root = parse(text)
    node, used = _descend(text, root, path[:-1])
    m = node.member(path[-1]) if used == len(path) - 1 else None
    if m is None or m.value.kind != "array" or not 0 <= index < len(m.value.items):
        raise JsoncError(f"{'.'.join(path)} has no element {index}")
    old = m.value.items[index]
    lay = layout_of(text)
    new = (
        _compact(item)
        if _one_line(text, m.value)
        else render(item, lay, _line_indent(text, old.start))
    )
    return text[: old.start] + new + text[old.end :]


def _remove_span(text: str, container: Node, index: int, spans: list[tuple[int, int]]) -> str:
    """Remove the index-th of *spans* (start, end) from *container* with its comma."""
    start, end = spans[index]
    if index > 0:
        return text[: spans[index - 1][1]] + text[end:]
    if len(spans) > 1:
        return text[:start] + text[spans[1][0] :]
    inner_end = container.end - 1
    return text[: container.start + 1] + text[inner_end:]


def remove_member(text: str, path: Sequence[str]) -> str:
    """*text* without the member at *path* (unchanged when it is not there)."""
    if not text.strip():
        return text
    root = parse(text)
    node, used = _descend(text, root, path[:-1])
    if used != len(path) - 1:
        return text
    idx = [i for i, m in enumerate(node.members) if m.key == path[-1]]
    for i in reversed(idx):
        node = _descend(text, parse(text), path[:-1])[0]
        spans = [(m.start, m.value.end) for m in node.members]
        text = _remove_span(text, node, i, spans)
    return text


def remove_items(text: str, path: Sequence[str], match: Callable[[Any], bool]) -> str:
    """*text* without the elements of the array at *path* for which *match* is true."""
    while text.strip():
        root = parse(text)
        node, used = _descend(text, root, path[:-1])
        m = node.member(path[-1]) if used == len(path) - 1 else None
        if m is None or m.value.kind != "array":
            return text
        arr = m.value
        hit = next((i for i, n in enumerate(arr.items) if match(to_value(text, n))), None)
        if hit is None:
            return text
        spans = [(n.start, n.end) for n in arr.items]
        text = _remove_span(text, arr, hit, spans)
    return text


def get(text: str, path: Sequence[str]) -> Any:
    """The value at *path* in *text*, or None."""
    if not text.strip():
        return None
    value: Any = load(text)
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value
