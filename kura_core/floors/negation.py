"""Negation: the words that flip a clause, and quotes that cut them off.

``negations_in`` lists the negations of a text (a trigger line must keep its
description's). ``cut_reason`` says why a quote, located inside its segment, does not
stand for what the segment says: it starts or ends inside a word (``unsafe`` quoted as
``safe``; ``1200`` as ``200``), or it leaves out the negation that governs it ("I don't
want X deleted" quoted as "want X deleted"; 「削除しないで」 as 「削除し」; 「不要删除」
as 「删除」).
"""

from __future__ import annotations

import re

from . import lexicon
from .text import fold

_EN_NEGATIONS = re.compile(
    r"\b(?:not|no|never|none|nothing|nobody|nowhere|neither|nor|without|cannot|"
    r"[a-z]+n't|[a-z]+n’t)\b",
    re.IGNORECASE,
)
#: Dialect and casual forms of ない (値上げはせん, 行かへん, わからん): read as ない, so a
#: text that says the same in the standard form keeps its negation.
_DIALECT_NEGATIONS = lexicon.words("negation_dialect", ("ja",))
_CJK_NEGATIONS = sorted(
    lexicon.words("negation_cjk", ("ja", "zh")) | _DIALECT_NEGATIONS, key=lambda w: (-len(w), w)
)
_CJK_NEG = re.compile("|".join(re.escape(w) for w in _CJK_NEGATIONS))


_NOT_NEGATION = lexicon.pattern("negation_not")


def negations_in(text: str) -> list[str]:
    """Negation words of *text* in order of appearance (English words lower-cased;
    Japanese and Chinese by longest match: ない, ません, 禁止, 不, 没有, 别, 勿 …).
    Look-alike letters are folded first, so a disguised "nоt" is still "not"."""
    folded = fold(text)
    hits: list[tuple[int, str]] = []
    for match in _EN_NEGATIONS.finditer(folded):
        hits.append((match.start(), match.group(0).lower().replace("’", "'")))
    # words that hold a negation's character without being one (非常, 未満 "under"): blanked
    plain = _NOT_NEGATION.sub(lambda m: " " * len(m.group(0)), folded)
    for match in _CJK_NEG.finditer(plain):
        word = match.group(0)
        hits.append((match.start(), "ない" if word in _DIALECT_NEGATIONS else word))
    hits.sort()
    return [word for _pos, word in hits]


# =========================================================================== quote boundaries

_WORDCHAR = re.compile(r"[A-Za-z0-9\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]")
_EN_NEG_BEFORE = re.compile(
    r"^(?:not|no|never|nor|neither|without|cannot|hardly|barely|avoid|avoiding|stop|stopped|quit|"
    r"refuse|refused|forbid|forbids|forbidden|prohibit|prohibited|don't|doesn't|didn't|won't|"
    r"wouldn't|can't|couldn't|shouldn't|mustn't|isn't|aren't|wasn't|weren't|hasn't|haven't|"
    r"hadn't|ain't|needn't|nothing|nobody|none)$",
    re.IGNORECASE,
)
_EN_NEG_PHRASES = re.compile(
    r"\b(?:no\s+longer|no\s+more|rather\s+than|instead\s+of|other\s+than|anything\s+but|"
    r"far\s+from|not\s+to|never\s+to|in\s+place\s+of)\s*$",
    re.IGNORECASE,
)
# Double negatives that mean "do": a quote after them keeps its sense.
_EN_NOT_NEGATING = re.compile(
    r"\b(?:don't|do\s+not|never|not)\s+(?:forget|hesitate|fail)\s+(?:to\s+)?$|\bnot\s+only\s*$|"
    r"\bno\s+doubt\s*$|\bnot\s+just\s*$",
    re.IGNORECASE,
)
_CLAUSE_STOP = re.compile(
    r"[.!?;:,。！？；：、，\n()\[\]\"]|\bbut\b|\bhowever\b|\band\b", re.IGNORECASE
)
_CJK_NEG_BEFORE = re.compile(
    r"(?:不要|不能|不用|不必|不该|不該|不准|不许|不許|没有|沒有|别|別|勿|莫|未|无|無|非|不|没|沒|甭|休)$"
)
_JA_NEG_AFTER = re.compile(
    r"^(?:ない|なく|なかっ|ません|ませ|ず(?!っと)|ぬ|ないで|なし|無し|禁止|不要|"
    r"ダメ|だめ|駄目|いけな|べから|必要はな|必要な[いし]|ことはな|ことは無|わけではな|訳ではな|"
    r"とは(?:言|限|思)(?:って)?(?:い)?な|のは(?:やめ|止め|禁止|不要|ダメ|だめ|よくな)|のを(?:やめ|止め)|"
    r"はずがな|気はな|つもりはな|ものか|もんか)"
)
_JA_PROHIBITIVE = re.compile(r"^な(?:$|[。、！!？?よ\s」』）)])")
_ZH_NEG_AFTER = re.compile(
    r"^(?:不行|不可以|不可|不对|不對|不好|不要|不能|是不对|是错|是錯|禁止|免谈|不允许|不允許|是不行)"
)
_ASCII_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*+")
_ASCII_WORD_BEFORE = re.compile(r"([A-Za-z'’]+)\W*$")


def _is_word(ch: str) -> bool:
    return bool(_WORDCHAR.match(ch))


def cut_reason(seg: str, start: int, end: int) -> str:
    """Why the quote found at ``seg[start:end]`` (both in the gate's normal form) does not
    stand for what the segment says, or "" when it does."""
    return (
        _cut_start(seg, start)
        or _cut_end(seg, end)
        or _negation_before(seg, start)
        or _negation_after(seg, end)
    )


def _cut_start(seg: str, start: int) -> str:
    """The quote starts inside a word or a number."""
    if start > 1 and seg[start - 2] == "\\" and seg[start - 1] in "ntr":
        return ""  # after an escaped line break (\n in a JSON dump): a boundary
    if start <= 0:
        return ""
    prev = seg[start - 1]
    first = seg[start]
    if _is_word(prev) and _is_word(first):
        return "starts inside a word"
    if prev in "'’" and start > 1 and _is_word(seg[start - 2]) and _is_word(first):
        return "starts inside a word"
    if prev in ".," and start > 1 and seg[start - 2].isdigit() and first.isdigit():
        return "starts inside a number"
    return ""


def _cut_end(seg: str, end: int) -> str:
    """The quote ends inside a word or a number."""
    if end + 1 < len(seg) and seg[end] == "\\" and seg[end + 1] in "ntr":
        return ""
    if end >= len(seg):
        return ""
    last = seg[end - 1]
    nxt = seg[end]
    if _is_word(last) and _is_word(nxt):
        return "ends inside a word"
    if nxt in ".," and end + 1 < len(seg) and last.isdigit() and seg[end + 1].isdigit():
        return "ends inside a number"
    return ""


def _retracts_before(clause: str) -> bool:
    """Whether *clause* (what stands before a quote in its clause) ends with a retraction
    ("no wait", "actually no", "no actually", いや、やっぱり, 不对，): its "no" takes back
    what came before, and the quote after it is what the person says instead."""
    tail = clause.lower().rstrip(" ,、，.:：-—")
    ends = [m.end() for m in lexicon.pattern("retraction").finditer(tail, max(0, len(tail) - 24))]
    return bool(ends) and ends[-1] == len(tail)


#: A mark right after a "no" that makes it a word of its own ("wait no — actually the
#: 17th", "no, the blue one"): it answers or takes back, it negates nothing after it.
_INTERJECTED = re.compile(r"[ \t]*[,—–!;:]|[ \t]+-[ \t]")


def _negation_before(seg: str, start: int) -> str:
    """A negation in the quote's clause, just before it, that the quote leaves out."""
    before = seg[max(0, start - 60) : start]
    clause = _CLAUSE_STOP.split(before)[-1] if before else ""
    if not clause.strip():
        return ""
    if _retracts_before(clause):
        return ""  # "… 1200 pounds no wait its 1500": the quote is the correction itself
    if not _EN_NOT_NEGATING.search(clause):
        words = list(_ASCII_WORD.finditer(clause))[-3:]
        for m in words:
            w = m.group(0)
            if _EN_NEG_BEFORE.match(w.replace("’", "'")) and not _INTERJECTED.match(
                clause, m.end()
            ):
                return f"leaves out the negation {w!r} before it"
        phrase = _EN_NEG_PHRASES.search(clause)
        if phrase:
            return f"leaves out the negation {phrase.group(0).strip()!r} before it"
    tail = clause.rstrip()[-3:]
    neg = _CJK_NEG_BEFORE.search(tail)
    if neg and len(clause) == len(clause.rstrip()):
        return f"leaves out the negation {neg.group(0)!r} before it"
    return ""


#: What ends a sentence in Japanese and Chinese, after the normal form (NFKC turns ！？ into !?).
_SENTENCE_END = frozenset("。！？!?")


def _negation_after(seg: str, end: int) -> str:
    """A Japanese or Chinese negation right after the quote that it leaves out (one past
    the sentence the quote closes with its own 。, ！ or ？ starts a sentence of its own)."""
    after = seg[end : end + 12]
    if not after or seg[end - 1] in _SENTENCE_END:
        return ""
    ja = _JA_NEG_AFTER.match(after)
    if ja:
        return f"leaves out the negation {ja.group(0)!r} after it"
    if _JA_PROHIBITIVE.match(after) and seg[end - 1] in "うくすつぬふむるぐぶ":
        return "leaves out the negation 'な' after it"
    zh = _ZH_NEG_AFTER.match(after)
    if zh:
        return f"leaves out the negation {zh.group(0)!r} after it"
    fixed = _CORRECTED_AFTER.match(after)
    if fixed:
        return f"leaves out the correction {fixed.group(1)!r} after it"
    return ""


#: A correction right after a figure or a phrase, past a comma: 10度、じゃなくて11度, 八点，
#: 不对，七点半, 20，说错了，30 -- what the quote says is what the person took back.
_CORRECTED_AFTER = re.compile(
    r"^[ \t]*[、，,][ \t]*(じゃなくて|ではなくて|じゃなく|ではなく|不对|不對|不是|说错了|說錯了|错了|錯了)"
)
