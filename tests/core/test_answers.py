"""Short answers (floors/answers.py): what "b", "the second one", 「2案で」, 选B or a yes picks
from the agent's message before it -- and that nothing else is ever picked."""

from __future__ import annotations

import string

from hypothesis import given, settings, strategies as st

from kura_core.floors.answers import picked
from tests.core.linear_inputs import Family, grows_linearly

LETTERS = "abcde"
OPTION_WORDS = st.text(alphabet=string.ascii_lowercase + " ", min_size=3, max_size=30).filter(
    lambda t: t.strip() and not t.startswith(" ")
)


def _offer(options: list[str], style: str) -> str:
    if style == "letter":
        lines = [f"({LETTERS[i]}) {o}" for i, o in enumerate(options)]
    elif style == "number":
        lines = [f"{i + 1}. {o}" for i, o in enumerate(options)]
    else:
        lines = [f"方案{'一二三四五'[i]}：{o}" for i, o in enumerate(options)]
    return "Here are the options:\n" + "\n".join(lines) + "\nWhich one?"


def _reply(k: int, style: str, form: int) -> str:
    if style == "letter":
        return [f"{LETTERS[k]}. that one", f"option {LETTERS[k]}", f"选{LETTERS[k].upper()}吧"][
            form
        ]
    if style == "number":
        return [f"{k + 1}.", f"option {k + 1}", f"{k + 1}案で"][form]
    return [f"方案{'一二三四五'[k]}", f"第{'一二三四五'[k]}个", f"选方案{'一二三四五'[k]}"][form]


@settings(max_examples=150, deadline=None)
@given(
    options=st.lists(OPTION_WORDS, min_size=2, max_size=5, unique=True),
    style=st.sampled_from(["letter", "number", "cjk"]),
    form=st.integers(0, 2),
    data=st.data(),
)
def test_a_pick_names_exactly_the_option_it_picks(options, style, form, data):
    k = data.draw(st.integers(0, len(options) - 1))
    got = picked(_reply(k, style, form), _offer(options, style))
    assert got.splitlines()[-1] == options[k].strip()
    # what introduces the list says what the choice is for; no other option is in it
    assert got.splitlines()[0] == "Here are the options:"
    assert not any(o.strip() in got.splitlines() for i, o in enumerate(options) if i != k)


@settings(max_examples=100, deadline=None)
@given(options=st.lists(OPTION_WORDS, min_size=2, max_size=4, unique=True))
def test_a_pick_past_the_list_picks_nothing(options):
    offer = _offer(options, "letter")
    assert picked("e. that one", offer) == ""
    assert picked(f"option {len(options) + 1}", _offer(options, "number")) == ""


@settings(max_examples=100, deadline=None)
@given(reply=st.text(max_size=60), asked=st.text(max_size=200))
def test_what_is_picked_is_always_the_agents_words(reply, asked):
    got = picked(reply, asked)
    for line in got.splitlines():
        assert line.strip() in asked


def test_a_yes_picks_the_question_unless_it_is_either_or():
    assert picked("yes please, go ahead", "Shall I delete the old exports in exports/2025?") == (
        "Shall I delete the old exports in exports/2025"
    )
    assert (
        picked("はい、お願いします", "古いログを削除しましょうか？") == "古いログを削除しましょうか"
    )
    assert picked("好的", "要不要把报名费改成20元？") == "要不要把报名费改成20元"
    assert picked("yes", "Should I keep the logs for 14 days or 30 days?") == ""
    assert picked("对", "用微信群还是小程序报名？") == ""
    assert picked("no, leave them", "Shall I delete the old exports?") == ""


def test_a_numbered_heading_is_no_offer():
    steps = "What I did:\n1. Read the config\nThen I ran the tests."
    assert picked("1.", steps) == ""
    jumbled = "(b) first thing\n(a) second thing"
    assert picked("b.", jumbled) == ""


def test_a_yes_before_the_pick_is_read_past():
    offer = "移行案は2つあります。\n1案: hosted runner を使う\n2案: self-hosted runner を立てる\nどちらにしますか？"
    assert picked("うん、1案でいく。Node は固定。", offer).endswith("hosted runner を使う")
    assert picked("ok, option 2", offer).endswith("self-hosted runner を立てる")


def test_it_runs_in_linear_time():
    def family(n: int) -> tuple[str, str]:
        return (" " * n + "b", "(a) x\n" * n + "(b) " + "y " * n)

    fam: Family = lambda n: "\x00".join(family(n))  # noqa: E731
    g = grows_linearly(lambda s: picked(*s.split("\x00", 1)), fam, 300)
    assert g.ok, g.why
