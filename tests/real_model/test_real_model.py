"""The real-model tier: kura against a real llama.cpp-family server with a real small model.

The server is llama-cpp-python's (``scripts/real_model.py``: engine and weights from the
package registry, cached under ~/.cache/kura/real-model), serving Qwen2.5-Coder-0.5B-Instruct
on this machine's CPU. kura is configured as a new user would configure it: a url and a
model name, nothing else — no ``extra``, no dialect, no ``max_tokens``. A recording proxy
sits between them, so each test checks what kura did against what the model really said.

These tests are marked ``real_model`` and left out of the default run (they take minutes);
run them with ``python -m pytest -m real_model -n 0``. When the registry cannot be reached
they are reported as NOT RUN, never passed.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kura_core.bench.models import JOURNAL_FILE, load_set
from kura_core.distill import pipeline
from kura_core.distill.drafts import list_drafts
from kura_core.prefill import build_prefill
from kura_core.recall import recall
from kura_core.registry import Registry
from kura_core.store import Store
from kura_core.warm import warm
from tests.real_model.proxy import RecordingProxy
from tests.unreachable import registry_unreachable

pytestmark = pytest.mark.real_model

ROOT = Path(__file__).resolve().parents[2]
#: read before any test moves HOME: the cache is the real user's, shared between runs
CACHE = Path.home() / ".cache" / "kura" / "real-model"
#: how far past its deadline a call may be seen to end (the client's own bookkeeping)
SLACK_MS = 3000


def _script():
    spec = importlib.util.spec_from_file_location("real_model", ROOT / "scripts" / "real_model.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["real_model"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    rm = _script()
    cache = Path(rm.os.environ.get("REAL_MODEL_CACHE") or CACHE)
    try:
        rm.setup(cache, log=lambda m: print(m, file=sys.stderr))
    except rm.RegistryUnreachable as exc:
        registry_unreachable(f"the real-model tier needs the package registry: {exc}")
    log = tmp_path_factory.mktemp("server") / "server.log"
    with rm.serving(log, cache) as url, RecordingProxy(url) as proxy:
        yield proxy


@pytest.fixture(scope="module")
def work(server, tmp_path_factory):
    """One workspace for the module: a store holding the built-in set, a short journal."""
    root = tmp_path_factory.mktemp("real")
    memories, _ = load_set()
    store = Store(root / "main", name="main")
    store.init()
    for m in memories[:24]:
        store.write(m["slug"], title=m["title"], description=m["description"], body=m["body"])
    (root / "journal").mkdir()
    (root / "journal" / "session.jsonl").write_bytes(JOURNAL_FILE.read_bytes())
    cfg = root / "kura.toml"
    cfg.write_text(
        f'[stores.main]\npath = "{root / "main"}"\n'
        f'[distill.journals]\nclaude = "{root / "journal"}"\n'
        f'[models.thinker]\nurl = "{server.url}"\nmodel = "qwen2.5-coder-0.5b"\n'
    )
    return cfg


def _reg(cfg: Path) -> Registry:
    return Registry.open(cfg)


def _calls_kept_their_word(reg: Registry) -> list:
    """Every call answered or failed with a reason, none past its deadline."""
    recs = reg.models("main").records()
    for r in recs:
        spec = reg.config.models[r.role]
        assert r.ok or r.reason.strip(), r
        assert r.elapsed_ms <= spec.timeout * 1000 + SLACK_MS, (r.task, r.elapsed_ms, spec.timeout)
    return recs


def test_doctor_probe_tells_the_truth(work, server):
    out = subprocess.run(
        [sys.executable, "-m", "kura_core", "-c", str(work), "doctor", "--probe", "--json"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode in (0, 1), out.stderr
    said = json.dumps(json.loads(out.stdout))
    assert "thinker" in said
    # a probe that says the thinker is fine must have seen a chat reply, not a model list
    probes = server.of("kura_probe")
    if '"ok"' in said and not probes:
        pytest.fail("doctor --probe reported on the thinker without sending it a chat request")
    assert probes, "doctor --probe sent no real request"
    answered = [p for p in probes if p.status == 200 and p.content]
    assert answered, [(p.status, str(p.reply)[:200]) for p in probes]


def test_recall_answers_by_meaning_or_says_why_and_labels_invented_memories(work, server):
    reg = _reg(work)
    known = set(reg.store("main").file_slugs())
    questions = [q for q in load_set()[1] if q["expect"][0] in known][:6]
    cold = warm(reg, "main")  # as kura tend does after a pour: the index read once, cached
    assert cold.warmed == cold.sent >= 1, cold.to_json()
    for q in questions:
        res = recall(reg, "main", q["question"])
        if res.how == "words" and res.degraded:
            assert res.reason and "degraded" in res.notice
        elif res.how == "meaning":
            assert set(res.picked) <= known
            if res.dropped:
                assert "do" in res.weak and "not exist" in res.weak
                assert "⚠ weak thinker" in res.to_json()["notice"]
    recs = _calls_kept_their_word(reg)
    assert sum(r.ok for r in recs if r.task == "kura_pick") >= len(questions) // 2, [
        r.reason for r in recs if not r.ok
    ]


def test_distil_judges_each_candidate_on_its_own(work, server):
    reg = _reg(work)
    rep = pipeline.run(reg, "main", max_batches=1)
    _calls_kept_their_word(reg)
    assert rep.batches == 1 or rep.errors, rep.to_json()
    asked = server.of("kura_candidates")
    assert asked, "the brain was never asked"
    proposed = 0
    for ex in asked:
        try:
            proposed += len(json.loads(ex.content).get("candidates") or [])
        except (ValueError, AttributeError):
            continue
    # every candidate the brain proposed is drafted or dropped with a reason, one by one
    accounted = len(rep.drafts) + rep.dropped + rep.seeds + rep.covered
    assert rep.candidates == accounted, rep.to_json()
    if proposed:  # one bad candidate does not sink the batch: the rest are judged
        assert rep.candidates >= 1 and not rep.shelved, (proposed, rep.to_json())
    for d in list_drafts(reg.store("main")):
        assert d.quotes, d.slug


def test_drain_pours_only_what_its_judge_approved(work, server):
    reg = _reg(work)
    before = set(reg.store("main").file_slugs())
    rep = pipeline.drain(reg, "main")
    _calls_kept_their_word(reg)
    approved = 0
    for ex in server.of("kura_judge"):
        try:
            reply = json.loads(ex.content)
        except ValueError:
            continue
        verdict = str(reply.get("verdict", "")).strip().lower()
        fix = reply.get("fix") if isinstance(reply.get("fix"), dict) else {}
        if verdict == "pour" or (verdict == "fix" and any(str(v).strip() for v in fix.values())):
            approved += 1
    assert len(rep.poured) + len(rep.fixed) <= approved, (rep.to_json(), approved)
    poured = set(reg.store("main").file_slugs()) - before
    assert len(poured) <= approved


def test_weave_puts_none_of_kuras_words_in_the_map_and_warm_refills_the_cache(work, server):
    reg = _reg(work)
    rep = subprocess.run(
        [sys.executable, "-m", "kura_core", "-c", str(work), "weave", "--json"],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert rep.returncode in (0, 1, 2), rep.stderr
    text = build_prefill(reg, "main").text
    told = []
    for ex in server.of("kura_trigger"):
        last = ex.messages[-1]["content"] if ex.messages else ""
        m = re.search(r"Your previous trigger was refused: (.*?)\. Write it again", last, re.S)
        if m:
            told.append(m.group(1))
    for reason in told:
        words = reason.split()
        for i in range(max(1, len(words) - 4)):
            window = " ".join(words[i : i + 5])
            assert len(words) < 5 or window not in text, (window, reason)
    assert "Write it again within the rules" not in text and "was refused" not in text
    w = warm(reg, "main")
    assert w.sent >= 1 and w.warmed == w.sent, w.to_json()
    res = recall(reg, "main", "where should finished projects be kept?")
    assert res.how in ("meaning", "words")
    _calls_kept_their_word(reg)
