"""RowList: a list of fixed-height rows that renders only the rows on screen.

Textual's OptionList measures and wraps every option when options are added, which at
5,000 map lines costs most of a second on every reload. A RowList takes any sequence of
rows and a function that turns one row into Content; it builds a row's Content only when
that row scrolls into view, and cuts each line to the width instead of wrapping it, so a
reload costs the same at 50 rows and at 50,000.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.visual import Visual

RenderRow = Callable[[Any], "Content | str"]


class RowList(ScrollView, can_focus=True):
    """Rows of ``row_height`` lines; a cursor; enter selects."""

    DEFAULT_CSS = """
    RowList {
        height: 1fr;
        overflow-x: hidden;
        overflow-y: auto;
        background: transparent;
        & > .row-list--row { color: $foreground; }
        & > .row-list--cursor {
            color: $block-cursor-blurred-foreground;
            background: $block-cursor-blurred-background;
        }
        &:focus > .row-list--cursor {
            color: $block-cursor-foreground;
            background: $block-cursor-background;
        }
    }
    """

    COMPONENT_CLASSES = {"row-list--row", "row-list--cursor"}

    BINDINGS = [
        Binding("up,k", "move(-1)", "Up", show=False, id="rows.up"),
        Binding("down,j", "move(1)", "Down", show=False, id="rows.down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="rows.page_up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="rows.page_down"),
        Binding("home", "jump(0)", "First", show=False, id="rows.first"),
        Binding("end", "jump(-1)", "Last", show=False, id="rows.last"),
        Binding("enter", "select", "Select", show=False, id="rows.select"),
    ]

    cursor: reactive[int] = reactive(0, always_update=False, repaint=False)

    class Highlighted(Message):
        def __init__(self, rows: RowList, index: int) -> None:
            super().__init__()
            self.rows = rows
            self.index = index

        @property
        def control(self) -> RowList:
            return self.rows

    class Selected(Message):
        def __init__(self, rows: RowList, index: int) -> None:
            super().__init__()
            self.rows = rows
            self.index = index

        @property
        def control(self) -> RowList:
            return self.rows

    def __init__(
        self,
        render_row: RenderRow,
        *,
        row_height: int = 1,
        empty: Content | str = "",
        show_cursor: bool = True,
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        self.render_row = render_row
        self.show_cursor = show_cursor
        self.row_height = max(1, row_height)
        self.empty = empty
        self.rows: Sequence[Any] = ()
        self._content: dict[int, list[Content]] = {}
        self._strips: dict[tuple[int, int, bool, int], Strip] = {}

    # ---- data ------------------------------------------------------------
    def set_rows(
        self, rows: Sequence[Any], *, cursor: int | None = None, hold: bool = False
    ) -> None:
        """Replace every row (cheap: nothing is rendered until it is on screen).

        With *hold*, the cursor's row stays on the same line of the screen: rows added or
        taken away above it move the view with them instead of sliding the row away."""
        line = self.cursor * self.row_height - round(self.scroll_offset.y)
        held = hold and bool(self.rows) and 0 <= line < self.scrollable_content_region.height
        self.rows = rows
        self._content.clear()
        self._strips.clear()
        self._resize()
        target = self.cursor if cursor is None else cursor
        target = max(0, min(target, len(rows) - 1)) if rows else 0
        if target != self.cursor:
            self.set_reactive(RowList.cursor, target)
        if held and rows:
            self.scroll_to(
                y=max(0, target * self.row_height - line), animate=False, immediate=True, force=True
            )
        self.call_after_refresh(self._scroll_to_cursor)
        self.refresh()
        if rows:
            self.post_message(self.Highlighted(self, self.cursor))

    def set_empty(self, empty: Content | str) -> None:
        self.empty = empty
        self._strips.clear()
        self.refresh()

    @property
    def current(self) -> Any | None:
        if not self.rows or not (0 <= self.cursor < len(self.rows)):
            return None
        return self.rows[self.cursor]

    def _resize(self) -> None:
        # the width stays 0: rows are cut to the width, never scrolled sideways, and a virtual
        # size that does not change with the width costs no second layout when a pane is shown
        height = len(self.rows) * self.row_height if self.rows else 1
        if self.virtual_size.height != height or self.virtual_size.width:
            self.virtual_size = Size(0, height)

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != getattr(self, "_width", None):
            self._width = event.size.width
            self._content.clear()  # rows may lay themselves out by the width
            self._strips.clear()
        self._resize()
        self._scroll_to_cursor()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    def _on_focus(self, event: events.Focus) -> None:
        self._strips.clear()
        self.refresh()

    def _on_blur(self, event: events.Blur) -> None:
        self._strips.clear()
        self.refresh()

    # ---- rendering ---------------------------------------------------------
    def _lines_of(self, index: int) -> list[Content]:
        lines = self._content.get(index)
        if lines is None:
            made = self.render_row(self.rows[index])
            content = made if isinstance(made, Content) else Content(str(made))
            lines = content.split("\n", allow_blank=True)[: self.row_height]
            while len(lines) < self.row_height:
                lines.append(Content(""))
            if len(self._content) > 4096:
                self._content.clear()
            self._content[index] = lines
        return lines

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        line_no = self.scroll_offset.y + y
        index, offset = divmod(line_no, self.row_height)
        row_style = self.get_visual_style("row-list--row")
        if not self.rows:
            if line_no == 0 and self.empty:
                empty = self.empty if isinstance(self.empty, Content) else Content(str(self.empty))
                return self._strip(empty.first_line, width, row_style)
            return Strip.blank(width, row_style.rich_style)
        if index >= len(self.rows):
            return Strip.blank(width, row_style.rich_style)
        on_cursor = index == self.cursor and self.show_cursor
        key = (index, offset, on_cursor, width)
        strip = self._strips.get(key)
        if strip is None:
            style = self.get_visual_style("row-list--cursor") if on_cursor else row_style
            strip = self._strip(self._lines_of(index)[offset], width, style)
            if len(self._strips) > 4096:
                self._strips.clear()
            self._strips[key] = strip
        return strip

    def _strip(self, line: Content, width: int, style: Any) -> Strip:
        line = line.truncate(width, ellipsis=True, pad=True)
        strips = Visual.to_strips(self, line, width, 1, style, pad=True)
        return strips[0] if strips else Strip.blank(width, style.rich_style)

    # ---- cursor ------------------------------------------------------------
    def watch_cursor(self, old: int, new: int) -> None:
        h = self.row_height
        self.refresh(Region(0, old * h - self.scroll_offset.y, self.size.width, h))
        self.refresh(Region(0, new * h - self.scroll_offset.y, self.size.width, h))
        self._scroll_to_cursor()
        if self.rows:
            self.post_message(self.Highlighted(self, new))

    def _scroll_to_cursor(self) -> None:
        if not self.rows:
            return
        h = self.row_height
        self.scroll_to_region(
            Region(0, self.cursor * h, max(1, self.size.width), h),
            animate=False,
            immediate=True,
            force=True,
        )

    def move_to(self, index: int) -> None:
        if self.rows:
            self.cursor = max(0, min(index, len(self.rows) - 1))

    def action_move(self, step: int) -> None:
        self.move_to(self.cursor + step)

    def action_page(self, direction: int) -> None:
        per_page = max(1, self.scrollable_content_region.height // self.row_height - 1)
        self.move_to(self.cursor + direction * per_page)

    def action_jump(self, where: int) -> None:
        self.move_to(len(self.rows) - 1 if where < 0 else where)

    def action_select(self) -> None:
        if self.rows:
            self.post_message(self.Selected(self, self.cursor))

    def on_click(self, event: events.Click) -> None:
        index = (event.y + self.scroll_offset.y) // self.row_height
        if 0 <= index < len(self.rows):
            if index == self.cursor and event.chain > 1:
                self.action_select()
            self.move_to(index)
