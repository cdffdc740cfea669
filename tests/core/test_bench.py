"""kura bench: the measurements run end to end (with a scripted model where one is needed)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from kura_core import bench
from kura_core.config import parse_config
from kura_core.distill import pipeline
from kura_core.registry import Registry
from tests.core.test_distill import config, echo_scribe, honest_brain, registry, write_journal

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "seed-retention"


def test_perf_measures_both_tiers_and_the_weave(tmp_path):
    rep = bench.perf((60,), runs=2, workdir=tmp_path, http=False, tui=False)
    (r,) = rep["recall"]
    assert r["memories"] == 60 and r["shards"] >= 1 and r["overhead_ms_median"] >= 0
    assert r["total_ms_median"] >= r["overhead_ms_median"]
    (d,) = rep["degraded"]
    assert d["median_ms"] > 0 and d["index_build_ms"] > 0
    (w,) = rep["weave"]
    assert w["model_calls"] == 0 and w["reweave_ms_median"] > 0
    assert rep["gate"]["candidates"] == 100
    table = bench.perf_table(rep)
    assert "recall overhead" in table and "gate:" in table


def test_compress_counts_only_attributed_memories(tmp_path, model):
    write_journal(tmp_path / "journals" / "a.jsonl", [("user", "the archive goes on the slow disk from now on"),
                                                     ("tool", "x " * 400)])
    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", echo_scribe)
    model.script("kura_judge", {"verdict": "pour", "reason": "ok"})
    reg = registry(config(tmp_path, model.url))
    pipeline.run(reg, "main")
    pipeline.drain(reg, "main")
    reg.store("main").write("hand-made", title="Hand made", description="written before metrics existed",
                            body="An older memory with no manifest.")
    rep = bench.compress(reg, "main")
    assert rep["memories_counted"] == 1 and rep["unattributed"] == 1
    assert rep["raw_tokens_drunk"] > 400
    assert 0 < rep["store_ratio"] < 1


def test_retention_plumbing_with_a_scripted_model(tmp_path, model):
    def judge(req):
        verdict = "toss" if "weather" in req.messages[-1]["content"] else "pour"
        return {"verdict": verdict, "reason": "small talk" if verdict == "toss" else "true to the evidence"}

    def pick(req):
        q = req.messages[-1]["content"].split("\n")[0].lower()
        words = set(re.findall(r"[a-z0-9.]+", q)) - {"question", "what", "the", "was", "is", "did", "to"}
        lines = [l for l in req.messages[0]["content"].splitlines() if l.startswith("- [")]
        hits = [l.split("](")[1].split(".md")[0] for l in lines if words & set(re.findall(r"[a-z0-9.]+", l.lower()))]
        return {"slugs": hits[:3]}

    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", echo_scribe)
    model.script("kura_judge", judge)
    model.script("kura_pick", pick)
    cfg = parse_config({"stores": {"x": {"path": str(tmp_path / "x")}},
                        "models": {"thinker": {"url": model.url, "model": "scripted", "timeout": 5}}}, source=None)
    rep = bench.retention(Registry(cfg), FIXTURE / "questions.json", FIXTURE / "corpus.jsonl",
                          workdir=tmp_path / "work")
    assert rep["of"] == 10 and set(rep["by_category"]) >= {"decision", "number", "distractor"}
    rows = {r["id"]: r for r in rep["questions"]}
    assert rows["distractor-weather"]["hit"] is True  # tossed, so not stored
    assert rows["decision-disk"]["hit"] is True and rows["decision-disk"]["how"] == "meaning"
    assert rep["tossed"] >= 1 and rep["memories"] > 3


def test_retention_without_a_model_says_so(tmp_path, kura_bin):
    cfg = tmp_path / "kura.toml"
    cfg.write_text(f'[stores.x]\npath = "{tmp_path / "x"}"\n')
    out = subprocess.run(kura_bin + ["-c", str(cfg), "bench", "retention", "--questions",
                                     str(FIXTURE / "questions.json")], capture_output=True, text=True)
    assert out.returncode == 1 and "needs a model" in out.stderr
