"""Clause scope, the agent's prose in commands, and the calendar and identifier figures --
tested as rules: generated clauses, fillers and operators, never a fixed list of examples."""

from __future__ import annotations

import gc
import time
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from kura_core.distill.evidence import normalize
from kura_core.distill.pipeline import JUDGE_INSTRUCTIONS
from kura_core.floors import disguises
from kura_core.floors.payloads import prose_spans
from kura_core.floors.quantities import unvouched
from kura_core.floors.scope import RULES, judge
from kura_core.prompts import TRUST_QUESTIONS

ROOT = Path(__file__).resolve().parents[2]

VERBS = ["keep", "wipe", "move", "delete", "order", "rotate", "raise", "archive"]
OBJECTS = ["the nightly backups", "the build cache", "the old snapshots", "the photo archive"]
TAILS = ["for 14 days", "at 02:30", "on the slow disk", "before the summer", "every month"]
FILLERS_BEFORE = ["ok,", "um,", "so", "please", "well, actually,", "hey,", "can you", "also"]
FILLERS_AFTER = [", please", ", thanks", " as well", " too", " from now on"]
# words that can stand between an operator and its clause ("do not ever really …")
BETWEEN = ["ever", "really", "actually", "just", "at all", "again"]
OPERATORS = {
    "negation": ["don't", "dont", "do not", "never", "won't", "shouldn't", "no need to"],
    "condition": ["if the disk fills,", "unless Mika objects,", "when the disk arrives,"],
    "report": ["Mika says", "according to Mika,", "my landlord says"],
    "hedge": ["maybe", "perhaps,", "I think"],
}
JA_STEMS = ["バックアップを14日間残す", "ログを毎晩削除する", "写真をNASに移す"]
JA_AFTER = {
    "negation": ["必要はない", "ことはない", "わけではない", "な", "べきではない"],
    "hedge": ["かもしれない", "と思う", "だろう"],
    "report": ["そうだ", "らしい", "って"],
    "question": ["か", "ですか"],
}
ZH_CLAUSES = ["把旧的快照保留90天", "每天凌晨两点清理缓存", "把归档放到NAS上"]
ZH_BEFORE = {
    "negation": ["不要", "别", "不再", "别再", "千万不要", "从不"],
    "condition": ["如果磁盘满了，", "要是预算够的话，", "除非老板同意，"],
    "report": ["听说", "据说", "老王说"],
    "hedge": ["也许", "可能", "我觉得"],
}


def _judge(segment: str, quote: str, *, strict: bool = True):
    seg = normalize(segment)
    q = normalize(quote)
    i = seg.find(q)
    assert i >= 0, (segment, quote)
    return judge(seg, i, i + len(q), strict=strict)


clauses = st.builds(
    lambda v, o, t: f"{v} {o} {t}",
    st.sampled_from(VERBS),
    st.sampled_from(OBJECTS),
    st.sampled_from(TAILS),
)


@settings(max_examples=150, deadline=None)
@given(
    clauses,
    st.lists(st.sampled_from(FILLERS_BEFORE), max_size=2),
    st.lists(st.sampled_from(FILLERS_AFTER), max_size=1),
    st.sampled_from([".", "!", "", ". Nothing else changes."]),
)
def test_a_clause_with_only_fillers_around_it_stands(clause, before, after, end):
    segment = " ".join([*before, clause]) + "".join(after) + end
    assert not _judge(segment, clause), segment


@settings(max_examples=200, deadline=None)
@given(
    clauses,
    st.sampled_from(sorted(OPERATORS)),
    st.data(),
    st.lists(st.sampled_from(BETWEEN), max_size=3),
)
def test_an_operator_at_any_distance_cuts_the_quote_with_its_rule(clause, rule, data, between):
    op = data.draw(st.sampled_from(OPERATORS[rule]))
    segment = " ".join([op, *between, clause]) + "."
    got = _judge(segment, clause)
    assert got.rule in (rule, "scope") if between else got.rule == rule, (segment, got)
    assert got.rule in RULES


@settings(max_examples=100, deadline=None)
@given(clauses, st.sampled_from(["?", ", right?", ", or not?"]))
def test_a_question_is_not_a_statement(clause, tail):
    got = _judge(f"should we {clause}{tail}", clause)
    assert got.rule in ("question", "hedge"), got


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(JA_STEMS), st.sampled_from(sorted(JA_AFTER)), st.data())
def test_japanese_operators_after_the_quote_cut_it(stem, rule, data):
    op = data.draw(st.sampled_from(JA_AFTER[rule]))
    got = _judge(stem + op + "。", stem)
    assert got.rule == rule, (stem + op, got)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(ZH_CLAUSES), st.sampled_from(sorted(ZH_BEFORE)), st.data())
def test_chinese_operators_before_the_quote_cut_it(clause, rule, data):
    op = data.draw(st.sampled_from(ZH_BEFORE[rule]))
    got = _judge(op + clause + "。", clause)
    assert got.rule == rule, (op + clause, got)


JA_SOFT_BEFORE = ["", "えっと", "えーっと", "ええっと", "あのー", "まあ", "じゃあ"]
JA_SOFT_AFTER = ["", "ね", "よ", "よね", "っす", "です", "ように", "ようにお願いします", "ください"]
ZH_SOFT_BEFORE = ["", "嗯", "嗯嗯", "请", "麻烦", "然后", "另外"]
ZH_SOFT_AFTER = ["", "一下", "就行了", "就好", "了", "啊", "哈", "谢谢"]
LONG = st.sampled_from(["", "ー", "ーー"])


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(JA_STEMS), st.sampled_from(JA_SOFT_BEFORE), st.data(), LONG)
def test_japanese_softeners_and_their_prolonged_forms_leave_a_quote_standing(
    stem, before, data, long
):
    after = data.draw(st.sampled_from(JA_SOFT_AFTER))
    # a prolonged sound mark lengthens the filler or particle it follows
    after = after + long if after and after[-1] in "ねよ" else after
    segment = before + stem + after + "。"
    assert not _judge(segment, stem), segment


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(ZH_CLAUSES), st.sampled_from(ZH_SOFT_BEFORE), st.sampled_from(ZH_SOFT_AFTER))
def test_chinese_softeners_leave_a_quote_standing(clause, before, after):
    segment = before + clause + after + "。"
    assert not _judge(segment, clause), segment


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(JA_STEMS), st.sampled_from(sorted(JA_AFTER)), st.data(), LONG)
def test_a_prolonged_sound_mark_never_softens_an_operator(stem, rule, data, long):
    op = data.draw(st.sampled_from(JA_AFTER[rule]))
    segment = stem + op + (long or "ー") + "。"
    assert _judge(segment, stem), segment


def test_a_report_names_its_source():
    got = _judge("Mika says the lease ends on March 31.", "the lease ends on March 31")
    assert got.rule == "report" and got.source == "mika"
    assert _judge("田中さんによると、契約は3月末で終了。", "契約は3月末で終了").source == "田中さん"


def test_machine_output_may_leave_out_columns_but_not_operators():
    line = "/data 3.2T used 1.1T avail"
    assert not _judge(line, "/data 3.2T used", strict=False)
    assert _judge(line, "/data 3.2T used", strict=True).rule == "scope"
    assert _judge("if full, rotate the logs", "rotate the logs", strict=False).rule == "condition"


def _linear(fn, small: str, big: str) -> None:
    def timed(text: str) -> float:
        best = float("inf")
        gc.collect()
        gc.disable()  # growth of the algorithm, not of the collector's sweeps
        try:
            for _ in range(3):
                t = time.process_time()
                fn(text)
                best = min(best, time.process_time() - t)
        finally:
            gc.enable()
        return best

    t_small, t_big = timed(small), timed(big)
    assert t_big <= max(15 * t_small, 0.25), (t_small, t_big)
    assert t_big < 2.0


@pytest.mark.slow
def test_scope_runs_in_linear_time():
    for unit in ("a" * 50 + " ", "不" * 40 + "，", "if " * 30, "'" * 60, "(" * 60):
        small, big = unit * 100, unit * 1000

        def run(text: str) -> None:
            mid = len(text) // 2
            judge(text, mid, mid + 5)

        _linear(run, small, big)


@pytest.mark.slow
def test_payload_scan_runs_in_linear_time():
    for unit in ("echo 'a b' ", '"' * 7, "<<EOF\n", "python3 -c \"print('x y')\" ; "):
        _linear(prose_spans, unit * 1000, unit * 10000)


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from(
        [
            'echo "{p}"',
            "printf '%s\\n' '{p}'",
            'git commit -m "{p}"',
            'curl -d \'{{"note": "{p}"}}\' http://h/x',
            "python3 -c \"print('{p}')\"",
            'echo "{p}" >> notes.md',
            "gh pr create --title '{p}'",
        ]
    ),
    clauses,
)
def test_the_agents_prose_in_a_command_is_found(shape, prose):
    command = shape.format(p=prose)
    spans = prose_spans(command)
    assert any(command[a:b] == prose or prose in command[a:b] for a, b in spans), command


@given(st.sampled_from(["GPU1_FLOOR=30", "fan floor 30", "interval 5"]))
def test_a_value_written_into_a_config_file_is_the_action(value):
    assert prose_spans(f'echo "{value}" >> /etc/fan.conf') == []


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=100, max_value=99999))
def test_a_letter_inside_a_figure_is_disguise(n):
    text = str(n)
    for real, fake in (("0", "O"), ("1", "l")):
        if real in text[1:]:
            k = text.index(real, 1)
            assert disguises(f"{text[:k]}{fake}{text[k + 1 :]} rows"), text
    assert not disguises(f"{text} rows")


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["令和", "平成", "民国"]), st.integers(min_value=2, max_value=30))
def test_an_era_year_is_its_gregorian_year(era, n):
    base = {"令和": 2018, "平成": 1988, "民国": 1911}[era]
    evidence = [f"{era}{n}年に買った"]
    assert unvouched(f"{base + n}年に買った", evidence) == []
    assert unvouched(f"{2000 + n}年に買った", evidence) != [] or base + n == 2000 + n


def test_the_judge_asks_what_trust_md_says_the_gate_cannot_see():
    assert TRUST_QUESTIONS in JUDGE_INSTRUCTIONS
    trust = (ROOT / "docs" / "TRUST.md").read_text(encoding="utf-8")
    assert "TRUST_QUESTIONS" in trust
    for topic in ("contradict", "figure", "negation", "condition", "report", "hedge", "view"):
        assert topic in TRUST_QUESTIONS and topic in trust, topic
