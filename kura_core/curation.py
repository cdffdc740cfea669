"""Curation on the direct doors: tags and the three sentences, through the floors.

A memory's curation says why it belongs to this store (``belongs_because``), what meaning
must outlive any later shortening (``keep``) and what detail may fade (``may_fade``), and
carries tags that describe it. The distiller proposes curation from the transcript and the
gate judges it. A direct write (``kura remember``, ``POST /remember``, ``kura_remember``)
and ``kura annotate`` may set the same fields; they go through the same floors, from
:func:`curation_violations`, the one place that asks the floors about curation.

What vouches for a curation sentence on a direct write (docs/DESIGN.md, "Curation on the
direct doors"):

* the memory's own text (its description and body) vouches for numbers: a curation
  sentence may repeat a figure the memory states, never bring a new one;
* an attribution to the human ("the user wants…") needs a USER segment in the memory's
  evidence manifest, unless the memory's own text already makes that same attribution;
* tags that claim something about the human need their kind of segment in the manifest;
  a memory with no manifest (a direct write) has none, so those tags are refused there;
* ``[[links]]`` must name a memory of this store.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Container, Mapping, Sequence

from .errors import KuraError
from .store import Memory, Store

#: The three curation sentences, in the order they are written.
CURATION_KEYS = ("belongs_because", "keep", "may_fade")
#: How long one curation sentence may be (it is a sentence, not a second body).
MAX_SENTENCE_CHARS = 600


class CurationRefused(KuraError):
    """Curation that the floors refuse; ``violations`` lists each reason."""

    status = 422

    def __init__(self, violations: Sequence[str]):
        self.violations = tuple(violations)
        super().__init__("curation refused by the floors: " + "; ".join(self.violations)
                         + ". Fix or leave out what is named; nothing was written")


@dataclass(frozen=True)
class Curation:
    """What a direct door asks to set. ``None`` leaves a field as it is; "" clears it."""

    belongs_because: str | None = None
    keep: str | None = None
    may_fade: str | None = None

    def given(self) -> dict[str, str]:
        return {k: v for k, v in ((k, getattr(self, k)) for k in CURATION_KEYS) if v is not None}

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> "Curation":
        """Curation fields of a request body; anything but a string is refused by name."""
        out: dict[str, str | None] = {}
        for k in CURATION_KEYS:
            v = raw.get(k)
            if v is None:
                continue
            if not isinstance(v, str):
                raise KuraError(f"{k} must be a string (one sentence)")
            out[k] = v
        return cls(**out)


def vouching_segments(store: Store, memory_text: str, manifest_ref: Any) -> list[Any]:
    """What vouches for curation on a memory: its own text, and its manifest's segments."""
    from .distill.evidence import Segment

    segs = [Segment("MEMORY", memory_text, "memory", 0, 0, "seq")] if memory_text.strip() else []
    if isinstance(manifest_ref, str) and manifest_ref.startswith("sha256:"):
        from .distill.drafts import read_manifest
        from .errors import NotFound

        try:
            payload = read_manifest(store, manifest_ref)
        except NotFound:
            payload = {}
        for s in payload.get("segments", []) or []:
            if isinstance(s, dict) and isinstance(s.get("text"), str) and isinstance(s.get("cls"), str):
                segs.append(Segment(s["cls"], s["text"], str(s.get("source", "")),
                                    int(s.get("start") or 0), int(s.get("end") or 0),
                                    str(s.get("unit") or "byte")))
    return segs


def curation_violations(
    sentences: Mapping[str, str],
    tags: Sequence[str],
    *,
    vouching: Sequence[Any],
    human_names: Sequence[str] = (),
    existing_slugs: Container[str] | None = None,
    allowed_tags: Sequence[str] = (),
) -> list[str]:
    """Why curation may not stand (empty: it may), by the same floors as distilled text.

    *vouching* are the segments that vouch for it (:func:`vouching_segments`): the memory's
    own text (class ``MEMORY``) and its evidence manifest's segments. *allowed_tags* are
    tags the memory already carries (kept as they are).
    """
    from .distill.evidence import strip_invisible
    from .distill.gate import attribution_claims, floor, tag_violations

    out: list[str] = []
    fields = {k: v for k, v in sentences.items() if isinstance(v, str) and v}
    for k, v in fields.items():
        if strip_invisible(v) != v:
            out.append(f"{k} holds invisible or bidirectional control characters")
        if "\n" in v.strip() or "\r" in v:
            out.append(f"{k} must be one sentence on one line")
        if len(v) > MAX_SENTENCE_CHARS:
            out.append(f"{k} is {len(v)} characters; keep it under {MAX_SENTENCE_CHARS}")
    has_user = any(getattr(s, "cls", "") == "USER" for s in vouching)
    out += floor(fields, list(vouching), has_user_quote=True, human_names=human_names,
                 existing_slugs=existing_slugs)
    if not has_user:
        own = " ".join(s.text for s in vouching if getattr(s, "cls", "") == "MEMORY")
        already = set(attribution_claims(own, human_names)) if own else set()
        for k, v in fields.items():
            for claim in attribution_claims(v, human_names):
                if claim not in already:
                    out.append(f'attribution "{claim}" needs a USER segment in the memory\'s '
                               f"evidence, and this memory has none ({k})")
    for t in tags:
        if isinstance(t, str) and strip_invisible(t) != t:
            out.append(f"tag {t[:40]!r} holds invisible or bidirectional control characters")
    classes = {s.cls for s in vouching if getattr(s, "cls", "") in ("USER", "TOOL", "ACT", "SELF")}
    for v in tag_violations(list(tags), classes, allowed=list(allowed_tags)):
        if "needs a surviving" in v and not classes:
            v += " (a direct write has no evidence manifest: leave the tag off, or let the distiller propose it)"
        out.append(v)
    return list(dict.fromkeys(out))


def check_curation(store: Store, *, slug: str, description: str, body: str, manifest_ref: Any,
                   sentences: Mapping[str, str], tags: Sequence[str],
                   allowed_tags: Sequence[str] = (), human_names: Sequence[str] = ()) -> None:
    """Raise CurationRefused when the floors refuse this curation of memory *slug*."""
    if not any(v for v in sentences.values()) and not tags:
        return
    vouching = vouching_segments(store, f"{description}\n{body}", manifest_ref)
    existing = set(store.file_slugs()) | {slug}
    bad = curation_violations(sentences, tags, vouching=vouching, human_names=human_names,
                              existing_slugs=existing, allowed_tags=allowed_tags)
    if bad:
        raise CurationRefused(bad)


def manifest_of(mem: Memory) -> Any:
    md = mem.meta.get("metadata") if isinstance(mem.meta.get("metadata"), Mapping) else {}
    return md.get("evidence_manifest")
