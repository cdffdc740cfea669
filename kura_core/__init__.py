"""kura: long-term memory for AI agents that is distilled, not accumulated.

The package's public surface is :class:`Kura` (every operation a face offers), the error
family, the values Kura's methods hand back or raise, and the few helpers and bounds a face
needs to show those values and check its input, importable from here by name
(``from kura_core import DoctorReport``).

The ``TYPE_CHECKING`` block below is the one list of those names: type checkers read it as
imports, and at run time it is read from this file's syntax tree (the pattern of
``lazy_loader.attach_stub``), so each name is loaded from its module on first use and
importing the package loads none of them.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the one list of public names (``X as X``: re-exported)
    from .connect.hook import run_hook as run_hook
    from .demo import build_demo as build_demo, default_demo_dir as default_demo_dir
    from .distill.drafts import Draft as Draft, FloorRefused as FloorRefused
    from .distill.journals.inspect import (
        Inspection as Inspection,
        Note as Note,
        SegmentContext as SegmentContext,
    )
    from .distill.pipeline import (
        CatchupReport as CatchupReport,
        DrainReport as DrainReport,
        RunReport as RunReport,
    )
    from .distill.tidy import TidyReport as TidyReport
    from .doctor import (
        DoctorAll as DoctorAll,
        DoctorReport as DoctorReport,
        elapsed_label as elapsed_label,
    )
    from .errors import (
        KuraError as KuraError,
        ModelUnavailable as ModelUnavailable,
        NotFound as NotFound,
        StorageError as StorageError,
    )
    from .floors import Violation as Violation
    from .fsutil import is_temp_name as is_temp_name, storage_error as storage_error
    from .handwork.adopt import Adopted as Adopted
    from .handwork.drafts import DraftsView as DraftsView
    from .handwork.journals import (
        ExcerptLine as ExcerptLine,
        JournalExcerpt as JournalExcerpt,
        JournalsView as JournalsView,
    )
    from .handwork.maps import (
        MapView as MapView,
        TrailResult as TrailResult,
        WeavePreview as WeavePreview,
    )
    from .handwork.memories import (
        EditResult as EditResult,
        GateEntry as GateEntry,
        MemoryView as MemoryView,
        RetireResult as RetireResult,
        editable_text as editable_text,
        parse_editable as parse_editable,
    )
    from .handwork.quotes import Quote as Quote
    from .handwork.runs import Outcome as Outcome
    from .handwork.seeds import Seed as Seed
    from .handwork.tender import TendStatus as TendStatus
    from .handwork.tidy import TidyReview as TidyReview
    from .history import (
        Change as Change,
        acting as acting,
        set_default_who as set_default_who,
    )
    from .kura import (
        GateReport as GateReport,
        InitResult as InitResult,
        Kura as Kura,
        ModelRole as ModelRole,
        PersonaFile as PersonaFile,
        ProfileInfo as ProfileInfo,
        StoresInfo as StoresInfo,
        StoreSummary as StoreSummary,
        TendTick as TendTick,
    )
    from .prefill import Prefill as Prefill, missing_map_note as missing_map_note
    from .profile import (
        ProfileApplied as ProfileApplied,
        ProfileDraft as ProfileDraft,
        ProfileState as ProfileState,
    )
    from .recall import (
        QUESTION_CHARS as QUESTION_CHARS,
        RECALL_LIMITS as RECALL_LIMITS,
        RecallResult as RecallResult,
        degraded_notice as degraded_notice,
    )
    from .registry import PATH_PREFIX as PATH_PREFIX, Registry as Registry
    from .scrub import ScrubReport as ScrubReport, StoredSecret as StoredSecret
    from .secrets import SecretRefused as SecretRefused
    from .store import Memory as Memory
    from .sync import SyncReport as SyncReport
    from .warm import WarmReport as WarmReport
    from .weave import WeaveResult as WeaveResult


__version__ = "0.1.0"


def _lazy_names() -> dict[str, tuple[str, str]]:
    """``{public name: (module, name there)}``, read from the ``TYPE_CHECKING`` block."""
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    )
    return {
        alias.asname or alias.name: (f".{node.module}", alias.name)
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


#: what Kura returns or raises, and what a face needs beside it, by name: where it lives
_RETURNED = _lazy_names()


def __getattr__(name: str) -> Any:
    where = _RETURNED.get(name)
    if where is None:
        raise AttributeError(f"module 'kura_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(where[0], __name__), where[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_RETURNED])


__all__ = sorted(["__version__", *_RETURNED])
