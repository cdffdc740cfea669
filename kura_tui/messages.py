"""Messages that thread workers post to the app.

A worker calls the core and posts one of these; it never touches a widget. The app
routes each message to the panes that show it, and drops results for a store that is
no longer the one on screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from kura_core import (
        DoctorReport,
        DraftsView,
        GateEntry,
        JournalExcerpt,
        JournalsView,
        MapView,
        MemoryView,
        ProfileState,
        RecallResult,
        Seed,
        TendStatus,
    )
    from kura_core.kura import StoreSummary


class StoresLoaded(Message):
    """Every configured store with its counts (cheap: no parsing of memories)."""

    def __init__(self, rows: Sequence[StoreSummary]) -> None:
        super().__init__()
        self.rows = rows


class HealthLoaded(Message):
    """The doctor's verdict on every store, for the health badges."""

    def __init__(self, health: dict[str, DoctorReport]) -> None:
        super().__init__()
        self.health = health


class NeedsLoaded(Message):
    """Why each piece of model work cannot run on a store ('' where it can)."""

    def __init__(self, store: str, needs: dict[str, str]) -> None:
        super().__init__()
        self.store = store
        self.needs = needs


class MapLoaded(Message):
    def __init__(self, store: str, view: MapView) -> None:
        super().__init__()
        self.store = store
        self.view = view


class DraftsLoaded(Message):
    def __init__(self, store: str, view: DraftsView) -> None:
        super().__init__()
        self.store = store
        self.view = view


class GateLogLoaded(Message):
    def __init__(self, store: str, rows: Sequence[GateEntry]) -> None:
        super().__init__()
        self.store = store
        self.rows = rows


class SeedsLoaded(Message):
    def __init__(self, store: str, seeds: Sequence[Seed]) -> None:
        super().__init__()
        self.store = store
        self.seeds = seeds


class TenderLoaded(Message):
    def __init__(self, store: str, status: TendStatus) -> None:
        super().__init__()
        self.store = store
        self.status = status


class JournalsLoaded(Message):
    def __init__(self, store: str, view: JournalsView) -> None:
        super().__init__()
        self.store = store
        self.view = view


class DoctorLoaded(Message):
    def __init__(self, store: str, report: DoctorReport, probed: bool = False) -> None:
        super().__init__()
        self.store = store
        self.report = report
        self.probed = probed


class RecallDone(Message):
    def __init__(self, store: str, result: RecallResult) -> None:
        super().__init__()
        self.store = store
        self.result = result


class MemoryLoaded(Message):
    def __init__(self, store: str, slug: str, memory: MemoryView | None, error: str = "") -> None:
        super().__init__()
        self.store = store
        self.slug = slug
        self.memory = memory
        self.error = error


class ExcerptLoaded(Message):
    """The journal around one quote, for the evidence screen that asked (by token)."""

    def __init__(self, token: int, excerpt: JournalExcerpt | None, error: str = "") -> None:
        super().__init__()
        self.token = token
        self.excerpt = excerpt
        self.error = error


class ProfileLoaded(Message):
    """A store's learned profile as it stands, and why a draft cannot be asked for ('' if it can)."""

    def __init__(self, store: str, state: ProfileState | None, needs: str = "") -> None:
        super().__init__()
        self.store = store
        self.state = state
        self.needs = needs


class DraftActed(Message):
    """A pour, toss or fix finished (ok) or was refused (violations / error)."""

    def __init__(
        self,
        store: str,
        action: str,
        slug: str,
        *,
        ok: bool,
        text: str = "",
        violations: list[str] | None = None,
        result: Any = None,
    ) -> None:
        super().__init__()
        self.store = store
        self.action = action
        self.slug = slug
        self.ok = ok
        self.text = text
        self.violations = violations or []
        self.result = result


class Acted(Message):
    """A hand action on a memory, a seed, a tidy line, the map or the profile finished (ok)
    or was refused. Never posted itself: each event is one of the subclasses below, and the
    app has one handler for each (``on_edited`` for :class:`Edited`...)."""

    def __init__(
        self,
        store: str,
        key: str,
        *,
        ok: bool,
        text: str = "",
        violations: list[str] | None = None,
        result: Any = None,
    ) -> None:
        super().__init__()
        self.store = store
        self.key = key
        self.ok = ok
        self.text = text
        self.violations = violations or []
        self.result = result


class OpenEdit(Acted):
    """A memory's view, read to open the edit form on it (``result``: the view)."""


class OpenEditor(Acted):
    """A memory's view, read to open it in $EDITOR (``result``: the view)."""


class OpenRetire(Acted):
    """A memory's view, read to ask whether to retire it (``result``: the view)."""


class Edited(Acted):
    """A hand edit was written, changed nothing, or was refused (``result``: the edit, or
    the file a refused text is kept in)."""


class Retired(Acted):
    """A memory was retired, or retiring it was refused."""


class StoreFixed(Acted):
    """A fix doctor names (dead links relinked, memory files adopted) was made, or refused."""


class SeedDismissed(Acted):
    """An idea waiting as a seed was dismissed, or dismissing it was refused."""


class SeedRevived(Acted):
    """A withered idea was put back to wait, or reviving it was refused."""


class TidyWritten(Acted):
    """A tidy line a person accepted was written, or refused by its floor."""


class Woven(Acted):
    """The map was woven from the preview a person accepted, or weaving was refused."""


class ProfileSet(Acted):
    """A drafted profile a person accepted was applied, or applying it was refused."""


class WorkProgress(Message):
    """How far a long piece of work (distil, drain, tidy, weave preview) has come."""

    def __init__(self, job: int, progress: Any) -> None:
        super().__init__()
        self.job = job
        self.progress = progress


class WorkDone(Message):
    """A long piece of work ended: its result, or the error that ended it."""

    def __init__(
        self, job: int, kind: str, store: str, result: Any = None, error: str = ""
    ) -> None:
        super().__init__()
        self.job = job
        self.kind = kind
        self.store = store
        self.result = result
        self.error = error


class StoreChanged(Message):
    """Files of a store changed on disk (the tender, another process, a hand edit)."""

    def __init__(self, store: str, kinds: frozenset[str]) -> None:
        super().__init__()
        self.store = store
        self.kinds = kinds


class CoreFailed(Message):
    """A core call raised: shown as a notification, never a crash."""

    def __init__(self, what: str, error: str, store: str = "") -> None:
        super().__init__()
        self.what = what
        self.error = error
        self.store = store
