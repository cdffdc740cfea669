"""Small formatting helpers shared by the panes (presentation only)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rich.cells import cell_len
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


Spans = Callable[[str], tuple[list[tuple[int, int, int]], int]]


def _per_character(text: str) -> tuple[list[tuple[int, int, int]], int]:
    """Grapheme spans for a rich that does not know graphemes: one character each."""
    spans = [(i, i + 1, cell_len(c)) for i, c in enumerate(text)]
    return spans, sum(w for _, _, w in spans)


_graphemes: Spans = _per_character
try:  # a rich that knows graphemes cuts an emoji sequence whole or not at all
    from rich.cells import split_graphemes

    _graphemes = split_graphemes
except ImportError:  # pragma: no cover - older rich
    pass


def _is_flag_half(text: str, start: int, stop: int) -> bool:
    return stop - start == 1 and "\U0001f1e6" <= text[start] <= "\U0001f1ff"


def _whole(text: str) -> list[tuple[int, int, int]]:
    """Grapheme spans (start, stop, cells), a flag's two regional indicators kept together."""
    spans, _ = _graphemes(text)
    out: list[tuple[int, int, int]] = []
    for span in spans:
        if (
            out
            and _is_flag_half(text, span[0], span[1])
            and _is_flag_half(text, out[-1][0], out[-1][1])
            and out[-1][1] == span[0]
        ):
            start = out.pop()[0]
            out.append((start, span[1], cell_len(text[start : span[1]])))
        else:
            out.append(span)
    return out


def clip(text: str, width: int) -> str:
    """*text* cut to at most *width* terminal cells, ending in … when cut. Widths are
    cells, not characters (rich's measure, the one Textual draws with): a wide character, an
    emoji with its variation selector, a flag or a ZWJ sequence is two cells, a combining mark
    none, and a cut never splits one of them."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return text
    end = used = 0
    for _start, stop, cells in _whole(text):
        if used + cells > width - 1:
            break
        used += cells
        end = stop
    return text[:end] + "…"


def fit(text: str, width: int) -> str:
    """*text* on one line, cut or padded to exactly *width* cells: a column that lines up
    whatever the text holds."""
    return pad(clip(one_line(text), width), width)


def pad(text: str, width: int) -> str:
    """*text* padded with spaces to at least *width* cells (never cut)."""
    return text + " " * max(0, width - cell_len(text))


def one_line(text: str, limit: int = 0) -> str:
    """*text* on one line; with *limit*, cut to that many cells."""
    s = " ".join(str(text or "").split())
    return clip(s, limit) if limit else s


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


def home_folded(text: str) -> str:
    """*text* with the home directory written ``~``, as a shell shows it: shorter paths on
    screen, and the same screen whoever's home it is."""
    home = os.path.expanduser("~").rstrip("/")
    if not home or home == "~":
        return text
    if text == home:
        return "~"
    return text.replace(home + "/", "~/")
