"""The floors' table of rules and its fixtures: every rule of
:data:`kura_core.floors.rules.RULES` has a fixture file of cases
(``tests/fixtures/floors/<kind>.<name>.jsonl``), each case a piece of evidence, a text
and the verdict and rule expected, and one parametrised test runs them all through the
surface the rule guards (the gate on a candidate, a rewrite, a trigger line, the curation
sentences). A case expected ``kept`` is a near miss the rule must let through."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kura_core.curation import curation_violations
from kura_core.distill.evidence import Segment
from kura_core.distill.gate import run_gate
from kura_core.floors import Evidence, check_rewrite
from kura_core.floors.rules import QUOTE, RULES, rule
from kura_core.weave import trigger_floor

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "floors"


def _cases() -> list:
    out = []
    for path in sorted(FIXTURES.glob("*.jsonl")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                case = json.loads(line)
                out.append(pytest.param(path.stem, case, id=f"{path.stem}:{n}:{case['case']}"))
    return out


def _segments(evidence: list) -> list[Segment]:
    return [
        Segment(e[0], e[1], "f.jsonl", i, i + 1, "seq", kind=e[2] if len(e) > 2 else "")
        for i, e in enumerate(evidence)
    ]


def _gate(case: dict) -> tuple[str, set[str]]:
    r = run_gate([case["candidate"]], _segments(case["evidence"]))[0]
    fired = {f"{v.kind}.{v.rule}" for v in r.violations}
    fired |= {f"{QUOTE}.{q.rule}" for q in r.quotes if q.status == "cut"}
    return r.verdict, fired


def _surface(case: dict) -> tuple[str, set[str]]:
    if case["via"] == "rewrite":
        found = check_rewrite(case["new"], case["source"])
    elif case["via"] == "trigger":
        found = trigger_floor(case["new"], case["source"], budget=case.get("budget"))
    else:
        found = curation_violations(
            case["sentences"],
            case["tags"],
            evidence=Evidence.of(
                [tuple(e) for e in case["evidence"]], [(e[0], e[1], e[1]) for e in case["evidence"]]
            ),
            existing_slugs=set(case["slugs"]),
        )
    return ("dropped" if found else "kept"), {f"{v.kind}.{v.rule}" for v in found}


@pytest.mark.parametrize(("key", "case"), _cases())
def test_each_rule_refuses_its_cases_and_lets_its_near_misses_through(key, case):
    verdict, fired = _gate(case) if case["via"] == "gate" else _surface(case)
    assert verdict == case["verdict"], (verdict, sorted(fired))
    if case["rule"]:
        assert case["rule"] in fired, sorted(fired)
    for name in fired:
        rule(*name.split(".", 1))  # every rule that fires is a row of the table


def test_every_rule_of_the_table_has_a_fixture_file_that_fires_it():
    files = {p.stem for p in FIXTURES.glob("*.jsonl")}
    keys = [r.key for r in RULES]
    assert len(keys) == len(set(keys))
    assert set(keys) == files, (sorted(set(keys) - files), sorted(files - set(keys)))
    for key in keys:
        cases = [json.loads(x) for x in (FIXTURES / f"{key}.jsonl").read_text("utf-8").splitlines()]
        assert any(c["rule"] == key for c in cases), key
        assert any(c["verdict"] != "dropped" or c["rule"] != key for c in cases), key
