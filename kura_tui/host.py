"""The app a screen or widget runs in, typed: screens call the app's own methods
(``host(self).save_memory(...)``), and the type checker follows each call."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.dom import DOMNode

if TYPE_CHECKING:
    from .app import KuraApp


def host(node: DOMNode) -> KuraApp:
    """The :class:`~kura_tui.app.KuraApp` *node* belongs to."""
    return cast("KuraApp", node.app)
