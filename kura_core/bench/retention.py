"""`kura bench retention`: did the store keep what mattered, and refuse what it should?

A transcript with planted facts is distilled into a fresh store with the configured models,
then each question is asked through recall and scored without a model: its marker regex
must appear in what recall returns. A distractor (``must_not_store``) inverts the test: it
passes only when the store did not keep it, so keeping one costs the point it would have
earned. The score is the share of questions that passed, reported by category; below
``PASS_SCORE`` the command fails.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from ..config import parse_config
from ..distill import pipeline
from ..errors import KuraError
from ..recall import recall
from ..registry import Registry
from ..store import Store

#: the share of questions a store must pass for `kura bench retention` to exit 0
PASS_SCORE = 0.9


def expect_pattern(source: str) -> re.Pattern[str]:
    """A question's expected answer: a regular expression written by whoever wrote the
    questions file (the bench's own fixture, or an operator's), matched case-insensitively."""
    return re.compile(source, re.IGNORECASE)


def load_questions(questions_file: Path) -> list[dict[str, Any]]:
    try:
        qs = json.loads(Path(questions_file).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise KuraError(f"--questions {questions_file}: no such file") from None
    except json.JSONDecodeError as exc:
        raise KuraError(f"--questions {questions_file}: not JSON ({exc.msg})") from None
    if not isinstance(qs, list) or not all(
        isinstance(q, dict) and "question" in q and "expect" in q for q in qs
    ):
        raise KuraError(
            "--questions must be a JSON list of {id, category, question, expect[, must_not_store]}"
        )
    for q in qs:
        try:
            expect_pattern(str(q["expect"]))
        except re.error as exc:
            raise KuraError(
                f"--questions: the expect pattern of {q.get('id', q['question'])!r} is not a "
                f"regular expression ({exc})"
            ) from None
    return qs


def retention(
    reg: Registry,
    questions_file: Path,
    corpus: Path | None = None,
    *,
    workdir: Path | None = None,
    max_rounds: int = 20,
) -> dict[str, Any]:
    """Distil *corpus* into a fresh store with the configured models, then ask each
    question through recall and score its marker regex."""

    qs = load_questions(questions_file)
    corpus = Path(corpus) if corpus else Path(questions_file).with_name("corpus.jsonl")
    if not corpus.is_file():
        raise KuraError(f"no corpus at {corpus}: pass --corpus FILE")
    models = {r: s for r, s in reg.config.models.items() if s is not None}
    if "thinker" not in models:
        raise KuraError(
            "retention needs a model: configure [models.thinker] (it distils and recalls)"
        )
    own = workdir is None
    work = Path(workdir or tempfile.mkdtemp(prefix="kura-retention-"))
    try:
        (work / "journal").mkdir(parents=True, exist_ok=True)
        shutil.copy(corpus, work / "journal" / corpus.name)
        raw: dict[str, Any] = {
            "stores": {"bench": {"path": str(work / "store")}},
            "distill": {"journals": {"claude": str(work / "journal")}, "max_items": 12},
            "models": {r: _spec_table(s) for r, s in models.items()},
            # what the store kept is read by meaning (the thinker's top picks), not by the
            # fastpath's single confident answer: retention measures the store, not tier zero
            "fastpath": {"enabled": False},
        }
        breg = Registry(parse_config(raw, source=None), env=reg.env)
        Store(work / "store", name="bench").init()
        rounds = 0
        while rounds < max_rounds:
            rounds += 1
            rep = pipeline.run(breg, "bench")
            if rep.shelved:
                raise KuraError("distilling failed: " + "; ".join(rep.errors))
            if not rep.did_work:
                break
        drain = pipeline.drain(breg, "bench")
        store_text = "\n".join(
            m.description + "\n" + m.body for m in breg.store("bench").scan().memories
        )
        by_cat: dict[str, dict[str, Any]] = {}
        rows = []
        for q in qs:
            cat = str(q.get("category", "other"))
            slot = by_cat.setdefault(cat, {"passed": 0, "of": 0})
            pattern = expect_pattern(str(q["expect"]))
            if q.get("must_not_store"):
                stored = bool(pattern.search(store_text))
                row = {"id": q.get("id"), "category": cat, "hit": not stored, "stored": stored}
            else:
                res = recall(breg, "bench", q["question"])
                row = {
                    "id": q.get("id"),
                    "category": cat,
                    "hit": bool(pattern.search(res.context)),
                    "how": res.how,
                    "picked": list(res.picked),
                }
            slot["passed"] += 1 if row["hit"] else 0
            slot["of"] += 1
            rows.append(row)
        for slot in by_cat.values():
            slot["score"] = round(slot["passed"] / slot["of"], 3)
        passed = sum(s["passed"] for s in by_cat.values())
        return {
            "score": round(passed / len(qs), 3) if qs else 0.0,
            "passed": passed,
            "of": len(qs),
            "pass_score": PASS_SCORE,
            "by_category": by_cat,
            "questions": rows,
            "memories": len(breg.store("bench").file_slugs()),
            "poured": len(drain.poured),
            "tossed": len(drain.tossed),
            "workdir": str(work),
        }
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)


def score_line(rep: dict[str, Any]) -> str:
    """``score 0.9 (9/10)   decision 1/1  number 2/2 …``, categories in the order first asked."""
    cats = "  ".join(f"{cat} {s['passed']}/{s['of']}" for cat, s in rep["by_category"].items())
    return f"score {round(rep['score'], 2)} ({rep['passed']}/{rep['of']})   {cats}"


def _spec_table(spec: Any) -> dict[str, Any]:
    out = {
        "url": spec.url,
        "model": spec.model,
        "timeout": spec.timeout,
        "temperature": spec.temperature,
        "effort": spec.effort,
        "thinking": spec.thinking,
        "dialect": spec.dialect,
    }
    if spec.api_key_env:
        out["api_key_env"] = spec.api_key_env
    if spec.extra:
        out["extra"] = dict(spec.extra)
    return out
