"""The linear rewrites read exactly what the patterns they replaced read.

Each super-linear pattern that was rewritten (possessive repeats, a guard on where a match
may start, a hand finder instead of a lazy scan) is checked here against the old pattern,
kept as the reference, on generated texts made of the pieces that matter to it: the old one
is fast on short texts, and every difference would be a change of behaviour.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings, strategies as st

from kura_core import llm, weave
from kura_core.distill.journals import codex, paths, provenance, shell
from kura_core.floors import attribution, quantities
from kura_core.floors.quantities import _CJK_ALL
from kura_core.script import CJK


def _texts(*pieces: str, size: int = 14) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(pieces), max_size=size).map("".join)


def _spans(p: re.Pattern[str]) -> Callable[[str], list]:
    return lambda s: [(m.span(), m.groups()) for m in p.finditer(s)]


def _old_list_markers(text: str) -> str:
    old = re.compile(
        r"^([ \t]*(?:[#>*+\-]+[ \t]*)*)(\(\d{1,3}\)|\d{1,3}[.)])(?=[ \t])|^([ \t]*)(\d{1,3})、",
        re.MULTILINE,
    )

    def repl(m: re.Match[str]) -> str:
        if m.group(2) is not None:
            return m.group(1) + " " * len(m.group(2))
        return m.group(3) + " " * (len(m.group(4)) + 1)

    return old.sub(repl, text)


def _kept_runs(p: re.Pattern[str]) -> Callable[[str], list]:
    """The numeral runs the scanner keeps (it skips one right after a digit or a dot)."""

    def runs(t: str) -> list:
        return [
            m.span()
            for m in p.finditer(t)
            if not (m.start() and (t[m.start() - 1].isdigit() or t[m.start() - 1] == "."))
        ]

    return runs


_OLD_CLAUSE_BREAK = re.compile(
    r";|:|\s[—–-]\s|,\s+(?:so|because|since|while|which|but|whereas|although|though|and\s+then)\b|"
    r"\s+(?:because|since|so\s+that|although|though)\s+|[；：]"
)
_OLD_ANSWER = re.compile(
    r'"(?P<q>.+?)"="(?P<a>.*?)"(?=\s*(?:,\s*"|\.\s*You can now|\.?\s*$))', re.DOTALL
)
_OLD_DATA_TXT = re.compile(
    r"(?:requirements|constraints|dev-requirements)[\w.-]*\.txt$|"
    r"cmakelists\.txt$|robots\.txt$|llms\.txt$",
    re.IGNORECASE,
)
_OLD_SHELL = re.compile(r"<user_shell_command>(.*?)</user_shell_command>", re.DOTALL)

#: name -> (old reading, new reading, texts)
CASES: dict[str, tuple[Callable[[str], object], Callable[[str], object], st.SearchStrategy]] = {
    "list markers": (
        _old_list_markers,
        quantities._blank_list_markers,
        _texts(" ", "\t", "#", ">", "*", "+", "-", "1", "12", ".", ")", "(", "、", "\n", "x"),
    ),
    "numeral runs": (
        # a leading figure joins a run only before a magnitude (12万, 3千; 7000一个月 is two)
        _kept_runs(
            re.compile(
                rf"(?:\d+(?:\.\d+)?(?=[十拾百千万萬億亿兆廿卅]))?"
                rf"[{_CJK_ALL}](?:[{_CJK_ALL}]|\d+(?:\.\d+)?)*"
            )
        ),
        _kept_runs(quantities._CJK_RUN),
        _texts("1", "2", ".", "一", "二", "万", "千", "十", "x", " ", "年"),
    ),
    "fractions": (
        _spans(re.compile(rf"([\d]+|[{_CJK_ALL}]+)分之([\d]+|[{_CJK_ALL}]+)")),
        _spans(quantities._FRACTION_ZH),
        _texts("1", "2", "一", "二", "万", "分之", "分", "之", "x"),
    ),
    "durations": (
        lambda s: re.findall(r"(\d+(?:\.\d+)?)(ms|d|h|m|s)", s),
        lambda s: quantities._DURATION_PART.findall(s),
        st.lists(
            st.tuples(
                st.sampled_from(["1", "30", "1.5", "007", "12.25"]),
                st.sampled_from(["d", "h", "m", "s", "ms"]),
            ),
            min_size=1,
            max_size=6,
        ).map(lambda parts: "".join(n + u for n, u in parts)),
    ),
    "sentences": (
        # a dot inside a word (calendar.yaml, 1.012) ends no sentence
        _spans(re.compile(r"(?:[^.!?。！？\n]|\.(?=\w))+(?:[.!?。！？]+|$)|\n")),
        _spans(attribution._SENTENCE),
        _texts("a", "b ", ".", "!", "。", "\n", " "),
    ),
    "clause breaks": (
        _OLD_CLAUSE_BREAK.split,
        attribution._CLAUSE_BREAK.split,
        _texts(" ", "  ", "-", "—", ",", ";", ":", "because", "so", "that", "and then", "x"),
    ),
    "answers": (
        lambda s: [(m["q"], m["a"]) for m in _OLD_ANSWER.finditer(s)],
        provenance._answer_pairs,
        _texts('"', '"="', ", ", ".", " ", "a", "\n", ". You can now", ",", '"='),
    ),
    "think blocks": (
        lambda s: re.sub(r"<think>.*?</think>", "", s, flags=re.DOTALL | re.IGNORECASE),
        llm._strip_think,
        _texts("<think>", "</think>", "<THINK>", "</Think>", "x", "\n", "<"),
    ),
    "shell blocks": (
        lambda s: [(m.span(), m[1]) for m in _OLD_SHELL.finditer(s)],
        lambda s: [((a, b), body) for a, b, body in codex._shell_blocks(s)],
        _texts("<user_shell_command>", "</user_shell_command>", "x", "\n", "<"),
    ),
    "data .txt names": (
        lambda s: bool(_OLD_DATA_TXT.search(s)),
        lambda s: bool(paths._DATA_TXT.search(s)),
        _texts("requirements", "constraints", "dev-", ".txt", ".TXT", "txt", "-", ".", " ", "a"),
    ),
    "trim atoms": (
        re.compile(rf"\s*(?:[{CJK}]|[^\s{CJK}]+)").findall,
        weave._ATOM.findall,
        _texts(" ", "\t", "\n", "a", "一", "b"),
    ),
    "printf specs": (
        re.compile(r"%[-+ 0#']*(?:\d+|\*)?(?:\.(?:\d+|\*))?[a-zA-Z%]").split,
        shell._PRINTF_SPEC.split,
        _texts("%", "-", "+", " ", "0", "#", "'", "1", "*", ".", "d", "x"),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_rewrite_reads_what_the_old_pattern_read(case: str):
    old, new, texts = CASES[case]

    @settings(max_examples=200, deadline=None, database=None)
    @given(texts)
    def same(s: str) -> None:
        assert new(s) == old(s), s

    same()
