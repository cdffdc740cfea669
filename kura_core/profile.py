"""The learned profile: what a wide room has come to understand, in sentences.

A narrow store with a fixed charter recognises sharply. A wide one — a room that follows a
person rather than a purpose — recalls more softly, and in exchange its understanding can
grow: ``profile.md`` beside the charter, written in sentences, read by every model role
right after the charter.

* **Drafted** by the brain from the store's own memories (:func:`draft_profile`), into the
  workshop (``_still/profile-draft.md``), never straight into the store.
* **Applied** only by a person (:func:`apply_profile`; ``kura profile apply``), and never on
  a frozen store. The profile it replaces is kept in ``_still/profile-previous.md``.
* **Read** by every role: :func:`read_profile` feeds :func:`preamble`, so
  the prompt's stable prefix is the charter, then the profile, then the instructions.
* **Never in the map**: ``profile`` is a reserved name, so no index line, weave or prefill
  ever holds it.

Every face calls :class:`kura_core.kura.Kura`'s ``profile_state``, ``profile_draft`` and
``profile_apply``, which call this module.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .distill.evidence import strip_invisible
from .errors import KuraError, ModelUnavailable, PolicyError
from .fsutil import atomic_write_text
from .prompts import Preamble, messages
from .store import STILL, Store
from .tokens import estimate_tokens
from .vocabulary import GateLogKind, WritePolicy

PROFILE_FILE = "profile.md"
DRAFT_FILE = "profile-draft.md"
PREVIOUS_FILE = "profile-previous.md"
#: A profile longer than this is not a profile; the brain is asked for far less.
MAX_CHARS = 6000
#: How much of the store the brain is shown when drafting (characters of memory lines).
SOURCE_CHARS = 24_000
_DRAFT_HEAD = re.compile(r"^<!-- kura-profile-draft (?P<attrs>[^>]*) -->\n")
#: ``name=value``; read from the start of a run of name characters, not from each of them
_DRAFT_ATTR = re.compile(r"(?<![\w-])-*+(\w[\w-]*+)=(\S+)")
#: a line that is a list item, a heading or a table row
_LISTY = re.compile(r"(?:[-*+•]\s|#{1,6}\s|\d++[.)]\s|\|)")

PROFILE_SCHEMA = {
    "type": "object",
    "properties": {"profile": {"type": "string"}},
    "required": ["profile"],
}

PROFILE_INSTRUCTIONS = """\
You draft the learned profile of a long-term memory store. The profile is read by every
model that works on this store, right after its charter: it says, in a few short paragraphs
of plain sentences, what this store has come to hold and how its owner works — the subjects
that recur, what they care about, how they want things done — so that a reader understands
the room before reading any single memory.

You will be given the store's memories, one per line (title, type, tags, the line that makes
it recognisable, and why it belongs), and the current profile if there is one. Write the
profile anew from these memories.

Use only what the memories say. Never add a fact, a number, a name, a date or a claim about
the person that the memories do not state; when the memories disagree, say less. Write
sentences, not a list: no headings, no bullets, no Markdown. At most about 250 words. Write
in the language most of the memories are written in.

Reply with JSON only: {"profile": "..."}"""


# =========================================================================== values


@dataclass(frozen=True)
class ProfileState:
    """Where a store's learned profile stands. ``text`` is the applied profile ('' if none)."""

    store: str
    path: str
    present: bool
    text: str
    bytes: int
    tokens_est: int
    updated_at: float | None
    draft_present: bool
    draft_path: str
    draft_text: str
    draft_at: float | None
    draft_from: int  # memories the draft was written from
    frozen: bool
    problem: str = ""  # why the profile file cannot be read ("" when it can)

    @property
    def state(self) -> str:
        """'unreadable', 'draft waiting', 'applied', or 'none'."""
        if self.problem:
            return "unreadable"
        if self.draft_present:
            return "draft waiting"
        return "applied" if self.present else "none"

    def to_json(self, *, text: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "store": self.store,
            "state": self.state,
            "path": self.path,
            "present": self.present,
            "bytes": self.bytes,
            "tokens_est": self.tokens_est,
            "updated_at": self.updated_at,
            "draft": {
                "present": self.draft_present,
                "path": self.draft_path,
                "at": self.draft_at,
                "from_memories": self.draft_from,
            },
            "frozen": self.frozen,
            "problem": self.problem,
        }
        if text:
            out["text"] = self.text
            out["draft"]["text"] = self.draft_text
        return out


@dataclass(frozen=True)
class ProfileDraft:
    store: str
    path: str
    text: str
    from_memories: int
    tokens_est: int
    elapsed_ms: float

    def to_json(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "path": self.path,
            "text": self.text,
            "from_memories": self.from_memories,
            "tokens_est": self.tokens_est,
            "elapsed_ms": round(self.elapsed_ms, 2),
        }


@dataclass(frozen=True)
class ProfileApplied:
    store: str
    path: str
    bytes: int
    previous_path: str  # where the profile it replaced was kept ('' when there was none)
    source: str  # "draft" or "text"

    def to_json(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "path": self.path,
            "bytes": self.bytes,
            "previous_path": self.previous_path,
            "source": self.source,
        }


# =========================================================================== reading


def _read_own(path: Path) -> str:
    """A file of the store's own, never through a link; '' when absent. Raises KuraError."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return ""
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
        raise KuraError(
            f"{path.name} is not a regular file (a link or a directory); "
            "a store only answers for its own files"
        )
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return ""
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise KuraError(f"{path.name} is a symbolic link") from None
        raise KuraError(f"cannot read {path.name}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as fh:
        raw = fh.read()
    try:
        return raw.decode("utf-8").lstrip("\ufeff").replace("\r\n", "\n")
    except UnicodeDecodeError:
        raise KuraError(f"{path.name} is not UTF-8 text; save it as UTF-8") from None


_CACHE: dict[str, tuple[tuple, str]] = {}


def read_profile(store: Store) -> str:
    """The applied profile's text, stripped ('' when there is none or it cannot be read:
    a prompt never fails for it; doctor says why)."""
    path = store.root / PROFILE_FILE
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return ""
    key = (st.st_ino, st.st_mtime_ns, st.st_size, st.st_mode)
    hit = _CACHE.get(str(path))
    if hit and hit[0] == key:
        return hit[1]
    try:
        text = _read_own(path).strip()
    except KuraError:
        text = ""
    _CACHE[str(path)] = (key, text)
    return text


def preamble(store: Store) -> Preamble:
    """What every model role reads first: the charter and the applied profile of *store*,
    read now (both cached on the files)."""
    return Preamble(store.charter(), read_profile(store))


def _draft_path(store: Store) -> Path:
    return store.root / STILL / DRAFT_FILE


def _parse_draft(raw: str) -> tuple[str, dict[str, str]]:
    m = _DRAFT_HEAD.match(raw)
    if not m:
        return raw.strip(), {}
    attrs = dict(_DRAFT_ATTR.findall(m["attrs"]))
    return raw[m.end() :].strip(), attrs


def profile_state(reg: Any, selector: str | None = None) -> ProfileState:
    name = reg.resolve(selector)
    store = reg.store(name)
    path = store.root / PROFILE_FILE
    problem, text, updated = "", "", None
    try:
        text = _read_own(path).strip()
        if path.is_file():
            updated = path.stat().st_mtime
    except KuraError as exc:
        problem = str(exc)
    dpath = _draft_path(store)
    draft_text, draft_at, draft_from = "", None, 0
    try:
        raw = _read_own(dpath)
    except KuraError:
        raw = ""
    if raw:
        draft_text, attrs = _parse_draft(raw)
        try:
            draft_at = float(attrs.get("at", "")) if attrs.get("at") else dpath.stat().st_mtime
            draft_from = int(attrs.get("from", "0"))
        except (ValueError, OSError):
            draft_at, draft_from = None, 0
    return ProfileState(
        store=name,
        path=str(path),
        present=bool(text),
        text=text,
        bytes=len(text.encode("utf-8")),
        tokens_est=estimate_tokens(text) if text else 0,
        updated_at=updated,
        draft_present=bool(draft_text),
        draft_path=str(dpath),
        draft_text=draft_text,
        draft_at=draft_at,
        draft_from=draft_from,
        frozen=reg.config.stores[name].write_policy == WritePolicy.FROZEN,
        problem=problem,
    )


# =========================================================================== drafting


def sentence_problems(text: str) -> list[str]:
    """Why *text* is not a profile in sentences (empty: it is)."""

    out = []
    if not text.strip():
        return ["the profile is empty"]
    if len(text) > MAX_CHARS:
        out.append(f"the profile is {len(text)} characters; a profile is at most {MAX_CHARS}")
    if strip_invisible(text) != text:
        out.append("the profile holds invisible or bidirectional control characters")
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    listy = [l for l in lines if _LISTY.match(l)]
    if listy:
        out.append(
            f"the profile is written in sentences, not as a list or headings "
            f"(first: {listy[0][:40]!r})"
        )
    if "<!--" in text or "-->" in text or "<<<" in text:
        out.append("the profile may not hold HTML comments or map markers")
    return out


def _memory_lines(store: Store) -> tuple[str, int]:
    scan = store.scan()
    idx = scan.index.by_slug()
    lines, used, n = [], 0, 0
    for m in scan.memories:
        e = idx.get(m.slug)
        title = e.title if e else m.title
        bits = [f"- {title}", f"({m.type or 'project'}"]
        bits[-1] += f"; {', '.join(m.tags)})" if m.tags else ")"
        line = " ".join(bits) + f": {m.description}"
        if m.curation("belongs_because"):
            line += f" — belongs because {m.curation('belongs_because')}"
        if used + len(line) > SOURCE_CHARS:
            break
        lines.append(line)
        used += len(line) + 1
        n += 1
    return "\n".join(lines), n


def draft_profile(reg: Any, selector: str | None = None) -> ProfileDraft:
    """Ask the brain for a profile drafted from the store's own memories, and keep it in the
    workshop for a person to read and apply. Raises KuraError (ModelUnavailable with the
    reason when the brain cannot answer or its reply is not a profile)."""
    started = time.perf_counter()
    name = reg.resolve(selector)
    store = reg.store(name)
    if not store.index_path.is_file():
        raise KuraError(
            f"store {name!r} does not exist yet: run `kura init {name} --path {store.root}`"
        )
    models = reg.models(name)
    if not models.configured("brain"):
        raise KuraError(
            "drafting a profile needs a brain model: add [models.thinker] (one model "
            "does every role) or [models.brain] to kura.toml"
        )
    listing, n = _memory_lines(store)
    if not n:
        raise KuraError(f"store {name!r} has no memories to draft a profile from")
    task = f"The store's memories ({n}):\n{listing}"
    reply = models.ask(
        "brain",
        "kura_profile",
        messages(preamble(store), PROFILE_INSTRUCTIONS, task),
        PROFILE_SCHEMA,
    )
    text = str(reply.get("profile", "")).replace("\r\n", "\n").strip()
    problems = sentence_problems(text)
    if not problems:
        from .floors import (  # lazy: start-up (recall reads the profile; the floors load to check a draft)
            Evidence,
            check_surface,
        )

        given = [m.description + "\n" + m.body for m in store.scan().memories] + [listing]
        # a profile is about the person by nature: its figures and links must be the
        # memories', and nothing may be disguised; what it says of the person is a person's
        # to read and apply (kura profile apply), not the attribution floor's
        problems = [
            str(v)
            for v in check_surface(
                {"profile": text},
                Evidence(),
                given=given,
                existing_slugs=set(store.file_slugs()),
                human_names=reg.config.stores[name].distill.human_names,
            )
            if v.kind != "attribution"
        ]
    if problems:
        reason = "the brain's profile was refused: " + "; ".join(problems)
        reg.workshop(name).log_gate(
            GateLogKind.PROFILE_REFUSED, reason=reason, detail={"text": text[:2000]}
        )
        raise ModelUnavailable(reason, kind="refused")
    path = _draft_path(store)
    path.parent.mkdir(parents=True, exist_ok=True)
    at = reg.clock()
    atomic_write_text(path, f"<!-- kura-profile-draft at={at:.3f} from={n} -->\n{text}\n")
    return ProfileDraft(
        store=name,
        path=str(path),
        text=text,
        from_memories=n,
        tokens_est=estimate_tokens(text),
        elapsed_ms=(time.perf_counter() - started) * 1000.0,
    )


# =========================================================================== applying


def apply_profile(
    reg: Any, selector: str | None = None, *, text: str | None = None
) -> ProfileApplied:
    """Make the waiting draft (or *text*, a person's own) the store's profile.

    A person's act: no HTTP route or MCP tool calls this. Refused on a frozen store. The
    profile it replaces is kept in ``_still/profile-previous.md``; the draft is removed once
    applied.
    """
    name = reg.resolve(selector)
    store = reg.store(name)
    if reg.config.stores[name].write_policy == WritePolicy.FROZEN:
        raise PolicyError(f"store {name!r} is frozen: its profile is not changed")
    if not store.index_path.is_file():
        raise KuraError(
            f"store {name!r} does not exist yet: run `kura init {name} --path {store.root}`"
        )
    dpath = _draft_path(store)
    source = "text"
    if text is None:
        raw = _read_own(dpath)
        text, _ = _parse_draft(raw) if raw else ("", {})
        if not text:
            raise KuraError(
                f"no profile draft waiting for store {name!r}: run `kura profile draft "
                f"-s {name}` first, or apply your own with --file"
            )
        source = "draft"
    text = text.replace("\r\n", "\n").strip()
    problems = sentence_problems(text)
    if problems:
        raise KuraError("not applied: " + "; ".join(problems))
    store.secrets.refuse({"profile": text}, f"the profile of store {name!r}")
    path = store.root / PROFILE_FILE
    previous = ""
    with store.locked():
        old = _read_own(path)
        if old.strip():
            prev = store.root / STILL / PREVIOUS_FILE
            atomic_write_text(prev, old)
            previous = str(prev)
        atomic_write_text(path, text + "\n")
        if source == "draft":
            with contextlib.suppress(FileNotFoundError):
                os.unlink(dpath)
    return ProfileApplied(
        store=name,
        path=str(path),
        bytes=len((text + "\n").encode("utf-8")),
        previous_path=previous,
        source=source,
    )


def state_for_doctor(reg: Any, name: str) -> Mapping[str, Any]:
    """The profile's state as doctor reports it (no text)."""
    return profile_state(reg, name).to_json(text=False)
