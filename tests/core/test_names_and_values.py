"""Properties of the rules that read names, comparisons, rates and values in a credit: each
holds for generated text, and each runs in linear time on pathological input."""

from __future__ import annotations

import time
from decimal import Decimal

import pytest
from hypothesis import assume, given, settings, strategies as st

from kura_core.floors.attribution import VALUE_MARK, carries, content_tokens
from kura_core.floors.comparison import comparison
from kura_core.floors.entities import names_in_text, unvouched_names
from kura_core.floors.quantities import scan
from kura_core.floors.voices import voices

_PIECES = st.sampled_from(
    [
        "Halden",
        "Thorne",
        "PostgreSQL",
        "the",
        "from",
        "user",
        "wants",
        ". ",
        ", ",
        "\n",
        "石桥镇",
        "中心小学",
        "三鷹駅",
        "这所",
        "城市",
        "的",
        "在",
        "に",
        "は",
        "。",
        "，",
        "3",
        "12月21日",
        "▲1,240",
        "(1,240.00)",
        "每公斤",
        "8.5元",
        "/kg",
        " per jar",
        "cheaper than",
        "高于",
        "より安い",
        "最近",
        "For example, ",
        "例えば、",
        " ",
    ]
)
_TEXT = st.lists(_PIECES, max_size=40).map("".join)


@settings(max_examples=200, deadline=None)
@given(_TEXT)
def test_a_text_vouches_every_name_it_writes(text):
    assert unvouched_names(text, [text]) == []


@settings(max_examples=200, deadline=None)
@given(_TEXT, _TEXT)
def test_a_name_is_refused_only_when_the_evidence_lacks_it(text, evidence):
    for name in unvouched_names(text, [evidence]):
        assert name in names_in_text(text)
        assert name.lower() not in evidence.lower() or name.isascii()


@settings(max_examples=200, deadline=None)
@given(_TEXT)
def test_a_text_carries_its_own_content(text):
    assume(text.strip())
    tokens = content_tokens(text)
    assert carries(tokens, [text])


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 999_999), st.integers(0, 99))
def test_an_amount_in_parentheses_or_after_a_triangle_is_a_negative(whole, cents):
    value = Decimal(whole) + Decimal(cents) / 100
    written = f"{value:,.2f}"
    for text in (f"医疗 ({written})", f"営業利益 ▲{written}"):
        got = [q for q in scan(text) if q.value is not None]
        assert got and got[-1].value == -value, (text, got)


@settings(max_examples=100, deadline=None)
@given(st.decimals(min_value=Decimal("0.1"), max_value=Decimal("9999"), places=1))
def test_a_rate_keeps_one_denominator_however_it_is_written(x):
    forms = [f"{x}元/公斤", f"每公斤{x}元", f"{x}元/kg"]
    pers = {next(q.per for q in scan(f) if q.value is not None) for f in forms}
    assert pers == {"kg"}
    assert next(q.per for q in scan(f"每斤{x}元") if q.value is not None) != "kg"


_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_KANJI = ("〇", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十")


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 10), st.integers(1, 10**12))
def test_a_figure_in_words_digits_or_numerals_is_one_value_token(small, big):
    token = f"{VALUE_MARK}{small}"
    for text in (f"put {_WORDS[small]} sacks", f"put {small} sacks", f"{_KANJI[small]}袋"):
        assert token in content_tokens(text), text
    assert f"{VALUE_MARK}{big}" in content_tokens(f"{big:,} items") & content_tokens(f"{big} items")


def _linear(fn, make) -> None:
    small, big = make(3_000), make(30_000)
    t0 = time.process_time()
    fn(small)
    t1 = time.process_time()
    fn(big)
    t2 = time.process_time()
    # ten times the input may cost at most forty times the time (noise aside)
    assert t2 - t1 <= max(0.5, 40 * (t1 - t0)), (fn.__name__, t1 - t0, t2 - t1)


@pytest.mark.slow
def test_the_readers_run_in_linear_time_on_pathological_input():
    for make in (
        lambda n: "A" * n,
        lambda n: " " * n + "Halden",
        lambda n: "市" * n,
        lambda n: "石" * n + "镇",
        lambda n: "a, " * n,
        lambda n: "▲" * n + "1",
        lambda n: "(" * n + "1,240.00)",
        lambda n: "每" * n + "8元",
        lambda n: "more " * n + "than",
        lambda n: "より" * n,
        lambda n: "1.\n\n" * n,
    ):
        for fn in (names_in_text, comparison, scan, content_tokens, voices):
            _linear(fn, make)


def test_the_swap_finder_and_the_table_reader_run_in_linear_time():
    from kura_core.floors.entities import KinNameFinder, SwapFinder, WordSwapFinder
    from kura_core.floors.tables import Rows

    def swaps(text: str) -> list[str]:
        return (
            SwapFinder([text]).swapped(text[::-1])
            + WordSwapFinder([text]).swapped(text)
            + KinNameFinder([text]).swapped(text[::-1])
        )

    def rows(text: str) -> list:
        return Rows([text]).moved(text)

    for make in (
        lambda n: "女儿叫朵朵，" * (n // 6),
        lambda n: "長女の美咲が" * (n // 6),
        lambda n: "長女の" * (n // 3),
        lambda n: "健" * n,
        lambda n: "a,b,c\n" * (n // 6),
        lambda n: "k  1  2\n" * (n // 8),
        lambda n: "ask Anna about the Plan " * (n // 24),
    ):
        for fn in (swaps, rows):
            _linear(fn, make)


@settings(max_examples=60, deadline=None)
@given(
    st.text(alphabet="健太朵二李赵工的要来看大棚下周三农技站", min_size=8, max_size=30),
    st.integers(2, 5),
    st.sampled_from("健太朵二李赵工大棚"),
)
def test_a_phrase_copied_whole_is_never_a_swap_and_one_changed_name_character_is(phrase, at, other):
    from kura_core.floors.entities import SwapFinder

    finder = SwapFinder([phrase])
    assert finder.swapped(phrase) == []
    changed = phrase[:at] + other + phrase[at + 1 :]
    window = changed[at - 2 : at + 4]
    if (
        changed != phrase
        and len(window) == 6
        and window not in phrase
        and phrase[at] not in "的要来看下三"
        and other not in "的要来看下三"
        # a weekday's character (周二 for 周健) is a value, compared as values are
        and not (changed[at - 1] == "周" and other in "一二三四五六日天")
        # and a numeral before it (二周, two weeks) is a duration, a value too
        and not (changed[at + 1 : at + 2] == "周" and other in "一二三四五六")
    ):
        assert finder.swapped(changed), (phrase, changed)


_GIVEN = st.text(alphabet="美咲沙蓮健太朵豆花子", min_size=1, max_size=3)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["長女の", "息子の", "妻の", "女儿叫", "儿子叫"]), _GIVEN, _GIVEN)
def test_a_relative_keeps_the_name_the_evidence_gives_and_no_other(kin, name, other):
    """A relative the evidence names passes under that name, with any particle, and is
    refused under a name the evidence never writes."""
    from kura_core.floors.entities import KinNameFinder

    tail = "が小4。" if kin.endswith("の") else "，今年8岁。"
    finder = KinNameFinder([f"{kin}{name}{tail}"])
    kept = f"{kin}{name}{'は小4。' if kin.endswith('の') else '，对花生过敏。'}"
    assert finder.swapped(kept) == []
    assume(other not in f"{kin}{name}{tail}")
    swapped = f"{kin}{other}{tail}"
    assert finder.swapped(swapped) == [other], (name, other)


@settings(max_examples=120, deadline=None)
@given(st.data())
def test_a_credit_with_the_opposite_of_the_persons_verb_says_the_opposite(data):
    """For every line of the list ``opposites``: a credit with a word of one side over the
    person's words with a word of the other side (the rest shared) says the opposite; with
    a negation right before the person's word ("don't delete") it does not."""
    from kura_core.floors.attribution import _opposites, says_opposite

    sides = data.draw(st.sampled_from(_opposites()))
    one, other = data.draw(st.permutations(list(sides)))
    said = data.draw(st.sampled_from([w for w, _t in one]))
    claim = data.draw(st.sampled_from([w for w, _t in other]))
    assume(not (content_tokens(claim) <= content_tokens(said)))
    assume(not (content_tokens(said) <= content_tokens(claim)))
    assume(not any(c in "不别別没沒勿莫無无非" for c in claim + said))
    person = f"{said} the invoices folder"
    credit = f"{claim} the invoices folder"
    assert says_opposite(credit, [person]), (said, claim)
    if said.isascii():
        # "don't delete the invoices folder" may be credited as "keep …"
        assert not says_opposite(credit, [f"don't {person}"]), (said, claim)


_SLOT_WORDS = st.sampled_from(
    [
        "touch",
        "farm",
        "flyer",
        "cap",
        "server",
        "backup",
        "電気",
        "確定",
        "楽天",
        "服务器",
        "续费",
        "腾讯",
    ]
)


@settings(max_examples=200, deadline=None)
@given(_TEXT)
def test_a_credit_in_the_persons_own_words_has_no_slot_swapped(text):
    from kura_core.floors.attribution import slot_swapped

    assert not slot_swapped(text, [text])


@settings(max_examples=150, deadline=None)
@given(_SLOT_WORDS, _SLOT_WORDS, st.sampled_from(["nether portal", "東北電力", "阿里巴巴"]))
def test_another_thing_between_two_words_the_person_says_is_a_swapped_slot(left, right, other):
    from kura_core.floors.attribution import slot_swapped

    assume(left != right)
    theirs = f"{left} the mob farm then {right}."
    assert not slot_swapped(f"{left} the mob farm then {right}", [theirs])
    assert slot_swapped(f"{left} the {other} then {right}", [theirs])
    # a word added where the person says nothing between is a paraphrase, not a swap
    assert not slot_swapped(f"{left} the mob farm quickly then {right}", [theirs])


def test_the_slot_reader_runs_in_linear_time():
    from kura_core.floors.attribution import slot_swapped

    for make in (
        lambda n: "touch the farm " * (n // 15),
        lambda n: "電気を確定" * (n // 5),
        lambda n: "a" * n,
    ):
        _linear(lambda text: slot_swapped(text[:600], [text]), make)


def test_a_figure_grouped_the_indian_way_is_one_value():
    """2,16,000.00 and Rs. 4,56,300 are one figure each (lakhs and crores), in rupees after
    Rs. as after ₹; a row's cells (中2,80,80,160) and a list stay apart."""
    got = [(q.value, q.unit) for q in scan("Rs. 2,16,000.00 and ₹1,23,45,678")]
    assert got == [(Decimal("216000.00"), "INR"), (Decimal("12345678"), "INR")]
    assert [q.value for q in scan("by Rs. 4,56,300, within 30 days")][0] == Decimal("456300")
    assert Decimal("2") in [q.value for q in scan("中2,80,80,160")]
