"""Decoded views of a text, each mapped back to the raw text it came from.

A credential is not always written as itself: a JSON string escapes its quotes and
slashes (``pa\\"ss``, ``a\\/b``), a URL in a query string is percent-encoded, a terminal
paste hard-wraps a long token over several lines. Matching the raw text alone finds a part
of such a value, or none of it. A *view* is the text with one such encoding undone: a JSON
unescape, a percent-decode, or the lines of a wrapped token joined. Every character of a
view remembers the raw span it came from, so a secret found in a view is replaced in the
raw text over all of its raw bytes (escapes, ``%2F`` and line breaks included).

Each view is built in one pass over its parent; a view of a view composes the maps. The
number of views is bounded (:data:`MAX_DEPTH`), so the whole costs time linear in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

__all__ = ["MAX_DEPTH", "View", "views"]

#: How many decodings are stacked at most (JSON inside JSON inside JSON, then a
#: percent-decode, then wrapped lines joined).
MAX_DEPTH = 4


@dataclass(frozen=True)
class View:
    """*text* decoded from a raw text: ``starts[i]``/``ends[i]`` are the raw span the
    view's character *i* came from."""

    text: str
    starts: Sequence[int]
    ends: Sequence[int]
    how: str

    def raw_span(self, start: int, end: int) -> tuple[int, int]:
        """The raw span of the view's ``text[start:end]`` (``end > start``)."""
        return self.starts[start], self.ends[end - 1]


def _identity(text: str) -> View:
    n = len(text)
    return View(text, range(n), range(1, n + 1), "raw")


def _compose(parent: View, text: str, idx: list[int], idx_end: list[int], how: str) -> View:
    """A view of *parent*: character *i* of *text* spans parent characters
    ``idx[i]..idx_end[i]`` (inclusive)."""
    if parent.how == "raw":  # the raw text maps onto itself: the indices are the span
        return View(text, idx, [j + 1 for j in idx_end], f"raw+{how}")
    starts, ends = parent.starts, parent.ends
    return View(text, [starts[i] for i in idx], [ends[j] for j in idx_end], f"{parent.how}+{how}")


def _keep(text: str, a: int, b: int, out: list[str], idx: list[int], idx_end: list[int]) -> None:
    """Copy ``text[a:b]`` into a view unchanged: each character maps onto itself."""
    out.append(text[a:b])
    idx.extend(range(a, b))
    idx_end.extend(range(a, b))


# --------------------------------------------------------------------------- JSON escapes

_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|([\"\\/bfnrt]))")
_SIMPLE = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _unescape(parent: View) -> View | None:
    """JSON string escapes undone (``\\"``, ``\\\\``, ``\\/``, ``\\n``, ``\\uXXXX``)."""
    text = parent.text
    if "\\" not in text:
        return None
    out: list[str] = []
    idx: list[int] = []
    idx_end: list[int] = []
    pos = 0
    for m in _ESCAPE.finditer(text):
        _keep(text, pos, m.start(), out, idx, idx_end)
        out.append(chr(int(m.group(1), 16)) if m.group(1) else _SIMPLE.get(m.group(2), m.group(2)))
        idx.append(m.start())
        idx_end.append(m.end() - 1)
        pos = m.end()
    if not pos:
        return None
    _keep(text, pos, len(text), out, idx, idx_end)
    return _compose(parent, "".join(out), idx, idx_end, "json")


# --------------------------------------------------------------------------- percent

_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")


def _percent(parent: View) -> View | None:
    """Percent-encoding undone for printable ASCII (``%2F`` -> ``/``); other bytes kept."""
    text = parent.text
    if "%" not in text:
        return None
    out: list[str] = []
    idx: list[int] = []
    idx_end: list[int] = []
    pos = 0
    changed = False
    for m in _PERCENT.finditer(text):
        code = int(m.group(1), 16)
        if not 0x20 <= code < 0x7F:
            continue
        _keep(text, pos, m.start(), out, idx, idx_end)
        out.append(chr(code))
        idx.append(m.start())
        idx_end.append(m.end() - 1)
        pos = m.end()
        changed = True
    if not changed:
        return None
    _keep(text, pos, len(text), out, idx, idx_end)
    return _compose(parent, "".join(out), idx, idx_end, "percent")


# --------------------------------------------------------------------------- wrapped lines

#: Widths text is hard-wrapped at: base64 and PEM (64, 76), terminals (80, 100, 120, 132).
WRAP_WIDTHS = frozenset({64, 76, 80, 100, 120, 132})
_TAIL = re.compile(r"[A-Za-z0-9+/=_.-]{16}\Z")
_HEAD = re.compile(r"[ \t]{0,8}[A-Za-z0-9+/_.-]")  # a JWT wraps before its dots too
#: A line that sets a name of its own (QINIU_SK=…, "token": …): no token goes on in it.
_SETTING = re.compile(
    r"[ \t]{0,8}[\"']?[A-Za-z_][A-Za-z0-9_.-]{0,63}[\"']?[ \t]*[=:](?![=\n])[ \t]*\S"
)


#: A line that opens with a word and goes on with another (a label under a key: "Client
#: Secret", "Access token"): no wrapped token goes on there.
_LABEL_LINE = re.compile(r"[ \t]{0,8}(?:[A-Z][a-z]{1,11}|[a-z]{2,12})[ \t]+[A-Za-z]")


def _breaks(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each line break inside a hard-wrapped token: the line before it
    is as wide as a wrap (a common width, or the width of the wrapped line before it or
    after it), ends in 16+ token characters, and the next line goes on with one (after at
    most eight spaces of indentation)."""
    lines = text.split("\n")
    pos = 0
    for i, line in enumerate(lines[:-1]):
        end = pos + len(line)
        width = len(line.rstrip("\r"))
        nxt = lines[i + 1]
        same = width == len(nxt.rstrip("\r")) or (i and width == len(lines[i - 1].rstrip("\r")))
        if (
            width >= 40
            and (width in WRAP_WIDTHS or same)
            and _TAIL.search(line.rstrip("\r")) is not None
            and _HEAD.match(nxt) is not None
            and _SETTING.match(nxt) is None
            and not _LABEL_LINE.match(nxt)
        ):
            indent = len(nxt) - len(nxt.lstrip(" \t"))
            yield end - (len(line) - width), end + 1 + indent
        pos = end + 1


def _wrapped(parent: View) -> View | None:
    """Hard-wrapped tokens joined: each qualifying line break (and the next line's
    indentation) is left out of the view."""
    text = parent.text
    if "\n" not in text:
        return None
    out: list[str] = []
    idx: list[int] = []
    idx_end: list[int] = []
    pos = 0
    for start, end in _breaks(text):
        _keep(text, pos, start, out, idx, idx_end)
        if idx:
            idx_end[-1] = end - 1  # the break belongs to the character before it
        pos = end
    if not pos:
        return None
    _keep(text, pos, len(text), out, idx, idx_end)
    return _compose(parent, "".join(out), idx, idx_end, "joined")


#: A value continued on the next line with a backslash (.properties, a shell command): the
#: backslash, the break, a viewer's line number ("8.", "12|", "7→") and the indentation.
_CONTINUED = re.compile(
    r"(?<=[A-Za-z0-9+/=_.-]{8})\\\r?\n(?:[ \t]{0,8}\d{1,6}(?:[.|:]|→)?)?[ \t]{0,16}"
    r"(?=[A-Za-z0-9+/=_.-])"
)


def _continued(parent: View) -> View | None:
    """*parent* with the lines a backslash continues joined (a key folded over 26 lines of
    a properties file, as a viewer numbered them)."""
    if "\\\n" not in parent.text and "\\\r\n" not in parent.text:
        return None
    if not _CONTINUED.search(parent.text):
        return None
    return _edited(parent, _CONTINUED, "", "continued")


#: Full-width forms of ASCII (ｔａｂｉ－５５２１, ８３６２): one character each, like ASCII.
_WIDE = re.compile(r"[\uff01-\uff5e\u3000]")


def _narrow(parent: View) -> View | None:
    """*parent* with full-width letters, digits and marks written as ASCII, character for
    character (a password typed with an IME's full-width mode is the same password)."""
    if not _WIDE.search(parent.text):
        return None
    text = "".join(
        " " if c == "\u3000" else chr(ord(c) - 0xFEE0) if "\uff01" <= c <= "\uff5e" else c
        for c in parent.text
    )
    idx = list(range(len(text)))
    return _compose(parent, text, idx, idx, "narrow")


#: Blanks between two Chinese or Japanese characters, or before a colon after one: OCR of a
#: screenshot sets a label's characters apart (密 码 ：, パ ス ワ ー ド).
_CJK = "\u3040-\u30ff\u3400-\u9fff"
_LETTER_SPACED = re.compile(rf"(?<=[{_CJK}])[ \t\u3000]{{1,3}}(?=[{_CJK}：:])")
_SPACED_LABEL = re.compile(rf"[{_CJK}][ \t\u3000]{{1,3}}[{_CJK}][ \t\u3000]{{1,3}}[{_CJK}：:]")


def _edited(parent: View, found: re.Pattern[str], put: str, how: str) -> View:
    """*parent* with each match of *found* written as *put* ("" takes it out; a character
    stands for the match's first one)."""
    text = parent.text
    out: list[str] = []
    idx: list[int] = []
    idx_end: list[int] = []
    at = 0
    for m in found.finditer(text):
        _keep(text, at, m.start(), out, idx, idx_end)
        if put and not m.group(0).isspace():
            out.append(put)
            idx.append(m.start())
            idx_end.append(m.end() - 1)
        at = m.end()
    _keep(text, at, len(text), out, idx, idx_end)
    return _compose(parent, "".join(out), idx, idx_end, how)


def _unspaced(parent: View) -> View | None:
    """*parent* with the blanks a letter-spaced CJK label puts between its characters taken
    out; only where at least two such gaps come within one label (密 码 ：)."""
    if not _SPACED_LABEL.search(parent.text):
        return None
    return _edited(parent, _LETTER_SPACED, "", "unspaced")


#: What OCR makes of a hyphen: a dash of another width, and a blank beside it.
_OCR_DASH = re.compile(
    r"[\u2010-\u2015\u2212]|(?<=[0-9A-Za-z]) (?=[-\u2010-\u2015][0-9A-Za-z])|(?<=[0-9A-Za-z][-\u2010-\u2015]) (?=[0-9A-Za-z])"
)


_DASH_INSIDE = re.compile(r"[0-9A-Za-z][\u2010-\u2015\u2212][0-9A-Za-z]")


def _dashed(parent: View) -> View | None:
    """*parent* with the dashes OCR puts for hyphens written as hyphens, and a blank OCR
    leaves beside one taken out (5d0214c6–2e8b -4118: 5d0214c6-2e8b-4118)."""
    if not _DASH_INSIDE.search(parent.text):
        return None
    return _edited(parent, _OCR_DASH, "-", "dashed")


def views(text: str) -> Iterator[View]:
    """Every decoded view of *text* worth matching (not the raw text itself): JSON
    unescaped once, twice and three times, full-width forms narrowed, a letter-spaced CJK
    label closed up, OCR's dashes written as hyphens, each of those (and the raw text)
    percent-decoded, and each of all these with its wrapped lines joined. A decoder that
    changes nothing adds no view."""
    if not text:
        return
    narrow = _narrow(_identity(text))
    if narrow is not None:
        yield narrow
    unspaced = _unspaced(_identity(text))
    if unspaced is not None:
        yield unspaced
    dashed = _dashed(_identity(text))
    if dashed is not None:
        yield dashed
    if "\\" not in text and "%" not in text and "\n" not in text:
        return
    level: View | None = _identity(text)
    for depth in range(MAX_DEPTH):
        if level is None:
            return
        if depth:
            yield level
        pct = _percent(level)
        if pct is not None:
            yield pct
        for base in (level, pct):
            joined = _wrapped(base) if base is not None else None
            if joined is not None:
                yield joined
            folded = _continued(base) if base is not None else None
            if folded is not None:
                yield folded
        level = _unescape(level)
