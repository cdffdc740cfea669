"""A store: one directory of Markdown memories, an index, and a workshop.

Canonical content is plain Markdown a person can read and edit:

    <store>/MEMORY.md      the index, one recognition-trigger line per memory
    <store>/<slug>.md      one memory: YAML frontmatter, then the body
    <store>/charter.md     optional: what the store is for
    <store>/profile.md     optional: learned profile, never in the map
    <store>/_still/        derived and operational state, never a memory

Every canonical write goes through :meth:`Store.write`, which holds the store's write
lock, prepares the new memory file and the new index as complete, fsynced temp files
(keeping the old index under a hard link), records an intent naming them (the commit
point), renames the index and then the memory into place, settles what the write carries
along (a gate-log row, a draft to remove), then clears the intent. A crash at any instant
leaves either no intent (nothing changed) or an intent that the next reader rolls forward
by renames alone, so the memory and its index line always change together, and a full
disk cannot stop a reader from finishing it. A write that fails before its memory is in
place is taken back and raises StorageError: the old state stands and nothing of the
failed write appears later.
"""

from __future__ import annotations

import bisect
import contextlib
import datetime as dt
import errno
import fcntl
import functools
import hashlib
import json
import os
import re
import stat
import threading
import unicodedata
import uuid
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import compress
from operator import ne
from pathlib import Path
from typing import Any

import yaml

from . import fsutil, history
from .errors import ConflictError, ContainmentError, KuraError, MemoryFormatError, NotFound
from .fsutil import (
    TMP_MARK,
    atomic_write_text,
    discard,
    fsync_dir,
    is_temp_name,
    storage_error,
    write_temp,
)
from .secrets import BUILTIN, SecretRules
from .shapes import dict_at
from .tokens import token_parts
from .vocabulary import CURATION_FIELDS, MEMORY_TYPES
from .workshop import Workshop

#: libyaml's parser when it is there (about 10x faster), the pure-Python one otherwise.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

SLUG_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_SLUG = 80
RESERVED = frozenset({"memory", "charter", "profile", "readme", "index"})
STILL = "_still"
INDEX_FILE = "MEMORY.md"
LINK_RE = re.compile(r"\[\[([^\[\]\n|#]+?)(?:[|#][^\[\]\n]*)?\]\]")
_ENTRY_RE = re.compile(
    r"^\s*[-*]\s+\[(?P<title>[^\]\n]*)\]\((?P<file>[^)\s]+)\)\s*(?:(?:—|–|-{1,2}|:)\s*(?P<desc>.*))?$"
)
#: a grouped index line: a bullet that is not one memory's own line (``_ENTRY_RE``) but names
#: memories by ``[Title](slug.md)`` links, e.g. ``- water — [Barrels](barrels.md) / [Hoe](hoe.md)``.
#: Each link is an index line for its memory. Neither class crosses a bracket or a
#: parenthesis, so a scan from one candidate stops where the next begins (linear time).
_BULLET_RE = re.compile(r"^[ \t]*[-*]\s")
_GROUP_LINK_RE = re.compile(r"\[(?P<title>[^\[\]\n]*)\]\((?P<file>[^()\s]+\.md)\)")


# --------------------------------------------------------------------------- slugs

#: slugs check_slug has accepted (every read checks its slug; most slugs are read again and
#: again). Bounded: emptied when it grows past _CHECKED_MAX, so names sent by a client
#: cannot grow it without end.
_CHECKED: set[str] = set()
_CHECKED_MAX = 65536


def check_slug(slug: Any) -> str:
    """Return *slug* if it can name a memory in a store; raise ContainmentError if not."""
    if type(slug) is str and slug in _CHECKED:
        return slug
    if not isinstance(slug, str) or not slug:
        raise ContainmentError("a memory slug must be a non-empty string")
    if "/" in slug or "\\" in slug or "\x00" in slug or ".." in slug:
        raise ContainmentError(f"{_show(slug)} is not a slug: it contains a path separator or '..'")
    if "%" in slug:
        raise ContainmentError(f"{_show(slug)} is not a slug: encoded characters are not allowed")
    if slug.lower().removesuffix(".md") in RESERVED or slug.startswith("_"):
        raise ContainmentError(f"{_show(slug)} is a reserved name, not a memory")
    if len(slug) > MAX_SLUG or not SLUG_RE.fullmatch(slug):
        raise ContainmentError(
            f"{_show(slug)} is not a slug: use lower-case ASCII words joined by '-' "
            f"(like 'archive-on-slow-disk'), at most {MAX_SLUG} characters"
        )
    if type(slug) is str:  # a str subclass could compare equal to a name it does not spell
        if len(_CHECKED) >= _CHECKED_MAX:
            _CHECKED.clear()
        _CHECKED.add(slug)
    return slug


def _exists(path: str) -> bool:
    """Path.exists() for a string path: missing is False, any other failure is raised."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP):
            return False
        raise
    return True


_ALNUM_RUN = re.compile(r"[a-z0-9]+")
_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_MEMORY_FILE_RE = re.compile(r"([a-z0-9]+(?:-[a-z0-9]+)*)\.md")


def memory_slug(filename: str) -> str | None:
    """The slug whose memory a file name in a store's directory holds, or None for anything
    else (temp files, reserved names, names that are not slugs)."""
    m = _MEMORY_FILE_RE.fullmatch(filename)
    if m is None:
        return None
    slug = m.group(1)
    return slug if len(slug) <= MAX_SLUG and slug not in RESERVED else None


def _show(s: str) -> str:
    s = s if len(s) <= 60 else s[:57] + "..."
    return repr(s)


def slugify(title: str) -> str:
    """A kebab-case ASCII slug for *title*; a short stable digest if it has no ASCII words."""
    folded = unicodedata.normalize("NFKD", title)
    ascii_only = folded.encode("ascii", "ignore").decode().lower()
    words = _ALNUM_RUN.findall(ascii_only)
    slug = ""
    for w in words:
        nxt = f"{slug}-{w}" if slug else w
        if len(nxt) > 60:
            break
        slug = nxt
    if not slug or slug in RESERVED:
        digest = hashlib.sha256(title.strip().encode("utf-8")).hexdigest()[:10]
        slug = f"m-{digest}"
    return slug


def links_in(text: str) -> list[str]:
    """The slugs named by ``[[slug]]``, ``[[slug|label]]`` and ``[[slug#part]]`` links in
    *text*, in order, duplicates kept. The one reading of a link: doctor, recall's walk,
    weave, the floors and the app all use it."""
    return [m.group(1).strip() for m in LINK_RE.finditer(text or "") if m.group(1).strip()]


# --------------------------------------------------------------------------- memory files


@dataclass(frozen=True)
class Memory:
    slug: str
    title: str
    description: str
    type: str
    tags: tuple[str, ...]
    body: str
    meta: Mapping[str, Any]
    path: Path
    size: int = 0
    mtime_ns: int = 0
    problems: tuple[str, ...] = ()
    #: "yaml" when strict YAML read the frontmatter, "lines" when only the line form did
    #: (kura writes it back as YAML the next time it writes this memory).
    form: str = "yaml"
    form_why: str = ""
    #: The first DATE_SCAN_CHARS characters of the file, where written dates are looked for.
    lead: str = field(default="", repr=False, compare=False)

    @property
    def links(self) -> list[str]:
        return list(self._links)

    @functools.cached_property
    def _links(self) -> tuple[str, ...]:
        return tuple(links_in(self.body))  # read once per memory read: every recall walks them

    @functools.cached_property
    def body_token_parts(self) -> tuple[int, int]:
        """The body's token estimate in parts (kura_core.tokens.token_parts), made once per
        memory read: a recall counts every context it returns, and the same memories are
        returned again and again."""
        return token_parts(self.body)

    @functools.cached_property
    def head_token_parts(self) -> tuple[int, int]:
        """The token-estimate parts of the slug and the trigger line together: what a recall
        context's head for this memory holds besides its title and marks (parts add up over
        text that whitespace separates)."""
        return token_parts(f"{self.slug} {self.description}")

    def render(self) -> str:
        """The memory as a file: frontmatter, then the body."""
        return render_memory(self.meta, self.body)

    def curation(self, key: str) -> str:
        v = self.meta.get(key, "")
        return v if isinstance(v, str) else ""

    def date(self, today: dt.date | None = None) -> dt.date | None:
        """The newest date written inside the memory, if any.

        Frontmatter ``updated``/``created``/``date`` (top level or under ``metadata``) and
        any date written in the file's first DATE_SCAN_CHARS characters (``2026-11-28``,
        ``2026/11/28``, ``2026年11月28日``, ``28 November 2026``, ``Nov 28, 2026``…). With
        *today*, a date later than tomorrow is ignored (a deadline, a typo), not worn as age.
        """
        md = dict_at(self.meta, "metadata")
        found: list[dt.date] = []
        for src in (md, self.meta):
            for key in ("updated", "created", "date"):
                d = _as_date(src.get(key))
                if d:
                    found.append(d)
        found += written_dates(self.lead or self.body[:DATE_SCAN_CHARS])
        if today is not None:
            latest = today + dt.timedelta(days=1)
            found = [d for d in found if d <= latest]
        return max(found) if found else None

    def to_json(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "title": self.title,
            "description": self.description,
            "type": self.type,
            "tags": list(self.tags),
            "body": self.body,
            "links": self.links,
            "meta": _jsonable(self.meta),
        }


#: How much of a memory file is searched for a written date (as the original does).
DATE_SCAN_CHARS = 4000
_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
    )
}
_MONTH = r"(?P<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE_RES = (
    re.compile(r"(?<![\d.])(?P<y>(?:19|20)\d\d)[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})(?![\d])"),
    re.compile(
        r"(?P<y>(?:19|20)\d\d)\s*[年년]\s*(?P<m>\d{1,2})\s*[月월]\s*(?P<d>\d{1,2})\s*[日일号號]"
    ),
    re.compile(
        r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r",?\s+(?P<y>(?:19|20)\d\d)\b", re.I
    ),
    re.compile(
        r"\b" + _MONTH + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y>(?:19|20)\d\d)\b", re.I
    ),
)


def written_dates(text: str) -> list[dt.date]:
    """Calendar dates written in *text* (ISO, slashed, CJK and English forms; full-width
    digits too). Impossible dates (2026-02-30) are not dates."""
    text = unicodedata.normalize("NFKC", text[:DATE_SCAN_CHARS])
    out: list[dt.date] = []
    for rx in _DATE_RES:
        for m in rx.finditer(text):
            g = m.groupdict()
            month = _MONTHS[g["mon"].lower()[:3]] if g.get("mon") else int(g["m"])
            try:
                out.append(dt.date(int(g["y"]), month, int(g["d"])))
            except ValueError:
                continue
    return out


def _as_date(v: Any) -> dt.date | None:
    if isinstance(v, dt.datetime):
        return v.date()
    if isinstance(v, dt.date):
        return v
    if isinstance(v, str):
        m = _ISO_DATE.match(v.strip())
        if m:
            try:
                return dt.date(int(m[1]), int(m[2]), int(m[3]))
            except ValueError:
                return None
    return None


def _jsonable(v: Any) -> Any:
    if isinstance(v, Mapping):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    return v


@dataclass(frozen=True)
class Frontmatter:
    """A memory file read: its frontmatter, its body, and which form the frontmatter had.

    ``form`` is ``"yaml"`` when strict YAML read it, ``"lines"`` when only the line form
    did (see :func:`read_frontmatter`); ``why`` says what strict YAML stumbled on.
    """

    meta: dict[str, Any]
    body: str
    form: str = "yaml"
    why: str = ""


#: Frontmatter fields that are prose: kept as the text written, never as YAML values.
PROSE_KEYS = frozenset({"name", "title", "description", *CURATION_FIELDS})
_KEY_LINE = re.compile(
    r"^(?P<key>[^\s:#\-\"'\[\]{}|>!&*%@`,?][^\s:]*)[ \t]*:(?:[ \t]+(?P<value>.*?))?[ \t]*$"
)
_ITEM_LINE = re.compile(r"^-(?:[ \t]+(?P<value>.*?))?[ \t]*$")
_BLOCK_SCALAR = re.compile(r"^[|>][+-]?$")


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """Split a memory file into (frontmatter, body). Raises MemoryFormatError."""
    fm = read_frontmatter(text)
    return fm.meta, fm.body


def read_frontmatter(text: str) -> Frontmatter:
    """Read a memory file's frontmatter: strict YAML first, then the line form.

    People and other tools write *YAML-ish* frontmatter: ``key: value`` lines whose values
    hold unquoted colons, ``#``, quotes or brackets, tab-indented children, no closing
    ``---``. Such a file is still a memory. The line form reads it: one ``key: value`` per
    line (the first of a repeated key wins), children of a key with no value by
    indentation (a mapping, or a list of ``- item`` lines), prose fields as written.
    Nothing is dropped: a line that cannot belong to the frontmatter starts the body.
    Raises MemoryFormatError only when neither form can read the file.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.startswith("---"):
        raise MemoryFormatError("no YAML frontmatter (the file must start with a '---' line)")
    lines = text.split("\n")
    if lines[0].strip() != "---":
        raise MemoryFormatError("the first line must be exactly '---'")
    close = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    why = "the frontmatter is never closed with a '---' line"
    if close is not None:
        head = "\n".join(lines[1:close])
        body = "\n".join(lines[close + 1 :])
        try:
            meta = yaml.load(head, Loader=_LOADER) if head.strip() else {}
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            problem = getattr(exc, "problem", None) or "not valid YAML"
            why = f"not strict YAML ({problem}{f' at line {mark.line + 2}' if mark is not None else ''})"
        else:
            if isinstance(meta, dict):
                lost = _comment_cut(lines[1:close], meta)
                if not lost:
                    return Frontmatter(meta, body.lstrip("\n"))
                meta = {**meta, **lost}
                return Frontmatter(
                    meta,
                    body.lstrip("\n"),
                    "lines",
                    "a ' #' inside "
                    + ", ".join(sorted(lost))
                    + " would be a YAML comment; the text as written was kept",
                )
            why = "the frontmatter is not a mapping of keys to values"
    meta, end = _line_form(lines)
    if not meta:
        if close is None:
            raise MemoryFormatError("the frontmatter is never closed with a '---' line")
        if "not a mapping" in why:
            raise MemoryFormatError("the frontmatter must be a mapping of keys to values")
        raise MemoryFormatError(
            f"the frontmatter is not valid YAML and has no 'key: value' lines "
            f"({why.removeprefix('not strict YAML ').strip('()')})"
        )
    if end is None or (close is not None and end != close):
        why = "the frontmatter is never closed with a '---' line"
        body = "\n".join(lines[end if end is not None else len(lines) :])
        if end is not None and close is not None and end < close:
            why = (
                f"the frontmatter is not closed before line {end + 1} (its '---' comes later); "
                f"the body was read from line {end + 1}"
            )
    else:
        body = "\n".join(lines[end + 1 :])
    return Frontmatter(meta, body.lstrip("\n"), "lines", why)


def _comment_cut(head: Sequence[str], meta: Mapping[str, Any]) -> dict[str, str]:
    """Prose fields whose ' #...' tail strict YAML read as a comment: {key: text as written}."""
    out: dict[str, str] = {}
    for line in head:
        m = _KEY_LINE.match(line)
        if not m or m["key"] not in PROSE_KEYS or not m["value"] or m["key"] in out:
            continue
        raw, parsed = m["value"], meta.get(m["key"])
        if (
            isinstance(parsed, str)
            and " #" in raw
            and raw[:1] not in "\"'"
            and raw != parsed
            and raw.startswith(parsed)
            and raw[len(parsed) :].lstrip(" \t").startswith("#")
        ):
            out[m["key"]] = raw
    return out


def _indent(line: str) -> int:
    n = 0
    for ch in line:
        if ch == " ":
            n += 1
        elif ch == "\t":
            n += 4 - n % 4
        else:
            break
    return n


def _line_form(lines: Sequence[str]) -> tuple[dict[str, Any], int | None]:
    """Read the line form from *lines* (lines[0] is the opening '---').

    Returns (meta, end): *end* is the index of the closing '---', or of the first line
    that cannot belong to a frontmatter (the body starts there); None when the text ends
    inside the frontmatter.
    """
    i, n = 1, len(lines)
    block: list[tuple[int, str]] = []  # (indent, stripped) of the frontmatter's lines
    end: int | None = None
    while i < n:
        line = lines[i]
        s = line.strip()
        if s == "---":
            end = i
            break
        if not s or (_indent(line) == 0 and s.startswith("#")):
            block.append((0, ""))
            i += 1
            continue
        if s == "...":
            block.append((0, ""))
            i += 1
            continue
        if _indent(line) == 0 and not _KEY_LINE.match(line) and not _ITEM_LINE.match(line):
            # a line a frontmatter cannot hold: the frontmatter was never closed
            end = i
            while end > 1 and not lines[end - 1].strip():
                end -= 1
            return _mapping(block, 0)[0], end
        block.append((_indent(line), s))
        i += 1
    return _mapping(block, 0)[0], end


def _mapping(block: Sequence[tuple[int, str]], start: int) -> tuple[dict[str, Any], int]:
    """Read key lines at the indentation of block[start] until a shallower line."""
    out: dict[str, Any] = {}
    i = start
    while i < len(block) and not block[i][1]:
        i += 1
    if i >= len(block):
        return out, i
    level = block[i][0]
    while i < len(block):
        ind, s = block[i]
        if not s:
            i += 1
            continue
        if ind < level:
            break
        m = _KEY_LINE.match(s)
        if ind > level or not m:
            i += 1  # a stray deeper line with no key above it: nothing to attach it to
            continue
        key, value = m["key"].strip(), (m["value"] or "")
        i += 1
        children = []
        j = i
        while j < len(block) and (
            not block[j][1]
            or block[j][0] > level
            or (not value and block[j][0] == level and _ITEM_LINE.match(block[j][1]))
        ):
            children.append(block[j])
            j += 1
        while children and not children[-1][1]:
            children.pop()
            j -= 1
        if value and _BLOCK_SCALAR.match(value):
            parsed: Any = _block_scalar(value, children)
        elif value:
            parsed = _scalar(key, " ".join([value] + [c[1] for c in children if c[1]]))
        elif any(c[1] for c in children):
            first = next(c for c in children if c[1])
            if _ITEM_LINE.match(first[1]):
                parsed = _items(key, children)
            else:
                parsed, _ = _mapping(children, 0)
        else:
            parsed = ""
        i = j
        if key not in out:  # the first of a repeated key wins
            out[key] = parsed
    return out, i


def _items(key: str, children: Sequence[tuple[int, str]]) -> list[Any]:
    items: list[Any] = []
    for _, s in children:
        m = _ITEM_LINE.match(s) if s else None
        if m:
            items.append(_scalar(key, m["value"] or "", item=True))
        elif s and items and isinstance(items[-1], str):
            items[-1] = f"{items[-1]} {s}"
    return items


def _block_scalar(indicator: str, children: Sequence[tuple[int, str]]) -> str:
    texts = [s for _, s in children]
    if indicator.startswith("|"):
        return "\n".join(texts).strip("\n") + ("\n" if not indicator.endswith("-") else "")
    paras = "\n".join(texts).split("\n\n")
    return "\n".join(" ".join(p.split()) for p in paras).strip() + (
        "\n" if not indicator.endswith("-") else ""
    )


def _unquote(value: str) -> str | None:
    """The text of a fully quoted YAML scalar, or None if *value* is not one."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        try:
            got = yaml.load(f"v: {value}", Loader=_LOADER)
        except yaml.YAMLError:
            return value[1:-1]
        if isinstance(got, dict) and isinstance(got.get("v"), str):
            return got["v"]
        return value[1:-1]
    return None


def _scalar(key: str, value: str, *, item: bool = False) -> Any:
    """One line-form value. Prose stays the text written (a fully quoted one is unquoted);
    anything else is read as YAML when that single value parses, else kept as text."""
    value = value.strip()
    quoted = _unquote(value)
    if quoted is not None:
        return quoted
    if key in PROSE_KEYS and not item:
        return value
    if value.startswith("[") and value.endswith("]") and not item:
        inner = value[1:-1].strip()
        if not inner:
            return []
        try:
            got = yaml.load(f"v: {value}", Loader=_LOADER)
        except yaml.YAMLError:
            got = None
        if isinstance(got, dict) and isinstance(got.get("v"), list):
            return got["v"]
        return [
            (_unquote(p.strip()) if _unquote(p.strip()) is not None else p.strip())
            for p in inner.split(",")
            if p.strip()
        ]
    try:
        got = yaml.load(f"v: {value}", Loader=_LOADER)
    except yaml.YAMLError:
        return value
    if isinstance(got, dict) and "v" in got and not isinstance(got["v"], (dict, list)):
        v = got["v"]
        return "" if v is None else v
    return value


class _Dumper(yaml.SafeDumper):
    """The safe dumper, writing a word of the vocabulary (a ``StrEnum``) as its text."""


_Dumper.add_multi_representer(StrEnum, lambda dumper, word: dumper.represent_str(word.value))


def render_memory(meta: Mapping[str, Any], body: str) -> str:
    head = yaml.dump(dict(meta), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1000)
    body = body.strip("\n")
    return f"---\n{head}---\n\n{body}\n"


def _memory_from_text(
    slug: str, text: str, path: Path, title: str, st: os.stat_result | None
) -> Memory:
    fm = read_frontmatter(text)
    meta, body = fm.meta, fm.body
    problems: list[str] = []
    md = meta.get("metadata")
    if md is None:
        md = {}
    elif not isinstance(md, dict):
        problems.append("metadata is not a mapping")
        md = {}
    mtype = md.get("type", meta.get("type", ""))
    if mtype is None:
        mtype = ""
    elif not isinstance(mtype, str):
        problems.append("metadata.type is not a word")
        mtype = ""
    elif mtype and mtype not in MEMORY_TYPES:
        problems.append(f"metadata.type {mtype!r} is not one of {', '.join(MEMORY_TYPES)}")
    raw_tags = md.get("tags", meta.get("tags", []))
    if raw_tags is None:
        raw_tags = []
    if isinstance(raw_tags, str):
        raw_tags = [t.strip() for t in raw_tags.split(",") if t.strip()]
    if not isinstance(raw_tags, list) or not all(isinstance(t, str) for t in raw_tags):
        problems.append("tags is not a list of words")
        raw_tags = [t for t in raw_tags if isinstance(t, str)] if isinstance(raw_tags, list) else []
    desc = meta.get("description", "")
    if desc is None:
        desc = ""
    elif not isinstance(desc, str):
        problems.append("description is not text")
        desc = str(desc)
    name = meta.get("name")
    if name is not None and name != slug:
        problems.append(f"name {name!r} does not match the file name {slug}.md")
    return Memory(
        slug=slug,
        title=title or slug.replace("-", " "),
        description=" ".join(desc.split()),
        type=mtype,
        tags=tuple(raw_tags),
        body=body,
        meta=meta,
        path=path,
        size=st.st_size if st else len(text.encode()),
        mtime_ns=st.st_mtime_ns if st else 0,
        problems=tuple(problems),
        form=fm.form,
        form_why=fm.why,
        lead=text[:DATE_SCAN_CHARS],
    )


# --------------------------------------------------------------------------- the index


@dataclass(frozen=True)
class Entry:
    slug: str
    title: str
    description: str
    line_no: int
    sector: str
    raw: str
    target: str  # the link target as written, e.g. "slug.md"
    #: one of several memories a single hand-written line names (see _GROUP_LINK_RE);
    #: the line is kept whole: its description is the line's label, not this memory's own
    grouped: bool = False


@dataclass(frozen=True)
class Index:
    lines: tuple[str, ...]
    entries: tuple[Entry, ...]
    foreign_links: tuple[
        tuple[int, str], ...
    ] = ()  # (line_no, target) of entry-shaped lines that point nowhere valid
    #: when reparse_index made this from an earlier parse: (that parse, held weakly; the slugs
    #: whose lines differ; that parse's own record, up to _DELTA_DEPTH back). See changed_since.
    delta: tuple | None = field(default=None, compare=False, repr=False)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def by_slug(self) -> dict[str, Entry]:
        """The first entry for each slug. Computed once per parsed index; do not mutate."""
        return self._by_slug

    @functools.cached_property
    def _by_slug(self) -> dict[str, Entry]:
        out: dict[str, Entry] = {}
        for e in self.entries:
            out.setdefault(e.slug, e)
        return out

    def slugs(self) -> list[str]:
        return [e.slug for e in self.entries]

    def sectors(self) -> list[str]:
        """The ``## `` headings, in file order, each once (the store's sectors)."""
        seen: dict[str, None] = {}
        for i, line in enumerate(self.lines):
            if line.startswith("## ") and not self._in_comment(i):
                seen.setdefault(line[3:].strip(), None)
        return list(seen)

    def _in_comment(self, n: int) -> bool:
        return n in self._comment_lines

    @functools.cached_property
    def _comment_lines(self) -> frozenset[int]:
        out, inside = set(), False
        for i, line in enumerate(self.lines):
            s = line.strip()
            if inside or s.startswith("<!--"):
                out.add(i)
                inside = "-->" not in s
        return frozenset(out)


def entry_line(slug: str, title: str, description: str) -> str:
    title = " ".join(title.replace("[", "(").replace("]", ")").split()) or slug
    description = " ".join(description.split())
    line = f"- [{title}]({slug}.md)"
    return f"{line} — {description}" if description else line


def parse_index(text: str) -> Index:
    lines = _index_lines(text)
    entries, foreign, _, _ = _parse_lines(lines, 0, len(lines), "", False)
    return Index(tuple(lines), tuple(entries), tuple(foreign))


def _index_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    return lines


def _parse_lines(
    lines: Sequence[str], start: int, stop: int, sector: str, in_comment: bool
) -> tuple[list[Entry], list[tuple[int, str]], str, bool]:
    """Parse lines[start:stop] from the given state; return what they hold and the state after."""
    entries: list[Entry] = []
    foreign: list[tuple[int, str]] = []
    for i in range(start, stop):
        line = lines[i]
        stripped = line.strip()
        if in_comment:
            if "-->" in stripped:
                in_comment = False
            continue
        if stripped.startswith("<!--"):
            in_comment = "-->" not in stripped
            continue
        if line.startswith("## "):
            sector = line[3:].strip()
            continue
        m = _ENTRY_RE.match(line)
        if not m:
            if "](" in line and _BULLET_RE.match(line):
                _grouped_entries(line, i, sector, entries, foreign)
            continue
        target = m.group("file")
        if "://" in target:
            continue  # an ordinary web link a person wrote; not ours
        slug = target[:-3] if target.endswith(".md") else target
        # a plain kebab-case slug is what check_slug accepts; anything else it judges
        # (_link_slug, inline: this loop is hot)
        if not (SLUG_RE.fullmatch(slug) and len(slug) <= MAX_SLUG and slug not in RESERVED):
            try:
                check_slug(slug)
            except ContainmentError:
                foreign.append((i, target))
                continue
        entries.append(
            Entry(
                slug,
                m.group("title").strip(),
                (m.group("desc") or "").strip(),
                i,
                sector,
                line,
                target,
            )
        )
    return entries, foreign, sector, in_comment


def _link_slug(target: str) -> str | None:
    """The slug an index link points at; None for a web link or a name that is not a slug."""
    if "://" in target:
        return None
    slug = target[:-3] if target.endswith(".md") else target
    # a plain kebab-case slug is what check_slug accepts; anything else it judges
    if not (SLUG_RE.fullmatch(slug) and len(slug) <= MAX_SLUG and slug not in RESERVED):
        try:
            check_slug(slug)
        except ContainmentError:
            return None
    return slug


def _group_label(line: str, first_link: int) -> str:
    """The words of a grouped line before its first link, without the bullet and separator."""
    label = _BULLET_RE.sub("", line[:first_link], count=1).strip()
    return label.rstrip("—–-:|/ ").strip()


def _grouped_entries(
    line: str, i: int, sector: str, entries: list[Entry], foreign: list[tuple[int, str]]
) -> None:
    """The entries of a grouped line (one per ``[Title](slug.md)`` link), appended."""
    label = None
    for m in _GROUP_LINK_RE.finditer(line):
        target = m.group("file")
        slug = _link_slug(target)
        if slug is None:
            if "://" not in target:
                foreign.append((i, target))
            continue
        if label is None:
            label = _group_label(line, m.start())
        entries.append(Entry(slug, m.group("title").strip(), label, i, sector, line, target, True))


def _shifts_state(line: str) -> bool:
    """Whether a line may open or close a comment or start a sector (then it is parsed in full)."""
    return line.startswith("## ") or "--" in line


def reparse_index(old: Index, text: str) -> Index:
    """``parse_index(text)``, reusing *old*, the parse of an earlier version of the file.

    A write changes one line of MEMORY.md, so only the lines between the unchanged head and
    the unchanged tail are parsed again; entries before keep their objects, entries after
    move by the number of lines added or removed. When a changed line opens or closes a
    comment or starts a sector, the whole file is parsed again.
    """
    lines = _index_lines(text)
    prev = old.lines
    head = 0
    for a, b in zip(lines, prev, strict=False):
        if a != b:
            break
        head += 1
    if head == len(lines) == len(prev):
        return old
    tail = 0
    room = min(len(lines), len(prev)) - head
    for a, b in zip(reversed(lines), reversed(prev), strict=False):
        if tail >= room or a != b:
            break
        tail += 1
    new_mid = lines[head : len(lines) - tail]
    old_mid = prev[head : len(prev) - tail]
    if any(map(_shifts_state, new_mid)) or any(map(_shifts_state, old_mid)):
        return parse_index(text)
    sector, in_comment = "", False
    for line in lines[:head]:
        if line.startswith("## ") or "--" in line:  # _shifts_state, inline: this loop is hot
            _, _, sector, in_comment = _parse_lines((line,), 0, 1, sector, in_comment)
    mid, mid_foreign, _, _ = _parse_lines(lines, head, len(lines) - tail, sector, in_comment)
    shift = len(lines) - len(prev)
    cut = len(prev) - tail

    def split(items: Sequence[Any], line_of: Callable[[Any], int]) -> tuple[list, list]:
        # items are in line order
        return (
            list(items[: bisect.bisect_left(items, head, key=line_of)]),
            list(items[bisect.bisect_left(items, cut, key=line_of) :]),
        )

    before, after = split(old.entries, lambda e: e.line_no)
    if shift:
        after = [
            Entry(
                e.slug,
                e.title,
                e.description,
                e.line_no + shift,
                e.sector,
                e.raw,
                e.target,
                e.grouped,
            )
            for e in after
        ]
    f_before, f_after = split(old.foreign_links, lambda f: f[0])
    f_after = [(n + shift, t) for n, t in f_after]
    gone = old.entries[len(before) : len(old.entries) - len(after)]
    delta = (
        weakref.ref(old),
        frozenset(e.slug for e in (*gone, *mid)),
        _shorter(old.delta, _DELTA_DEPTH - 1),
    )
    return Index(
        tuple(lines), tuple(before + mid + after), tuple(f_before + mid_foreign + f_after), delta
    )


#: how many reparses back changed_since can see
_DELTA_DEPTH = 16


def _shorter(delta: tuple | None, depth: int) -> tuple | None:
    """*delta* with at most *depth* records."""
    if delta is None or depth <= 0:
        return None
    ref, slugs, earlier = delta
    return (ref, slugs, _shorter(earlier, depth - 1))


def changed_since(older: Index, newer: Index) -> frozenset[str] | None:
    """The slugs whose entries may differ between two parses of one MEMORY.md, when *newer*
    was made from *older* by reparse_index, through up to _DELTA_DEPTH parses between; None
    when that is not known (then compare every entry). A reader that followed the index (the
    word tier) looks at these entries instead of all of them."""
    if older is newer:
        return frozenset()
    out: set[str] = set()
    delta = newer.delta
    while delta is not None:
        ref, slugs, delta = delta
        out |= slugs
        if ref() is older:
            return frozenset(out)
    return None


def upsert_index_text(text: str, slug: str, title: str, description: str, sector: str = "") -> str:
    """Return *text* with *slug* indexed, every other line untouched.

    The memory's own line (the first one in kura's form) is rewritten and any later ones of
    that form dropped. A grouped line naming it is kept byte-for-byte, but for that link's
    title when the title changed. With no line at all, a new one goes at the end of its
    *sector* (made when missing), or, with no sector given, at the end of the lines above
    the first ``## `` heading (the end of the file when there is none).
    """
    idx = parse_index(text)
    lines = list(idx.lines)
    new_line = entry_line(slug, title, description)
    own = [e.line_no for e in idx.entries if e.slug == slug and not e.grouped]
    grouped = sorted({e.line_no for e in idx.entries if e.slug == slug and e.grouped})
    for n in grouped:
        lines[n] = _retitle_link(lines[n], slug, title)
    if own:
        lines[own[0]] = new_line
        for n in reversed(own[1:]):
            del lines[n]
        return "\n".join(lines) + "\n"
    if grouped:
        return "\n".join(lines) + "\n"
    lines.insert(_insert_at(lines, sector, idx), new_line)
    return "\n".join(lines) + "\n"


def _insert_at(lines: list[str], sector: str, idx: Index) -> int:
    """Where a new entry line goes (*lines* may grow by a new sector heading)."""
    heads = [i for i, l in enumerate(lines) if l.startswith("## ") and not idx._in_comment(i)]
    if sector:
        mine = [i for i in heads if lines[i][3:].strip() == sector]
        if not mine:
            while lines and not lines[-1].strip():
                lines.pop()
            lines += ["", f"## {sector}", ""]
            return len(lines)
        later = [i for i in heads if i > mine[0]]
        end = later[0] if later else len(lines)
        start = mine[0] + 1
    elif heads:
        start, end = 0, heads[0]
    else:
        start, end = 0, len(lines)
    while end > start and not lines[end - 1].strip():
        end -= 1
    if not sector and heads and end == heads[0]:
        lines.insert(end, "")  # above the first heading: a blank line keeps them apart
    return end


def sector_for(idx: Index, tags: Sequence[str], type: str = "") -> str:
    """The ``## `` sector a new line for a memory with *tags* and *type* goes into: the first
    heading that names one of its tags, else its type (compared as slugs, so ``## Water
    tools`` takes the tag ``water-tools``); "" when none does (the lines above the headings)."""
    if not any(l.startswith("## ") for l in idx.lines):
        return ""
    by_key = {slugify(h): h for h in reversed(idx.sectors())}
    for word in (*tags, type):
        key = slugify(str(word)) if word else ""
        if key and key in by_key:
            return by_key[key]
    return ""


def _links_of(line: str, slug: str) -> list[re.Match[str]]:
    return [m for m in _GROUP_LINK_RE.finditer(line) if _link_slug(m.group("file")) == slug]


def _retitle_link(line: str, slug: str, title: str) -> str:
    """A grouped *line* with *slug*'s link text set to *title* (unchanged when it already is)."""
    want = " ".join(title.replace("[", "(").replace("]", ")").split()) or slug
    for m in reversed(_links_of(line, slug)):
        if m.group("title").strip() != want:
            line = f"{line[: m.start('title')]}{want}{line[m.end('title') :]}"
    return line


def _unlink(line: str, slug: str) -> str | None:
    """A grouped *line* without *slug*'s links and the separator beside each; None when no
    link of another memory is left (the whole line goes)."""
    while True:
        links = list(_GROUP_LINK_RE.finditer(line))
        k = next((j for j, m in enumerate(links) if _link_slug(m.group("file")) == slug), None)
        if k is None:
            break
        if len(links) == 1:
            return None
        if k + 1 < len(links):  # the link and what separates it from the next
            line = line[: links[k].start()] + line[links[k + 1].start() :]
        else:  # the last link and what separates it from the one before
            line = line[: links[k - 1].end()] + line[links[k].end() :]
    return line if any(_link_slug(m.group("file")) for m in _GROUP_LINK_RE.finditer(line)) else None


def remove_index_text(text: str, slug: str) -> str:
    """*text* without *slug*'s own lines; a grouped line loses only that memory's link."""
    idx = parse_index(text)
    drop = {e.line_no for e in idx.entries if e.slug == slug and not e.grouped}
    out = list(idx.lines)
    for n in sorted({e.line_no for e in idx.entries if e.slug == slug and e.grouped}):
        kept = _unlink(out[n], slug)
        if kept is None:
            drop.add(n)
        else:
            out[n] = kept
    return "\n".join(l for i, l in enumerate(out) if i not in drop) + "\n"


# --------------------------------------------------------------------------- the store


@dataclass(frozen=True)
class Scan:
    """Every memory file in a store, parsed, plus what could not be parsed."""

    memories: tuple[Memory, ...]
    unreadable: tuple[tuple[str, str], ...]  # (file name, why)
    index: Index

    def by_slug(self) -> dict[str, Memory]:
        return {m.slug: m for m in self.memories}


@dataclass(frozen=True)
class Retired:
    """A memory taken out of its store: the file's text and the index line it had."""

    slug: str
    text: str
    index_line: str
    title: str = ""


def seal_of(body: str, meta: Mapping[str, Any]) -> str:
    """A digest of what the gate vouched for in a memory file: its body and its three
    curation sentences. Pour records it next to the evidence manifest; when the file no
    longer matches it, the memory was edited by hand after the gate passed it."""
    parts = [body.strip()] + [" ".join(str(meta.get(k) or "").split()) for k in CURATION_FIELDS]
    data = json.dumps(parts, ensure_ascii=False)
    return "sha256:" + hashlib.sha256(data.encode("utf-8")).hexdigest()


class Listing:
    """One scan of a store's directory: the names in the order the system gave them, and
    each one's inode number. Read-only."""

    __slots__ = ("names", "inodes", "_by_name", "_slugs")

    def __init__(self, names: list[str], inodes: list[int]) -> None:
        self.names = names
        self.inodes = inodes
        self._by_name: dict[str, int] | None = None
        self._slugs: tuple[str, ...] | None = None

    def memory_slugs(self) -> tuple[str, ...]:
        """The slugs of the memory files among the names, sorted (memory_slug's rule)."""
        if self._slugs is None:
            self._slugs = tuple(
                sorted(
                    n[:-3]
                    for n in self.names
                    if _MEMORY_FILE_RE.fullmatch(n)
                    and len(n) <= MAX_SLUG + 3
                    and n[:-3] not in RESERVED
                )
            )  # memory_slug(n), inline: 20,000 names is a hot loop
        return self._slugs

    def by_name(self) -> dict[str, int]:
        if self._by_name is None:
            self._by_name = dict(zip(self.names, self.inodes, strict=False))
        return self._by_name

    def changed_since(self, earlier: Listing) -> tuple[list[str], list[str]]:
        """(names that are new or hold another file than in *earlier*, names gone since).

        A directory whose names are unchanged is listed in the same order again, so a file
        replaced under its name is found by comparing the two scans position by position,
        in C; when names came or went, by name."""
        if self.names == earlier.names:
            return list(compress(self.names, map(ne, self.inodes, earlier.inodes))), []
        now, was = self.by_name(), earlier.by_name()
        return [n for n, i in now.items() if was.get(n) != i], list(was.keys() - now.keys())


class Store:
    """One store on disk. Cheap to construct; safe to share between threads."""

    def __init__(
        self,
        root: str | os.PathLike,
        *,
        name: str = "",
        charter_path: Path | None = None,
        today: Callable[[], dt.date] = dt.date.today,
        secrets: SecretRules = BUILTIN,
        history: bool = True,
    ):
        self.root = Path(os.path.abspath(Path(root).expanduser()))
        #: record each write in the store's git history (when it has a repository)
        self.history = history
        #: what a write may not carry raw (kura.secrets): a write with one is refused
        self.secrets = secrets
        self.name = name or self.root.name
        self._charter_path = charter_path
        self._today = today
        self._cache_lock = threading.Lock()
        self._index_cache: tuple[tuple, Index] | None = None
        self._mem_cache: dict[str, tuple[tuple, Memory]] = {}
        self._listing_cache: tuple[tuple, Listing] | None = None
        self._thread_lock = threading.RLock()
        self._lock_depth = 0
        self._workshop: Any = None
        self._swept_key: tuple | None = None
        self._root_stat: os.stat_result | None = (
            None  # the directory's status as index() last saw it
        )
        #: why the last attempt to finish a pending write failed ('' when none is pending).
        self.pending_reason = ""

    # ---- paths -----------------------------------------------------------
    @functools.cached_property  # on every read's path: join once
    def still(self) -> Path:
        return self.root / STILL

    @functools.cached_property  # on every read's path: join once
    def index_path(self) -> Path:
        return self.root / INDEX_FILE

    @property
    def charter_path(self) -> Path:
        return self._charter_path or self.root / "charter.md"

    @property
    def profile_path(self) -> Path:
        return self.root / "profile.md"

    @functools.cached_property  # on every read's path: join once
    def intent_path(self) -> Path:
        return self.still / "intent.json"

    @functools.cached_property
    def _paths(self) -> tuple[str, str, str, str]:
        """(root, root + separator, MEMORY.md, intent) as plain strings: the read path
        joins and checks them on every recall, and a string costs a fraction of a Path."""
        root = os.fspath(self.root)
        return root, os.path.join(root, ""), os.fspath(self.index_path), os.fspath(self.intent_path)

    @property
    def pending_dir(self) -> Path:
        """Intents whose files are in place but whose gate-log row or draft removal waits."""
        return self.still / "pending"

    def exists(self) -> bool:
        return self.index_path.is_file() or self.still.is_dir()

    def memory_path(self, slug: str) -> Path:
        """The file for *slug*, refusing anything that could leave the store."""
        return Path(self._memory_file(slug)[0])

    def _memory_file(self, slug: str) -> tuple[str, os.stat_result | None]:
        """memory_path() as a string, with the file's own status (None when there is no such file)."""
        check_slug(slug)
        path = self._paths[1] + slug + ".md"
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return path, None
        if stat.S_ISLNK(st.st_mode):
            raise ContainmentError(
                f"{slug}.md is a symbolic link; a store only answers for its own files"
            )
        if not stat.S_ISREG(st.st_mode):
            raise ContainmentError(f"{slug}.md is not a regular file")
        if st.st_nlink > 1:
            raise ContainmentError(
                f"{slug}.md is hard-linked elsewhere; a store only answers for its own files"
            )
        return path, st

    # ---- creation --------------------------------------------------------
    def init(self, label: str = "") -> None:
        """Create the store's directory, index and workshop if missing. Idempotent."""
        if self.root.exists() and not self.root.is_dir():
            raise KuraError(f"{self.root} exists and is not a directory; choose another --path")
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            self.still.mkdir(exist_ok=True)
            (self.still / "drafts").mkdir(exist_ok=True)
            if not self.index_path.exists():
                head = f"# {self.name}\n\n"
                if label:
                    head += f"{label}\n\n"
                head += (
                    "<!-- One line per memory: a recognition trigger, not a summary. "
                    "Proper nouns, numbers, ⚠️ landmines, the conclusion reached. -->\n"
                )
                with self.locked(f"create store {self.name!r}"):
                    if not self.index_path.exists():
                        atomic_write_text(self.index_path, head)
        except OSError as exc:
            raise storage_error(
                exc, f"create store {self.name!r}", exc.filename or self.root / "."
            ) from None

    # ---- reading ---------------------------------------------------------
    def _recover_if_needed(self) -> None:
        """Finish a write a crashed writer left behind. A reader never fails because of it:
        if the disk refuses (full, read-only), the reader sees the state as it stands and
        the reason is kept in :attr:`pending_reason` for doctor."""
        self._root_stat = None
        if not _exists(self._paths[3]):
            self._sweep_if_changed()
            return
        try:
            with self.locked("finish an interrupted write"):
                self._recover_locked()
        except KuraError as exc:
            self.pending_reason = str(exc)
        except OSError as exc:
            self.pending_reason = str(
                storage_error(exc, "finish an interrupted write", self.intent_path)
            )
        except UnicodeDecodeError as exc:
            self.pending_reason = (
                f"cannot finish an interrupted write: a file it rewrites is not UTF-8 text "
                f"({exc.reason} at byte {exc.start}); fix or remove the bad bytes and "
                "run any kura command again"
            )

    def root_status(self) -> os.stat_result | None:
        """The store directory's status as taken by the latest :meth:`index` (None when it
        took none: a write was being finished, or the directory could not be read). A reader
        that has just called index() can use it instead of asking the system again."""
        return self._root_stat

    def _sweep_if_changed(self) -> None:
        """Remove temp files a killed writer left in the store directory. Looks only when
        the directory changed since the last look, and locks only when a dead writer's
        temp file is there."""
        try:
            st = os.stat(self._paths[0])
        except OSError:
            return
        self._root_stat = st
        key = (st.st_ino, st.st_mtime_ns)
        if key == self._swept_key:
            return
        try:
            names = self.listing(st).names
        except OSError:
            return
        # one search of all the names joined, in C, before a look at each: usually there is none
        temps = [n for n in names if is_temp_name(n)] if TMP_MARK in "\0".join(names) else []
        if temps:
            # writers hold the lock while their temps exist: if it is free, every temp is stale
            try:
                with self._locked_if_free("remove a dead writer's temp files") as free:
                    if not free:
                        return  # a write is under way; look again next time
                    self._recover_locked()
                st = os.stat(self.root)
                self._root_stat = st
                key = (st.st_ino, st.st_mtime_ns)
            except (OSError, KuraError):
                return  # a read-only store keeps them; they are never read as memories
        self._swept_key = key

    @contextlib.contextmanager
    def _locked_if_free(self, action: str) -> Iterator[bool]:
        """The write lock if nobody holds it now (True), else nothing (False)."""
        if not self._thread_lock.acquire(blocking=False):
            yield False
            return
        try:
            if self._lock_depth:
                yield False
                return
            lock_path = self.still / "write.lock"
            try:
                fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise storage_error(exc, action, lock_path) from None
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    yield False
                    return
                self._lock_depth = 1
                try:
                    yield True
                finally:
                    self._lock_depth = 0
                    fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
        finally:
            self._thread_lock.release()

    def recover(self) -> None:
        """Finish any interrupted write now, and settle parked gate-log rows; raises
        StorageError when the disk refuses (a writer must not go on over it)."""
        with self.locked("finish an interrupted write"):
            self._recover_locked(settle=True)

    def pending(self) -> list[str]:
        """What is waiting to be finished, in words (empty when nothing is)."""
        out = []
        if self.intent_path.exists():
            out.append(
                "an interrupted write is waiting to be finished"
                + (f" ({self.pending_reason})" if self.pending_reason else "")
            )
        try:
            n = len([p for p in os.listdir(self.pending_dir) if p.endswith(".json")])
        except OSError:
            n = 0
        if n:
            out.append(
                f"{n} finished write(s) still wait to be recorded in the gate log"
                + (f" ({self.pending_reason})" if self.pending_reason else "")
            )
        return out

    def _index_stat(self) -> os.stat_result | None:
        """MEMORY.md's own status, never a link's target; None if there is no index."""
        try:
            st = os.lstat(self._paths[2])
        except FileNotFoundError:
            return None
        if not stat.S_ISREG(st.st_mode):
            raise ContainmentError(
                f"{INDEX_FILE} is not a regular file (a link or a directory); "
                "a store only answers for its own files"
            )
        return st

    def _read_index_file(self, errors: str = "replace") -> str:
        """MEMORY.md's text ('' if there is none), opened without following a link."""
        if self._index_stat() is None:
            return ""
        try:
            fd = os.open(self.index_path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            return ""
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise ContainmentError(
                    f"{INDEX_FILE} is a symbolic link; a store only answers for its own files"
                ) from None
            raise
        with os.fdopen(fd, "rb") as fh:
            return fh.read().decode("utf-8", errors=errors)

    def index(self) -> Index:
        self._recover_if_needed()
        st = self._index_stat()
        if st is None:
            return Index((), ())
        key = (st.st_ino, st.st_mtime_ns, st.st_size)
        with self._cache_lock:
            hit = self._index_cache
        if hit and hit[0] == key:
            return hit[1]
        text = self._read_index_file()
        idx = reparse_index(hit[1], text) if hit else parse_index(text)
        with self._cache_lock:
            self._index_cache = (key, idx)
        return idx

    def index_text(self) -> str:
        self._recover_if_needed()
        return self._read_index_file()

    def listing(self, st: os.stat_result | None = None) -> Listing:
        """Every name in the store's directory with its inode number, from one scan of the
        directory (no status call per file). *st* is the directory's status if the caller
        has just taken it.

        Cached on the directory's identity and mtime: creating, renaming or deleting a file
        changes the directory, so the listing is never stale; the sweep for a dead writer's
        temp files, the list of memory files and the word tier's look for replaced files
        share one scan per change.
        """
        if st is None:
            try:
                st = os.stat(self._paths[0])
            except FileNotFoundError:
                return Listing([], [])
        key = (st.st_ino, st.st_mtime_ns, st.st_size)
        with self._cache_lock:
            hit = self._listing_cache
        if hit and hit[0] == key:
            return hit[1]
        names: list[str] = []
        inodes: list[int] = []
        try:
            with os.scandir(self._paths[0]) as it:
                for e in it:
                    names.append(e.name)
                    inodes.append(e.inode())
        except FileNotFoundError:
            return Listing([], [])
        out = Listing(names, inodes)
        with self._cache_lock:
            self._listing_cache = (key, out)
        return out

    def file_slugs(self) -> list[str]:
        """Slugs of the memory files present, sorted. Temp files and reserved names excluded.
        Made from the directory's scan (see :meth:`listing`), once per scan."""
        return list(self.listing().memory_slugs())

    def read(self, slug: str, *, index: Index | None = None) -> Memory:
        """One memory. *index*, the parsed MEMORY.md a caller already holds (a recall reads
        several memories against one), names its title instead of looking the index up again."""
        entries = (
            self.index() if index is None else index
        ).by_slug()  # index() rolls a half-finished write forward
        path, lst = self._memory_file(slug)
        if lst is not None:
            # The regular, singly linked file the memory was parsed from, unchanged: its
            # status says so without opening it (three system calls a read, not seven).
            entry = entries.get(slug)
            with self._cache_lock:
                hit = self._mem_cache.get(slug)
            if hit and hit[0] == (
                lst.st_ino,
                lst.st_mtime_ns,
                lst.st_size,
                entry.title if entry else "",
            ):
                return hit[1]
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            raise NotFound(f"no memory {slug!r} in store {self.name!r}") from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise ContainmentError(f"{slug}.md is a symbolic link") from None
            raise KuraError(f"cannot read {slug}.md: {exc.strerror}") from None
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if st.st_nlink > 1:
                raise ContainmentError(f"{slug}.md is hard-linked elsewhere; refusing to read it")
            entry = entries.get(slug)
            title = entry.title if entry else ""
            key = (st.st_ino, st.st_mtime_ns, st.st_size, title)
            with self._cache_lock:
                hit = self._mem_cache.get(slug)
                if hit and hit[0] == key:
                    return hit[1]
            raw = fh.read()
            after = os.fstat(fh.fileno())
        if len(raw) != st.st_size or (after.st_size, after.st_mtime_ns) != (
            st.st_size,
            st.st_mtime_ns,
        ):
            # written to while it was read (an editor saving in place): not a memory yet
            raise MemoryFormatError(f"{slug}.md changed while it was read")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise MemoryFormatError(f"{slug}.md is not UTF-8 text") from None
        try:
            mem = _memory_from_text(slug, text, Path(path), title, st)
        except MemoryFormatError as exc:
            raise MemoryFormatError(f"{slug}.md: {exc}") from None
        with self._cache_lock:
            self._mem_cache[slug] = (key, mem)
        return mem

    def has(self, slug: str) -> bool:
        """Whether *slug* names a regular, singly linked memory file in this store."""
        try:
            return self._memory_file(slug)[1] is not None
        except ContainmentError:
            return False

    def scan(self) -> Scan:
        idx = self.index()
        mems: list[Memory] = []
        bad: list[tuple[str, str]] = []
        for slug in self.file_slugs():
            try:
                mems.append(self.read(slug))
            except KuraError as exc:
                bad.append((f"{slug}.md", str(exc).removeprefix(f"{slug}.md: ")))
        order = {e.slug: i for i, e in enumerate(idx.entries)}
        mems.sort(key=lambda m: (order.get(m.slug, len(order)), m.slug))
        return Scan(tuple(mems), tuple(bad), idx)

    def charter(self) -> str:
        try:
            return self.charter_path.read_text(encoding="utf-8").strip()
        except (FileNotFoundError, IsADirectoryError, UnicodeDecodeError):
            return ""

    def fingerprint(self) -> tuple:
        """Changes whenever a memory file or the index changes on disk."""
        parts: list[tuple[int, int, int] | None] = []
        for p in (self.root, self.index_path):
            try:
                st = os.stat(p)
                parts.append((st.st_ino, st.st_mtime_ns, st.st_size))
            except FileNotFoundError:
                parts.append(None)
        return tuple(parts)

    def content_fingerprint(self) -> str:
        """A digest of every memory file's identity; slower than fingerprint() but exact."""
        h = hashlib.sha256()
        for slug in self.file_slugs():
            try:
                st = os.stat(self.root / f"{slug}.md")
            except FileNotFoundError:
                continue
            h.update(f"{slug}:{st.st_ino}:{st.st_mtime_ns}:{st.st_size};".encode())
        try:
            st = os.stat(self.index_path)
            h.update(f"index:{st.st_ino}:{st.st_mtime_ns}:{st.st_size}".encode())
        except FileNotFoundError:
            pass
        return h.hexdigest()[:16]

    # ---- writing ---------------------------------------------------------
    @contextlib.contextmanager
    def locked(self, action: str = "write to the store") -> Iterator[None]:
        """The store's write lock: across threads and across processes. Re-entrant within
        one thread, so a pour can hold it around the write it makes."""
        with self._thread_lock:
            if self._lock_depth:
                self._lock_depth += 1
                try:
                    yield
                finally:
                    self._lock_depth -= 1
                return
            lock_path = self.still / "write.lock"
            try:
                self.still.mkdir(parents=True, exist_ok=True)
                fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise storage_error(exc, action, lock_path) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                self._lock_depth = 1
                yield
            finally:
                self._lock_depth = 0
                try:
                    fcntl.flock(fd, fcntl.LOCK_UN)
                finally:
                    os.close(fd)

    def write(
        self,
        slug: str,
        *,
        title: str,
        description: str,
        body: str,
        type: str = "",
        tags: Sequence[str] = (),
        meta: Mapping[str, Any] | None = None,
        sector: str = "",
        create_only: bool = False,
        also: Mapping[str, Any] | None = None,
    ) -> Memory:
        """Write one memory and its index line together, atomically.

        Frontmatter keys already in the file and not named here are preserved. *also*
        is what the write settles once its files are in place, exactly once even across
        a crash: ``{"log": {gate-log row with a "key"}, "remove": "drafts/<slug>.md"}``.
        Raises StorageError (nothing changed) when the disk refuses.
        """
        check_slug(slug)
        description = " ".join(description.split())
        if not description:
            raise KuraError("a memory needs a description: the one line that makes it recognisable")
        if not body.strip():
            raise KuraError("a memory needs a body")
        if type and type not in MEMORY_TYPES:
            raise KuraError(f"type must be one of {', '.join(MEMORY_TYPES)} (got {type!r})")
        action = f"write the memory {slug!r} in store {self.name!r}"
        with self.locked(action):
            self._recover_locked(settle=True)
            path = self.memory_path(slug)
            self._index_stat()  # refuse a linked index before anything is written
            old: dict[str, Any] = {}
            if path.exists():
                if create_only:
                    raise ConflictError(f"a memory {slug!r} already exists in store {self.name!r}")
                try:
                    old, _ = split_frontmatter(path.read_text(encoding="utf-8"))
                except (MemoryFormatError, UnicodeDecodeError):
                    old = {}
            merged = _merge_meta(old, slug, description, type, tags, meta or {}, self._today())
            text = render_memory(merged, body)
            self.secrets.refuse({"title": title, "memory": text}, f"the memory {slug!r}")
            try:
                current = self._read_index_file(errors="strict")
            except UnicodeDecodeError:
                raise MemoryFormatError(
                    f"{INDEX_FILE} is not UTF-8 text: fix or remove the bad bytes "
                    "before kura writes to it (nothing was changed)"
                ) from None
            if not sector and "## " in current and f"({slug}.md)" not in current:
                # a new line in a store with sectors: the one its tags or type name
                md_now = merged.get("metadata")
                tags_now = md_now.get("tags") if isinstance(md_now, dict) else None
                sector = sector_for(
                    parse_index(current),
                    [str(t) for t in tags_now] if isinstance(tags_now, list) else [],
                    str(merged.get("type") or ""),
                )
            new_index = upsert_index_text(current, slug, title or slug, description, sector)
            intent: dict[str, Any] = {
                "op": "upsert",
                "id": uuid.uuid4().hex,
                "slug": slug,
                "text": text,
                "title": title or slug,
                "description": description,
                "sector": sector,
                "base": _digest(current),
            }
            if also:
                intent["also"] = _check_also(dict(also))
            self._commit_locked(
                intent,
                action,
                [(path, text), (self.index_path, new_index if new_index != current else None)],
            )
        return self.read(slug)

    def settle(self, also: Mapping[str, Any], action: str = "update the workshop") -> None:
        """Record a gate-log row and/or remove a draft as one crash-safe step (the same
        intent a write uses, with no memory file): after a crash the next reader does it."""
        with self.locked(action):
            self._recover_locked(settle=True)
            intent = {"op": "settle", "id": uuid.uuid4().hex, "also": _check_also(dict(also))}
            self._commit_locked(intent, action, [])

    def _commit_locked(
        self, intent: dict[str, Any], action: str, files: Sequence[tuple[Path, str | None]]
    ) -> None:
        """Prepare every file as a temp, record the intent (the commit point), apply it.

        Before the commit point any failure removes the temps and raises StorageError. A
        hard link keeps the old index until the write is done, so a rename that fails
        after the commit point can still be taken back: the old state, and the error.
        """
        temps: list[Path] = []
        names: dict[str, str] = {}
        history.stamp(intent)
        try:
            for target, text in files:
                if text is None:
                    continue
                tmp = write_temp(target, text.encode("utf-8"))
                temps.append(tmp)
                names["memory" if target != self.index_path else "index"] = tmp.name
            if "index" in names and self.index_path.exists():
                keep = fsutil.temp_path(self.index_path)
                try:
                    fsutil.OPS.link(self.index_path, keep)
                    temps.append(keep)
                    names["index_old"] = keep.name
                except OSError as exc:
                    if exc.errno not in fsutil.NO_LINK_ERRNOS:
                        raise
            intent["tmp"] = names
            atomic_write_text(self.intent_path, json.dumps(intent, ensure_ascii=False))
        except OSError as exc:
            for tmp in temps:
                discard(tmp)
            raise storage_error(
                exc, action, exc.filename or (temps[-1] if temps else self.intent_path)
            ) from None
        try:
            self._apply_locked(intent)
        except OSError as exc:
            if not self._undo_locked(intent):
                raise type(storage_error(exc, action, self.root))(
                    f"cannot finish: {action} is recorded, but moving it into place failed "
                    f"({fsutil.reason_of(exc)}); the next read of the store finishes it once the "
                    "disk allows"
                ) from None
            raise storage_error(exc, action, exc.filename or self.root / ".") from None

    def _undo_locked(self, intent: Mapping[str, Any]) -> bool:
        """Take back a fresh write that failed after its commit point, before the memory
        moved: put the old index back (a rename of the kept link) and drop the intent.
        False when it is too late (the memory is in place): then only rolling forward is safe."""
        names = intent.get("tmp") or {}
        op = intent.get("op", "upsert")
        if op in ("upsert", "retire"):
            if op == "upsert":
                mem = self._temp_of(names.get("memory"))
                if mem is None or not mem.exists():
                    return False
            elif not self.memory_path(check_slug(intent["slug"])).exists():
                return False  # the memory file is gone: only finishing the retire is safe
            idx = self._temp_of(names.get("index"))
            if idx is not None and not idx.exists():  # the new index is in place
                old = self._temp_of(names.get("index_old"))
                if old is None or not old.exists():
                    return False
                try:
                    fsutil.OPS.replace(old, self.index_path)
                except OSError:
                    return False
        try:
            fsutil.OPS.unlink(self.intent_path)
        except FileNotFoundError:
            pass
        except OSError:
            return False
        for n in names.values():
            t = self._temp_of(n)
            if t is not None:
                discard(t)
        fsync_dir(self.root)
        fsync_dir(self.still)
        return True

    def _index_to_locked(self, intent: Mapping[str, Any], current: str, wanted: str) -> Path | None:
        """Make MEMORY.md read *wanted*: by renaming the intent's prepared temp file into place
        when it holds exactly that and the index is still the one the intent was based on,
        else by writing it. Returns the temp file when it is still there (to be removed)."""
        idx_tmp = self._temp_of((intent.get("tmp") or {}).get("index"))
        if idx_tmp is not None and not idx_tmp.exists():
            idx_tmp = None
        if wanted != current:
            if (
                idx_tmp is not None
                and _digest(current) == intent.get("base")
                and _file_bytes(idx_tmp) == wanted.encode("utf-8")
            ):
                fsutil.OPS.replace(idx_tmp, self.index_path)
                idx_tmp = None
            else:
                atomic_write_text(self.index_path, wanted, sync_dir=False)
        return idx_tmp

    def _upsert_files_locked(self, intent: Mapping[str, Any]) -> None:
        """The index line and the memory file of an upsert intent, from its prepared temp
        files when they are intact, else written from its text."""
        names = intent.get("tmp") or {}
        slug = check_slug(intent["slug"])
        path = self.memory_path(slug)
        text = intent["text"]
        current = self._read_index_file(errors="strict")
        wanted = upsert_index_text(
            current, slug, intent["title"], intent["description"], intent.get("sector", "")
        )
        idx_tmp = self._index_to_locked(intent, current, wanted)
        mem_tmp = self._temp_of(names.get("memory"))
        if mem_tmp is not None and mem_tmp.exists():
            fsutil.OPS.replace(mem_tmp, path)
        elif _file_bytes(path) != text.encode("utf-8"):
            atomic_write_text(path, text, sync_dir=False)
        for leftover in (idx_tmp, self._temp_of(names.get("index_old"))):
            if leftover is not None and leftover.exists():
                discard(leftover)
        fsync_dir(self.root)

    def _apply_locked(self, intent: Mapping[str, Any]) -> None:
        """Bring the files to the intent's state, settle what it carries, clear it.

        Idempotent: every step checks whether it is already done. Prepared temp files are
        renamed into place — the index first, then the memory — needing no new space; an
        intent without them (or whose temps are gone) is applied by writing the text.
        """
        if intent.get("op") == "retire":
            self._retire_files_locked(intent)
        elif intent.get("op", "upsert") == "upsert":
            self._upsert_files_locked(intent)
        history.after_write(self, intent)
        also = intent.get("also")
        if also:
            try:
                also = _check_also(dict(also))
            except (KuraError, TypeError, ValueError):
                also = None  # never act on a malformed record (a hand-made intent.json)
        if also:
            try:
                self._settle_also(also)
            except (KuraError, OSError) as exc:
                # the files are in place; only the record waits. Park it so later writes
                # are not blocked, and settle it when the workshop allows.
                self.pending_reason = str(exc)
                self._park_locked(intent)
                return
        try:
            fsutil.OPS.unlink(self.intent_path)
        except FileNotFoundError:
            pass
        except OSError as exc:
            # everything is in place; the intent only says so again, and applying it twice
            # changes nothing. The next reader clears it once the disk allows.
            self.pending_reason = str(
                storage_error(exc, "clear a finished write's intent", self.intent_path)
            )
            return
        fsync_dir(self.still)

    def _park_locked(self, intent: Mapping[str, Any]) -> None:
        parked = {
            "op": "settle",
            "id": intent.get("id") or uuid.uuid4().hex,
            "also": intent["also"],
        }
        try:
            self.pending_dir.mkdir(exist_ok=True)
            atomic_write_text(
                self.pending_dir / f"{parked['id']}.json", json.dumps(parked, ensure_ascii=False)
            )
            fsutil.OPS.unlink(self.intent_path)
        except OSError:
            pass  # it stays in intent.json: the next writer or reader tries again

    def _settle_also(self, also: Mapping[str, Any]) -> None:
        log = also.get("log")
        if log:
            ws = self._log_workshop()
            ws.log_gate(
                str(log.get("kind", "")),
                title=str(log.get("title", "")),
                slug=str(log.get("slug", "")),
                reason=str(log.get("reason", "")),
                detail=log.get("detail") or {},
                key=str(log["key"]),
                at=log.get("at"),
            )
        remove = also.get("remove")
        if remove:
            with contextlib.suppress(FileNotFoundError):
                fsutil.OPS.unlink(self.still / remove)

    def _log_workshop(self) -> Any:
        if self._workshop is None:
            self._workshop = Workshop(self.still)
        return self._workshop

    def _temp_of(self, name: Any) -> Path | None:
        if (
            not isinstance(name, str)
            or not name
            or "/" in name
            or "\\" in name
            or not is_temp_name(name)
        ):
            return None
        return self.root / name

    def _recover_locked(self, *, settle: bool = False) -> None:
        """Roll a half-finished write forward and sweep temp files of dead writers.

        With *settle*, also record parked gate-log rows (raises if the workshop refuses:
        the caller is a writer and must know). A pending intent that cannot be applied
        raises StorageError, so no writer goes on over it.
        """
        try:
            raw = self.intent_path.read_bytes()
        except FileNotFoundError:
            raw = None
        if raw is not None:
            try:
                intent = json.loads(raw.decode("utf-8"))
                _check_intent(intent)
            except (ValueError, KuraError):
                fsutil.OPS.unlink(
                    self.intent_path
                )  # cannot happen with atomic writes; never apply garbage
            else:
                try:
                    self._apply_locked(intent)
                except OSError as exc:
                    raise storage_error(
                        exc, "finish an interrupted write", exc.filename or self.root / "."
                    ) from None
        for d in (self.root, self.still):
            try:
                names = os.listdir(d)
            except FileNotFoundError:
                continue
            for n in names:
                if is_temp_name(n) and (
                    d == self.root or n.startswith(".intent.json") or not fsutil.temp_owner_alive(n)
                ):
                    discard(d / n)
        if not self.intent_path.exists():
            self.pending_reason = ""
        if settle:
            self._settle_parked_locked()
            # an undo's apply that git is still too busy to finish waits, and says so
            history.catch_up(self)

    def _settle_parked_locked(self) -> None:
        try:
            names = sorted(
                n
                for n in os.listdir(self.pending_dir)
                if n.endswith(".json") and not is_temp_name(n)
            )
        except OSError:
            return
        for n in names:
            p = self.pending_dir / n
            try:
                parked = json.loads(p.read_text(encoding="utf-8"))
                also = _check_also(dict(parked.get("also") or {}))
            except (OSError, ValueError, KuraError):
                discard(p)
                continue
            try:
                self._settle_also(also)
            except (KuraError, OSError) as exc:
                self.pending_reason = str(exc)  # kept parked; a later write or drain tries again
                return
            discard(p)

    def retire(self, slug: str, *, also: Mapping[str, Any] | None = None) -> Retired:
        """Remove a memory file and its index line together, through the same intent path
        as :meth:`write`: a crash at any instant leaves the memory with its line, or
        neither, and a full disk leaves it as it was. Returns what was removed, so it can
        be kept elsewhere (the gate log)."""
        check_slug(slug)
        action = f"retire {slug!r}"
        with self.locked(action):
            self._recover_locked(settle=True)
            path = self.memory_path(slug)
            try:
                fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            except FileNotFoundError:
                raise NotFound(f"no memory {slug!r} in store {self.name!r}") from None
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise ContainmentError(f"{slug}.md is a symbolic link") from None
                raise
            with os.fdopen(fd, "rb") as fh:
                text = fh.read().decode("utf-8", errors="replace")
            self._index_stat()  # refuse a linked index before anything is removed
            current = self._read_index_file(errors="strict")
            entry = parse_index(current).by_slug().get(slug)
            new_index = remove_index_text(current, slug)
            intent: dict[str, Any] = {"op": "retire", "slug": slug, "base": _digest(current)}
            if also:
                intent["also"] = _check_also(dict(also))
            self._commit_locked(
                intent, action, [(self.index_path, new_index if new_index != current else None)]
            )
        with self._cache_lock:
            self._mem_cache.pop(slug, None)
        return Retired(
            slug=slug,
            text=text,
            index_line=entry.raw if entry else "",
            title=entry.title if entry else "",
        )

    def _retire_files_locked(self, intent: Mapping[str, Any]) -> None:
        """The files of a retire intent: the index without the line, then no memory file
        (idempotent: recovery may run it again)."""
        names = intent.get("tmp") or {}
        slug = check_slug(intent["slug"])
        current = self._read_index_file(errors="strict")
        wanted = remove_index_text(current, slug)
        idx_tmp = self._index_to_locked(intent, current, wanted)
        with contextlib.suppress(FileNotFoundError):
            fsutil.OPS.unlink(self.memory_path(slug))
        for leftover in (idx_tmp, self._temp_of(names.get("index_old"))):
            if leftover is not None and leftover.exists():
                discard(leftover)
        fsync_dir(self.root)

    def add_index_lines(self, lines: Sequence[tuple[str, str, str]]) -> None:
        """Write index lines ``(slug, title, description)`` for memory files already on disk,
        touching no memory file: one atomic rewrite of MEMORY.md (adopting files that have
        no line). A line whose file is gone by then is left out."""
        if not lines:
            return
        with self.locked(f"adopt memory files into store {self.name!r}"):
            self._recover_locked(settle=True)
            self._index_stat()  # refuse a linked index before anything is written
            current = self._read_index_file(errors="strict")
            text = current
            for slug, title, description in lines:
                check_slug(slug)
                if self.memory_path(slug).is_file():
                    text = upsert_index_text(
                        text, slug, title or slug, " ".join(description.split())
                    )
            if text != current:
                try:
                    atomic_write_text(self.index_path, text)
                except OSError as exc:
                    raise storage_error(exc, "write MEMORY.md", self.index_path) from None
                history.record(self, [INDEX_FILE], "adopt", [s for s, _t, _d in lines])

    def set_index_line(
        self, slug: str, title: str, description: str, also: Mapping[str, Any] | None = None
    ) -> None:
        """Rewrite one index line (and the memory's description) without touching its body."""
        mem = self.read(slug)
        self.write(
            slug,
            title=title,
            description=description,
            body=mem.body,
            type=mem.type,
            tags=mem.tags,
            also=also,
        )

    def add_tag(self, slug: str, tag: str) -> Memory:
        mem = self.read(slug)
        if tag in mem.tags:
            return mem
        entry = self.index().by_slug().get(slug)
        return self.write(
            slug,
            title=entry.title if entry else mem.title,
            description=mem.description,
            body=mem.body,
            type=mem.type,
            tags=(*mem.tags, tag),
        )


def _merge_meta(
    old: Mapping[str, Any],
    slug: str,
    description: str,
    type: str,
    tags: Sequence[str],
    extra: Mapping[str, Any],
    today: dt.date,
) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    meta["name"] = slug
    meta["description"] = description
    old_md = dict_at(old, "metadata")
    md: dict[str, Any] = dict(old_md)
    if type:
        md["type"] = type
    md.setdefault("type", "project")
    md["tags"] = (
        list(dict.fromkeys(t for t in tags if t)) if tags else list(old_md.get("tags", []) or [])
    )
    extra_md = dict_at(extra, "metadata")
    for k, v in extra_md.items():
        if v is None:
            md.pop(k, None)
        else:
            md[k] = v
    if "created" not in md:
        md["created"] = today.isoformat()
    elif old:
        md["updated"] = today.isoformat()
    meta["metadata"] = md
    for k, v in old.items():
        if k not in ("name", "description", "metadata"):
            meta[k] = v
    for k, v in extra.items():
        if k == "metadata":
            continue
        if v is None:  # None takes a key out (a curation sentence cleared by hand)
            meta.pop(k, None)
        else:
            meta[k] = v
    return meta


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _file_bytes(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _check_intent(intent: Any) -> None:
    """Refuse an intent.json that no kura writer made (ValueError/ContainmentError)."""
    if not isinstance(intent, dict) or intent.get("op", "upsert") not in (
        "upsert",
        "settle",
        "retire",
    ):
        raise ValueError("not an intent")
    if intent.get("op") == "retire":
        check_slug(intent.get("slug"))
        if not isinstance(intent.get("tmp", {}), dict):
            raise ValueError("malformed intent")
    if intent.get("op", "upsert") == "upsert":
        check_slug(intent.get("slug"))
        for key in ("text", "title", "description"):
            if not isinstance(intent.get(key), str):
                raise ValueError(f"intent without {key}")
        if not isinstance(intent.get("sector", ""), str) or not isinstance(
            intent.get("tmp", {}), dict
        ):
            raise ValueError("malformed intent")


_DRAFT_REL = re.compile(r"drafts/[a-z0-9]+(?:-[a-z0-9]+)*\.md")


def _check_also(also: dict[str, Any]) -> dict[str, Any]:
    """What a write may carry along: one keyed gate-log row, and one draft to remove."""
    out: dict[str, Any] = {}
    log = also.get("log")
    if log:
        if not isinstance(log, Mapping) or not isinstance(log.get("key"), str) or not log["key"]:
            raise KuraError("a gate-log row carried by a write needs a key")
        out["log"] = _jsonable(dict(log))
    remove = also.get("remove")
    if remove:
        if not isinstance(remove, str) or not _DRAFT_REL.fullmatch(remove):
            raise ContainmentError(f"{remove!r} is not a draft a write may remove")
        out["remove"] = remove
    return out
