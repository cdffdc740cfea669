"""`kura bench models` against scripted models: the figures, the verdicts, and what a store
does with a thinker the bench found below the word tier."""

from __future__ import annotations

import json
import subprocess

from kura_core.bench.models import load_set, models_bench, models_table
from kura_core.recall import recall
from kura_core.registry import Registry
from kura_core.verdict import load
from tests.conftest import make_store
from tests.core.test_distill import echo_scribe, honest_brain

MEMORIES, QUESTIONS = load_set()
ANSWER = {q["question"]: q["expect"][0] for q in QUESTIONS}


def _question_of(req) -> str:
    return req.last_content.split("Question: ", 1)[1].split("\n\nName at most", 1)[0]


def knowing_thinker(req):
    """Names the memory that answers each question, and one it made up."""
    return {"slugs": [ANSWER[_question_of(req)], "made-up-slug"]}


def inventing_thinker(req):
    """Names a date and words from the question, as a 0.5B thinker does, and one real slug
    that answers nothing."""
    return {"slugs": ["2026-12-04", _question_of(req).split()[0], MEMORIES[0]["slug"]]}


def _config(tmp_path, url: str) -> Registry:
    make_store(tmp_path / "main", "main", {"x": ("X", "a memory about disks", "disks")})
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.main]\npath = "{tmp_path / "main"}"\n'
        "[fastpath]\nenabled = false\n"  # the thinker's plan is under test, not tier zero
        f'[models.thinker]\nurl = "{url}"\nmodel = "scripted"\ntimeout = 5\n'
    )
    return Registry.open(cfg)


def test_the_built_in_set_asks_every_language_even_when_cut_short():
    _, qs = load_set(6)
    assert [q["lang"] for q in qs] == ["en", "ja", "zh"] * 2
    assert len(QUESTIONS) == 66 and {m["slug"] for m in MEMORIES} >= set(ANSWER.values())


def test_a_thinker_that_knows_helps_and_its_inventions_are_counted(tmp_path, model):
    model.script("kura_pick", knowing_thinker)
    model.script("kura_warm", {"slugs": []})
    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", echo_scribe)
    reg = _config(tmp_path, model.url)
    rep = models_bench(reg, limit=9)
    t = rep["roles"]["thinker"]
    assert t["questions"] == 9 and t["hits"] == 9 and t["hit_rate"] == 1.0
    assert t["words_hits"] <= 9 and t["calls"] == 9 and t["valid_json"] == 1.0
    assert t["invented"] == 9 and t["cold_ms"] > 0 and t["warm_ms"] > 0 and not t["cold_error"]
    (cold,) = model.requests_for("kura_warm")  # the whole index, read before the questions
    assert cold.messages[0] == model.requests_for("kura_pick")[0].messages[0]
    assert t["helps"] is (t["words_hits"] < 9)
    b = rep["roles"]["brain"]
    assert b["calls"] >= 1 and b["answered"] == 1.0
    assert b["candidates"] >= 3 and b["drafts"] >= 1 and b["dropped"] >= 1  # the fabrication
    assert b["helps"] and "passed the gate" in b["verdict"]
    text = "\n".join(models_table(rep))
    assert "thinker:" in text and "brain: helps" in text and "latency cold" in text


def test_a_thinker_below_words_is_called_so_and_its_store_then_answers_by_words(tmp_path, model):
    model.script("kura_pick", inventing_thinker)
    model.script("kura_candidates", {"candidates": []})
    reg = _config(tmp_path, model.url)
    rep = models_bench(reg, limit=6)
    t = rep["roles"]["thinker"]
    assert t["hits"] < t["words_hits"] and not t["helps"]
    assert "fewer than the word tier" in t["verdict"] and "answer by words" in t["verdict"]
    b = rep["roles"]["brain"]
    assert not b["helps"] and "none passed the gate" in b["verdict"]
    assert rep["saved_to"] == [str(tmp_path / "main" / "_still" / "thinker-verdict.json")]
    v = load(tmp_path / "main" / "_still")
    assert v is not None and v.below_words and v.questions == 6 and v.model == "scripted"
    before = model.count("kura_pick")
    res = recall(reg, "main", "which disk?")
    assert model.count("kura_pick") == before  # auto: the thinker is no longer asked
    assert res.how == "words" and "words found" in res.weak


def test_a_thinker_that_only_fails_does_not_help_and_says_why(tmp_path, model):
    model.script("kura_pick", "this is not JSON at all")
    model.script("kura_candidates", "neither is this")
    reg = _config(tmp_path, model.url)
    rep = models_bench(reg, limit=3, save_verdict=False)
    t, b = rep["roles"]["thinker"], rep["roles"]["brain"]
    assert t["valid_json"] == 0.0 and t["hits"] == 0 and t["fell_back"] == 3
    assert t["cold_ms"] is None and "HTTP 500" in t["cold_error"]  # no warm-up was answered
    assert "valid JSON" in t["verdict"] and not t["helps"]
    assert b["answered"] == 0.0 and not b["helps"] and "unparseable" in b["verdict"]
    assert "saved_to" not in rep and load(tmp_path / "main" / "_still") is None


def test_the_cli_runs_it_and_refuses_bad_options(tmp_path, model, kura_bin):
    model.script("kura_pick", knowing_thinker)
    model.script("kura_candidates", {"candidates": []})
    _config(tmp_path, model.url)
    cfg = str(tmp_path / "kura.toml")
    out = subprocess.run(
        [*kura_bin, "-c", cfg, "bench", "models", "--limit", "3", "--json", "--no-save"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["roles"]["thinker"]["hits"] == 3
    bad = subprocess.run(
        [*kura_bin, "-c", cfg, "bench", "models", "--limit", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode != 0 and "--limit needs at least 1" in bad.stderr
