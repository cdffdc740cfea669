"""Clause scope: a quote may not leave the clause that governs it.

A quote is a span of one segment. What it leaves out of its own clause -- the words between
the clause's start and the quote, and between the quote and the clause's end -- must be
*known to be harmless* (fillers, discourse markers, politeness, sentence-final particles,
figures and identifiers) for the quote to stand for what the segment says. Anything else is
refused: unknown means no. This is default-deny on purpose: a list of negations always
misses one spelling ("dont", 不再, 必要はない), while a list of harmless fillers only ever
refuses too much, and a refused quote can always be written whole.

Across the clause's edges -- commas, colons, dashes, brackets, coordinators -- the governing
operators of the sentence still reach the quote, and those are named:

* a **condition** opening an earlier clause of the sentence ("if the disk fills, …",
  もし…なら、, 如果…，) or a later one ("…, unless …", "…, but only when …");
* a **negation** that ends an earlier clause and is waiting for its verb
  ("do not, under any circumstances, …", "不要，…");
* a **report** or hearsay ("Mika says: …", "according to Mika, …", 田中さんによると、, 听说，)
  -- the quote then vouches only when the text that uses it names the same source;
* a **hedge** ("maybe, …", "…, I think", 也许，, …と思う) and a **question** (a sentence
  that ends in a question mark or a question particle: 吗, 呢, か).

:func:`judge` returns a :class:`Scope` with ``rule`` one of :data:`RULES` (empty when the
quote stands) and ``source`` naming the reporter a quote may be used with.

Everything here runs in time linear in the window it looks at: a single tokenising regex
without nested quantifiers, and scans over the token list.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from ..script import CJK, has_cjk as is_cjk_text, is_cjk
from . import lexicon
from .voices import speaker_of

NEGATION, CONDITION, REPORT, QUESTION, HEDGE, UNKNOWN = (
    "negation",
    "condition",
    "report",
    "question",
    "hedge",
    "scope",
)
RETRACTED, TENTATIVE, EXCEPTION, EXAMPLE = "retracted", "tentative", "exception", "example"
#: The rules a quote's scope is refused by, in the order they are named.
RULES = (
    NEGATION,
    CONDITION,
    EXCEPTION,
    EXAMPLE,
    REPORT,
    QUESTION,
    HEDGE,
    TENTATIVE,
    RETRACTED,
    UNKNOWN,
)

#: How far around a quote its sentence is looked for. A clause longer than this is not
#: known to be harmless.
WINDOW = 600


@dataclass(frozen=True)
class Scope:
    """Why a quote does not stand for its clause (``rule`` empty when it does).

    ``source`` is set for a report: the quote stands when the text using it names that
    source (a reported claim may be used as a report, never as a bare fact)."""

    rule: str = ""
    why: str = ""
    source: str = ""

    def __bool__(self) -> bool:
        return bool(self.rule)


# =========================================================================== lexicons

#: English words a quote may leave out of its clause: fillers, discourse markers,
#: politeness, greetings. Nothing that can turn a claim around belongs here.
_FILLER_EN = lexicon.words("scope_filler", ("en",))
#: Requests written as questions: "can you …?" asks for something, it does not wonder.
_REQUEST_EN = lexicon.words("scope_request", ("en",))

#: Japanese and Chinese fillers, discourse markers, politeness and sentence-final particles
#: a quote may leave out (matched as a whole run of words).
_FILLER_CJK = lexicon.words("scope_filler", ("ja", "zh"))
_FILLER_CJK_MAX = max(len(w) for w in _FILLER_CJK)

_NEG_EN = lexicon.words("scope_neg", ("en",))
_COND_EN = lexicon.words("scope_cond", ("en",))
_REPORT_EN = lexicon.words("scope_report", ("en",))
_HEDGE_EN = lexicon.words("scope_hedge", ("en",))
_QUESTION_EN = lexicon.words("scope_question", ("en",))

#: Words that open a new clause (they are edges, never part of the left-out material).
_EDGE_EN = lexicon.words("scope_edge", ("en",))
_COORD_EN = lexicon.words("scope_coord", ("en",))

_NEG_CJK = re.compile(
    r"ない|なく|なかっ|ません|ず|ぬ|無|不|非|未|禁止|だめ|ダメ|駄目|いけな|やめ|止め|"
    r"没|沒|别|別|无|勿|莫|甭|休"
)
_COND_CJK = re.compile(
    r"もし|なら|たら|れば|場合|とき|時は|限り|次第|如果|要是|除非|假如|假设|假設|万一|萬一|只要|"
    r"只有|倘若|一旦|的话|的話|否则|否則|若"
)
_REPORT_CJK = re.compile(
    r"によると|によれば|の話では|って|と言|といっ|とい|そうだ|そうです|らしい|とのこと|と聞|"
    r"听说|聽說|据说|據說|据|據|说|說|表示|声称|聲稱|告诉|告訴|称"
)
_HEDGE_CJK = re.compile(
    r"かもしれ|かも|たぶん|多分|おそらく|恐らく|と思|だろう|でしょう|はず|みたい|ようだ|"
    r"也许|也許|可能|或许|或許|大概|估计|估計|好像|似乎|觉得|覺得|认为|認為|我想|应该|應該"
)
#: か asks only where it ends what it says (…ますか, …かな, …か、): inside a word (助かる,
#: 分かった, 何か, しかし) it is none.
_QUESTION_CJK = re.compile(
    r"吗|嗎|呢|么|麼|是否|是不是|能不能|要不要|对吧|對吧|か(?:な|しら)?(?=$|[、。？?！!\s])|の$"
)
_EN_CLASSES = (
    (CONDITION, _COND_EN),
    (REPORT, _REPORT_EN),
    (HEDGE, _HEDGE_EN),
    (QUESTION, _QUESTION_EN),
    (NEGATION, _NEG_EN),
)
_CJK_CLASSES = (
    (HEDGE, _HEDGE_CJK),
    (REPORT, _REPORT_CJK),
    (QUESTION, _QUESTION_CJK),
    (NEGATION, _NEG_CJK),
    (CONDITION, _COND_CJK),
)

#: A clause that is nothing but a hedge ("maybe,", "I think,", 也许，, たぶん、).
_HEDGE_CLAUSE_EN = frozenset(
    {
        ("maybe",),
        ("perhaps",),
        ("probably",),
        ("possibly",),
        ("presumably",),
        ("apparently",),
        ("i", "think"),
        ("i", "guess"),
        ("i", "believe"),
        ("i", "suppose"),
        ("i'm", "not", "sure"),
        ("not", "sure"),
        ("or", "not"),
        ("or", "so"),
        ("right",),
        ("i", "think", "so"),
    }
)
_HEDGE_CLAUSE_CJK = re.compile(
    r"^(?:也许|也許|可能|或许|或許|大概|估计|估計|好像|似乎|我觉得|我覺得|我认为|我認為|我想|"
    r"たぶん|多分|おそらく|恐らく|もしかしたら|もしかして|かもしれない|かも|と思う|と思います|"
    r"だろう|でしょう|可能吧|吧|对吧|對吧|是吧)$"
)
#: An earlier clause that ends in its reporter: "Mika says:", "he said,", 老王说：.
_REPORT_END_EN = lexicon.words("scope_report_end", ("en",))
_REPORT_END_CJK = re.compile(
    r"(?:说|說|表示|称|讲|講|によると|によれば|の話では|曰)$|^(?:听说|聽說|据说|據說)$"
)
_CJK_RUN = f"[{CJK}]+"
_TOKEN = re.compile(
    _CJK_RUN + r"|[A-Za-z0-9_\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff'./=@%+#~&^$€£¥°-]+|\S"
)
_WORD = re.compile(r"[A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]+(?:['-][A-Za-z]+)*")
_STRONG = frozenset("。!?;")
#: Where a clause may end: commas, colons, brackets, dashes, bars, and the lenticular and
#: tortoise-shell brackets of a CJK heading or label (【通知】, 〔仮〕) -- not 「」, which quote.
_EDGE_PUNCT = frozenset(',:()[]"—–、|{}<>【】〔〕')
_DASHES = frozenset("—–")
#: What leads a clause as a dash does: the dashes, and a hyphen set off as one ("now -- the")
_DASH_LEADS = _DASHES | {"-"}
#: The commas that close a clause when a quote ends with one
_CLAUSE_MARKS = frozenset(",，、;；")
_TRAIL = ".,:;!?'"


# =========================================================================== tokens


@dataclass(frozen=True)
class _Tok:
    start: int
    end: int
    kind: str  # word | ident | cjk | punct | stop (a sentence end)
    text: str  # lower-cased for words


def _emoji(ch: str) -> bool:
    """Whether *ch* is a pictograph: a chat message ends a sentence with one (助かりました🙏
    ちなみに…) as it would with a full stop."""
    o = ord(ch)
    return 0x1F300 <= o <= 0x1FAFF or 0x2600 <= o <= 0x27BF


def _tokens(text: str, base: int = 0) -> list[_Tok]:
    out: list[_Tok] = []
    for m in _TOKEN.finditer(text):
        s, e = m.span()
        chunk = m.group(0)
        first = chunk[0]
        if is_cjk(first):
            if out and out[-1].kind == "cjk" and out[-1].end < base + s:
                # 然后除夕那天 二月五号 按节假日价走: dictated with spaces for commas, a space
                # between two runs of Chinese or Japanese parts their clauses
                out.append(_Tok(out[-1].end, out[-1].end + 1, "punct", "、"))
            out.append(_Tok(base + s, base + e, "cjk", chunk))
            continue
        if len(chunk) == 1 and not chunk.isalnum():
            # a full stop after a bracket or a quotation mark ends its sentence too
            # ("… (from $2.65). Your usage …")
            ends = chunk == "." and (e == len(text) or text[e].isspace())
            kind = "stop" if chunk in _STRONG or ends or _emoji(chunk) else "punct"
            out.append(_Tok(base + s, base + e, kind, chunk))
            continue
        body = chunk.rstrip(_TRAIL)
        if not body:
            body = chunk[:1]
        cut = s + len(body)
        word = _WORD.fullmatch(body)
        out.append(_Tok(base + s, base + cut, "word" if word else "ident", body.lower()))
        for k in range(cut, e):
            ch = text[k]
            ends = ch in "!?;" or (ch == "." and k == e - 1)
            out.append(_Tok(base + k, base + k + 1, "stop" if ends else "punct", ch))
    return out


def _start(tok: _Tok) -> int:
    return tok.start


def _is_edge(tok: _Tok) -> bool:
    if tok.kind == "punct":
        return tok.text in _EDGE_PUNCT or tok.text == "-"
    return (tok.kind == "word" and tok.text in _EDGE_EN) or _dash(tok)


def _dash(tok: _Tok) -> bool:
    """A dash, or hyphens typed for one ("now -- the old key")."""
    return tok.text in _DASHES or (tok.kind != "word" and tok.text.strip("-") == "")


# =========================================================================== harmless


def _cjk_fillers(run: str) -> bool:
    """Whether a run of Japanese or Chinese is nothing but known fillers (a word break
    over the allowlist; at most one table entry per position). A prolonged sound mark
    after a filler only lengthens it (ねー, よー, はいー)."""
    ok = [False] * (len(run) + 1)
    ok[0] = True
    for i in range(len(run)):
        if not ok[i]:
            continue
        if i and run[i] == "ー":
            ok[i + 1] = True
        for n in range(1, min(_FILLER_CJK_MAX, len(run) - i) + 1):
            if run[i : i + n] in _FILLER_CJK:
                ok[i + n] = True
    return ok[len(run)]


def _harmless(toks: list[_Tok]) -> bool:
    words = [t.text for t in toks if t.kind == "word"]
    for t in toks:
        if t.kind == "cjk" and not _cjk_fillers(t.text):
            return False
    i = 0
    while i < len(words):
        for n in (3, 2):
            if tuple(words[i : i + n]) in _FILLER_PHRASES_EN:
                i += n
                break
        else:
            if words[i] not in _FILLER_EN:
                return False
            i += 1
    return True


#: Phrases of words that are not fillers alone ("can you" asks; "as well" adds).
_FILLER_PHRASES_EN = frozenset(
    {
        ("can", "you"),
        ("could", "you"),
        ("would", "you"),
        ("will", "you"),
        ("thank", "you"),
        ("as", "well"),
        ("from", "now", "on"),
        ("right", "now"),
        ("by", "the", "way"),
    }
)


def _classify(toks: list[_Tok]) -> str:
    """The first operator among left-out material as ``rule:word``, or ``scope:``."""
    for t in toks:
        if t.kind == "word":
            w = t.text.replace("'", "").replace("’", "")
            for rule, words in _EN_CLASSES:
                if w in words or (rule == NEGATION and w.endswith("nt") and w[:-2] in _AUX):
                    return f"{rule}:{t.text}"
            if t.text.startswith(("non-", "un-")):
                return f"{NEGATION}:{t.text}"
        elif t.kind == "cjk" and t.text in ("な", "なよ", "なね"):
            return f"{NEGATION}:{t.text}"  # the Japanese prohibitive: 消すな
        elif t.kind == "cjk":
            best: tuple[int, int, str, str] | None = None
            text = _not_negations(t.text)
            for rule, pat in _CJK_CLASSES:
                m = pat.search(text if rule == NEGATION else t.text)
                if m and rule == QUESTION and m.group(0) == "か" and ka_is_word(t.text[: m.end()]):
                    continue  # いつか, 静か: a word, not a question
                if m and (best is None or (m.start(), -len(m.group(0))) < best[:2]):
                    best = (m.start(), -len(m.group(0)), rule, m.group(0))
            if best is not None:
                return f"{best[2]}:{best[3]}"
    return UNKNOWN + ":"


_AUX = lexicon.words("scope_aux")


# =========================================================================== sentences


def _sentence(toks: list[_Tok], start: int, end: int) -> tuple[int, int]:
    """Token index range [a, b) of the sentence(s) around the quote."""
    a = 0
    b = len(toks)
    for i, t in enumerate(toks):
        if t.kind == "stop" and t.end <= start:
            a = i + 1
        elif t.kind == "stop" and t.end >= end:
            b = i + 1
            break
    return a, b


def _question(seg: str, toks: list[_Tok], a: int, b: int, end: int) -> str:
    """The question a sentence asks, when the quote leaves its mark out: a question mark
    after it, or a question particle between it and the sentence's end."""
    if b <= a:
        return ""
    last = toks[b - 1]
    if last.text == "?" and last.start >= end:
        words = [t.text for t in toks[a:b] if t.kind == "word"]
        if len(words) >= 2 and words[0] in _REQUEST_EN and words[1] == "you":
            return ""  # "can you …?" is a request
        if _ASIDE_ASKS.match(seg, end, last.end + 1):
            return ""  # "… could not be found (are you missing a using directive?)": a hint
        return "" if _asks_its_own_clause(seg[end : last.start]) else "?"
    stop = last.start if last.kind == "stop" else last.end
    tail = seg[end:stop].rstrip(" .,!、")
    m = _QUESTION_END.search(tail)
    if m and m.group(0) == "か" and ka_is_word(tail):
        return ""  # …まあいつか: someday, no question
    return m.group(0) if m and not _asks_its_own_clause(tail) else ""


#: A question in brackets of its own after the quote, closing the sentence: an aside.
_ASIDE_ASKS = re.compile(r"[^(（?？]*+[(（][^()（）?？]{1,200}+[?？][)）]?")
#: A clause that only asks about the one before it: 好吗, 行不行, 对吧, いいですか.
_TAG_QUESTION = re.compile(
    r"(?:好|行|可以|对|對|是|没问题|沒問題)(?:吗|嗎|吧)?|好不好|行不行|对不对|對不對|是不是|"
    r"可不可以|怎么样|怎麼樣|咋样|咋樣|如何|中不中|中不|要得不|得行不|可以不|行不|"
    # and as people say it where they live: どうずら (信州), どうやろ (関西), どうだべ
    r"(?:いい|どう|大丈夫)(?:ですか|でしょうか|でしょう|か|かな|かしら|ずら|だら|だに|やろ|やろか"
    r"|や|じゃろ|じゃろか|だべ|っしょ|ね)?"
)


def _asks_its_own_clause(tail: str) -> bool:
    """Whether a question mark or particle at the end of a Chinese or Japanese run-on
    sentence asks only its own comma clause, not the one the quote is in: "…的游戏，…公司，
    需要使用unity等吗" asks about unity, not about the game. A last clause that is only a
    tag ("…，好吗") asks about what came before."""
    if not is_cjk_text(tail) or not _CLAUSE_COMMA.search(tail):
        return False
    last = _CLAUSE_COMMA.split(tail)[-1].strip(" ?？.。!")
    return bool(last) and not _TAG_QUESTION.fullmatch(last)


_CLAUSE_COMMA = re.compile(r"[,，、]")


_QUESTION_END = re.compile(r"(?:吗|嗎|呢|么|麼|ですか|ますか|のか|か|かな|かしら)$")
_KA_WORDS = tuple(sorted(lexicon.words("not_question_ka"), key=len, reverse=True))


def ka_is_word(text: str) -> bool:
    """Whether *text* ends in a word that ends in か without asking (いつか, 静か): the
    list ``not_question_ka``."""
    return text.endswith(_KA_WORDS)


# =========================================================================== judging


def judge(
    seg: str, start: int, end: int, breaks: Sequence[int] = (), *, strict: bool = True
) -> Scope:
    """Whether the quote ``seg[start:end]`` (the gate's normal form) leaves out anything of
    its clause that is not known to be harmless, or an operator that governs it. *breaks*
    are the positions in *seg* where the original text broke its lines (each line of a
    tool's output or a command is a sentence of its own), in ascending order.

    *strict* (a person's words) refuses every left-out word not known to be harmless; not
    strict (machine output and commands, whose lines are columns and arguments) refuses
    only the left-out operators this module knows."""
    if start == 0 and end == len(seg):
        return Scope()  # the whole segment: nothing left out, nothing around it
    denied = _quoted_to_deny(seg, start, end)
    if denied:
        return Scope(NEGATION, f"is quoted only to be denied ({denied!r} after it)")
    if strict:
        marked = _marks_after(seg, end, breaks)
        if marked:
            return marked
    return _clause_scope(seg, start, end, breaks, strict)


#: Quotation marks, opening to closing, that set a mention inside a person's sentence.
_QUOTE_PAIRS = {"「": "」", "『": "』", '"': '"', "“": "”", "‘": "’", "'": "'"}
#: What, after a mention, says it is wrong: 「…」は違う, "…" is wrong, “…”不对.
_DENIED = lexicon.pattern("scope_denied")


def _quoted_to_deny(seg: str, start: int, end: int) -> str:
    """The denial after a quote that is a mention inside quotation marks ("the note
    「豚骨を40kgに増やすと決めた」は違うよ"), in the rest of its sentence; "" when none."""
    if start == 0 or end >= len(seg):
        return ""
    close = _QUOTE_PAIRS.get(seg[start - 1])
    if close is None or seg[end] != close:
        return ""
    tail = seg[end + 1 : end + 41]
    stop = next((i for i, c in enumerate(tail) if c in "。.!?！？\n"), len(tail))
    found = _DENIED.search(tail[:stop].lower())
    return found.group(0) if found else ""


def _clause_scope(seg: str, start: int, end: int, breaks: Sequence[int], strict: bool) -> Scope:
    """:func:`judge` on the quote's own clause and the clauses of its sentence."""
    lo = max(0, start - WINDOW)
    hi = min(len(seg), end + WINDOW)
    toks = _tokens(seg[lo:hi], lo)
    if lo > 0 and toks:
        toks = toks[1:]  # the first token may be cut by the window
    lines = [p for p in breaks[bisect_left(breaks, lo) : bisect_left(breaks, hi)]]
    if lines:
        toks = sorted(toks + [_Tok(p, p + 1, "stop", "\n") for p in lines], key=_start)
    a, b = _sentence(toks, start, end)
    # the quote's own clause: from the last edge before it to the first edge after it
    left = a
    for i in range(a, b):
        if toks[i].end > start:
            break
        if _is_edge(toks[i]):
            left = i + 1
    right = b
    for i in range(a, b):
        if toks[i].start >= end and (_is_edge(toks[i]) or toks[i].kind == "stop"):
            right = i
            break
        if toks[i].end == end and toks[i].kind == "punct" and toks[i].text in _CLAUSE_MARKS:
            # the quote ends with its clause's own comma (钉钉群机器人开了加签，): what
            # follows is the next clause, whose edge the quote already holds
            right = i + 1
            break
    if strict and left == a and a == 0 and lo > 0:
        return Scope(UNKNOWN, "its clause is too long to be known harmless")
    clause_start = toks[left].start if left < b else start
    clause_end = toks[right].start if right < b else (toks[b - 1].end if b > a else end)
    inside = _inside(seg, clause_start, start, end, min(clause_end, hi), lines)
    if inside and inside.rule != UNKNOWN:
        return inside
    if not strict:
        inside = Scope()
    out = _before(toks, a, left) or _after(toks, right, b)
    if out:
        return out
    q = _question(seg, toks, a, b, end)
    if q:
        return Scope(QUESTION, f"leaves out the question {q!r} of its sentence")
    return inside


#: A correction that ends right before a quote: "A じゃなくて B" says B instead of A.
_CORRECTED_BEFORE = re.compile(r"(?:じゃなくて|ではなくて|じゃなく|ではなく)[ \t、，,]*$")


def _inside(
    seg: str, clause_start: int, start: int, end: int, clause_end: int, lines: list[int]
) -> Scope:
    """What the quote leaves out of its own clause must be harmless."""
    for p in lines:
        if clause_start <= p < start:
            clause_start = p + 1
        elif end <= p < clause_end:
            clause_end = p
    reported = Scope()
    # a retraction in the clause before the quote ends what it takes back ("… 1200 pounds
    # no wait its 1500 pounds", dictated with no stop): the quote's clause starts after it
    ends = [
        m.end() for m in lexicon.pattern("retraction").finditer(seg[clause_start:start].lower())
    ]
    if ends:
        clause_start += ends[-1]
    fixed = _CORRECTED_BEFORE.search(seg, clause_start, start)
    if fixed is not None:
        clause_start = fixed.end()  # 10度、じゃなくて11度: the quote is the correction
    opening = lexicon.pattern("retraction").match(seg[start:end].lower())
    if opening is not None:
        clause_start = start  # the quote opens with "no actually": what it takes back stays out
    for side, a, b in (("before", clause_start, start), ("after", end, clause_end)):
        if a >= b:
            continue
        toks = [t for t in _tokens(seg[a:b], a) if t.kind != "punct"]
        if not toks or _harmless(toks):
            continue
        rule, _, word = _classify(toks).partition(":")
        if rule == REPORT and side == "before":
            src = _reporter(toks)
            if src:
                # a text may name the source of hearsay; what the clause adds after the
                # quote ("… only if we get the cafeteria") still governs it
                reported = Scope(REPORT, _reported_why(src), src)
                continue
        text = " ".join(seg[a:b].split())
        if len(text) > 40:
            text = ("…" + text[-39:]) if side == "before" else (text[:39] + "…")
        if rule == UNKNOWN:
            return Scope(UNKNOWN, f"leaves out {text!r} of its clause {side} it")
        return Scope(rule, f"leaves out the {rule} {word!r} of its clause {side} it")
    return reported


def _reporter(toks: list[_Tok]) -> str:
    """The source of a bare reporter phrase ("Mika says", "my landlord says that",
    "according to Mika", 老王说, 田中さんによると), or ""."""
    words = [t.text for t in toks if t.kind in ("word", "ident", "cjk")]
    if not words:
        return ""
    if len(words) == 1 and toks[-1].kind == "cjk":
        m = _SAID_BY.fullmatch(words[0])
        return m.group(1) if m else ""
    if words[-1] == "that":
        words = words[:-1]
    if len(words) >= 2 and words[0] == "according" and words[1] == "to":
        return words[-1] if 2 < len(words) <= 5 else ""
    if 2 <= len(words) <= 4 and words[-1] in _REPORT_END_EN:
        # "I said: …", "we wrote, …": the speaker's own words, not hearsay
        return "" if words[-2] in ("i", "we") else words[-2]
    return ""


def _before(toks: list[_Tok], a: int, left: int) -> Scope:
    """Operators in earlier clauses of the sentence that reach the quote: a condition from
    anywhere before it; a hedge, a negation waiting for its verb or a reporter only across
    punctuation (not across "and", "but", "so")."""
    opener = toks[left - 1].text if left - 1 >= a and toks[left - 1].kind == "word" else ""
    if opener in _COND_EN and opener != "then":
        return Scope(CONDITION, f"is the condition {opener!r} of its sentence")
    bare = opener not in _COORD_EN
    # a dash sets off what follows it: a condition reaches past the dash only from the
    # clause right before it ("if it rains — cancel"), not from a sentence that came with
    # its own main clause ("use this key if you need it: … — it's the team key")
    dashed = left - 1 >= a and toks[left - 1].text in _DASH_LEADS
    for k, (lead, body) in enumerate(reversed(_clauses(toks, a, left))):
        words = [t.text for t in body if t.kind in ("word", "ident")]
        cjk = "".join(t.text for t in body if t.kind == "cjk")
        cond = "" if dashed and k > 0 else _condition_start(lead, words, cjk)
        if lead in _DASH_LEADS:
            dashed = True
        example = " ".join(words) if tuple(words) in _EXAMPLES_EN else _example_cjk(cjk)
        if example and k == 0:
            # "For example, H2 needs a new lid": one case given, not the rule
            return Scope(EXAMPLE, f"leaves out the example mark {example!r} before it")
        if cond:
            if cond in _EXCEPTIONS:
                return Scope(EXCEPTION, f"leaves out the exception {cond!r} before it")
            return Scope(CONDITION, f"leaves out the condition {cond!r} before it")
        if bare:
            if (words and tuple(words) in _HEDGE_CLAUSE_EN) or (
                not words and _HEDGE_CLAUSE_CJK.match(cjk or "-")
            ):
                return Scope(HEDGE, f"leaves out the hedge {' '.join(words) or cjk!r} before it")
            if body and _negation_tail(body[-1]):
                return Scope(NEGATION, f"leaves out the negation {body[-1].text!r} before it")
            src = _report_clause(body)
            if src:
                return Scope(REPORT, _reported_why(src), src)
        if lead in _COORD_EN:
            bare = False
    return Scope()


_COND_TWO = frozenset({("as", "long"), ("in", "case"), ("only", "if"), ("only", "when")})
_COND_CJK_START = re.compile(
    r"(?:もし|如果|要是|除非|假如|假设|假設|万一|萬一|只要|只有|倘若|一旦|若|除了|除開|除开)"
)
_COND_CJK_END = re.compile(
    r"(?:なら|たら|れば|ければ|場合は?|ときは?|時は|限り|的话|的話|を除いて|を除き|以外は?|以外|之外)$"
)
#: The conditions that are exceptions: named as such.
_EXCEPTIONS = lexicon.words("scope_exceptions")
#: What marks a clause as one example of something ("for example", 例えば, 比如): a quote of
#: the clause after it leaves out that it is only an example.
_EXAMPLES_EN = frozenset(tuple(w.split()) for w in lexicon.words("scope_example", ("en",)))
_EXAMPLES_CJK = tuple(sorted(lexicon.words("scope_example", ("ja", "zh")), key=len, reverse=True))


def _example_cjk(cjk: str) -> str:
    """The example mark a CJK clause is ("" when it is none)."""
    return cjk if cjk and cjk in _EXAMPLES_CJK else ""


#: Sentence ends between a quote and a retraction: at most the quote's own may stand
#: between them, or the retraction takes back something else.
#: An ellipsis ("…", folded to "...") trails off, it ends nothing; a run of marks is one.
_STOPS = re.compile(r"(?<![.\d])\.(?![.\d])|[!?。！？]+")


def _own_stop(seg: str, end: int) -> int:
    """How many sentence ends may stand between a quote and what follows it: its own (1)
    when the quote stops short of it, none when the quote takes it."""
    return 0 if end and _STOPS.match(seg, end - 1) else 1


#: A "but" a quote ends on (…ましたが, …けど) and the "after all" that follows it.
_BUT_BEFORE = re.compile(r"(?:が|けど|けれど|けれども|但是|可是|不过|不過|(?i:\bbut))[ \t]*$")
_BUT_AFTER = re.compile(r"(?:けど|けれど|けれども|が|但是|可是|不过|不過|(?i:but\b))")
_AFTER_ALL = re.compile(
    r"[、，,]?[ \t]*(?:やっぱり|やっぱ|やはり|还是|還是|(?i:after all|actually))"
)


def _marks_after(seg: str, end: int, breaks: Sequence[int] = ()) -> Scope:
    """What the person adds after the quote that changes it: a tentative mark right after
    it ("（仮）", "(TBD)", 暂定), or a retraction of it later in the same turn ("Actually no",
    やっぱりやめ, 算了) with no other sentence between them. A line break ends a sentence
    too (a pasted line, a list item): a retraction after lines of other things takes back
    the last of them, not the quote."""
    after = seg[end : end + WINDOW].lower()
    if speaker_of(seg[_line_start(seg, end, breaks) : end]):
        # a line under another speaker's label (田辺: …その時間は使えません): the person's
        # later "やっぱり" takes back their own words, not that speaker's
        # (a line right after it with no label of its own goes on with what they say)
        line_end = _line_end(seg, end, breaks)
        if line_end < len(seg):
            following = _line_end(seg, line_end + 1, breaks)
            if not speaker_of(seg[line_end + 1 : following]):
                line_end = following
        after = after[: max(0, line_end - end)]
    head = after.lstrip(" ")
    m = lexicon.pattern("tentative").match(head)
    if m:
        return Scope(TENTATIVE, f"leaves out the tentative mark {m.group(0)!r} after it")
    but = _BUT_AFTER.match(head)
    if (_BUT_BEFORE.search(seg, max(0, end - 4), end) and _AFTER_ALL.match(head)) or (
        but is not None and _AFTER_ALL.match(head, but.end())
    ):
        # …メールで返信しようと思っていましたが、やっぱり電話で: a "but" the quote ends on
        # or that comes right after it (12kgにしよかと思った｜けど、やっぱ10kg), then "after
        # all": what follows takes the quote back
        return Scope(RETRACTED, f"is taken back later in the turn ({head[:8]!r})")
    m = lexicon.search("retraction", after)
    own_stop = _own_stop(seg, end)
    lines = bisect_left(breaks, end + m.start()) - bisect_left(breaks, end) if m else 0
    if m and lines and not _opens_line(seg, end + m.start(), breaks):
        m = None  # a later line's "水曜で…いや、やっぱり木曜": it takes back its own line
    if m and own_stop == 0 and _says_something(after[: m.start()]):
        # "…你先别改表。对了，账号密码是…，你记一下——算了": the quote ended its sentence,
        # and the next one says something of its own before its retraction, which takes
        # back that, not the quote
        m = None
    if m and len(_STOPS.findall(after, 0, m.start())) + lines <= own_stop:
        return Scope(RETRACTED, f"is taken back later in the turn ({m.group(0)!r})")
    named = _retraction_naming(seg, end, after, breaks)
    if named:
        return Scope(RETRACTED, f"is taken back later in the turn ({named!r})")
    put = _replaced_after(seg, end, after, own_stop, breaks)
    if put:
        return Scope(RETRACTED, f"is corrected later in the turn ({put!r})")
    put = _retracted_then_put(seg, end, after, breaks)
    if put:
        return Scope(RETRACTED, f"is taken back later in the turn ({put!r})")
    return Scope()


#: A sentence that corrects the one before it: it opens with a word that stops to correct
#: ("wait,", "oh wait", "sorry,", いや, あ、, 等等, 不对) and puts a new value in place
#: ("make it Mar 27", "change it to 30", 27日にして, 改成27号).
_CORRECTS = re.compile(
    r"^[ \t\n]*(?:(?i:wait|oh[ \t]+wait|hmm+|sorry|oops|correction|on[ \t]+second[ \t]+thoughts?)"
    r"|いや|あっ?|すみません|ごめん|訂正|等等|等一下|不对|不對|哦不|啊不)[ \t]*[,，、.!！:：-]"
    # "…やっぱり25個にしといて", "... actually make it 25": after all, then the new value
    r"|^[ \t\n]*+(?:…++|\.{2,}+)?+[ \t]*+(?:やっぱり|やっぱ|やはり|(?i:actually))[ \t]*+[,，、]?"
)
_PUTS = re.compile(
    r"(?i:\b(?:make|change|move|push|set|switch|bump)[ \t]+(?:it|that|this|them)[ \t]+(?:to[ \t]+)?"
    r"|\binstead\b|\brather\b)|にして|に変更|に変えて|にしましょう|にします|にしとこ|にしよ|にしとく"
    r"|にしといて|にしておいて|にしておく"
    r"|でええ|改成|改为|改為|换成|換成|改到"
)


#: A sentence's end, or a line's: a pasted line ends where it breaks.
_STOPS_OR_LINE = re.compile(r"(?<![.\d])\.(?![.\d])|[!?。！？]+|\n+")


def _replaced_after(
    seg: str, end: int, after: str, own_stop: int, breaks: Sequence[int] = ()
) -> str:
    """The next sentence of the turn when it opens with a correction and puts in place a
    value of the kind the quote's sentence gives, another value ("make a milestone, due Mar
    20 … wait, I'm travelling that week, make it Mar 27"): "" when there is none. A line
    break ends a sentence too (*breaks*: where the lines of a text compared without its
    line breaks broke)."""
    from .quantities import scan, with_units_first

    cuts = [(m.start(), m.end()) for m in _STOPS_OR_LINE.finditer(after)]
    lo, hi = bisect_left(breaks, end), bisect_left(breaks, end + len(after))
    cuts = sorted({*cuts, *((b - end, b - end) for b in breaks[lo:hi])})
    if own_stop and cuts and cuts[0][0] == 0:
        own_stop = 1  # the quote's line ends right after it
    if len(cuts) < own_stop:
        return ""
    opened = cuts[own_stop - 1][1] if own_stop else 0
    sentence_end = cuts[own_stop][0] if len(cuts) > own_stop else len(after)
    nxt = after[opened:sentence_end]
    if not _CORRECTS.match(nxt) or not _PUTS.search(nxt):
        return ""
    start = max((m.end() for m in _STOPS.finditer(seg, 0, max(0, end - 1))), default=0)
    # the figures the sentence states (the 1 of a rate, 1玉¥48, is none of them)
    found = with_units_first(seg[start:end])
    pers = {q.per for q in found if q.per}
    said = {(q.kind, q.unit, q.canon) for q in found if not (q.value == 1 and q.unit in pers)}
    kinds = {(k, u) for k, u, _c in said}
    for q in scan(nxt):  # the new value before the verb too (18時にして, 改成27号)
        if (q.kind, q.unit) in kinds and (q.kind, q.unit, q.canon) not in said:
            return nxt.strip()[:40]
    return ""


def _says_something(text: str) -> bool:
    """Whether *text* (what stands between a quote and a retraction) says something of its
    own: two content words or more ("对了，不对，" and "Actually," say nothing)."""
    from .attribution import content_tokens  # attribution reads scope's clauses

    return len(content_tokens(text)) >= 2


def _retraction_naming(seg: str, end: int, after: str, breaks: Sequence[int] = ()) -> str:
    """A later retraction in the turn that names what the quote says, however far after
    it ("pls add a note in the README … actually scratch the README thing", 木曜はテンポ走
    にしたい…やっぱり木曜はなし): its clause shares a word of the quote's sentence. ""
    when there is none."""
    from .attribution import content_tokens  # attribution reads scope's clauses

    start = _sentence_start(seg, end, breaks)
    said = _topic(content_tokens(seg[start:end]))
    if not said:
        return ""
    own_stop = _own_stop(seg, end)
    for m in lexicon.pattern("retraction_topic").finditer(after):
        stop = _STOPS.search(after, m.end())
        clause = after[m.end() : stop.start() if stop else len(after)]
        cancels = m.group(0).isascii() or _CANCELS.search(clause)
        shared = {
            t for t in said & content_tokens(clause) if len(t) > 1 and not _HIRAGANA_IN.search(t)
        }
        if not shared and _replaces_figure(seg[start:end], clause):
            shared = {"#"}  # "1日220玉に増やす…やっぱり220は多いな、200玉にしとく"
        # the very next sentence that opens with one and puts something else in place
        # ("…私が行きます。やっぱり、…妻の美咲にお願いすることにします") takes back the quote's
        stops = list(_STOPS.finditer(after, 0, m.start()))
        opens = not after[stops[-1].end() if stops else 0 : m.start()].strip(" 、,")
        next_one = opens and len(stops) <= own_stop and not _line_between(end, m.start(), breaks)
        if cancels and (shared or (next_one and not m.group(0).isascii())):
            return (m.group(0) + clause)[:40]  # shared: a thing named, not a verb's stem
        if m.group(0).isascii() and after[m.start() - 1 : m.start()] == "-":
            continue  # "late-cancel fee": a word joined on, no retraction
        rest = _following(after, stop.end() if stop else len(after), 2, _line_limit(end, breaks))
        if rest and _puts_other_value(seg[start:end], said, clause, rest):
            # "…prepone it to 22/12/26. Actually wait — the principal said no. Keep it on
            # 05/01/27.", 「やっぱり2,500円はきついかも。…2,450円にしよう」: the retraction, then
            # the thing it named given another value
            return (m.group(0) + clause)[:40]
    return ""


def _sentence_start(seg: str, end: int, breaks: Sequence[int]) -> int:
    """Where the sentence of the quote ending at *end* starts: after a stop, a line break
    of *seg* or one of *breaks* (where a text compared without its line breaks broke)."""
    start = max((m.end() for m in _STOPS.finditer(seg, 0, max(0, end - 1))), default=0)
    start = max(start, seg.rfind("\n", 0, max(0, end - 1)) + 1)
    k = bisect_left(breaks, end - 1)
    return max(start, breaks[k - 1] + 1) if k else start


def _retracted_then_put(seg: str, end: int, after: str, breaks: Sequence[int]) -> str:
    """A retraction later on the quote's line, sentences after it, followed by the thing
    the quote names given another value ("…prepone it to 22/12/26. Put it in the file.
    Actually wait — the principal said no. Keep it on 05/01/27."): "" when there is none."""
    from .attribution import content_tokens  # attribution reads scope's clauses

    m = lexicon.search("retraction", after)
    if m is None or _line_between(end, m.start(), breaks) or "\n" in after[: m.start()]:
        return ""
    stop = _STOPS.search(after, m.end())
    clause = after[m.end() : stop.start() if stop else len(after)]
    rest = _following(after, stop.end() if stop else len(after), 2, _line_limit(end, breaks))
    start = _sentence_start(seg, end, breaks)
    said = _topic(content_tokens(seg[start:end]))
    if rest and _puts_other_value(seg[start:end], said, clause, rest):
        return (m.group(0) + clause)[:40]
    return ""


def _line_limit(end: int, breaks: Sequence[int]) -> int:
    """How far after *end* the line of a text compared without its line breaks goes (a
    large number when no break follows)."""
    k = bisect_left(breaks, end)
    return breaks[k] - end if k < len(breaks) else 1 << 30


def _following(after: str, at: int, n: int, line: int) -> str:
    """Up to *n* sentences of *after* from *at*, not past a line break (a pasted line, a
    list item, starts something else): at *line* or a newline of *after*."""
    stop_at = after.find("\n", at)
    limit = min(len(after) if stop_at < 0 else stop_at, line)
    if at >= limit:
        return ""
    end = at
    for _ in range(n):
        stop = _STOPS.search(after, end, limit)
        if stop is None:
            end = limit
            break
        end = stop.end()
    return after[at:end]


def _puts_other_value(sentence: str, said: frozenset[str], clause: str, rest: str) -> bool:
    """Whether what follows a retraction (*rest*, after its *clause*) gives the thing the
    quote's *sentence* names another value: a word of its topic or one of its figures
    named again, and a figure of a kind the sentence gives that it does not say."""
    from .attribution import content_tokens  # attribution reads scope's clauses
    from .quantities import with_units_first

    named = content_tokens(clause + " " + rest)
    figures = {t for t in content_tokens(sentence) if t.startswith("#")}
    if any(t.startswith("#") and t not in figures for t in content_tokens(clause)):
        return False  # "……算了，还是 15%": the retraction gives a value of something else
    if not (
        {t for t in said & named if len(t) > 1 and not _HIRAGANA_IN.search(t)} or figures & named
    ):
        return False
    was = with_units_first(sentence)
    kinds = {(q.kind, q.unit) for q in was}
    canons = {q.canon for q in was}
    return any((q.kind, q.unit) in kinds and q.canon not in canons for q in with_units_first(rest))


def _line_start(seg: str, at: int, breaks: Sequence[int]) -> int:
    """Where the line that holds *at* starts: after a line break of *seg* or one of
    *breaks* (where a text compared without its line breaks broke)."""
    k = bisect_left(breaks, at)
    return max(seg.rfind("\n", 0, at) + 1, breaks[k - 1] + 1 if k else 0)


def _line_end(seg: str, at: int, breaks: Sequence[int]) -> int:
    """Where the line that holds *at* ends (its break, or the end of *seg*)."""
    k = bisect_left(breaks, at)
    nl = seg.find("\n", at)
    return min(nl if nl >= 0 else len(seg), breaks[k] if k < len(breaks) else len(seg))


def _reported_why(src: str) -> str:
    """The reason a quote cut from its reporter gives (read back by :func:`reported_source`)."""
    return f"leaves out who says it ({src!r}) before it"


_REPORTED_WHY = re.compile(r"who says it \((['\"])(.{1,40}?)\1\)")


def reported_source(why: str) -> str:
    """Who a quote cut from its reporter leaves out, read from its reason ("" when none)."""
    m = _REPORTED_WHY.search(why)
    return m.group(2) if m else ""


def _opens_line(seg: str, at: int, breaks: Sequence[int]) -> bool:
    """Whether what stands at *at* opens its line: nothing but interjections and marks
    before it there ("あ、やっぱり…", "hmm actually no")."""
    k = bisect_left(breaks, at)
    lo = breaks[k - 1] + 1 if k else 0
    return _harmless(_tokens(_NO_WORD.sub(" ", seg[lo:at].lower())))


#: A "no" that opens a retraction's line with it ("no wait, actually…", いや、やっぱり).
_NO_WORD = re.compile(r"\b(?:no|nope|nah|wait)\b|いや|いえ|不对|不對|不")


def _replaces_figure(sentence: str, clause: str) -> bool:
    """Whether a retraction's *clause* names a figure of the quote's *sentence* and gives
    another in its place (220 … 200玉): then it takes that sentence back."""
    from .attribution import content_tokens  # attribution reads scope's clauses

    said = {t for t in content_tokens(sentence) if t.startswith("#")}
    now = {t for t in content_tokens(clause) if t.startswith("#")}
    return bool(said & now) and bool(now - said)


def _line_between(end: int, at: int, breaks: Sequence[int]) -> bool:
    """Whether a line break of the segment stands between *end* and *end* + *at*."""
    return bisect_left(breaks, end + at) > bisect_left(breaks, end)


def _topic(tokens: frozenset[str]) -> frozenset[str]:
    """The words of *tokens* that name what a sentence is about: not its figures, and not a
    unit or a currency two sentences may share without speaking of the same thing."""
    from .quantities import scan
    from .units import HARD

    out = set()
    for tok in tokens:
        if tok.startswith("#"):
            continue
        probe = scan(f"1 {tok}") if tok.isascii() else scan(f"1{tok}")
        if len(probe) == 1 and probe[0].uclass == HARD and probe[0].end - probe[0].start > 1:
            continue
        out.add(tok)
    return frozenset(out)


_HIRAGANA_IN = re.compile("[\u3041-\u309f]")
#: What a Japanese or Chinese retraction says of what it names: none of it (なし, やめ,
#: 不…了, 没有, 取消), or something else in its place (改成, に変更).
_CANCELS = re.compile(
    r"なし|無し|やめ|止め|ない|ません|不|没|別|别|取消|キャンセル"
    r"|改成|改为|改為|换成|換成|改到|改在|に変更|に変え|に変わ|にします|にしとく|にしておく|にしよう"
    r"|に改め|に直|の方に"
    # a new plan put in its place: やっぱり移行前にやりましょう
    r"|ましょう|しよう|やろう|でいこう|でいきます|にする"
    # or another wish: やっぱり両方ほしい, やっぱりAがいい
    r"|ほしい|欲しい|がいい"
    # said casually or in dialect: やっぱり午後5時にしとこ, やっぱ5時にしよ, 5時でええわ
    r"|しとこ|にしよ|にしといて|にして|でええ|でいい"
)


def _condition_start(lead: str, words: list[str], cjk: str) -> str:
    """The conditional that opens (or, in Japanese and Chinese, closes) a clause."""
    if lead in _COND_EN and lead != "then":
        return lead
    if words and (words[0] in _COND_EN or tuple(words[:2]) in _COND_TWO):
        return " ".join(words[:2]) if tuple(words[:2]) in _COND_TWO else words[0]
    m = _COND_CJK_START.match(cjk) or _COND_CJK_END.search(cjk) or _COND_ZH_INSIDE.search(cjk)
    return m.group(0) if m else ""


#: A Chinese conditional or exception after the clause's topic (木北的素材要是周二还没到，
#: 就…; 押金除了现金的，都走微信原路退).
_COND_ZH_INSIDE = re.compile(r"(?:要是|如果|假如|倘若|万一|萬一|一旦|除非|除了|除开|除開)")


def _not_negations(text: str) -> str:
    """*text* with the words that hold a negation's character without being one blanked
    (非常 is "very", 不过 "but", とりあえず "for now": the list ``negation_not``), one
    character for one."""
    return _NOT_NEGATIONS.sub(lambda m: " " * len(m.group(0)), text)


_NOT_NEGATIONS = lexicon.pattern("negation_not")
#: An answer, not a negation waiting for its verb: "actually no, just delete the row".
_INTERJECTIONS = frozenset({"no", "nope", "nah"})


def _negation_tail(tok: _Tok) -> bool:
    if tok.kind == "word":
        w = tok.text.replace("'", "")
        if w.lower() in _INTERJECTIONS:
            return False
        return w in _NEG_EN or (w.endswith("nt") and w[:-2] in _AUX)
    if tok.kind == "cjk":
        return bool(_CJK_NEG_END.search(tok.text))
    return False


def _report_clause(body: list[_Tok]) -> str:
    """The source when a clause ends in its reporter ("Mika says", 老王说, 田中さんによると,
    "according to Mika") or is bare hearsay (听说, 据说)."""
    toks = [t for t in body if t.kind != "punct"]
    if not toks:
        return ""
    if toks[-1].kind == "cjk":
        m = _REPORT_END_CJK.search(toks[-1].text)
        if not m:
            return ""
        src = toks[-1].text[: m.start()] or "".join(t.text for t in toks[:-1])
        return src or m.group(0)
    return _reporter(toks)


def _after(toks: list[_Tok], right: int, b: int) -> Scope:
    """Operators in later clauses of the sentence that reach back: a trailing condition or
    exception, an alternative, a hedge or report tag ("…, I think", "…, he said", …と思う,
    他说)."""
    aside = False
    for k, (both, body) in enumerate(_clauses(toks, right, b, joined=True)):
        first, _, lead = both.rpartition(" ")
        words = [t.text for t in body if t.kind in ("word", "ident")]
        cjk = "".join(t.text for t in body if t.kind == "cjk")
        if words and words[0] in ("but", "and") and len(words) > 1:
            words = words[1:]
        if first.endswith("so"):
            lead = "so"  # "…, so if X, Y": the condition opens what follows it
        if lead in _COND_EN and lead != "then" and not aside:
            return Scope(CONDITION, f"leaves out the condition {lead!r} after it")
        cond = _condition_start("", words, "") or (words[:2] == ["but", "not"] and "but not")
        # past a clause a dash sets off ("now -- the old key was revoked"), a later
        # condition belongs to that new thought, not to the quote
        if (cond or (cjk and _COND_CJK_START.match(cjk))) and lead != "so" and not aside:
            return Scope(CONDITION, f"leaves out the condition {cond or cjk[:2]!r} after it")
        if lead in _DASH_LEADS:
            aside = True
        if k > 0:
            continue  # a tag qualifies the clause right before it
        if lead == "or" or (words and words[0] == "or"):
            return Scope(HEDGE, "leaves out the alternative 'or' after it")
        if (words and tuple(words) in _HEDGE_CLAUSE_EN) or (
            not words and _HEDGE_CLAUSE_CJK.match(cjk or "-")
        ):
            return Scope(HEDGE, f"leaves out the hedge {' '.join(words) or cjk!r} after it")
        if _JA_REPORT.match(cjk):
            return Scope(REPORT, f"leaves out the report {cjk[:4]!r} after it")
        src = _report_clause(body)
        if src and len(words) <= 3 and len(cjk) <= 6:
            return Scope(REPORT, f"leaves out who says it ({src!r}) after it", src)
    return Scope()


def _clauses(
    toks: list[_Tok], a: int, b: int, joined: bool = False
) -> list[tuple[str, list[_Tok]]]:
    """The clauses of ``toks[a:b]`` as (the edge word or mark that opened it, its tokens);
    with *joined*, edge words in a row are given together ("so if")."""
    out: list[tuple[str, list[_Tok]]] = []
    lead = ""
    body: list[_Tok] = []
    for t in toks[a:b]:
        if _is_edge(t) or t.kind == "stop":
            if body:
                out.append((lead, body))
            word = t.kind == "word" and not _dash(t)
            if joined and word and not body and lead and lead not in _DASH_LEADS:
                lead, body = f"{lead} {t.text}", []
                continue
            lead, body = (t.text if word else "-" if _dash(t) else ""), []
            continue
        body.append(t)
    if body:
        out.append((lead, body))
    return out


_SAID_BY = re.compile(r"(.{1,8}?)(?:说|說|によると|によれば|の話では|表示)")
_CJK_NEG_END = re.compile(r"(?:不要|不能|不用|不必|不准|不许|不許|别|別|勿|莫|不|没|沒|甭)$")
_JA_REPORT = re.compile(r"(?:と(?:言|い[うっ]|聞|思)|って(?:言|聞|い)|とのこと|そうだ|らしい)")
