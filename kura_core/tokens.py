"""The one token estimator used everywhere.

Local models use many tokenisers; kura needs a cheap, deterministic estimate that is
right within a stated margin, not an exact count. The rule:

* CJK ideographs, kana and hangul syllables count 1.2 tokens each (rounded up overall);
* every other run of letters/digits counts ceil(len / 6) tokens, so most words are one;
* every other visible symbol (punctuation, emoji, markdown marks) counts one token.

docs/DESIGN.md states the measured accuracy for English, Japanese and Chinese.
"""

from __future__ import annotations

import re

_CJK = (
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
    "\uac00-\ud7af"  # hangul syllables
    "\u31f0-\u31ff\uff66-\uff9f"  # katakana extensions, half-width
)
_CJK_RE = re.compile(f"[{_CJK}]")
_WORD_RE = re.compile(rf"[^\W{_CJK}]+", re.UNICODE)
_SYMBOL_RE = re.compile(r"[^\s\w]", re.UNICODE)


def _ascii_classes() -> dict[int, str]:
    """Each ASCII character's class under the rule: w (word), s (symbol) or space."""
    table = {}
    for code in range(128):
        ch = chr(code)
        table[code] = "w" if _WORD_RE.fullmatch(ch) else "s" if _SYMBOL_RE.fullmatch(ch) else " "
    return str.maketrans(table)


_ASCII_CLASSES = _ascii_classes()


def estimate_tokens(text: str) -> int:
    """Estimate how many tokens a typical LLM tokeniser spends on *text*."""
    if not text:
        return 0
    if text.isascii():
        # The same rule without regular expressions (several times faster; recall counts
        # every context it returns): classify each character, then count runs and symbols.
        classes = text.translate(_ASCII_CLASSES)
        runs = classes.replace("s", " ").split()
        return len(runs) + sum((len(r) - 1) // 6 for r in runs if len(r) > 6) + classes.count("s")
    rest, cjk = _CJK_RE.subn(" ", text)
    words = sum((len(w) + 5) // 6 for w in _WORD_RE.findall(rest))
    return (cjk * 6 + 4) // 5 + words + len(_SYMBOL_RE.findall(rest))
