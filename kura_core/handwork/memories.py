"""A memory as a person sees it, edits it by hand and retires it.

Hand edits are a person's: they pass no gate, and they are never passed off as gated.
Pour records an *evidence seal* next to a memory's evidence manifest (a digest of the body
and curation sentences the gate vouched for); a hand edit keeps the manifest, leaves the
seal as it was and records itself (``metadata.hand_edited`` in the file, an ``edited``
entry in the gate log holding the text as it was). A memory whose file no longer matches
its seal is shown as hand-edited, whoever edited it and with whatever tool.

Retiring a memory removes its file and its index line together (one intent, like every
canonical write) after the gate log has kept the whole file, who retired it and why."""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ..errors import ConflictError, KuraError, MemoryFormatError, NotFound, PolicyError
from ..registry import Registry
from ..shapes import dict_at, str_at
from ..store import (
    LINK_RE,
    Memory,
    check_slug,
    links_in,
    read_frontmatter,
    render_memory,
    seal_of,
)
from ..vocabulary import (
    CURATION_FIELDS,
    MEMORY_TYPES,
    PROVENANCE_CLASSES,
    GateLogKind,
    SealState,
    WritePolicy,
)
from .quotes import Quote

if TYPE_CHECKING:
    pass

#: fields a hand edit may change, in the order they are named in the record
FIELDS = ("title", "description", "type", "tags") + CURATION_FIELDS + ("body",)
#: how many gate-log entries about one memory its view carries
HISTORY = 20


# =========================================================================== memories


@dataclass(frozen=True)
class Provenance:
    """Whether a memory is still what the gate passed.

    state: ``gated`` (the file matches its evidence seal and no hand edit is recorded),
    ``hand-edited`` (the file no longer matches its seal, or a hand edit is recorded),
    ``unsealed`` (it has evidence but was poured before seals were recorded), ``direct``
    (no evidence manifest: written directly or by hand).
    """

    state: str
    manifest: str = ""
    manifest_present: bool = False
    seal: str = ""
    seal_ok: bool | None = None  # None: no seal to check
    hand_edited: Mapping[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        he = self.hand_edited
        who = ""
        if he:
            fields = ", ".join(he.get("fields") or ()) or "the text"
            who = f" by {he.get('by') or 'hand'} on {str(he.get('at') or '?')[:10]} ({fields})"
        if self.state == SealState.GATED:
            return "as the gate passed it: the file matches its evidence seal"
        if self.state == SealState.HAND_EDITED:
            if self.seal_ok is False:
                return (
                    f"hand-edited{who or ' outside kura'}: the file no longer matches its evidence "
                    "seal, so the evidence vouches for an earlier text, not this one"
                )
            if self.seal_ok:
                return (
                    f"hand-edited{who}: the body and curation still match the evidence seal; "
                    "the edited fields are a person's words, not vouched by the gate"
                )
            return f"hand-edited{who}: a person's words, not vouched by the gate"
        if self.state == SealState.UNSEALED:
            return "poured before evidence seals were recorded: kura cannot tell whether it was edited since"
        return "no evidence manifest: written directly or by hand, never through the gate"


@dataclass(frozen=True)
class GateEntry:
    """One line of the gate log: what was written, refused, poured, tossed or retired, and why."""

    id: int
    at: float
    kind: str
    title: str
    slug: str
    reason: str
    detail: Mapping[str, Any]

    @classmethod
    def from_row(cls, r: Mapping[str, Any]) -> GateEntry:
        """An entry from a gate_log row whose detail is JSON text or already read."""
        detail = r["detail"]
        if isinstance(detail, str):
            try:
                detail = json.loads(detail)
            except ValueError:
                detail = {}
        return cls(
            r["id"],
            r["at"],
            r["kind"],
            r["title"] or "",
            r["slug"] or "",
            r["reason"] or "",
            MappingProxyType(detail if isinstance(detail, dict) else {}),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "at": self.at,
            "kind": self.kind,
            "title": self.title,
            "slug": self.slug,
            "reason": self.reason,
            "detail": dict(self.detail),
        }


@dataclass(frozen=True)
class MemoryView:
    """One memory with everything a person needs to curate it."""

    store: str
    memory: Memory
    title: str
    index_line: str
    provenance: Provenance
    quotes: tuple[Quote, ...]
    linked_from: tuple[str, ...]
    history: tuple[GateEntry, ...]
    base: str  # digest of the file as read: an edit against an older file is refused
    text: str  # the whole file as read

    @property
    def slug(self) -> str:
        return self.memory.slug


@dataclass(frozen=True)
class EditResult:
    store: str
    slug: str
    changed: tuple[str, ...]
    view: MemoryView


@dataclass(frozen=True)
class RetireResult:
    store: str
    slug: str
    title: str
    dead_links: tuple[str, ...]  # memories whose [[links]] to it now point at nothing
    log_id: int
    relinked: tuple[str, ...] = ()  # memories whose links to it were unlinked or redirected
    redirected_to: str = ""  # the memory those links now name ("" when made plain text)


def file_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _file_text(store: Any, slug: str) -> str:
    path = store.memory_path(slug)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        raise NotFound(f"no memory {slug!r} in store {store.name!r}") from None
    with os.fdopen(fd, "rb") as fh:
        return fh.read().decode("utf-8", errors="replace")


def _metadata(mem: Memory) -> Mapping[str, Any]:
    md = mem.meta.get("metadata")
    return md if isinstance(md, Mapping) else {}


def provenance(store: Any, mem: Memory) -> Provenance:
    md = _metadata(mem)
    manifest = str_at(md, "evidence_manifest")
    seal = str_at(md, "evidence_seal")
    found = md.get("hand_edited")
    he: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    present = (
        bool(manifest)
        and manifest.startswith("sha256:")
        and (store.still / "manifests" / f"{manifest[7:]}.json").is_file()
    )
    seal_ok = (seal == seal_of(mem.body, mem.meta)) if seal else None
    if seal_ok is False or he:
        state = SealState.HAND_EDITED
    elif seal_ok:
        state = SealState.GATED
    elif manifest:
        state = SealState.UNSEALED
    else:
        state = SealState.DIRECT
    return Provenance(state, manifest, present, seal, seal_ok, dict(he))


def gate_entries(
    ws: Any, *, slug: str | None = None, kinds: tuple[str, ...] = (), limit: int
) -> list[GateEntry]:
    return [GateEntry.from_row(r) for r in ws.gate_rows(slug=slug, kinds=kinds, limit=limit)]


def manifest_quotes(store: Any, ref: str) -> tuple[Quote, ...]:
    """The classed segments an evidence manifest keeps (what vouched for a memory)."""
    from ..distill.drafts import (
        read_manifest,  # lazy: start-up (the distiller loads for a memory view only)
    )

    if not ref:
        return ()
    try:
        man = read_manifest(store, ref)
    except KuraError:
        return ()
    return tuple(
        Quote.from_json({**s, "status": "evidence"})
        for s in man.get("segments", [])
        if isinstance(s, Mapping)
    )


def linked_from(store: Any, slug: str) -> tuple[str, ...]:
    """Memories whose body links to *slug* with [[slug]]."""
    out = []
    for m in store.scan().memories:
        if m.slug != slug and slug in links_in(m.body):
            out.append(m.slug)
    return tuple(out)


def memory_view(reg: Registry, name: str, slug: str) -> MemoryView:
    store = reg.store(name)
    text = _file_text(store, slug)
    mem = store.read(slug)
    entry = store.index().by_slug().get(slug)
    prov = provenance(store, mem)
    history: tuple[GateEntry, ...] = ()
    if store.still.is_dir():
        history = tuple(gate_entries(reg.workshop(name), slug=slug, limit=HISTORY))
    return MemoryView(
        store=name,
        memory=mem,
        title=entry.title if entry else mem.title,
        index_line=entry.raw if entry else "",
        provenance=prov,
        quotes=manifest_quotes(store, prov.manifest),
        linked_from=linked_from(store, slug),
        history=history,
        base=file_digest(text),
        text=text,
    )


def check_writable(reg: Registry, name: str, what: str) -> None:
    policy = reg.config.stores[name].write_policy
    if policy == WritePolicy.FROZEN:
        raise PolicyError(
            f"store {name!r} is frozen: nothing in it is {what}. Set write_policy to "
            f'"distiller-only" under [stores.{name}] to curate it'
        )


@contextlib.contextmanager
def _logged_first(ws: Any, kind: str, **kw: Any) -> Iterator[int]:
    """Write a gate-log entry before the change it records, and take it back if the change
    fails: a crash in between leaves an entry for a change that may not have happened,
    never a change with no entry (and the text it replaced is in the entry)."""
    row = ws.log_gate(kind, **kw)
    try:
        yield row
    except BaseException:
        with contextlib.suppress(Exception):
            ws.unlog_gate(row)
        raise


def _clean_tags(tags: Sequence[str], before: Sequence[str]) -> tuple[str, ...]:
    """Tags a person sets by hand: the tag floor's shape rules (one word, nothing hidden) and
    the distiller's own tags left to the distiller. A person may say what the gate would
    want evidence for (a hand edit passes no gate, and is recorded as one)."""
    from ..floors import (  # lazy: start-up (the floors load for a hand edit only)
        Evidence,
        check_tags,
    )

    out = tuple(dict.fromkeys(" ".join(str(t).split()) for t in tags if str(t).strip()))
    anyone = Evidence.of((), [(c, "", "") for c in PROVENANCE_CLASSES])
    problems = [
        v
        for v in check_tags(list(out), anyone, allowed=list(before))
        if v.kind in ("tag", "shape", "disguise")
    ]
    if problems:
        raise KuraError("; ".join(str(p) for p in problems) + ": fix the tags and save again")
    return out


def edit_memory(
    reg: Registry,
    name: str,
    slug: str,
    *,
    base: str,
    title: str | None = None,
    description: str | None = None,
    body: str | None = None,
    type: str | None = None,
    tags: Sequence[str] | None = None,
    curation: Mapping[str, str | None] | None = None,
    by: str = "hand",
) -> EditResult:
    """A person's edit of a memory, through the store's write path (memory and index line
    together). It passes no gate; it is recorded as a hand edit. *base* is the digest of the
    file the person started from: if the file changed since, nothing is written."""
    check_writable(reg, name, "edited")
    store = reg.store(name)
    text = _file_text(store, slug)
    if base and file_digest(text) != base:
        raise ConflictError(
            f"{slug}.md changed on disk after you opened it (the tender, another "
            "process or another editor); nothing was written. Reopen the memory and "
            "make the edit again"
        )
    mem = store.read(slug)
    entry = store.index().by_slug().get(slug)
    old_title = entry.title if entry else mem.title
    new: dict[str, Any] = {
        "title": old_title if title is None else " ".join(title.split()),
        "description": mem.description if description is None else " ".join(description.split()),
        "type": mem.type if type is None else type.strip(),
        "tags": tuple(mem.tags) if tags is None else _clean_tags(tags, mem.tags),
        "body": mem.body if body is None else body,
    }
    for k in CURATION_FIELDS:
        v = mem.curation(k) if curation is None or k not in curation else (curation[k] or "")
        new[k] = " ".join(str(v).split())
    if not new["title"]:
        raise KuraError("a memory needs a title: it is the text of its index line's link")
    if new["type"] and new["type"] not in MEMORY_TYPES:
        raise KuraError(f"type must be one of {', '.join(MEMORY_TYPES)} (got {new['type']!r})")
    old: dict[str, Any] = {
        "title": old_title,
        "description": mem.description,
        "type": mem.type,
        "tags": tuple(mem.tags),
        "body": mem.body,
        **{k: mem.curation(k) for k in CURATION_FIELDS},
    }
    changed = tuple(
        f
        for f in FIELDS
        if (new[f].strip() if f == "body" else new[f])
        != (old[f].strip() if f == "body" else old[f])
    )
    if not changed:
        return EditResult(name, slug, (), memory_view(reg, name, slug))
    stamp = _iso(reg)
    meta: dict[str, Any] = {
        "metadata": {
            "tags": list(new["tags"]),
            "hand_edited": {"at": stamp, "by": by, "fields": list(changed)},
        }
    }
    for k in CURATION_FIELDS:
        meta[k] = new[k] or None
    ws = reg.workshop(name)
    with _logged_first(
        ws,
        GateLogKind.EDITED,
        title=new["title"],
        slug=slug,
        reason=f"hand edit by {by}: {', '.join(changed)} (passes no gate)",
        detail={"by": by, "fields": list(changed), "before": text},
    ):
        store.write(
            slug,
            title=new["title"],
            description=new["description"],
            body=new["body"],
            type=new["type"],
            tags=new["tags"],
            meta=meta,
        )
    return EditResult(name, slug, changed, memory_view(reg, name, slug))


def _iso(reg: Registry) -> str:

    return dt.datetime.fromtimestamp(reg.clock()).isoformat(timespec="seconds")


def editable_text(view: MemoryView) -> str:
    """The memory as a person edits it in $EDITOR: its file, with the title (which lives in
    the index line) first in the frontmatter."""
    meta = {"title": view.title, **{k: v for k, v in view.memory.meta.items()}}
    return render_memory(meta, view.memory.body)


def parse_editable(text: str, slug: str) -> dict[str, Any]:
    """Read back what a person wrote in $EDITOR: the fields :func:`edit_memory` takes.
    Raises KuraError naming what to fix."""

    try:
        fm = read_frontmatter(text)
    except MemoryFormatError as exc:
        raise KuraError(f"the edited text cannot be read: {exc}") from None
    if fm.form != "yaml" and not fm.why.startswith("a ' #' inside"):
        # the line form would read it, but a bracket or quote left open means a value (the
        # tags, most often) would be taken as text or dropped: the person fixes it instead
        raise KuraError(
            f"the frontmatter is not valid YAML: {fm.why}. Fix it (a bracket or quote left "
            "open?) so that nothing in it is dropped"
        )
    meta, body = fm.meta, fm.body
    name = meta.get("name", slug)
    if name != slug:
        raise KuraError(
            f"the name changed from {slug!r} to {name!r}: renaming a memory is not an edit; "
            f"put the name back"
        )
    md = dict_at(meta, "metadata")
    tags = md.get("tags", [])
    if isinstance(tags, str):
        tags = [t.strip() for t in tags.split(",") if t.strip()]
    if not isinstance(tags, list):
        raise KuraError("metadata.tags must be a list of words")
    for k in ("title", "description", *CURATION_FIELDS):
        v = meta.get(k)
        if v is not None and not isinstance(v, str):
            raise KuraError(f"{k} must be text")
    mtype = md.get("type", "")
    if not isinstance(mtype, str):
        raise KuraError("metadata.type must be a word")
    return {
        "title": meta.get("title") or "",
        "description": meta.get("description") or "",
        "body": body,
        "type": mtype,
        "tags": [str(t) for t in tags],
        "curation": {k: meta.get(k) or "" for k in CURATION_FIELDS},
    }


def rewrite_links(text: str, target: str, *, to: str = "", plain: str = "") -> str:
    """*text* with every ``[[target]]`` link (with a ``|label`` or ``#part`` or not) either
    redirected to ``[[to]]`` (label and part kept) or, when *to* is empty, made plain text:
    its label, else *plain*, else the target's words. Every other character is kept."""

    def one(m: Any) -> str:
        if m.group(1).strip() != target:
            return str(m.group(0))
        inner = m.group(0)[2:-2]
        rest = inner[len(m.group(1)) :]
        if to:
            return f"[[{to}{rest}]]"
        if rest.startswith("|") and rest[1:].strip():
            return rest[1:].strip()
        return plain or target.replace("-", " ")

    return LINK_RE.sub(one, text or "")


def relink(
    reg: Registry,
    name: str,
    target: str,
    *,
    to: str = "",
    plain: str = "",
    by: str = "hand",
) -> tuple[str, ...]:
    """Rewrite every memory's links to *target*: redirected to memory *to*, or (no *to*) made
    plain text. Each changed memory is a hand edit (recorded in the gate log with the text it
    replaced). Returns the slugs rewritten; the fix for links that point at nothing."""
    check_slug(target)
    check_writable(reg, name, "relinked")
    store = reg.store(name)
    if to:
        check_slug(to)
        if to == target:
            raise KuraError(f"cannot redirect links to {target!r} to itself: name another memory")
        if not store.has(to):
            raise NotFound(
                f"no memory {to!r} in store {name!r} to redirect the links to: "
                "name one that exists, or unlink them instead"
            )
    done = []
    for slug in linked_from(store, target):
        text = _file_text(store, slug)
        body = store.read(slug).body
        new_body = rewrite_links(body, target, to=to, plain=plain)
        if new_body != body:
            edit_memory(reg, name, slug, base=file_digest(text), body=new_body, by=by)
            done.append(slug)
    return tuple(done)


def retire(
    reg: Registry,
    name: str,
    slug: str,
    reason: str,
    *,
    by: str = "hand",
    links: str = "keep",
    redirect_to: str = "",
) -> RetireResult:
    """Take a memory out of its store: file and index line together. The gate log keeps the
    whole file, who retired it and why. The links other memories make to it are kept
    (``links="keep"``: they then point at nothing, and doctor says so), made plain text
    (``"unlink"``) or pointed at *redirect_to* (``"redirect"``)."""
    reason = " ".join((reason or "").split())
    if not reason:
        raise KuraError("say why the memory is retired: the reason is kept in the gate log")
    if links not in ("keep", "unlink", "redirect"):
        raise KuraError(f"links must be keep, unlink or redirect (got {links!r})")
    if (links == "redirect") != bool(redirect_to):
        raise KuraError("name the memory the links are redirected to (and only to redirect)")
    check_writable(reg, name, "retired")
    store = reg.store(name)
    text = _file_text(store, slug)
    entry = store.index().by_slug().get(slug)
    title = entry.title if entry else slug.replace("-", " ")
    if redirect_to and (redirect_to == slug or not store.has(redirect_to)):
        raise NotFound(
            f"no other memory {redirect_to!r} in store {name!r} to redirect the links to: "
            "name one that exists, or unlink them instead"
        )
    dead = linked_from(store, slug)
    ws = reg.workshop(name)
    with _logged_first(
        ws,
        GateLogKind.RETIRED,
        title=title,
        slug=slug,
        reason=reason,
        detail={
            "by": by,
            "text": text,
            "index_line": entry.raw if entry else "",
            "linked_from": list(dead),
        },
    ) as row:
        store.retire(slug)
    relinked: tuple[str, ...] = ()
    if links != "keep" and dead:
        # after the retire: a crash in between leaves links to nothing, which doctor names
        # with the command that fixes them, never a memory whose links were rewritten in vain
        relinked = relink(reg, name, slug, to=redirect_to, plain=title, by=by)
    left = tuple(s for s in dead if s not in relinked)
    return RetireResult(name, slug, title, left, row, relinked, redirect_to)
