"""kura's commands in Textual's command palette (ctrl+p): every action, with its key."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

PANES = (
    ("Show the map", "the map hosts wear, its layers and token meter", "1"),
    ("Show drafts", "the queue of drafts with their evidence", "2"),
    ("Show the gate log", "dropped, tossed, refused, poured, edited, retired", "3"),
    ("Recall…", "ask the store a question", "4"),
    ("Show the doctor", "health, models, tender heartbeat", "5"),
    ("Show seeds", "ideas waiting for evidence, and what confirmed them", "6"),
    ("Show the tender", "running or not, its last tick, its log", "7"),
    ("Show the journals", "what the store drinks: marks, backlog, shelved stretches", "8"),
)


#: the binding id of each pane's key, in PANES' order
PANE_IDS = tuple(
    f"main.tab.{t}"
    for t in ("map", "drafts", "gatelog", "recall", "doctor", "seeds", "tender", "journals")
)


def _with_key(help: str, key: str) -> str:
    return f"{help}  · key {key}"


class KuraCommands(Provider):
    """Store switching, the panes, and every action on the current store."""

    def _commands(self) -> Iterator[tuple[str, str, Callable[[], Any]]]:
        app: Any = self.app
        for name in app.store_names():
            yield (
                f"Store: {name}",
                f"switch every pane to the store {name}  · keys [ ]",
                partial(app.switch_store, name),
            )
        for i, (label, help, key) in enumerate(PANES):
            yield label, _with_key(help, self._key(PANE_IDS[i], key)), partial(app.show_tab, i)

        yield from self._work()
        yield from self._selection()
        yield from self._profile_and_health()

    def _key(self, binding: str, default: str) -> str:
        """The key of *binding* as the person set it in [keys], else *default*."""
        keys: dict[str, str] = getattr(self.app, "keys", None) or {}
        return keys.get(binding, default).replace(",", " / ")

    def _model(self, kind: str, help: str) -> str:
        """*help*, with why the model it needs cannot run when it cannot."""
        app: Any = self.app
        why = app.needs(kind)
        return f"{help} — {why}" if why else help

    def _work(self) -> Iterator[tuple[str, str, Callable[[], Any]]]:
        """Long work on the current store: distil, drain, tidy, weave, stop."""
        app: Any = self.app
        model = self._model
        yield (
            "Distil now",
            _with_key(
                model("distil", "drink what is new in the journals into drafts"),
                self._key("app.distil", "D"),
            ),
            app.action_distil,
        )
        yield (
            "Drain the drafts",
            _with_key(
                model("drain", "the scribe pours, fixes or tosses every waiting draft"),
                self._key("app.drain", "N"),
            ),
            app.action_drain,
        )
        yield (
            "Tidy the index…",
            _with_key(
                model("tidy", "review rewrites of weak index lines one by one"),
                self._key("app.tidy", "T"),
            ),
            app.action_tidy,
        )
        yield (
            "Weave the map…",
            _with_key(
                "preview the new map against the current one, then write it",
                self._key("app.weave", "w"),
            ),
            app.action_weave,
        )
        yield (
            "Stop the running work",
            _with_key(
                "distil, drain or tidy stop at their next safe point", self._key("app.stop", "S")
            ),
            app.action_stop,
        )

    def _selection(self) -> Iterator[tuple[str, str, Callable[[], Any]]]:
        """What is done to the selected memory, draft or seed."""
        app: Any = self.app
        yield (
            "Open the selected memory",
            _with_key(
                "provenance, evidence, links, history",
                self._key("map.open", "enter") + " in the map",
            ),
            partial(app.selected_memory, "open"),
        )
        yield (
            "Edit the selected memory",
            _with_key(
                "in the app: a hand edit, recorded as yours",
                self._key("map.edit", "e") + " in the map",
            ),
            partial(app.selected_memory, "edit"),
        )
        yield (
            "Edit the selected memory in $EDITOR",
            _with_key(
                "the app suspended while you edit", self._key("map.editor", "E") + " in the map"
            ),
            partial(app.selected_memory, "editor"),
        )
        yield (
            "Retire the selected memory…",
            _with_key(
                "file and index line go; the gate log keeps it",
                self._key("map.retire", "x") + " in the map",
            ),
            partial(app.selected_memory, "retire"),
        )
        yield (
            "Find…",
            _with_key(
                "filter the map, drafts or gate log as you type", self._key("main.find", "/")
            ),
            app.find,
        )
        yield (
            "Pour the selected draft",
            _with_key("write it into the store and its index", self._key("drafts.pour", "p")),
            partial(app.draft_action, "pour"),
        )
        yield (
            "Fix the selected draft",
            _with_key(
                "edit it; the floor checks it again", self._key("drafts.fix", "e") + " in drafts"
            ),
            partial(app.draft_action, "fix"),
        )
        yield (
            "Toss the selected draft…",
            _with_key(
                "remove it, with a reason kept in the gate log", self._key("drafts.toss", "t")
            ),
            partial(app.draft_action, "toss"),
        )
        yield (
            "Open the selected draft's journal",
            _with_key(
                "each quote beside the journal around it",
                self._key("drafts.evidence", "o") + " in drafts",
            ),
            partial(app.draft_action, "evidence"),
        )
        yield (
            "Dismiss the selected seed…",
            _with_key(
                "a waiting idea is no longer checked", self._key("seeds.dismiss", "x") + " in seeds"
            ),
            partial(app.seed_action, "dismiss"),
        )
        yield (
            "Revive the selected seed",
            _with_key(
                "a withered idea waits and is checked again",
                self._key("seeds.revive", "r") + " in seeds",
            ),
            partial(app.seed_action, "revive"),
        )
        yield (
            "Open the selected seed's journal",
            _with_key(
                "where the idea came from, and what confirmed it",
                self._key("seeds.origin", "o") + " in seeds",
            ),
            partial(app.seed_action, "origin"),
        )

    def _profile_and_health(self) -> Iterator[tuple[str, str, Callable[[], Any]]]:
        """The learned profile, the doctor, refresh and help."""
        app: Any = self.app
        model = self._model
        yield (
            "Show the learned profile",
            _with_key(
                "the current profile.md beside the brain's waiting draft",
                self._key("app.profile", "P"),
            ),
            app.action_profile,
        )
        yield (
            "Draft the learned profile",
            _with_key(
                model("profile", "ask the brain for a new draft from the store's memories"),
                self._key("profile.draft", "n") + " in the profile",
            ),
            partial(app.profile_command, "draft"),
        )
        yield (
            "Apply the profile draft…",
            _with_key(
                "make the waiting draft the profile (asks first)",
                self._key("profile.apply", "a") + " in the profile",
            ),
            partial(app.profile_command, "apply"),
        )
        yield (
            "Doctor (probe models)",
            _with_key(
                "health of the store, asking each model endpoint", self._key("app.doctor", "d")
            ),
            app.action_doctor,
        )
        yield (
            "Refresh",
            _with_key("reload every pane from disk", self._key("app.refresh", "r")),
            app.action_refresh,
        )
        yield (
            "Help: every key",
            _with_key("the help screen", self._key("app.help", "?")),
            app.action_help,
        )

    async def discover(self) -> Hits:
        for text, help, fn in self._commands():
            yield DiscoveryHit(text, fn, help=help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, help, fn in self._commands():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), fn, text=text, help=help)
