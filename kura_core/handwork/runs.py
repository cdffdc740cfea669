"""What a person starts by hand and watches: distilling, draining, and what each needs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..distill import pipeline
from ..distill.drafts import list_drafts
from ..registry import Registry
from .journals import journals

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class Progress:
    """How far a long piece of work has come. ``total`` 0 means not known."""

    done: float
    total: float
    text: str


ProgressFn = Callable[[Progress], None]


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
        f"kept {len(rep.kept)}" + (f", left {len(rep.left)}" if rep.left else "")
    )
    return Outcome("drain", name, rep.did_work, summary, rep, rep.stopped, tuple(rep.errors))
