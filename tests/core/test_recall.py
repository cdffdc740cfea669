"""Recall by meaning against a scripted thinker on a real socket, and its degraded tier."""

from __future__ import annotations

import json

import pytest

from kura_core.doctor import diagnose
from kura_core.recall import recall
from tests.conftest import make_registry
from tests.fakes.model_server import Garbage, Hang, ReasoningOnly, Refuse, Status, closed_port_url
from tests.wait import Overlap

CHAIN = {
    "archive-on-slow-disk": (
        "Archive on the slow disk",
        "the archive lives on the slow disk; the fast one stays scratch",
        "The archive goes on the slow disk.\n\nRelated: [[disk-layout]]",
    ),
    "disk-layout": (
        "Disk layout",
        "two disks: /data is slow and big, /scratch is fast",
        "The machine has two disks.\n\nSee [[fan-install]] for the thermals.",
    ),
    "fan-install": (
        "Fans installed",
        "throughput 43.7 tok/s after the fan install",
        "After the fans went in, throughput reached 43.7 tok/s.",
    ),
    "one-index": (
        "One index, always",
        "⚠️ never add a second index",
        "We are not going to add a second index.",
    ),
}


def reg_for(tmp_path, model, **kw):
    return make_registry(
        tmp_path, stores={"main": CHAIN}, model_url=model.url if model else None, **kw
    )


@pytest.mark.parametrize(
    "hops,expected",
    [
        (0, ["archive-on-slow-disk"]),
        (1, ["archive-on-slow-disk", "disk-layout"]),
        (2, ["archive-on-slow-disk", "disk-layout", "fan-install"]),
    ],
)
def test_links_walked_to_the_right_depth(tmp_path, model, hops, expected):
    model.script("kura_pick", {"slugs": ["archive-on-slow-disk"]})
    res = recall(reg_for(tmp_path, model), "main", "where does the archive live?", hops=hops)
    assert res.how == "meaning" and not res.degraded
    assert list(res.picked) == ["archive-on-slow-disk"]
    assert list(res.walked) == expected
    for slug in expected:
        assert f"({slug})" in res.context


def test_invented_slugs_are_dropped(tmp_path, model):
    model.script("kura_pick", {"slugs": ["no-such-memory", "one-index.md", "../etc/passwd"]})
    res = recall(reg_for(tmp_path, model), "main", "should we add another index?", hops=0)
    assert list(res.picked) == ["one-index"]
    assert "no-such-memory" in res.dropped and "../etc/passwd" in res.dropped
    assert res.how == "meaning"


def test_only_invented_slugs_is_nonsense_and_degrades(tmp_path, model):
    model.script("kura_pick", {"slugs": ["made-up-one", "made-up-two"]})
    reg = reg_for(tmp_path, model)
    res = recall(reg, "main", "should we add another index?")
    assert res.how == "words" and res.degraded
    assert "not in the store" in res.reason
    assert diagnose(reg, "main").models["thinker"].last_error == res.reason


def test_prompt_is_a_byte_identical_prefix_up_to_the_question(tmp_path, model):
    model.script("kura_pick", {"slugs": []})
    reg = reg_for(tmp_path, model)
    (tmp_path / "main" / "charter.md").write_text("This store keeps how the machine is laid out.\n")
    recall(reg, "main", "where is the archive?")
    recall(reg, "main", "what did the fans change?")
    a, b = [r.raw for r in model.requests_for("kura_pick")]
    cut = a.index(b"Question:")
    assert a[:cut] == b[:cut]
    assert b.index(b"Question:") == cut
    body = json.loads(a)
    system = body["messages"][0]["content"]
    assert system.index("This store keeps") < system.index("# Your task") < system.index("# Index")
    for line in reg.store("main").index().entries:
        assert line.raw in system  # index lines sent exactly as they stand
    assert body["messages"][-1]["content"].startswith("Question: where is the archive?")


def test_large_index_is_asked_in_concurrent_shards_and_merged(tmp_path, model):
    mems = {
        f"topic-{i:03d}": (
            f"Topic {i}",
            f"trigger line for topic number {i} with some words",
            f"body {i}",
        )
        for i in range(120)
    }
    reg = make_registry(
        tmp_path,
        stores={"main": mems},
        model_url=model.url,
        extra={"recall": {"shard_tokens": 400}},
    )
    together = Overlap(2)

    def pick(req):
        with together:  # held until a second shard is being asked at the same time
            pass
        system = req.messages[0]["content"]
        found = [
            l.split("](")[1].split(".md")[0] for l in system.splitlines() if l.startswith("- [")
        ]
        return {"slugs": [found[0]]}

    model.script("kura_pick", pick)
    res = recall(reg, "main", "anything?", top=50, hops=0)
    n = model.count("kura_pick")
    assert n == res.shards and n > 2
    assert together.peak > 1, "shards were asked one after another"
    assert len(res.picked) == n  # one pick from each shard, merged in shard order
    assert res.picked[0] == "topic-000"


@pytest.mark.parametrize(
    "behaviour,needle",
    [
        (Refuse(), "connection"),
        (Hang(3.0), "timed out"),
        (Status(500, "boom"), "HTTP 500"),
        (Garbage(), "unparseable"),
        (ReasoningOnly(), "reasoning-only"),
        ({"wrong": "shape"}, "does not fit"),
    ],
)
def test_thinker_failures_degrade_and_doctor_names_the_reason(tmp_path, model, behaviour, needle):
    model.script("kura_pick", behaviour)
    # the deadline is wall-clock for the whole call: short only where the test waits it out,
    # so a loaded machine cannot turn an instant bad reply into a timeout
    reg = reg_for(tmp_path, model, timeout=0.4 if isinstance(behaviour, Hang) else 5.0)
    res = recall(reg, "main", "where does the archive live?")
    assert res.how == "words" and res.degraded
    assert needle in res.reason
    assert "archive-on-slow-disk" in res.picked
    rep = diagnose(reg, "main")
    assert needle in (rep.models["thinker"].last_error or "")


def test_connection_refused_degrades(tmp_path):
    reg = make_registry(tmp_path, stores={"main": CHAIN}, model_url=closed_port_url(), timeout=0.5)
    res = recall(reg, "main", "archive disk")
    assert res.degraded and "refused" in res.reason
    assert res.picked[0] == "archive-on-slow-disk"


def test_unconfigured_thinker_is_degraded_and_labelled(tmp_path):
    reg = make_registry(tmp_path, stores={"main": CHAIN})
    res = recall(reg, "main", "second index")
    assert res.how == "words" and res.degraded and "not configured" in res.reason
    assert res.picked[0] == "one-index"
    assert res.to_json()["degraded"] is True


def test_a_recall_result_as_json_carries_every_field_in_order(tmp_path):
    import dataclasses
    import json

    from kura_core.recall import RecallResult, Skipped

    reg = make_registry(tmp_path, stores={"main": CHAIN})
    res = recall(reg, "main", "second index")
    res = dataclasses.replace(
        res,
        scores=(("one-index", 1.234567),),
        dropped=("ghost",),
        skipped=(Skipped("gone", "gone.md is gone"),),
    )
    out = res.to_json()
    names = [f.name for f in dataclasses.fields(RecallResult)]
    assert list(out) == names + ["notice"]  # a field added later cannot be left out silently
    assert out["scores"] == [["one-index", 1.2346]] and out["dropped"] == ["ghost"]
    assert out["skipped"] == [{"slug": "gone", "reason": "gone.md is gone"}]
    assert out["notice"] == res.notice and out["picked"] == list(res.picked)
    assert json.loads(json.dumps(out)) == out
    meaning = dataclasses.replace(res, how="meaning", degraded=False, reason="")
    assert "notice" not in meaning.to_json()


def test_word_tier_sees_a_new_memory_without_restart(tmp_path):
    reg = make_registry(tmp_path, stores={"main": CHAIN})
    assert "kiln" not in recall(reg, "main", "kiln temperature").picked
    reg.store("main").write(
        "kiln-firing",
        title="Kiln firing",
        description="the kiln fires at cone 6",
        body="Cone 6 for the stoneware.",
    )
    assert recall(reg, "main", "kiln temperature").picked[0] == "kiln-firing"


def test_context_keeps_the_paragraph_that_bears_on_the_question(tmp_path):
    filler = "\n\n".join(
        f"Unrelated paragraph {i} about gardening and tomatoes." for i in range(30)
    )
    body = (
        "The router lives in the hall.\n\n" + filler + "\n\nThe wifi password rotates every March."
    )
    reg = make_registry(
        tmp_path, stores={"main": {"router": ("Router", "the router and its wifi", body)}}
    )
    res = recall(reg, "main", "when does the wifi password rotate", chars=400)
    assert "rotates every March" in res.context
    assert len(res.context) < 700


def test_cli_recall_json_and_degraded_banner(tmp_path, kura_bin):
    import subprocess

    make_registry(tmp_path, stores={"main": CHAIN})
    cfg = tmp_path / "kura.toml"
    cfg.write_text(f'[stores.main]\npath = "{tmp_path / "main"}"\n')
    out = subprocess.run(
        kura_bin + ["-c", str(cfg), "recall", "second", "index", "--json"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    for key in (
        "store",
        "question",
        "how",
        "degraded",
        "picked",
        "walked",
        "context",
        "tokens_est",
        "elapsed_ms",
    ):
        assert key in data
    assert data["how"] == "words" and data["degraded"] is True
    human = subprocess.run(
        kura_bin + ["-c", str(cfg), "recall", "second index"], capture_output=True, text=True
    )
    assert "⚠ degraded" in human.stdout
    none = subprocess.run(
        kura_bin + ["-c", str(cfg), "recall", "zzzqqq"], capture_output=True, text=True
    )
    assert none.returncode == 2


def test_stores_json_shows_the_last_error_and_reachability_without_secrets(
    tmp_path, model, kura_bin
):
    import subprocess

    model.script("kura_pick", Status(500, "the GPU fell over"))
    make_registry(tmp_path, stores={"main": CHAIN})
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.main]\npath = "{tmp_path / "main"}"\n[models.thinker]\nurl = "{model.url}"\n'
        f'model = "scripted"\napi_key_env = "KURA_TEST_KEY"\ntimeout = 2\n'
    )
    env = {**__import__("os").environ, "KURA_TEST_KEY": "sk-very-secret"}
    subprocess.run(
        kura_bin + ["-c", str(cfg), "recall", "archive"], capture_output=True, text=True, env=env
    )
    out = subprocess.run(
        kura_bin + ["-c", str(cfg), "stores", "--json", "--probe"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    thinker = data["models"]["thinker"]
    assert "HTTP 500" in thinker["last_error"] and thinker["reachable"] is True
    assert thinker["api_key_env"] == "KURA_TEST_KEY"
    assert "sk-very-secret" not in out.stdout


MIXED = {
    "kettle-descaling": (
        "Kettle descaling",
        "descale the kettle every 6 weeks — citric acid, not vinegar",
        "Descale the kettle every 6 weeks.\n\n"
        + "Citric acid works; vinegar leaves a smell. " * 30
        + "\n\n⚠️ never run it dry!\n\nSee [[boiler-plan]].",
    ),
    "boiler-plan": (
        "給湯器の交換",
        "給湯器は2027年の春に交換する(見積もり¥180,000)",
        "給湯器は2027年の春に交換する。見積もりは¥180,000。\n\n"
        + "業者は三社から選ぶ。" * 40
        + "\n\n相关：[[kettle-descaling]]",
    ),
    "cold-room": (
        "冷库温度",
        "冷库保持在4°C以下，每周检查一次",
        "冷库保持在4°C以下。\n\n每周检查一次温度记录。",
    ),
    "edge-symbols": (
        "Symbols at the edges",
        "--==##",
        "**bold** _under_ `code`; a/b/c... (x) [y] {z}",
    ),
}


@pytest.mark.parametrize("chars", [200, 600, 4000])
def test_the_token_estimate_of_a_context_is_the_estimate_of_its_text(tmp_path, chars):
    """Recall counts a context by adding up its pieces (a memory's own estimate when its body
    comes back whole): the sum must be what estimating the whole text gives, whether bodies
    are whole or trimmed, in English, Japanese and Chinese."""
    from kura_core.tokens import estimate_tokens

    reg = make_registry(tmp_path, stores={"main": MIXED})
    for question in (
        "kettle descaling vinegar",
        "給湯器 見積もり",
        "冷库 温度",
        "bold code symbols",
        "boiler",
    ):
        for hops in (0, 1, 2):
            res = recall(reg, "main", question, hops=hops, chars=chars)
            assert res.context and res.tokens_est == estimate_tokens(res.context), (
                question,
                hops,
                chars,
            )


def test_the_token_estimate_adds_up_over_pieces_a_line_break_separates():
    import random

    from kura_core.tokens import estimate_tokens, from_parts, token_parts

    rng = random.Random(7)
    alphabet = "abcxyz019 .,-_/#*()[]—…'\"\t給湯器冷库温度ｶﾀカナ한국⚠️é"
    for _ in range(3000):
        a = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        b = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        pa, pb = token_parts(a), token_parts(b)
        assert token_parts(a + "\n" + b) == (pa[0] + pb[0], pa[1] + pb[1]), (a, b)
        assert estimate_tokens(a + "\n" + b) == from_parts((pa[0] + pb[0], pa[1] + pb[1]))


def test_a_read_log_batch_that_meets_a_long_lock_waits_again_and_is_never_dropped(
    tmp_path, monkeypatch
):
    """A batch written on a server's pool waits out another process's lock up to
    READ_LOG_TRIES busy timeouts; one that still cannot be written goes back to wait for the
    next batch, in order and at most READ_LOG_KEEP rows, instead of being lost."""
    import contextlib

    from kura_core import recall as rc
    from kura_core.errors import BusyError
    from kura_core.workshop import Workshop

    reg = make_registry(tmp_path, stores={"main": {}})
    refusals = {"left": rc.READ_LOG_TRIES - 1}
    real = Workshop.transaction

    @contextlib.contextmanager
    def busy_then_free(self):
        if refusals["left"] > 0:
            refusals["left"] -= 1
            raise BusyError("held elsewhere past the busy timeout")
        with real(self) as conn:
            yield conn

    monkeypatch.setattr(Workshop, "transaction", busy_then_free)
    rows = [(1.0, f"question {i}", "words", ("a",), 1.0) for i in range(3)]
    rc._write_reads(reg, "main", rows, rc.READ_LOG_TRIES)
    got = reg.workshop("main").query("SELECT question FROM read_log ORDER BY rowid")
    assert [r["question"] for r in got] == ["question 0", "question 1", "question 2"]

    refusals["left"] = 10**9  # the lock outlasts every try: the rows wait for the next batch
    cache = rc._cache(reg)
    cache.reads["main"] = [(2.0, "later", "words", (), 1.0)]
    many = [(1.0, f"held {i}", "words", (), 1.0) for i in range(rc.READ_LOG_KEEP + 10)]
    rc._write_reads(reg, "main", many, rc.READ_LOG_TRIES)
    waiting = cache.reads["main"]
    assert len(waiting) == rc.READ_LOG_KEEP  # the oldest went first
    assert waiting[-1][1] == "later" and waiting[0][1] == "held 11"
    reg.close()
