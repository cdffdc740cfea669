"""The only place the TUI calls the core. Each function is one core call (or two) and
returns plain values; it runs in a thread worker, never on the UI loop."""

from __future__ import annotations

from typing import Any

from kura_core.kura import Kura


class Backend:
    def __init__(self, kura: Kura):
        self.kura = kura
        self.reg = kura.registry

    # ---- stores ----------------------------------------------------------
    def names(self) -> list[str]:
        return self.reg.names()

    def resolve(self, selector: str | None) -> str:
        return self.reg.resolve(selector)

    def overview(self) -> list[dict[str, Any]]:
        return self.kura.overview()

    def roots(self) -> dict[str, str]:
        return {n: str(self.reg.store(n).root) for n in self.reg.names()}

    def health(self, name: str) -> dict[str, Any]:
        return self.kura.doctor(store=name)

    def doctor(self, name: str, probe: bool = False) -> dict[str, Any]:
        return self.kura.doctor(store=name, probe=probe)

    # ---- the map ---------------------------------------------------------
    def woven(self, name: str, *, weave: bool = False) -> tuple[Any, dict[str, Any]]:
        """The map as woven now (layers; written only when *weave*) and what hosts get."""
        if weave:
            woven = self.kura.weave(store=name)
        else:
            from kura_core.weave import weave as preview

            woven = preview(self.reg, name, write=False)
        return woven, self.kura.prefill(store=name).to_json()

    # ---- drafts and the gate log ------------------------------------------
    def drafts(self, name: str) -> tuple[list[Any], list[tuple[str, str]]]:
        from kura_core.distill.drafts import draft_problems, list_drafts

        st = self.reg.store(name)
        return list_drafts(st), draft_problems(st)

    def pour(self, name: str, slug: str) -> Any:
        from kura_core.distill.drafts import pour

        return pour(self.reg, name, slug, by="tui")

    def toss(self, name: str, slug: str, reason: str) -> None:
        from kura_core.distill.drafts import toss

        toss(self.reg, name, slug, reason, by="tui")

    def fix(self, name: str, slug: str, **fields: Any) -> Any:
        from kura_core.distill.drafts import fix

        return fix(self.reg, name, slug, by="tui", **fields)

    def gate_log(self, name: str, limit: int = 500) -> list[dict[str, Any]]:
        if not self.reg.store(name).still.is_dir():
            return []
        return self.reg.workshop(name).gate_log(limit=limit)

    def seeds(self, name: str) -> list[dict[str, Any]]:
        return self.kura.seeds(store=name)

    # ---- memories and recall ----------------------------------------------
    def read(self, name: str, slug: str) -> Any:
        return self.kura.read(slug, store=name)

    def recall(self, name: str, question: str) -> Any:
        return self.kura.recall(question, store=name)
