"""KuraApp: the full-screen face for the person who owns the memory.

Every core call runs in a thread worker that only posts a message; the handlers here
route each message to the pane or screen that shows it. Results for a store that is no
longer on screen, or from a load that a newer one superseded, are dropped. Long work
(distil, drain, tidy, a weave preview) runs one job at a time with a progress strip and
a stop key; the keys stay live meanwhile.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import getpass
import itertools
import os
import shlex
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import watchfiles
from textual.app import App, SuspendNotSupported
from textual.binding import Binding
from textual.content import Content
from textual.notifications import Notify, SeverityLevel

from kura_core import (
    Draft,
    FloorRefused,
    MemoryView,
    ProfileState,
    Quote,
    ScrubReport,
    Seed,
    editable_text,
    is_temp_name,
    parse_editable,
)
from kura_core.errors import KuraError
from kura_core.kura import Kura, StoreSummary
from kura_core.vocabulary import SeedState

if TYPE_CHECKING:
    from kura_core import DoctorReport, WeavePreview

from .commands import KuraCommands
from .messages import (
    Acted,
    CoreFailed,
    DoctorLoaded,
    DraftActed,
    DraftsLoaded,
    Edited,
    ExcerptLoaded,
    GateLogLoaded,
    HealthLoaded,
    JournalsLoaded,
    MapLoaded,
    MemoryLoaded,
    NeedsLoaded,
    OpenEdit,
    OpenEditor,
    OpenRetire,
    ProfileLoaded,
    ProfileSet,
    RecallDone,
    Retired,
    SeedDismissed,
    SeedRevived,
    SeedsLoaded,
    StoreChanged,
    StoreFixed,
    StoresLoaded,
    TenderLoaded,
    TidyWritten,
    WorkDone,
    WorkProgress,
    Woven,
)
from .screens.confirm import ConfirmScreen, LinksScreen, ReasonScreen, TossScreen
from .screens.diff import DiffScreen
from .screens.edit import MemoryEditScreen
from .screens.evidence import EvidenceScreen
from .screens.fix import FixScreen
from .screens.help import HelpScreen, binding_ids, binding_rows
from .screens.history import HistoryScreen
from .screens.main import NARROW, MainScreen
from .screens.memory import MemoryScreen
from .screens.notes import NotesScreen
from .screens.profile import ProfileScreen
from .screens.tidy import TidyScreen
from .screens.weave import WeaveScreen
from .toasts import NoteLog, Rack, toast_timeout
from .widgets.drafts import DraftsPane
from .widgets.find import FindInput
from .widgets.gatelog import GateLogPane
from .widgets.journals import JournalsPane
from .widgets.map import MapPane
from .widgets.recall import RecallPane
from .widgets.rowlist import RowList
from .widgets.seeds import SeedsPane
from .widgets.stores import StoresPane

PARTS = ("map", "drafts", "gatelog", "doctor", "seeds", "tender", "journals")

#: what a change under a store's directory means for the panes
CHANGE_KINDS = {
    "memories": ("map", "doctor"),
    "drafts": ("drafts", "doctor"),
    "workshop": ("gatelog", "doctor", "seeds", "tender", "journals"),
    "map": ("map",),
    "tender": ("tender",),
    "profile": ("doctor",),
}

#: loads that read every memory: one at a time, so the UI thread keeps its share of the GIL
HEAVY = frozenset({"map", "doctor", "health", "drafts"})

#: how often the tender pane re-reads the heartbeat while it is on screen (live ages)
TENDER_POLL_S = 5.0

_jobs = itertools.count(1)


#: the learned profile's files: beside the charter, and its draft and predecessor in the workshop
PROFILE_FILE = "profile.md"
PROFILE_STILL = frozenset({"profile-draft.md", "profile-previous.md"})


def classify(rel: Path) -> str | None:
    """Which part of a store a changed path belongs to (None: nothing on screen)."""

    parts = rel.parts
    if not parts or is_temp_name(parts[-1]):
        return None
    if len(parts) == 1 and parts[0] == PROFILE_FILE:
        return "profile"
    if parts[0] == "_still":
        if len(parts) == 2 and parts[1] in PROFILE_STILL:
            return "profile"
        if len(parts) >= 3 and parts[1] == "drafts":
            return "drafts" if parts[-1].endswith(".md") else None
        name = parts[-1]
        if name in ("kura.db", "kura.db-wal"):
            return "workshop"
        if len(parts) == 2 and name == "tend.log":
            return "tender"
        if len(parts) == 2 and name not in (
            "write.lock",
            "intent.json",
            "kura.db-shm",
            "kura.db-journal",
            "tend.lock",
        ):
            return "map"
        return None
    if len(parts) == 1 and parts[0].endswith(".md"):
        return "memories"
    return None


def who() -> str:
    """Who a hand action is recorded as: the login name, and that it came from the app."""
    try:
        name = getpass.getuser()
    except Exception:  # no login name (a container, a service)
        name = ""
    return f"{name} (tui)" if name else "tui"


#: what a memory's view is read for, by the action that asked (``open_memory``)
OPENS: dict[str, type[Acted]] = {"edit": OpenEdit, "editor": OpenEditor, "retire": OpenRetire}


def _needs_main(handler: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
    """Drop a message that arrives while the app is closing (the panes are gone, or going:
    a worker's result can be handled while Textual takes the screens down)."""

    @functools.wraps(handler)
    def guarded(self: KuraApp, message: Any) -> None:
        if self._stop.is_set() or not self.is_running:
            return
        main = next((s for s in self.screen_stack if isinstance(s, MainScreen)), None)
        if main is None or not main.is_running:
            return
        handler(self, message)

    return guarded


def _err(exc: BaseException) -> str:
    if isinstance(exc, KuraError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def edits_dir() -> Path:
    """Where an edit in $EDITOR is kept until it is written (a kill loses nothing)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "kura" / "edits"


class Job:
    """One long piece of work: which, on what, and how to ask it to stop."""

    def __init__(self, kind: str, store: str) -> None:
        self.id = next(_jobs)
        self.kind = kind
        self.store = store
        self.stop = threading.Event()
        self.abandoned = False


class KuraApp(App[None]):
    """kura's TUI. ``watch=False`` and ``frozen=True`` make it deterministic for tests."""

    TITLE = "kura"
    CSS_PATH = "kura.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW, "-wide")]
    COMMANDS = App.COMMANDS | {KuraCommands}
    COMMAND_PALETTE_DISPLAY = "ctrl+p"

    BINDINGS = [
        Binding(
            "question_mark,f1", "help", "Help", tooltip="This screen: every key", id="app.help"
        ),
        Binding(
            "q",
            "quit",
            "Quit",
            tooltip="Quit (asks first if an edit is unsaved or work is running)",
            id="app.quit",
        ),
        Binding(
            "w",
            "weave",
            "Weave",
            tooltip="Weave the map: preview it against the current one, then write",
            id="app.weave",
        ),
        Binding(
            "D",
            "distil",
            "Distil",
            show=False,
            tooltip="Distil now: drink what is new in the journals into drafts (needs brain and scribe)",
            id="app.distil",
        ),
        Binding(
            "N",
            "drain",
            "Drain",
            show=False,
            tooltip="Drain: the scribe pours, fixes or tosses every waiting draft (needs a scribe)",
            id="app.drain",
        ),
        Binding(
            "T",
            "tidy",
            "Tidy",
            show=False,
            tooltip="Tidy: review rewrites of weak index lines one by one (without a scribe: by hand)",
            id="app.tidy",
        ),
        Binding(
            "S",
            "stop",
            "Stop",
            show=False,
            tooltip="Stop the running distil, drain or tidy at a safe point",
            id="app.stop",
        ),
        Binding(
            "h",
            "history",
            "History",
            show=False,
            tooltip="The store's history: every change with who and what, its diff; u undoes one",
            id="app.history",
        ),
        Binding(
            "P",
            "profile",
            "Profile",
            tooltip="The learned profile: the current one beside the brain's draft; n drafts, a applies",
            id="app.profile",
        ),
        Binding(
            "d",
            "doctor",
            "Probe",
            tooltip="Doctor: check the store and ask every model endpoint",
            id="app.doctor",
        ),
        Binding(
            "X",
            "scrub",
            "Scrub",
            show=False,
            tooltip="Scrub: redact the secrets the doctor found stored (asks first; originals "
            "are kept outside the store)",
            id="app.scrub",
        ),
        Binding(
            "m",
            "notes",
            "Messages",
            show=False,
            tooltip="Every message of this session, newest first (toasts are short-lived)",
            id="app.notes",
        ),
        Binding(
            "r",
            "refresh",
            "Refresh",
            show=False,
            tooltip="Reload every pane from disk",
            id="app.refresh",
        ),
    ]

    def __init__(
        self,
        kura: Kura,
        *,
        store: str | None = None,
        watch: bool = True,
        frozen: bool = False,
        clock: Callable[[], float] | None = None,
        by: str | None = None,
    ) -> None:
        super().__init__()
        self.kura = kura
        self.by = by or who()
        #: the keys a person moved in kura.toml's [keys] (binding id -> key)
        self.keys = kura.keys()
        self.set_keymap(self.keys)
        self.current_store = self.kura.resolve(store)
        self.watch_enabled = watch
        self.frozen = frozen
        self.kura_clock = clock or kura.clock
        self._gen: Counter[str] = Counter()
        self._stop = threading.Event()
        self._heavy = threading.Lock()
        self._rows: Sequence[StoreSummary] = ()
        self._needs: dict[str, dict[str, str]] = {}
        self.job: Job | None = None
        self.job_text = ""
        self.watching = threading.Event()
        self.first_paint: float | None = None
        self.filled: dict[str, float] = {}
        #: every notification's message, in the order they were raised (what tests read)
        self.notes_seen: list[str] = []
        self.note_log = NoteLog()
        self._rack = Rack()
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
        # What exists now (the interpreter, Textual, every pane) lives as long as the app:
        # keep the cyclic collector from walking it on every collection while a large store
        # loads and a pane is shown for the first time.
        gc.freeze()
        self.main.stores.select(self.current_store)
        self.main.set_store(self.current_store)
        self._title()
        self.main.workbar.idle({})
        self.load_all()
        unknown = sorted(set(self.keys) - binding_ids())
        if unknown:
            self.notify(
                f"kura.toml [keys]: no key has the id {', '.join(unknown)}; docs/KEYS.md "
                "lists every id",
                title="keys",
                severity="warning",
                timeout=12,
            )
        if self.watch_enabled:
            self.run_worker(
                self._watch, thread=True, group="watch", name="watch", exit_on_error=False
            )
        if not self.frozen:
            self.set_interval(TENDER_POLL_S, self._poll_tender)

    def on_unmount(self) -> None:
        self._stop.set()
        if self.job is not None:
            self.job.stop.set()

    def exit(self, *args: Any, **kw: Any) -> None:
        self._stop.set()
        if self.job is not None:
            self.job.stop.set()
        super().exit(*args, **kw)

    # ---- notifications ---------------------------------------------------
    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """A toast, short-lived whatever timeout is asked for (kura.toasts says why)."""
        self.notes_seen.append(str(message))
        super().notify(
            message,
            title=title,
            severity=severity,
            timeout=toast_timeout(severity, timeout),
            markup=markup,
        )

    def _on_notify(self, event: Notify) -> None:
        event.prevent_default()  # this decides what goes on screen, not App's own handler
        new = event.notification
        gone, toast = self._rack.place(self._notifications, new)
        for old in gone:
            self._unnotify(old, refresh=False)
        self._notifications.add(toast)
        self._refresh_notifications()
        note = self.note_log.add(self.kura_clock(), new.title, new.message, new.severity)
        if note.important:
            for screen in self.screen_stack:
                if isinstance(screen, MainScreen):
                    screen.workbar.note(note)

    def action_notes(self) -> None:
        if not isinstance(self.screen, NotesScreen):
            self.push_screen(NotesScreen(self.note_log.notes))

    # ---- workers ---------------------------------------------------------
    def _spawn(
        self, kind: str, fn: Callable[..., Any], *args: Any, store: str = "", **kw: Any
    ) -> None:
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
        self.load_current(PARTS)

    def load_overview(self) -> None:
        core = self.kura
        name = self.current_store
        self._spawn("overview", lambda: StoresLoaded(core.overview()))
        if name not in self._needs:
            self._spawn(
                "needs",
                lambda: NeedsLoaded(
                    name,
                    {
                        k: core.needs(k, store=name)
                        for k in ("distil", "drain", "tidy", "weave", "profile")
                    },
                ),
                store=name,
            )

    def load_health(self, name: str) -> None:
        core = self.kura
        self._spawn(
            f"health:{name}", lambda: HealthLoaded({name: core.doctor(store=name)}), store=name
        )

    def load_current(self, parts: Iterable[str]) -> None:
        name = self.current_store
        core = self.kura
        parts = set(parts)
        loaders: dict[str, Callable[[], Any]] = {
            "map": lambda: MapLoaded(name, core.map_view(store=name)),
            "drafts": lambda: DraftsLoaded(name, core.drafts(store=name)),
            "gatelog": lambda: GateLogLoaded(name, core.gate_log(store=name)),
            "seeds": lambda: SeedsLoaded(name, core.seed_list(store=name)),
            "tender": lambda: TenderLoaded(name, core.tend_status(store=name)),
            "journals": lambda: JournalsLoaded(name, core.journals(store=name)),
            "doctor": lambda: DoctorLoaded(name, core.doctor(store=name)),
        }
        for part in PARTS:  # in this order: what a person looks at first loads first
            if part in parts:
                self._spawn(part, loaders[part], store=name)

    def _watch(self) -> None:
        """Watch every store directory; post which parts of which store changed."""

        roots: dict[str, Path] = {}
        for summary in self.kura.overview():
            p = Path(summary.path)
            if p.is_dir():
                roots[summary.name] = p.resolve()
        if not roots:
            return
        watcher = watchfiles.watch(
            *roots.values(),
            stop_event=self._stop,
            debounce=800,
            step=80,
            rust_timeout=300,
            yield_on_timeout=True,
            raise_interrupt=False,
        )
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

    def _poll_tender(self) -> None:
        if self._stop.is_set() or not isinstance(self.screen, MainScreen):
            return
        if self.main.active_tab == "tab-tender":
            self.load_current(("tender",))

    def pane_shown(self, tab_id: str) -> None:
        if tab_id == "tab-tender":
            self.load_current(("tender",))

    # ---- stores ----------------------------------------------------------
    def store_names(self) -> list[str]:
        return self.kura.names()

    def switch_store(self, name: str) -> None:
        if name == self.current_store:
            return
        self.current_store = name
        self.main.stores.select(name)
        self.main.set_store(name)
        self._title()
        self.main.recall.clear(name)
        for s in self.screen_stack:
            if isinstance(s, ProfileScreen):
                s.set_store(name)
        self._show_needs()
        self.load_overview()
        self.load_current(PARTS)

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
            if r.name == self.current_store:
                label = r.label
        degraded = (
            "no thinker: recall by words"
            if self.kura.needs("recall", store=self.current_store)
            else ""
        )
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
            if r.name == self.current_store:
                self.main.set_draft_count(r.drafts_waiting)
        self._title()

    def _painted(self) -> None:
        if self.first_paint is None:
            self.first_paint = time.perf_counter()

    def _filled(self, part: str) -> None:
        if part not in self.filled:
            self.call_after_refresh(lambda: self.filled.setdefault(part, time.perf_counter()))

    @_needs_main
    def on_health_loaded(self, m: HealthLoaded) -> None:
        self.main.stores.show_health(m.health)

    @_needs_main
    def on_needs_loaded(self, m: NeedsLoaded) -> None:
        self._needs[m.store] = m.needs
        self._show_needs()

    @_needs_main
    def on_map_loaded(self, m: MapLoaded) -> None:
        if m.store == self.current_store:
            self.main.map.show(m.view)
            self._filled("map")

    @_needs_main
    def on_drafts_loaded(self, m: DraftsLoaded) -> None:
        if m.store == self.current_store:
            self.main.drafts.show(m.view)
            self.main.set_draft_count(len(m.view.drafts))
            self._filled("drafts")

    @_needs_main
    def on_gate_log_loaded(self, m: GateLogLoaded) -> None:
        if m.store == self.current_store:
            self.main.gatelog.show(m.rows)
            self._filled("gatelog")

    @_needs_main
    def on_seeds_loaded(self, m: SeedsLoaded) -> None:
        if m.store == self.current_store:
            self.main.seeds.show(m.seeds)
            self._filled("seeds")

    @_needs_main
    def on_tender_loaded(self, m: TenderLoaded) -> None:
        if m.store == self.current_store:
            self.main.tender.show(m.status)
            self._filled("tender")

    @_needs_main
    def on_journals_loaded(self, m: JournalsLoaded) -> None:
        if m.store == self.current_store:
            self.main.journals.show(m.view)
            self._filled("journals")

    def _show_needs(self) -> None:
        if self.job is None:
            self.main.workbar.idle(self._needs.get(self.current_store, {}))

    @_needs_main
    def on_doctor_loaded(self, m: DoctorLoaded) -> None:
        self.main.stores.show_health({m.store: m.report})
        if m.store != self.current_store:
            return
        self.main.doctor.show(m.report, m.probed)
        self._filled("doctor")
        if m.probed:
            asked = [role for role, mm in m.report.models.items() if mm.configured]
            self.notify(
                f"doctor checked the store and asked {len(asked)} model endpoint(s): "
                + ", ".join(asked)
                if asked
                else "doctor checked the store; no model is configured, so there was no "
                "endpoint to ask (add [models.thinker] to kura.toml)",
                title=f"doctor · {m.store}",
            )

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
    def on_excerpt_loaded(self, m: ExcerptLoaded) -> None:
        for s in self.screen_stack:
            if isinstance(s, EvidenceScreen):
                s.show(m.token, m.excerpt, m.error)

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
        if "memories" in m.kinds:
            for s in self.screen_stack:
                if isinstance(s, MemoryScreen) and s.store == m.store and s.view is not None:
                    s.reload()
        if "profile" in m.kinds:
            for s in self.screen_stack:
                if isinstance(s, ProfileScreen) and s.store == m.store:
                    s.reload()

    @_needs_main
    def on_core_failed(self, m: CoreFailed) -> None:
        what = m.what.split(":")[0]
        if what == "map" and m.store == self.current_store:
            self.main.map.show_error(m.error)
        if what == "memory":
            for s in self.screen_stack:
                if isinstance(s, MemoryScreen):
                    s.show(s.slug, None, m.error)
        if what == "profile":
            for s in self.screen_stack:
                if isinstance(s, ProfileScreen):
                    s.show_error(m.store, m.error)
        self.notify(
            m.error,
            title=f"{what} failed" + (f" · {m.store}" if m.store else ""),
            severity="error",
            timeout=10,
        )

    @_needs_main
    def on_stores_pane_picked(self, m: StoresPane.Picked) -> None:
        self.switch_store(m.name)

    @_needs_main
    def on_map_pane_open_memory(self, m: MapPane.OpenMemory) -> None:
        self.open_memory(m.slug, m.action)

    @_needs_main
    def on_recall_pane_open_memory(self, m: RecallPane.OpenMemory) -> None:
        self.open_memory(m.slug)

    @_needs_main
    def on_recall_pane_ask(self, m: RecallPane.Ask) -> None:
        name = self.current_store
        core = self.kura
        self._spawn(
            "recall", lambda: RecallDone(name, core.recall(m.question, store=name)), store=name
        )

    @_needs_main
    def on_drafts_pane_act(self, m: DraftsPane.Act) -> None:
        self.act_on_draft(m.action, m.draft)

    @_needs_main
    def on_seeds_pane_act(self, m: SeedsPane.Act) -> None:
        self.act_on_seed(m.action, m.seed)

    @_needs_main
    def on_journals_pane_open(self, m: JournalsPane.Open) -> None:

        j = m.journal
        q = Quote(
            cls="MARK",
            text=f"the watermark of {Path(j.path).name}: the next distil starts here",
            source=j.path,
            start=j.mark,
            unit=j.unit,
        )
        self.push_screen(EvidenceScreen(self.current_store, Path(j.path).name, [q]))

    # ---- memories ----------------------------------------------------------
    def open_memory(self, slug: str, action: str = "open") -> None:
        store = self.current_store
        if action == "open":
            self.push_screen(MemoryScreen(store, slug, clock=self.kura_clock))
            return
        core = self.kura

        def job() -> Any:
            try:
                view = core.memory(slug, store=store)
            except KuraError as exc:
                return CoreFailed("memory", str(exc), store)
            return OPENS[action](store, slug, ok=True, result=view)

        self._spawn(f"memory-for:{slug}", job, store=store)

    def load_memory(self, store: str, slug: str) -> None:
        core = self.kura
        self._spawn(
            "memory", lambda: MemoryLoaded(store, slug, core.memory(slug, store=store)), store=store
        )

    def edit_memory(self, store: str, view: MemoryView) -> None:
        self.push_screen(MemoryEditScreen(store, view, by=self.by, blink=not self.frozen))

    def save_memory(
        self,
        store: str,
        slug: str,
        base: str,
        fields: dict[str, Any],
        *,
        edit_file: Path | None = None,
        big_ok: bool = False,
    ) -> None:
        core, by = self.kura, self.by
        huge = "" if big_ok else core.body_warning(fields.get("body") or "", store=store)
        if huge:
            # a body far over the budget is saved only when the person says so
            def answer(yes: bool | None) -> None:
                if yes:
                    self.save_memory(store, slug, base, fields, edit_file=edit_file, big_ok=True)
                else:
                    self._save_called_off(slug, edit_file)

            self.push_screen(
                ConfirmScreen(
                    f"Save a huge memory ({slug})?",
                    f"{huge[0].upper()}{huge[1:]}. Save it anyway?",
                    yes="Save anyway",
                ),
                answer,
            )
            return

        def job() -> Acted:
            try:
                res = core.edit_memory(slug, store=store, base=base, by=by, **fields)
            except KuraError as exc:
                return Edited(store, slug, ok=False, text=str(exc), result=edit_file)
            if edit_file is not None:
                with contextlib.suppress(OSError):
                    edit_file.unlink()
            if not res.changed:
                return Edited(store, slug, ok=True, text="nothing changed", result=res)
            return Edited(
                store,
                slug,
                ok=True,
                result=res,
                text=f"hand edit written ({', '.join(res.changed)}); recorded as {by}'s",
            )

        self._spawn(f"edit:{slug}", job, store=store)

    def _save_called_off(self, slug: str, edit_file: Path | None) -> None:
        """The person chose not to save: the edit form stays open as it was; an $EDITOR
        text stays in its file."""
        for s in self.screen_stack:
            if isinstance(s, MemoryEditScreen) and s.view.slug == slug:
                s.show_error("not saved: the body is over the budget")
        if edit_file is not None:
            self.notify(
                f"not saved; your text is kept in {edit_file} (E resumes it)",
                title=f"edit · {slug}",
                severity="warning",
            )

    def edit_in_editor(self, store: str, view: MemoryView) -> None:
        """Edit the memory in $EDITOR with the app suspended; the text waits in a file until
        it is written, so quitting, a crash or a refusal loses nothing."""

        path = edits_dir() / store / f"{view.slug}.md"
        header = (
            f"# kura: editing {view.slug} in store {store}. Save and quit to write it (a hand edit,\n"
            f"# recorded as yours; it passes no gate). Empty the file to discard. base={view.base}\n"
        )
        resumed = False
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.is_file() and path.read_text(encoding="utf-8").strip():
                resumed = True
            else:
                text = editable_text(view)
                path.write_text(text.replace("---\n", "---\n" + header, 1), encoding="utf-8")
        except OSError as exc:
            self.notify(f"cannot write the edit file {path}: {exc.strerror}", severity="error")
            return
        if resumed:
            self.notify(
                f"resuming your unfinished edit of {view.slug} ({path})", title="$EDITOR", timeout=6
            )
        self._run_editor(store, view, path, resumed)

    def _run_editor(self, store: str, view: MemoryView, path: Path, resumed: bool = False) -> None:

        before = path.read_text(encoding="utf-8")
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        cmd = shlex.split(editor) + [str(path)]

        def call(**kw: Any) -> tuple[int, OSError | None]:
            # nothing may escape while the app is suspended: it would never be resumed
            try:
                return subprocess.call(cmd, **kw), None
            except OSError as exc:
                return -1, exc

        try:
            with self.suspend():
                code, failed = call()
        except SuspendNotSupported:  # no terminal to hand over (headless, web): run it as is
            code, failed = call(stdin=subprocess.DEVNULL)
        if failed is not None:
            self.notify(
                f"cannot run the editor {editor!r}: {failed.strerror}; set $EDITOR or $VISUAL. Your "
                f"text is kept in {path}",
                severity="error",
                timeout=12,
            )
            return
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        if code != 0:
            self.notify(
                f"the editor exited with status {code}; nothing was written. Your text is kept in {path} "
                "(E resumes it)",
                severity="warning",
                timeout=12,
            )
            return
        if not text.strip():
            path.unlink(missing_ok=True)
            self.notify("the file was emptied: edit discarded", title="$EDITOR")
            return
        if text == before and not resumed:
            path.unlink(missing_ok=True)
            self.notify("nothing changed", title="$EDITOR")
            return
        base = view.base
        for line in text.split("\n")[:4]:
            if "base=" in line and line.startswith("#"):
                base = line.rsplit("base=", 1)[1].strip()
        try:
            fields = parse_editable(text, view.slug)
        except KuraError as exc:

            def again(yes: bool | None) -> None:
                if yes:
                    self._run_editor(store, view, path, True)

            self.push_screen(
                ConfirmScreen(
                    "The edit cannot be read",
                    f"{exc}. Nothing was written; your text is "
                    f"kept in {path}. Open it in the editor again?",
                    yes="Edit again",
                ),
                again,
            )
            return
        self.save_memory(store, view.slug, base, fields, edit_file=path)

    def retire_memory(
        self, store: str, slug: str, title: str, linked_from: Iterable[str] = ()
    ) -> None:
        linked = list(linked_from)
        dead = (
            f" {len(linked)} memor{'y links' if len(linked) == 1 else 'ies link'} to it "
            f"({', '.join(linked[:5])}): those links will point at nothing."
            if linked
            else ""
        )

        def confirmed(yes: bool | None, reason: str, how: tuple[str, str] = ("keep", "")) -> None:
            if yes:
                core, by = self.kura, self.by

                def job() -> Acted:
                    try:
                        res = core.retire(
                            slug, reason, store=store, by=by, links=how[0], redirect_to=how[1]
                        )
                    except KuraError as exc:
                        return Retired(store, slug, ok=False, text=str(exc))
                    return Retired(
                        store,
                        slug,
                        ok=True,
                        result=res,
                        text="retired; the gate log keeps it whole, with who and why",
                    )

                self._spawn(f"retire:{slug}", job, store=store)

        def ask(reason: str, how: tuple[str, str] | None) -> None:
            if how is None:
                return
            fate = {
                "keep": dead,
                "unlink": " The links to it become plain text.",
                "redirect": f" The links to it will point at {how[1]}.",
            }[how[0]]
            self.push_screen(
                ConfirmScreen(
                    f"Retire “{title}”?",
                    f"The memory {slug} and its index line leave the store {store} together. The gate log keeps "
                    f"the whole file, who retired it and why: {reason}.{fate}",
                    yes="Retire",
                ),
                lambda yes: confirmed(yes, reason, how),
            )

        def got_reason(reason: str | None) -> None:
            if reason and linked:
                slugs = self.kura.registry.store(store).index().slugs()
                self.push_screen(LinksScreen(slug, linked, slugs), lambda how: ask(reason, how))
            elif reason:
                ask(reason, ("keep", ""))

        self.push_screen(
            ReasonScreen(
                "Retire the memory",
                title,
                "It leaves the store with its index line. The gate log keeps it whole, with "
                "who retired it and the reason you give." + dead,
                blink=not self.frozen,
            ),
            got_reason,
        )

    def fix_store(self, store: str, report: DoctorReport) -> None:
        """The fix doctor names, from its pane: links to a memory that is gone are made plain
        text or pointed at another memory (one target at a time), and memory files without
        an index line are adopted."""
        dead = list(dict.fromkeys(d.target for d in report.dead_links))
        loose = list(report.index_drift.files_without_line)
        core, by = self.kura, self.by
        if dead:
            target = dead[0]
            sources = [d.source for d in report.dead_links if d.target == target]

            def relink(how: tuple[str, str] | None) -> None:
                if how is None or how[0] == "keep":
                    return

                def job() -> Acted:
                    try:
                        done = core.relink(target, to=how[1], store=store, by=by)
                    except KuraError as exc:
                        return StoreFixed(store, target, ok=False, text=str(exc))
                    where = f"now point at {how[1]}" if how[1] else "are plain text now"
                    return StoreFixed(
                        store, target, ok=True, text=f"links in {', '.join(done)} {where}"
                    )

                self._spawn(f"fix:{target}", job, store=store)

            slugs = core.registry.store(store).index().slugs()
            self.push_screen(LinksScreen(target, sources, slugs, gone=True), relink)
            return
        if loose:

            def adopt(yes: bool | None) -> None:
                if not yes:
                    return

                def job() -> Acted:
                    try:
                        res = core.adopt(store=store)
                    except KuraError as exc:
                        return StoreFixed(store, "adopt", ok=False, text=str(exc))
                    text = f"adopted {len(res.adopted)} memory file(s)"
                    text += "".join(f"; not {s}: {w}" for s, w in res.skipped[:3])
                    return StoreFixed(store, "adopt", ok=not res.skipped, text=text)

                self._spawn("fix:adopt", job, store=store)

            self.push_screen(
                ConfirmScreen(
                    f"Adopt {len(loose)} memory file(s)?",
                    f"{', '.join(f'{s}.md' for s in loose[:6])} have no index line, so recall's "
                    "index and weave do not see them. Their lines are written from the files "
                    "(through the floors); the files themselves are not changed.",
                    yes="Adopt",
                ),
                adopt,
            )
            return
        self.notify("doctor names nothing here that f can fix", title=f"doctor · {store}")

    @_needs_main
    def on_store_fixed(self, m: StoreFixed) -> None:
        self.notify(
            m.text,
            title=f"fix · {m.key}",
            severity="information" if m.ok else "error",
            timeout=6 if m.ok else 12,
        )
        self.load_overview()
        if m.store == self.current_store:
            self.load_current(("map", "gatelog", "doctor"))

    @_needs_main
    def on_open_edit(self, m: OpenEdit) -> None:
        self.edit_memory(m.store, m.result)

    @_needs_main
    def on_open_editor(self, m: OpenEditor) -> None:
        self.edit_in_editor(m.store, m.result)

    @_needs_main
    def on_open_retire(self, m: OpenRetire) -> None:
        v = m.result
        self.retire_memory(m.store, v.slug, v.title, v.linked_from)

    @_needs_main
    def on_edited(self, m: Edited) -> None:
        editor = [
            s for s in self.screen_stack if isinstance(s, MemoryEditScreen) and s.view.slug == m.key
        ]
        if m.ok:
            for s in editor:
                s.dismiss(True)
            self.notify(m.text, title=f"edit · {m.key}")
            for viewer in self.screen_stack:
                if isinstance(viewer, MemoryScreen) and viewer.slug == m.key:
                    viewer.reload()
            if m.store == self.current_store:
                self.load_current(("map", "gatelog", "doctor"))
            return
        for s in editor:
            s.show_error(m.text)
        kept = f" Your text is kept in {m.result} (E resumes it)." if m.result else ""
        self.notify(m.text + kept, title=f"edit refused · {m.key}", severity="error", timeout=12)

    @_needs_main
    def on_retired(self, m: Retired) -> None:
        if not m.ok:
            self.notify(m.text, title=f"retire refused · {m.key}", severity="error", timeout=10)
            return
        for s in list(self.screen_stack):
            if isinstance(s, MemoryScreen) and s.slug == m.key:
                s.dismiss(None)
        extra = (
            f" {len(m.result.dead_links)} link(s) now point at nothing."
            if m.result.dead_links
            else ""
        )
        if m.result.relinked:
            to = m.result.redirected_to
            extra += f" Links in {', '.join(m.result.relinked)} " + (
                f"now point at {to}." if to else "are plain text now."
            )
        self.notify(m.text + extra, title=f"retire · {m.key}")
        self.load_overview()
        if m.store == self.current_store:
            self.load_current(("map", "gatelog", "doctor"))

    # ---- evidence in its journal -----------------------------------------
    def open_evidence(
        self,
        store: str,
        title: str,
        quotes: Iterable[Quote | Mapping[str, Any]],
        diff: Any = None,
    ) -> None:

        qs = [q if isinstance(q, Quote) else Quote.from_json(q) for q in quotes]
        if not qs:
            self.notify("nothing vouches for it: there is no evidence to open", severity="warning")
            return
        self.push_screen(EvidenceScreen(store, title, qs, diff=diff))

    def open_diff(self, draft: Draft) -> None:
        """An extension draft's changes to its memory, the whole width of the terminal."""
        diff = self.main.drafts.extensions.get(draft.slug)
        if diff is None:
            self.notify(
                f"{draft.slug} is a new memory, not an extension: its card is the whole of it",
                severity="information",
            )
            return
        self.push_screen(DiffScreen(draft.title, diff))

    def load_excerpt(self, token: int, store: str, quote: Quote) -> None:
        core = self.kura

        def job() -> ExcerptLoaded:
            try:
                return ExcerptLoaded(
                    token,
                    core.journal_excerpt(quote.source, quote.start, store=store, unit=quote.unit),
                )
            except KuraError as exc:
                return ExcerptLoaded(token, None, str(exc))

        self._spawn("excerpt", job, store=store)

    # ---- drafts ------------------------------------------------------------
    def draft_action(self, action: str) -> None:
        self.show_tab(1)
        d = self.main.drafts.selected
        if d is None:
            self.notify("no draft is selected", severity="warning")
            return
        self.act_on_draft(action, d)

    def act_on_draft(self, action: str, draft: Draft) -> None:
        store = self.current_store
        if action == "pour":
            self._run_draft("pour", store, draft.slug)
        elif action == "fix":
            self.push_screen(FixScreen(store, draft, blink=not self.frozen), self._after_fix)
        elif action == "evidence":
            diff = self.main.drafts.extensions.get(draft.slug)
            self.open_evidence(store, draft.title, draft.quotes, diff=diff)
        elif action == "diff":
            self.open_diff(draft)
        elif action == "toss":

            def confirmed(yes: bool | None, reason: str) -> None:
                if yes:
                    self._run_draft("toss", store, draft.slug, reason=reason)

            def got_reason(reason: str | None) -> None:
                if reason:
                    self.push_screen(
                        ConfirmScreen(
                            f"Toss “{draft.title}”?",
                            f"The draft leaves the queue and never enters the store {store}. "
                            f"The gate log keeps it whole, with the reason: {reason}",
                            yes="Toss",
                        ),
                        lambda yes: confirmed(yes, reason),
                    )

            self.push_screen(TossScreen(draft.title, blink=not self.frozen), got_reason)

    def _after_fix(self, saved: bool | None) -> None:
        if saved:
            self.load_current(("drafts", "gatelog"))

    def fix_draft(self, store: str, slug: str, fields: dict[str, Any]) -> None:
        self._run_draft("fix", store, slug, **fields)

    def _run_draft(self, action: str, store: str, slug: str, **kw: Any) -> None:
        core, by = self.kura, self.by

        def job() -> DraftActed:

            try:
                if action == "pour":
                    mem = core.pour(slug, store=store, by=by)
                    return DraftActed(
                        store,
                        action,
                        slug,
                        ok=True,
                        result=mem,
                        text=f"poured into {store} as {mem.slug}",
                    )
                if action == "toss":
                    core.toss(slug, kw["reason"], store=store, by=by)
                    return DraftActed(
                        store, action, slug, ok=True, text="tossed; the gate log keeps the reason"
                    )
                new = core.fix(slug, store=store, by=by, **kw)
                return DraftActed(
                    store, action, slug, ok=True, result=new, text="fixed; the floor passed it"
                )
            except FloorRefused as exc:
                return DraftActed(
                    store, action, slug, ok=False, violations=exc.violations, text=str(exc)
                )
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
            self.notify(
                m.text, title=f"{m.action} refused · {m.slug}", severity="error", timeout=10
            )
        self.load_overview()
        if m.store == self.current_store:
            self.load_current(
                ("drafts", "gatelog", "doctor") + (("map",) if m.action == "pour" else ())
            )

    # ---- seeds -------------------------------------------------------------
    def seed_action(self, action: str) -> None:
        self.show_tab(5)
        s = self.main.seeds.selected
        if s is None:
            self.notify("no seed is selected", severity="warning")
            return
        self.act_on_seed(action, s)

    def act_on_seed(self, action: str, seed: Seed) -> None:
        store = self.current_store
        if action == "origin":
            quotes = list(seed.quotes) + [q for c in seed.confirmed for q in c.quotes]
            self.open_evidence(store, seed.title, quotes)
            return
        if action == "revive":
            self._revive_seed(store, seed)
            return
        if seed.state != SeedState.WAITING:
            self.notify(
                f"seed {seed.id} is {seed.state}: only a waiting idea is dismissed",
                severity="warning",
            )
            return

        def confirmed(yes: bool | None, reason: str) -> None:
            if yes:
                core, by = self.kura, self.by

                def job() -> Acted:
                    try:
                        res = core.dismiss_seed(seed.id, reason, store=store, by=by)
                    except KuraError as exc:
                        return SeedDismissed(store, str(seed.id), ok=False, text=str(exc))
                    return SeedDismissed(
                        store,
                        str(seed.id),
                        ok=True,
                        result=res,
                        text="dismissed; new evidence is no longer checked against it",
                    )

                self._spawn(f"seed:{seed.id}", job, store=store)

        def got_reason(reason: str | None) -> None:
            if reason is None:
                return
            self.push_screen(
                ConfirmScreen(
                    f"Dismiss the idea “{seed.title}”?",
                    "It stays in the seeds list as dismissed, and later evidence is no longer checked against it."
                    + (f" Why: {reason}" if reason else ""),
                    yes="Dismiss",
                ),
                lambda yes: confirmed(yes, reason),
            )

        self.push_screen(
            ReasonScreen(
                "Dismiss the idea",
                seed.title,
                "A dismissed idea never graduates. The gate log keeps who dismissed it and why.",
                required=False,
                blink=not self.frozen,
            ),
            got_reason,
        )

    def _revive_seed(self, store: str, seed: Seed) -> None:
        if seed.state != SeedState.WITHERED:
            self.notify(
                f"seed {seed.id} is {seed.state}: only a withered idea is revived",
                severity="warning",
            )
            return
        core, by = self.kura, self.by

        def job() -> Acted:
            try:
                res = core.revive_seed(seed.id, store=store, by=by)
            except KuraError as exc:
                return SeedRevived(store, str(seed.id), ok=False, text=str(exc))
            return SeedRevived(
                store, str(seed.id), ok=True, result=res, text="revived: it waits again"
            )

        self._spawn(f"seed:{seed.id}", job, store=store)

    @_needs_main
    def on_seed_revived(self, m: SeedRevived) -> None:
        if m.ok:
            self.notify(m.text, title=f"seed {m.key}")
        else:
            self.notify(m.text, title=f"revive refused · seed {m.key}", severity="error")
        if m.store == self.current_store:
            self.load_current(("seeds", "gatelog", "doctor"))

    @_needs_main
    def on_seed_dismissed(self, m: SeedDismissed) -> None:
        if m.ok:
            self.notify(m.text, title=f"seed {m.key}")
        else:
            self.notify(
                m.text, title=f"dismiss refused · seed {m.key}", severity="error", timeout=10
            )
        if m.store == self.current_store:
            self.load_current(("seeds", "gatelog", "doctor"))

    # ---- the metabolism ------------------------------------------------------
    def needs(self, kind: str) -> str:
        return self._needs.get(self.current_store, {}).get(kind, "")

    def start_job(
        self, kind: str, work: Callable[[Job, Callable[[Any], None]], Any], text: str = ""
    ) -> bool:
        """Start one long piece of work on the current store; False (and why, said) when it cannot."""
        if self.job is not None:
            self.notify(
                f"{self.job.kind} is running on {self.job.store}; S stops it", severity="warning"
            )
            return False
        why = self.needs(kind)
        if why:
            self.notify(why, title=f"{kind} · {self.current_store}", severity="error", timeout=10)
            return False
        job = Job(kind, self.current_store)
        self.job = job
        self.main.workbar.start(kind, job.store, text)

        def progress(p: Any) -> None:
            if not self._stop.is_set():
                self.post_message(WorkProgress(job.id, p))

        def run() -> None:
            try:
                result = work(job, progress)
                msg = WorkDone(job.id, kind, job.store, result=result)
            except Exception as exc:
                msg = WorkDone(job.id, kind, job.store, error=_err(exc))
            if not self._stop.is_set():
                self.post_message(msg)

        self.run_worker(run, thread=True, group="job", name=f"job:{kind}", exit_on_error=False)
        return True

    def action_distil(self) -> None:
        core = self.kura
        self.start_job(
            "distil",
            lambda job, p: core.distil(store=job.store, progress=p, should_stop=job.stop.is_set),
        )

    def action_drain(self) -> None:
        core = self.kura
        self.start_job(
            "drain",
            lambda job, p: core.drain(store=job.store, progress=p, should_stop=job.stop.is_set),
        )

    def action_tidy(self) -> None:
        core = self.kura
        self.start_job(
            "tidy",
            lambda job, p: core.tidy_review(
                store=job.store, progress=p, should_stop=job.stop.is_set
            ),
        )

    def action_history(self) -> None:
        core, store = self.kura, self.current_store

        def undone(rev: str) -> Any:
            change = core.undo(rev, store=store)
            self.load_current(("map", "gatelog", "doctor"))
            return change

        self.push_screen(
            HistoryScreen(
                store,
                lambda: core.history(store=store, record=False),
                lambda rev: core.show_change(rev, store=store),
                undone,
            )
        )

    def action_weave(self) -> None:
        core = self.kura
        self.start_job("weave", lambda job, p: core.weave_preview(store=job.store))

    def action_stop(self) -> None:
        job = self.job
        if job is None:
            self.notify("nothing is running", severity="information")
            return
        job.stop.set()
        if job.kind in ("weave", "profile"):
            job.abandoned = True
            self.job = None
            self._show_needs()
            if job.kind == "weave":
                self.notify(
                    "the weave preview finishes on its own and is then dropped; nothing is written",
                    title="weave",
                )
            else:
                for s in self.screen_stack:
                    if isinstance(s, ProfileScreen):
                        s.idle()
                self.notify(
                    "no longer waiting for the brain; if its answer still comes, it waits as a draft "
                    "(the profile itself only changes when you apply one)",
                    title="profile",
                )
            return
        self.main.workbar.stopping()

    @_needs_main
    def on_work_progress(self, m: WorkProgress) -> None:
        if self.job is not None and self.job.id == m.job:
            p = m.progress
            self.main.workbar.progress(p.done, p.total, p.text)

    @_needs_main
    def on_work_done(self, m: WorkDone) -> None:
        if self.job is None or self.job.id != m.job:
            return  # an abandoned job
        self.job = None
        self._show_needs()
        if m.kind == "profile":
            self._profile_drafted(m)
            return
        if m.error:
            self.notify(m.error, title=f"{m.kind} failed · {m.store}", severity="error", timeout=12)
            return
        r = m.result
        if m.kind in ("distil", "drain"):
            sev: Literal["warning", "information"] = "warning" if r.errors else "information"
            text = r.summary + (f" — stopped: {r.stopped}" if r.stopped else "")
            if r.errors:
                text += f"\n{r.errors[0]}"
            self.notify(text, title=f"{m.kind} · {m.store}", severity=sev, timeout=10)
            self.load_overview()
            if m.store == self.current_store:
                self.load_current(PARTS)
        elif m.kind == "tidy":
            if m.store != self.current_store:
                return
            if not r.proposals:
                self.notify(
                    "every index line does its job: nothing to tidy", title=f"tidy · {m.store}"
                )
                return
            self.push_screen(
                TidyScreen(m.store, r, blink=not self.frozen), lambda _: self._after_tidy(m.store)
            )
        elif m.kind == "weave" and m.store == self.current_store:
            self.push_screen(WeaveScreen(m.store, r))

    def _after_tidy(self, store: str) -> None:
        if store == self.current_store:
            self.load_current(("map", "gatelog"))

    def apply_tidy(self, store: str, slug: str, line: str, expected: str) -> None:

        core, by = self.kura, self.by

        def job() -> Acted:
            try:
                new = core.apply_tidy(slug, line, expected=expected, store=store, by=by)
            except FloorRefused as exc:
                return TidyWritten(
                    store,
                    slug,
                    ok=False,
                    violations=exc.violations,
                    text="refused by the floors",
                )
            except KuraError as exc:
                return TidyWritten(store, slug, ok=False, text=str(exc))
            return TidyWritten(store, slug, ok=True, result=new, text="written")

        self._spawn(f"tidy:{slug}", job, store=store)

    def reject_tidy(self, store: str, slug: str, proposed: str) -> None:
        core, by = self.kura, self.by
        self._spawn(
            f"tidy-reject:{slug}",
            lambda: core.reject_tidy(slug, proposed, store=store, by=by),
            store=store,
        )

    @_needs_main
    def on_tidy_written(self, m: TidyWritten) -> None:
        for s in self.screen_stack:
            if isinstance(s, TidyScreen) and s.store == m.store:
                if m.ok:
                    s.done(m.key, "accepted", Content.styled(f"✓ written: {m.result}", "$success"))
                else:
                    s.done(
                        m.key,
                        "refused",
                        Content.styled(f"✗ {m.text} — nothing was written", "bold $error"),
                        m.violations,
                    )

    def write_weave(self, store: str, preview: WeavePreview) -> None:
        core = self.kura

        def job() -> Acted:
            try:
                res = core.weave_write(store=store, index_sha256=preview.result.index_sha256)
            except KuraError as exc:
                return Woven(store, store, ok=False, text=str(exc))
            if not res.written:
                return Woven(store, store, ok=False, text=res.reason or "the map was not written")
            same = (
                " (the map you previewed)"
                if res.cloth == preview.result.cloth
                else " — it differs from the preview (the ledger or the day changed); the map pane shows it"
            )
            return Woven(
                store,
                store,
                ok=True,
                result=res,
                text=f"woven and written: {len(res.lines)} lines, ~{res.tokens_est} tokens{same}",
            )

        self._spawn("weave-write", job, store=store)

    @_needs_main
    def on_woven(self, m: Woven) -> None:
        for s in list(self.screen_stack):
            if isinstance(s, WeaveScreen):
                if m.ok:
                    s.dismiss(None)
                else:
                    s.failed()
        if m.ok:
            self.notify(m.text, title=f"weave · {m.store}")
            if m.store == self.current_store:
                self.load_current(("map",))
        else:
            self.notify(m.text, title=f"weave refused · {m.store}", severity="error", timeout=10)

    # ---- the learned profile ---------------------------------------------------
    def action_profile(self, then: str = "") -> None:
        for s in self.screen_stack:
            if not isinstance(s, ProfileScreen):
                continue
            profile: ProfileScreen = s
            if profile is not self.screen:
                self.notify("the profile view is open under this screen", severity="information")
            elif then and profile.state is not None:
                profile.act(then)
            return
        self.push_screen(ProfileScreen(self.current_store, clock=self.kura_clock, then=then))

    def profile_command(self, action: str) -> None:
        """Open the profile view, then draft or apply there once it is read (from the palette)."""
        self.action_profile(action)

    def load_profile(self, store: str) -> None:
        core = self.kura
        self._spawn(
            f"profile:{store}",
            lambda: ProfileLoaded(
                store, core.profile_state(store=store), core.needs("profile", store=store)
            ),
            store=store,
        )

    @_needs_main
    def on_profile_loaded(self, m: ProfileLoaded) -> None:
        for s in self.screen_stack:
            if isinstance(s, ProfileScreen):
                s.show(m.state, m.needs)
                if (
                    self.job is not None
                    and self.job.kind == "profile"
                    and self.job.store == s.store
                ):
                    s.busy(s.store, self.job_text)

    def draft_profile(self, store: str, state: ProfileState | None = None) -> None:
        """Ask the brain for a draft (a long job: one at a time, S stops waiting for it). A
        draft already waiting is replaced by the new one: asked first."""
        if store != self.current_store:
            return
        if (
            state is not None
            and state.draft_present
            and not self.needs("profile")
            and self.job is None
        ):

            def answer(yes: bool | None) -> None:
                if yes:
                    self.draft_profile(store)

            self.push_screen(
                ConfirmScreen(
                    "Replace the waiting draft?",
                    f"A draft is already waiting for {store}. The brain's new draft takes its place (the profile "
                    "itself does not change).",
                    yes="Draft anew",
                ),
                answer,
            )
            return
        core = self.kura
        text = "asking the brain for a profile from the store's memories…"
        if self.start_job("profile", lambda job, p: core.profile_draft(store=job.store), text=text):
            self.job_text = text
            for s in self.screen_stack:
                if isinstance(s, ProfileScreen):
                    s.busy(store, text)

    def _profile_drafted(self, m: WorkDone) -> None:
        screens = [s for s in self.screen_stack if isinstance(s, ProfileScreen)]
        for s in screens:
            s.idle()
        if m.error:
            for s in screens:
                s.show_error(m.store, m.error)
            self.notify(
                m.error, title=f"profile draft failed · {m.store}", severity="error", timeout=12
            )
            return
        d = m.result
        self.notify(
            f"a draft from {d.from_memories} memories waits beside the current profile; a applies it "
            "(nothing changed yet)",
            title=f"profile · {m.store}",
        )
        for s in screens:
            if s.store == m.store:
                s.reload()
        if m.store == self.current_store:
            self.load_current(("doctor",))

    def apply_profile(self, store: str, state: ProfileState) -> None:
        """Make the waiting draft the profile: only after the person confirms it."""
        if not state.draft_present:
            self.notify(
                "no draft is waiting: n asks the brain for one",
                title=f"profile · {store}",
                severity="warning",
            )
            return
        if state.frozen:
            self.notify(
                f'store {store!r} is frozen: its profile is not changed (write_policy = "frozen" in '
                "kura.toml)",
                title=f"apply refused · {store}",
                severity="error",
                timeout=10,
            )
            return
        expected = state.draft_text
        kept = (
            " The profile it replaces is kept in _still/profile-previous.md."
            if state.present
            else " The store has no profile yet."
        )

        def confirmed(yes: bool | None) -> None:
            if not yes:
                return
            core = self.kura

            def job() -> Acted:
                try:
                    res = core.profile_apply(store=store, expected=expected)
                except KuraError as exc:
                    return ProfileSet(store, store, ok=False, text=str(exc))
                prev = (
                    " The previous one is kept in _still/profile-previous.md."
                    if res.previous_path
                    else ""
                )
                return ProfileSet(
                    store,
                    store,
                    ok=True,
                    result=res,
                    text=f"applied: every model role reads it from its next call.{prev}",
                )

            self._spawn(f"profile-apply:{store}", job, store=store)

        self.push_screen(
            ConfirmScreen(
                f"Apply the draft as the profile of {store}?",
                "Every model role reads it right after the charter, from its next call on." + kept,
                yes="Apply",
            ),
            confirmed,
        )

    @_needs_main
    def on_profile_set(self, m: ProfileSet) -> None:
        if m.ok:
            self.notify(m.text, title=f"profile · {m.store}")
        else:
            self.notify(m.text, title=f"apply refused · {m.store}", severity="error", timeout=10)
        for s in self.screen_stack:
            if isinstance(s, ProfileScreen) and s.store == m.store:
                s.reload()
        if m.store == self.current_store:
            self.load_current(("doctor",))

    # ---- actions -----------------------------------------------------------
    def action_doctor(self) -> None:
        name = self.current_store
        core = self.kura
        self.show_tab(4)
        self._spawn(
            "doctor",
            lambda: DoctorLoaded(name, core.doctor(store=name, probe=True), probed=True),
            store=name,
        )

    def action_scrub(self) -> None:
        """Redact the secrets stored in the current store, after asking."""
        store = self.current_store
        kura = self.kura

        def confirmed(yes: bool | None) -> None:
            if not yes:
                return

            def job() -> None:
                rep = kura.scrub(store=store)
                self.call_from_thread(self._scrubbed, store, rep)

            self._spawn(f"scrub:{store}", job, store=store)

        self.push_screen(
            ConfirmScreen(
                f"Scrub the secrets stored in {store}?",
                "Each secret is replaced by a marker naming its kind, in memory files, drafts, "
                "the profile and the workshop. The originals go to a backup outside the store.",
                yes="Scrub",
            ),
            confirmed,
        )

    def _scrubbed(self, store: str, rep: ScrubReport) -> None:
        if rep.scrubbed:
            self.notify(
                f"redacted {rep.summary()}; originals kept in {rep.backup}",
                title=f"scrub · {store}",
                timeout=10,
            )
        else:
            self.notify("no secrets are stored here", title=f"scrub · {store}")
        if store == self.current_store:
            self.load_current(("doctor",))

    def action_refresh(self) -> None:
        self._needs.pop(self.current_store, None)
        self.load_all()

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.help_sections()))

    def selected_memory(self, action: str) -> None:
        """Open / edit / retire the memory highlighted in the map (from the palette)."""
        self.show_tab(0)
        slug = self.main.map.selected
        if slug is None:
            self.notify("no memory is selected in the map", severity="warning")
            return
        self.open_memory(slug, action)

    def find(self) -> None:
        self.main.action_find()

    async def action_quit(self) -> None:
        dirty = [
            s for s in self.screen_stack if isinstance(s, (FixScreen, MemoryEditScreen)) and s.dirty
        ]
        running = self.job
        if not dirty and running is None:
            self.exit()
            return
        self._confirm_quit(dirty, running)

    def _confirm_quit(self, dirty: list[Any], running: Job | None) -> None:
        """Ask before quitting over an unsaved edit, or while work runs."""

        def answer(yes: bool | None) -> None:
            if yes:
                self.exit()

        if dirty:
            what = dirty[0].draft.slug if isinstance(dirty[0], FixScreen) else dirty[0].view.slug
            kind = "draft" if isinstance(dirty[0], FixScreen) else "memory"
            self.push_screen(
                ConfirmScreen(
                    "Quit with an unsaved edit?",
                    f"Your edit of the {kind} {what} is not saved; quitting loses it.",
                    yes="Quit",
                ),
                answer,
            )
            return
        if running is None:
            return
        if running.kind == "profile":
            what = (
                f"The brain is drafting a profile for {running.store}; kura stops waiting for it (the profile "
                "itself does not change)."
            )
        else:
            what = (
                f"{running.kind} on {running.store} is asked to stop at its next safe point (the batch in hand "
                "is finished or shelved, never half-written), then kura exits."
            )
        self.push_screen(
            ConfirmScreen(f"Quit while {running.kind} runs?", what, yes="Stop and quit"), answer
        )

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        everywhere = binding_rows(self, [KuraApp])
        everywhere += [("ctrl+p", "Command palette (kura's commands)"), ("ctrl+q", "Quit")]
        moving = [
            ("tab / shift+tab", "Next / previous pane"),
            ("↑ ↓ / j k", "Move in a list"),
            ("enter", "Open / select"),
            ("pgup / pgdn / home / end", "Page, first, last"),
        ]
        return [
            ("Everywhere", everywhere),
            ("Main screen", binding_rows(self, [MainScreen]) + moving),
            (
                "Find bar",
                [("/", "Open it over the list in front of you (per pane, per store)")]
                + binding_rows(self, [FindInput]),
            ),
            ("Map pane", binding_rows(self, [MapPane])),
            ("Drafts pane", binding_rows(self, [DraftsPane])),
            ("Gate log pane", binding_rows(self, [GateLogPane])),
            ("Seeds pane", binding_rows(self, [SeedsPane])),
            ("Journals pane", binding_rows(self, [JournalsPane])),
            ("Recall console", [("enter", "Ask the question")] + binding_rows(self, [RecallPane])),
            (
                "Memory viewer",
                [("enter", "Follow the highlighted link")] + binding_rows(self, [MemoryScreen]),
            ),
            ("Memory editor", binding_rows(self, [MemoryEditScreen])),
            ("Evidence in its journal", binding_rows(self, [EvidenceScreen])),
            ("An extension's diff", binding_rows(self, [DiffScreen])),
            ("History (h)", binding_rows(self, [HistoryScreen])),
            ("Learned profile", binding_rows(self, [ProfileScreen])),
            (
                "Tidy review",
                [("enter", "Accept the line in the box")] + binding_rows(self, [TidyScreen]),
            ),
            ("Weave preview", binding_rows(self, [WeaveScreen])),
            ("Fix screen", binding_rows(self, [FixScreen])),
            (
                "Reason dialog",
                [("enter", "Continue to confirmation")] + binding_rows(self, [ReasonScreen]),
            ),
            ("Confirmation", binding_rows(self, [ConfirmScreen])),
            ("Lists", binding_rows(self, [RowList])),
            ("Messages", binding_rows(self, [NotesScreen])),
            ("Help", binding_rows(self, [HelpScreen])),
        ]
