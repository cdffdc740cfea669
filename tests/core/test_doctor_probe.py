"""Doctor, `kura stores` and the app's doctor pane tell the truth about each model: one tiny
real request per role, the shape that works, its time, and the server's own refusal."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from kura_core.doctor import diagnose
from kura_core.kura import Kura
from kura_core.registry import Registry
from tests.conftest import make_store
from tests.fakes.model_server import Dialect, ScriptedModel, Status


def _config(tmp_path, url: str, extra: str = "") -> object:
    make_store(tmp_path / "main", "main")
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.main]\npath = "{tmp_path / "main"}"\n[models.thinker]\nurl = "{url}"\n'
        f'model = "scripted"\ndeadline = 5\n{extra}'
    )
    return cfg


def test_doctor_probe_learns_the_shape_and_shows_the_refusal(tmp_path):
    with ScriptedModel(dialect=Dialect.load("llama-cpp-python")) as model:
        reg = Registry.open(_config(tmp_path, model.url, "[models.scribe]\nmax_tokens = 300\n"))
        report = diagnose(reg, "main", probe=True)
        tasks = [(r.task, r.shape) for r in model.requests]
        plain = diagnose(reg, "main")  # a later doctor without probing still knows the shape
    thinker, scribe = report.models["thinker"], report.models["scribe"]
    assert thinker.reachable and thinker.shape == "json_object_schema"
    assert thinker.latency_ms is not None and thinker.latency_ms > 0
    assert "Input should be 'text' or 'json_object'" in thinker.refused[0]
    assert thinker.said.startswith("answers in json_object_schema (")
    assert "refused first: json_schema: HTTP 500" in thinker.said
    # the first role learnt it afresh; the others share the endpoint and ask once each
    assert tasks[:2] == [("kura_probe", "json_schema"), ("kura_probe", "json_object_schema")]
    assert scribe.max_tokens == 300 and scribe.deadline == 900.0
    assert thinker.to_json()["refused"] and thinker.to_json()["shape"] == "json_object_schema"
    assert plain.models["thinker"].shape == "json_object_schema"
    assert plain.models["thinker"].said == "asks in json_object_schema"


def test_a_role_whose_server_fails_is_shown_failing_with_its_words(tmp_path):
    with ScriptedModel() as model:
        model.script("kura_probe", Status(500, {"error": {"message": "model failed to load"}}))
        reg = Registry.open(_config(tmp_path, model.url))
        report = diagnose(reg, "main", probe=True)
    thinker = report.models["thinker"]
    assert thinker.reachable is False
    assert thinker.said == 'fails: HTTP 500: {"error": {"message": "model failed to load"}}'


def test_the_doctor_pane_shows_what_the_probe_brought_back(tmp_path):
    from kura_tui.widgets.doctor import render_report

    with ScriptedModel(dialect=Dialect.load("lm-studio")) as model:
        reg = Registry.open(_config(tmp_path, model.url))
        text = render_report(diagnose(reg, "main", probe=True), time.time(), probed=True).plain
    assert "answers in json_schema (" in text
    assert "replies up to each task's own tokens · deadline 5s" in text


def test_stores_probe_shows_the_same(tmp_path):
    with ScriptedModel(dialect=Dialect.load("vllm-2024")) as model:
        cfg = _config(tmp_path, model.url)
        info = Kura(Registry.open(cfg)).stores(probe=True)
        thinker = info.models["thinker"]
        assert thinker is not None and thinker.shape == "json_object_schema"
        assert thinker.said.startswith("answers in json_object_schema")
        out = subprocess.run(
            [sys.executable, "-m", "kura_core", "-c", str(cfg), "stores", "--json", "--probe"],
            capture_output=True,
            text=True,
        )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)["models"]["thinker"]
    assert data["shape"] == "json_object_schema" and data["reachable"] is True
    assert (
        data["refused"][0].startswith("json_schema: HTTP 400:")
        and "literal_error" in data["refused"][0]
    )
