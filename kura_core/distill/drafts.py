"""Drafts: what the distiller wants to write, waiting in `_still/drafts/`.

A draft is a Markdown file shaped like the memory it would become, followed by an HTML
comment that carries its evidence — each quote with its class and where in the journal
it came from, and the gate's verdicts — so a person can always see why it exists. The
full evidence (every segment a quote was found in) lives in a content-addressed
manifest under `_still/manifests/`.

Nothing here writes to the store except :func:`pour`, and pour runs the same final
floor (numbers, attribution, links) that composing did, so an edit can never smuggle
an unvouched number in.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..errors import ConflictError, KuraError, MemoryFormatError, NotFound
from ..fsutil import atomic_write_text, is_temp_name
from ..registry import Registry
from ..store import Memory, Store, check_slug, render_memory, seal_of, split_frontmatter

EVIDENCE_OPEN = "<!-- kura:evidence"
EVIDENCE_CLOSE = "-->"
CURATION = ("belongs_because", "keep", "may_fade")


class FloorRefused(KuraError):
    """An edit or a pour would store something the evidence does not vouch for."""

    status = 422

    def __init__(self, violations: Sequence[str]):
        self.violations = list(violations)
        super().__init__("refused by the floor: " + "; ".join(self.violations))


@dataclass(frozen=True)
class Draft:
    slug: str
    title: str
    description: str
    body: str
    type: str = "project"
    tags: tuple[str, ...] = ()
    decision: str = "new"           # "new" | "extends"
    target: str = ""                # the memory an extension rewrites
    target_digest: str = ""         # sha256 of the target's body when the draft was composed
    kind: str = "fact"              # fact | judgement
    label: str = ""                 # "judgement" when only the agent's own words vouch for it
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
        return self.target if self.decision == "extends" and self.target else self.slug

    def to_json(self) -> dict[str, Any]:
        return {
            "slug": self.slug, "title": self.title, "description": self.description,
            "body": self.body, "type": self.type, "tags": list(self.tags),
            "decision": self.decision, "target": self.target, "kind": self.kind,
            "label": self.label, "quotes": [dict(q) for q in self.quotes],
            "gate": dict(self.gate), "curation": dict(self.curation), "manifest": self.manifest,
            "created": self.created, "source": self.source, "history": [dict(h) for h in self.history],
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
    d.mkdir(parents=True, exist_ok=True)
    p = d / f"{digest}.json"
    if not p.exists():
        atomic_write_text(p, data)
    return f"sha256:{digest}"


def read_manifest(store: Store, ref: str) -> dict[str, Any]:
    if not isinstance(ref, str) or not ref.startswith("sha256:") or not all(
            c in "0123456789abcdef" for c in ref[7:]) or len(ref) != 71:
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
    for k in CURATION:
        if d.curation.get(k):
            meta[k] = d.curation[k]
    meta["draft"] = {
        "title": d.title, "decision": d.decision, "target": d.target,
        "target_digest": d.target_digest, "kind": d.kind, "label": d.label,
        "created": d.created, "source": d.source,
    }
    text = render_memory(meta, d.body)
    lines = [EVIDENCE_OPEN, "Why this draft exists: quotes found verbatim in the journal."]
    for q in d.quotes:
        where = _where(q)
        lines.append(f"[{q.get('cls', '?')}] {_one_line(q.get('text', ''))}  ({q.get('status', '?')}{where})")
    g = d.gate or {}
    verdict = g.get("verdict", "?")
    lines.append(f"gate: {verdict}" + (f" — {'; '.join(g.get('reasons', []))}" if g.get("reasons") else ""))
    if g.get("violations"):
        lines.append("violations: " + "; ".join(g["violations"]))
    if g.get("tag_checks"):
        lines.append("tags: " + ", ".join(f"{k} {v}" for k, v in g["tag_checks"].items()))
    payload = {"quotes": [dict(q) for q in d.quotes], "gate": dict(g), "history": [dict(h) for h in d.history]}
    lines.append(json.dumps(payload, ensure_ascii=False).replace("-->", "--\\u003e"))
    lines.append(EVIDENCE_CLOSE)
    return text.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n"


def _where(q: Mapping[str, Any]) -> str:
    src = q.get("source")
    if not src:
        return ""
    unit = q.get("unit", "byte")
    span = f"{unit}s {q.get('start')}–{q.get('end')}" if unit == "byte" else f"line {q.get('start')}"
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
            except json.JSONDecodeError:
                raise MemoryFormatError(f"{path.name}: the evidence comment is damaged") from None
            break
    md = meta.get("metadata") if isinstance(meta.get("metadata"), dict) else {}
    dr = meta.get("draft") if isinstance(meta.get("draft"), dict) else {}
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
        curation={k: str(meta[k]) for k in CURATION if meta.get(k)},
        manifest=str(md.get("evidence_manifest") or ""),
        created=str(dr.get("created") or ""),
        source=str(dr.get("source") or ""),
        history=tuple(payload.get("history", [])),
        path=path,
    )


def save_draft(store: Store, draft: Draft, *, unique: bool = True) -> Draft:
    """Write *draft* atomically. With unique, a taken slug gets a -2, -3… suffix."""
    d = drafts_dir(store)
    d.mkdir(parents=True, exist_ok=True)
    slug = draft.slug
    if unique:
        base, n = slug, 2
        while (d / f"{slug}.md").exists() or (draft.decision == "new" and store.has(slug)):
            slug = f"{base}-{n}"
            n += 1
    draft = replace(draft, slug=slug, path=d / f"{slug}.md")
    atomic_write_text(draft.path, render_draft(draft))
    return draft


def list_drafts(store: Store) -> list[Draft]:
    """Waiting drafts, oldest first. A draft that cannot be parsed is skipped here and
    reported by :func:`draft_problems`."""
    out = []
    for p in _draft_files(store):
        try:
            out.append(parse_draft(p.read_text(encoding="utf-8"), p))
        except (MemoryFormatError, UnicodeDecodeError, OSError):
            continue
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
    return sorted(p for p in d.iterdir() if p.suffix == ".md" and not is_temp_name(p.name)
                  and not p.is_symlink() and p.is_file())


def read_draft(store: Store, slug: str) -> Draft:
    p = draft_path(store, slug)
    if p.is_symlink():
        raise NotFound(f"no draft {slug!r}")
    try:
        return parse_draft(p.read_text(encoding="utf-8"), p)
    except FileNotFoundError:
        raise NotFound(f"no draft {slug!r} waiting in store {store.name!r}") from None


# --------------------------------------------------------------------------- the floor

def evidence_of(store: Store, draft: Draft) -> tuple[list[Any], bool]:
    """The segments that vouch for a draft, and whether a USER quote survived."""
    from .evidence import Segment

    segs: list[Any] = []
    if draft.manifest:
        try:
            man = read_manifest(store, draft.manifest)
        except NotFound:
            man = {}
        for s in man.get("segments", []):
            segs.append(Segment(cls=s["cls"], text=s["text"], source=s.get("source", ""),
                                start=int(s.get("start", 0)), end=int(s.get("end", 0)),
                                unit=s.get("unit", "byte")))
    has_user = any(q.get("cls") == "USER" and q.get("status") == "verified" for q in draft.quotes)
    return segs, has_user


def check_floor(reg: Registry, name: str, draft: Draft, *, tags_before: Sequence[str] = ()) -> list[str]:
    """The final floor on what a draft would store: numbers, attribution, links, tags."""
    from .gate import floor, tag_violations

    store = reg.store(name)
    segs, has_user = evidence_of(store, draft)
    fields = {"title": draft.title, "description": draft.description, "body": draft.body,
              **{k: draft.curation.get(k, "") for k in CURATION}}
    existing = set(store.file_slugs())
    existing.add(draft.writes)
    classes = {str(q.get("cls")) for q in draft.quotes if q.get("status") == "verified"}
    return floor(fields, segs, has_user_quote=has_user,
                 human_names=reg.config.stores[name].distill.human_names, existing_slugs=existing) \
        + tag_violations(draft.tags, classes, allowed=tags_before)


def body_digest(text: str) -> str:
    """The short digest an extension draft keeps of its target's body."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# --------------------------------------------------------------------------- actions

def pour(reg: Registry, selector: str | None, slug: str, *, by: str = "hand") -> Memory:
    """Write the draft's memory and index line atomically, then remove the draft."""
    name = reg.resolve(selector)
    store = reg.store(name)
    if reg.config.stores[name].write_policy == "frozen":
        from ..errors import PolicyError

        raise PolicyError(f"store {name!r} is frozen: nothing is poured into it")
    draft = read_draft(store, slug)
    ws = reg.workshop(name)
    writes = draft.writes
    if store.has(writes):
        current = store.read(writes)
        already = (current.meta.get("metadata") or {}).get("evidence_manifest") == draft.manifest \
            and current.body.strip() == draft.body.strip()
        if already:  # a pour that crashed after writing the memory: finish it
            _remove(draft)
            return current
        if draft.decision == "new":
            raise ConflictError(
                f"a memory {writes!r} already exists; rename the draft (fix its slug) or toss it")
        if draft.target_digest and body_digest(current.body) != draft.target_digest:
            raise ConflictError(
                f"{writes!r} changed after this extension was drafted; toss the draft or edit it "
                "against the current memory")
    elif draft.decision == "extends":
        raise ConflictError(f"this draft extends {writes!r}, which no longer exists; toss it")
    violations = check_floor(reg, name, draft, tags_before=_tags_at_compose(store, draft))
    if violations:
        ws.log_gate("refused", title=draft.title, slug=slug, reason="; ".join(violations),
                    detail={"at": "pour", "by": by})
        raise FloorRefused(violations)
    tags = list(draft.tags)
    if draft.label == "judgement" and "judgement" not in tags:
        tags.append("judgement")
    before = store.read(writes).meta if store.has(writes) else {}
    curation = {k: draft.curation.get(k) or before.get(k) for k in CURATION}
    meta: dict[str, Any] = {"metadata": {"evidence_manifest": draft.manifest,
                                         "evidence_seal": seal_of(draft.body, curation),
                                         "hand_edited": None}}
    meta.update({k: v for k, v in draft.curation.items() if v})
    mem = store.write(writes, title=draft.title, description=draft.description, body=draft.body,
                      type=draft.type, tags=tags, meta=meta)
    ws.log_gate("poured", title=draft.title, slug=writes, reason=f"poured by {by}",
                detail={"manifest": draft.manifest, "decision": draft.decision, "by": by})
    _remove(draft)
    return mem


def toss(reg: Registry, selector: str | None, slug: str, reason: str, *, by: str = "hand") -> None:
    """Remove a draft; the gate log keeps it whole, with the reason."""
    reason = " ".join((reason or "").split())
    if not reason:
        raise KuraError("say why the draft is tossed: the reason is kept in the gate log")
    name = reg.resolve(selector)
    store = reg.store(name)
    draft = read_draft(store, slug)
    text = draft.path.read_text(encoding="utf-8") if draft.path else ""
    reg.workshop(name).log_gate("tossed", title=draft.title, slug=slug, reason=reason,
                                detail={"by": by, "draft": text, "manifest": draft.manifest})
    _remove(draft)


def fix(reg: Registry, selector: str | None, slug: str, *, title: str | None = None,
        description: str | None = None, body: str | None = None, tags: Sequence[str] | None = None,
        by: str = "hand", reason: str = "") -> Draft:
    """Edit a draft. The floor runs again; a violation leaves the draft as it was."""
    name = reg.resolve(selector)
    store = reg.store(name)
    draft = read_draft(store, slug)
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
    ws = reg.workshop(name)
    if violations:
        ws.log_gate("refused", title=new.title, slug=slug, reason="; ".join(violations),
                    detail={"at": "fix", "by": by})
        raise FloorRefused(violations)
    entry = {"at": dt.datetime.fromtimestamp(reg.clock()).isoformat(timespec="seconds"), "by": by, "reason": reason}
    new = replace(new, history=(*draft.history, entry))
    atomic_write_text(draft.path, render_draft(new))
    ws.log_gate("fixed", title=new.title, slug=slug, reason=reason or f"edited by {by}", detail={"by": by})
    return new


def _tags_at_compose(store: Store, draft: Draft) -> tuple[str, ...]:
    """Tags the distiller itself gave the draft (e.g. `judgement`), which a pour accepts."""
    tags = ["judgement"] if draft.label == "judgement" else []
    if draft.decision == "extends" and store.has(draft.target):
        tags += list(store.read(draft.target).tags)
    return tuple(tags)


def _remove(draft: Draft) -> None:
    if draft.path is not None:
        try:
            os.unlink(draft.path)
        except FileNotFoundError:
            pass
