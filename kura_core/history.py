"""History: every change to a store is one git commit, seen, undone and shared.

A store with history is a git repository at its root (``_still/`` and kura's temp files
ignored). Each write kura makes is recorded as one commit right after its files are in
place, with plumbing that touches only the changed paths (``update-index``, ``write-tree``,
``commit-tree``, ``update-ref``): no scan of a 20,000-file tree per write. The commit's
message says what, which memory and who, in trailer lines kura reads back::

    remember: backup-disk

    Kura-What: remember
    Kura-Who: agent (mcp)
    Kura-Slugs: backup-disk
    Kura-Ref: drafts/backup-disk.md

Crash safety rides on the store's own intents: the record a write will make travels in its
intent (``intent["history"]``), and recording happens before the intent is cleared, so a
writer killed between its files and its commit is recorded by the next writer's recovery
with its own words. Recording is idempotent (a tree equal to HEAD's makes no commit). A
change kura moves into place itself (an undo, a sync) is written as the commit first, then
an ``apply`` record in ``_still/history/``, then the files: recovery finishes the files and
the ref. Anything else that differs from HEAD when kura next writes is a hand edit and is
recorded as its own entry before kura's write.

git runs as a fixed argument list with a clean environment (see :func:`_env`); when it is
missing, the store works without history and history commands say what to install.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as dt
import functools
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import KuraError
from .fsutil import atomic_write_bytes, atomic_write_text, discard, storage_error

INDEX_FILE = "MEMORY.md"
#: a memory file's name, as kura_core.store says (history sits below the store and cannot
#: import it; a test keeps the two the same)
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_RESERVED = frozenset({"memory", "charter", "profile", "readme", "index"})
STILL = "_still"
IGNORE_LINES = ("/_still/", ".*.tmp-*")
HAND = "hand (outside kura)"
ZERO = "0" * 40

GIT_MISSING = (
    "history needs the git command, which is not installed here; install it "
    "(Debian/Ubuntu: apt install git) and run `kura history --enable -s STORE`"
)

_WHO: contextvars.ContextVar[str] = contextvars.ContextVar("kura_history_who", default="")
_WHAT: contextvars.ContextVar[tuple[str, str]] = contextvars.ContextVar(
    "kura_history_what", default=("", "")
)


class HistoryError(KuraError):
    """git failed, or is missing, or a history operation cannot be done."""

    status = 409


# --------------------------------------------------------------------------- who and what


@contextlib.contextmanager
def acting(who: str) -> Iterator[None]:
    """Name who makes the writes inside the block (a face, the tender, the drain judge)."""
    token = _WHO.set(who)
    try:
        yield
    finally:
        _WHO.reset(token)


@contextlib.contextmanager
def doing(what: str, ref: str = "") -> Iterator[None]:
    """Name what the writes inside the block are (remember, pour…) and what they came from
    (a draft, an evidence manifest). The outermost name wins: a pour's own write stays a pour."""
    if _WHAT.get()[0]:
        yield
        return
    token = _WHAT.set((what, ref))
    try:
        yield
    finally:
        _WHAT.reset(token)


_DEFAULT_WHO = ["person"]


def who_now() -> str:
    return _WHO.get() or _DEFAULT_WHO[0]


def set_default_who(who: str) -> None:
    """The face a process is (the command line, the MCP server): who, in every thread,
    unless a block says otherwise."""
    _DEFAULT_WHO[0] = who


_OP_WHAT = {"upsert": "write", "retire": "retire"}
_LOG_WHAT = {
    "poured": "pour",
    "edited": "edit",
    "retired": "retire",
    "tidied": "tidy",
    "scrubbed": "scrub",
    "fixed": "fix",
    "recurred": "annotate",
}


def stamp(intent: dict[str, Any]) -> None:
    """Put what recording this write needs into its intent (before its commit point), so a
    crashed write is recorded after recovery with its own words."""
    op = str(intent.get("op", "upsert"))
    if op not in _OP_WHAT:
        return
    what, ref = _WHAT.get()
    also = intent.get("also") or {}
    log = also.get("log") if isinstance(also, Mapping) else None
    if not what and isinstance(log, Mapping):
        what = _LOG_WHAT.get(str(log.get("kind", "")), "")
    refs = [ref] if ref else []
    if isinstance(also, Mapping) and also.get("remove"):
        refs.append(str(also["remove"]))
    manifest = _manifest_of(str(intent.get("text", "")))
    if manifest and op == "upsert" and what in ("pour", "fix", ""):
        refs.append(f"evidence {manifest}")
    ref = ", ".join(dict.fromkeys(refs))
    intent["history"] = {
        "what": what or _OP_WHAT[op],
        "who": who_now(),
        "ref": ref,
    }


def _manifest_of(text: str) -> str:
    for line in text.split("\n", 40)[:40]:
        s = line.strip()
        if s.startswith("evidence_manifest:"):
            return s.partition(":")[2].strip().strip("'\"")
    return ""


# --------------------------------------------------------------------------- running git


@functools.cache
def git_path() -> str | None:
    return shutil.which("git")


def available() -> bool:
    return git_path() is not None


@functools.cache
def _base_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        {
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_ASKPASS": "",
            "SSH_ASKPASS": "",
            "LC_ALL": "C",
            "LANGUAGE": "C",
        }
    )
    env["GIT_SSH_COMMAND"] = os.environ.get("GIT_SSH_COMMAND") or "ssh -o BatchMode=yes"
    return env


#: settings on every call: nothing of the user's set-up runs or changes what is recorded
_FLAGS = (
    "-c",
    f"core.hooksPath={os.devnull}",
    "-c",
    "commit.gpgSign=false",
    "-c",
    "gc.auto=0",
    "-c",
    "maintenance.auto=false",
    "-c",
    "core.autocrlf=false",
    "-c",
    "core.quotePath=false",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "advice.detachedHead=false",
    "-c",
    "init.defaultBranch=main",
)


@functools.cache
def _identity() -> tuple[tuple[str, str], ...]:
    """The person's own identity when their global config has one, else a fixed one."""
    exe = git_path()
    if exe is None:
        return ()
    got = {}
    for key in ("user.name", "user.email"):
        try:
            out = subprocess.run(
                [exe, "config", "--global", "--get", key],
                env=_base_env(),
                capture_output=True,
                timeout=10,
                check=False,
            )
            got[key] = out.stdout.decode("utf-8", "replace").strip()
        except (OSError, subprocess.SubprocessError):
            got[key] = ""
    if got["user.name"] and got["user.email"]:
        return ()
    return (
        ("GIT_AUTHOR_NAME", "kura"),
        ("GIT_AUTHOR_EMAIL", "kura@localhost"),
        ("GIT_COMMITTER_NAME", "kura"),
        ("GIT_COMMITTER_EMAIL", "kura@localhost"),
    )


#: git's words when another git process holds the lock file it needs (LC_ALL=C)
_LOCK_HELD = re.compile(rb"'([^'\n]*\.lock)'?: File exists")


class Git:
    """git for one store: its repository is ``<root>/.git``, its work tree the root."""

    def __init__(self, root: Path, index_file: Path | None = None):
        self.root = root
        env = dict(_base_env())
        env.update(_identity())
        env["GIT_DIR"] = str(root / ".git")
        env["GIT_WORK_TREE"] = str(root)
        env["GIT_CEILING_DIRECTORIES"] = str(root.parent)
        if index_file is not None:
            env["GIT_INDEX_FILE"] = str(index_file)
        self.env = env

    def run(
        self, *args: str, data: bytes | None = None, check: bool = True, timeout: float = 120
    ) -> subprocess.CompletedProcess[bytes]:
        exe = git_path()
        if exe is None:
            raise HistoryError(GIT_MISSING)
        deadline = time.monotonic() + _ORPHAN_GRACE
        while True:
            try:
                proc = subprocess.run(
                    [exe, *_FLAGS, *args],
                    cwd=self.root,
                    env=self.env,
                    input=data,
                    capture_output=True,
                    timeout=timeout,
                    check=False,
                )
            except subprocess.TimeoutExpired:
                raise HistoryError(f"git {args[0]} did not finish in {timeout:g} s") from None
            except OSError as exc:
                raise HistoryError(f"cannot run git: {exc.strerror or exc}") from None
            # every call runs under the store's write lock, so a git lock held here is a
            # killed writer's git child finishing its step: it goes within milliseconds
            if proc.returncode == 0 or not _LOCK_HELD.search(proc.stderr):
                break
            if time.monotonic() > deadline:
                break
            time.sleep(0.03)
        if check and proc.returncode != 0:
            held = _LOCK_HELD.search(proc.stderr)
            if held:
                raise HistoryError(
                    f"git {args[0]} failed: {held.group(1).decode('utf-8', 'replace')} is "
                    "held by another git process; if none is running, remove that file"
                )
            msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise HistoryError(f"git {args[0]} failed: {msg[-1] if msg else proc.returncode}")
        return proc

    def out(self, *args: str, data: bytes | None = None) -> str:
        return self.run(*args, data=data).stdout.decode("utf-8", "replace").strip()

    def head(self) -> str | None:
        proc = self.run("rev-parse", "--verify", "-q", "HEAD", check=False)
        return proc.stdout.decode().strip() or None if proc.returncode == 0 else None

    def blob(self, rev: str, path: str) -> bytes | None:
        proc = self.run("cat-file", "blob", f"{rev}:{path}", check=False)
        return proc.stdout if proc.returncode == 0 else None


def enabled(store: Any) -> bool:
    """Whether *store* records history: not turned off, and a repository is there."""
    return getattr(store, "history", True) and os.path.isdir(os.path.join(store.root, ".git"))


def _hdir(store: Any) -> Path:
    return Path(store.root) / STILL / "history"


# --------------------------------------------------------------------------- recording


@dataclass(frozen=True)
class Note:
    what: str
    who: str
    slugs: tuple[str, ...] = ()
    ref: str = ""

    def message(self) -> str:
        head = f"{self.what}: {', '.join(self.slugs)}" if self.slugs else self.what
        lines = [head, "", f"Kura-What: {self.what}", f"Kura-Who: {self.who}"]
        if self.slugs:
            lines.append(f"Kura-Slugs: {' '.join(self.slugs)}")
        if self.ref:
            lines.append(f"Kura-Ref: {' '.join(self.ref.split())}")
        return "\n".join(lines) + "\n"


def slug_of(path: str) -> str | None:
    if "/" in path or not path.endswith(".md") or path.startswith("."):
        return None
    stem = path[:-3]
    return stem if _SLUG.fullmatch(stem) and stem not in _RESERVED else None


def commit_paths(git: Git, paths: Sequence[str], note: Note) -> str | None:
    """Stage exactly *paths* as they are on disk and commit them; None when nothing changed."""
    if paths:
        git.run(
            "update-index",
            "--add",
            "--remove",
            "-z",
            "--stdin",
            data=b"".join(p.encode("utf-8") + b"\0" for p in paths),
        )
    tree = git.out("write-tree")
    head, head_tree = _head_and_tree(git)
    if head_tree == tree:
        return None
    args = ["commit-tree", tree] + (["-p", head] if head else [])
    rev = git.out(*args, data=note.message().encode("utf-8"))
    git.run("update-ref", "-m", note.what, "HEAD", rev, head or ZERO)
    return rev


def _head_and_tree(git: Git) -> tuple[str | None, str | None]:
    """HEAD and its tree in one call; (None, None) before the first entry."""
    proc = git.run("rev-parse", "HEAD", "HEAD^{tree}", check=False)
    got = proc.stdout.decode().split()
    return (got[0], got[1]) if proc.returncode == 0 and len(got) == 2 else (None, None)


def after_write(store: Any, intent: Mapping[str, Any]) -> None:
    """Record a write whose files are in place (fresh, or finished by recovery). Never
    raises: a record git cannot make now is parked and made by the next writer."""
    h = intent.get("history")
    if not isinstance(h, Mapping) or not enabled(store):
        return
    slug = str(intent.get("slug", ""))
    note = Note(str(h.get("what", "write")), str(h.get("who", "")), (slug,), str(h.get("ref", "")))
    paths = [f"{slug}.md", INDEX_FILE]
    try:
        _clear_stale_locks(store)
        commit_paths(Git(Path(store.root)), paths, note)
    except (HistoryError, OSError) as exc:
        _park(store, note, paths, str(exc))


def record(store: Any, paths: Sequence[str], what: str, slugs: Sequence[str] = ()) -> None:
    """Record a change kura made outside a store intent (adopting lines, a scrub)."""
    if not enabled(store):
        return
    note = Note(what, who_now(), tuple(slugs), _WHAT.get()[1])
    try:
        commit_paths(Git(Path(store.root)), paths, note)
    except (HistoryError, OSError) as exc:
        _park(store, note, paths, str(exc))


def record_changed(store: Any, what: str) -> None:
    """Record everything that differs from HEAD as one entry *what* (after a change kura
    made file by file, like a scrub). Under the write lock."""
    if not enabled(store):
        return
    with store.locked(f"record {what} in history"):
        git = Git(Path(store.root))
        try:
            changed = changed_paths(git)
            slugs = sorted({s for s in map(slug_of, changed) if s})
            if changed:
                record(store, changed, what, slugs)
        except HistoryError as exc:
            store.pending_reason = store.pending_reason or f"history waits: {exc}"


def _park(store: Any, note: Note, paths: Sequence[str], why: str) -> None:
    d = _hdir(store) / "pending"
    rec = {"what": note.what, "who": note.who, "slugs": list(note.slugs), "ref": note.ref}
    rec["paths"] = list(paths)
    try:
        d.mkdir(parents=True, exist_ok=True)
        stamp_ = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%f")
        atomic_write_text(d / f"{stamp_}-{os.getpid()}.json", json.dumps(rec))
    except OSError:
        pass  # the change is on disk; the next writer records it as a change found there
    store.pending_reason = store.pending_reason or f"history waits: {why}"


#: How long a fresh git lock file is given to go away on its own: a writer killed while
#: its git child ran leaves that child running for the few milliseconds its step takes.
_ORPHAN_GRACE = 2.0


def _clear_stale_locks(store: Any) -> None:
    """git's own lock files left by a killed kura writer. Every git call kura makes runs
    under the store's write lock, which the caller holds, so a lock file here belongs to a
    dead writer; its git child may still be finishing, so a fresh one is first given a
    moment to go, then whatever is left is removed."""
    gd = Path(store.root) / ".git"
    locks = [gd / n for n in ("index.lock", "HEAD.lock", "refs/heads/main.lock")]
    deadline = time.monotonic() + _ORPHAN_GRACE
    while time.monotonic() < deadline and any(_fresh(p) for p in locks):
        time.sleep(0.02)
    for p in locks:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(p)


def _fresh(path: Path) -> bool:
    try:
        return time.time() - path.stat().st_mtime < _ORPHAN_GRACE
    except FileNotFoundError:
        return False


def catch_up(store: Any) -> None:
    """The writer's recovery step: finish an interrupted undo or sync, make parked records,
    then record whatever else differs from HEAD as a hand edit. Under the write lock."""
    if not enabled(store):
        return
    git = Git(Path(store.root))
    try:
        _clear_stale_locks(store)
        _finish_apply(store, git)
        _settle_parked(store, git)
        changed = changed_paths(git)
        if changed:
            slugs = sorted({s for s in map(slug_of, changed) if s})
            commit_paths(git, changed, Note("hand edit", HAND, tuple(slugs)))
    except HistoryError as exc:
        store.pending_reason = store.pending_reason or f"history waits: {exc}"
    except OSError as exc:
        raise storage_error(exc, "record the store's history", store.root) from None


def changed_paths(git: Git) -> list[str]:
    """Paths whose content differs from the index/HEAD, untracked ones included."""
    raw = git.run("status", "--porcelain=v1", "-z", "-uall", "--no-renames").stdout
    out = []
    for item in raw.split(b"\0"):
        if len(item) > 3:
            out.append(item[3:].decode("utf-8", "surrogateescape"))
    return out


def _settle_parked(store: Any, git: Git) -> None:
    d = _hdir(store) / "pending"
    try:
        names = sorted(n for n in os.listdir(d) if n.endswith(".json"))
    except FileNotFoundError:
        return
    for n in names:
        try:
            rec = json.loads((d / n).read_text(encoding="utf-8"))
            note = Note(
                str(rec["what"]), str(rec["who"]), tuple(rec["slugs"]), str(rec.get("ref", ""))
            )
            paths = [str(p) for p in rec["paths"]]
        except (OSError, ValueError, KeyError, TypeError):
            discard(d / n)
            continue
        commit_paths(git, paths, note)
        discard(d / n)


# --------------------------------------------------------------------------- enabling


def ensure_ignore(root: Path) -> bool:
    """Make ``.gitignore`` keep ``_still/`` and temp files out; True when it changed."""
    path = root / ".gitignore"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    have = set(text.splitlines())
    missing = [x for x in IGNORE_LINES if x not in have]
    if not missing:
        return False
    sep = "" if not text or text.endswith("\n") else "\n"
    atomic_write_text(path, text + sep + "\n".join(missing) + "\n")
    return True


#: a store is many small files in one directory: a split index makes each write rewrite only
#: a small delta of it (the shared part stays), version 4 keeps it small, the untracked
#: cache spares the hand-edit look a directory read when nothing was added
_REPO_CONFIG = (
    ("core.splitIndex", "true"),
    ("index.version", "4"),
    ("core.untrackedCache", "true"),
    ("gc.auto", "0"),
)


def enable(store: Any) -> bool:
    """Give *store* history (idempotent): a repository, the ignore file, and a first entry
    holding everything there. True when the repository was made now."""
    if not available():
        raise HistoryError(GIT_MISSING)
    root = Path(store.root)
    made = False
    with store.locked(f"give store {store.name!r} history"):
        git = Git(root)
        if not (root / ".git").is_dir():
            git.run("init", "-q", "-b", "main")
            made = True
        for key, value in _REPO_CONFIG:
            git.run("config", key, value)
        try:
            ensure_ignore(root)
        except OSError as exc:
            raise storage_error(exc, "write .gitignore", root / ".gitignore") from None
        changed = changed_paths(git)
        if changed or git.head() is None:
            slugs = sorted({s for s in map(slug_of, changed) if s})
            what = "history begins" if made or git.head() is None else "hand edit"
            who = who_now() if what == "history begins" else HAND
            commit_paths(git, changed, Note(what, who, tuple(slugs) if len(slugs) <= 20 else ()))
    return made


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class Change:
    rev: str
    when: str
    what: str
    who: str
    slugs: tuple[str, ...]
    ref: str = ""
    subject: str = ""
    parents: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "rev": self.rev,
            "when": self.when,
            "what": self.what,
            "who": self.who,
            "slugs": list(self.slugs),
            "ref": self.ref,
            "subject": self.subject,
            "parents": list(self.parents),
        }


def _git_for(store: Any) -> Git:
    if not available():
        raise HistoryError(GIT_MISSING)
    if not enabled(store):
        raise HistoryError(
            f"store {store.name!r} keeps no history; run `kura history --enable -s {store.name}`"
            + (" (and remove `history = false` from kura.toml)" if not store.history else "")
        )
    return Git(Path(store.root))


def _change(
    rev: str, parents: list[str], when: str, author: str, body: str, names: list[str]
) -> Change:
    trailers: dict[str, str] = {}
    for line in body.splitlines():
        key, sep, value = line.partition(": ")
        if sep and key.startswith("Kura-"):
            trailers[key[5:].lower()] = value.strip()
    subject = body.strip().splitlines()[0] if body.strip() else ""
    slugs = tuple(trailers["slugs"].split()) if "slugs" in trailers else ()
    if not slugs:
        slugs = tuple(sorted({s for s in map(slug_of, names) if s}))
    return Change(
        rev=rev,
        when=when,
        what=trailers.get("what") or subject,
        who=trailers.get("who") or author,
        slugs=slugs,
        ref=trailers.get("ref", ""),
        subject=subject,
        parents=tuple(parents),
    )


# --------------------------------------------------------------------------- moving files


def build_commit(
    git: Git, base: str, targets: Mapping[str, str | None], note: Note, parents: Sequence[str]
) -> str:
    """A commit whose tree is *base*'s with *targets* (path → blob id, None to remove)."""
    tmp_index = Path(git.env["GIT_DIR"]) / "kura-build-index"
    discard(tmp_index)
    side = Git(git.root, tmp_index)
    try:
        side.run("read-tree", base)
        lines = []
        for path, blob in sorted(targets.items()):
            if blob is None:
                lines.append(f"0 {ZERO}\t{path}")
            else:
                lines.append(f"100644 {blob}\t{path}")
        if lines:
            side.run("update-index", "--index-info", data=("\n".join(lines) + "\n").encode())
        tree = side.out("write-tree")
    finally:
        discard(tmp_index)
    args = ["commit-tree", tree]
    for p in parents:
        args += ["-p", p]
    return git.out(*args, data=note.message().encode("utf-8"))


def hash_blob(git: Git, data: bytes) -> str:
    return git.out("hash-object", "-w", "--stdin", data=data)


def apply_commit(store: Any, git: Git, commit: str, paths: Sequence[str]) -> None:
    """Move the store to *commit* (whose first parent, or itself for a fast-forward, is
    reachable from HEAD), rewriting *paths*: the record first, then the files, then the
    ref. Under the write lock; recovery finishes it after a crash."""
    d = _hdir(store)
    d.mkdir(parents=True, exist_ok=True)
    rec = {"commit": commit, "from": git.head(), "paths": list(paths)}
    atomic_write_text(d / "apply.json", json.dumps(rec))
    _finish_apply(store, git)


def _finish_apply(store: Any, git: Git) -> None:
    path = _hdir(store) / "apply.json"
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
        commit, old, paths = str(rec["commit"]), rec.get("from"), [str(p) for p in rec["paths"]]
    except FileNotFoundError:
        return
    except (OSError, ValueError, KeyError, TypeError):
        discard(path)
        return
    head = git.head()
    if head not in (old, commit):
        discard(path)  # history moved on by other means: never rewind it
        return
    root = Path(store.root)
    memories = [p for p in paths if p != INDEX_FILE]
    for p in [*memories, *([INDEX_FILE] if INDEX_FILE in paths else [])]:
        if "/" in p or p.startswith("."):
            continue
        data = git.blob(commit, p)
        target = root / p
        if data is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(target)
        elif _read(target) != data:
            atomic_write_bytes(target, data)
    if paths:
        git.run(
            "update-index",
            "--add",
            "--remove",
            "-z",
            "--stdin",
            data=b"".join(p.encode() + b"\0" for p in paths),
        )
    if head != commit:
        git.run("update-ref", "-m", "kura", "HEAD", commit, head or ZERO)
    discard(path)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _blob_id(git: Git, rev: str, path: str) -> str | None:
    proc = git.run("rev-parse", "--verify", "-q", f"{rev}:{path}", check=False)
    return proc.stdout.decode().strip() if proc.returncode == 0 else None
