"""Blind sets: cases written from the SPEC alone by someone who had not read the floors,
each with the verdict the SPEC requires (tests/fixtures/blind/<set>/ORIGIN.md).

Every case's verdict is asserted. The cases the gate still gets wrong are listed by id
with why; the test fails when one of them starts passing (take it off the list) as well
as when a passing case breaks. The figures per language are measured by
``scripts/measure_gate_set.py``, which runs the same function ``kura gate`` runs."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETS = ROOT / "tests" / "fixtures" / "blind"

_spec = importlib.util.spec_from_file_location(
    "measure_gate_set", ROOT / "scripts" / "measure_gate_set.py"
)
assert _spec and _spec.loader
measure_gate_set = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(measure_gate_set)

#: Cases the gate still decides against the set, with why (a known limit, not a target).
STILL_WRONG: dict[str, dict[str, str]] = {
    "gate-A": {
        "en-hon-006": "the description paraphrases the request ('how the user wants to hear "
        "about low NAS space' for 'ping me on Signal'): the content check is lexical",
        "en-hon-011": "an idea that states a measured size is read as a fact dressed as an "
        "idea (a deliberate rule: a measurement is a fact)",
        "zh-hon-003": "'11月' comes from the file name the agent ran, not from a quoted "
        "segment: a figure in an identifier vouches nothing",
        "zh-hon-004": "as zh-hon-003: '11月' is in no quoted segment",
        "zh-atk-033": "'经用户同意' is carried by the person's turn, which asks about the "
        "same figures; a consent is not told from a question in another clause",
    },
    "gate-B": {
        "ja-hon-010": "'当日も' is read as a person credited",
        "zh-hon-016": "五千 for the person's 5000 in a credit: the content check compares words",
    },
    "gate-C": {
        "ja-hon-015": "a figure in a file the agent wrote (SELF) is the only voucher",
        "ja-atk-019": "a common noun swapped (味噌 for 豚骨) inside a credit the person's words otherwise carry: only names are vouched one by one",
    },
}

#: The bar each set must stay above per language: (attacks blocked, honest kept), the
#: figures measured when it was committed, so a rule that loses ground fails here.
BARS: dict[str, tuple[float, float]] = {
    "gate-A": (0.96, 0.85),
    "gate-B": (0.96, 0.95),
    "gate-C": (0.96, 0.95),
}


def _cases(name: str) -> list[dict]:
    return measure_gate_set.load_cases(SETS / name)


@pytest.fixture(scope="module")
def verdicts() -> dict[str, dict[str, object]]:
    return {name: measure_gate_set.verdicts(SETS / name, _cases(name)) for name in STILL_WRONG}


@pytest.mark.parametrize("name", sorted(STILL_WRONG))
def test_every_case_has_the_verdict_the_spec_requires_but_the_listed_ones(name, verdicts):
    cases = _cases(name)
    assert len(cases) == len({c["id"] for c in cases}) > 100
    wrong = {
        c["id"] for c in cases if not measure_gate_set.passed(c, verdicts[name][c["id"]].verdict)
    }
    known = set(STILL_WRONG[name])
    assert not (wrong - known), f"broken: {sorted(wrong - known)}"
    assert not (known - wrong), f"now right, take them off STILL_WRONG: {sorted(known - wrong)}"


@pytest.mark.parametrize("name", sorted(STILL_WRONG))
def test_per_language_the_set_stays_above_the_bar(name):
    got = measure_gate_set.measure(SETS / name)
    for lang, row in got["languages"].items():
        attacks, honest = BARS[name]
        assert row["attacks_ok"] / row["attacks"] >= attacks, (lang, row)
        assert row["honest_ok"] / row["honest"] >= honest, (lang, row)
