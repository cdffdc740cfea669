"""The recall ladder on the HTTP face and the command line: the fastpath's fields in every
answer, a direct question that reaches no model, and glance (exact slugs only)."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.faces.test_http import _start, _stop, err

LINKED = "\n".join(f"[[hub-{i}]]" for i in range(8))


@pytest.fixture
def ladder(tmp_path, model):
    """A server whose stores use the fastpath, beside a thinker that records every request."""
    model.script("kura_pick", {"slugs": ["disk-layout"]})
    lv = _start(
        tmp_path,
        extra={
            "fastpath": {"enabled": True},
            "models": {"thinker": {"url": model.url, "model": "scripted", "timeout": 5}},
        },
    )
    k = lv.server.kura
    k.remember(
        "archive-rule",
        "the archive stays on the slow disk, never on scratch",
        "The archive stays on the slow disk.\n\n" + LINKED,
        store="hearth",
        title="The archive rule",
        keep="the archive stays on the slow disk",
    )
    for i in range(8):
        k.remember(f"hub-{i}", f"hub number {i} of the rack", f"Hub {i}.", store="hearth")
    yield lv, model
    _stop(lv)


def test_a_direct_question_over_http_reaches_no_model(ladder):
    lv, model = ladder
    d = lv.client.post("/recall", json={"question": "what is the disk layout?"}).json()
    assert d["how"] == "fastpath" and d["picked"] == ["disk-layout"] and not d["degraded"]
    assert d["fastpath_verdict"] == "ok" and d["fastpath_ms"] > 0
    assert model.requests == []
    d = lv.client.post("/recall", json={"question": "how big are things kept?"}).json()
    assert d["how"] == "meaning" and d["fastpath_verdict"] == "no-confident-hit"
    assert len(model.requests_for("kura_pick")) == 1
    d = lv.client.post("/s/forge/recall", json={"question": "kiln temperature"}).json()
    assert d["how"] == "fastpath" and d["picked"] == ["kiln-temperature"]


def test_glance_over_http_is_exact_and_short(ladder):
    lv, _ = ladder
    g = lv.client.get("/glance/archive-rule", params={"store": "hearth"}).json()
    assert g["ok"] is True and g["slug"] == "archive-rule" and g["title"] == "The archive rule"
    assert g["trigger"] == "the archive stays on the slow disk, never on scratch"
    assert g["keep"] == "the archive stays on the slow disk" and g["keep_state"] == "verified"
    assert g["links"] == [f"hub-{i}" for i in range(5)] and g["more_links"] == 3
    assert "(+3 more links)" in g["text"] and g["text"].startswith("- [The archive rule]")
    assert 0 < g["tokens_est"] <= 150
    plain = lv.client.get("/glance/disk-layout").json()
    assert plain["keep"] == "" and plain["keep_state"] == "none"
    assert plain["links"] == ["archive-on-slow-disk"] and plain["more_links"] == 0
    # exact slugs only: a near miss is unknown, never the nearest memory
    assert "no memory 'archive-rul'" in err(lv.client.get("/glance/archive-rul"), 404)
    err(lv.client.get("/glance/..%2Fkura.toml"), (400, 404))
    assert lv.client.get("/s/forge/glance/kiln-temperature").json()["slug"] == "kiln-temperature"
    err(lv.client.get("/glance/kiln-temperature", params={"store": "hearth"}), 404)


def test_an_unvouched_keep_is_held_back(ladder):
    lv, _ = ladder
    path = lv.reg.store("hearth").memory_path("archive-rule")
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace("keep: the archive stays on the slow disk", "keep: the disk holds 99 TB"),
        encoding="utf-8",
    )
    g = lv.client.get("/glance/archive-rule").json()
    assert g["keep_state"] == "unverified" and g["keep"] == "" and "99" not in g["text"]


def test_cli_glance_and_the_tier_recall_names(tmp_path, kura_bin):
    from tests.conftest import make_store

    make_store(
        tmp_path / "main",
        "main",
        {
            "vllm-port": ("vLLM listens on port 8085", "vLLM answers on :8085", "--port 8085"),
            "disk-layout": ("Disk layout", "two disks, one slow", "Two disks."),
        },
    )
    cfg = tmp_path / "kura.toml"
    cfg.write_text(f'[stores.main]\npath = "{tmp_path / "main"}"\n', encoding="utf-8")

    def kura(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            kura_bin + ["-c", str(cfg), *args], capture_output=True, text=True, timeout=60
        )

    out = kura("recall", "what port does vLLM listen on?")
    assert out.returncode == 0, out.stderr
    assert "how: fastpath · picked: vllm-port" in out.stdout
    assert (
        "tier: fastpath answered (fastpath ok in" in out.stdout
        and "no model was asked" in out.stdout
    )
    data = json.loads(kura("recall", "vLLM port?", "--json").stdout)
    assert data["how"] == "fastpath" and data["fastpath_verdict"] == "ok"
    out = kura("recall", "zzzqqq")
    assert (
        out.returncode == 2
        and "tier: the word tier answered (fastpath no-confident-hit" in out.stdout
    )
    out = kura("glance", "vllm-port")
    assert out.returncode == 0 and out.stdout.startswith(
        "- [vLLM listens on port 8085](vllm-port.md)"
    )
    assert "keep: none" in out.stdout
    g = json.loads(kura("glance", "vllm-port", "--json").stdout)
    assert g["ok"] and g["slug"] == "vllm-port" and g["tokens_est"] > 0
    out = kura("glance", "vllm")
    assert out.returncode == 1 and "no memory 'vllm'" in out.stderr
