"""`kura bench perf`: every speed figure at several store sizes, as JSON plus a readable table.

Needs no model: recall by meaning is measured against the instant thinker (a loopback
OpenAI-compatible responder that answers at once), so what is measured is kura's own work.
Faces that want their own figures in the report (the curation app's first paint) plug in
as a ``Probe``: the core never imports them; the command line hands them in.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import parse_config
from ..registry import Registry
from .constellation_perf import constellation_lines, measure_constellation
from .fastpath_perf import measure_fastpath
from .gate_perf import bench_gate, bench_gate_journal
from .http_perf import bench_http
from .recall_perf import measure_meaning, measure_words
from .rss import serve_rss, supported
from .stores import generate_store
from .thinker import InstantThinker
from .weave_perf import bench_reweave
from .write_perf import bench_writes


@dataclass(frozen=True)
class Probe:
    """A measurement a face adds to the report under *name*.

    ``run`` gets a fresh working directory of its own and returns the figures; ``line``
    turns them into one line of the table.
    """

    name: str
    label: str
    run: Callable[[Path], dict[str, Any]]
    line: Callable[[dict[str, Any]], str]


def perf(
    sizes: Sequence[int] = (500, 5000, 20000),
    *,
    runs: int = 9,
    workdir: Path | None = None,
    http: bool = True,
    rss: bool = True,
    probes: Sequence[Probe] = (),
    progress: Callable[[str], None] | None = None,
    journal_mb: float = 20.0,
) -> dict[str, Any]:
    say = progress or (lambda s: None)
    own = workdir is None
    work = Path(workdir or tempfile.mkdtemp(prefix="kura-perf-"))
    report: dict[str, Any] = {
        "sizes": list(sizes),
        "runs": runs,
        "recall": [],
        "fastpath": [],
        "degraded": [],
        "index_after_write": [],
        "prefix": [],
        "weave": [],
        "writes": [],
        "constellation": [],
        "gate": {},
        "http": None,
        "rss": None,
    }
    for p in probes:
        report[p.name] = None
    if rss and not supported():
        report["rss"] = {
            "skipped": "resident memory is read from /proc, which this system does not have"
        }
    try:
        with InstantThinker(keep_prompts=True) as thinker:
            for n in sizes:
                root = work / f"s{n}"
                say(f"generating a store of {n} memories")
                generate_store(root, n)
                if rss and supported():
                    say(f"resident memory of kura serve at {n}")
                    report["rss"] = report["rss"] or []
                    report["rss"].append(
                        {"memories": n, **serve_rss(root, work / f"serve{n}", thinker)}
                    )
                say(f"recall by meaning at {n}")
                meaning, prefix = measure_meaning(root, thinker, runs)
                report["recall"].append(meaning)
                report["prefix"].append(prefix)
                say(f"the fastpath (recall's tier zero) at {n}")
                report["fastpath"].append(measure_fastpath(root, thinker))
                say(f"degraded recall and the word index after writes at {n}")
                degraded, update = measure_words(root, runs, n)
                report["degraded"].append(degraded)
                report["index_after_write"].append(update)
                say(f"steady-state re-weave at {n}")
                report["weave"].append(bench_reweave(n, work / f"w{n}", runs=max(3, runs // 3)))
                say(f"the cost of one write, without history and with it, at {n}")
                report["writes"].append(bench_writes(root, n, runs))
                say(f"the constellation at {n}")
                report["constellation"].append(measure_constellation(root, n))
        say("gate throughput")
        report["gate"] = bench_gate(runs)
        if journal_mb > 0:
            say(f"the gate over a generated {journal_mb:g} MB journal")
            report["gate"]["journal"] = bench_gate_journal(work / "journal", journal_mb, runs)
        if http:
            say("HTTP throughput, clients in a separate process, beside a bare stdlib server")
            root = work / "http"
            generate_store(root, min(sizes) if sizes else 500)
            reg = Registry(parse_config({"stores": {"bench": {"path": str(root)}}}, source=None))
            try:
                report["http"] = bench_http(reg, requests=max(1200, 1000 * runs))
            finally:
                reg.close()
        for p in probes:
            say(p.label)
            report[p.name] = p.run(work / p.name)
        return report
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)


def _write_lines(writes: Sequence[dict[str, Any]]) -> list[str]:
    if not writes:
        return []
    lines = ["", "memories   one write, no history   with history (a git commit)   ratio"]
    for w in writes:
        on = w.get("history_on_ms_median")
        lines.append(
            f"{w['memories']:>8}   {w['history_off_ms_median']:>17.2f} ms   "
            + (f"{on:>24.2f} ms   {w['ratio']:.2f}x" if on is not None else str(w["history_on"]))
        )
    return lines


def perf_table(rep: dict[str, Any], probes: Sequence[Probe] = ()) -> str:
    lines = [
        "memories   recall overhead   recall total   shards   degraded   word-index build   re-weave"
    ]
    weave = {w.get("memories"): w for w in rep.get("weave", [])}
    for r, d in zip(rep["recall"], rep["degraded"], strict=False):
        w = weave.get(r["memories"], {})
        wm = w.get("reweave_ms_median", "—")
        lines.append(
            f"{r['memories']:>8}   {r['overhead_ms_median']:>12.2f} ms   {r['total_ms_median']:>9.2f} ms"
            f"   {r['shards']:>6}   {d['median_ms']:>5.2f} ms   {d['index_build_ms']:>13.1f} ms"
            f"   {wm if isinstance(wm, str) else f'{wm:.1f} ms':>8}"
        )
    lines += _fastpath_lines(rep.get("fastpath") or [])
    if rep.get("index_after_write"):
        lines.append("")
        lines.append(
            "memories   degraded warm   next recall after a write (median / max)   periodic check"
            "   full rebuild"
        )
        for u in rep["index_after_write"]:
            lines.append(
                f"{u['memories']:>8}   {u['warm_ms_median']:>10.2f} ms   "
                f"{u['after_write_ms_median']:>18.2f} ms / {u['after_write_ms_max']:.2f} ms"
                f"   {u['periodic_check_ms']:>11.1f} ms   {u['full_rebuild_ms']:>9.1f} ms"
            )
    lines += _write_lines(rep.get("writes") or [])
    if rep.get("prefix"):
        lines.append("")
        lines.append(
            "memories   prompt tokens per recall   shared with the previous prompt (min / median)"
            "   warm prefill per recall"
        )
        for p in rep["prefix"]:
            mn, md = p.get("shared_share_min"), p.get("shared_share_median")
            shared = "—" if mn is None else f"{mn * 100:.2f}% / {md * 100:.2f}%"
            lines.append(
                f"{p['memories']:>8}   {p['prompt_tokens_per_recall']:>24}   {shared:>44}"
                f"   {p.get('warm_prefill_tokens_per_recall')} tokens"
            )
    if isinstance(rep.get("rss"), list):
        lines.append("")
        lines.append("memories   kura serve resident memory (listening / warm / peak)")
        for m in rep["rss"]:
            lines.append(
                f"{m['memories']:>8}   {m['rss_mb_listening']} / {m['rss_mb_warm']} / {m['rss_mb_peak']} MB"
            )
    if rep.get("constellation"):
        lines += constellation_lines(rep["constellation"])
    lines.append("")
    lines += _gate_lines(rep.get("gate") or {})
    h = rep.get("http")
    if h:
        b = h.get("bare") or {}
        lines.append(
            f"http: {h.get('requests_per_s')} requests/s degraded recall, p50 {h.get('p50_ms')} ms, "
            f"p99 {h.get('p99_ms')} ms, errors {h.get('errors')} ({h.get('clients')} clients in a separate "
            "process)"
        )
        lines.append(
            f"      bare stdlib server: {b.get('requests_per_s')} requests/s, p50 {b.get('p50_ms')} ms, "
            f"p99 {b.get('p99_ms')} ms — kura reaches {h.get('ratio_to_bare')} of its rate, "
            f"p99 {h.get('p99_ratio_to_bare')}×"
        )
        if h.get("ratio_by_round"):
            lines.append(
                f"      round by round: {', '.join(str(x) for x in h['ratio_by_round'])} "
                f"(median {h.get('ratio_median_of_rounds')})"
            )
    for p in probes:
        got = rep.get(p.name)
        if got and "skipped" not in got:
            lines.append(p.line(got))
    for name, got in rep.items():
        if isinstance(got, dict) and set(got) == {"skipped"}:
            lines.append(f"{name}: skipped ({got['skipped']})")
    return "\n".join(lines)


def _fastpath_lines(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return []
    out = [
        "",
        "memories   fastpath judge (median / p99)   direct answered / wrong   agrees with thinker"
        "   thinker asked   indirect answered   first build",
    ]
    for f in rows:
        agree = f["agreement_with_thinker"]
        out.append(
            f"{f['memories']:>8}   {f['judge_ms_median']:>10.3f} / {f['judge_ms_p99']:.3f} ms"
            f"   {f['answered']:>10} of {f['direct_questions']} / {f['wrong']}"
            f"   {'—' if agree is None else f'{agree * 100:.0f}%':>19}"
            f"   {f['thinker_requests_for_direct_questions']:>13}"
            f"   {f['indirect_answered']:>9} of {f['indirect_questions']}"
            f"   {f['build_ms'] / 1000:>9.1f} s"
        )
    return out


def _gate_lines(g: dict[str, Any]) -> list[str]:
    out = []
    if g:
        out.append(
            f"gate: {g['candidates']} candidates over {g['segments']} segments in {g['median_ms']} ms "
            f"({g['candidates_per_s']} candidates/s)"
        )
    j = g.get("journal")
    if j:
        out.append(
            f"gate over a {j['journal_mb']} MB journal ({j['segments']} segments): "
            f"{j['gate_s_median']} s for {j['candidates']} candidates = {j['gate_mb_per_s']} MB/s, "
            f"{j['candidates_per_s']} candidates/s; reading it {j['read_s_median']} s "
            f"(read + gate = {j['gate_and_read_to_read']}× the read)"
        )
    return out
