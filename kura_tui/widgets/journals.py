"""The journals pane: which journals a store drinks, how far, and what waits (held, shelved)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from kura_core.vocabulary import StretchState

from .find import FindBar, Finding, filtered, haystack
from .fmt import ago, heading, home_folded, n
from .rowlist import RowList

if TYPE_CHECKING:
    from kura_core import JournalsView


def _pct(j: Any) -> str:
    return f"{100 * j.mark // j.end}%" if j.end else "—"


def _row(j: Any) -> Content:
    style = "bold $warning" if j.shelved else ("bold $success" if not j.backlog else "bold")
    mark = "!" if j.shelved else ("✓" if not j.backlog else "…")
    unit = "records" if j.unit == "seq" else "bytes"
    return Content.assemble(
        (mark, style),
        " ",
        (Path(j.path).name, ""),
        "  ",
        (
            f"{j.adapter} · {_pct(j)} drunk · {n(j.backlog)} {unit} waiting"
            + (f" · {len(j.shelved)} shelved" if j.shelved else ""),
            "$foreground-muted",
        ),
    )


def render_journal(j: Any, now: float) -> Content:
    unit = "records" if j.unit == "seq" else "bytes"
    out = [
        Content.styled(home_folded(j.path), "bold"),
        Content.assemble(
            ("adapter ", "$foreground-muted"),
            j.adapter,
            ("  unit ", "$foreground-muted"),
            unit,
            ("  size ", "$foreground-muted"),
            f"{n(j.size)} bytes",
            ("  changed ", "$foreground-muted"),
            ago(j.mtime, now),
        ),
        Content.assemble(
            ("watermark ", "$foreground-muted"),
            (f"{n(j.mark)}", "bold"),
            f" of {n(j.end)} {unit}",
            (f" ({_pct(j)})  ", "$foreground-muted"),
            (
                f"{n(j.backlog)} {unit} not drunk yet" if j.backlog else "all drunk",
                "bold $warning" if j.backlog else "$success",
            ),
        ),
    ]
    if j.stretches:
        out += [Content(""), heading("Stretches reserved")]
        for s in j.stretches:
            if s.state == StretchState.SHELVED:
                out.append(
                    Content.assemble(
                        ("shelved ", "bold $warning"),
                        f"{n(s.start)}–{n(s.end)}",
                        (f" · tried {s.attempts}× · {ago(s.updated, now)}", "$foreground-muted"),
                    )
                )
                if s.reason:
                    # a stretch shelved over the time budget says so itself: file, offset,
                    # the check that overran, and that a later run tries it again
                    out.append(
                        Content.styled(
                            f"  {s.reason}"
                            + (
                                ""
                                if "later run" in s.reason
                                else " — retried first by the next distil"
                            ),
                            "$warning",
                        )
                    )
            else:
                out.append(
                    Content.assemble(
                        ("held ", "bold"),
                        f"{n(s.start)}–{n(s.end)}",
                        (f" · by {s.owner} · {ago(s.updated, now)}", "$foreground-muted"),
                    )
                )
    out += [
        Content(""),
        Content.styled(
            "o shows the journal at its watermark: what the next distil drinks", "$foreground-muted"
        ),
    ]
    return Content("\n").join(out)


class JournalsPane(Finding, Vertical):
    DEFAULT_CSS = """
    JournalsPane { height: 1fr; }
    JournalsPane > #journal-roots { height: auto; max-height: 6; padding: 0 1; }
    JournalsPane > #journal-list { height: auto; max-height: 14; }
    JournalsPane > #journal-detail-scroll { height: 1fr; padding: 0 1; border-top: hkey $primary 30%; }
    """

    BINDINGS = [
        Binding(
            "o",
            "open",
            "Open at mark",
            tooltip="Show the journal at its watermark (what is drunk next)",
            id="journals.open",
        ),
    ]

    class Open(Message):
        def __init__(self, journal: Any) -> None:
            super().__init__()
            self.journal = journal

    def __init__(self, clock: Callable[[], float], blink: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.clock = clock
        self.blink = blink
        self.view: Any = None
        self.files: list[Any] = []
        self.shown: list[Any] = []

    def compose(self) -> ComposeResult:
        yield FindBar("file names, adapters", blink=self.blink, id="journal-find")
        yield Static(
            Content.styled("reading the journals…", "$foreground-muted"), id="journal-roots"
        )
        yield RowList(
            _row, id="journal-list", empty=Content.styled("no journal files", "$foreground-muted")
        )
        with VerticalScroll(id="journal-detail-scroll"):
            yield Static("", id="journal-detail")

    @property
    def selected(self) -> Any | None:
        return self.query_one("#journal-list", RowList).current

    def show(self, view: JournalsView) -> None:
        self.view = view
        lines: list[Content] = []
        if not view.roots:
            from kura_core.kura import Kura

            here = [f'{a} = "{r}"' for a, r, there in Kura.journal_roots_here() if there]
            lines.append(
                Content.styled(
                    f"no journals configured: add [stores.{view.store}.journals] to kura.toml "
                    + (
                        "(found here: " + ", ".join(here) + ")"
                        if here
                        else '(claude = "~/.claude/projects")'
                    ),
                    "$warning",
                )
            )
        for r in view.roots:
            state = ("", "") if r.exists else ("  ✗ does not exist", "bold $error")
            lines.append(
                Content.assemble(
                    (f"{r.adapter:<8}", "bold"),
                    home_folded(r.root),
                    ("  " + r.include, "$foreground-muted"),
                    (f"  not {r.exclude}" if r.exclude else "", "$foreground-muted"),
                    state,
                )
            )
        for key, mark in view.forgotten:
            lines.append(
                Content.styled(
                    f"a watermark ({n(mark)}) for {key.split(':', 1)[-1]}, which no root "
                    "finds any more",
                    "$foreground-muted",
                )
            )
        self.query_one("#journal-roots", Static).update(Content("\n").join(lines))
        self.files = list(view.files)
        self.refilter()

    def refilter(self) -> None:
        rl = self.query_one("#journal-list", RowList)
        keep = self.selected.path if self.selected is not None else None
        query = self.find_query
        hays = [haystack(j.path, j.adapter) for j in self.files] if query else []
        self.shown = filtered(self.files, hays, query) if query else list(self.files)
        paths = [j.path for j in self.shown]
        rl.set_empty(
            Content.styled(
                f"no journal file matches “{query}”" if query else "no journal files",
                "$foreground-muted",
            )
        )
        rl.set_rows(self.shown, cursor=paths.index(keep) if keep in paths else None)
        self.find_bar.count(len(self.shown), len(self.files))
        self._detail()

    def find_list(self) -> RowList:
        return self.query_one("#journal-list", RowList)

    def _detail(self) -> None:
        j = self.selected
        self.query_one("#journal-detail", Static).update(
            render_journal(j, self.clock()) if j is not None else ""
        )

    def on_row_list_highlighted(self, event: RowList.Highlighted) -> None:
        event.stop()
        self._detail()

    def on_row_list_selected(self, event: RowList.Selected) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        j = self.selected
        if j is None:
            self.notify("no journal is selected", severity="warning")
            return
        self.post_message(self.Open(j))
