"""Plain text of typed reports, for the command line (no rich, no textual).

Each face renders a report its own way from the same typed value: the CLI with these
functions, the app with its widgets, HTTP and MCP with the report's ``to_json()``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .. import DoctorReport


def doctor_text(r: DoctorReport) -> str:
    """`kura doctor`: one store's health, a line per subject, then problems and notes."""
    out = [f"{r.store}: {'ok' if r.ok else 'BROKEN'}  ({r.path})"]
    cap = r.capacity
    out.append(
        f"  capacity   {cap.memories} memories · {cap.index_tokens} index tokens · "
        f"{cap.body_tokens} body tokens · {cap.bytes} bytes"
    )
    if cap.limit:
        out.append(
            "  limit      "
            + " · ".join(f"{v} {k.replace('_', ' ')}" for k, v in cap.limit.items())
            + (f" · pressure {cap.pressure:.0%}" if cap.pressure is not None else "")
        )
    out.append(f"  drafts     {r.drafts_waiting} waiting · seeds {r.seeds}")
    if r.profile is not None:
        out.append(f"  profile    {r.profile.state}")
    j = r.journals
    out.append(
        f"  journals   {j.source}" + (f": {', '.join(x.root for x in j.roots)}" if j.roots else "")
    )
    t = r.tender
    beat = f", last beat {t.last_beat_s}s ago" if t.beat else ""
    out.append(f"  tender     {t.state}{beat}")
    for role, m in r.models.items():
        if not m.configured:
            out.append(f"  {role:<10} not configured")
            continue
        reach = f" {m.said}" if m.said else ""
        err = f"  last error: {m.last_error}" if m.failing else ""
        out.append(f"  {role:<10} {m.model} @ {m.url}{reach}{err}")
    out += [f"  ✗ {p}" for p in r.problems]
    out += [f"  · {n}" for n in r.notes]
    return "\n".join(out)
