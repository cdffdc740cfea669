"""Comparisons and superlatives: a claim that one thing is more than another, or the most.

"Brackley delivers earlier than any other dairy", 信度高于同类研究, 三鷹より安い, 最安 — a
comparison is a claim of its own, and the gate asks a quote that makes it or a figure that
shows it (SPEC §5.4 *Content*). The words are an open class, so they are read by grammar,
not listed one by one: an English comparative before "than" (any "-er than", "more/less X
than"), "the …est" and "the most/least …"; a Chinese "X于" of degree (高于, 快于), "比 … 更/还"
and 更/最 before a quality; a Japanese "より" before a quality and 最/一番 before one. The
irregular and idiomatic forms stay a word list (``comparative``), and so do the words that
look like comparatives and are not (``comparative_not``: rather than, other than, 最近, 最初).
Every pattern is one pass over the text.
"""

from __future__ import annotations

import re

from . import lexicon
from .text import fold

__all__ = ["comparison"]

_NOT = lexicon.words("comparative_not")
#: CJK words that hold a comparison's characters and compare nothing (最近, 最初, 更新).
_NOT_CJK = tuple(w for w in _NOT if not w.isascii())
#: "-er than", "more … than", "than any/ever/usual", "the …est", "the most …".
_EN = re.compile(
    r"\b(?P<w>[a-z]{2,}er)\s+than\b"
    r"|\b(?:more|less|fewer)\s+(?:[a-z]+\s+)?than\b"
    r"|(?<!\bno\s)(?<!\bany\s)\b(?:more|less)\s+(?P<a>[a-z]{4,}(?:able|ible|ive|ful|ous|ent|ant|ic|al|ing))\b"
    r"|\bthan\s+(?:any(?:one|thing)?|ever|usual|all|every|the\s+others?|others)\b"
    r"|\bthe\s+(?P<s>[a-z]{3,}est)\b"
    r"|\bthe\s+(?:most|least)\s+[a-z]{3,}"
)
#: Chinese: a degree before 于 (高于, 快于), 比 … 更/还/要 + a quality, 更/最 before one.
_ZH_QUALITY = (
    "高低多少优強强弱快慢大小好差贵貴便宜早晚长長短新旧舊稳穩准準便利简单簡單难難轻輕重远遠近"
)
_ZH = re.compile(
    rf"[{_ZH_QUALITY}]于|比[^，。；！？,;!?\n]{{1,12}}?(?:更|还|還|要)?[{_ZH_QUALITY}]"
    rf"|(?<![这這那])[更最][{_ZH_QUALITY}]|不如|胜过|勝過|远超|遠超"
)
#: Japanese: より(も) before a quality, 最 before one, 一番.
_JA_QUALITY = (
    r"(?:安|高|速|遅|良|よ[いく]|多|少な|大き|小さ|早|新し|古|長|短|強|弱|重|軽|便利|簡単|楽|"
    r"難し|上手|下手|得|損|広|狭|近|遠|安全|確実)"
)
_JA = re.compile(
    rf"より(?:も)?(?:ずっと|少し|かなり|はるかに|さらに|もっと)?{_JA_QUALITY}"
    r"|最(?:安|速|短|長|大|小|高|低|良|適|多|少|強|弱|上|下)|一番"
)


_KANA = re.compile(r"[\u3040-\u30ff]")


def comparison(text: str) -> str:
    """The first comparison or superlative *text* makes ("" when none)."""
    if not text:
        return ""
    folded = lexicon.pattern("comparative_bound").sub(
        lambda m: " " * len(m.group(0)), fold(text).lower()
    )
    listed = lexicon.pattern("comparative").search(folded)
    if listed:
        return listed.group(0)
    for m in _EN.finditer(folded):
        word = m.group("w") or m.group("s") or ""
        if word and word in _NOT:
            continue
        if m.group(0).split()[0] in _NOT:
            continue
        return m.group(0)
    for pattern in (_ZH, _JA):
        for m in pattern.finditer(folded):
            if any(w in folded[max(0, m.start() - 2) : m.end() + 2] for w in _NOT_CJK):
                continue
            if pattern is _ZH and m.group(0).startswith("比") and _KANA.search(m.group(0)):
                continue  # 患者比の高い夜: in Japanese 比 is a ratio, not "than"
            return m.group(0)
    return ""
