"""The seeds pane: ideas waiting for evidence, where each came from, and what confirmed one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from kura_core.vocabulary import SeedState

from .find import FindBar, Finding, filtered, haystack
from .fmt import ago, cls_tag, heading, home_folded, one_line, where
from .rowlist import RowList

if TYPE_CHECKING:
    from kura_core import Seed


STATE_STYLE = {
    SeedState.WAITING: "bold $accent",
    SeedState.GRADUATED: "bold $success",
    SeedState.DISMISSED: "$foreground-muted",
    SeedState.WITHERED: "$foreground-muted",
}
STATES = (SeedState.WAITING, SeedState.GRADUATED, SeedState.DISMISSED, SeedState.WITHERED, "all")


def _quote(q: Any) -> list[Content]:
    return [
        Content.assemble(cls_tag(q.cls), " ", f"“{one_line(q.text)}”"),
        Content.styled(
            "   " + where({"source": q.source, "start": q.start, "end": q.end, "unit": q.unit}),
            "$foreground-muted",
        ),
    ]


def render_seed(s: Any, now: float) -> Content:
    out: list[Content] = [
        Content.assemble(
            (s.title, "bold"),
            "  ",
            (s.state, STATE_STYLE.get(s.state, "bold")),
            (f"  seed {s.id} · planted {ago(s.at, now)}", "$foreground-muted"),
        )
    ]
    if s.body and s.body.strip() != s.title.strip():
        out += [Content(""), Content(s.body.strip())]
    out += [Content(""), heading("Where it came from")]
    out.append(
        Content.styled(home_folded(one_line(s.source)) or "not recorded", "$foreground-muted")
    )
    for q in s.quotes:
        out += _quote(q)
    if not s.quotes:
        out.append(Content.styled("no quotes were kept with it", "$foreground-muted"))
    out += [Content(""), heading("Later evidence")]
    if s.confirmed:
        for c in s.confirmed:
            out.append(
                Content.assemble(
                    ("✓ confirmed ", "bold $success"),
                    (ago(c.at, now), "$foreground-muted"),
                    (
                        f" by {c.journal.rsplit('/', 1)[-1]}" if c.journal else "",
                        "$foreground-muted",
                    ),
                )
            )
            if c.draft:
                out.append(
                    Content.assemble(
                        ("  became the draft ", "$foreground-muted"), (c.draft, "bold")
                    )
                )
            for q in c.quotes:
                out += _quote(q)
    elif s.state == SeedState.GRADUATED:
        out.append(
            Content.styled("✓ confirmed (before kura recorded which evidence did it)", "$success")
        )
    for at, reason in s.attempts:
        out.append(
            Content.assemble(
                ("✗ not confirmed ", "$warning"), (ago(at, now), "$foreground-muted"), f": {reason}"
            )
        )
    if not s.confirmed and not s.attempts and s.state != SeedState.GRADUATED:
        out.append(
            Content.styled(
                "nothing yet: each new stretch of journal is checked against it",
                "$foreground-muted",
            )
        )
    if s.withered:
        at, why = s.withered
        out += [
            Content(""),
            Content.assemble(
                ("withered ", "bold"), (ago(at, now), "$foreground-muted"), f": {why}"
            ),
            Content.styled("r revives it: it waits and is checked again", "$foreground-muted"),
        ]
    if s.dismissed:
        at, by, reason = s.dismissed
        out += [
            Content(""),
            Content.assemble(
                ("dismissed ", "bold"),
                (f"{ago(at, now)} by {by}", "$foreground-muted"),
                f": {reason}",
            ),
        ]
    return Content("\n").join(out)


class SeedsPane(Finding, Vertical):
    """x dismisses a waiting idea; r revives a withered one; o opens the journal it came from;
    f cycles which are shown."""

    DEFAULT_CSS = """
    SeedsPane { height: 1fr; }
    SeedsPane > #seed-filter { height: 1; padding: 0 1; }
    SeedsPane > #seed-body { height: 1fr; }
    SeedsPane #seed-list { width: 36; height: 1fr; }
    SeedsPane #seed-detail-scroll { width: 1fr; height: 1fr; padding: 0 1; border-left: vkey $primary 30%; }
    """

    BINDINGS = [
        Binding(
            "x",
            "dismiss",
            "Dismiss…",
            tooltip="Dismiss the waiting idea: no longer checked (confirmed)",
            id="seeds.dismiss",
        ),
        Binding(
            "r",
            "revive",
            "Revive",
            tooltip="Put a withered idea back to wait: checked again, its clock started afresh",
            id="seeds.revive",
        ),
        Binding(
            "o",
            "origin",
            "Journal",
            tooltip="Open the journal around the seed's quotes",
            id="seeds.origin",
        ),
        Binding(
            "f",
            "filter",
            "Filter",
            tooltip="Show waiting, confirmed, dismissed, withered or all seeds (cycles)",
            id="seeds.filter",
        ),
    ]

    class Act(Message):
        def __init__(self, action: str, seed: Any) -> None:
            super().__init__()
            self.action = action
            self.seed = seed

    def __init__(self, clock: Callable[[], float], blink: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.clock = clock
        self.blink = blink
        self.seeds: list[Any] = []
        self.hays: list[str] = []
        self.shown: list[Any] = []
        self.filter = "waiting"

    def compose(self) -> ComposeResult:
        yield FindBar("titles, ideas, where they came from", blink=self.blink, id="seed-find")
        yield Static("", id="seed-filter")
        with Horizontal(id="seed-body"):
            yield RowList(
                self._row,
                id="seed-list",
                empty=Content.styled("loading seeds…", "$foreground-muted"),
            )
            with VerticalScroll(id="seed-detail-scroll"):
                yield Static("", id="seed-detail")

    def _row(self, s: Any) -> Content:
        mark = {
            SeedState.WAITING: "○",
            SeedState.GRADUATED: "✓",
            SeedState.DISMISSED: "×",
            SeedState.WITHERED: "·",
        }.get(s.state, "?")
        return Content.assemble((mark, STATE_STYLE.get(s.state, "bold")), " ", s.title)

    @property
    def selected(self) -> Any | None:
        return self.query_one("#seed-list", RowList).current

    def on_mount(self) -> None:
        self._render_filter()

    def _render_filter(self) -> None:
        counts: dict[str, int] = {
            k: sum(1 for s in self.seeds if s.state == k) for k in STATES[:-1]
        }
        counts["all"] = len(self.seeds)
        parts: list[Any] = [("f", "bold $accent")]
        for k in STATES:
            label = f"{k} {counts[k]}"
            style = "reverse bold $accent" if k == self.filter else "$foreground-muted"
            parts += [" ", (f" {label} " if k == self.filter else label, style)]
        self.query_one("#seed-filter", Static).update(Content.assemble(*parts))

    def show(self, seeds: Sequence[Seed]) -> None:
        self.seeds = list(seeds)
        self.hays = []  # built on the first search
        self._render_filter()
        self._fill()

    def _fill(self) -> None:
        rl = self.query_one("#seed-list", RowList)
        keep = self.selected.id if self.selected is not None else None
        query = self.find_query
        if query and len(self.hays) != len(self.seeds):
            self.hays = [haystack(s.title, s.body, s.source, s.state) for s in self.seeds]
        found = filtered(self.seeds, self.hays, query) if query else self.seeds
        self.shown = [s for s in found if self.filter == "all" or s.state == self.filter]
        ids = [s.id for s in self.shown]
        if not self.shown:
            rl.set_empty(
                Content.styled(
                    "no seeds"
                    + ("" if self.filter == "all" else f" {self.filter}")
                    + (f" matching “{query}”" if query else ""),
                    "$foreground-muted",
                )
            )
        rl.set_rows(self.shown, cursor=ids.index(keep) if keep in ids else None)
        self.find_bar.count(
            len(self.shown), len([s for s in self.seeds if self.filter in ("all", s.state)])
        )
        self._detail()

    # ---- find --------------------------------------------------------------
    def find_list(self) -> RowList:
        return self.query_one("#seed-list", RowList)

    def refilter(self) -> None:
        self._fill()

    def _detail(self) -> None:
        box = self.query_one("#seed-detail", Static)
        s = self.selected
        if s is None:
            box.update(
                Content.styled(
                    "Ideas the distiller heard but nothing vouches for yet wait here. They never enter the "
                    "store; one graduates into a draft only when later evidence confirms it through the gate.",
                    "$foreground-muted",
                )
            )
            return
        box.update(render_seed(s, self.clock()))
        self.query_one("#seed-detail-scroll").scroll_home(animate=False)

    def on_row_list_highlighted(self, event: RowList.Highlighted) -> None:
        event.stop()
        self._detail()

    def on_row_list_selected(self, event: RowList.Selected) -> None:
        event.stop()
        self.query_one("#seed-detail-scroll").focus()

    def action_filter(self) -> None:
        self.filter = STATES[(STATES.index(self.filter) + 1) % len(STATES)]
        self._render_filter()
        self._fill()

    def _act(self, action: str) -> None:
        s = self.selected
        if s is None:
            self.notify("no seed is selected", severity="warning")
            return
        self.post_message(self.Act(action, s))

    def action_dismiss(self) -> None:
        self._act("dismiss")

    def action_revive(self) -> None:
        self._act("revive")

    def action_origin(self) -> None:
        self._act("origin")
