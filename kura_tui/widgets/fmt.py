"""Small formatting helpers shared by the panes (presentation only)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from textual.content import Content

from kura_core import DoctorReport, elapsed_label
from kura_core.vocabulary import ProvenanceClass


def ago(at: float | None, now: float) -> str:
    if not at:
        return "—"
    return f"{elapsed_label(max(0.0, now - float(at)))} ago"


def n(value: Any) -> str:
    try:
        return f"{int(value):,}"
    except (TypeError, ValueError):
        return str(value)


def one_line(text: str, limit: int = 0) -> str:
    s = " ".join(str(text or "").split())
    if limit and len(s) > limit:
        return s[: limit - 1] + "…"
    return s


CLASS_STYLE: dict[str, str] = {
    ProvenanceClass.USER: "bold $success",
    ProvenanceClass.TOOL: "bold $text-primary",
    ProvenanceClass.ACT: "bold $text-accent",
    ProvenanceClass.SELF: "bold italic $foreground-muted",
}

STATUS_STYLE = {
    "verified": "$success",
    "echo": "$warning",
    "not_found": "$error",
    "too_short": "$error",
    "cut": "$error",
}


def cls_tag(cls: str | None) -> Content:
    c = (cls or "?").upper()
    return Content.styled(f"[{c}]", CLASS_STYLE.get(c, "bold"))


def where(q: Mapping[str, Any]) -> str:
    src = q.get("source") or (q.get("where") or {}).get("source")
    if not src:
        return "where: not recorded"
    w = q.get("where") or q
    unit = w.get("unit", "byte")
    if unit == "byte":
        span = f"bytes {w.get('start')}–{w.get('end')}"
    else:
        span = f"record {w.get('start')}"
    name = Path(str(src)).name
    stem, dot, ext = name.rpartition(".")
    if dot and len(stem) > 16:
        name = f"{stem[:8]}…{dot}{ext}"
    return f"{name} · {span}"


def badge(report: DoctorReport | None, *, exists: bool = True) -> Content:
    """A store's health at a glance: ✓ / ✗ from its doctor report, "?" for a store with no
    directory yet and no report, "…" while the report is on its way."""
    if report is None:
        return (
            Content.styled("…", "$foreground-muted")
            if exists
            else Content.styled("?", "bold $warning")
        )
    if report.ok:
        return Content.styled("✓", "bold $success")
    return Content.styled("✗", "bold $error")


def heading(text: str) -> Content:
    return Content.styled(text, "bold $primary")
