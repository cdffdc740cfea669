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

from .script import CJK as _CJK

_CJK_RE = re.compile(f"[{_CJK}]")
_WORD_RE = re.compile(rf"[^\W{_CJK}]+", re.UNICODE)
_SYMBOL_RE = re.compile(r"[^\s\w]", re.UNICODE)


def _ascii_classes() -> bytes:
    """A bytes.translate table: each ASCII byte's class under the rule, w (word), s (symbol)
    or space. Bytes above ASCII never reach it (the table is used on ASCII text only)."""
    table = bytearray(b" " * 256)
    for code in range(128):
        ch = chr(code)
        table[code] = ord(
            "w" if _WORD_RE.fullmatch(ch) else "s" if _SYMBOL_RE.fullmatch(ch) else " "
        )
    return bytes(table)


_ASCII_CLASSES = _ascii_classes()


def estimate_tokens(text: str) -> int:
    """Estimate how many tokens a typical LLM tokeniser spends on *text*."""
    return from_parts(token_parts(text))


def token_parts(text: str) -> tuple[int, int]:
    """(CJK characters, every other token) of *text*: the estimate before its one rounding.
    Parts add up over pieces of text that whitespace separates, so the estimate of a text
    put together from pieces is ``from_parts`` of the summed parts of its pieces."""
    if not text:
        return 0, 0
    if text.isascii():
        # The same rule without regular expressions (several times faster): classify each
        # byte, then count runs and symbols.
        classes = text.encode("ascii").translate(_ASCII_CLASSES)
        runs = classes.replace(b"s", b" ").split()
        return 0, len(runs) + sum((len(r) - 1) // 6 for r in runs if len(r) > 6) + classes.count(
            b"s"
        )
    rest, cjk = _CJK_RE.subn(" ", text)
    words = sum((len(w) + 5) // 6 for w in _WORD_RE.findall(rest))
    return cjk, words + len(_SYMBOL_RE.findall(rest))


def from_parts(parts: tuple[int, int]) -> int:
    """The estimate from :func:`token_parts` (CJK characters count 1.2 each, rounded up)."""
    cjk, other = parts
    return (cjk * 6 + 4) // 5 + other
