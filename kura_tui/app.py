"""KuraApp: the full-screen face for the person who owns the memory.

Every core call runs in a thread worker that only posts a message; the handlers here
route each message to the pane that shows it. Results for a store that is no longer on
screen, or from a load that a newer one superseded, are dropped.
"""

from __future__ import annotations

import functools
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable

from textual.app import App
from textual.binding import Binding

from kura_core.errors import KuraError
from kura_core.kura import Kura

from .backend import Backend
from .commands import KuraCommands
from .messages import (
    CoreFailed,
    DoctorLoaded,
    DraftActed,
    DraftsLoaded,
    GateLogLoaded,
    HealthLoaded,
    MapLoaded,
    MemoryLoaded,
    RecallDone,
    StoreChanged,
    StoresLoaded,
)
from .screens.confirm import ConfirmScreen, TossScreen
from .screens.fix import FixScreen
from .screens.help import HelpScreen, binding_rows
from .screens.main import MainScreen
from .screens.memory import MemoryScreen
from .widgets.drafts import DraftsPane
from .widgets.gatelog import GateLogPane
from .widgets.map import MapPane
from .widgets.recall import RecallPane
from .widgets.stores import StoresPane

#: what a change under a store's directory means for the panes
CHANGE_KINDS = {
    "memories": ("map", "doctor"),
    "drafts": ("drafts", "doctor"),
    "workshop": ("gatelog", "doctor"),
    "map": ("map",),
}


#: loads that read every memory: one at a time, so the UI thread keeps its share of the GIL
HEAVY = frozenset({"map", "doctor", "health", "drafts"})


def classify(rel: Path) -> str | None:
    """Which part of a store a changed path belongs to (None: nothing on screen)."""
    from kura_core.fsutil import is_temp_name

    parts = rel.parts
    if not parts or is_temp_name(parts[-1]):
        return None
    if parts[0] == "_still":
        if len(parts) >= 3 and parts[1] == "drafts":
            return "drafts" if parts[-1].endswith(".md") else None
        name = parts[-1]
        if name in ("kura.db", "kura.db-wal"):
            return "workshop"
        if len(parts) == 2 and name not in ("write.lock", "intent.json", "kura.db-shm", "kura.db-journal"):
            return "map"
        return None
    if len(parts) == 1 and parts[0].endswith(".md"):
        return "memories"
    return None


def _needs_main(handler: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
    """Drop a message that arrives while the app is closing (the panes are gone)."""

    @functools.wraps(handler)
    def guarded(self: "KuraApp", message: Any) -> None:
        if self._stop.is_set() or not any(isinstance(s, MainScreen) for s in self.screen_stack):
            return
        handler(self, message)

    return guarded


def _err(exc: BaseException) -> str:
    if isinstance(exc, KuraError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


class KuraApp(App[None]):
    """kura's TUI. ``watch=False`` and ``frozen=True`` make it deterministic for tests."""

    TITLE = "kura"
    CSS_PATH = "kura.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    COMMANDS = App.COMMANDS | {KuraCommands}
    COMMAND_PALETTE_DISPLAY = "ctrl+p"

    BINDINGS = [
        Binding("question_mark,f1", "help", "Help", tooltip="This screen: every key", id="app.help"),
        Binding("q", "quit", "Quit", tooltip="Quit (asks first if an edit is unsaved)", id="app.quit"),
        Binding("w", "weave", "Weave", tooltip="Re-weave the current store's map and write it", id="app.weave"),
        Binding("d", "doctor", "Probe", tooltip="Doctor: check the store and ask every model endpoint",
                id="app.doctor"),
        Binding("r", "refresh", "Refresh", show=False, tooltip="Reload every pane from disk", id="app.refresh"),
    ]

    def __init__(self, kura: Kura, *, store: str | None = None, watch: bool = True, frozen: bool = False,
                 clock: Callable[[], float] | None = None) -> None:
        super().__init__()
        self.kura = kura
        self.backend = Backend(kura)
        self.current_store = self.backend.resolve(store)
        self.watch_enabled = watch
        self.frozen = frozen
        self.kura_clock = clock or kura.registry.clock
        self._gen: Counter[str] = Counter()
        self._stop = threading.Event()
        self._heavy = threading.Lock()
        self._rows: list[dict[str, Any]] = []
        self.watching = threading.Event()
        self.first_paint: float | None = None
        if frozen:
            self.animation_level = "none"

    # ---- life ------------------------------------------------------------
    @property
    def main(self) -> MainScreen:
        for s in self.screen_stack:
            if isinstance(s, MainScreen):
                return s
        raise RuntimeError("the main screen is gone")

    async def on_mount(self) -> None:
        await self.push_screen(MainScreen(self.kura_clock, live=not self.frozen))
        self.main.stores.select(self.current_store)
        self._title()
        self.load_all()
        if self.watch_enabled:
            self.run_worker(self._watch, thread=True, group="watch", name="watch", exit_on_error=False)

    def on_unmount(self) -> None:
        self._stop.set()

    def exit(self, *args: Any, **kw: Any) -> None:
        self._stop.set()
        super().exit(*args, **kw)

    # ---- workers ---------------------------------------------------------
    def _spawn(self, kind: str, fn: Callable[..., Any], *args: Any, store: str = "", **kw: Any) -> None:
        """Run fn(*args) in a thread; post the message it returns, unless superseded."""
        self._gen[kind] += 1
        gen = self._gen[kind]

        heavy = kind.split(":")[0] in HEAVY

        def job() -> None:
            try:
                if heavy:
                    with self._heavy:
                        if self._gen[kind] != gen or self._stop.is_set():
                            return
                        msg = fn(*args, **kw)
                else:
                    msg = fn(*args, **kw)
            except Exception as exc:  # a core failure is a notification, never a crash
                msg = CoreFailed(kind, _err(exc), store)
            if msg is not None and self._gen[kind] == gen and not self._stop.is_set():
                self.post_message(msg)

        self.run_worker(job, thread=True, group=kind, name=kind, exit_on_error=False)

    def load_all(self) -> None:
        self.load_overview()
        for name in self.store_names():
            if name != self.current_store:
                self.load_health(name)
        self.load_current(("map", "drafts", "gatelog", "doctor"))

    def load_overview(self) -> None:
        b = self.backend
        self._spawn("overview", lambda: StoresLoaded(b.overview()))

    def load_health(self, name: str) -> None:
        b = self.backend
        self._spawn(f"health:{name}", lambda: HealthLoaded({name: b.health(name)}), store=name)

    def load_current(self, parts: Iterable[str]) -> None:
        name = self.current_store
        b = self.backend
        parts = set(parts)
        if "map" in parts:
            self._spawn("map", lambda: MapLoaded(name, *b.woven(name)), store=name)
        if "drafts" in parts:
            self._spawn("drafts", lambda: DraftsLoaded(name, *b.drafts(name)), store=name)
        if "gatelog" in parts:
            self._spawn("gatelog", lambda: GateLogLoaded(name, b.gate_log(name), b.seeds(name)), store=name)
        if "doctor" in parts:
            self._spawn("doctor", lambda: DoctorLoaded(name, b.doctor(name)), store=name)

    def _watch(self) -> None:
        """Watch every store directory; post which parts of which store changed."""
        import watchfiles

        roots = {}
        for name, root in self.backend.roots().items():
            p = Path(root)
            if p.is_dir():
                roots[name] = p.resolve()
        if not roots:
            return
        watcher = watchfiles.watch(*roots.values(), stop_event=self._stop, debounce=800, step=80,
                                   rust_timeout=300, yield_on_timeout=True, raise_interrupt=False)
        for changes in watcher:
            self.watching.set()  # the first yield (changes or a timeout) means the watch is live
            if self._stop.is_set():
                break
            per: dict[str, set[str]] = {}
            for _, raw in changes:
                path = Path(raw)
                for name, root in roots.items():
                    try:
                        rel = path.relative_to(root)
                    except ValueError:
                        continue
                    kind = classify(rel)
                    if kind:
                        per.setdefault(name, set()).add(kind)
            for name, kinds in per.items():
                self.post_message(StoreChanged(name, frozenset(kinds)))

    # ---- stores ----------------------------------------------------------
    def store_names(self) -> list[str]:
        return self.backend.names()

    def switch_store(self, name: str) -> None:
        if name == self.current_store:
            return
        self.current_store = name
        self.main.stores.select(name)
        self._title()
        self.main.recall.clear(name)
        self.load_overview()
        self.load_current(("map", "drafts", "gatelog", "doctor"))

    def cycle_store(self, step: int) -> None:
        names = self.store_names()
        if len(names) < 2:
            self.notify("only one store is configured", severity="information")
            return
        i = names.index(self.current_store) if self.current_store in names else 0
        self.switch_store(names[(i + step) % len(names)])

    def _title(self) -> None:
        label = ""
        for r in self._rows:
            if r["name"] == self.current_store:
                label = r.get("label") or ""
        degraded = "" if self.kura.registry.config.models.get("thinker") else "no thinker: recall by words"
        self.main.set_title(self.current_store, label, degraded)

    def show_tab(self, index: int) -> None:
        self.main.action_tab(index)

    # ---- message routing ---------------------------------------------------
    @_needs_main
    def on_stores_loaded(self, m: StoresLoaded) -> None:
        self._rows = m.rows
        self.main.stores.show_rows(m.rows)
        if self.first_paint is None:
            self.call_after_refresh(self._painted)
        for r in m.rows:
            if r["name"] == self.current_store:
                self.main.set_draft_count(r.get("drafts_waiting", 0))
        self._title()

    def _painted(self) -> None:
        if self.first_paint is None:
            self.first_paint = time.perf_counter()

    @_needs_main
    def on_health_loaded(self, m: HealthLoaded) -> None:
        self.main.stores.show_health(m.health)

    @_needs_main
    def on_map_loaded(self, m: MapLoaded) -> None:
        if m.store != self.current_store:
            return
        self.main.map.show(m.woven, m.prefill)
        if m.wove:
            lines = len(getattr(m.woven, "lines", ()) or ())
            self.notify(f"woven: {lines} lines, ~{getattr(m.woven, 'tokens_est', 0)} tokens",
                        title=f"weave · {m.store}")

    @_needs_main
    def on_drafts_loaded(self, m: DraftsLoaded) -> None:
        if m.store != self.current_store:
            return
        self.main.drafts.show(m.drafts, m.problems)
        self.main.set_draft_count(len(m.drafts))

    @_needs_main
    def on_gate_log_loaded(self, m: GateLogLoaded) -> None:
        if m.store != self.current_store:
            return
        self.main.gatelog.show(m.rows, m.seeds)

    @_needs_main
    def on_doctor_loaded(self, m: DoctorLoaded) -> None:
        self.main.stores.show_health({m.store: m.report})
        if m.store != self.current_store:
            return
        self.main.doctor.show(m.report, m.probed)
        if m.probed:
            self.notify("doctor asked every model endpoint", title=f"doctor · {m.store}")

    @_needs_main
    def on_recall_done(self, m: RecallDone) -> None:
        if m.store != self.current_store:
            return
        self.main.recall.show(m.result)

    @_needs_main
    def on_memory_loaded(self, m: MemoryLoaded) -> None:
        for s in self.screen_stack:
            if isinstance(s, MemoryScreen) and s.store == m.store:
                s.show(m.slug, m.memory, m.error)

    @_needs_main
    def on_store_changed(self, m: StoreChanged) -> None:
        self.load_overview()
        if m.store != self.current_store:
            self.load_health(m.store)
            return
        parts: set[str] = set()
        for kind in m.kinds:
            parts.update(CHANGE_KINDS.get(kind, ()))
        self.load_current(parts)

    @_needs_main
    def on_core_failed(self, m: CoreFailed) -> None:
        what = m.what.split(":")[0]
        if what == "map" and m.store == self.current_store:
            self.main.map.show_error(m.error)
        if what == "memory":
            for s in self.screen_stack:
                if isinstance(s, MemoryScreen):
                    s.show(s.slug, None, m.error)
        self.notify(m.error, title=f"{what} failed" + (f" · {m.store}" if m.store else ""),
                    severity="error", timeout=10)

    @_needs_main
    def on_stores_pane_picked(self, m: StoresPane.Picked) -> None:
        self.switch_store(m.name)

    @_needs_main
    def on_map_pane_open_memory(self, m: MapPane.OpenMemory) -> None:
        self.open_memory(m.slug)

    @_needs_main
    def on_recall_pane_open_memory(self, m: RecallPane.OpenMemory) -> None:
        self.open_memory(m.slug)

    @_needs_main
    def on_recall_pane_ask(self, m: RecallPane.Ask) -> None:
        name = self.current_store
        b = self.backend
        self._spawn("recall", lambda: RecallDone(name, b.recall(name, m.question)), store=name)

    @_needs_main
    def on_drafts_pane_act(self, m: DraftsPane.Act) -> None:
        self.act_on_draft(m.action, m.draft)

    # ---- memories ----------------------------------------------------------
    def open_memory(self, slug: str) -> None:
        self.push_screen(MemoryScreen(self.current_store, slug))

    def load_memory(self, store: str, slug: str) -> None:
        b = self.backend
        self._spawn("memory", lambda: MemoryLoaded(store, slug, b.read(store, slug)), store=store)

    # ---- drafts ------------------------------------------------------------
    def draft_action(self, action: str) -> None:
        self.show_tab(1)
        d = self.main.drafts.selected
        if d is None:
            self.notify("no draft is selected", severity="warning")
            return
        self.act_on_draft(action, d)

    def act_on_draft(self, action: str, draft: Any) -> None:
        store = self.current_store
        if action == "pour":
            self._run_draft("pour", store, draft.slug)
        elif action == "fix":
            self.push_screen(FixScreen(store, draft, blink=not self.frozen), self._after_fix)
        elif action == "toss":
            def confirmed(yes: bool | None, reason: str) -> None:
                if yes:
                    self._run_draft("toss", store, draft.slug, reason=reason)

            def got_reason(reason: str | None) -> None:
                if reason:
                    self.push_screen(ConfirmScreen(
                        f"Toss “{draft.title}”?",
                        f"The draft leaves the queue and never enters the store {store}. "
                        f"The gate log keeps it whole, with the reason: {reason}",
                        yes="Toss"), lambda yes: confirmed(yes, reason))

            self.push_screen(TossScreen(draft.title, blink=not self.frozen), got_reason)

    def _after_fix(self, saved: bool | None) -> None:
        if saved:
            self.load_current(("drafts", "gatelog"))

    def fix_draft(self, store: str, slug: str, fields: dict[str, Any]) -> None:
        self._run_draft("fix", store, slug, **fields)

    def _run_draft(self, action: str, store: str, slug: str, **kw: Any) -> None:
        b = self.backend

        def job() -> DraftActed:
            from kura_core.distill.drafts import FloorRefused

            try:
                if action == "pour":
                    mem = b.pour(store, slug)
                    return DraftActed(store, action, slug, ok=True, result=mem,
                                      text=f"poured into {store} as {mem.slug}")
                if action == "toss":
                    b.toss(store, slug, kw["reason"])
                    return DraftActed(store, action, slug, ok=True, text="tossed; the gate log keeps the reason")
                new = b.fix(store, slug, **kw)
                return DraftActed(store, action, slug, ok=True, result=new, text="fixed; the floor passed it")
            except FloorRefused as exc:
                return DraftActed(store, action, slug, ok=False, violations=exc.violations,
                                  text=str(exc))
            except KuraError as exc:
                return DraftActed(store, action, slug, ok=False, text=str(exc))

        self._spawn(f"draft:{action}:{slug}", job, store=store)

    @_needs_main
    def on_draft_acted(self, m: DraftActed) -> None:
        if m.action == "fix":
            for s in self.screen_stack:
                if isinstance(s, FixScreen) and s.draft.slug == m.slug:
                    if m.ok:
                        s.dismiss(True)
                    else:
                        s.show_refusal(m.violations, m.text)
        if m.ok:
            self.notify(m.text, title=f"{m.action} · {m.slug}")
        else:
            self.notify(m.text, title=f"{m.action} refused · {m.slug}", severity="error", timeout=10)
        self.load_overview()
        if m.store == self.current_store:
            self.load_current(("drafts", "gatelog", "doctor") + (("map",) if m.action == "pour" else ()))

    # ---- actions -----------------------------------------------------------
    def action_weave(self) -> None:
        name = self.current_store
        b = self.backend
        self.notify("weaving the map…", title=f"weave · {name}", timeout=3)
        self._spawn("map", lambda: MapLoaded(name, *b.woven(name, weave=True), wove=True), store=name)

    def action_doctor(self) -> None:
        name = self.current_store
        b = self.backend
        self.show_tab(4)
        self._spawn("doctor", lambda: DoctorLoaded(name, b.doctor(name, probe=True), probed=True), store=name)

    def action_refresh(self) -> None:
        self.load_all()

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.help_sections()))

    async def action_quit(self) -> None:
        dirty = [s for s in self.screen_stack if isinstance(s, FixScreen) and s.dirty]
        if not dirty:
            self.exit()
            return

        def answer(yes: bool | None) -> None:
            if yes:
                self.exit()

        self.push_screen(ConfirmScreen(
            "Quit with an unsaved edit?",
            f"Your edit of the draft {dirty[0].draft.slug} is not saved; quitting loses it.",
            yes="Quit"), answer)

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        everywhere = binding_rows(self, [KuraApp])
        everywhere += [("ctrl+p", "Command palette (kura's commands)"), ("ctrl+q", "Quit")]
        moving = [("tab / shift+tab", "Next / previous pane"),
                  ("↑ ↓ / j k", "Move in a list"), ("enter", "Open / select"),
                  ("pgup / pgdn", "Scroll")]
        return [
            ("Everywhere", everywhere),
            ("Main screen", binding_rows(self, [MainScreen]) + moving),
            ("Map pane", binding_rows(self, [MapPane])),
            ("Drafts pane", binding_rows(self, [DraftsPane])),
            ("Gate log pane", binding_rows(self, [GateLogPane])),
            ("Recall console", [("enter", "Ask the question")] + binding_rows(self, [RecallPane])),
            ("Fix screen", binding_rows(self, [FixScreen])),
            ("Toss dialog", [("enter", "Continue to confirmation")] + binding_rows(self, [TossScreen])),
            ("Confirmation", binding_rows(self, [ConfirmScreen])),
            ("Memory viewer", [("enter", "Follow the highlighted link")] + binding_rows(self, [MemoryScreen])),
            ("Help", binding_rows(self, [HelpScreen])),
        ]

