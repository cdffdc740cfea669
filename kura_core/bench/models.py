"""`kura bench models`: does each configured model help, measured on a built-in set?

* **thinker** — the questions of ``models_set.json`` (the recall set: English, Japanese and
  Chinese, each question with the memory that answers it) are asked through recall by
  meaning against a fresh store holding the set's memories, and the word tier is asked the
  same questions. hit@k is the share whose answering memory is among the first k picked.
  Also: the share of the thinker's replies that were valid JSON of the right shape, how many
  named memories that do not exist, and latency cold (a warm-up reading the whole index the
  server has never seen, as the first recall after a pour would) and warm (the median
  recall, with the index in the server's prompt cache).
* **brain** — one distil run over a short built-in journal (``models_journal.jsonl``): the
  candidates it proposed, how many passed kura's gate as drafts, how many the gate dropped,
  the share of its calls that answered, and their latency.

Each role gets a plain verdict: helps, or does not, and why. The thinker's figures are
written to each store this thinker serves (``_still/thinker-verdict.json``), where
``[recall] thinker = "auto"`` reads them: a thinker below the word tier is then not asked.
"""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from ..config import parse_config
from ..distill import pipeline
from ..errors import KuraError
from ..recall import recall, word_index
from ..registry import Registry
from ..store import Store
from ..verdict import Verdict, save
from ..warm import warm
from .retention import _spec_table

HERE = Path(__file__).resolve().parent
SET_FILE = HERE / "models_set.json"
JOURNAL_FILE = HERE / "models_journal.jsonl"
#: below this share of valid replies a model does not help, whatever else it scores
MIN_VALID = 0.8


def load_set(limit: int | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(memories, questions) of the built-in set; *limit* takes that many questions, the
    languages taken in turn so a short run still asks each of them."""
    data = json.loads(SET_FILE.read_text(encoding="utf-8"))
    memories, questions = data["memories"], data["questions"]
    if limit is not None:
        by_lang: dict[str, list[dict[str, Any]]] = {}
        for q in questions:
            by_lang.setdefault(q["lang"], []).append(q)
        turns = [q for group in zip(*by_lang.values(), strict=False) for q in group]
        questions = turns[: max(1, limit)]
    return memories, questions


def _bench_registry(reg: Registry, work: Path, k: int, memories: list[dict[str, Any]]) -> Registry:
    models = {r: _spec_table(s) for r, s in reg.config.models.items() if s is not None}
    (work / "journal").mkdir(parents=True, exist_ok=True)
    shutil.copy(JOURNAL_FILE, work / "journal" / "session.jsonl")
    raw: dict[str, Any] = {
        "stores": {"bench": {"path": str(work / "store")}, "brain": {"path": str(work / "b")}},
        "recall": {"top": k, "hops": 0, "thinker": "on"},
        # the thinker is measured, not the ladder: tier zero would answer direct questions
        "fastpath": {"enabled": False},
        "models": models,
    }
    raw["stores"]["brain"]["journals"] = {"claude": str(work / "journal")}
    breg = Registry(parse_config(raw, source=None), env=reg.env)
    store = Store(work / "store", name="bench")
    store.init()
    for m in memories:
        store.write(m["slug"], title=m["title"], description=m["description"], body=m["body"])
    Store(work / "b", name="brain").init()
    return breg


def _hit(expect: list[str], picked: tuple[str, ...] | list[str], k: int) -> bool:
    return any(slug in picked[:k] for slug in expect)


def _calls(breg: Registry, store: str, task: str) -> tuple[int, int, list[float]]:
    """(calls, answered, latencies in ms of the answered) for *task* in *store*'s client."""
    recs = [r for r in breg.models(store).records() if r.task == task]
    ok = [r for r in recs if r.ok]
    return len(recs), len(ok), [r.elapsed_ms for r in ok]


def _thinker(breg: Registry, questions: list[dict[str, Any]], k: int) -> dict[str, Any]:
    # cold: the server reads the whole index it has never seen (what the first recall after
    # a pour pays unless `kura warm` ran); the questions are then asked with it cached
    cold = warm(breg, "bench")
    hits = words = invented = by_words = 0
    times: list[float] = []
    rows = []
    for q in questions:
        t0 = time.perf_counter()
        res = recall(breg, "bench", q["question"], top=k, hops=0)
        times.append((time.perf_counter() - t0) * 1000)
        w = [s for s, _ in word_index(breg, "bench").search(q["question"], k)]
        hit, whit = (
            res.how == "meaning" and _hit(q["expect"], res.picked, k),
            _hit(q["expect"], w, k),
        )
        hits, words = hits + hit, words + whit
        invented += bool(res.dropped)
        by_words += res.how == "words"
        rows.append({"question": q["question"], "lang": q["lang"], "hit": hit, "words_hit": whit,
                     "picked": list(res.picked), "invented": list(res.dropped),
                     "fell_back": res.reason if res.how == "words" else ""})  # fmt: skip
    calls, ok, _ = _calls(breg, "bench", "kura_pick")
    n = len(questions)
    return {
        "questions": n,
        "k": k,
        "hits": hits,
        "hit_rate": round(hits / n, 3) if n else 0.0,
        "words_hits": words,
        "words_hit_rate": round(words / n, 3) if n else 0.0,
        "calls": calls,
        "valid_json": round(ok / calls, 3) if calls else 0.0,
        "invented": invented,
        "fell_back": by_words,
        "cold_ms": round(cold.elapsed_ms, 1) if cold.warmed else None,
        "cold_error": cold.errors[0] if cold.errors else cold.skipped,
        "warm_ms": round(statistics.median(times), 1) if times else None,
        "slowest_ms": round(max(times), 1) if times else None,
        "rows": rows,
    }


def _brain(breg: Registry) -> dict[str, Any]:
    t0 = time.perf_counter()
    rep = pipeline.run(breg, "brain", max_batches=1)
    wall = (time.perf_counter() - t0) * 1000
    recs = [r for r in breg.models("brain").records() if r.role == "brain"]
    ok = [r for r in recs if r.ok]
    return {
        "candidates": rep.candidates,
        "drafts": len(rep.drafts),
        "dropped": rep.dropped,
        "calls": len(recs),
        "answered": round(len(ok) / len(recs), 3) if recs else 0.0,
        "errors": list(rep.errors)[:5] + [r.reason for r in recs if not r.ok][:3],
        "latency_ms": round(statistics.median([r.elapsed_ms for r in ok]), 1) if ok else None,
        "wall_ms": round(wall, 1),
    }


def thinker_verdict(t: dict[str, Any]) -> tuple[bool, str]:
    """(helps, the plain sentence) for a thinker's figures."""
    found = f"found {t['hits']}/{t['questions']} (hit@{t['k']} {t['hit_rate']:.2f})"
    words = f"the word tier found {t['words_hits']}/{t['questions']} ({t['words_hit_rate']:.2f})"
    if t["calls"] and t["valid_json"] < MIN_VALID:
        return False, (
            f"does not help: only {t['valid_json']:.0%} of its replies were valid JSON; "
            f"it {found}, {words}"
        )
    if t["hits"] > t["words_hits"]:
        return True, f"helps: it {found} where {words}"
    if t["hits"] == t["words_hits"]:
        return False, f"does not help: it {found}, no more than {words}, and costs a model call"
    return False, f"does not help: it {found}, fewer than {words}; recall should answer by words"


def brain_verdict(b: dict[str, Any]) -> tuple[bool, str]:
    if not b["calls"]:
        return False, "not measured: the distil run made no brain call"
    if b["answered"] < MIN_VALID:
        why = b["errors"][0] if b["errors"] else "no reply"
        return False, f"does not help: {b['answered']:.0%} of its calls answered ({why})"
    if not b["drafts"]:
        return False, (
            f"does not help: it proposed {b['candidates']} candidate(s) and none passed the gate"
        )
    return True, (
        f"helps: {b['drafts']} of its {b['candidates']} candidate(s) passed the gate as drafts"
    )


def models_bench(
    reg: Registry, *, limit: int | None = None, k: int = 3, save_verdict: bool = True
) -> dict[str, Any]:
    """Run the configured thinker and brain on the built-in set; see the module docstring."""
    if not any(s is not None for s in reg.config.models.values()):
        raise KuraError("kura bench models needs a model: configure [models.thinker] or others")
    memories, questions = load_set(limit)
    work = Path(tempfile.mkdtemp(prefix="kura-bench-models-"))
    out: dict[str, Any] = {"roles": {}}
    breg: Registry | None = None
    try:
        breg = _bench_registry(reg, work, k, memories)
        if breg.models("bench").configured("thinker"):
            t = _thinker(breg, questions, k)
            t["helps"], t["verdict"] = thinker_verdict(t)
            out["roles"]["thinker"] = t
            if save_verdict:
                out["saved_to"] = _save(reg, t)
        if breg.models("brain").configured("brain"):
            b = _brain(breg)
            b["helps"], b["verdict"] = brain_verdict(b)
            out["roles"]["brain"] = b
    finally:
        if breg is not None:
            breg.close()
        shutil.rmtree(work, ignore_errors=True)
    return out


def _save(reg: Registry, t: dict[str, Any]) -> list[str]:
    """Write the thinker's verdict into every configured store whose directory exists."""
    spec = reg.config.models.get("thinker")
    if spec is None:
        return []
    v = Verdict(spec.url, spec.model, t["k"], t["questions"], t["hits"], t["words_hits"],
                t["valid_json"], time.time())  # fmt: skip
    saved = []
    for name in reg.config.stores:
        store = reg.store(name)
        if store.index_path.is_file():
            saved.append(str(save(store.still, v)))
    return saved


def models_table(rep: dict[str, Any]) -> list[str]:
    """The report as lines a person reads."""
    lines = []
    t = rep["roles"].get("thinker")
    if t:
        lines += [
            f"thinker: {t['verdict']}",
            f"  hit@{t['k']} {t['hit_rate']:.2f} ({t['hits']}/{t['questions']})   "
            f"words {t['words_hit_rate']:.2f} ({t['words_hits']}/{t['questions']})   "
            f"valid JSON {t['valid_json']:.0%} of {t['calls']} calls   "
            f"invented slugs in {t['invented']}   fell back to words {t['fell_back']}",
            f"  latency cold {_ms(t['cold_ms'])} (the whole index read once"
            + (f"; {t['cold_error']}" if t["cold_error"] else "")
            + f")   warm {_ms(t['warm_ms'])} (median recall, slowest {_ms(t['slowest_ms'])})",
        ]
    b = rep["roles"].get("brain")
    if b:
        lines += [
            f"brain: {b['verdict']}",
            f"  candidates {b['candidates']}   drafts {b['drafts']}   dropped by the gate "
            f"{b['dropped']}   calls answered {b['answered']:.0%} of {b['calls']}   "
            f"latency {_ms(b['latency_ms'])}",
        ]
        lines += [f"  error: {e}" for e in b["errors"][:3]]
    if not rep["roles"]:
        lines.append("no thinker or brain is configured: nothing to measure")
    for path in rep.get("saved_to", []):
        lines.append(f"verdict written to {path}")
    return lines


def _ms(v: float | None) -> str:
    if v is None:
        return "—"
    return f"{v / 1000:.1f} s" if v >= 1000 else f"{v:.0f} ms"
