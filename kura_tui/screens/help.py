"""The help screen: every key, generated from the bindings themselves so it cannot drift."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import Any

from rich.cells import cell_len
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ..widgets.fmt import pad

Section = tuple[str, Sequence[tuple[str, str]]]


def bindings_of(cls: type) -> list[Binding]:
    """The bindings *cls* declares itself (its own BINDINGS)."""
    return [b if isinstance(b, Binding) else Binding(*b) for b in cls.__dict__.get("BINDINGS", [])]


def binding_ids() -> set[str]:
    """The id of every binding the app's screens and widgets declare (what [keys] names)."""
    out: set[str] = set()
    for name, module in list(sys.modules.items()):
        if name == "kura_tui" or name.startswith("kura_tui."):
            for obj in list(vars(module).values()):
                if isinstance(obj, type) and obj.__module__ == name:
                    out |= {b.id for b in bindings_of(obj) if b.id}
    return out


def binding_rows(app: Any, classes: Iterable[type]) -> list[tuple[str, str]]:
    """(key, description) for each binding declared on *classes* (own BINDINGS only), with
    the key a person set in [keys] where they moved one."""
    moved: dict[str, str] = getattr(app, "keys", None) or {}
    rows: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for cls in classes:
        for b in bindings_of(cls):
            keys = [k.strip() for k in moved.get(b.id or "", b.key).split(",")]
            shown = " / ".join(app.get_key_display(Binding(k, b.action)) for k in keys)
            desc = b.tooltip or b.description or b.action
            if (shown, desc) not in seen:
                seen.add((shown, desc))
                rows.append((shown, desc))
    return rows


class KeyScroll(VerticalScroll):
    """Scrolls a line per key press at once: animated scrolls merge a burst of presses."""

    def action_scroll_up(self) -> None:
        if not self.allow_vertical_scroll:
            raise SkipAction()
        self.scroll_up(animate=False, immediate=True)

    def action_scroll_down(self) -> None:
        if not self.allow_vertical_scroll:
            raise SkipAction()
        self.scroll_down(animate=False, immediate=True)


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical {
        width: 84; max-width: 98%; height: 90%; border: thick $primary 60%; background: $surface;
    }
    HelpScreen #help-scroll { height: 1fr; padding: 0 1; }
    HelpScreen #help-foot { height: 1; padding: 0 1; color: $text-muted; }
    """

    BINDINGS = [
        Binding("escape,q,question_mark,f1", "close", "Close help", id="help.close"),
    ]

    def __init__(self, sections: Sequence[Section], **kw: Any) -> None:
        super().__init__(**kw)
        self.sections = sections

    def compose(self) -> ComposeResult:
        with Vertical() as v:
            v.border_title = "kura — every key"
            with KeyScroll(id="help-scroll"):
                yield Static(self._keys_content(), id="help-text")
            yield Static("esc closes · ↑/↓ scroll", id="help-foot")

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()

    def _keys_content(self) -> Content:
        out: list[Content] = []
        width = max((cell_len(k) for _, rows in self.sections for k, _ in rows), default=8)
        width = min(width, 16)
        for title, rows in self.sections:
            if not rows:
                continue
            if out:
                out.append(Content(""))
            out.append(Content.styled(title, "bold $primary"))
            for key, desc in rows:
                out.append(Content.assemble((f"  {pad(key, width)}  ", "bold $accent"), desc))
        return Content("\n").join(out)

    def action_close(self) -> None:
        self.dismiss(None)
