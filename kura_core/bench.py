"""Measure it, don't claim it: `kura bench compress | retention | perf`.

* compress — how much the distiller shrinks what it drank, from its own metrics;
* retention — planted facts asked back through recall, scored by marker regexes;
* perf — recall overhead, degraded recall, weave, gate, HTTP throughput and TUI first
  paint at several store sizes, as JSON plus a readable table.

perf needs no model: recall by meaning is measured against a built-in instant thinker
(a loopback OpenAI-compatible responder that answers at once), so what is measured is
kura's own overhead — building the prompt, sharding, parsing, walking, trimming.
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

from .config import parse_config
from .errors import KuraError
from .registry import Registry
from .tokens import estimate_tokens

# --------------------------------------------------------------------------- compress


def compress(reg: Registry, selector: str | None) -> dict[str, Any]:
    """store_ratio = tokens in attributed memories and their index lines / journal tokens drunk."""
    from .distill.drafts import read_manifest

    name = reg.resolve(selector)
    store = reg.store(name)
    ws = reg.workshop(name)
    batches = {r["id"]: r for r in ws.query("SELECT id, raw_tokens, segments FROM batches")}
    raw = sum(r["raw_tokens"] for r in batches.values())
    entries = store.index().by_slug()
    counted = unattributed = 0
    mem_tokens = index_tokens = 0
    for m in store.scan().memories:
        md = m.meta.get("metadata") if isinstance(m.meta.get("metadata"), dict) else {}
        ref = md.get("evidence_manifest")
        batch = None
        if isinstance(ref, str):
            try:
                batch = read_manifest(store, ref).get("batch")
            except KuraError:
                batch = None
        if batch not in batches:
            unattributed += 1
            continue
        counted += 1
        mem_tokens += estimate_tokens(m.body) + estimate_tokens(m.description)
        e = entries.get(m.slug)
        index_tokens += estimate_tokens(e.raw) if e else 0
    ratio = (mem_tokens + index_tokens) / raw if raw else None
    return {"store": name, "batches": len(batches), "raw_tokens_drunk": raw, "memories_counted": counted,
            "memory_tokens": mem_tokens, "index_tokens": index_tokens,
            "store_ratio": round(ratio, 4) if ratio is not None else None, "unattributed": unattributed}


# --------------------------------------------------------------------------- retention


def retention(reg: Registry, questions_file: Path, corpus: Path | None = None, *,
              workdir: Path | None = None, max_rounds: int = 20) -> dict[str, Any]:
    """Distil *corpus* into a fresh store with the configured models, then ask each
    question through recall and score its marker regex. Distractors (must_not_store)
    cost a point when the store holds them."""
    from .distill import pipeline

    try:
        qs = json.loads(Path(questions_file).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise KuraError(f"--questions {questions_file}: no such file") from None
    except json.JSONDecodeError as exc:
        raise KuraError(f"--questions {questions_file}: not JSON ({exc.msg})") from None
    if not isinstance(qs, list) or not all(isinstance(q, dict) and "question" in q and "expect" in q for q in qs):
        raise KuraError("--questions must be a JSON list of {id, category, question, expect[, must_not_store]}")
    corpus = Path(corpus) if corpus else Path(questions_file).with_name("corpus.jsonl")
    if not corpus.is_file():
        raise KuraError(f"no corpus at {corpus}: pass --corpus FILE")
    models = {r: s for r, s in reg.config.models.items() if s is not None}
    if "thinker" not in models:
        raise KuraError("retention needs a model: configure [models.thinker] (it distils and recalls)")
    own = workdir is None
    work = Path(workdir or tempfile.mkdtemp(prefix="kura-retention-"))
    try:
        (work / "journal").mkdir(parents=True, exist_ok=True)
        shutil.copy(corpus, work / "journal" / corpus.name)
        raw: dict[str, Any] = {
            "stores": {"bench": {"path": str(work / "store")}},
            "distill": {"journals": {"claude": str(work / "journal")}, "max_items": 12},
            "models": {r: _spec_table(s) for r, s in models.items()},
        }
        breg = Registry(parse_config(raw, source=None), env=reg.env)
        from .store import Store

        Store(work / "store", name="bench").init()
        rounds = 0
        while rounds < max_rounds:
            rounds += 1
            rep = pipeline.run(breg, "bench")
            if rep.shelved:
                raise KuraError("distilling failed: " + "; ".join(rep.errors))
            if not rep.did_work:
                break
        drain = pipeline.drain(breg, "bench")
        from .recall import recall

        store_text = "\n".join(m.description + "\n" + m.body for m in breg.store("bench").scan().memories)
        by_cat: dict[str, dict[str, float]] = {}
        rows = []
        for q in qs:
            cat = str(q.get("category", "other"))
            slot = by_cat.setdefault(cat, {"score": 0.0, "of": 0})
            pattern = re.compile(str(q["expect"]), re.IGNORECASE)
            if q.get("must_not_store"):
                stored = bool(pattern.search(store_text))
                slot["score"] += -1 if stored else 1
                slot["of"] += 1
                rows.append({"id": q.get("id"), "category": cat, "hit": not stored, "stored": stored})
                continue
            res = recall(breg, "bench", q["question"])
            hit = bool(pattern.search(res.context))
            slot["score"] += 1 if hit else 0
            slot["of"] += 1
            rows.append({"id": q.get("id"), "category": cat, "hit": hit, "how": res.how, "picked": list(res.picked)})
        total = sum(s["score"] for s in by_cat.values())
        return {"score": total, "of": sum(s["of"] for s in by_cat.values()), "by_category": by_cat,
                "questions": rows, "memories": len(breg.store("bench").file_slugs()),
                "poured": len(drain.poured), "tossed": len(drain.tossed), "workdir": str(work)}
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)


def _spec_table(spec: Any) -> dict[str, Any]:
    out = {"url": spec.url, "model": spec.model, "timeout": spec.timeout, "temperature": spec.temperature,
           "effort": spec.effort, "thinking": spec.thinking, "dialect": spec.dialect}
    if spec.api_key_env:
        out["api_key_env"] = spec.api_key_env
    if spec.extra:
        out["extra"] = dict(spec.extra)
    return out


# --------------------------------------------------------------------------- perf


class InstantThinker:
    """A loopback OpenAI-compatible responder that answers kura_pick at once with the
    first few slugs of the index it was sent. It measures kura, not a model."""

    def __init__(self) -> None:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *a: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._send({"data": [{"id": "instant"}]})

            def do_POST(self) -> None:
                n = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(n) or b"{}")
                system = body.get("messages", [{}])[0].get("content", "")
                slugs = re.findall(r"\]\(([a-z0-9-]+)\.md\)", system)[:3]
                owner.calls += 1
                self._send({"choices": [{"message": {"role": "assistant",
                                                     "content": json.dumps({"slugs": slugs})}}]})

            def _send(self, obj: Any) -> None:
                data = json.dumps(obj).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.calls = 0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "InstantThinker":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


#: questions in the generated stores' vocabulary, so the word tier really ranks postings
QUESTIONS = ["where did the archive move after the tries", "which kettle stays with the router",
             "the garden invoice and the backup", "what happened to the camera cluster",
             "is the printer still in the pantry", "the laptop schedule for the recipe",
             "tenant license and the mirror sensor", "which ticket moved the budget", "harbor violin ledger"]


def _median_ms(fn: Callable[[], Any], runs: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), times


def perf(sizes: tuple[int, ...] = (500, 5000, 20000), *, runs: int = 9, workdir: Path | None = None,
         http: bool = True, tui: bool = True, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    from .distill.evidence import Segment
    from .distill.gate import run_gate
    from .recall import recall, word_index
    from .weave import bench_reweave, generate_store

    say = progress or (lambda s: None)
    own = workdir is None
    work = Path(workdir or tempfile.mkdtemp(prefix="kura-perf-"))
    report: dict[str, Any] = {"sizes": list(sizes), "runs": runs, "recall": [], "degraded": [], "weave": [],
                              "gate": {}, "http": None, "tui": None}
    try:
        with InstantThinker() as thinker:
            for n in sizes:
                root = work / f"s{n}"
                say(f"generating a store of {n} memories")
                generate_store(root, n)
                cfg = parse_config({"stores": {"bench": {"path": str(root)}},
                                    "models": {"thinker": {"url": thinker.url, "model": "instant", "timeout": 30}}},
                                   source=None)
                reg = Registry(cfg)
                plain = Registry(parse_config({"stores": {"bench": {"path": str(root)}}}, source=None))
                say(f"recall by meaning at {n}")
                recall(reg, "bench", QUESTIONS[0])  # warm: caches, connections
                over, tot = [], []
                for i in range(runs):
                    r = recall(reg, "bench", QUESTIONS[i % len(QUESTIONS)])
                    if r.degraded:
                        raise KuraError(f"the instant thinker failed: {r.reason}")
                    over.append(r.elapsed_ms - r.model_ms)
                    tot.append(r.elapsed_ms)
                report["recall"].append({"memories": n, "overhead_ms_median": round(statistics.median(over), 2),
                                         "total_ms_median": round(statistics.median(tot), 2),
                                         "shards": r.shards, "index_tokens": estimate_tokens(reg.store("bench").index_text())})
                say(f"degraded recall at {n}")
                t0 = time.perf_counter()
                word_index(plain, "bench")
                build_ms = (time.perf_counter() - t0) * 1000
                turn = iter(range(10 ** 6))
                med, _ = _median_ms(lambda: recall(plain, "bench", QUESTIONS[next(turn) % len(QUESTIONS)]), runs)
                report["degraded"].append({"memories": n, "median_ms": round(med, 2),
                                           "index_build_ms": round(build_ms, 1)})
                reg.close()
                plain.close()
                say(f"steady-state re-weave at {n}")
                report["weave"].append(bench_reweave(n, work / f"w{n}", runs=max(3, runs // 3)))
        say("gate throughput")
        segs = [Segment(cls="USER" if i % 3 else "TOOL", text=f"line {i}: the widget {i} sits on shelf {i % 17} "
                        "and we decided to keep it there", source="bench", start=i, end=i + 1, unit="seq")
                for i in range(400)]
        cands = [{"kind": "fact", "title": f"widget {i}", "description": f"widget {i} on shelf {i % 17}",
                  "body": f"The widget {i} sits on shelf {i % 17}.",
                  "quotes": [f"[USER] the widget {i} sits on shelf {i % 17}"]} for i in range(1, 200, 2)]
        med, _ = _median_ms(lambda: run_gate(cands, segs), max(3, runs // 2))
        report["gate"] = {"candidates": len(cands), "segments": len(segs), "median_ms": round(med, 2),
                          "candidates_per_s": round(len(cands) / (med / 1000), 1)}
        if http:
            say("HTTP throughput")
            from .http import bench_http

            root = work / "http"
            generate_store(root, min(sizes) if sizes else 500)
            reg = Registry(parse_config({"stores": {"bench": {"path": str(root)}}}, source=None))
            try:
                report["http"] = bench_http(reg)
            finally:
                reg.close()
        if tui:
            try:
                from kura_tui.bench import first_paint_ms, pane_timings
            except ImportError:
                report["tui"] = {"skipped": "the TUI is not installed"}
            else:
                say("TUI first paint at 5,000 memories with 500 drafts")
                report["tui"] = {"memories": 5000, "drafts": 500,
                                 "first_paint_ms": round(first_paint_ms(work / "tui", 5000, 500), 1)}
                say("TUI panes filled and switched at 5,000 memories with 500 drafts")
                report["tui"]["panes"] = pane_timings(work / "tui-panes", 5000, 500)
        return report
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)


def perf_table(rep: dict[str, Any]) -> str:
    lines = ["memories   recall overhead   recall total   shards   degraded   word-index build   re-weave"]
    weave = {w.get("memories"): w for w in rep.get("weave", [])}
    for r, d in zip(rep["recall"], rep["degraded"]):
        w = weave.get(r["memories"], {})
        wm = w.get("reweave_ms_median", "—")
        lines.append(f"{r['memories']:>8}   {r['overhead_ms_median']:>12.2f} ms   {r['total_ms_median']:>9.2f} ms"
                     f"   {r['shards']:>6}   {d['median_ms']:>5.2f} ms   {d['index_build_ms']:>13.1f} ms"
                     f"   {wm if isinstance(wm, str) else f'{wm:.1f} ms':>8}")
    g = rep.get("gate") or {}
    if g:
        lines.append(f"gate: {g['candidates']} candidates over {g['segments']} segments in {g['median_ms']} ms "
                     f"({g['candidates_per_s']} candidates/s)")
    h = rep.get("http")
    if h:
        lines.append(f"http: {h.get('requests_per_s')} requests/s degraded recall, "
                     f"p50 {h.get('p50_ms')} ms, p95 {h.get('p95_ms')} ms, errors {h.get('errors')}")
    t = rep.get("tui")
    if t and "first_paint_ms" in t:
        lines.append(f"tui: first paint {t['first_paint_ms']} ms at {t['memories']} memories, {t['drafts']} drafts")
        p = t.get("panes")
        if p:
            lines.append(f"tui: every pane filled in {p['all_filled_ms']} ms; switching shows a pane in at most "
                         f"{p['switch_max_ms']} ms (settled in {p['settled_max_ms']} ms)")
    return "\n".join(lines)
