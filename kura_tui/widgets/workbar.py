"""The metabolism strip: the keys that run distil, drain, tidy and weave — saying plainly
which need a model that is not configured — and, while one runs, its progress."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import ProgressBar, Static

from .fmt import one_line

KEYS = (
    ("D", "distil", "distil"),
    ("N", "drain", "drain"),
    ("T", "tidy", "tidy"),
    ("w", "weave", "weave"),
)
SHORT = {"distil": "no model", "drain": "no model"}


class WorkBar(Horizontal):
    DEFAULT_CSS = """
    WorkBar { height: 1; padding: 0 1; background: $panel; }
    WorkBar > #work-text { width: 1fr; height: 1; }
    WorkBar > #work-note { width: auto; max-width: 60%; height: 1; padding-left: 2; display: none; }
    WorkBar.-noted > #work-note { display: block; }
    WorkBar > ProgressBar { width: auto; height: 1; display: none; }
    WorkBar.-busy > ProgressBar { display: block; }
    WorkBar ProgressBar Bar { width: 24; }
    """

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.kind = ""
        self.needs: Mapping[str, str] = {}

    def compose(self) -> ComposeResult:
        yield Static("", id="work-text")
        yield Static("", id="work-note")
        yield ProgressBar(total=None, show_eta=False, id="work-progress")

    def idle(self, needs: Mapping[str, str] | None = None) -> None:
        if needs is not None:
            self.needs = needs
        self.kind = ""
        self.remove_class("-busy")
        parts: list[Any] = []
        for key, kind, label in KEYS:
            if parts:
                parts.append(("  ", ""))
            parts += [(key, "bold $accent"), (f" {label}", "")]
            if self.needs.get(kind):
                parts.append((f" ({SHORT.get(kind, 'needs a model')})", "$warning"))
            elif kind in ("tidy", "weave") and self.needs.get("drain"):  # no scribe: still useful
                parts.append(
                    (" (by hand)" if kind == "tidy" else " (mechanical)", "$foreground-muted")
                )
        self.query_one("#work-text", Static).update(Content.assemble(*parts))

    def note(self, note: Any) -> None:
        """The last warning or error, kept in sight after its toast has gone (m lists all)."""
        mark, style = ("✗", "$error") if note.severity == "error" else ("⚠", "$warning")
        head = f"{note.title}: " if note.title else ""
        times = f" ×{note.count}" if note.count > 1 else ""
        text = one_line(f"{head}{note.message}", 70)
        self.add_class("-noted")
        self.query_one("#work-note", Static).update(
            Content.assemble(
                (f"{mark} ", f"bold {style}"),
                (text + times, style),
                ("  m messages", "$foreground-muted"),
            )
        )

    def start(self, kind: str, store: str, text: str = "") -> None:
        self.kind = kind
        self.add_class("-busy")
        bar = self.query_one(ProgressBar)
        bar.update(total=None, progress=0)
        self._text(text or f"{kind} · {store} …")

    def progress(self, done: float, total: float, text: str) -> None:
        bar = self.query_one(ProgressBar)
        if total:
            bar.update(total=total, progress=done)
        self._text(text)

    def stopping(self) -> None:
        self._text("stopping at the next safe point…")

    def _text(self, text: str) -> None:
        self.query_one("#work-text", Static).update(
            Content.assemble(
                (self.kind, "bold $warning"), " ", (text, ""), ("  S stops", "$foreground-muted")
            )
        )
