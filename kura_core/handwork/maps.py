"""The map as a person reads it, and a weave previewed before it is written."""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ConflictError
from ..fsutil import atomic_write_text, storage_error
from ..prefill import build_prefill
from ..registry import Registry
from ..resident import TRAIL_FILE, read_text, trail_file_text, trail_lines
from ..store import parse_index
from ..weave import ages, read_cloth, trimmed_away, weave
from .memories import check_writable

if TYPE_CHECKING:
    from ..weave import WeaveResult

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
    sector: str = ""  # the ``## `` heading it stands under in MEMORY.md
    grouped: bool = False  # named by a line that names several memories (worn as written)


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

    out: dict[str, str] = {}
    for e in parse_index(cloth).entries:
        out.setdefault(e.slug, e.description)
    return out


def map_view(reg: Registry, name: str) -> MapView:

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
                sector=e.sector,
                grouped=e.grouped,
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
    trimmed: tuple[str, ...] = ()  # what a trimmed line left out of its description


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

    current = map_view(reg, name)
    res = weave(reg, name, write=False, ask=True)
    before = {ln.slug: ln.text for ln in current.lines}
    after_slugs = set()
    changes = []
    entries = reg.store(name).index().by_slug()
    for layer, slug, text in res.lines:
        after_slugs.add(slug)
        entry = entries.get(slug)
        cut = trimmed_away(entry.description, text) if entry else ()
        if slug not in before:
            changes.append(MapChange(slug, "added", layer, "", text, cut))
        else:
            kind = "same" if before[slug] == text else "changed"
            changes.append(MapChange(slug, kind, layer, before[slug], text, cut))
    for ln in current.lines:
        if ln.slug not in after_slugs:
            changes.append(MapChange(ln.slug, "removed", ln.layer, ln.text, ""))
    return WeavePreview(
        name, current.source, current.stale, current.tokens_est, res, tuple(changes)
    )


def weave_write(reg: Registry, name: str, *, index_sha256: str) -> WeaveResult:
    """Write the map a preview showed. Refused when the index changed since the preview."""

    check_writable(reg, name, "woven")
    store = reg.store(name)
    now = hashlib.sha256(store.index_text().encode("utf-8")).hexdigest()
    if index_sha256 and now != index_sha256:
        raise ConflictError(
            "the index changed since the preview (a pour, a tidy or a hand edit): "
            "preview the weave again"
        )
    return weave(reg, name)


# =========================================================================== the hot trail


@dataclass(frozen=True)
class TrailResult:
    """The hot trail rebuilt: its lines, and whether ``_still/trail.md`` changed."""

    store: str
    lines: tuple[str, ...]
    changed: bool
    path: str

    def to_json(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "lines": list(self.lines),
            "changed": self.changed,
            "path": self.path,
        }


def build_trail(reg: Registry, name: str) -> TrailResult:
    """Rebuild store *name*'s hot trail from its index as it stands; write
    ``_still/trail.md`` only when it differs (``changed``)."""
    store = reg.store(name)
    cfg = reg.spec(name).prefill
    text = store.index_text()
    scan = store.scan()
    today = reg.today()
    age_of, _ = ages(scan.memories, today)
    dated = {
        slug: (today - dt.timedelta(days=age) if age is not None else None)
        for slug, age in age_of.items()
    }
    lines = trail_lines(parse_index(text), dated, cfg.trail_tokens) if cfg.trail_tokens else []
    body = trail_file_text(text, lines)
    path = store.still / TRAIL_FILE
    changed = read_text(path) != body
    if changed:
        with store.locked(f"write the hot trail of store {name!r}"):
            try:
                atomic_write_text(path, body)
            except OSError as exc:
                raise storage_error(exc, "write the hot trail", path) from None
    return TrailResult(name, tuple(lines), changed, str(path))
