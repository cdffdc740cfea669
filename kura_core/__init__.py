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
from .kura import Kura

if TYPE_CHECKING:
    from .distill.drafts import FloorRefused
    from .doctor import DoctorAll, DoctorReport, elapsed_label
    from .floors import Violation
    from .fsutil import is_temp_name
    from .handwork import Quote, editable_text, parse_editable

__version__ = "0.1.0"

#: what Kura returns or raises, by name, and the module that defines it
_RETURNED = {
    "DoctorReport": "doctor", "DoctorAll": "doctor", "elapsed_label": "doctor",
    "Violation": "floors",
    "FloorRefused": "distill.drafts",
    "Quote": "handwork", "editable_text": "handwork", "parse_editable": "handwork",
    "is_temp_name": "fsutil",
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
    "DoctorAll", "DoctorReport", "FloorRefused", "Kura", "KuraError", "ModelUnavailable", "NotFound", "Quote",
    "StorageError", "Violation", "__version__", "editable_text", "elapsed_label", "is_temp_name", "parse_editable",
]
