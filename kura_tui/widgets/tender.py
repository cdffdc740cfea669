"""The tender pane: is it running, its last tick and what it did, what rests, its log tail."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from kura_core.vocabulary import TenderState

from .doctor import TENDER_STYLE
from .find import FindBar, Finding, filtered, haystack
from .fmt import ago, heading
from .rowlist import RowList

if TYPE_CHECKING:
    from kura_core import TendStatus


def _log_row(line: str) -> Content:
    stamp, _, rest = line.partition(" ")
    if rest.startswith("[") and "] " in rest:
        rest = rest.split("] ", 1)[1]  # the store's name: the pane is already one store's
    style = "$error" if (" failed" in rest or "skipped" in rest) else ""
    if rest.startswith("shelved "):  # a chunk set aside over the time budget; the loop went on
        style = "$warning"
    return Content.assemble(
        (stamp.replace("T", " ")[5:16], "$foreground-muted"), " ", (rest, style)
    )


def render_status(s: Any, now: float) -> Content:
    out: list[Content] = [_state_line(s)]
    if s.state == TenderState.NEVER_STARTED:
        out.append(
            Content.styled(
                f"no tender has run here: `kura tend -s {s.store}` keeps the store "
                f"distilled while you are away (docs/OPERATING.md)",
                "$foreground-muted",
            )
        )
    elif not s.running:
        out.append(
            Content.styled(f"not running: start it with `kura tend -s {s.store}`", "$warning")
        )
    if s.started:
        out.append(
            Content.styled(
                f"started {ago(s.started, now)} · works after {s.idle_min:g} quiet minutes",
                "$foreground-muted",
            )
        )
    if s.counts:
        out.append(
            Content.styled(
                "work done: " + ", ".join(f"{k} {v}" for k, v in s.counts.items()),
                "$foreground-muted",
            )
        )
    if s.resting:
        out.append(
            Content.styled(
                "resting: " + ", ".join(f"{k} {v / 60:.0f} min more" for k, v in s.resting.items()),
                "$foreground-muted",
            )
        )
    out += _last_tick(s)
    for entry in s.last_tick_lines[-6:]:
        out.append(Content.assemble(("  · ", "$foreground-muted"), _log_row(entry)))
    return Content("\n").join(out)


def _state_line(s: Any) -> Content:
    """State, whether it runs, its pid, its last beat and what it is doing, on one line."""
    parts: list[Any] = [(s.state, TENDER_STYLE.get(s.state, "bold"))]
    if s.running:
        parts.append(("  running", "bold $success"))
    if s.pid:
        parts.append((f" · pid {s.pid}", "$foreground-muted"))
    if s.last_beat_s is not None:
        parts.append((f" · last beat {s.last_beat_s:.0f}s ago", "$foreground-muted"))
    if s.doing and s.doing != s.state:
        parts.append((f" · {s.doing}", "$foreground-muted"))
    return Content.assemble(*parts)


def _last_tick(s: Any) -> list[Content]:
    """What the last tick did, or when the tender last logged work."""
    out: list[Content] = []
    t = s.last_tick
    if t:
        did = "did work" if t.get("did_work") else "found nothing to do"
        line: list[Any] = [
            ("last tick ", "$foreground-muted"),
            (s.last_tick_at.replace("T", " "), "bold"),
            f" · {did}",
        ]
        if t.get("tracks"):
            line.append(f" · {', '.join(t['tracks'])}")
        out.append(Content.assemble(*line))
        if t.get("failed"):
            out.append(Content.styled(f"  failed: {t['failed']}", "$error"))
        if t.get("stopped"):
            out.append(Content.styled(f"  stopped: {t['stopped']}", "$warning"))
    elif s.last_tick_at:
        out.append(
            Content.assemble(
                ("last logged ", "$foreground-muted"),
                (s.last_tick_at.replace("T", " "), "bold"),
                " · what it did:",
            )
        )
    return out


class TenderPane(Finding, Vertical):
    DEFAULT_CSS = """
    TenderPane { height: 1fr; }
    TenderPane > #tender-status { height: auto; max-height: 16; padding: 0 1; }
    TenderPane > #tender-log-title { height: 1; padding: 0 1; margin-top: 1; }
    TenderPane > #tender-log { height: 1fr; padding: 0 1; }
    """

    def __init__(self, clock: Callable[[], float], blink: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.clock = clock
        self.blink = blink
        self.status: Any = None
        self.lines: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static(
            Content.styled("asking about the tender…", "$foreground-muted"), id="tender-status"
        )
        yield Static(heading("log  _still/tend.log"), id="tender-log-title")
        yield FindBar("words in the log", blink=self.blink, id="tender-find")
        yield RowList(
            _log_row,
            id="tender-log",
            show_cursor=False,
            empty=Content.styled("the log is empty", "$foreground-muted"),
        )

    def show(self, status: TendStatus) -> None:
        self.status = status
        self.query_one("#tender-status", Static).update(render_status(status, self.clock()))
        self.lines = list(status.log_tail)
        self.refilter()

    def refilter(self) -> None:
        log = self.query_one("#tender-log", RowList)
        at_end = log.cursor >= len(log.rows) - 1
        query = self.find_query
        hays = [haystack(line) for line in self.lines] if query else []
        lines = filtered(self.lines, hays, query) if query else list(self.lines)
        log.set_empty(
            Content.styled(
                f"no log line matches “{query}”" if query else "the log is empty",
                "$foreground-muted",
            )
        )
        log.set_rows(lines, cursor=len(lines) - 1 if at_end else None)
        self.find_bar.count(len(lines), len(self.lines))

    def find_list(self) -> RowList:
        return self.query_one("#tender-log", RowList)
