"""The agent's prose riding in a command: what it prints, posts, commits or writes as text.

A command is ACT evidence: it shows what was done. But the words the agent *authors* inside
a command -- an ``echo``/``printf``/``print()``/``console.log()`` argument, an HTTP request
payload (``curl -d``, ``--json``, ``-F``), a commit, tag or pull-request message, a heredoc
or redirect into a text file (``.md``, ``.txt``, ``.html`` …) -- are its own words, and
they vouch for what SELF vouches for: nothing but its labelled view. What is written into a
configuration, code or data file (``echo GPU1_FLOOR=30 >> /etc/fan.conf``) is the action
itself and stays ACT.

:func:`prose_spans` finds those spans with one left-to-right scan over the command (quoted
strings with their escapes, heredocs by their end tag), so it runs in linear time.
"""

from __future__ import annotations

import re

from ..script import has_cjk

#: Files whose content is prose, not configuration or code.
PROSE_FILE = re.compile(
    r"\.(?:md|markdown|txt|text|rst|org|adoc|notes?|html?|xhtml|log|msg|eml)$|"
    r"(?:^|/)(?:notes|NOTES|README|TODO|CHANGELOG|COMMIT_EDITMSG)[^/]*$"
)
#: Commands whose quoted arguments are printed as they are.
_PRINTERS = frozenset(
    [
        "echo",
        "printf",
        "print",
        "puts",
        "say",
        "logger",
        "wall",
        "notify-send",
        "write-host",
        "write-output",
    ]
)
#: Flags whose value is a message or a request payload.
_MESSAGE_FLAGS = frozenset(
    [
        "-m",
        "--message",
        "--title",
        "--body",
        "--notes",
        "--subject",
        "--description",
        "-d",
        "--data",
        "--data-raw",
        "--data-binary",
        "--data-ascii",
        "--data-urlencode",
        "--json",
        "-F",
        "--form",
        "--form-string",
        "--comment",
    ]
)
#: Interpreters whose -c / -e argument is code (its printed strings are prose).
_CODE_FLAGS = frozenset({"-c", "-e", "--eval", "-p", "--print", "-r", "-Command", "-command"})
#: A call in code that prints or sends its string argument.
_CODE_PRINT = re.compile(
    r"(?:print|println|printf|puts|echo|say|log|info|warn|write|writeln|Print|Println|"
    r"Printf|WriteLine|send|post|dumps|alert)\s*\(?\s*[fbrFBR]?$"
)
_SEPARATORS = frozenset("\n;|&")
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def is_prose(text: str) -> bool:
    """Words, not an identifier: a space between two non-space characters, or any
    Japanese or Chinese."""
    t = text.strip()
    return " " in t or has_cjk(t)


def _quoted(text: str, i: int) -> int:
    """The index just after the quoted string opening at ``text[i]`` (or len(text))."""
    q = text[i]
    j = i + 1
    while j < len(text):
        ch = text[j]
        if ch == "\\" and q == '"':
            j += 2
            continue
        if ch == q:
            return j + 1
        j += 1
    return len(text)


def _words(prefix: str) -> list[str]:
    """The words of a command before a quoted argument, without env assignments, sudo."""
    words = prefix.split()
    while words and (words[0] in ("sudo", "env", "exec", "command", "nohup", "time", "$", "#")):
        words = words[1:]
    while words and _ASSIGN.match(words[0]):
        words = words[1:]
    return words


def _redirect_target(rest: str) -> str | None:
    """Where the rest of a command line writes (``> path``, ``>> path``, ``| tee path``)."""
    if ">" not in rest and "tee" not in rest:
        return None
    m = _TARGET.search(rest)
    return m.group(1) if m else None


#: A pipe into a command that installs what it reads as configuration.
_CONFIG_PIPE = re.compile(
    r"\|\s*+(?:sudo\s+)?(?:crontab\b|kubectl\s+(?:apply|create)\b|debconf-set-selections\b|"
    r"sysctl\s+-p\b|launchctl\s+load\b)"
)


def _last_word(text: str, lo: int, i: int) -> list[str]:
    """The word right before position *i* (not looking back past *lo*), as a list."""
    k = i
    while k > lo and text[k - 1] in " \t":
        k -= 1
    if k <= lo:
        return []
    j = max(text.rfind(" ", lo, k), text.rfind("\t", lo, k))
    return [text[max(j + 1, lo) : k]]


def _prose_context(head: list[str], last: list[str], rest: str) -> bool:
    """Whether a quoted argument is the agent's text: printed (*head*, the command's first
    words), sent or committed (*last*, the word before it) -- unless the rest of the line
    writes it into a non-prose file."""
    target = _redirect_target(rest)
    if target is not None and not PROSE_FILE.search(target):
        return False
    if _CONFIG_PIPE.search(rest):
        return False  # printed into a command that installs it: a crontab line, a manifest
    if head and head[0].rsplit("/", 1)[-1].lower() in _PRINTERS:
        return True
    if last and (last[0] in _MESSAGE_FLAGS or last[0].split("=", 1)[0] in _MESSAGE_FLAGS):
        return True
    return target is not None


def _code_spans(code: str, base: int) -> list[tuple[int, int]]:
    """String literals that code prints or sends (``print('…')``, ``console.log("…")``)."""
    out = []
    i = 0
    start = 0
    while i < len(code):
        ch = code[i]
        if ch in "'\"`":
            end = _quoted(code, i) if ch != "`" else (code.find("`", i + 1) + 1 or len(code))
            inner = code[i + 1 : end - 1]
            if is_prose(inner) and _CODE_PRINT.search(code[start:i].rstrip()):
                out.append((base + i + 1, base + end - 1))
            i = end
            start = end
            continue
        i += 1
    return out


_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")


#: How much of a command line around a quoted argument is read to judge it (a command's
#: name and flags are short; reading a bounded window keeps the scan linear).
_REACH = 240


def prose_spans(text: str) -> list[tuple[int, int]]:
    """The spans of *text* (a command, a script) that are the agent's prose."""
    out: list[tuple[int, int]] = []
    line_start = 0
    line_end = -1  # the end of the current line, found once per line
    failed: set[str] = set()  # heredoc tags whose end never comes
    head_at, head = -1, []  # the first words of the current line, read once per line
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch in _SEPARATORS:
            line_start = i + 1
            i += 1
            continue
        if ch in "'\"":
            end = _quoted(text, i)
            if line_end < end:
                found = text.find("\n", end)
                line_end = n if found < 0 else found
            if head_at != line_start:
                head_at, head = line_start, _words(text[line_start : line_start + _REACH])
            last = _last_word(text, max(line_start, i - _REACH), i)
            rest = text[end : min(line_end, end + _REACH)]
            if last and last[0] in _CODE_FLAGS:
                out.extend(_code_spans(text[i + 1 : end - 1], i + 1))
            elif is_prose(text[i + 1 : end - 1]) and _prose_context(head, last, rest):
                out.append((i + 1, end - 1))
            i = end
            continue
        if ch == "<" and text.startswith("<<", i):
            m = _HEREDOC.match(text, i)
            body = _heredoc(text, m, line_start) if m and m.group(2) not in failed else None
            if m and body is None:
                failed.add(m.group(2))
            if body is not None:
                a, b, is_text = body
                if is_text:
                    out.append((a, b))
                line_start = b
                i = b
                continue
        i += 1
    return out


def _heredoc(text: str, m: re.Match[str], line_start: int) -> tuple[int, int, bool] | None:
    """The body of the heredoc opened by *m*: its span, and whether it is prose (printed,
    or written into a prose file). None when its end tag never comes."""
    tag = m.group(2)
    nl = text.find("\n", m.end())
    if nl < 0:
        return None
    head = text[line_start : m.start()] + text[m.end() : nl]
    pos = nl + 1
    while pos <= len(text):
        line_end = text.find("\n", pos)
        line_end = len(text) if line_end < 0 else line_end
        if text[pos:line_end].strip() == tag:
            target = _redirect_target(head)
            words = _words(head)
            printed = target is None and bool(words) and words[0] in ("cat", "tee")
            prose = printed or (target is not None and bool(PROSE_FILE.search(target)))
            return nl + 1, max(nl + 1, pos - 1), prose
        pos = line_end + 1
    return None


_TARGET = re.compile(r"(?:>>?|\btee\s+(?:-a\s+)?)\s*+['\"]?([^\s'\";|&]+)")
