"""Text riding inside a shell command: what ``echo``/``printf`` print and what a heredoc
feeds. The gate strips it from a command before reading the command as evidence.

Both are found in time linear in the command. A regular expression with a lazy body
(``<<EOF\\n(.*?)\\nEOF``, ``echo "(.*?)"``) is retried from every opener that has no closer
and reads the rest of the text each time: quadratic on a large Edit or Write payload full of
``<<`` or quotes. Here each opener costs a lookup in an index of closers built once per text
(the terminator lines of heredocs, the unescaped quotes), and the matches are exactly what
those expressions matched:

* ``echo``/``printf``, spaces, any ``-n``/``-e``/``-E`` flags, a quote; the payload runs to
  the first same quote not preceded by a backslash; then the rest of the command up to a
  newline, ``|``, ``;`` or ``&``;
* ``<<`` or ``<<-``, spaces, a tag (quoted or not), the rest of that line (the head), a
  newline; the body runs to the first newline that is followed by blank space, the tag
  alone on its line (trailing spaces or tabs allowed) and a newline or the end. An unquoted
  tag that is never closed is tried shorter, longest first (``<<EOFX`` closed by ``EOF``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

_ECHO_OPEN = re.compile(r"""\b(?:echo|printf)\s++(?:-[neE]++\s++)*+(["'])""")
_REST = re.compile(r"[^\n|;&]*+")
_HEREDOC_OPEN = re.compile(r"""<<-?\s*+(['"]?)(?P<tag>[A-Za-z_]\w*+)""")
_TAG = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True, slots=True)
class Payload:
    """One payload: where the match starts, the payload's span, and the command text
    around it that says where it goes (``rest`` after an echo, ``head`` after ``<<TAG``)."""

    start: int
    span: tuple[int, int]
    around: str


def echo_payloads(text: str) -> Iterator[Payload]:
    """What ``echo``/``printf`` print in *text*, left to right (see the module docstring)."""
    closers: dict[str, list[int]] = {}
    pos = 0
    while m := _ECHO_OPEN.search(text, pos):
        quote = m.group(1)
        if quote not in closers:
            closers[quote] = _unescaped(text, quote)
        found = closers[quote]
        i = bisect.bisect_left(found, m.end())
        if i == len(found):
            pos = m.start() + 1
            continue
        close = found[i]
        rest = _REST.match(text, close + 1)
        end = rest.end() if rest else close + 1
        yield Payload(m.start(), (m.end(), close), text[close + 1 : end])
        pos = end


def _unescaped(text: str, quote: str) -> list[int]:
    """Positions of *quote* in *text* that no backslash precedes, in order."""
    out = []
    i = text.find(quote)
    while i >= 0:
        if i == 0 or text[i - 1] != "\\":
            out.append(i)
        i = text.find(quote, i + 1)
    return out


def heredocs(text: str) -> Iterator[Payload]:
    """The heredoc bodies in *text*, left to right (see the module docstring)."""
    index: _Terminators | None = None
    pos = 0
    while m := _HEREDOC_OPEN.search(text, pos):
        if index is None:
            index = _Terminators(text)
        found = _heredoc_at(text, m, index)
        if found is None:
            pos = m.start() + 1
            continue
        payload, end = found
        yield payload
        pos = end if end > pos else pos + 1


def _heredoc_at(text: str, m: re.Match[str], index: _Terminators) -> tuple[Payload, int] | None:
    quote, word, tag_start = m.group(1), m.group("tag"), m.start("tag")
    if quote:
        if text[m.end() : m.end() + 1] != quote:
            return None
        lengths = [len(word)]
        head_from = {len(word): m.end() + 1}
    else:
        lengths = index.lengths_upto(len(word))
        head_from = {n: tag_start + n for n in lengths}
    nl = text.find("\n", m.end())
    if nl < 0:
        return None
    for n in lengths:
        term = index.first(word[:n], nl + 1)
        if term is not None:
            body_end, end = term
            payload = Payload(m.start(), (nl + 1, body_end), text[head_from[n] : nl])
            return payload, end
    return None


class _Terminators:
    """Every line of a text that could end a heredoc: a tag alone on its line (blank space
    before it, spaces or tabs after), indexed by tag."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.by_tag: dict[str, list[tuple[int, int, int]]] = {}
        start = 0
        blank_from = -1  # where the run of blank space before this line starts
        while start <= len(text):
            nl = text.find("\n", start)
            line_end = len(text) if nl < 0 else nl
            line = text[start:line_end]
            stripped = line.lstrip()
            if not stripped:
                if blank_from < 0:
                    blank_from = start - 1
            else:
                tag = stripped.rstrip(" \t")
                if start > 0 and _TAG.fullmatch(tag):
                    run = start - 1 if blank_from < 0 else blank_from
                    end = line_end + 1 if nl >= 0 else line_end
                    self.by_tag.setdefault(tag, []).append((start - 1, run, end))
                blank_from = -1
            if nl < 0:
                break
            start = nl + 1
        self.lengths = sorted({len(t) for t in self.by_tag}, reverse=True)

    def lengths_upto(self, n: int) -> list[int]:
        """Tag lengths that occur, longest first, no longer than *n*."""
        return [k for k in self.lengths if k <= n]

    def first(self, tag: str, body_start: int) -> tuple[int, int] | None:
        """Where the body that starts at *body_start* ends (the newline before the blank
        space and the tag) and where the match ends, for the first line closing *tag*."""
        lines = self.by_tag.get(tag)
        if not lines:
            return None
        i = bisect.bisect_left(lines, (body_start, -1, -1))
        if i == len(lines):
            return None
        last_nl, run, end = lines[i]
        return self.text.find("\n", max(run, body_start)), end
