"""The floors run in time linear in what they read, and never raise, on any input.

Every entry point the gate and the curation paths call is run on generated pathological
texts (``linear_inputs``: runs of Markdown and table punctuation at line starts, unclosed
tags, fences and quotes before large bodies, long digit and CJK-numeral runs, Japanese and
Chinese without punctuation, minified JSON) at two sizes: ten times the input may cost at
most ~15 times the time. The text grows on one side at a time -- what a model wrote, or
the evidence it is checked against -- as the gate sees them: a candidate of bounded size
against evidence of any size, or the other way round. Hypothesis then throws mixtures of
the same ingredients at every entry point: none may raise.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from kura_core import floors
from kura_core.floors import Evidence, attribution, negation, quantities, text, voices
from tests.core.linear_inputs import CJK_NUMERALS, JA, ZH, common_families, grows_linearly

NAMES = ("Alice", "Bob Smith", "佐藤")
FIXED = (
    "The user said we keep 14 days of backups; 田中さんが3万円と言った. 用户说要两千五百条. "
    "Don't wipe the cache before 02:30 on 2026-11-28 (v0.18.1, 3.6T, 43.7 tok/s)."
)


def _fresh() -> None:
    """Forget what the floors cached, so a repeated run is timed, not looked up."""
    quantities._scan_cached.cache_clear()


def _surface(candidate: str, evidence: str) -> object:
    ev = Evidence.of([("USER", evidence), ("TOOL", evidence)], [("USER", evidence[:40], evidence)])
    return floors.check_surface(
        {"description": candidate, "body": candidate}, ev, human_names=NAMES, existing_slugs=()
    )


def _curation(candidate: str) -> object:
    # the curation sentences, whose credits are read for what can be swapped in them
    ev = Evidence.of([("USER", FIXED)], [("USER", FIXED[:40], FIXED)])
    return floors.check_surface(
        {"body": FIXED, "belongs_because": "The user said " + candidate, "keep": candidate},
        ev,
        human_names=NAMES,
        existing_slugs=(),
    )


def _tags(candidate: str) -> object:
    return floors.check_tags(
        candidate.split()[:50] + [candidate], Evidence.of([("USER", FIXED)]), human_names=NAMES
    )


#: name -> a call on one growing text
ENTRY: dict[str, Callable[[str], object]] = {
    "scan": lambda s: quantities.scan(s),
    "numbers_in": lambda s: floors.numbers_in(s),
    "unvouched (candidate grows)": lambda s: floors.unvouched(s, [FIXED]),
    "unvouched (evidence grows)": lambda s: floors.unvouched(FIXED, [s]),
    "Vouchers": lambda s: quantities.Vouchers([s]).vouches(quantities.scan(FIXED)[0]),
    "claims": lambda s: attribution.claims(s, NAMES),
    "attribution_claims": lambda s: floors.attribution_claims(s),
    "carries": lambda s: floors.carries(attribution.content_tokens(FIXED), [s]),
    "content_tokens": lambda s: attribution.content_tokens(s),
    "negations_in": lambda s: negation.negations_in(s),
    "cut_reason": lambda s: negation.cut_reason(s, len(s) // 2, len(s) // 2 + 8),
    "cut_reason at the end": lambda s: s and negation.cut_reason(s, max(0, len(s) - 8), len(s)),
    "disguises": lambda s: text.disguises(s),
    "strip_invisible": lambda s: text.strip_invisible(s),
    "fold": lambda s: text.fold(s),
    "fold_numbers": lambda s: text.fold_numbers(s),
    "check_surface (candidate grows)": lambda s: _surface(s, FIXED),
    "check_surface (evidence grows)": lambda s: _surface(FIXED, s),
    "check_tags": _tags,
    "check_surface (curation sentences grow)": _curation,
    "normalize": lambda s: text.normalize(s + "é"),  # past the ASCII shortcut
    "voices": lambda s: voices.voices(s),
    "introduced": lambda s: voices.introduced(s),
    "home_owner": lambda s: voices.home_owner(s),
    "header_units": lambda s: quantities.header_units(s),
    "check_rewrite (line grows)": lambda s: floors.check_rewrite(s, FIXED, human_names=NAMES),
    "check_rewrite (source grows)": lambda s: floors.check_rewrite(FIXED, s, human_names=NAMES),
}

#: one family per kind of trouble (the regex test runs every family on every pattern)
FAMILIES = {
    name: fam
    for name, fam in common_families().items()
    if not name.startswith(("spaced ", "whitespace ' \\t'", "openers '<a>'", "digit units"))
    or name in ("digit units '1,'", "digit units '1万'", "digit units '1.'")
}

N = 100
#: a failure is measured again at this many times N: past the reach of a claim
#: (attribution.CLAIM_REACH), so that a bounded window per claim has filled at both sizes
RETRY = 25


@pytest.mark.slow
@pytest.mark.parametrize("entry", sorted(ENTRY))
def test_floor_runs_in_linear_time(entry: str):
    call = ENTRY[entry]

    def run(s: str) -> object:
        _fresh()
        return call(s)

    slow = []
    for name, family in FAMILIES.items():
        g = grows_linearly(run, family, N, floor=0.02, cap=5.0, retry=(RETRY, RETRY))
        if not g.ok:
            slow.append(f"{name}: {g.why}")
    assert not slow, f"{entry} is not linear:\n  " + "\n  ".join(slow[:12])


# --------------------------------------------------------------------------- never raises

_PIECES = [
    *"-#*>+=|~_ \t\n\r",
    *"0123456789.,:/%$€¥",
    *CJK_NUMERALS,
    "万",
    "年",
    "月",
    "日",
    "時",
    "分之",
    "百分之",
    "割",
    "成",
    "円",
    "个",
    "99999999999999999999999999999999999",
    "1e999",
    "0x1F",
    "v1.2.3",
    "2026-11-28",
    "14:30",
    "3.6T",
    "tok/s",
    "twice",
    "hundred",
    "thousand",
    "a dozen",
    " and a half",
    "not",
    "don't",
    "never",
    "しない",
    "不要",
    "没有",
    "the user said",
    "we decided",
    "Alice says",
    "my wife wants",
    "according to them",
    "ユーザーが",
    "田中さんが",
    "用户说",
    "他们",
    "的话",
    "<system-reminder>",
    "```",
    '"',
    "'",
    "“",
    "「",
    "[x](y)",
    "[[slug]]",
    "\u200b",
    "\u202e",
    "ｆｕｌｌ",
    "１２３",
    "٣",
    JA[:12],
    ZH[:12],
]

texts = st.lists(st.sampled_from(_PIECES), max_size=60).map("".join)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(candidate=texts, evidence=texts)
def test_no_floor_raises_on_any_text(candidate: str, evidence: str):
    for entry in ENTRY.values():
        entry(candidate)
    floors.unvouched(candidate, [evidence])
    _surface(candidate, evidence)
    floors.check_rewrite(candidate, evidence, human_names=NAMES, keep_from=evidence)
    for a in range(0, len(candidate), 7):
        negation.cut_reason(candidate, a, min(len(candidate), a + 5))


def test_a_figure_longer_than_any_quantity_is_a_literal():
    """Thousands of digits before 万 (or anywhere) never reach int(): the figure is kept,
    as written, and a different one is still caught."""
    long = "9" * 5000
    found = quantities.scan(f"預金は{long}万円")
    assert [q.kind for q in found] == [quantities.LITERAL]
    assert floors.unvouched(f"{long}万円", [f"残高{long}万円"]) == []
    assert floors.unvouched(f"{long}8万円", [f"残高{long}万円"])
    for figure in ("1" * 31, "1e100", "一" * 31):
        assert all(q.kind == quantities.LITERAL for q in quantities.scan(figure)), figure
    assert quantities.MAX_FIGURE_DIGITS == 30
    assert [q.canon for q in quantities.scan("1" * 30)] == ["1" * 30]
