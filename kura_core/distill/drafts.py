"""Drafts: what the distiller wants to write, waiting in `_still/drafts/`.

A draft is a Markdown file shaped like the memory it would become, followed by an HTML
comment that carries its evidence — each quote with its class and where in the journal
it came from, and the gate's verdicts — so a person can always see why it exists. The
full evidence (every segment a quote was found in) lives in a content-addressed
manifest under `_still/manifests/`.

Nothing here writes to the store except :func:`pour`, and pour runs the same final
floor (numbers, attribution, links) that composing did, so an edit can never smuggle
an unvouched number in.

Exactly once, across processes and crashes: a draft is placed under a name no other
run holds (an exclusive create, never a rename over another run's draft); pour, toss
and fix re-read the draft under the store's write lock; a pour writes the memory, its
`poured` gate-log row and the draft's removal as one intent, so a crash is finished by
the next reader and logged once; a draft whose memory is already in the store is never
judged or tossed again.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import hashlib
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import ConflictError, KuraError, MemoryFormatError, NotFound, PolicyError
from ..floors import MARK, NEGATION, Evidence, Violation, check_rewrite, check_surface, check_tags
from ..floors.kura_messages import kura_message_violations
from ..fsutil import (
    atomic_write_text,
    create_exclusive,
    discard,
    is_temp_name,
    storage_error,
    sweep_dead_temps,
)
from ..registry import Registry
from ..shapes import dict_at
from ..store import Memory, Store, check_slug, render_memory, seal_of, split_frontmatter
from ..vocabulary import CURATION_FIELDS, ClaimKind, DraftDecision, GateLogKind, WritePolicy
from .evidence import Segment

EVIDENCE_OPEN = "<!-- kura:evidence"
EVIDENCE_CLOSE = "-->"


class FloorRefused(KuraError):
    """An edit or a pour would store something the evidence does not vouch for.

    ``violations`` are the floors' structured :class:`~kura_core.floors.Violation`
    values; the message lists them in words."""

    status = 422

    def __init__(self, violations: Sequence[Any]):
        self.violations = list(violations)
        super().__init__("refused by the floor: " + "; ".join(str(v) for v in self.violations))

    def messages(self) -> list[str]:
        return [str(v) for v in self.violations]


@dataclass(frozen=True)
class Draft:
    slug: str
    title: str
    description: str
    body: str
    type: str = "project"
    tags: tuple[str, ...] = ()
    decision: str = DraftDecision.NEW  # new | extends
    target: str = ""  # the memory an extension rewrites
    target_digest: str = ""  # sha256 of the target's body when the draft was composed
    kind: str = ClaimKind.FACT  # fact | judgement
    label: str = ""  # "judgement" when only the agent's own words vouch for it
    quotes: tuple[Mapping[str, Any], ...] = ()
    gate: Mapping[str, Any] = field(default_factory=dict)
    curation: Mapping[str, str] = field(default_factory=dict)
    manifest: str = ""
    created: str = ""
    source: str = ""
    history: tuple[Mapping[str, Any], ...] = ()
    path: Path | None = None

    @property
    def writes(self) -> str:
        """The slug pouring this draft writes."""
        return self.target if self.decision == DraftDecision.EXTENDS and self.target else self.slug

    def to_json(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "title": self.title,
            "description": self.description,
            "body": self.body,
            "type": self.type,
            "tags": list(self.tags),
            "decision": self.decision,
            "target": self.target,
            "kind": self.kind,
            "label": self.label,
            "quotes": [dict(q) for q in self.quotes],
            "gate": dict(self.gate),
            "curation": dict(self.curation),
            "manifest": self.manifest,
            "created": self.created,
            "source": self.source,
            "history": [dict(h) for h in self.history],
        }


# --------------------------------------------------------------------------- paths


def drafts_dir(store: Store) -> Path:
    return store.still / "drafts"


def manifests_dir(store: Store) -> Path:
    return store.still / "manifests"


def draft_path(store: Store, slug: str) -> Path:
    check_slug(slug)
    return drafts_dir(store) / f"{slug}.md"


# --------------------------------------------------------------------------- manifests


def write_manifest(store: Store, payload: Mapping[str, Any]) -> str:
    """Store *payload* as JSON named by its own digest; return 'sha256:<hex>'."""
    data = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(data.encode("utf-8")).hexdigest()
    d = manifests_dir(store)
    p = d / f"{digest}.json"
    try:
        d.mkdir(parents=True, exist_ok=True)
        if not p.exists():
            atomic_write_text(p, data)
    except OSError as exc:
        raise storage_error(exc, "write an evidence manifest", p) from None
    return f"sha256:{digest}"


def read_manifest(store: Store, ref: str) -> dict[str, Any]:
    if (
        not isinstance(ref, str)
        or not ref.startswith("sha256:")
        or not all(c in "0123456789abcdef" for c in ref[7:])
        or len(ref) != 71
    ):
        raise NotFound(f"{ref!r} is not an evidence manifest reference")
    p = manifests_dir(store) / f"{ref[7:]}.json"
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise NotFound(f"evidence manifest {ref} is missing from {manifests_dir(store)}") from None


# --------------------------------------------------------------------------- files


def render_draft(d: Draft) -> str:
    meta: dict[str, Any] = {
        "name": d.slug,
        "description": d.description,
        "metadata": {"type": d.type, "tags": list(d.tags), "evidence_manifest": d.manifest},
    }
    for k in CURATION_FIELDS:
        if d.curation.get(k):
            meta[k] = d.curation[k]
    meta["draft"] = {
        "title": d.title,
        "decision": d.decision,
        "target": d.target,
        "target_digest": d.target_digest,
        "kind": d.kind,
        "label": d.label,
        "created": d.created,
        "source": d.source,
    }
    text = render_memory(meta, d.body)
    lines = [EVIDENCE_OPEN, "Why this draft exists: quotes found verbatim in the journal."]
    for q in d.quotes:
        where = _where(q)
        lines.append(
            f"[{q.get('cls', '?')}] {_one_line(q.get('text', ''))}  ({q.get('status', '?')}{where})"
        )
    g = d.gate or {}
    verdict = g.get("verdict", "?")
    lines.append(
        f"gate: {verdict}" + (f" — {'; '.join(g.get('reasons', []))}" if g.get("reasons") else "")
    )
    if g.get("violations"):
        lines.append(
            "violations: " + "; ".join(Violation.from_json(v).message() for v in g["violations"])
        )
    if g.get("tag_checks"):
        lines.append("tags: " + ", ".join(f"{k} {v}" for k, v in g["tag_checks"].items()))
    payload = {
        "quotes": [dict(q) for q in d.quotes],
        "gate": dict(g),
        "history": [dict(h) for h in d.history],
    }
    lines.append(json.dumps(payload, ensure_ascii=False).replace("-->", "--\\u003e"))
    lines.append(EVIDENCE_CLOSE)
    return text.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n"


def _where(q: Mapping[str, Any]) -> str:
    src = q.get("source")
    if not src:
        return ""
    unit = q.get("unit", "byte")
    span = (
        f"{unit}s {q.get('start')}–{q.get('end')}" if unit == "byte" else f"line {q.get('start')}"
    )
    return f", {Path(str(src)).name} {span}"


def _one_line(s: str) -> str:
    s = " ".join(str(s).split())
    return s.replace("-->", "-- >")


def parse_draft(text: str, path: Path) -> Draft:
    head, sep, tail = text.rpartition(EVIDENCE_OPEN)
    if not sep:
        head, tail = text, ""
    meta, body = split_frontmatter(head)
    payload: dict[str, Any] = {}
    for line in reversed(tail.split("\n")):
        line = line.strip()
        if line.startswith("{"):
            try:
                payload = json.loads(line)
            except ValueError:  # not JSON, or a figure too long for int
                raise MemoryFormatError(f"{path.name}: the evidence comment is damaged") from None
            break
    md = dict_at(meta, "metadata")
    dr = dict_at(meta, "draft")
    slug = path.stem
    tags = md.get("tags") or []
    return Draft(
        slug=slug,
        title=str(dr.get("title") or slug.replace("-", " ")),
        description=" ".join(str(meta.get("description", "")).split()),
        body=body.strip("\n"),
        type=str(md.get("type") or "project"),
        tags=tuple(str(t) for t in tags) if isinstance(tags, list) else (),
        decision=str(dr.get("decision") or "new"),
        target=str(dr.get("target") or ""),
        target_digest=str(dr.get("target_digest") or ""),
        kind=str(dr.get("kind") or "fact"),
        label=str(dr.get("label") or ""),
        quotes=tuple(payload.get("quotes", [])),
        gate=payload.get("gate", {}),
        curation={k: str(meta[k]) for k in CURATION_FIELDS if meta.get(k)},
        manifest=str(md.get("evidence_manifest") or ""),
        created=str(dr.get("created") or ""),
        source=str(dr.get("source") or ""),
        history=tuple(payload.get("history", [])),
        path=path,
    )


def save_draft(store: Store, draft: Draft, *, unique: bool = True) -> Draft:
    """Write *draft*, complete, under its slug. With unique (the default), a slug that is
    taken — by a waiting draft of any run, or for a new memory by the store — gets a -2,
    -3… suffix, and the name is claimed by an exclusive create, so two runs saving drafts
    with one title at the same instant each keep their own. Without unique, the draft at
    that slug is replaced. Raises StorageError (nothing saved) when the disk refuses."""
    d = drafts_dir(store)
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise storage_error(exc, f"save the draft {draft.slug!r}", d) from None
    sweep_dead_temps(d)
    if not unique:
        path = d / f"{draft.slug}.md"
        draft = replace(draft, path=path)
        try:
            atomic_write_text(path, render_draft(draft))
        except OSError as exc:
            raise storage_error(exc, f"save the draft {draft.slug!r}", path) from None
        return draft
    base, n = draft.slug, 2
    slug = base
    while True:
        if not (draft.decision == DraftDecision.NEW and store.has(slug)):
            path = d / f"{slug}.md"
            placed = replace(draft, slug=slug, path=path)
            try:
                create_exclusive(path, render_draft(placed).encode("utf-8"))
                return placed
            except FileExistsError:
                pass  # another run holds this name: take the next
            except OSError as exc:
                raise storage_error(exc, f"save the draft {slug!r}", path) from None
        slug = f"{base}-{n}"
        n += 1


def list_drafts(store: Store) -> list[Draft]:
    """Waiting drafts, oldest first. A draft that cannot be parsed is skipped here and
    reported by :func:`draft_problems`; a draft whose memory is already in the store (a
    pour interrupted before the draft was removed) is not waiting, and is not listed."""
    out = []
    for p in _draft_files(store):
        try:
            d = parse_draft(p.read_text(encoding="utf-8"), p)
        except (MemoryFormatError, UnicodeDecodeError, OSError):
            continue
        if not is_poured(store, d):
            out.append(d)
    out.sort(key=lambda d: (d.created, d.slug))
    return out


def draft_problems(store: Store) -> list[tuple[str, str]]:
    bad = []
    for p in _draft_files(store):
        try:
            parse_draft(p.read_text(encoding="utf-8"), p)
        except (MemoryFormatError, UnicodeDecodeError) as exc:
            bad.append((p.name, str(exc)))
    return bad


def _draft_files(store: Store) -> list[Path]:
    d = drafts_dir(store)
    if not d.is_dir():
        return []
    return sorted(
        p
        for p in d.iterdir()
        if p.suffix == ".md" and not is_temp_name(p.name) and not p.is_symlink() and p.is_file()
    )


def read_draft(store: Store, slug: str) -> Draft:
    p = draft_path(store, slug)
    if p.is_symlink():
        raise NotFound(f"no draft {slug!r}")
    try:
        return parse_draft(p.read_text(encoding="utf-8"), p)
    except FileNotFoundError:
        raise NotFound(f"no draft {slug!r} waiting in store {store.name!r}") from None


# --------------------------------------------------------------------------- the floor


def evidence_of(store: Store, draft: Draft) -> tuple[list[Any], Any, list[str]]:
    """What vouches for a draft: the segments its quotes were found in (to show a model),
    the floors' :class:`~kura_core.floors.Evidence` as the gate saw it (store echoes and the
    agent's repeated words already removed), and the text of the memory an extension
    rewrites (which may stand as it is)."""

    segs: list[Any] = []
    man: Mapping[str, Any] = {}
    if draft.manifest:
        try:
            man = read_manifest(store, draft.manifest)
        except NotFound:
            man = {}
    given: list[str] = []
    for s in man.get("segments", []):
        seg = Segment(
            cls=s["cls"],
            text=s["text"],
            source=s.get("source", ""),
            start=int(s.get("start", 0)),
            end=int(s.get("end", 0)),
            unit=s.get("unit", "byte"),
        )
        if seg.source.startswith("memory:"):
            given.append(seg.text)
        else:
            segs.append(seg)
    if "evidence" in man:
        ev = Evidence.from_json(man["evidence"])
    else:  # a manifest from before the floors kept their evidence: whole segments
        by_place = {(s.source, s.start): s for s in segs}
        quotes = []
        for q in draft.quotes:
            if q.get("status") != "verified":
                continue
            found = by_place.get((q.get("source"), q.get("start")))
            quotes.append(
                (
                    str(q.get("cls")),
                    str(q.get("text", "")),
                    found.text if found else str(q.get("text", "")),
                )
            )
        ev = Evidence.of(((s.cls, s.text) for s in segs), quotes)
    return segs, ev, given


def check_floor(
    reg: Registry, name: str, draft: Draft, *, tags_before: Sequence[str] = ()
) -> list[Any]:
    """The final floor on what a draft would store: shape, disguise, numbers, attribution,
    links, tags -- the same floors the gate ran (:mod:`kura_core.floors`)."""

    store = reg.store(name)
    _segs, ev, given = evidence_of(store, draft)
    fields = {
        "title": draft.title,
        "description": draft.description,
        "body": draft.body,
        **{k: draft.curation.get(k, "") for k in CURATION_FIELDS},
    }
    existing = set(store.file_slugs())
    existing.add(draft.writes)
    names = reg.config.stores[name].distill.human_names
    source = "\n".join([*(text for _cls, text in ev.segments), *given])
    return (
        check_surface(fields, ev, human_names=names, existing_slugs=existing, given=given)
        + check_tags(list(draft.tags), ev, allowed=tags_before, human_names=names)
        + kura_message_violations(fields, source=source)
    )


def body_digest(text: str) -> str:
    """The short digest an extension draft keeps of its target's body."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# --------------------------------------------------------------------------- actions


def is_poured(store: Store, draft: Draft) -> bool:
    """Whether the memory this draft writes is already in the store with its evidence
    and body: the draft was poured, and only its removal is missing."""
    writes = draft.writes
    if not draft.manifest or not store.has(writes):
        return False
    try:
        current = store.read(writes)
    except KuraError:
        return False
    md = dict_at(current.meta, "metadata")
    return (
        md.get("evidence_manifest") == draft.manifest and current.body.strip() == draft.body.strip()
    )


def draft_key(draft: Draft) -> str:
    """The identity of one draft over its life (a fix keeps it): slug, evidence, birth."""
    return f"{draft.slug}|{draft.manifest}|{draft.created}"


def _rel(store: Store, draft: Draft) -> str:
    return f"drafts/{draft.slug}.md"


def _poured_row(reg: Registry, draft: Draft, by: str) -> dict[str, Any]:
    return {
        "kind": GateLogKind.POURED,
        "title": draft.title,
        "slug": draft.writes,
        "reason": f"poured by {by}",
        "detail": {
            "manifest": draft.manifest,
            "decision": draft.decision,
            "by": by,
            "draft": draft.slug,
        },
        "key": "poured:" + draft_key(draft),
        "at": reg.clock(),
    }


def _finish_pour(reg: Registry, store: Store, draft: Draft, by: str) -> None:
    """A draft already poured: record the pour (once) and remove the draft."""
    store.settle(
        {"log": _poured_row(reg, draft, by), "remove": _rel(store, draft)},
        f"finish pouring the draft {draft.slug!r}",
    )


def finish_pours(reg: Registry, selector: str | None) -> list[str]:
    """Finish every pour a crash interrupted between the memory and the draft's removal:
    log it once and remove the draft. Returns the drafts finished."""
    name = reg.resolve(selector)
    store = reg.store(name)
    done = []
    with store.locked("finish interrupted pours"):
        store._recover_locked(settle=True)
        for p in _draft_files(store):
            try:
                d = parse_draft(p.read_text(encoding="utf-8"), p)
            except (MemoryFormatError, UnicodeDecodeError, OSError):
                continue
            if is_poured(store, d):
                _finish_pour(reg, store, d, "the next reader")
                done.append(d.slug)
    return done


@contextlib.contextmanager
def claimed(store: Store, slug: str) -> Iterator[bool]:
    """Hold a claim on judging one draft: True when this caller has it, False when
    another process or thread is judging it now. A dead holder's claim is free at once."""
    check_slug(slug)
    d = store.still / "claims"
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise storage_error(exc, f"claim the draft {slug!r} for judging", d) from None
    path = d / f"{slug}.lock"
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        except OSError as exc:
            raise storage_error(exc, f"claim the draft {slug!r} for judging", path) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            yield False
            return
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)  # the holder removed it as we opened it: open the new one
    try:
        yield True
    finally:
        discard(path)
        os.close(fd)


def pour(reg: Registry, selector: str | None, slug: str, *, by: str = "hand") -> Memory:
    """Write the draft's memory and index line atomically, log it and remove the draft —
    one intent, so a crash at any point is finished (and logged once) by the next reader."""
    name = reg.resolve(selector)
    store = reg.store(name)
    if reg.config.stores[name].write_policy == WritePolicy.FROZEN:
        raise PolicyError(f"store {name!r} is frozen: nothing is poured into it")
    ws = reg.workshop(name)
    with store.locked(f"pour the draft {slug!r}"):
        store._recover_locked(settle=True)
        draft = read_draft(store, slug)
        writes = draft.writes
        if store.has(writes):
            current = store.read(writes)
            if is_poured(store, draft):  # a pour that crashed after writing the memory: finish it
                _finish_pour(reg, store, draft, by)
                return current
            if draft.decision == DraftDecision.NEW:
                raise ConflictError(
                    f"a memory {writes!r} already exists; rename the draft (fix its slug) or toss it"
                )
            if draft.target_digest and body_digest(current.body) != draft.target_digest:
                raise ConflictError(
                    f"{writes!r} changed after this extension was drafted; toss the draft or edit it "
                    "against the current memory"
                )
        elif draft.decision == DraftDecision.EXTENDS:
            raise ConflictError(f"this draft extends {writes!r}, which no longer exists; toss it")
        violations = check_floor(reg, name, draft, tags_before=_tags_at_compose(store, draft))
        if violations:
            ws.log_gate(
                GateLogKind.REFUSED,
                title=draft.title,
                slug=slug,
                reason="; ".join(str(v) for v in violations),
                detail={"at": "pour", "by": by, "violations": [v.to_json() for v in violations]},
            )
            raise FloorRefused(violations)
        tags = list(draft.tags)
        if draft.label == ClaimKind.JUDGEMENT and "judgement" not in tags:
            tags.append("judgement")
        before = store.read(writes).meta if store.has(writes) else {}
        curation = {k: draft.curation.get(k) or before.get(k) for k in CURATION_FIELDS}
        meta: dict[str, Any] = {
            "metadata": {
                "evidence_manifest": draft.manifest,
                "evidence_seal": seal_of(draft.body, curation),
                "hand_edited": None,
            }
        }
        meta.update({k: v for k, v in draft.curation.items() if v})
        return store.write(
            writes,
            title=draft.title,
            description=draft.description,
            body=draft.body,
            type=draft.type,
            tags=tags,
            meta=meta,
            also={"log": _poured_row(reg, draft, by), "remove": _rel(store, draft)},
        )


def toss(reg: Registry, selector: str | None, slug: str, reason: str, *, by: str = "hand") -> None:
    """Remove a draft; the gate log keeps it whole, with the reason. The row and the removal
    are one intent. A draft already poured is never tossed: its pour is finished instead."""
    reason = " ".join((reason or "").split())
    if not reason:
        raise KuraError("say why the draft is tossed: the reason is kept in the gate log")
    name = reg.resolve(selector)
    store = reg.store(name)
    with store.locked(f"toss the draft {slug!r}"):
        store._recover_locked(settle=True)
        draft = read_draft(store, slug)
        if is_poured(store, draft):
            _finish_pour(reg, store, draft, "the next reader")
            raise ConflictError(
                f"the draft {slug!r} was already poured into {draft.writes!r}; "
                "it was not tossed (edit or remove the memory itself instead)"
            )
        text = draft.path.read_text(encoding="utf-8") if draft.path else ""
        row = {
            "kind": GateLogKind.TOSSED,
            "title": draft.title,
            "slug": slug,
            "reason": reason,
            "detail": {"by": by, "draft": text, "manifest": draft.manifest},
            "key": "tossed:" + draft_key(draft),
            "at": reg.clock(),
        }
        store.settle({"log": row, "remove": _rel(store, draft)}, f"toss the draft {slug!r}")


def _file_of(draft: Draft) -> Path:
    """The file of a draft read from disk (every draft that was read knows it)."""
    if draft.path is None:
        raise NotFound(f"the draft {draft.slug!r} was never saved; there is nothing to change")
    return draft.path


def fix(
    reg: Registry,
    selector: str | None,
    slug: str,
    *,
    title: str | None = None,
    description: str | None = None,
    body: str | None = None,
    tags: Sequence[str] | None = None,
    by: str = "hand",
    reason: str = "",
    keep_marks: bool = False,
) -> Draft:
    """Edit a draft. The floor runs again; a violation leaves the draft as it was.

    With *keep_marks* (a model's fix), each changed field must also keep the negations and
    the ⚠️ of what it replaces and add none: a fix rewords, it never flips what was said.
    """
    name = reg.resolve(selector)
    store = reg.store(name)
    with store.locked(f"fix the draft {slug!r}"):
        store._recover_locked(settle=True)
        draft = read_draft(
            store, slug
        )  # under the lock: a draft poured meanwhile is not brought back
        if is_poured(store, draft):
            _finish_pour(reg, store, draft, "the next reader")
            raise ConflictError(f"the draft {slug!r} was already poured into {draft.writes!r}")
        new = replace(
            draft,
            title=draft.title if title is None else " ".join(title.split()),
            description=draft.description if description is None else " ".join(description.split()),
            body=draft.body if body is None else body.strip("\n"),
            tags=draft.tags if tags is None else tuple(tags),
        )
        if not new.description or not new.body.strip():
            raise KuraError("a draft needs a description and a body")
        violations = check_floor(reg, name, new, tags_before=draft.tags)
        if keep_marks:
            violations += marks_dropped(draft, new)
        ws = reg.workshop(name)
        if violations:
            ws.log_gate(
                GateLogKind.REFUSED,
                title=new.title,
                slug=slug,
                reason="; ".join(str(v) for v in violations),
                detail={"at": "fix", "by": by, "violations": [v.to_json() for v in violations]},
            )
            raise FloorRefused(violations)
        entry = {
            "at": dt.datetime.fromtimestamp(reg.clock()).isoformat(timespec="seconds"),
            "by": by,
            "reason": reason,
        }
        new = replace(new, history=(*draft.history, entry))
        path = _file_of(draft)
        try:
            atomic_write_text(path, render_draft(new))
        except OSError as exc:
            raise storage_error(exc, f"fix the draft {slug!r}", path) from None
        ws.log_gate(
            GateLogKind.FIXED,
            title=new.title,
            slug=slug,
            reason=reason or f"edited by {by}",
            detail={"by": by},
        )
    return new


def marks_dropped(before: Draft, after: Draft) -> list[Violation]:
    """The negations and ⚠️ marks a rewrite of *before* dropped or added, field by field."""
    out: list[Violation] = []
    for name in ("title", "description", "body"):
        old, new = getattr(before, name), getattr(after, name)
        if new == old or not old:
            continue
        for v in check_rewrite(new, old, field_name=name, keep_from=old):
            if v.kind in (NEGATION, MARK):
                out.append(v)
    return out


def _tags_at_compose(store: Store, draft: Draft) -> tuple[str, ...]:
    """Tags the distiller itself gave the draft (e.g. `judgement`), which a pour accepts."""
    tags = ["judgement"] if draft.label == ClaimKind.JUDGEMENT else []
    if draft.decision == DraftDecision.EXTENDS and store.has(draft.target):
        tags += list(store.read(draft.target).tags)
    return tuple(tags)
