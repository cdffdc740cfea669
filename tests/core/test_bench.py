"""kura bench: the measurements run end to end (with a scripted model where one is needed).

Speed is never asserted here; what is checked is that every figure is measured, carried
in the report, and measures what it claims to.
"""

from __future__ import annotations

import ast
import datetime as dt
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kura_core import bench
from kura_core.bench.prefix import TARGET_SHARE, common_prefix, prefix_report, render
from kura_core.bench.rss import serve_rss
from kura_core.bench.stores import generate_store
from kura_core.bench.thinker import InstantThinker
from kura_core.bench.weave_perf import bench_reweave
from kura_core.config import parse_config
from kura_core.distill import pipeline
from kura_core.faces.cli import main
from kura_core.recall import recall
from kura_core.registry import Registry
from tests.core.test_distill import config, echo_scribe, honest_brain, registry, write_journal

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "seed-retention"
CORE = Path(__file__).resolve().parents[2] / "kura_core"


# --------------------------------------------------------------------------- perf


def test_perf_measures_every_figure(tmp_path):
    rep = bench.perf((60,), runs=2, workdir=tmp_path, http=False, rss=False, journal_mb=0.3)
    (r,) = rep["recall"]
    assert r["memories"] == 60 and r["shards"] >= 1 and r["overhead_ms_median"] >= 0
    assert (
        r["total_ms_median"] >= r["overhead_ms_median"] and r["overhead_after_write_ms_median"] >= 0
    )
    (f,) = rep["fastpath"]
    # direct questions (titles in English, Japanese and Chinese frames) all answered, none
    # wrongly, each as the oracle thinker would, and none of them reached the thinker
    assert f["memories"] >= 60 and f["direct_questions"] == 60 and f["wrong"] == 0
    assert f["answered"] == 60 and f["agreement_with_thinker"] == 1.0
    assert f["thinker_requests_for_direct_questions"] == 0
    assert f["indirect_answered"] == 0 and f["judge_ms_median"] > 0 and f["build_ms"] > 0
    (d,) = rep["degraded"]
    assert d["median_ms"] > 0 and d["index_build_ms"] > 0
    (u,) = rep["index_after_write"]
    assert u["writes"] == 3 and set(u["by_kind_ms_median"]) == {"remember", "rewrite", "hand_edit"}
    assert u["after_write_ms_median"] > 0 and u["full_rebuild_ms"] == d["index_build_ms"]
    assert u["periodic_check_ms"] > 0 and u["warm_ms_median"] == d["median_ms"]
    (w,) = rep["writes"]
    assert w["memories"] == 60 and w["history_off_ms_median"] > 0
    assert w["history_on_ms_median"] > 0 and w["ratio"] > 0
    assert (tmp_path / "s60-history" / ".git").is_dir()
    assert "with history (a git commit)" in bench.perf_table(rep)
    (p,) = rep["prefix"]
    assert p["questions"] == 2 and p["shards"] == r["shards"] and p["meets_target"] is True
    assert TARGET_SHARE <= p["shared_share_min"] <= p["shared_share_median"] < 1
    assert 0 < p["warm_prefill_tokens_per_recall"] < 0.02 * p["cold_prefill_tokens"]
    assert (
        abs(p["prompt_tokens_per_recall"] - p["cold_prefill_tokens"])
        < 0.02 * p["cold_prefill_tokens"]
    )
    (w,) = rep["weave"]
    assert w["model_calls"] == 0 and w["reweave_ms_median"] > 0
    (c,) = rep["constellation"]
    assert c["shown"] and c["counted"] == c["indexed"] >= 60 and c["sectors"] >= 1
    assert 0 < c["tokens"] < c["map_tokens"]
    assert rep["gate"]["candidates"] == 100 and rep["gate"]["candidates_per_s"] > 0
    j = rep["gate"]["journal"]
    assert 0.25 <= j["journal_mb"] <= 0.4 and j["segments"] > j["records"] / 2
    assert j["candidates"] == 10 and j["kept"] >= 1  # the candidates quote the journal
    assert j["gate_mb_per_s"] > 0 and j["candidates_per_s"] > 0
    assert j["gate_and_read_to_read"] > 1
    assert rep["http"] is None and rep["rss"] is None
    table = bench.perf_table(rep)
    for needle in (
        "recall overhead",
        "next recall after a write",
        "warm prefill",
        "gate:",
        "MB/s",
        "constellation",
    ):
        assert needle in table


def test_a_face_plugs_its_figure_in_as_a_probe(tmp_path):
    seen = []

    def run(workdir: Path) -> dict:
        seen.append(workdir)
        return {"paint_ms": 12.5}

    probe = bench.Probe(
        name="face",
        label="a face's own figure",
        run=run,
        line=lambda got: f"face: {got['paint_ms']}",
    )
    said = []
    rep = bench.perf(
        (30,),
        runs=1,
        workdir=tmp_path,
        http=False,
        rss=False,
        probes=[probe],
        progress=said.append,
        journal_mb=0,
    )
    assert rep["face"] == {"paint_ms": 12.5}
    assert seen == [tmp_path / "face"] and "a face's own figure" in said
    assert "face: 12.5" in bench.perf_table(rep, [probe])
    rep["tui"] = {"skipped": "the TUI is not installed"}
    assert "tui: skipped (the TUI is not installed)" in bench.perf_table(rep, [probe])


@pytest.mark.slow  # starts the app under a real terminal size and waits for its first paint
def test_the_tui_probe_measures_first_paint(tmp_path):
    from kura_tui.bench import probe

    p = probe(40, 3)
    assert p.name == "tui"
    got = p.run(tmp_path / "tui")
    assert got["memories"] == 40 and got["drafts"] == 3 and got["first_paint_ms"] > 0
    assert p.line(got).startswith("tui: first paint")


def test_bench_reweave_small(tmp_path):
    out = bench_reweave(80, tmp_path, runs=3)
    assert out["memories"] == 80 and out["written"]
    assert out["model_calls"] == 0
    assert out["ledger_hits"] > 0
    assert out["reweave_ms_median"] > 0 and out["cold_reweave_ms_median"] > 0


def test_serve_rss_warms_both_tiers(tmp_path):
    root = generate_store(tmp_path / "s", 50)
    with InstantThinker() as thinker:
        got = serve_rss(root, tmp_path / "serve", thinker)
        assert thinker.calls >= 2
    assert got["recalled_by"] == ["meaning", "words"]
    assert 0 < got["rss_mb_listening"] <= got["rss_mb_warm"] <= got["rss_mb_peak"]


def test_cli_perf_json_carries_old_and_new_figures(tmp_path, capsys):
    rc = main(
        [
            "bench",
            "perf",
            "--sizes",
            "30",
            "--runs",
            "1",
            "--no-http",
            "--no-rss",
            "--no-tui",
            "--journal-mb",
            "0.2",
            "--json",
            "--out",
            str(tmp_path / "perf.json"),
        ]
    )
    assert rc == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep == json.loads((tmp_path / "perf.json").read_text())
    for key in (
        "recall",
        "degraded",
        "weave",
        "gate",
        "http",
        "tui",
        "index_after_write",
        "prefix",
        "rss",
    ):
        assert key in rep
    assert rep["tui"] is None and rep["gate"]["candidates_per_s"] > 0
    assert rep["gate"]["journal"]["gate_mb_per_s"] > 0


def test_cli_perf_refuses_bad_sizes(capsys):
    assert main(["bench", "perf", "--sizes", "five"]) == 1
    assert "whole numbers" in capsys.readouterr().err


# --------------------------------------------------------------------------- the prompt prefix


def _store_for_prefix(tmp_path, model, days):
    root = generate_store(tmp_path / "p", 200)
    (root / "charter.md").write_text(
        "This store keeps the bench's generated notes.\n", encoding="utf-8"
    )
    clock = itertools.count(1_800_000_000, 3600)
    today = iter([dt.date(2026, 11, 1) + dt.timedelta(days=i) for i in range(days)])
    cfg = parse_config(
        {
            "stores": {"bench": {"path": str(root), "recall": {"shard_tokens": 3000}}},
            "models": {"thinker": {"url": model.url, "model": "scripted", "timeout": 5}},
        },
        source=None,
    )
    return Registry(cfg, env={}, clock=lambda: next(clock), today=lambda: next(today))


def test_the_recall_prompt_is_stable_up_to_the_question(tmp_path, model):
    """Everything before the question is byte-identical across questions, hours and days;
    a volatile byte early in the prompt (a date, a counter) fails here."""
    model.script("kura_pick", {"slugs": []})
    questions = list(bench.QUESTIONS[:5])
    reg = _store_for_prefix(tmp_path, model, days=100)
    per_recall = []
    for q in questions:
        before = len(model.requests_for("kura_pick"))
        res = recall(reg, "bench", q)
        assert res.shards > 3 and not res.degraded
        per_recall.append([render(r.messages) for r in model.requests_for("kura_pick")[before:]])
    for t in range(1, len(per_recall)):
        prev = {p[: p.index(questions[t - 1])] for p in per_recall[t - 1]}
        for p in per_recall[t]:
            at = p.index(questions[t])
            assert p[:at] in prev  # the same stable part, byte for byte, up to the question
            assert p.rfind("<|user|>") < at  # and the question is in the last message
            assert all(q not in p[:at] for q in questions)
    rep = prefix_report(per_recall)
    assert rep["meets_target"] and rep["shared_share_min"] >= TARGET_SHARE
    assert len(rep["per_shard_min"]) == rep["shards"] > 3


def test_prefix_report_catches_a_volatile_byte_early():
    index = "\n".join(
        f"- [Note {i}](note-{i}.md) — the kettle {i} moved to the harbor" for i in range(300)
    )
    stable = [
        [
            render(
                [
                    {"role": "system", "content": f"charter\n\n{index}"},
                    {"role": "user", "content": f"Question: {q}"},
                ]
            )
        ]
        for q in ("a kettle", "the harbor", "x")
    ]
    assert prefix_report(stable)["meets_target"] is True
    ticking = [
        [
            render(
                [
                    {"role": "system", "content": f"Now: 2026-11-0{i} 10:00\n{index}"},
                    {"role": "user", "content": f"Question: {q}"},
                ]
            )
        ]
        for i, q in enumerate(("a", "b", "c"))
    ]
    rep = prefix_report(ticking)
    assert rep["meets_target"] is False and rep["shared_share_min"] < 0.01
    assert rep["warm_prefill_tokens_per_recall"] > 0.99 * rep["prompt_tokens_per_recall"]


@pytest.mark.parametrize(
    "a,b,n",
    [
        ("", "", 0),
        ("abc", "abd", 2),
        ("x" * 10000, "x" * 10000, 10000),
        ("x" * 9000 + "a", "x" * 9000 + "b", 9000),
        ("abc", "ab", 2),
    ],
)
def test_common_prefix(a, b, n):
    assert common_prefix(a, b) == n == common_prefix(b, a)


# --------------------------------------------------------------------------- compress


def _distilled(tmp_path, model):
    write_journal(
        tmp_path / "journals" / "a.jsonl",
        [("user", "the archive goes on the slow disk from now on"), ("tool", "x " * 400)],
    )
    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", echo_scribe)
    model.script("kura_judge", {"verdict": "pour", "reason": "ok"})
    cfg = config(tmp_path, model.url)
    reg = registry(cfg)
    pipeline.run(reg, "main")
    pipeline.drain(reg, "main")
    reg.store("main").write(
        "hand-made",
        title="Hand made",
        description="written before metrics existed",
        body="An older memory with no manifest.",
    )
    return cfg, reg


def _word_counter(tmp_path) -> Path:
    script = tmp_path / "count-words"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nprint(len(sys.stdin.read().split()))\n", encoding="utf-8"
    )
    script.chmod(0o755)
    return script


def test_compress_counts_only_attributed_memories(tmp_path, model):
    _, reg = _distilled(tmp_path, model)
    rep = bench.compress(reg, "main")
    assert rep["memories_counted"] == 1 and rep["unattributed"] == 1
    assert rep["raw_tokens_drunk"] > 400
    assert 0 < rep["store_ratio"] < 1
    assert rep["ratio_label"] == "estimated"


def test_compress_with_a_tokenizer_command_counts_exactly_and_says_mixed(tmp_path, model, capsys):
    cfg, reg = _distilled(tmp_path, model)
    estimated = bench.compress(reg, "main")
    rep = bench.compress(reg, "main", tokenizer_command=str(_word_counter(tmp_path)))
    attributed = [m for m in reg.store("main").scan().memories if m.slug != "hand-made"]
    words = sum(len(m.description.split()) + len(m.body.split()) for m in attributed)
    line_words = sum(
        len(reg.store("main").index().by_slug()[m.slug].raw.split()) for m in attributed
    )
    assert rep["memory_tokens"] == words and rep["index_tokens"] == line_words
    assert (
        rep["ratio_label"] == "mixed" and rep["raw_tokens_drunk"] == estimated["raw_tokens_drunk"]
    )
    assert rep["estimated"] == {
        "memory_tokens": estimated["memory_tokens"],
        "index_tokens": estimated["index_tokens"],
    }
    assert rep["store_ratio"] == round((words + line_words) / rep["raw_tokens_drunk"], 4)

    assert (
        main(
            [
                "-c",
                str(cfg),
                "bench",
                "compress",
                "--tokenizer-command",
                str(_word_counter(tmp_path)),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert f"store_ratio {rep['store_ratio']:.4f} (mixed)" in out and "count-words" in out
    assert main(["-c", str(cfg), "bench", "compress"]) == 0
    assert "(estimated)" in capsys.readouterr().out


@pytest.mark.parametrize(
    "body,needle",
    [
        ("print('about forty')", "one whole number"),
        (
            "import sys; sys.stderr.write('no model file'); sys.exit(3)",
            "exited with 3: no model file",
        ),
    ],
)
def test_compress_refuses_a_tokenizer_that_breaks_its_contract(
    tmp_path, model, capsys, body, needle
):
    cfg, _ = _distilled(tmp_path, model)
    script = tmp_path / "tok"
    script.write_text(f"#!{sys.executable}\n{body}\n", encoding="utf-8")
    script.chmod(0o755)
    assert main(["-c", str(cfg), "bench", "compress", "--tokenizer-command", str(script)]) == 1
    assert needle in capsys.readouterr().err


def test_compress_names_a_missing_tokenizer_and_bad_quoting(tmp_path, model, capsys):
    cfg, _ = _distilled(tmp_path, model)
    assert (
        main(
            [
                "-c",
                str(cfg),
                "bench",
                "compress",
                "--tokenizer-command",
                "no-such-tokenizer-here --fast",
            ]
        )
        == 1
    )
    assert "'no-such-tokenizer-here' was not found" in capsys.readouterr().err
    assert (
        main(["-c", str(cfg), "bench", "compress", "--tokenizer-command", "count 'unclosed"]) == 1
    )
    assert "quotes" in capsys.readouterr().err
    assert main(["-c", str(cfg), "bench", "perf", "--tokenizer-command", "wc -w"]) == 1
    assert "is for kura bench compress" in capsys.readouterr().err


# --------------------------------------------------------------------------- retention


def _pick_by_words(req):
    q = req.messages[-1]["content"].split("\n")[0].lower()
    words = set(re.findall(r"[a-z0-9.]+", q)) - {
        "question",
        "what",
        "the",
        "was",
        "is",
        "did",
        "to",
    }
    lines = [l for l in req.messages[0]["content"].splitlines() if l.startswith("- [")]
    hits = [
        l.split("](")[1].split(".md")[0]
        for l in lines
        if words & set(re.findall(r"[a-z0-9.]+", l.lower()))
    ]
    return {"slugs": hits[:3]}


def _judge(req):
    verdict = "toss" if "weather" in req.messages[-1]["content"] else "pour"
    return {
        "verdict": verdict,
        "reason": "small talk" if verdict == "toss" else "true to the evidence",
    }


def _script_retention(model):
    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", echo_scribe)
    model.script("kura_judge", _judge)
    model.script("kura_pick", _pick_by_words)


def test_retention_plumbing_with_a_scripted_model(tmp_path, model):
    _script_retention(model)
    cfg = parse_config(
        {
            "stores": {"x": {"path": str(tmp_path / "x")}},
            "models": {"thinker": {"url": model.url, "model": "scripted", "timeout": 5}},
        },
        source=None,
    )
    rep = bench.retention(
        Registry(cfg),
        FIXTURE / "questions.json",
        FIXTURE / "corpus.jsonl",
        workdir=tmp_path / "work",
    )
    assert rep["of"] == 10 and set(rep["by_category"]) >= {"decision", "number", "distractor"}
    rows = {r["id"]: r for r in rep["questions"]}
    assert rows["distractor-weather"]["hit"] is True  # tossed, so not stored
    assert rows["decision-disk"]["hit"] is True and rows["decision-disk"]["how"] == "meaning"
    assert rep["passed"] == sum(r["hit"] for r in rows.values()) and rep["score"] == round(
        rep["passed"] / 10, 3
    )
    assert rep["tossed"] >= 1 and rep["memories"] > 3
    line = bench.score_line(rep)
    assert line.startswith(f"score {round(rep['score'], 2)} ({rep['passed']}/10)   decision ")
    order = list(
        dict.fromkeys(q["category"] for q in json.loads((FIXTURE / "questions.json").read_text()))
    )
    assert [part.split()[0] for part in line.split("   ", 1)[1].split("  ")] == order


def _questions(tmp_path, extra: list[dict]) -> Path:
    base = [
        q
        for q in json.loads((FIXTURE / "questions.json").read_text())
        if q["id"] in ("decision-disk", "distractor-weather")
    ]
    path = tmp_path / "q" / "questions.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(base + extra), encoding="utf-8")
    return path


def test_retention_cli_prints_the_score_and_fails_below_ninety_percent(tmp_path, model, capsys):
    _script_retention(model)
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.x]\npath = "{tmp_path / "x"}"\n\n[models.thinker]\nurl = "{model.url}"\n'
        'model = "scripted"\ntimeout = 5\n'
    )
    good = _questions(tmp_path / "good", [])
    assert (
        main(
            [
                "-c",
                str(cfg),
                "bench",
                "retention",
                "--questions",
                str(good),
                "--corpus",
                str(FIXTURE / "corpus.jsonl"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("score 1.0 (2/2)   decision 1/1  distractor 1/1")
    bad = _questions(
        tmp_path / "bad",
        [
            {
                "id": "planted-never",
                "category": "number",
                "question": "what was the throughput?",
                "expect": "99\\.9 tok",
            }
        ],
    )
    assert (
        main(
            [
                "-c",
                str(cfg),
                "bench",
                "retention",
                "--questions",
                str(bad),
                "--corpus",
                str(FIXTURE / "corpus.jsonl"),
            ]
        )
        == 1
    )
    got = capsys.readouterr()
    assert got.out.startswith("score 0.67 (2/3)   decision 1/1  distractor 1/1  number 0/1")
    assert "retention score 0.67 is below 0.9" in got.err


def test_retention_without_a_model_says_so(tmp_path, kura_bin):
    cfg = tmp_path / "kura.toml"
    cfg.write_text(f'[stores.x]\npath = "{tmp_path / "x"}"\n')
    out = subprocess.run(
        kura_bin
        + ["-c", str(cfg), "bench", "retention", "--questions", str(FIXTURE / "questions.json")],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 1 and "needs a model" in out.stderr


def test_retention_refuses_a_pattern_that_is_not_a_regex(tmp_path, capsys):
    path = tmp_path / "questions.json"
    path.write_text(json.dumps([{"id": "x", "question": "q?", "expect": "(unclosed"}]))
    with pytest.raises(Exception, match="not a regular expression"):
        bench.retention(
            Registry(parse_config({"stores": {"x": {"path": str(tmp_path / "x")}}}, source=None)),
            path,
        )


# --------------------------------------------------------------------------- where benchmark code lives


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            names.add(module)
            names.update(f"{module.rstrip('.')}.{a.name}" for a in node.names)
    return names


def test_the_bench_package_never_imports_a_face():
    for path in (CORE / "bench").glob("*.py"):
        for name in _imports(path):
            assert not name.startswith(("kura_tui", "textual", "rich")), (path.name, name)
    code = (
        "import sys, kura_core.bench, kura_core.bench.load; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('kura_tui', 'textual', 'rich')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_only_the_command_line_reaches_into_the_bench_package():
    users = []
    for path in CORE.rglob("*.py"):
        if "bench" in path.relative_to(CORE).parts:
            continue
        if any(
            n.endswith("bench") or ".bench." in n or n.startswith("kura_core.bench")
            for n in _imports(path)
        ):
            users.append(path.relative_to(CORE).as_posix())
    assert users == ["faces/cli.py"]


def test_the_generated_journal_is_read_as_the_mix_it_claims(tmp_path):
    """Prompts, prose, commands, Edit/Write payloads, long outputs and Japanese text, in a
    file as large as asked, the same for the same seed."""
    from kura_core.bench.journal_gen import gate_candidates, generate_journal
    from kura_core.distill.journals import read_journal

    j = generate_journal(tmp_path / "a.jsonl", 400_000)
    assert 400_000 <= j.path.stat().st_size == j.bytes < 500_000
    assert generate_journal(tmp_path / "b.jsonl", 400_000).path.read_bytes() == j.path.read_bytes()
    _, read = read_journal(j.path, "claude")
    classes = {s.cls for s in read.segments}
    assert classes == {"USER", "SELF", "ACT", "TOOL"}
    text = "\n".join(s.text for s in read.segments)
    assert "Write" in text and "Edit" in text and "ポンプ" in text
    assert max(len(s.text) for s in read.segments) > 5_000
    cands = gate_candidates(j, 10)
    assert len(cands) == 10 and all(c["quotes"] for c in cands)
