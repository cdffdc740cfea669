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

from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .distill.drafts import read_manifest
from .errors import KuraError, NotFound
from .floors import SHAPE, Evidence, Violation, check_surface, check_tags
from .store import Memory, Store
from .vocabulary import CURATION_FIELDS

#: The three curation sentences, in the order they are written.
#: How long one curation sentence may be (it is a sentence, not a second body).
MAX_SENTENCE_CHARS = 600


class CurationRefused(KuraError):
    """Curation that the floors refuse; ``violations`` lists each reason (structured
    :class:`~kura_core.floors.Violation` values)."""

    status = 422

    def __init__(self, violations: Sequence[Any]):
        self.violations = tuple(violations)
        super().__init__(
            "curation refused by the floors: "
            + "; ".join(str(v) for v in self.violations)
            + ". Fix or leave out what is named; nothing was written"
        )


@dataclass(frozen=True)
class Curation:
    """What a direct door asks to set. ``None`` leaves a field as it is; "" clears it."""

    belongs_because: str | None = None
    keep: str | None = None
    may_fade: str | None = None

    def given(self) -> dict[str, str]:
        return {k: v for k, v in ((k, getattr(self, k)) for k in CURATION_FIELDS) if v is not None}

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> Curation:
        """Curation fields of a request body; anything but a string is refused by name."""
        out: dict[str, str | None] = {}
        for k in CURATION_FIELDS:
            v = raw.get(k)
            if v is None:
                continue
            if not isinstance(v, str):
                raise KuraError(f"{k} must be a string (one sentence)")
            out[k] = v
        return cls(**out)


def vouching_evidence(store: Store, manifest_ref: Any) -> Any:
    """The evidence behind a memory, as the floors take it: its manifest's segments and
    surviving quotes (empty for a memory written directly)."""

    if not (isinstance(manifest_ref, str) and manifest_ref.startswith("sha256:")):
        return Evidence()

    try:
        payload = read_manifest(store, manifest_ref)
    except NotFound:
        return Evidence()
    if isinstance(payload.get("evidence"), Mapping):
        return Evidence.from_json(payload["evidence"])
    segs = [
        (s["cls"], s["text"])
        for s in payload.get("segments", []) or []
        if isinstance(s, dict)
        and isinstance(s.get("text"), str)
        and isinstance(s.get("cls"), str)
        and not str(s.get("source", "")).startswith("memory:")
    ]
    quotes = []
    for q in payload.get("quotes", []) or []:
        if isinstance(q, dict) and q.get("status") == "verified" and isinstance(q.get("text"), str):
            where = q.get("where") or {}
            seg = next(
                (
                    s["text"]
                    for s in payload.get("segments", []) or []
                    if isinstance(s, dict)
                    and s.get("start") == where.get("start")
                    and s.get("source") == where.get("source")
                ),
                q["text"],
            )
            quotes.append((str(q.get("class")), q["text"], seg))
    return Evidence.of(segs, quotes)


def curation_violations(
    sentences: Mapping[str, str],
    tags: Sequence[str],
    *,
    evidence: Any,
    memory_text: Sequence[str] = (),
    human_names: Sequence[str] = (),
    existing_slugs: Container[str] | None = None,
    allowed_tags: Sequence[str] = (),
) -> list[Any]:
    """Why curation may not stand (empty: it may), by the same floors as distilled text
    (:mod:`kura_core.floors`), as structured violations.

    *evidence* is the memory's own evidence (:func:`vouching_evidence`); *memory_text* is
    what the memory already says (description and body), which vouches for its own figures
    and lets a claim it already makes stand. *allowed_tags* are tags the memory already
    carries (kept as they are).
    """

    out: list[Any] = []
    fields = {k: v for k, v in sentences.items() if v}
    for k, v in fields.items():
        if not isinstance(v, str):
            continue
        if "\n" in v.strip() or "\r" in v:
            out.append(Violation(SHAPE, k, "more than one line", "one_line"))
        if len(v) > MAX_SENTENCE_CHARS:
            out.append(
                Violation(SHAPE, k, f"{len(v)} characters", "too_long", str(MAX_SENTENCE_CHARS))
            )
    out += check_surface(
        fields,
        evidence,
        human_names=human_names,
        existing_slugs=existing_slugs,
        given=list(memory_text),
    )
    out += check_tags(list(tags), evidence, allowed=list(allowed_tags), human_names=human_names)
    seen: set[tuple[str, str, str]] = set()
    unique = []
    for v in out:
        key = (v.kind, v.text, v.rule)
        if key not in seen:
            seen.add(key)
            unique.append(v)
    return unique


def check_curation(
    store: Store,
    *,
    slug: str,
    description: str,
    body: str,
    manifest_ref: Any,
    sentences: Mapping[str, str],
    tags: Sequence[str],
    allowed_tags: Sequence[str] = (),
    human_names: Sequence[str] = (),
) -> None:
    """Raise CurationRefused when the floors refuse this curation of memory *slug*."""
    if not any(v for v in sentences.values()) and not tags:
        return
    existing = set(store.file_slugs()) | {slug}
    bad = curation_violations(
        sentences,
        tags,
        evidence=vouching_evidence(store, manifest_ref),
        memory_text=[description, body],
        human_names=human_names,
        existing_slugs=existing,
        allowed_tags=allowed_tags,
    )
    if bad:
        raise CurationRefused(bad)


def manifest_of(mem: Memory) -> Any:
    md = mem.meta.get("metadata")
    return md.get("evidence_manifest") if isinstance(md, Mapping) else None
