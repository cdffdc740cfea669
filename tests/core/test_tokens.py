"""The one token estimator: cheap, deterministic, within a stated margin of a real tokeniser.

Reference counts below are cl100k_base counts of the same strings; docs/DESIGN.md gives the
measured spread over whole memories in English, Japanese and Chinese.
"""

import pytest

from kura_core.tokens import estimate_tokens

REFERENCE = [
    ("The archive lives on the slow disk; the fast one stays scratch only.", 15),
    (
        "careful with the cp932 boundary — crossing it silently produces zero rows and no error at all.",
        20,
    ),
    ("アーカイブは遅いディスクに置く。速いほうは作業用だけ。", 30),
    ("档案放在慢盘上，快盘只做临时空间。", 25),
    (
        "- [Archive on the slow disk](archive-on-slow-disk.md) — the archive lives on the slow disk",
        24,
    ),
]


@pytest.mark.parametrize("text,real", REFERENCE)
def test_within_a_third_of_a_real_tokeniser(text, real):
    est = estimate_tokens(text)
    assert 0.67 * real <= est <= 1.33 * real, (est, real)


def test_basic_properties():
    assert estimate_tokens("") == 0
    assert estimate_tokens("word") == 1
    assert estimate_tokens("a b c") == 3
    assert estimate_tokens("internationalisation") == 4  # long words cost more
    assert estimate_tokens("漢字") == 3  # 1.2 per CJK character, rounded up
    assert estimate_tokens("x" * 600) == 100  # an unbroken run costs one token per six characters
    longer = "the slow disk " * 50
    assert estimate_tokens(longer) > estimate_tokens("the slow disk") * 40
