"""Rules that generalise past the examples they were written for: later marks in the same
turn (a retraction, a tentative mark), exceptions, plans written as deeds, comparisons no
quote makes, clock times across noon, and the agent's own figures in its own idea."""

from __future__ import annotations

import pytest

from kura_core.distill.evidence import Segment
from kura_core.distill.gate import run_gate
from kura_core.floors.quantities import Vouchers, scan


def _gate(said: str, body: str, quote: str, cls: str = "USER", kind: str = "fact"):
    seg = Segment(cls, said, "t.jsonl", 0, 1, "seq", kind=f"{cls.lower()} text")
    cand = {
        "kind": kind,
        "title": body[:40],
        "description": body[:60],
        "body": body,
        "quotes": [f"[{cls}] {quote}"],
    }
    return run_gate([cand], [seg])[0]


def _rule(r) -> str:
    cut = [q.rule for q in r.quotes if q.status == "cut"]
    return cut[0] if cut else ",".join(f"{v.kind}/{v.rule}" for v in r.violations)


@pytest.mark.parametrize(
    ("said", "body", "quote", "rule"),
    [
        (
            "Maybe move it to 3:30am? Actually no, keep 2am.",
            "The backup moves to 3:30am.",
            "Maybe move it to 3:30am?",
            "retracted",
        ),
        (
            "餐饮预算就定3,000吧。算了，还是3,500。",
            "餐饮预算定为3,000。",
            "餐饮预算就定3,000吧。",
            "retracted",
        ),
        (
            "2泊目は駅前のホテル（仮）で。名前は後で決める。",
            "2泊目は駅前のホテルに決定。",
            "2泊目は駅前のホテル",
            "tentative",
        ),
        (
            "除了 Steam 版，其他平台的 demo 都不做。",
            "所有平台都不做 demo。",
            "其他平台的 demo 都不做。",
            "exception",
        ),
    ],
)
def test_what_the_turn_adds_after_or_before_the_quote_governs_it(said, body, quote, rule):
    r = _gate(said, body, quote)
    assert r.verdict == "dropped" and _rule(r) == rule, (r.reasons, r.quotes)


@pytest.mark.parametrize(
    ("said", "body", "quote"),
    [
        (
            "Maybe 3:30am? Actually no, keep 2am.",
            "The backup stays at 2am.",
            "Actually no, keep 2am.",
        ),
        (
            "Keep 14 days of logs. Use UTC for the timestamps.",
            "Logs are kept 14 days.",
            "Keep 14 days of logs.",
        ),
        ("餐饮预算就定3,000吧。算了，还是3,500。", "餐饮预算定为3,500。", "还是3,500。"),
    ],
)
def test_what_stands_after_a_retraction_or_before_another_sentence_is_kept(said, body, quote):
    r = _gate(said, body, quote)
    assert r.verdict == "kept", (r.reasons, [v.message() for v in r.violations], r.quotes)


def test_a_plan_is_kept_a_plan():
    said = "I'll update the firmware to 8.6.9 next weekend."
    done = _gate(said, "The firmware was updated to 8.6.9.", said, cls="TOOL")
    plan = _gate(said, "The firmware will be updated to 8.6.9 next weekend.", said, cls="TOOL")
    assert done.verdict == "dropped" and _rule(done) == "scope/plan_as_done"
    assert plan.verdict == "kept"


def test_a_comparison_needs_a_quote_or_a_figure_that_makes_it():
    said = "1 of 1 OK created incremental model orders_daily in 84.12s"
    cheaper = _gate(said, "The incremental model is cheaper than the old one.", said, cls="TOOL")
    plain = _gate(said, "The incremental model orders_daily was created.", said, cls="TOOL")
    assert _rule(cheaper) == "content/unvouched" and plain.verdict == "kept"
    faster = _gate(
        "the new run took 84.12s, faster than before",
        "The run is faster than before.",
        "the new run took 84.12s, faster than before",
    )
    assert faster.verdict == "kept"


@pytest.mark.parametrize(
    ("evidence", "written", "vouched"),
    [
        ("東京,10:24,金沢", "午後10:24発", False),
        ("東京,22:24,金沢", "午後10:24発", True),
        ("start at 14:30", "下午 2:30", True),
        ("lunch at 12:00", "lunch at noon", True),
        ("meet at 12:00", "meet at midnight 0:00", False),
    ],
)
def test_a_clock_time_is_read_on_the_half_of_the_day_it_names(evidence, written, vouched):
    v = Vouchers([evidence])
    assert all(v.vouches(q) for q in scan(written)) is vouched


def test_an_idea_may_use_the_agents_own_figures():
    said = "2泊目をビジネスホテルにすれば予算内に近づくと思います。"
    r = _gate(
        said,
        "2泊目をビジネスホテルにすれば予算内に近づくかもしれない。",
        said,
        cls="SELF",
        kind="idea",
    )
    assert r.verdict == "seed", [v.message() for v in r.violations]


def test_a_line_printed_into_crontab_is_configuration_not_prose():
    from kura_core.floors.payloads import prose_spans

    installed = "(crontab -l; echo '*/30 * * * * /usr/local/bin/check.sh') | crontab -"
    assert prose_spans(installed) == []
    assert prose_spans("echo 'the deploy is done now' | mail -s done ops") == [(6, 28)]
