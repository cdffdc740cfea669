"""A weak thinker is labelled, and a store told (or shown by the bench) answers by words."""

from __future__ import annotations

import json
import subprocess
import time

import pytest
from hypothesis import given, settings, strategies as st

from kura_core.config import parse_config
from kura_core.errors import ConfigError
from kura_core.faces.mcp import render_recall
from kura_core.recall import recall
from kura_core.verdict import Verdict, for_thinker, load, save
from tests.conftest import make_registry
from tests.core.test_recall import CHAIN


def _reg(tmp_path, model, mode: str | None = None):
    extra = {"recall": {"thinker": mode}} if mode else {}
    return make_registry(tmp_path, stores={"main": CHAIN}, model_url=model.url, extra=extra)


def _verdict(url: str, model: str = "scripted", thinker: int = 3, words: int = 9) -> Verdict:
    return Verdict(url, model, 3, 10, thinker, words, 0.8, time.time())


def test_a_thinker_that_names_missing_memories_is_labelled_in_every_face(tmp_path, model):
    model.script("kura_pick", {"slugs": ["one-index", "no-such-memory", "2026-12-04"]})
    res = recall(_reg(tmp_path, model), "main", "should we add another index?", hops=0)
    assert res.how == "meaning" and not res.degraded and res.picked == ("one-index",)
    assert "named 2 memories that do not exist" in res.weak
    assert "no-such-memory" in res.weak and "2026-12-04" in res.weak
    out = res.to_json()
    assert out["weak"] == res.weak and "⚠ weak thinker" in out["notice"]
    assert "⚠ weak thinker" in render_recall(out)  # MCP
    assert "degraded" not in out["notice"]


def test_a_thinker_that_names_only_real_memories_is_not_labelled(tmp_path, model):
    model.script("kura_pick", {"slugs": ["one-index"]})
    res = recall(_reg(tmp_path, model), "main", "should we add another index?")
    assert res.weak == "" and "notice" not in res.to_json()
    assert "weak thinker" not in render_recall(res.to_json())


def test_auto_answers_by_words_when_the_bench_found_the_thinker_below_them(tmp_path, model):
    model.script("kura_pick", {"slugs": ["archive-on-slow-disk"]})
    reg = _reg(tmp_path, model)
    save(reg.store("main").still, _verdict(model.url))
    res = recall(reg, "main", "should we add another index?", hops=0)
    assert model.count("kura_pick") == 0  # not asked at all
    assert res.how == "words" and not res.degraded
    assert res.picked[0] == "one-index"
    assert "found 3/10 (0.30) at hit@3" in res.weak and "words found 9/10" in res.weak
    assert res.notice.startswith("⚠ weak thinker")


def test_on_keeps_asking_a_weak_thinker_and_labels_each_answer(tmp_path, model):
    model.script("kura_pick", {"slugs": ["archive-on-slow-disk"]})
    reg = _reg(tmp_path, model, "on")
    save(reg.store("main").still, _verdict(model.url))
    res = recall(reg, "main", "where does the archive live?", hops=0)
    assert model.count("kura_pick") == 1
    assert res.how == "meaning" and res.picked == ("archive-on-slow-disk",)
    assert "found 3/10" in res.weak


def test_off_never_asks_and_says_so_without_calling_it_degraded(tmp_path, model):
    model.script("kura_pick", {"slugs": ["archive-on-slow-disk"]})
    res = recall(_reg(tmp_path, model, "off"), "main", "should we add another index?")
    assert model.count("kura_pick") == 0
    assert res.how == "words" and not res.degraded and "off" in res.reason
    assert res.weak == ""


@pytest.mark.parametrize(
    "found",
    [
        {"thinker": 9, "words": 9},  # as good as words: asked
        {"thinker": 3, "words": 9, "model": "another-model"},  # about another model: ignored
    ],
)
def test_a_verdict_that_does_not_condemn_this_thinker_leaves_it_asked(tmp_path, model, found):
    model.script("kura_pick", {"slugs": ["archive-on-slow-disk"]})
    reg = _reg(tmp_path, model)
    v = _verdict(model.url, found.get("model", "scripted"), found["thinker"], found["words"])
    save(reg.store("main").still, v)
    res = recall(reg, "main", "where does the archive live?", hops=0)
    assert model.count("kura_pick") == 1 and res.how == "meaning" and res.weak == ""


def test_a_damaged_verdict_file_is_ignored(tmp_path):
    still = tmp_path / "_still"
    still.mkdir()
    (still / "thinker-verdict.json").write_text('{"url": "x", "thinker_hits": "many"')
    assert load(still) is None
    other = tmp_path / "other"
    other.mkdir()
    (other / "thinker-verdict.json").write_text(
        json.dumps({**_verdict("http://x/v1").to_json(), "thinker_hits": 99})
    )
    assert for_thinker(other, "http://x/v1", "scripted") is None  # 99 of 10 is no verdict
    good = tmp_path / "good"
    save(good, _verdict("http://x/v1/"))
    assert for_thinker(good, "http://x/v1", "scripted") is not None  # a trailing / is one url


@settings(max_examples=60, deadline=None)
@given(
    q=st.integers(0, 50),
    t=st.integers(-2, 60),
    w=st.integers(-2, 60),
    extra=st.dictionaries(st.text(max_size=5), st.integers()),
)
def test_a_verdict_is_kept_exactly_or_refused(q, t, w, extra):
    raw = {**extra, **_verdict("http://h/v1", thinker=0, words=0).to_json()}
    raw.update(questions=q, thinker_hits=t, words_hits=w)
    v = Verdict.from_json(raw)
    if 0 <= t <= q and 0 <= w <= q:
        assert v is not None and Verdict.from_json(v.to_json()) == v
        assert v.below_words == (t < w)
    else:
        assert v is None


def test_the_thinker_mode_is_checked_in_the_config():
    raw = {"stores": {"a": {"path": "/tmp/a", "recall": {"thinker": "sometimes"}}}}
    with pytest.raises(ConfigError, match=r'stores\.a\.recall\.thinker must be one of "auto"'):
        parse_config(raw, source=None)
    ok = parse_config({"recall": {"thinker": "off"}, "stores": {"a": {"path": "/x"}}}, source=None)
    assert ok.stores["a"].recall.thinker == "off"


def test_the_cli_prints_the_weak_label(tmp_path, model, kura_bin):
    model.script("kura_pick", {"slugs": ["one-index", "invented-slug"]})
    _reg(tmp_path, model)
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.main]\npath = "{tmp_path / "main"}"\n'
        f'[models.thinker]\nurl = "{model.url}"\nmodel = "scripted"\n'
    )
    out = subprocess.run(
        [*kura_bin, "-c", str(cfg), "recall", "another", "index"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "⚠ weak thinker: the thinker named 1 memory that does not exist (invented-slug)" in (
        out.stdout
    )
