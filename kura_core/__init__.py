"""kura: long-term memory for AI agents that is distilled, not accumulated.

The package's public surface is :class:`Kura` (every operation a face offers), the error
family, the values Kura's methods hand back or raise, and the few helpers a face needs to
show those values and read a person's edits back, importable from here by name
(``from kura_core import DoctorReport``). Those are loaded on first use, so importing the
package stays cheap for a command that needs none of them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import KuraError, ModelUnavailable, NotFound, StorageError
from .kura import (
    GateReport,
    InitResult,
    Kura,
    ModelRole,
    PersonaFile,
    ProfileInfo,
    StoresInfo,
    StoreSummary,
    TendTick,
)

if TYPE_CHECKING:
    from .distill.drafts import Draft, FloorRefused
    from .distill.journals.inspect import Inspection, SegmentContext
    from .distill.pipeline import CatchupReport, DrainReport, RunReport
    from .distill.tidy import TidyReport
    from .doctor import DoctorAll, DoctorReport, elapsed_label
    from .floors import Violation
    from .fsutil import is_temp_name
    from .handwork import (
        DraftsView,
        EditResult,
        GateEntry,
        JournalExcerpt,
        JournalsView,
        MapView,
        MemoryView,
        Outcome,
        Quote,
        RetireResult,
        Seed,
        TendStatus,
        TidyReview,
        WeavePreview,
        editable_text,
        parse_editable,
    )
    from .prefill import Prefill
    from .profile import ProfileApplied, ProfileDraft, ProfileState
    from .recall import RecallResult
    from .scrub import ScrubReport, StoredSecret
    from .secrets import SecretRefused
    from .store import Memory
    from .weave import WeaveResult

__version__ = "0.1.0"

#: what Kura returns or raises, by name, and the module that defines it
_RETURNED = {
    "GateEntry": "handwork",
    "MemoryView": "handwork",
    "EditResult": "handwork",
    "RetireResult": "handwork",
    "MapView": "handwork",
    "WeavePreview": "handwork",
    "DraftsView": "handwork",
    "Seed": "handwork",
    "TidyReview": "handwork",
    "Outcome": "handwork",
    "TendStatus": "handwork",
    "JournalsView": "handwork",
    "JournalExcerpt": "handwork",
    "Quote": "handwork",
    "editable_text": "handwork",
    "parse_editable": "handwork",
    "Inspection": "distill.journals.inspect",
    "SegmentContext": "distill.journals.inspect",
    "RunReport": "distill.pipeline",
    "DrainReport": "distill.pipeline",
    "CatchupReport": "distill.pipeline",
    "TidyReport": "distill.tidy",
    "Draft": "distill.drafts",
    "FloorRefused": "distill.drafts",
    "ProfileState": "profile",
    "ProfileDraft": "profile",
    "ProfileApplied": "profile",
    "RecallResult": "recall",
    "WeaveResult": "weave",
    "Prefill": "prefill",
    "Memory": "store",
    "DoctorReport": "doctor",
    "DoctorAll": "doctor",
    "elapsed_label": "doctor",
    "Violation": "floors",
    "is_temp_name": "fsutil",
    "ScrubReport": "scrub",
    "StoredSecret": "scrub",
    "SecretRefused": "secrets",
}


def __getattr__(name: str) -> Any:
    where = _RETURNED.get(name)
    if where is None:
        raise AttributeError(f"module 'kura_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{where}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_RETURNED])


__all__ = [
    "CatchupReport",
    "DoctorAll",
    "DoctorReport",
    "Draft",
    "DraftsView",
    "DrainReport",
    "EditResult",
    "FloorRefused",
    "GateEntry",
    "GateReport",
    "InitResult",
    "Inspection",
    "JournalExcerpt",
    "JournalsView",
    "Kura",
    "KuraError",
    "MapView",
    "Memory",
    "MemoryView",
    "ModelRole",
    "ModelUnavailable",
    "NotFound",
    "Outcome",
    "PersonaFile",
    "Prefill",
    "ProfileApplied",
    "ProfileDraft",
    "ProfileInfo",
    "ProfileState",
    "Quote",
    "RecallResult",
    "RetireResult",
    "RunReport",
    "ScrubReport",
    "SecretRefused",
    "Seed",
    "SegmentContext",
    "StorageError",
    "StoreSummary",
    "StoresInfo",
    "StoredSecret",
    "TendStatus",
    "TendTick",
    "TidyReport",
    "TidyReview",
    "Violation",
    "WeavePreview",
    "WeaveResult",
    "editable_text",
    "elapsed_label",
    "is_temp_name",
    "parse_editable",
    "__version__",
]
