"""A store: one directory of Markdown memories, an index, and a workshop.

Canonical content is plain Markdown a person can read and edit:

    <store>/MEMORY.md      the index, one recognition-trigger line per memory
    <store>/<slug>.md      one memory: YAML frontmatter, then the body
    <store>/charter.md     optional: what the store is for
    <store>/profile.md     optional: learned profile, never in the map
    <store>/_still/        derived and operational state, never a memory

Every canonical write goes through :meth:`Store.write`, which holds the store's write
lock, records an intent, replaces the memory file and the index atomically, then clears
the intent. A crash at any instant leaves an intent that the next reader rolls forward,
so the memory and its index line always change together.
"""

from __future__ import annotations

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import yaml

from .errors import ContainmentError, KuraError, MemoryFormatError, NotFound
from .fsutil import atomic_write_text, fsync_dir, is_temp_name

#: libyaml's parser when it is there (about 10x faster), the pure-Python one otherwise.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

SLUG_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_SLUG = 80
RESERVED = frozenset({"memory", "charter", "profile", "readme", "index"})
TYPES = ("user", "feedback", "project", "reference")
STILL = "_still"
INDEX_FILE = "MEMORY.md"
LINK_RE = re.compile(r"\[\[([^\[\]\n|]+?)(?:\|[^\[\]\n]*)?\]\]")
_ENTRY_RE = re.compile(
    r"^\s*[-*]\s+\[(?P<title>[^\]\n]*)\]\((?P<file>[^)\s]+)\)\s*(?:(?:—|–|-{1,2}|:)\s*(?P<desc>.*))?$"
)


# --------------------------------------------------------------------------- slugs

def check_slug(slug: Any) -> str:
    """Return *slug* if it can name a memory in a store; raise ContainmentError if not."""
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
    return slug


def _show(s: str) -> str:
    s = s if len(s) <= 60 else s[:57] + "..."
    return repr(s)


def slugify(title: str) -> str:
    """A kebab-case ASCII slug for *title*; a short stable digest if it has no ASCII words."""
    folded = unicodedata.normalize("NFKD", title)
    ascii_only = folded.encode("ascii", "ignore").decode().lower()
    words = re.findall(r"[a-z0-9]+", ascii_only)
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
    """The [[slug]] links in *text*, in order, duplicates kept."""
    return [m.group(1).strip() for m in LINK_RE.finditer(text)]


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

    @property
    def links(self) -> list[str]:
        return links_in(self.body)

    def curation(self, key: str) -> str:
        v = self.meta.get(key, "")
        return v if isinstance(v, str) else ""

    def date(self) -> dt.date | None:
        """The newest date written inside the memory (updated, created), if any."""
        md = self.meta.get("metadata") if isinstance(self.meta.get("metadata"), dict) else {}
        found: list[dt.date] = []
        for src in (md, self.meta):
            for key in ("updated", "created", "date"):
                d = _as_date(src.get(key))
                if d:
                    found.append(d)
        return max(found) if found else None

    def to_json(self) -> dict[str, Any]:
        return {
            "slug": self.slug, "title": self.title, "description": self.description,
            "type": self.type, "tags": list(self.tags), "body": self.body,
            "links": self.links, "meta": _jsonable(self.meta),
        }


def _as_date(v: Any) -> dt.date | None:
    if isinstance(v, dt.datetime):
        return v.date()
    if isinstance(v, dt.date):
        return v
    if isinstance(v, str):
        m = re.match(r"(\d{4})-(\d{2})-(\d{2})", v.strip())
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


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """Split a memory file into (frontmatter, body). Raises MemoryFormatError."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.startswith("---"):
        raise MemoryFormatError("no YAML frontmatter (the file must start with a '---' line)")
    lines = text.split("\n")
    if lines[0].strip() != "---":
        raise MemoryFormatError("the first line must be exactly '---'")
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            head = "\n".join(lines[1:i])
            body = "\n".join(lines[i + 1:])
            break
    else:
        raise MemoryFormatError("the frontmatter is never closed with a '---' line")
    try:
        meta = yaml.load(head, Loader=_LOADER) if head.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        raise MemoryFormatError(f"the frontmatter is not valid YAML{where}") from None
    if not isinstance(meta, dict):
        raise MemoryFormatError("the frontmatter must be a mapping of keys to values")
    return meta, body.lstrip("\n")


def render_memory(meta: Mapping[str, Any], body: str) -> str:
    head = yaml.safe_dump(dict(meta), sort_keys=False, allow_unicode=True, width=1000)
    body = body.strip("\n")
    return f"---\n{head}---\n\n{body}\n"


def _memory_from_text(slug: str, text: str, path: Path, title: str, st: os.stat_result | None) -> Memory:
    meta, body = split_frontmatter(text)
    problems: list[str] = []
    md = meta.get("metadata")
    if md is None:
        md = {}
    elif not isinstance(md, dict):
        problems.append("metadata is not a mapping")
        md = {}
    mtype = md.get("type", meta.get("type", ""))
    if not isinstance(mtype, str):
        problems.append("metadata.type is not a word")
        mtype = ""
    elif mtype and mtype not in TYPES:
        problems.append(f"metadata.type {mtype!r} is not one of {', '.join(TYPES)}")
    raw_tags = md.get("tags", meta.get("tags", []))
    if raw_tags is None:
        raw_tags = []
    if isinstance(raw_tags, str):
        raw_tags = [t.strip() for t in raw_tags.split(",") if t.strip()]
    if not isinstance(raw_tags, list) or not all(isinstance(t, str) for t in raw_tags):
        problems.append("tags is not a list of words")
        raw_tags = [t for t in raw_tags if isinstance(t, str)] if isinstance(raw_tags, list) else []
    desc = meta.get("description", "")
    if not isinstance(desc, str):
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


@dataclass(frozen=True)
class Index:
    lines: tuple[str, ...]
    entries: tuple[Entry, ...]
    foreign_links: tuple[tuple[int, str], ...] = ()  # (line_no, target) of entry-shaped lines that point nowhere valid

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


def entry_line(slug: str, title: str, description: str) -> str:
    title = " ".join(title.replace("[", "(").replace("]", ")").split()) or slug
    description = " ".join(description.split())
    line = f"- [{title}]({slug}.md)"
    return f"{line} — {description}" if description else line


def parse_index(text: str) -> Index:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    entries: list[Entry] = []
    foreign: list[tuple[int, str]] = []
    sector = ""
    in_comment = False
    for i, line in enumerate(lines):
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
            continue
        target = m.group("file")
        if "://" in target:
            continue  # an ordinary web link a person wrote; not ours
        slug = target[:-3] if target.endswith(".md") else target
        try:
            check_slug(slug)
        except ContainmentError:
            foreign.append((i, target))
            continue
        entries.append(Entry(slug, m.group("title").strip(), (m.group("desc") or "").strip(),
                             i, sector, line, target))
    return Index(tuple(lines), tuple(entries), tuple(foreign))


def upsert_index_text(text: str, slug: str, title: str, description: str, sector: str = "") -> str:
    """Return *text* with exactly one entry line for *slug*, every other line untouched."""
    idx = parse_index(text)
    lines = list(idx.lines)
    new_line = entry_line(slug, title, description)
    mine = [e.line_no for e in idx.entries if e.slug == slug]
    if mine:
        lines[mine[0]] = new_line
        for n in reversed(mine[1:]):
            del lines[n]
        return "\n".join(lines) + "\n"
    insert_at = None
    if sector:
        heads = [i for i, l in enumerate(lines) if l.startswith("## ") and l[3:].strip() == sector]
        if heads:
            end = len(lines)
            for j in range(heads[0] + 1, len(lines)):
                if lines[j].startswith("## "):
                    end = j
                    break
            insert_at = end
            while insert_at > heads[0] + 1 and not lines[insert_at - 1].strip():
                insert_at -= 1
        else:
            while lines and not lines[-1].strip():
                lines.pop()
            lines += ["", f"## {sector}", ""]
    if insert_at is None:
        while lines and not lines[-1].strip():
            lines.pop()
        insert_at = len(lines)
    lines.insert(insert_at, new_line)
    return "\n".join(lines) + "\n"


def remove_index_text(text: str, slug: str) -> str:
    idx = parse_index(text)
    drop = {e.line_no for e in idx.entries if e.slug == slug}
    return "\n".join(l for i, l in enumerate(idx.lines) if i not in drop) + "\n"


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
    parts = [body.strip()] + [" ".join(str(meta.get(k) or "").split())
                              for k in ("belongs_because", "keep", "may_fade")]
    data = json.dumps(parts, ensure_ascii=False)
    return "sha256:" + hashlib.sha256(data.encode("utf-8")).hexdigest()


class Store:
    """One store on disk. Cheap to construct; safe to share between threads."""

    def __init__(self, root: str | os.PathLike, *, name: str = "", charter_path: Path | None = None,
                 today: Callable[[], dt.date] = dt.date.today):
        self.root = Path(os.path.abspath(Path(root).expanduser()))
        self.name = name or self.root.name
        self._charter_path = charter_path
        self._today = today
        self._cache_lock = threading.Lock()
        self._index_cache: tuple[tuple, Index] | None = None
        self._mem_cache: dict[str, tuple[tuple, Memory]] = {}
        self._slugs_cache: tuple[tuple, tuple[str, ...]] | None = None
        self._thread_lock = threading.RLock()

    # ---- paths -----------------------------------------------------------
    @property
    def still(self) -> Path:
        return self.root / STILL

    @property
    def index_path(self) -> Path:
        return self.root / INDEX_FILE

    @property
    def charter_path(self) -> Path:
        return self._charter_path or self.root / "charter.md"

    @property
    def profile_path(self) -> Path:
        return self.root / "profile.md"

    @property
    def intent_path(self) -> Path:
        return self.still / "intent.json"

    def exists(self) -> bool:
        return self.index_path.is_file() or self.still.is_dir()

    def memory_path(self, slug: str) -> Path:
        """The file for *slug*, refusing anything that could leave the store."""
        check_slug(slug)
        path = self.root / f"{slug}.md"
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return path
        if stat.S_ISLNK(st.st_mode):
            raise ContainmentError(f"{slug}.md is a symbolic link; a store only answers for its own files")
        if not stat.S_ISREG(st.st_mode):
            raise ContainmentError(f"{slug}.md is not a regular file")
        if st.st_nlink > 1:
            raise ContainmentError(f"{slug}.md is hard-linked elsewhere; a store only answers for its own files")
        return path

    # ---- creation --------------------------------------------------------
    def init(self, label: str = "") -> None:
        """Create the store's directory, index and workshop if missing. Idempotent."""
        if self.root.exists() and not self.root.is_dir():
            raise KuraError(f"{self.root} exists and is not a directory; choose another --path")
        self.root.mkdir(parents=True, exist_ok=True)
        self.still.mkdir(exist_ok=True)
        (self.still / "drafts").mkdir(exist_ok=True)
        if not self.index_path.exists():
            head = f"# {self.name}\n\n"
            if label:
                head += f"{label}\n\n"
            head += ("<!-- One line per memory: a recognition trigger, not a summary. "
                     "Proper nouns, numbers, ⚠️ landmines, the conclusion reached. -->\n")
            atomic_write_text(self.index_path, head)

    # ---- reading ---------------------------------------------------------
    def _recover_if_needed(self) -> None:
        if self.intent_path.exists():
            with self.locked():
                self._recover_locked()

    def _index_stat(self) -> os.stat_result | None:
        """MEMORY.md's own status, never a link's target; None if there is no index."""
        try:
            st = os.lstat(self.index_path)
        except FileNotFoundError:
            return None
        if not stat.S_ISREG(st.st_mode):
            raise ContainmentError(f"{INDEX_FILE} is not a regular file (a link or a directory); "
                                   "a store only answers for its own files")
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
                raise ContainmentError(f"{INDEX_FILE} is a symbolic link; a store only answers "
                                       "for its own files") from None
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
            if self._index_cache and self._index_cache[0] == key:
                return self._index_cache[1]
        idx = parse_index(self._read_index_file())
        with self._cache_lock:
            self._index_cache = (key, idx)
        return idx

    def index_text(self) -> str:
        self._recover_if_needed()
        return self._read_index_file()

    def file_slugs(self) -> list[str]:
        """Slugs of the memory files present, sorted. Temp files and reserved names excluded.

        Cached on the directory's identity and mtime: creating, renaming or deleting a
        file changes the directory, so the listing is never stale.
        """
        try:
            st = os.stat(self.root)
        except FileNotFoundError:
            return []
        key = (st.st_ino, st.st_mtime_ns)
        with self._cache_lock:
            hit = self._slugs_cache
        if hit and hit[0] == key:
            return list(hit[1])
        out = []
        try:
            names = os.listdir(self.root)
        except FileNotFoundError:
            return []
        for n in names:
            if not n.endswith(".md") or is_temp_name(n):
                continue
            slug = n[:-3]
            if slug.lower() in RESERVED or not SLUG_RE.fullmatch(slug) or len(slug) > MAX_SLUG:
                continue
            out.append(slug)
        out.sort()
        with self._cache_lock:
            self._slugs_cache = (key, tuple(out))
        return out

    def read(self, slug: str) -> Memory:
        self._recover_if_needed()
        path = self.memory_path(slug)
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
            entry = self.index().by_slug().get(slug)
            title = entry.title if entry else ""
            key = (st.st_ino, st.st_mtime_ns, st.st_size, title)
            with self._cache_lock:
                hit = self._mem_cache.get(slug)
                if hit and hit[0] == key:
                    return hit[1]
            raw = fh.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise MemoryFormatError(f"{slug}.md is not UTF-8 text") from None
        try:
            mem = _memory_from_text(slug, text, path, title, st)
        except MemoryFormatError as exc:
            raise MemoryFormatError(f"{slug}.md: {exc}") from None
        with self._cache_lock:
            self._mem_cache[slug] = (key, mem)
        return mem

    def has(self, slug: str) -> bool:
        try:
            return self.memory_path(slug).is_file()
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
        parts = []
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
    def locked(self) -> Iterator[None]:
        """The store's write lock: across threads and across processes."""
        self.still.mkdir(parents=True, exist_ok=True)
        with self._thread_lock:
            fd = os.open(self.still / "write.lock", os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
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
    ) -> Memory:
        """Write one memory and its index line together, atomically.

        Frontmatter keys already in the file and not named here are preserved.
        """
        check_slug(slug)
        description = " ".join(description.split())
        if not description:
            raise KuraError("a memory needs a description: the one line that makes it recognisable")
        if not body.strip():
            raise KuraError("a memory needs a body")
        if type and type not in TYPES:
            raise KuraError(f"type must be one of {', '.join(TYPES)} (got {type!r})")
        with self.locked():
            self._recover_locked()
            path = self.memory_path(slug)
            self._index_stat()  # refuse a linked index before anything is written
            old: dict[str, Any] = {}
            if path.exists():
                if create_only:
                    from .errors import ConflictError

                    raise ConflictError(f"a memory {slug!r} already exists in store {self.name!r}")
                try:
                    old, _ = split_frontmatter(path.read_text(encoding="utf-8"))
                except (MemoryFormatError, UnicodeDecodeError):
                    old = {}
            merged = _merge_meta(old, slug, description, type, tags, meta or {}, self._today())
            text = render_memory(merged, body)
            intent = {"op": "upsert", "slug": slug, "text": text, "title": title or slug,
                      "description": description, "sector": sector}
            atomic_write_text(self.intent_path, json.dumps(intent, ensure_ascii=False))
            self._apply_locked(intent)
        return self.read(slug)

    def _apply_locked(self, intent: Mapping[str, Any]) -> None:
        slug = check_slug(intent["slug"])
        if intent.get("op") == "retire":
            self._retire_locked(slug)
            return
        atomic_write_text(self.memory_path(slug), intent["text"])
        current = self._read_index_file(errors="strict")
        new = upsert_index_text(current, slug, intent["title"], intent["description"], intent.get("sector", ""))
        if new != current:
            atomic_write_text(self.index_path, new)
        os.unlink(self.intent_path)
        fsync_dir(self.still)

    def _retire_locked(self, slug: str) -> None:
        """The second half of a retire intent (idempotent: recovery may run it again)."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.memory_path(slug))
        fsync_dir(self.root)
        current = self._read_index_file(errors="strict")
        new = remove_index_text(current, slug)
        if new != current:
            atomic_write_text(self.index_path, new)
        os.unlink(self.intent_path)
        fsync_dir(self.still)

    def _recover_locked(self) -> None:
        """Roll a half-finished write forward and sweep temp files of dead writers."""
        try:
            raw = self.intent_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raw = None
        if raw is not None:
            try:
                intent = json.loads(raw)
            except json.JSONDecodeError:
                os.unlink(self.intent_path)  # cannot happen with atomic writes; never apply garbage
            else:
                self._apply_locked(intent)
        for d in (self.root, self.still):
            try:
                names = os.listdir(d)
            except FileNotFoundError:
                continue
            for n in names:
                if is_temp_name(n) and (d == self.root or n.startswith(".intent.json")):
                    with contextlib.suppress(OSError):
                        os.unlink(d / n)

    def retire(self, slug: str) -> "Retired":
        """Remove a memory file and its index line together, atomically.

        The same intent path as :meth:`write`: a crash at any instant leaves the memory
        with its line, or neither. Returns what was removed, so it can be kept elsewhere.
        """
        check_slug(slug)
        with self.locked():
            self._recover_locked()
            path = self.memory_path(slug)
            try:
                fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            except FileNotFoundError:
                raise NotFound(f"no memory {slug!r} in store {self.name!r}") from None
            with os.fdopen(fd, "rb") as fh:
                text = fh.read().decode("utf-8", errors="replace")
            self._index_stat()  # refuse a linked index before anything is removed
            entry = parse_index(self._read_index_file()).by_slug().get(slug)
            atomic_write_text(self.intent_path, json.dumps({"op": "retire", "slug": slug}))
            self._apply_locked({"op": "retire", "slug": slug})
        with self._cache_lock:
            self._mem_cache.pop(slug, None)
        return Retired(slug=slug, text=text, index_line=entry.raw if entry else "",
                       title=entry.title if entry else "")

    def set_index_line(self, slug: str, title: str, description: str) -> None:
        """Rewrite one index line (and the memory's description) without touching its body."""
        mem = self.read(slug)
        self.write(slug, title=title, description=description, body=mem.body, type=mem.type,
                   tags=mem.tags)

    def add_tag(self, slug: str, tag: str) -> Memory:
        mem = self.read(slug)
        if tag in mem.tags:
            return mem
        entry = self.index().by_slug().get(slug)
        return self.write(slug, title=entry.title if entry else mem.title, description=mem.description,
                          body=mem.body, type=mem.type, tags=(*mem.tags, tag))


def _merge_meta(old: Mapping[str, Any], slug: str, description: str, type: str,
                tags: Sequence[str], extra: Mapping[str, Any], today: dt.date) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    meta["name"] = slug
    meta["description"] = description
    old_md = old.get("metadata") if isinstance(old.get("metadata"), dict) else {}
    md: dict[str, Any] = dict(old_md)
    if type:
        md["type"] = type
    md.setdefault("type", "project")
    md["tags"] = list(dict.fromkeys(t for t in tags if t)) if tags else list(old_md.get("tags", []) or [])
    extra_md = extra.get("metadata") if isinstance(extra.get("metadata"), dict) else {}
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
