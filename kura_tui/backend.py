"""The only place the TUI calls the core, and it calls only :class:`kura_core.kura.Kura`.
Each method is one core call (or two) and returns plain or frozen values; it runs in a
thread worker, never on the UI loop."""

from __future__ import annotations

import getpass
from collections.abc import Callable, Mapping
from typing import Any

from kura_core import DoctorReport
from kura_core.errors import ConflictError, KuraError
from kura_core.kura import GateEntry, Kura, StoreSummary


def who() -> str:
    """Who a hand action is recorded as: the login name, and that it came from the app."""
    try:
        name = getpass.getuser()
    except Exception:  # no login name (a container, a service)
        name = ""
    return f"{name} (tui)" if name else "tui"


class Backend:
    def __init__(self, kura: Kura, *, by: str | None = None):
        self.kura = kura
        self.by = by or who()

    # ---- stores ----------------------------------------------------------
    def names(self) -> list[str]:
        return self.kura.names()

    def resolve(self, selector: str | None) -> str:
        return self.kura.resolve(selector)

    def overview(self) -> tuple[StoreSummary, ...]:
        return self.kura.overview()

    def roots(self) -> dict[str, str]:
        return {s.name: s.path for s in self.kura.overview()}

    def health(self, name: str) -> DoctorReport:
        return self.kura.doctor(store=name)

    def doctor(self, name: str, probe: bool = False) -> DoctorReport:
        return self.kura.doctor(store=name, probe=probe)

    # ---- the map ---------------------------------------------------------
    def map_view(self, name: str) -> Any:
        return self.kura.map_view(store=name)

    def weave_preview(self, name: str) -> Any:
        return self.kura.weave_preview(store=name)

    def weave_write(self, name: str, index_sha256: str) -> Any:
        return self.kura.weave_write(store=name, index_sha256=index_sha256)

    # ---- drafts and the gate log ------------------------------------------
    def drafts(self, name: str) -> Any:
        return self.kura.drafts(store=name)

    def pour(self, name: str, slug: str) -> Any:
        return self.kura.pour(slug, store=name, by=self.by)

    def toss(self, name: str, slug: str, reason: str) -> None:
        self.kura.toss(slug, reason, store=name, by=self.by)

    def fix(self, name: str, slug: str, **fields: Any) -> Any:
        return self.kura.fix(slug, store=name, by=self.by, **fields)

    def gate_log(self, name: str, limit: int = 500) -> tuple[GateEntry, ...]:
        return self.kura.gate_log(store=name, limit=limit)

    def seeds(self, name: str) -> Any:
        return self.kura.seed_list(store=name)

    def dismiss_seed(self, name: str, seed_id: int, reason: str) -> Any:
        return self.kura.dismiss_seed(seed_id, reason, store=name, by=self.by)

    # ---- memories and recall ----------------------------------------------
    def memory(self, name: str, slug: str) -> Any:
        return self.kura.memory(slug, store=name)

    def edit(self, name: str, slug: str, base: str, fields: Mapping[str, Any]) -> Any:
        return self.kura.edit_memory(slug, store=name, base=base, by=self.by, **fields)

    def retire(self, name: str, slug: str, reason: str) -> Any:
        return self.kura.retire(slug, reason, store=name, by=self.by)

    def recall(self, name: str, question: str) -> Any:
        return self.kura.recall(question, store=name)

    # ---- the metabolism ------------------------------------------------------
    def needs(self, name: str, kind: str) -> str:
        return self.kura.needs(kind, store=name)

    def distil(self, name: str, progress: Callable[[Any], None], stop: Callable[[], bool]) -> Any:
        return self.kura.distil(store=name, progress=progress, should_stop=stop)

    def drain(self, name: str, progress: Callable[[Any], None], stop: Callable[[], bool]) -> Any:
        return self.kura.drain(store=name, progress=progress, should_stop=stop)

    def tidy_review(
        self, name: str, progress: Callable[[Any], None], stop: Callable[[], bool]
    ) -> Any:
        return self.kura.tidy_review(store=name, progress=progress, should_stop=stop)

    def apply_tidy(self, name: str, slug: str, line: str, expected: str) -> str:
        return self.kura.apply_tidy(slug, line, expected=expected, store=name, by=self.by)

    def reject_tidy(self, name: str, slug: str, proposed: str) -> None:
        self.kura.reject_tidy(slug, proposed, store=name, by=self.by)

    # ---- the tender and its journals -------------------------------------------
    def tend_status(self, name: str) -> Any:
        return self.kura.tend_status(store=name)

    def journals(self, name: str) -> Any:
        return self.kura.journals(store=name)

    def excerpt(self, name: str, quote: Any) -> Any:
        """The journal around one piece of evidence (a curation.Quote)."""
        return self.kura.journal_excerpt(quote.source, quote.start, store=name, unit=quote.unit)

    # ---- the learned profile -------------------------------------------------
    def profile_state(self, name: str) -> Any:
        return self.kura.profile_state(store=name)

    def profile_draft(self, name: str) -> Any:
        return self.kura.profile_draft(store=name)

    def profile_apply(self, name: str, expected: str) -> Any:
        """Apply the waiting draft, provided it is still the text the person read."""
        now = self.kura.profile_state(store=name)
        if not now.draft_present:
            raise KuraError(
                f"no profile draft is waiting for store {name!r} any more (applied or removed "
                "elsewhere); nothing was changed"
            )
        if now.draft_text != expected:
            raise ConflictError(
                "the draft changed since it was shown (a new one was drafted meanwhile); "
                "nothing was changed — read it again, then apply"
            )
        return self.kura.profile_apply(store=name)
