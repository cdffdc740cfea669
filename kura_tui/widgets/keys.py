"""The key line at the foot of every screen: the keys that work here, in one line.

Textual's Footer builds a widget per key and rebuilds them whenever the focus moves;
with a dozen keys that is most of the cost of showing a pane for the first time. This
renders the same bindings as one line of text.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from textual.content import Content
from textual.widgets import Static


class KeyLine(Static):
    DEFAULT_CSS = """
    KeyLine { height: 1; dock: bottom; background: $panel; padding: 0 1; }
    """
    #: the line on screen now (its text, and the styled content), to skip repainting it
    _shown: str | None = None
    _shown_content: Content | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._changed)
        self._render_keys()

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _changed(self, screen: Any) -> None:
        if self.is_attached and screen is self.screen:
            self._render_keys()  # now, so the keys change in the same frame as the focus

    def _render_keys(self) -> None:
        active = self.screen.active_bindings
        by_action: dict[str, list[Any]] = defaultdict(list)
        for _node, binding, enabled, _tooltip in active.values():
            if binding.show:
                by_action[binding.action].append((binding, enabled))
        parts: list[Any] = []
        for bindings in by_action.values():
            binding, enabled = bindings[0]
            key = self.app.get_key_display(binding)
            if parts:
                parts.append("  ")
            style = "bold $accent" if enabled else "$foreground-muted"
            parts += [
                (key, style),
                (f" {binding.description}", "" if enabled else "$foreground-muted"),
            ]
        left = Content.assemble(*parts)
        palette = Content.assemble(("ctrl+p", "bold $accent"), (" palette", "$foreground-muted"))
        width = self.content_size.width or self.size.width or 80
        room = width - palette.cell_length - 2
        if left.cell_length > room:
            left = left.truncate(max(0, room), ellipsis=True)
        line = (
            left + Content(" " * max(2, width - left.cell_length - palette.cell_length)) + palette
        )
        if (
            line.plain != self._shown
            or self._shown_content is None
            or not line.is_same(self._shown_content)
        ):
            self._shown, self._shown_content = line.plain, line
            self.update(line)

    def on_resize(self) -> None:
        self._render_keys()
