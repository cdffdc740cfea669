"""What the app's screens ask of the app, as a protocol: a screen calls
``host(self).save_memory(...)`` and the type checker follows the call, while the screens
never import the app (which imports them)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from textual.dom import DOMNode

if TYPE_CHECKING:
    from kura_core import DoctorReport, MemoryView, ProfileState, Quote, WeavePreview


@runtime_checkable
class Host(Protocol):
    """The app's methods a screen calls (each starts work or opens a screen; results come
    back as messages)."""

    def cycle_store(self, step: int) -> None: ...
    def pane_shown(self, tab_id: str) -> None: ...
    def load_memory(self, store: str, slug: str) -> None: ...
    def edit_memory(self, store: str, view: MemoryView) -> None: ...
    def edit_in_editor(self, store: str, view: MemoryView) -> None: ...
    def save_memory(
        self,
        store: str,
        slug: str,
        base: str,
        fields: dict[str, Any],
        *,
        edit_file: Path | None = None,
        big_ok: bool = False,
    ) -> None: ...
    def retire_memory(
        self, store: str, slug: str, title: str, linked_from: Iterable[str] = ()
    ) -> None: ...
    def fix_store(self, store: str, report: DoctorReport) -> None: ...
    def open_evidence(
        self, store: str, title: str, quotes: Iterable[Quote | Mapping[str, Any]]
    ) -> None: ...
    def load_excerpt(self, token: int, store: str, quote: Quote) -> None: ...
    def fix_draft(self, store: str, slug: str, fields: dict[str, Any]) -> None: ...
    def write_weave(self, store: str, preview: WeavePreview) -> None: ...
    def apply_tidy(self, store: str, slug: str, line: str, expected: str) -> None: ...
    def reject_tidy(self, store: str, slug: str, proposed: str) -> None: ...
    def load_profile(self, store: str) -> None: ...
    def draft_profile(self, store: str, state: ProfileState | None = None) -> None: ...
    def apply_profile(self, store: str, state: ProfileState) -> None: ...


def host(node: DOMNode) -> Host:
    """The app *node* runs in: kura_tui.app.KuraApp, checked to offer every Host method."""
    app = node.app
    if not isinstance(app, Host):
        raise TypeError(f"{type(app).__name__} is not kura's app: a screen needs its Host")
    return app
