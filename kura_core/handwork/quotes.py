"""A quote of evidence, as a person reads it beside a memory or a draft."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass

# =========================================================================== quotes


@dataclass(frozen=True)
class Quote:
    """One piece of evidence: its class, its text, and where in which journal it is."""

    cls: str
    text: str
    status: str = ""
    source: str = ""
    start: int = 0
    end: int = 0
    unit: str = "byte"

    @classmethod
    def from_json(cls, q: Mapping[str, Any]) -> Quote:
        """A quote as drafts record it, or as the gate does (``class`` and ``where``)."""
        found = q.get("where")
        where: Mapping[str, Any] = found if isinstance(found, Mapping) else q
        try:
            start, end = int(where.get("start") or 0), int(where.get("end") or 0)
        except (TypeError, ValueError):
            start = end = 0
        return cls(
            cls=str(q.get("cls") or q.get("class") or "?").upper(),
            text=str(q.get("text") or ""),
            status=str(q.get("status") or ""),
            source=str(where.get("source") or ""),
            start=start,
            end=end,
            unit=str(where.get("unit") or "byte"),
        )

    @property
    def located(self) -> bool:
        return bool(self.source) and not self.source.startswith("memory:")
