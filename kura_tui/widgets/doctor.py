"""The doctor pane: health, capacity, model reachability and last errors, tender heartbeat."""

from __future__ import annotations

from typing import Any, Callable, Mapping

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from .fmt import ago, heading, n

TENDER_STYLE = {"alive": "bold $success", "stale": "bold $warning", "dead": "bold $error",
                "stopped": "bold $foreground-muted", "never started": "$foreground-muted"}


def render_report(r: Mapping[str, Any], now: float, probed: bool = False) -> Content:
    out: list[Content] = []
    ok = r.get("ok")
    out.append(Content.assemble(
        ("✓ healthy" if ok else "✗ broken", "bold $success" if ok else "bold $error"),
        ("  " + str(r.get("store", "")), "bold"), (f"  {r.get('path', '')}", "$foreground-muted")))
    if r.get("label"):
        out.append(Content.styled(str(r["label"]), "$foreground-muted"))
    for p in r.get("problems", []):
        out.append(Content.styled(f"✗ {p}", "$error"))
    for note in r.get("notes", []):
        out.append(Content.styled(f"· {note}", "$warning"))

    cap = r.get("capacity") or {}
    out.append(Content(""))
    out.append(heading("Capacity"))
    out.append(Content.assemble(
        (n(cap.get("memories", 0)), "bold"), " memories · ", (n(cap.get("index_tokens", 0)), "bold"),
        " index tokens · ", (n(cap.get("body_tokens", 0)), "bold"), " body tokens · ",
        (n(cap.get("bytes", 0)), "bold"), " bytes"))
    out.append(Content.assemble(
        (n(r.get("drafts_waiting", 0)), "bold"), " drafts waiting · ", (n(r.get("seeds", 0)), "bold"),
        " seeds · ", (n(len(r.get("dead_links", []))), "bold"), " dead links · ",
        (n(len(r.get("islands", []))), "bold"), " islands · write policy ",
        (str(r.get("write_policy", "")), "bold")))

    t = r.get("tender") or {}
    out.append(Content(""))
    out.append(heading("Tender"))
    state = str(t.get("state", "never started"))
    parts: list[Any] = [(state, TENDER_STYLE.get(state, "bold"))]
    if "last_beat_s" in t:
        parts.append((f" · last beat {t['last_beat_s']:.0f}s ago", "$foreground-muted"))
    if t.get("pid"):
        parts.append((f" · pid {t['pid']}", "$foreground-muted"))
    if t.get("doing") and t.get("doing") != state:
        parts.append((f" · {t['doing']}", "$foreground-muted"))
    out.append(Content.assemble(*parts))
    counts = t.get("counts") or {}
    if counts:
        out.append(Content.styled("work done: " + ", ".join(f"{k} {v}" for k, v in counts.items()),
                                  "$foreground-muted"))
    if state == "never started":
        out.append(Content.styled(f"no tender has run here: `kura tend -s {r.get('store', 'STORE')}` "
                                  "keeps the store tidy", "$foreground-muted"))

    out.append(Content(""))
    out.append(heading("Models" + ("" if probed else "  (d asks each endpoint)")))
    for role, m in (r.get("models") or {}).items():
        if not m.get("configured"):
            out.append(Content.assemble((f"{role:<8}", "bold"), ("not configured", "$foreground-muted"),
                                        (" — recall falls back to words" if role == "thinker" else "",
                                         "$warning")))
            continue
        parts = [(f"{role:<8}", "bold"), f"{m.get('model')} @ {m.get('url')}"]
        if "reachable" in m:
            parts += ["  ", ("reachable", "$success") if m["reachable"] else
                      (f"unreachable: {m.get('reason', '')}", "$error")]
        out.append(Content.assemble(*parts))
        stats = f"         {m.get('calls', 0)} calls · {m.get('failures', 0)} failures"
        if m.get("last_ok_at"):
            stats += f" · last ok {ago(m['last_ok_at'], now)}"
        out.append(Content.styled(stats, "$foreground-muted"))
        if m.get("last_error"):
            style = "$error" if m.get("failing") else "$foreground-muted"
            out.append(Content.styled(
                f"         last error ({ago(m.get('last_error_at'), now)}): {m['last_error']}", style))

    drift = r.get("index_drift") or {}
    extra = [(k.replace("_", " "), v) for k, v in drift.items() if v]
    if extra or r.get("unreadable") or r.get("dead_links"):
        out.append(Content(""))
        out.append(heading("Details"))
        for k, v in extra:
            out.append(Content.styled(f"{k}: {', '.join(map(str, v[:8]))}", "$error"))
        for d in r.get("dead_links", [])[:8]:
            out.append(Content.styled(f"dead link [[{d['to']}]] in {d['from']}", "$error"))
        for u in r.get("unreadable", [])[:8]:
            out.append(Content.styled(f"unreadable {u['file']}: {u['why']}", "$error"))
    return Content("\n").join(out)


class DoctorPane(VerticalScroll):
    DEFAULT_CSS = """
    DoctorPane { height: 1fr; padding: 0 1; }
    """

    def __init__(self, clock: Callable[[], float], **kw: Any) -> None:
        super().__init__(**kw)
        self.clock = clock

    def compose(self) -> ComposeResult:
        yield Static(Content.styled("asking the doctor…", "$foreground-muted"), id="doctor-report")

    def show(self, report: Mapping[str, Any], probed: bool = False) -> None:
        self.query_one("#doctor-report", Static).update(render_report(report, self.clock(), probed))
