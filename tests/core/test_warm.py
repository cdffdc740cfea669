"""`kura warm`: the recall's own prefix sent ahead of time, one token asked, nothing recorded
against the thinker."""

from __future__ import annotations

import json
import subprocess

from kura_core.recall import recall
from kura_core.verdict import Verdict, save
from kura_core.warm import warm
from tests.conftest import make_registry
from tests.core.test_recall import CHAIN
from tests.fakes.model_server import Status, closed_port_url


def _reg(tmp_path, url, **extra):
    return make_registry(tmp_path, stores={"main": CHAIN}, model_url=url, extra=extra)


def test_a_warm_up_sends_the_system_message_a_recall_sends(tmp_path, model):
    model.script("kura_warm", {"slugs": []})
    model.script("kura_pick", {"slugs": ["one-index"]})
    reg = _reg(tmp_path, model.url)
    rep = warm(reg, "main")
    assert rep.sent == 1 and rep.warmed == 1 and not rep.errors and not rep.skipped
    sent = model.last("kura_warm").body
    assert sent["max_tokens"] == 1 and "response_format" not in sent
    recall(reg, "main", "should we add another index?")
    asked = model.last("kura_pick").body["messages"]
    assert sent["messages"][0] == asked[0]  # the same bytes: the server's cache holds them
    assert "Question:" in sent["messages"][-1]["content"]
    status = reg.models("main").status()["thinker"]
    assert status["calls"] == 1 and status["last_error"] == ""  # the recall only


def test_a_large_index_is_warmed_shard_by_shard(tmp_path, model):
    model.script("kura_warm", {"slugs": []})
    many = {
        f"m-{i:03d}": (f"Memory {i}", f"the {i}th fact about disks " * 4, "x") for i in range(60)
    }
    reg = make_registry(
        tmp_path,
        stores={"main": many},
        model_url=model.url,
        extra={"recall": {"shard_tokens": 400}},
    )
    rep = warm(reg, "main")
    assert rep.sent > 2 and rep.warmed == rep.sent == model.count("kura_warm")
    systems = [r.body["messages"][0]["content"] for r in model.requests_for("kura_warm")]
    assert len(set(systems)) == rep.sent


def test_a_failed_warm_up_is_reported_not_raised_and_not_the_thinkers_error(tmp_path, model):
    model.script("kura_warm", Status(500, "out of memory"))
    reg = _reg(tmp_path, model.url)
    rep = warm(reg, "main")
    assert rep.warmed == 0 and "HTTP 500: out of memory" in rep.errors[0]
    assert reg.models("main").status()["thinker"]["last_error"] == ""
    gone = warm(_reg(tmp_path / "b", closed_port_url()), "main")
    assert gone.warmed == 0 and "cannot reach" in gone.errors[0]


def test_nothing_is_sent_where_no_recall_would_ask(tmp_path, model):
    assert "no thinker" in warm(_reg(tmp_path / "a", None), "main").skipped
    off = _reg(tmp_path / "b", model.url, recall={"thinker": "off"})
    assert "off" in warm(off, "main").skipped
    weak = _reg(tmp_path / "c", model.url)
    save(weak.store("main").still, Verdict(model.url, "scripted", 3, 10, 2, 9, 1.0, 0.0))
    assert "words found 9/10" in warm(weak, "main").skipped
    assert model.count() == 0


def test_the_cli_warms_and_says_so(tmp_path, model, kura_bin):
    model.script("kura_warm", {"slugs": []})
    _reg(tmp_path, model.url)
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.main]\npath = "{tmp_path / "main"}"\n'
        f'[models.thinker]\nurl = "{model.url}"\nmodel = "scripted"\n'
    )
    out = subprocess.run(
        [*kura_bin, "-c", str(cfg), "warm", "--json"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["warmed"] == 1
    model.script("kura_warm", Status(503, "loading"))
    bad = subprocess.run(
        [*kura_bin, "-c", str(cfg), "warm"], capture_output=True, text=True, timeout=60
    )
    assert bad.returncode == 1 and "warmed 0/1" in bad.stdout and "HTTP 503" in bad.stdout
