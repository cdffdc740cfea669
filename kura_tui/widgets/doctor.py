"""The doctor pane: health, capacity, model reachability and last errors, tender heartbeat."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from kura_core.vocabulary import TenderState

from ..host import host
from .fmt import ago, heading, home_folded, n

if TYPE_CHECKING:
    from kura_core import DoctorReport

TENDER_STYLE = {
    "alive": "bold $success",
    "stale": "bold $warning",
    "dead": "bold $error",
    "stopped": "bold $foreground-muted",
    "never started": "$foreground-muted",
}


def render_report(r: DoctorReport, now: float, probed: bool = False) -> Content:
    out = _summary(r) + _capacity(r) + _tender(r) + _models(r, now, probed) + _details(r)
    return Content("\n").join(out)


def _summary(r: DoctorReport) -> list[Content]:
    out = [
        Content.assemble(
            ("✓ healthy" if r.ok else "✗ broken", "bold $success" if r.ok else "bold $error"),
            ("  " + r.store, "bold"),
            (f"  {home_folded(str(r.path))}", "$foreground-muted"),
        )
    ]
    if r.label:
        out.append(Content.styled(r.label, "$foreground-muted"))
    out += [Content.styled(f"✗ {home_folded(p)}", "$error") for p in r.problems]
    if r.dead_links or r.index_drift.files_without_line:
        out.append(Content.styled("f (here) makes the fix for links and index lines", "$accent"))
    if r.secrets:
        out.append(Content.styled("  press X to scrub them (asks first)", "$warning"))
    out += [Content.styled(f"· {home_folded(note)}", "$warning") for note in r.notes]
    return out


def _capacity(r: DoctorReport) -> list[Content]:
    cap = r.capacity
    return [
        Content(""),
        heading("Capacity"),
        Content.assemble(
            (n(cap.memories), "bold"),
            " memories · ",
            (n(cap.index_tokens), "bold"),
            " index tokens · ",
            (n(cap.body_tokens), "bold"),
            " body tokens · ",
            (n(cap.bytes), "bold"),
            " bytes",
        ),
        Content.assemble(
            (n(r.drafts_waiting), "bold"),
            " drafts waiting · ",
            (n(r.seeds), "bold"),
            " seeds · ",
            (n(len(r.dead_links)), "bold"),
            " dead links · ",
            (n(len(r.islands)), "bold"),
            " islands · write policy ",
            (r.write_policy, "bold"),
        ),
    ]


def _tender(r: DoctorReport) -> list[Content]:
    t = r.tender
    parts: list[Any] = [(t.state, TENDER_STYLE.get(t.state, "bold"))]
    if t.last_beat_s is not None:
        parts.append((f" · last beat {t.last_beat_s:.0f}s ago", "$foreground-muted"))
    if t.pid:
        parts.append((f" · pid {t.pid}", "$foreground-muted"))
    if t.doing and t.doing != t.state:
        parts.append((f" · {t.doing}", "$foreground-muted"))
    out = [Content(""), heading("Tender"), Content.assemble(*parts)]
    if t.counts:
        out.append(
            Content.styled(
                "work done: " + ", ".join(f"{k} {v}" for k, v in t.counts.items()),
                "$foreground-muted",
            )
        )
    if t.state == TenderState.NEVER_STARTED:
        out.append(
            Content.styled(
                f"no tender has run here: `kura tend -s {r.store or 'STORE'}` keeps the store tidy",
                "$foreground-muted",
            )
        )
    return out


def _models(r: DoctorReport, now: float, probed: bool) -> list[Content]:
    out = [Content(""), heading("Models" + ("" if probed else "  (d asks each endpoint)"))]
    for role, m in r.models.items():
        if not m.configured:
            out.append(
                Content.assemble(
                    (f"{role:<8}", "bold"),
                    ("not configured", "$foreground-muted"),
                    (" — recall falls back to words" if role == "thinker" else "", "$warning"),
                )
            )
            continue
        parts: list[Any] = [(f"{role:<8}", "bold"), f"{m.model} @ {m.url}"]
        if m.said:
            style = (
                "$foreground-muted"
                if m.reachable is None
                else ("$success" if m.reachable else "$error")
            )
            parts += ["  ", (m.said, style)]
        out.append(Content.assemble(*parts))
        if m.deadline:
            limit = m.max_tokens or "each task's own"
            out.append(
                Content.styled(
                    f"         replies up to {limit} tokens · deadline {m.deadline:g}s",
                    "$foreground-muted",
                )
            )
        stats = f"         {m.calls} calls · {m.failures} failures"
        if m.last_ok_at:
            stats += f" · last ok {ago(m.last_ok_at, now)}"
        out.append(Content.styled(stats, "$foreground-muted"))
        if m.last_error:
            style = "$error" if m.failing else "$foreground-muted"
            out.append(
                Content.styled(
                    f"         last error ({ago(m.last_error_at, now)}): {m.last_error}", style
                )
            )
    return out


def _details(r: DoctorReport) -> list[Content]:
    extra = [(k.replace("_", " "), v) for k, v in r.index_drift.items() if v]
    if not (extra or r.unreadable or r.dead_links):
        return []
    out = [Content(""), heading("Details")]
    out += [Content.styled(f"{k}: {', '.join(v[:8])}", "$error") for k, v in extra]
    out += [
        Content.styled(f"dead link [[{d.target}]] in {d.source}", "$error")
        for d in r.dead_links[:8]
    ]
    out += [Content.styled(f"unreadable {u.file}: {u.why}", "$error") for u in r.unreadable[:8]]
    return out


class DoctorPane(VerticalScroll):
    DEFAULT_CSS = """
    DoctorPane { height: 1fr; padding: 0 1; }
    """

    BINDINGS = [
        Binding(
            "f",
            "fix",
            "Fix",
            tooltip="Make the fix doctor names: relink dead links, adopt memory files",
            id="doctor.fix",
        ),
    ]

    def __init__(self, clock: Callable[[], float], **kw: Any) -> None:
        super().__init__(**kw)
        self.clock = clock
        self.report: DoctorReport | None = None

    def action_fix(self) -> None:
        if self.report is not None:
            host(self).fix_store(self.report.store, self.report)

    def compose(self) -> ComposeResult:
        yield Static(Content.styled("asking the doctor…", "$foreground-muted"), id="doctor-report")

    def show(self, report: DoctorReport, probed: bool = False) -> None:
        self.report = report
        self.query_one("#doctor-report", Static).update(render_report(report, self.clock(), probed))
