"""Handwork: what a person does to a store by hand, and what they need to see to do it.

Everything here is headless and synchronous; the app reaches it through
:class:`kura_core.kura.Kura`. The values that cross into a face are frozen dataclasses.

Hand edits are a person's: they pass no gate, and they are never passed off as gated.
Pour records an *evidence seal* next to a memory's evidence manifest (a digest of the body
and curation sentences the gate vouched for); a hand edit keeps the manifest, leaves the
seal as it was and records itself (``metadata.hand_edited`` in the file, an ``edited``
entry in the gate log holding the text as it was). A memory whose file no longer matches
its seal is shown as hand-edited, whoever edited it and with whatever tool.

Retiring a memory removes its file and its index line together (one intent, like every
canonical write) after the gate log has kept the whole file, who retired it and why.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import os
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .errors import ConflictError, ContainmentError, KuraError, NotFound, PolicyError
from .registry import Registry
from .shapes import dict_at, str_at
from .store import Memory, links_in, render_memory, seal_of, split_frontmatter
from .vocabulary import (
    CURATION_FIELDS,
    MEMORY_TYPES,
    PROVENANCE_CLASSES,
    GateLogKind,
    SealState,
    SeedState,
    StretchState,
    TenderState,
    WritePolicy,
)

if TYPE_CHECKING:
    from .weave import WeaveResult

#: fields a hand edit may change, in the order they are named in the record
FIELDS = ("title", "description", "type", "tags") + CURATION_FIELDS + ("body",)
#: how many gate-log entries about one memory its view carries
HISTORY = 20


@dataclass(frozen=True)
class Progress:
    """How far a long piece of work has come. ``total`` 0 means not known."""

    done: float
    total: float
    text: str


ProgressFn = Callable[[Progress], None]


# =========================================================================== quotes


@dataclass(frozen=True)
class Quote:
    """One piece of evidence: its class, its text, and where in which journal it is."""

    cls: str
    text: str
    status: str = ""
    source: str = ""
    start: int = 0
    end: int = 0
    unit: str = "byte"

    @classmethod
    def from_json(cls, q: Mapping[str, Any]) -> Quote:
        """A quote as drafts record it, or as the gate does (``class`` and ``where``)."""
        found = q.get("where")
        where: Mapping[str, Any] = found if isinstance(found, Mapping) else q
        try:
            start, end = int(where.get("start") or 0), int(where.get("end") or 0)
        except (TypeError, ValueError):
            start = end = 0
        return cls(
            cls=str(q.get("cls") or q.get("class") or "?").upper(),
            text=str(q.get("text") or ""),
            status=str(q.get("status") or ""),
            source=str(where.get("source") or ""),
            start=start,
            end=end,
            unit=str(where.get("unit") or "byte"),
        )

    @property
    def located(self) -> bool:
        return bool(self.source) and not self.source.startswith("memory:")


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


def _entries(
    ws: Any, *, slug: str | None = None, kinds: tuple[str, ...] = (), limit: int
) -> list[GateEntry]:
    return [GateEntry.from_row(r) for r in ws.gate_rows(slug=slug, kinds=kinds, limit=limit)]


def manifest_quotes(store: Any, ref: str) -> tuple[Quote, ...]:
    """The classed segments an evidence manifest keeps (what vouched for a memory)."""
    from .distill.drafts import read_manifest

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
        history = tuple(_entries(reg.workshop(name), slug=slug, limit=HISTORY))
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


def _writable(reg: Registry, name: str, what: str) -> None:
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
    from .floors import Evidence, check_tags

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
    _writable(reg, name, "edited")
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
    import datetime as dt

    return dt.datetime.fromtimestamp(reg.clock()).isoformat(timespec="seconds")


def editable_text(view: MemoryView) -> str:
    """The memory as a person edits it in $EDITOR: its file, with the title (which lives in
    the index line) first in the frontmatter."""
    meta = {"title": view.title, **{k: v for k, v in view.memory.meta.items()}}
    return render_memory(meta, view.memory.body)


def parse_editable(text: str, slug: str) -> dict[str, Any]:
    """Read back what a person wrote in $EDITOR: the fields :func:`edit_memory` takes.
    Raises KuraError naming what to fix."""
    from .errors import MemoryFormatError

    try:
        meta, body = split_frontmatter(text)
    except MemoryFormatError as exc:
        raise KuraError(f"the edited text cannot be read: {exc}") from None
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


def retire(reg: Registry, name: str, slug: str, reason: str, *, by: str = "hand") -> RetireResult:
    """Take a memory out of its store: file and index line together. The gate log keeps the
    whole file, who retired it and why."""
    reason = " ".join((reason or "").split())
    if not reason:
        raise KuraError("say why the memory is retired: the reason is kept in the gate log")
    _writable(reg, name, "retired")
    store = reg.store(name)
    text = _file_text(store, slug)
    entry = store.index().by_slug().get(slug)
    title = entry.title if entry else slug.replace("-", " ")
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
    return RetireResult(name, slug, title, dead, row)


# =========================================================================== the map


@dataclass(frozen=True)
class MapLine:
    layer: str  # pinned | fresh | trigger
    slug: str
    title: str
    text: str  # as hosts wear it
    tags: tuple[str, ...] = ()
    type: str = ""
    compressed: bool = False


@dataclass(frozen=True)
class MapView:
    """What hosts wear now: the woven cloth when it is current, else the raw index."""

    store: str
    source: str  # woven | canonical | none
    stale: bool
    lines: tuple[MapLine, ...]
    tokens_est: int
    budget_tokens: int
    ceiling_tokens: int
    over_budget: bool
    over_ceiling: bool
    map_shown: bool
    warning: str
    index_sha256: str


def _cloth_texts(cloth: str) -> dict[str, str]:
    from .store import parse_index

    out: dict[str, str] = {}
    for e in parse_index(cloth).entries:
        out.setdefault(e.slug, e.description)
    return out


def map_view(reg: Registry, name: str) -> MapView:
    from .prefill import build_prefill
    from .weave import ages, read_cloth

    store = reg.store(name)
    pre = build_prefill(reg, name)
    idx = store.index()
    index_sha = hashlib.sha256(store.index_text().encode("utf-8")).hexdigest()
    built_from, cloth = read_cloth(store.still)
    worn = _cloth_texts(cloth) if pre.source == "woven" and built_from == index_sha else {}
    scan = store.scan()
    mems = scan.by_slug()
    cfg = reg.spec(name).prefill
    age_of, _ = ages(scan.memories, reg.today())
    lines = []
    for e in idx.entries:
        m = mems.get(e.slug)
        text = worn.get(e.slug, e.description)
        mtype = m.type if m else ""
        age = age_of.get(e.slug) if m else None
        if mtype and mtype in cfg.pinned_types:
            layer = "pinned"
        elif text == e.description and age is not None and age < cfg.fresh_days:
            layer = "fresh"
        else:
            layer = "trigger"
        lines.append(
            MapLine(
                layer,
                e.slug,
                e.title,
                text,
                tuple(m.tags) if m else (),
                mtype,
                compressed=text != e.description,
            )
        )
    return MapView(
        name,
        pre.source,
        pre.stale,
        tuple(lines),
        pre.tokens_est,
        pre.budget_tokens,
        pre.ceiling_tokens,
        pre.over_budget,
        pre.over_ceiling,
        pre.map_shown,
        pre.warning,
        index_sha,
    )


@dataclass(frozen=True)
class MapChange:
    slug: str
    kind: str  # same | changed | added | removed
    layer: str
    before: str
    after: str


@dataclass(frozen=True)
class WeavePreview:
    """The map a weave would write, line by line against the one hosts wear now."""

    store: str
    current_source: str  # woven | canonical | none
    current_stale: bool
    current_tokens: int
    result: Any  # kura_core.weave.WeaveResult (written=False)
    changes: tuple[MapChange, ...]

    @property
    def changed(self) -> int:
        return sum(1 for c in self.changes if c.kind != "same")


def weave_preview(reg: Registry, name: str) -> WeavePreview:
    """Weave without writing (asking the scribe when one is configured, so the lines it
    writes are in the ledger and writing afterwards weaves the same map)."""
    from .weave import weave

    current = map_view(reg, name)
    res = weave(reg, name, write=False, ask=True)
    before = {ln.slug: ln.text for ln in current.lines}
    after_slugs = set()
    changes = []
    for layer, slug, text in res.lines:
        after_slugs.add(slug)
        if slug not in before:
            changes.append(MapChange(slug, "added", layer, "", text))
        else:
            changes.append(
                MapChange(
                    slug, "same" if before[slug] == text else "changed", layer, before[slug], text
                )
            )
    for ln in current.lines:
        if ln.slug not in after_slugs:
            changes.append(MapChange(ln.slug, "removed", ln.layer, ln.text, ""))
    return WeavePreview(
        name, current.source, current.stale, current.tokens_est, res, tuple(changes)
    )


def weave_write(reg: Registry, name: str, *, index_sha256: str) -> WeaveResult:
    """Write the map a preview showed. Refused when the index changed since the preview."""
    from .weave import weave

    _writable(reg, name, "woven")
    store = reg.store(name)
    now = hashlib.sha256(store.index_text().encode("utf-8")).hexdigest()
    if index_sha256 and now != index_sha256:
        raise ConflictError(
            "the index changed since the preview (a pour, a tidy or a hand edit): "
            "preview the weave again"
        )
    return weave(reg, name)


# =========================================================================== drafts


@dataclass(frozen=True)
class DiffLine:
    op: str  # " " same, "-" only in the memory, "+" only in the draft
    text: str


@dataclass(frozen=True)
class ExtensionDiff:
    """What pouring an extension draft changes in the memory it extends."""

    target: str
    exists: bool
    changed_since: bool  # the memory changed after the draft was composed
    title: tuple[str, str]
    description: tuple[str, str]
    tags: tuple[tuple[str, ...], tuple[str, ...]]
    body: tuple[DiffLine, ...]

    @property
    def added(self) -> int:
        return sum(1 for d in self.body if d.op == "+")

    @property
    def removed(self) -> int:
        return sum(1 for d in self.body if d.op == "-")


@dataclass(frozen=True)
class DraftsView:
    store: str
    drafts: tuple[Any, ...]  # kura_core.distill.drafts.Draft, oldest first
    problems: tuple[tuple[str, str], ...]
    extensions: Mapping[str, ExtensionDiff]


def line_diff(old: str, new: str) -> tuple[DiffLine, ...]:
    a, b = old.strip("\n").split("\n"), new.strip("\n").split("\n")
    out: list[DiffLine] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out += [DiffLine(" ", t) for t in a[i1:i2]]
            continue
        out += [DiffLine("-", t) for t in a[i1:i2]]
        out += [DiffLine("+", t) for t in b[j1:j2]]
    return tuple(out)


def extension_diff(reg: Registry, name: str, draft: Any) -> ExtensionDiff:
    from .distill.drafts import body_digest

    store = reg.store(name)
    target = draft.target
    if not store.has(target):
        return ExtensionDiff(
            target,
            False,
            False,
            ("", draft.title),
            ("", draft.description),
            ((), tuple(draft.tags)),
            line_diff("", draft.body),
        )
    mem = store.read(target)
    entry = store.index().by_slug().get(target)
    changed = bool(draft.target_digest) and body_digest(mem.body) != draft.target_digest
    tags_after = tuple(
        dict.fromkeys([*draft.tags] + (["judgement"] if draft.label == "judgement" else []))
    )
    return ExtensionDiff(
        target,
        True,
        changed,
        (entry.title if entry else mem.title, draft.title),
        (mem.description, draft.description),
        (tuple(mem.tags), tags_after),
        line_diff(mem.body, draft.body),
    )


def drafts_view(reg: Registry, name: str) -> DraftsView:
    from .distill.drafts import _draft_files, parse_draft
    from .errors import MemoryFormatError

    store = reg.store(name)
    drafts, problems = [], []
    for p in _draft_files(
        store
    ):  # each file read and parsed once: waiting, or why it cannot be read
        try:
            drafts.append(parse_draft(p.read_text(encoding="utf-8"), p))
        except (MemoryFormatError, UnicodeDecodeError) as exc:
            problems.append((p.name, str(exc)))
        except OSError:
            continue  # poured or tossed while the list was read
    drafts.sort(key=lambda d: (d.created, d.slug))
    ext = {}
    for d in drafts:
        if d.decision == "extends" and d.target:
            try:
                ext[d.slug] = extension_diff(reg, name, d)
            except KuraError:
                continue
    return DraftsView(name, tuple(drafts), tuple(problems), ext)


# =========================================================================== seeds


@dataclass(frozen=True)
class Confirmation:
    at: float
    draft: str
    journal: str
    quotes: tuple[Quote, ...]


@dataclass(frozen=True)
class Seed:
    """An idea kept aside until later evidence confirms it; it never enters the store."""

    id: int
    at: float
    title: str
    body: str
    state: str  # waiting | graduated | dismissed | withered
    source: str
    quotes: tuple[Quote, ...]
    updated: float
    confirmed: tuple[Confirmation, ...] = ()
    attempts: tuple[tuple[float, str], ...] = ()  # later evidence that did not confirm it
    dismissed: tuple[float, str, str] | None = None  # (at, by, reason)


SEED_LOG = (GateLogKind.GRADUATED, GateLogKind.SEED_UNCONFIRMED, GateLogKind.SEED_DISMISSED)


def seed_list(reg: Registry, name: str, *, limit: int = 500) -> tuple[Seed, ...]:
    store = reg.store(name)
    if not store.still.is_dir():
        return ()
    ws = reg.workshop(name)
    rows = ws.seeds(limit=limit)
    log = _entries(ws, kinds=SEED_LOG, limit=5000)
    by_seed: dict[int, list[GateEntry]] = {}
    for e in log:
        sid = e.detail.get("seed")
        if isinstance(sid, int):
            by_seed.setdefault(sid, []).append(e)
    out = []
    for r in rows:
        try:
            raw = json.loads(r["quotes"] or "[]")
        except ValueError:
            raw = []
        events = by_seed.get(r["id"], [])
        confirmed = tuple(
            Confirmation(
                e.at,
                str(e.detail.get("draft") or ""),
                str(e.detail.get("journal") or ""),
                tuple(
                    Quote.from_json(q)
                    for q in e.detail.get("quotes") or []
                    if isinstance(q, Mapping)
                ),
            )
            for e in events
            if e.kind == GateLogKind.GRADUATED
        )
        attempts = tuple((e.at, e.reason) for e in events if e.kind == GateLogKind.SEED_UNCONFIRMED)
        dis = next(
            (
                (e.at, str(e.detail.get("by") or ""), e.reason)
                for e in events
                if e.kind == GateLogKind.SEED_DISMISSED
            ),
            None,
        )
        out.append(
            Seed(
                r["id"],
                r["at"],
                r["title"],
                r["body"],
                r["state"],
                r["source"],
                tuple(Quote.from_json(q) for q in raw if isinstance(q, Mapping)),
                r["updated"],
                confirmed,
                attempts,
                dis,
            )
        )
    return tuple(out)


def dismiss_seed(
    reg: Registry, name: str, seed_id: int, reason: str = "", *, by: str = "hand"
) -> Seed:
    """Set a waiting idea aside for good: it is no longer checked against new evidence."""
    reason = " ".join((reason or "").split()) or f"dismissed by {by}"
    ws = reg.workshop(name)
    row = ws.dismiss_seed(seed_id, reason=reason, by=by)
    if row is None:
        raise NotFound(f"no seed {seed_id} in store {name!r}")
    if row["state"] != SeedState.WAITING:
        raise ConflictError(
            f"seed {seed_id} is {row['state']}, not waiting: only a waiting idea is dismissed"
        )
    return next(s for s in seed_list(reg, name) if s.id == seed_id)


# =========================================================================== tidy


@dataclass(frozen=True)
class TidyProposal:
    slug: str
    title: str
    line: str  # the line as it is
    why: str  # why it fails
    proposed: str = ""  # the scribe's rewrite ("" with no scribe, or when it failed)
    problems: tuple[str, ...] = ()  # what the floors refuse in the rewrite
    error: str = ""


@dataclass(frozen=True)
class TidyReview:
    store: str
    proposals: tuple[TidyProposal, ...]
    scribe: bool  # whether a scribe wrote rewrites
    note: str = ""
    stopped: str = ""


def tidy_review(
    reg: Registry,
    name: str,
    *,
    progress: ProgressFn | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> TidyReview:
    """The weak index lines and a rewrite of each, for a person to accept, edit or reject.
    Nothing is written. Without a scribe the weak lines come without rewrites."""
    from .distill.tidy import find_weak_lines, propose
    from .errors import ModelUnavailable

    flagged = find_weak_lines(reg, name)
    scribe = reg.config.models.get("scribe") is not None
    note = (
        ""
        if scribe
        else (
            "no scribe model is configured: the weak lines are listed without rewrites; "
            "write each line yourself, or add [models.thinker] to kura.toml"
        )
    )
    out: list[TidyProposal] = []
    stopped = ""
    store = reg.store(name)
    for i, item in enumerate(flagged):
        entry = store.index().by_slug().get(item["slug"])
        title = entry.title if entry else item["slug"]
        if not scribe or stopped:
            out.append(TidyProposal(item["slug"], title, item["line"], item["why"]))
            continue
        if should_stop and should_stop():
            stopped = "asked to stop"
            out.append(TidyProposal(item["slug"], title, item["line"], item["why"]))
            continue
        if progress:
            progress(Progress(i, len(flagged), f"asking the scribe to rewrite {item['slug']}"))
        try:
            title, new, problems = propose(reg, name, item, flagged)
            out.append(
                TidyProposal(
                    item["slug"],
                    title,
                    item["line"],
                    item["why"],
                    new,
                    tuple(str(p) for p in problems),
                )
            )
        except ModelUnavailable as exc:
            stopped = f"the scribe failed: {exc}"
            out.append(TidyProposal(item["slug"], title, item["line"], item["why"], error=str(exc)))
        except KuraError as exc:
            out.append(TidyProposal(item["slug"], title, item["line"], item["why"], error=str(exc)))
    if progress:
        progress(Progress(len(flagged), len(flagged), "done"))
    return TidyReview(name, tuple(out), scribe, note, stopped)


def apply_tidy(
    reg: Registry, name: str, slug: str, line: str, *, expected: str, by: str = "hand"
) -> str:
    """Write one reviewed index line. It passes the same floors as the scribe's rewrites
    (no number the memory does not hold, no new attribution, no lost negation or ⚠️)."""
    from .distill.drafts import FloorRefused
    from .distill.tidy import check_line

    _writable(reg, name, "tidied")
    store = reg.store(name)
    mem = store.read(slug)
    entry = store.index().by_slug().get(slug)
    current = entry.description if entry else mem.description
    if " ".join(current.split()) != " ".join(expected.split()):
        raise ConflictError(f"the line of {slug} changed since it was proposed; tidy again")
    new = " ".join(line.split())
    problems = check_line(current, new, mem.body, reg.config.stores[name].distill.human_names)
    ws = reg.workshop(name)
    title = entry.title if entry else mem.title
    if problems:
        ws.log_gate(
            GateLogKind.REFUSED,
            title=title,
            slug=slug,
            reason="; ".join(str(p) for p in problems),
            detail={
                "at": "tidy",
                "line": new,
                "by": by,
                "violations": [p.to_json() for p in problems],
            },
        )
        raise FloorRefused(problems)
    # the line and its `tidied` row are one intent, as in tidy itself
    row = {
        "kind": GateLogKind.TIDIED,
        "title": title,
        "slug": slug,
        "reason": f"reviewed by {by}",
        "detail": {"old": current, "new": new, "by": by},
        "key": f"tidied:{uuid.uuid4().hex}",
        "at": reg.clock(),
    }
    store.set_index_line(slug, title, new, also={"log": row})
    return new


def reject_tidy(reg: Registry, name: str, slug: str, proposed: str, *, by: str = "hand") -> None:
    store = reg.store(name)
    entry = store.index().by_slug().get(slug)
    reg.workshop(name).log_gate(
        GateLogKind.TIDY_REJECTED,
        title=entry.title if entry else slug,
        slug=slug,
        reason=f"rewrite rejected by {by}",
        detail={"line": entry.description if entry else "", "proposed": proposed, "by": by},
    )


# =========================================================================== the metabolism


@dataclass(frozen=True)
class Outcome:
    """What a distil or a drain did: in a sentence, and the report itself (a frozen
    :class:`~kura_core.distill.pipeline.RunReport` or ``DrainReport``)."""

    kind: str  # distil | drain
    store: str
    did_work: bool
    summary: str
    report: Any
    stopped: str = ""
    errors: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return self.report.to_json()


def needs(reg: Registry, name: str, kind: str) -> str:
    """Why *kind* cannot run here ('' when it can): a model role that is not configured.
    Recall never refuses: without a thinker it answers by words, and this says why."""
    roles = {
        "distil": ("brain", "scribe"),
        "drain": ("scribe",),
        "tidy": (),
        "weave": (),
        "profile": ("brain",),
        "recall": ("thinker",),
    }[kind]
    missing = [r for r in roles if reg.config.models.get(r) is None]
    if not missing:
        return ""
    if kind == "profile":
        return (
            "drafting a profile needs a brain model, and none is configured: add [models.thinker] "
            "(one model does every role) or [models.brain] to kura.toml"
        )
    if kind == "recall":
        return "no thinker model is configured: recall answers by words (add [models.thinker] to kura.toml)"
    what = " and a ".join(missing)
    return (
        f"{kind} needs a {what} model, and none is configured: add [models.thinker] "
        f"(one model does every role) to kura.toml"
    )


def distil(
    reg: Registry,
    name: str,
    *,
    progress: ProgressFn | None = None,
    should_stop: Callable[[], bool] | None = None,
    max_batches: int | None = None,
) -> Outcome:
    """Drink what is new in the store's journals (nothing new is not an error, model or no
    model; new journal with no brain or scribe configured is, and says which)."""
    from .distill import pipeline

    backlog = {j.path: j for j in journals(reg, name).files}
    total = sum(j.backlog_bytes for j in backlog.values())
    drunk = 0.0
    last: dict[str, Any] = {}

    def on_batch(kind: str, info: Mapping[str, Any]) -> None:
        nonlocal drunk
        if kind != "batch" or progress is None:
            return
        if last:
            drunk += last["bytes"]
        j = backlog.get(str(info.get("journal")))
        span = max(0, int(info.get("end", 0)) - int(info.get("start", 0)))
        per = (j.size / max(1, j.end)) if j and j.unit == "seq" else 1.0
        last["bytes"] = span * per
        progress(
            Progress(
                drunk,
                total,
                f"drinking {Path(str(info.get('journal'))).name} "
                f"{info.get('start')}–{info.get('end')} ({info.get('segments')} segments)",
            )
        )

    rep = pipeline.run(
        reg, name, progress=on_batch, should_stop=should_stop, max_batches=max_batches
    )
    summary = (
        f"{rep.batches} batch(es) drunk → {len(rep.drafts)} draft(s), {rep.dropped} dropped, "
        f"{rep.seeds} seed(s)"
    )
    if rep.graduated:
        summary += f", {rep.graduated} seed(s) confirmed"
    if not rep.batches and not rep.shelved:
        summary = rep.stopped or "nothing new to drink"
    return Outcome("distil", name, rep.did_work, summary, rep, rep.stopped, tuple(rep.errors))


def drain(
    reg: Registry,
    name: str,
    *,
    progress: ProgressFn | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Outcome:
    from .distill import pipeline
    from .distill.drafts import list_drafts

    total = len(list_drafts(reg.store(name)))
    seen = 0

    def on_draft(kind: str, info: Mapping[str, Any]) -> None:
        nonlocal seen
        if progress is not None:
            progress(Progress(seen, total, f"the scribe reads {info.get('slug')}"))
        seen += 1

    rep = pipeline.drain(reg, name, progress=on_draft, should_stop=should_stop)
    summary = (
        f"poured {len(rep.poured)}, fixed {len(rep.fixed)}, tossed {len(rep.tossed)}, "
        f"kept {len(rep.kept)}"
    )
    return Outcome("drain", name, rep.did_work, summary, rep, rep.stopped, tuple(rep.errors))


# =========================================================================== the tender


@dataclass(frozen=True)
class TendStatus:
    store: str
    state: str  # alive | stale | dead | stopped | never started
    running: bool
    pid: int | None
    last_beat_s: float | None
    doing: str
    started: float | None
    counts: Mapping[str, int]
    resting: Mapping[str, float]  # track -> seconds left
    last_tick: Mapping[str, Any]  # the last tick that did work or failed, as logged
    last_tick_at: str
    last_tick_lines: tuple[str, ...]  # what the last tick logged it did
    log_tail: tuple[str, ...]
    log_path: str
    idle_min: float


def _tail(path: Path, lines: int, max_bytes: int = 256 * 1024) -> list[str]:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - max_bytes))
            data = fh.read()
    except OSError:
        return []
    text = data.decode("utf-8", errors="replace")
    out = text.split("\n")
    if size > max_bytes:
        out = out[1:]  # the first line is cut
    return [l for l in out if l.strip()][-lines:]


def tend_status(reg: Registry, name: str, *, lines: int = 200) -> TendStatus:
    from .doctor import heartbeat_state

    store = reg.store(name)
    spec = reg.config.stores[name]
    log_path = store.still / "tend.log"
    if not store.still.is_dir():
        return TendStatus(
            name,
            "never started",
            False,
            None,
            None,
            "",
            None,
            {},
            {},
            {},
            "",
            (),
            (),
            str(log_path),
            spec.distill.idle_min,
        )
    ws = reg.workshop(name)
    row = ws.heartbeat()
    hb = heartbeat_state(row, reg.clock())
    resting = {}
    for track in ("drain", "run", "tidy"):
        until = ws.get(f"tend.rest.{track}", 0) or 0
        left = float(until) - reg.clock()
        if left > 0:
            resting[track] = left
    tail = tuple(_tail(log_path, lines))

    def work(part: Sequence[str]) -> tuple[str, ...]:
        return tuple(line for line in part if "] tender st" not in line)

    ticks = [i for i, line in enumerate(tail) if _tick_json(line) is not None]
    after = work(tail[ticks[-1] + 1 :] if ticks else tail)
    last: Mapping[str, Any] = {}
    last_at = ""
    if after:  # logged since the last tick line: a `--once` run, or a tick that logs no tick line
        did = after[-6:]
        last_at = did[-1].split(" ", 1)[0]
    elif ticks:
        last = _tick_json(tail[ticks[-1]]) or {}
        last_at = tail[ticks[-1]].split(" ", 1)[0]
        did = work(tail[ticks[-2] + 1 if len(ticks) > 1 else 0 : ticks[-1]])
    else:
        did = ()
    return TendStatus(
        name,
        hb["state"],
        hb["state"] in (TenderState.ALIVE, TenderState.STALE),
        hb.get("pid"),
        hb.get("last_beat_s"),
        str(hb.get("doing") or ""),
        row["started"] if row else None,
        dict(hb.get("counts") or {}),
        resting,
        last,
        last_at,
        did,
        tail,
        str(log_path),
        spec.distill.idle_min,
    )


def _tick_json(line: str) -> Mapping[str, Any] | None:
    _, sep, payload = line.partition("] tick: ")
    if not sep or not payload.startswith("{"):
        return None
    try:
        out = json.loads(payload)
    except ValueError:
        return None
    return out if isinstance(out, dict) else None


# =========================================================================== journals


@dataclass(frozen=True)
class Stretch:
    start: int
    end: int
    state: str  # held | shelved
    reason: str
    attempts: int
    owner: str
    updated: float


@dataclass(frozen=True)
class JournalState:
    adapter: str
    path: str
    unit: str  # byte | seq
    size: int  # bytes
    end: int  # where the journal ends, in its unit
    mark: int  # everything before this has been drunk
    backlog: int  # end - mark, in the unit
    backlog_bytes: int
    mtime: float
    stretches: tuple[Stretch, ...]

    @property
    def shelved(self) -> tuple[Stretch, ...]:
        return tuple(s for s in self.stretches if s.state == StretchState.SHELVED)

    @property
    def held(self) -> tuple[Stretch, ...]:
        return tuple(s for s in self.stretches if s.state == StretchState.HELD)


@dataclass(frozen=True)
class JournalRootState:
    adapter: str
    root: str
    include: str
    exclude: str
    exists: bool


@dataclass(frozen=True)
class JournalsView:
    store: str
    roots: tuple[JournalRootState, ...]
    files: tuple[JournalState, ...]
    forgotten: tuple[tuple[str, int], ...]  # marks of journals no root finds any more


def _records(path: Path, mark: int) -> tuple[int, int]:
    """(complete records in an evidence JSONL, byte offset where record *mark* starts)."""
    count, offset_at_mark, pos = 0, 0, 0
    with open(path, "rb") as fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                break
            if count == mark:
                offset_at_mark = pos
            count += 1
            pos += len(raw)
    if mark >= count:
        offset_at_mark = pos
    return count, offset_at_mark


def journals(reg: Registry, name: str) -> JournalsView:
    from .distill.journals import DEFAULT_INCLUDE, UNITS
    from .distill.marks import journal_key
    from .distill.pipeline import journal_files

    spec = reg.config.stores[name]

    def include(j: Any) -> str:
        globs = j.include_glob or DEFAULT_INCLUDE.get(j.adapter, "")
        return globs if isinstance(globs, str) else ", ".join(globs)

    roots = tuple(
        JournalRootState(j.adapter, str(j.root), include(j), j.exclude_glob, Path(j.root).is_dir())
        for j in spec.distill.journals
    )
    store = reg.store(name)
    marks: dict[str, Mapping[str, Any]] = {}
    stretches: dict[str, list[Stretch]] = {}
    if store.still.is_dir():
        ws = reg.workshop(name)
        marks.update(ws.watermarks())
        for r in ws.reservations():
            stretches.setdefault(r["journal"], []).append(
                Stretch(
                    r["start"],
                    r["end"],
                    r["state"],
                    r["reason"],
                    r["attempts"],
                    r["owner"],
                    r["updated"],
                )
            )
    files = []
    seen = set()
    for adapter, path in journal_files(reg, name):
        key = journal_key(adapter, path)
        seen.add(key)
        unit = UNITS.get(adapter, "byte")
        try:
            st = path.stat()
        except OSError:
            continue
        mark = int((marks.get(key) or {}).get("mark") or 0)
        if unit == "seq":
            try:
                end, at = _records(path, mark)
            except OSError:
                end, at = mark, st.st_size
            backlog_bytes = max(0, st.st_size - at)
        else:
            end = st.st_size
            backlog_bytes = max(0, st.st_size - mark)
        files.append(
            JournalState(
                adapter,
                str(path),
                unit,
                st.st_size,
                end,
                mark,
                max(0, end - mark),
                backlog_bytes,
                st.st_mtime,
                tuple(stretches.get(key, ())),
            )
        )
    forgotten = tuple((k, int(v.get("mark") or 0)) for k, v in marks.items() if k not in seen)
    return JournalsView(name, roots, tuple(files), forgotten)


@dataclass(frozen=True)
class ExcerptLine:
    """One segment of a journal excerpt; ``target`` marks the segment(s) at the position."""

    cls: str
    text: str
    start: int
    end: int
    target: bool


@dataclass(frozen=True)
class JournalExcerpt:
    """The segments around a position of one of a store's journals.

    ``at_end``: nothing is at or after the position -- the journal ends there (a watermark
    with nothing new after it); the segments before it are shown and none is a target.
    """

    store: str
    path: str
    adapter: str
    unit: str
    position: int
    lines: tuple[ExcerptLine, ...]
    at_end: bool = False

    @property
    def found(self) -> bool:
        """Whether a segment still sits at the position (not merely the next one after it)."""
        return any(
            ln.target and ln.start <= self.position < max(ln.end, ln.start + 1) for ln in self.lines
        )


def resolve_journal(reg: Registry, name: str, source: str) -> tuple[str, Path]:
    """(adapter, path) of a journal the store drinks, for a source recorded in evidence.
    A relative source is relative to kura.toml. Anything that is not one of the store's
    own journals is refused: evidence never names a file for kura to open."""
    from .distill.pipeline import journal_files

    p = Path(source).expanduser()
    if not p.is_absolute():
        base = reg.config.source.parent if reg.config.source is not None else Path.cwd()
        p = base / p
    try:
        real = p.resolve(strict=True)
    except (OSError, RuntimeError):
        raise NotFound(f"the journal {source} is not there any more (moved or deleted)") from None
    for adapter, path in journal_files(reg, name):
        try:
            if path.resolve() == real:
                return adapter, path
        except OSError:
            continue
    raise ContainmentError(
        f"{source} is not one of the journals store {name!r} drinks, so kura does not "
        "open it; check the store's [journals] roots in kura.toml"
    )


def journal_excerpt(
    reg: Registry, name: str, source: str, position: int, *, unit: str = "", around: int = 4
) -> JournalExcerpt:
    """The journal around *position* (where a quote's segment starts, or a watermark, in
    the journal's unit): the segment(s) there and *around* segments on each side, read by
    :func:`kura_core.distill.journals.segment_context` with the store's own adapter. Only a
    journal the store drinks is opened (:func:`resolve_journal`). Raises KuraError: a
    position in another unit than the adapter's, or a journal that cannot be read."""
    from .distill.journals import JournalError, segment_context

    adapter, path = resolve_journal(reg, name, source)
    position = max(0, int(position))
    want = unit or None
    at_end = False
    try:
        ctx = segment_context(path, position, unit=want, adapter=adapter, radius=around)
    except JournalError as exc:
        # Nothing at or after the position. When a segment ends exactly there, the journal
        # ends there (a watermark with nothing new after it): show what comes before it.
        if position == 0:
            raise
        try:
            ctx = segment_context(path, position - 1, unit=want, adapter=adapter, radius=around)
        except JournalError:
            raise exc from None
        at_end = True
    focus = set() if at_end else set(ctx.focus)
    lines = tuple(
        ExcerptLine(s.cls, s.text, s.start, s.end, i in focus) for i, s in enumerate(ctx.segments)
    )
    return JournalExcerpt(name, str(path), ctx.adapter, ctx.unit, position, lines, at_end=at_end)
