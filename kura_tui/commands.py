"""kura's commands in Textual's command palette (ctrl+p)."""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Iterator

from textual.command import DiscoveryHit, Hit, Hits, Provider


class KuraCommands(Provider):
    """Store switching, the panes, and the actions on the current store and draft."""

    def _commands(self) -> Iterator[tuple[str, str, Callable[[], Any]]]:
        app: Any = self.app
        for name in app.store_names():
            yield f"Store: {name}", f"switch every pane to the store {name}", partial(app.switch_store, name)
        yield "Weave the map", "rebuild the woven map of the current store", app.action_weave
        yield "Doctor (probe models)", "health of the store, asking each model endpoint", app.action_doctor
        yield "Refresh", "reload every pane from disk", app.action_refresh
        for i, (label, help) in enumerate((
                ("Show the map", "the woven map, its layers and token meter"),
                ("Show drafts", "the queue of drafts with their evidence"),
                ("Show the gate log", "dropped candidates, tossed drafts, refusals, pours"),
                ("Recall…", "ask the store a question"),
                ("Show the doctor", "health, models, tender heartbeat"))):
            yield label, help, partial(app.show_tab, i)
        yield "Pour the selected draft", "write it into the store and its index", partial(app.draft_action, "pour")
        yield "Fix the selected draft", "edit it; the floor checks it again", partial(app.draft_action, "fix")
        yield "Toss the selected draft…", "remove it, with a reason kept in the gate log", \
            partial(app.draft_action, "toss")
        yield "Help: every key", "the help screen", app.action_help

    async def discover(self) -> Hits:
        for text, help, fn in self._commands():
            yield DiscoveryHit(text, fn, help=help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, help, fn in self._commands():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), fn, text=text, help=help)
