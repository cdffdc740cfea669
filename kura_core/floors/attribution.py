"""Attribution: text that credits the human (or a third person) with something.

The check keys on *who*, not on a list of verbs: any clause whose subject, agent or source
is the human is an attribution -- "the user", "the owner", "we", the human's configured
names and forms of address, passives ("I was asked to", "as requested", "it was decided"),
possessives of a view ("her call", "the user's preference"); ユーザーが…, 私たちで決めた,
…に言われて, …とのこと; 用户…, 我们定了, 被用户…, 按用户的要求. A third person named in
the text (Hiro, 田中さん, 老王) is credited separately: the evidence must say it of them.

What is credited is the content of the clause (:attr:`Claim.content`, comparison tokens),
so a floor can require a USER quote that *carries* it -- "the user decided to wipe the
cache" needs the human's own words about wiping the cache, not any USER quote at all.

Not attributions: the agent's own voice ("I decided", 私は…と判断した, 我认为), conditions
in the present tense ("if the user asks", ユーザーが言ったら, 如果用户要求), hypotheticals
("the user might"), hedged guesses ("the user would probably prefer"), and nouns that
contain the words (user-facing, per-user, "owner notes", ユーザー名, 用户说明书, 用户数据).
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..script import CJK_CHAR, CJK_RUN, HAN, HIRAGANA_ONLY, KANA_CHAR, is_han
from . import lexicon, voices as _voices
from .loanwords import same_loanword
from .names import (
    GIVEN_NAMES,
    HEADINGS,
    HONORIFIC_PATTERN,
    JA_SURNAMES,
    TITLE_PATTERN,
    ZH_NOT_NAMES,
    ZH_SURNAMES,
    ZH_TITLES,
    is_configured,
    name_key,
)
from .quantities import DATE, NUMBER, RANGE, TIME, scan
from .text import fold
from .units import ENGLISH_FUNCTION_WORDS

HUMAN, THIRD, PRONOUN = "human", "third", "pronoun"


@dataclass(frozen=True)
class Claim:
    phrase: str
    who: str
    name: str
    content: frozenset[str]
    start: int
    end: int
    #: a speaker label ("Mika: …", "[Mika] …"): the rest of its line is that person's
    line: bool = False
    #: a credit that opens a Chinese or Japanese comma clause credits what follows it
    #: (``content``); this is its whole sentence, the other reading ("星耀城还没定，用户明确纠正
    #: 过": the clause before is what was corrected). An English credit whose clause ends in
    #: a colon credits what follows it too; its clause alone is the other reading. Either
    #: reading carried carries it.
    wider: frozenset[str] = frozenset()


# =========================================================================== content

#: Words that carry no content of a claim: the shared English function words, and the
#: words of crediting itself (who, and the verbs that report them).
_STOP_EN = ENGLISH_FUNCTION_WORDS | lexicon.words("attribution_stop", ("en",))
#: Attribution verbs in Chinese and Japanese: the crediting itself, not what is credited.
_STOP_CJK = lexicon.words("attribution_stop", ("ja", "zh"))
_LATIN_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_./-]*[A-Za-z0-9]|[A-Za-z0-9]")
_CJK_SPAN = CJK_RUN
_HIRAGANA = HIRAGANA_ONLY


#: Japanese case particles: a pair of characters that holds one says nothing of its own.
_JA_CASE_PARTICLES = frozenset("をはがのにでへもやと")


#: Irregular verb forms, and the base each is compared as ("written" as "write").
_IRREGULAR = dict(
    pair.split(" ", 1) for pair in lexicon.words("irregular_verbs", ("en",)) if " " in pair
)
#: Single Chinese characters that are grammar when they stand alone (的, 是, 从).
_FUNCTION_CHARS = lexicon.words("function_chars", ("zh",))


def _stem(word: str) -> str:
    w = word.lower()
    if any(c.isdigit() for c in w) or "/" in w or "." in w:
        return w
    w = _IRREGULAR.get(w, w)
    for suffix in ("ing", "ed", "es", "s", "e", "ly"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            if suffix in ("ing", "ed") and len(w) >= 4 and w[-1] == w[-2] and w[-1] in _DOUBLED:
                w = w[:-1]  # putting, stopped, planned: put, stop, plan
            break
    return w[:5]


#: Consonants English doubles before -ing and -ed (put → putting), unlike ll, ss, ff, zz
#: that belong to the word itself (call, miss).
_DOUBLED = frozenset("bdgkmnprt")


def _hyphen_parts(word: str) -> tuple[str, ...]:
    """A word joined by hyphens compared as the person may write it: one word when a piece
    is a prefix or a letter ("e-mail", "re-run", "co-op" as "email"), its words otherwise
    ("fee-free" as "fee" and "free"). Codes and paths ("v2-beta", "a/b-c") stay whole."""
    if "-" not in word or not word.replace("-", "").isalpha():
        return (word,)
    parts = [p for p in word.split("-") if p]
    if any(len(p) < 3 for p in parts):
        return ("".join(parts),)
    return tuple(p for p in parts if p.lower() not in _STOP_EN)


#: A comparison token that stands for a value, not a word: "three", 3 and 三 are one
#: token, and so are "December 21", 12月21日 and 十二月二十一日.
VALUE_MARK = "#"


def _value_tokens(folded: str) -> tuple[str, set[str]]:
    """*folded* with its quantities (numbers, ranges, dates, clock times) blanked, and one
    token for each by value, so the same value written another way or in another language
    compares equal. A Latin unit word stays a word ("three sacks" keeps "sack")."""
    found = [q for q in scan(folded) if q.kind in (NUMBER, RANGE, DATE, TIME)]
    if not found:
        return folded, set()
    out: set[str] = set()
    chars = list(folded)
    for q in found:
        if q.kind in (NUMBER, RANGE) and q.value is not None:
            out.add(f"{VALUE_MARK}{q.value.normalize():f}")
            if q.kind == RANGE and q.high is not None:
                out.add(f"{VALUE_MARK}{q.high.normalize():f}")
            if q.unit.isascii() and q.unit.isalpha() and len(q.unit) > 2:
                out.add(_stem(q.unit))
        elif q.kind == DATE:
            for y, m, d in (r[:3] for r in q.readings if len(r) >= 3):
                if m is not None or d is not None:
                    out.add(f"{VALUE_MARK}d{m}-{d}")
                if y is not None:
                    out.add(f"{VALUE_MARK}y{y}")
        elif q.kind == TIME:
            out.update(f"{VALUE_MARK}t{r[0]}:{r[1]}" for r in q.readings)
        else:
            continue
        chars[q.start : q.end] = " " * (q.end - q.start)  # "forty" is its value, #40
    return "".join(chars), out


@functools.lru_cache(maxsize=1024)
def content_tokens(text: str) -> frozenset[str]:
    """Comparison tokens of what a text says: Latin word stems (not function words), paths,
    one token per quantity by value (:func:`_value_tokens`), and pairs of adjacent
    Chinese/Japanese characters (not pairs of bare hiragana, which are grammar)."""
    folded, values = _value_tokens(fold(text))
    out: set[str] = set(values)
    cjk = _CJK_SPAN.search(folded) is not None
    if cjk:
        folded = _in_mandarin(folded)
    for m in _OPTION_NAMED.finditer(folded):
        out.add(f"opt:{(m.group(1) or m.group(2)).upper()}")  # "option (b)", a reply "b."
    for m in _LATIN_TOKEN.finditer(folded):
        w = m.group(0)
        if cjk and len(w) == 1 and "A" <= w <= "Z":
            out.add(f"opt:{w}")  # Cにする, 用B: an option's letter among Chinese or Japanese
            continue
        if w.lower() in _STOP_EN or (len(w) < 3 and not w.isdigit()):
            continue
        out.update(_stem(p) for p in _hyphen_parts(w))
    for m in _CJK_SPAN.finditer(folded):
        run = m.group(0)
        if _KATAKANA_WORD.search(run):
            # a katakana word is one word (アカウント), not four pairs that outweigh the
            # rest of the sentence; the characters around it are paired on their own
            out.update(k.group(0) for k in _KATAKANA_WORD.finditer(run))
            for piece in _KATAKANA_WORD.split(run):
                out |= _cjk_pairs(piece)
        else:
            out |= _cjk_pairs(run)
    return frozenset(out)


def _dialect_table() -> dict[str, str]:
    """The list ``dialect_words`` as the Mandarin word of each dialect word."""
    table: dict[str, str] = {}
    for line in lexicon.words("dialect_words", ("zh",)):
        said, _, mandarin = (p.strip() for p in line.partition("|"))
        if said and mandarin and said != mandarin:
            table[said] = mandarin
    return table


_DIALECT_WORDS = _dialect_table()
_DIALECT = re.compile("|".join(map(re.escape, sorted(_DIALECT_WORDS, key=len, reverse=True))))


def _in_mandarin(text: str) -> str:
    """*text* with the words of spoken Chinese the list ``dialect_words`` knows written as
    Mandarin says them (今次唔改 as 这次不改): what a memory in Mandarin is compared with."""
    return _DIALECT.sub(lambda m: _DIALECT_WORDS[m.group(0)], text)


def ordered_tokens(text: str) -> list[str]:
    """The words of :func:`content_tokens` in the order the text says them (first mention;
    values, which are compared apart, left out): what the slots of a sentence are read by."""
    have = content_tokens(text)
    folded, _values = _value_tokens(fold(text))
    folded = _in_mandarin(folded)
    at: dict[str, int] = {}

    def seen(tok: str, pos: int) -> None:
        if tok in have and tok not in at:
            at[tok] = pos

    for m in _LATIN_TOKEN.finditer(folded):
        for p in _hyphen_parts(m.group(0)):
            seen(_stem(p), m.start())
    for m in _CJK_SPAN.finditer(folded):
        run = m.group(0)
        for k in _KATAKANA_WORD.finditer(run):
            seen(k.group(0), m.start() + k.start())
        for i in range(len(run)):
            seen(run[i : i + 2], m.start() + i)
            seen(run[i], m.start() + i)
    return sorted(at, key=at.__getitem__)


#: Where a clause of the person's ends, for reading the slots of one clause at a time.
_SLOT_SENTENCE_END = re.compile(r"[。．!?！？;；，、\n]+|[.,](?!\S)|,(?=[^\d\s])")


def slot_clauses(text: str) -> list[str]:
    """The clauses of a person's text, as the slots of a credit are read in them: split at
    sentence ends, semicolons and commas (not inside 1,240 or 8.5)."""
    return _SLOT_SENTENCE_END.split(text)


def slot_swapped(claim_text: str, texts: Iterable[str]) -> bool:
    """Whether a credit puts another thing in a slot of the person's sentence: between two
    words both say in the same order (or after the last of them), the credit has a word the
    person never says where the person has a word the credit never says ("not to touch the
    nether portal yet" for "don't touch the mob farm yet", 電気を東北電力で確定 for 電気は
    楽天でんきで確定). Words the credit adds where the person says nothing in between are a
    paraphrase, not a swap."""
    claim = ordered_tokens(claim_text)
    if len(claim) < 2:
        return False
    mine = frozenset(claim)
    for text in texts:
        for clause in slot_clauses(text):
            theirs = ordered_tokens(clause)
            if _swapped_in(claim, mine, theirs):
                return True
    return False


def _swapped_in(claim: list[str], mine: frozenset[str], theirs: list[str]) -> bool:
    where = {t: i for i, t in enumerate(theirs)}
    said = frozenset(theirs)
    anchors = [i for i, t in enumerate(claim) if t in where]
    if anchors and _moved_across(claim, mine, theirs, said, anchors, where):
        return True
    for k, i in enumerate(anchors):
        j = anchors[k + 1] if k + 1 < len(anchors) else len(claim)
        ours = claim[i + 1 : j]
        if not ours:
            continue
        a = where[claim[i]]
        b = where[claim[j]] if j < len(claim) else len(theirs)
        if b <= a:
            continue
        edges = claim[i] + (claim[j] if j < len(claim) else "")
        other = theirs[a + 1 : b]
        if any(t not in said and _inside(t, edges) for t in ours) and any(
            t not in mine and _inside(t, edges) for t in other
        ):
            return True
    return False


def _moved_across(
    claim: list[str],
    mine: frozenset[str],
    theirs: list[str],
    said: frozenset[str],
    anchors: list[int],
    where: dict[str, int],
) -> bool:
    """A thing the person names before the words both say, where the credit names another
    after them (钱塘春晓超预算了先不考虑 for 先不考虑星耀城和滨江花园), or the other way
    round: the topic moved to the object's place, and swapped."""
    first, last = min(where[claim[i]] for i in anchors), max(where[claim[i]] for i in anchors)
    ours_lead, ours_trail = claim[: anchors[0]], claim[anchors[-1] + 1 :]
    theirs_lead, theirs_trail = theirs[:first], theirs[last + 1 :]
    for ours, other, edge in (
        (ours_trail, theirs_lead, claim[anchors[-1]] + theirs[first]),
        (ours_lead, theirs_trail, claim[anchors[0]] + theirs[last]),
    ):
        new = [t for t in ours if t not in said and _inside(t, edge)]
        gone = [t for t in other if t not in mine and _inside(t, edge)]
        if _weight(new) >= 4 and _weight(gone) >= 4:
            return True
    return False


def _weight(tokens: list[str]) -> int:
    """How much a stretch of tokens names: its Chinese or Japanese characters, and two for
    each Latin word (我们用 is three characters and names little; 钱塘春晓 is a place)."""
    chars = {c for t in tokens if not t.isascii() for c in t}
    return len(chars) + 2 * sum(1 for t in tokens if t.isascii())


def _inside(token: str, edges: str) -> bool:
    """Whether a pair of Chinese or Japanese characters stands clear of the words at a slot's
    edges: 金付 in 定金付 is the edge word's last character and the next one, no word."""
    return token.isascii() or len(token) != 2 or not (set(token) & set(edges))


#: An option named by its letter: "option (b)", "choice B", "plan C", or a reply that
#: opens with the letter alone ("b. I'm not going to …", "(c) please").
_OPTION_NAMED = re.compile(
    r"(?i)\b(?:option|choice|plan|variant|alternative|proposal)[ \t]*\(?([a-e])\)?(?![\w.])"
    r"|(?:^|\n)[ \t]*\(?([a-eA-E])[.):](?=[ \t]|$)"
)


#: A katakana word of two characters or more (the long-vowel mark and ・ inside it).
_KATAKANA_WORD = re.compile(
    r"[\u30a1-\u30fa\u30fc][\u30a1-\u30fa\u30fc\u30fb]*[\u30a1-\u30fa\u30fc]"
)


def _cjk_pairs(run: str) -> set[str]:
    """Comparison tokens of one run of Chinese or Japanese characters: each pair of
    adjacent characters that is not grammar (bare hiragana, a stop pair, a case particle
    beside a word); a lone character that is not grammar is a token itself."""
    if not run:
        return set()
    if len(run) == 1:
        return set() if _HIRAGANA.fullmatch(run) or run in _FUNCTION_CHARS else {run}
    out: set[str] = set()
    for i in range(len(run) - 1):
        pair = run[i : i + 2]
        if _HIRAGANA.fullmatch(pair) or pair in _STOP_CJK:
            continue
        if i and run[i - 1 : i + 1] in _STOP_CJK and _HIRAGANA.fullmatch(pair[1]):
            continue  # 採用し, 指示し: a stop word's ending, not a word of its own
        if pair[0] in _JA_CASE_PARTICLES or pair[1] in _JA_CASE_PARTICLES:
            continue  # 分の, を消: a case particle beside a word is grammar, not content
        if (
            _HIRAGANA.fullmatch(pair[0])
            and not _HIRAGANA.fullmatch(pair[1])
            and pair[0] not in "おご"
        ):
            continue  # た雨, り替: a word's ending against the next word (お茶 is a word)
        out.add(pair)
    for i, ch in enumerate(run):
        # 妻の, は犬を: a kanji standing alone between kana is a word of its own
        if (
            is_han(ch)
            and ch not in _FUNCTION_CHARS
            and (i == 0 or not is_han(run[i - 1]))
            and i < len(run) - 1
            and run[i + 1] in "のはがをにでともへや"
        ):
            out.add(ch)
    return out


def _across_function_char(tok: str) -> bool:
    """Whether *tok* is a pair of Chinese characters one of which is a function character
    (的, 把, 或, 成 …: the list ``function_chars``)."""
    return (
        len(tok) == 2
        and is_han(tok[0])
        and is_han(tok[1])
        and (tok[0] in _FUNCTION_CHARS or tok[1] in _FUNCTION_CHARS)
    )


def carries(content: frozenset[str], texts: Iterable[str], share: int = 2) -> bool:
    """Whether *texts* (quotes) say what *content* credits: at least one *share*-th of its
    tokens (half unless told; and at least one) occur in them. Nothing specific credited:
    any text carries it."""
    texts = [t for t in texts if t]
    if not texts:
        return False
    if not content:
        return True
    have: set[str] = set()
    for t in texts:
        have |= content_tokens(t)
    # a one-character verb the clause is left with (老板自己发) is said where it stands in
    # a word of the person's (自己用手机发给老周): the tokens are pairs, it is no pair
    if len(content) <= 2:
        have |= {
            c for c in content if len(c) == 1 and _is_cjk_token(c) and any(c in t for t in texts)
        }
    files = {h for h in have if "." in h or "/" in h}
    if files:
        # a path the person named by its file (values-prod.yaml for deploy/…/values-prod.yaml)
        have |= {c for c in content if "/" in c and any(c.endswith("/" + f) for f in files)}
    if _opposite(content, texts):
        return False  # "delete the logs" for "keep the logs"
    glossed = _glossed(content - have, have)
    # a Japanese verb said in another form (送る for 送ります, 消し for 消して) is said
    conjugated = {_verb_stem(t) for t in have}
    glossed |= {t for t in content - have if _verb_stem(t) != t and _verb_stem(t) in conjugated}
    if _across_scripts(content, have):
        # every word said, or said in the other language word for word (insurance for
        # 保险), or else the values and names that do not depend on the language
        # a paraphrase in the other language says the same things in other words: at least
        # two of them (a quarter of a long one) said or glossed carry it, with every value
        # and term the claim names (:func:`_anchored`; the names are checked apart)
        hit = sum(1 for tok in content if tok in have or tok in glossed)
        if hit >= max(2, len(content) // 4) and _values_said(content, have):
            return True
        return _anchored(content, have)
    hit = sum(1 for tok in content if tok in have or tok in glossed)
    if hit >= max(1, -(-len(content) // share)):
        return True
    # a Chinese pair across a function character (或把, 的对, 信或) is as often two words'
    # edges as a word: it weighs on neither side, unless it is all the claim says
    core = [t for t in content if not _across_function_char(t)]
    if core and len(core) < len(content):
        hit = sum(1 for tok in core if tok in have or tok in glossed)
        if hit >= max(1, -(-len(core) // share)):
            return True
    return _translated(content, have) or any(
        _carried_across(content, line) for t in texts if "\n" in t for line in t.split("\n")
    )


def _raw_of(texts: Sequence[str]) -> frozenset[str]:
    out: set[str] = set()
    for t in texts:
        out |= _raw_tokens(t)
    return frozenset(out)


def _carried_across(content: frozenset[str], line: str) -> bool:
    """A claim in one script carried by one line of the person's in the other, where their
    whole turn mixes scripts (a Chinese sentence under a pasted YAML file): the line is
    compared as a turn of its own would be."""
    have = set(content_tokens(line))
    if not have or not _across_scripts(content, have):
        return False
    glossed = _glossed(content - have, have)
    return all(t in have or t in glossed for t in content) or _anchored(content, have)


#: The lines of a list of opposites: two sides, each its words with their tokens.
_Sides = tuple[tuple[tuple[tuple[str, frozenset[str]], ...], ...], ...]


@functools.cache
def _opposites() -> _Sides:
    """The list ``opposites``: each line's two sides, each a tuple of its words with their
    comparison tokens."""
    return _sides(lexicon.words("opposites"))


@functools.cache
def _directions() -> _Sides:
    """The list ``directions``, read as ``opposites`` is."""
    return _sides(lexicon.words("directions"))


def _sides(lines: Iterable[str]) -> _Sides:
    out = []
    for line in lines:
        if "||" not in line:
            continue
        sides = []
        for side in line.split("||", 1):
            words = [w.strip() for w in side.split("|") if w.strip()]
            sides.append(tuple((w, t) for w in words if (t := _raw_tokens(w))))
        out.append(tuple(sides))
    return tuple(out)


#: A negation right before a word ("don't delete", "not to remove", 不要删除, 别删): the
#: word then means its opposite.
_NEGATION_BEFORE = re.compile(
    r"(?i)(?:\b(?:not|never|no|don['’]?t|doesn['’]?t|didn['’]?t|won['’]?t|without)"
    r"(?:\s+(?:to|be|ever|any|all|the|these|those|it|them|my|our))*\s*"
    r"|[不别別没沒勿莫][要用能許许]?)$"
)
#: A negation among a credit's own words: its opposites are not read.
_NEGATION_TOKENS = frozenset({"not", "never", "no", "don't", "dont", "without"})
_NEGATED_CJK = re.compile(r"[不别別没沒勿莫無无非]")
#: A negation anywhere in a credit or a memory's text. Narrower than
#: :func:`.negation.negations_in`: 禁止 and 拒否 are a side of ``opposites``, not a negation.
_NEGATION_WORD = re.compile(
    r"(?i)\b(?:not|never|no|without|don['’]?t|doesn['’]?t|didn['’]?t|won['’]?t|isn['’]?t|"
    r"aren['’]?t|wasn['’]?t|weren['’]?t|cannot|can['’]?t)\b|[不别別没沒勿莫無无非]|ない|ません|ず[、。に]"
)


def _negated(text: str) -> bool:
    """Whether *text* holds a negation (its opposites are then left to the other rules)."""
    return _NEGATION_WORD.search(fold(text)) is not None


def _opposite(
    content: frozenset[str],
    texts: Sequence[str],
    have: frozenset[str] | None = None,
    sides: _Sides | None = None,
    negated: bool | None = None,
) -> str:
    """The word of *content* on one side of a line of *sides* (``opposites`` unless given)
    where the person's words (*texts*; their tokens *have*, read from *texts* when needed)
    say only the other, and say it without a negation right before it ("don't delete" is
    "keep"); "" when there is none. A credit with a negation of its own is not read."""
    if negated is None:
        negated = bool(content & _NEGATION_TOKENS) or any(
            _NEGATED_CJK.search(t) for t in content if _is_cjk_token(t)
        )
    if negated:
        return ""
    for line in _opposites() if sides is None else sides:
        for said, unsaid in ((line[0], line[1]), (line[1], line[0])):
            word = next((w for w, t in said if t <= content), "")
            if not word:
                continue
            if have is None:
                have = _raw_of(texts)
            if (
                not any(t <= have for _w, t in said)
                and not any(t <= content for _w, t in unsaid)
                and any(t <= have and _plainly_said(w, texts) for w, t in unsaid)
            ):
                return word
    return ""


@functools.lru_cache(maxsize=1024)
def _raw_tokens(text: str) -> frozenset[str]:
    """Comparison tokens of every word of *text*, the words of crediting included (an
    approval is what "approved" says): Latin word stems and adjacent pairs of Chinese and
    Japanese characters (one character standing alone is itself)."""
    folded = fold(text)
    out = {_stem(m.group(0)) for m in _LATIN_WORD_RAW.finditer(folded)}
    for m in _CJK_SPAN.finditer(folded):
        run = m.group(0)
        if len(run) > 1:
            out.update(run[i : i + 2] for i in range(len(run) - 1))
        else:
            out.add(run)
    return frozenset(out)


_LATIN_WORD_RAW = re.compile(r"[A-Za-z]{2,}")


def says_opposite(clause: str, texts: Sequence[str]) -> bool:
    """Whether a credit's whole *clause* (its verb included: "the user approved the refund")
    says one side of an ``opposites`` line where the person's words *texts* say only the
    other ("hold off on the refund")."""
    return bool(_opposite(_raw_tokens(clause), texts, negated=_negated(clause)))


#: A negated verb in the person's words: English "do not (under any circumstances) order",
#: Chinese 不要/别 before a word, Japanese a word before しないで/ません. Group 1 (English or
#: Chinese) or group 2 (Japanese) is the word the negation takes back.
_NEGATED_VERB = re.compile(
    r"(?i)\b(?:do\s+not|don['’]?t|never|must\s+not|mustn['’]?t|should\s+not|shouldn['’]?t|"
    r"cannot|can['’]?t|won['’]?t|no\s+longer|stop)"
    r"(?:\s*,?\s*(?:under\s+any\s+circumstances|in\s+any\s+case|ever|again|even|at\s+all|"
    r"yet|just|really|please|pls|to|be|get|go|you|we)\b,?)*\s+([a-z]{3,})"
    r"|(?:不要|不用|不能|不准|不许|不許|别|別|禁止|没有|没)\s*([\u4e00-\u9fff]{2})"
    r"|([\u4e00-\u9fff]{2})(?:しないで|しない|しません|せず|はしない|はしません)"
    # "X (なんか) したら no good": 据え置きなんかしたらだちゃかん, 値下げしたらあかん
    r"|([\u4e00-\u9fff][\u3041-\u3093]?[\u4e00-\u9fff][\u3041-\u3093]?)(?:なんか|など|は)?"
    r"(?:したら|しちゃ|しては|やったら)(?:だめ|ダメ|あかん|いかん|いけない|いけん|だちゃかん|だちかん|でけん)"
)


_NONE_WORD = re.compile(r"(?i)\b(?:nobody|nothing|none|neither|nor|no\s+one|instead)\b")


def _negated_words(texts: Sequence[str]) -> frozenset[str]:
    """The tokens the person's words say only under a negation ("do not … order the
    GP5000s", 不要删除, 削除しないで): what they take back, said nowhere without it."""
    heads: set[str] = set()
    rest: set[str] = set()
    for t in texts:
        folded = fold(t)
        for m in _NEGATED_VERB.finditer(folded):
            word = next(g for g in m.groups() if g)
            heads |= content_tokens(word)
        rest |= content_tokens(_NEGATED_VERB.sub(" ", folded))
    return frozenset(heads - rest)


def restates_negated(clause: str, texts: Sequence[str]) -> str:
    """The word a credit's *clause* asserts that the person's words (*texts*) say only
    under a negation ("the owner wants GP5000s ordered from Northgate" over "do not order
    the GP5000s from Northgate"), or "". A credit that is itself negated, or that says the
    opposite word ("keep the logs" for "don't delete the logs"), restates nothing."""
    folded = fold(clause)
    if _negated(clause) or _NONE_WORD.search(folded) or _NEGATED_VERB.search(folded):
        return ""  # "intends to stop buying" restates "stop buying"
    taken_back = _negated_words(texts)
    if not taken_back:
        return ""
    hit = sorted(content_tokens(clause) & taken_back)
    return hit[0] if hit else ""


def reverses(text: str, quotes: Sequence[str]) -> str:
    """The direction word of *text* ("went up", 増えた, 涨) whose opposite is all its
    *quotes* say ("went down", 減った, 降), or "" (the list ``directions``)."""
    return _opposite(_raw_tokens(text), quotes, sides=_directions(), negated=_negated(text))


def _plainly_said(word: str, texts: Sequence[str]) -> bool:
    """Whether *word* occurs in *texts* at least once without a negation right before it."""
    for text in texts:
        low = fold(text).lower()
        at = low.find(word)
        while at >= 0:
            end = at + len(word)
            if not _NEGATION_BEFORE.search(low[max(0, at - 24) : at]) and not (
                _is_cjk_token(word) and _NEGATION_AFTER.match(low, end, end + 8)
            ):
                return True
            at = low.find(word, at + 1)
    return False


#: A Japanese negation right after a verb's stem (消したくない, 残してない, 使いません).
_NEGATION_AFTER = re.compile(r"[ぁ-ゖ]{0,4}?(?:ない|なく|ません|ず)")


@functools.cache
def _glossary() -> tuple[
    dict[str, tuple[frozenset[str], ...]], tuple[tuple[frozenset[str], frozenset[str]], ...]
]:
    """The list ``glossary`` as comparison tokens: each English word's stem with the token
    sets of its Chinese and Japanese words, and each such token set with its stems. A
    one-character word is left out: it is a piece of too many others."""
    latin: dict[str, list[frozenset[str]]] = {}
    cjk: list[tuple[frozenset[str], frozenset[str]]] = []
    for line in lexicon.words("glossary"):
        parts = [p.strip() for p in line.split("|") if p.strip()]
        stems = frozenset(_stem(p) for p in parts if p.isascii() and " " not in p)
        sets = [content_tokens(p) for p in parts if not p.isascii() and len(p) >= 2]
        sets = [t for t in sets if t]
        for stem in stems:
            latin.setdefault(stem, []).extend(sets)
        cjk.extend((t, stems) for t in sets)
    return {k: tuple(v) for k, v in latin.items()}, tuple(cjk)


@functools.cache
def _glossary_by_token() -> dict[str, tuple[tuple[frozenset[str], frozenset[str]], ...]]:
    """The Chinese and Japanese words of the glossary by each of their tokens."""
    out: dict[str, list[tuple[frozenset[str], frozenset[str]]]] = {}
    for entry in _glossary()[1]:
        for t in entry[0]:
            out.setdefault(t, []).append(entry)
    return {k: tuple(v) for k, v in out.items()}


def _glossed(missing: frozenset[str], have: set[str]) -> set[str]:
    """The tokens of *missing* the person's words say in the other language: an English
    stem whose Chinese or Japanese word is in *have*, or the tokens of a Chinese or
    Japanese word whose English word is."""
    if not missing:
        return set()
    latin = _glossary()[0]
    conjugated = {_verb_stem(t, loose=True) for t in have}

    def said(tokens: frozenset[str]) -> bool:
        return all(t in have or _verb_stem(t, loose=True) in conjugated for t in tokens)

    out = {t for t in missing if any(said(w) for w in latin.get(t, ()))}
    out |= _loans(missing, have)
    by_token = _glossary_by_token()
    entries = dict.fromkeys(e for t in missing for e in by_token.get(t, ()))
    for tokens, stems in entries:
        if not tokens <= missing | have:
            continue
        # said in English, or by another word of the same line in the same script
        # (使用 for 用途 no, 保持 for 保留 yes: both are "keep")
        if stems & have or any(
            other != tokens and said(other) for st in stems for other in latin.get(st, ())
        ):
            out |= tokens & missing
    return out


def _verb_stem(tok: str, loose: bool = False) -> str:
    """A Japanese verb's token by its kanji (送る, 送り and 送っ are one verb); any other
    token as it is. A stem ending in the a-row (送ら, 来な, 行か) is the form a negation or
    a passive follows (送らない, 来ない): it stays apart, so 来る never meets 来ない --
    unless *loose*, for a word looked up in the glossary (the negation is the negation
    floor's to count)."""
    if (
        len(tok) == 2
        and is_han(tok[0])
        and "\u3041" <= tok[1] <= "\u3096"
        and (loose or tok[1] not in _A_ROW)
    ):
        return tok[0] + "\u301c"
    return tok


_A_ROW = frozenset("あかがさざただなはばぱまやらわ")


def said_otherwise(missing: frozenset[str], have: set[str]) -> set[str]:
    """The tokens of *missing* that *have* says in the other language or as a loanword."""
    return _glossed(missing, have)


def _loans(missing: frozenset[str], have: set[str]) -> set[str]:
    """The tokens of *missing* the person's words say as a Japanese loanword, or that are a
    loanword for an English word of theirs (commit for コミット, キャンセル for cancel)."""
    kana = [t for t in have if _KATAKANA_WORD.fullmatch(t)]
    stems = [t for t in have if t.isascii() and t.isalpha()]
    out = set()
    for t in missing:
        if t.isascii() and t.isalpha():
            if any(same_loanword(t, k) for k in kana):
                out.add(t)
        elif _KATAKANA_WORD.fullmatch(t) and any(same_loanword(st, t) for st in stems):
            out.add(t)
    return out


def _translated(content: frozenset[str], have: set[str]) -> bool:
    """A claim that mixes scripts and whose Chinese or Japanese words occur nowhere in the
    person's (a Chinese note on an English mail: "Ingrid：45 天内付款，PO HM-2026-118") is a
    translation: its values and Latin names carry it, as across scripts (:func:`_anchored`),
    and it must give at least two of them."""
    cjk = [t for t in content if _is_cjk_token(t)]
    if not cjk or any(t in have for t in cjk):
        return False
    anchors = [t for t in content if not _is_cjk_token(t)]
    return len(anchors) >= 2 and all(t in have for t in anchors)


def _is_cjk_token(tok: str) -> bool:
    return not tok.startswith(VALUE_MARK) and CJK_CHAR.search(tok) is not None


def _across_scripts(content: frozenset[str], have: set[str]) -> bool:
    """Whether a claim is written in another script than the words that should carry it
    (an English body crediting the person's Japanese, a Chinese one crediting English):
    its words then cannot be compared one by one."""
    words = [t for t in content if not t.startswith(VALUE_MARK)]
    cjk = sum(map(_is_cjk_token, words))
    spoken = [t for t in have if not t.startswith(VALUE_MARK)]
    spoken_cjk = sum(map(_is_cjk_token, spoken))
    if not words or not spoken:
        return False
    if 3 * cjk <= len(words):
        # a Latin claim (a name in CJK at most: "their wife 美咲"): the person wrote CJK,
        # with at most a few Latin words
        return spoken_cjk > 2 * (len(spoken) - spoken_cjk)
    if cjk == len(words):  # a CJK claim against Latin words
        return spoken_cjk == 0
    return False


def codes_unsaid(content: frozenset[str], texts: Sequence[str]) -> frozenset[str]:
    """The coded terms (sgp1, nyc3, v2) of a credit across scripts that the person's words
    do not say: in another language, a code is all that can be compared, so the whole
    credit must say only the person's codes, whatever clause it is read to end at."""
    have: set[str] = set()
    for t in texts:
        have |= content_tokens(t)
    lines = (line for t in texts for line in t.split("\n"))
    if not _across_scripts(content, have) and not any(
        _across_scripts(content, set(content_tokens(line))) for line in lines
    ):
        return frozenset()
    return frozenset(
        t
        for t in content
        if not t.startswith(VALUE_MARK) and any(c.isdigit() for c in t) and t not in have
    )


def _values_said(content: frozenset[str], have: set[str]) -> bool:
    """Whether every value and coded term (sgp1, v2) of *content* is in *have*."""
    values = {t for t in content if t.startswith(VALUE_MARK)}
    coded = {t for t in content if not t.startswith(VALUE_MARK) and any(c.isdigit() for c in t)}
    return values <= have and coded <= have


def _anchored(content: frozenset[str], have: set[str]) -> bool:
    """A claim across scripts is carried by what does not depend on the language: every
    value it credits, and its Latin names and terms, must be in the person's words, and
    it must credit at least one such thing (unknown means no)."""
    values = {t for t in content if t.startswith(VALUE_MARK)}
    latin = {t for t in content if not t.startswith(VALUE_MARK) and not _is_cjk_token(t)}
    spoken_latin = {t for t in have if not t.startswith(VALUE_MARK) and not _is_cjk_token(t)}
    shared = latin & spoken_latin if spoken_latin else set()
    if not values and not shared:
        return False
    coded = {t for t in latin if any(c.isdigit() for c in t)}  # sgp1, nyc3, v2: said as is
    return values <= have and coded <= have


# =========================================================================== English

_ADVERBS = (
    r"(?:\s+(?:has|have|had|did|does|do|also|already|just|then|now|once|clearly|"
    r"explicitly|finally|originally|specifically|actually|really|firmly|strongly|repeatedly|"
    r"personally|always|never|not|later|earlier|initially|eventually|definitely|politely|kindly|"
    r"directly|expressly|themselves|himself|herself|yourself|ourselves|all|both|still|again|"
    r"even|first|only|reportedly|apparently|basically|simply|quickly|instead|ultimately|"
    r"(?:do|does|did|has|have|had|would|will)n['’]t|cannot|can['’]t))*"
)
_NOUN_HEADS = lexicon.words("attribution_noun_heads")
_PASSIVE_PARTICIPLE_OK = lexicon.words("attribution_passive_participle_ok")
_MODALS_HYPO = lexicon.words("attribution_modals_hypo")
_PREFERENCE = lexicon.words("attribution_preference")
_HEDGES = lexicon.words("attribution_hedges")
_OBJECT_STARTS = lexicon.words("attribution_object_starts")
_VERBS = lexicon.words("attribution_verbs")
_VIEW_NOUNS = (
    r"(?:decision|decisions|request|requests|preference|preferences|call|choice|choices|instruction|"
    r"instructions|wish|wishes|rule|rules|requirement|requirements|order|orders|approval|idea|ideas|"
    r"demand|demands|verdict|words|view|views|opinion|opinions|take|plan|plans|goal|goals|intent|"
    r"intention|intentions|concern|concerns|worry|worries|feeling|feelings|priority|priorities|"
    r"position|stance|suggestion|suggestions|advice|answer|reply|response|comment|comments|complaint|"
    r"complaints|insistence|direction|directions|say-so|veto|mandate|recommendation|ask)"
)
_EN_CONDITION = re.compile(
    r"\b(?:if|when|whenever|unless|until|before|after|once|in\s+case|whether|should|lest|"
    r"every\s+time|each\s+time|as\s+soon\s+as)\b[^.;:!?]*$",
    re.IGNORECASE,
)
#: A clause a question word opens, naming a topic: "how the user runs the business".
_TOPIC_OPENER = re.compile(r"(?i)\b(?:how|where|what)\s+$")


def names_a_topic(text: str, claim: Claim) -> bool:
    """Whether *claim* stands in a clause that names what is kept rather than says it
    happened: "keeps … how the user runs the business", a present habit after how,
    where or what. A past verb ("how the user decided") still tells of an act."""
    words = claim.phrase.split()
    at = text.find(claim.phrase, max(0, claim.start - 2))  # the claim read from folded text
    start = at if at >= 0 else claim.start
    return bool(
        words
        and _TOPIC_OPENER.search(text[max(0, start - 12) : start])
        and not _PAST.search(words[-1])
    )


_PAST = re.compile(
    r"(?:ed|said|told|chose|chosen|thought|felt|went|wrote|ran|bought|kept|made|"
    r"knew|saw|found|forbade|had|ok'd)$",
    re.IGNORECASE,
)


#: A trade's name right after a family name: the firm named for the family (上園農園).
_NOT_A_FIRM = (
    "(?!"
    + "|".join(sorted(map(re.escape, lexicon.words("org_trades")), key=len, reverse=True))
    + ")"
)


def _names_pattern(names: Sequence[str]) -> str:
    """The configured names as they may be written in a text, by the one rule of
    :mod:`.names`: compared folded (the text is folded before it is read), Latin case
    ignored, with or without an honorific suffix or an English title. A Latin name is read
    as a whole word; any other spelling is another person."""
    parts = []
    for name in names:
        if isinstance(name, str):
            key = name_key(name)
            if key:
                part = re.escape(key).replace(r"\ ", r"\s+")
                if key[0].isascii() and key[0].isalnum():
                    part = rf"(?<![A-Za-z0-9])(?i:{part})(?![A-Za-z0-9])"
                elif len(key) == 1 and fold(name).strip() != key:
                    # 于总 is 于 with its title: alone, 于 is "at" (低于25); a name given
                    # bare (蓮) is read bare
                    part = rf"(?<![小老阿])(?:{part}){HONORIFIC_PATTERN}"
                else:
                    part = rf"(?<![小老阿])(?:{part})"  # 小蓮, 老张, 阿伟: nicknames
                if not (key[0].isascii() and key[0].isalnum()):
                    part += _NOT_A_FIRM  # 上園農園 is the farm, not 上園 who runs it
                parts.append(part)
    parts.sort(key=len, reverse=True)
    if not parts:
        return ""
    return f"(?:{TITLE_PATTERN}?(?:{'|'.join(parts)}){HONORIFIC_PATTERN}?)"


@functools.lru_cache(maxsize=64)
def _en_patterns(names: tuple[str, ...]) -> dict[str, re.Pattern[str]]:
    named = _names_pattern(names)
    human = r"(?:(?:the|our|my|this|that)\s+(?:user|human|owner|boss)|you|we"
    human += rf"|{named})" if named else ")"
    anyone = rf"(?:the\s+user|the\s+human|the\s+owner|the\s+boss|them|him|her|you|us{'|' + named if named else ''})"
    named_s = rf"|(?:{named})[’']s" if named else ""  # "Alice's"
    return {
        "subject": re.compile(
            rf"\b(?P<who>{human})\b(?![-_'’])(?P<adv>{_ADVERBS})\s+(?P<w>(?:[a-z]{{2,12}}-)?[a-z'’]+)"
            rf"(?:\s+(?P<w2>[a-z'’]+))?(?:\s+(?P<w3>[a-z'’]+))?",
            re.IGNORECASE,
        ),
        "bare": re.compile(
            r"(?:^|(?<=[.!?;:]\s)|(?<=\n)|(?<=^\s))(?P<who>users?|owner|human)\b(?![-_'’])"
            rf"(?P<adv>{_ADVERBS})\s+(?P<w>(?:[a-z]{{2,12}}-)?[a-z'’]+)(?:\s+(?P<w2>[a-z'’]+))?(?:\s+(?P<w3>[a-z'’]+))?",
            re.IGNORECASE,
        ),
        "pronoun": re.compile(
            rf"\b(?P<who>he|she|they)\b(?![-_'’])(?P<adv>{_ADVERBS})\s+(?P<w>(?:[a-z]{{2,12}}-)?[a-z'’]+)"
            rf"(?:\s+(?P<w2>[a-z'’]+))?(?:\s+(?P<w3>[a-z'’]+))?",
            re.IGNORECASE,
        ),
        "possessive": re.compile(
            rf"\b(?P<who>(?:the\s+)?(?:user|human|owner|boss)(?:['’]s|s['’])|your|our|their|his|her"
            rf"{named_s})\s+(?:own\s+)?(?:final\s+|explicit\s+|"
            rf"express\s+|clear\s+|stated\s+|strong\s+)?{_VIEW_NOUNS}\b",
            re.IGNORECASE,
        ),
        "source": re.compile(
            rf"\b(?:according\s+to|per|as\s+per|in\s+the\s+words\s+of|on\s+behalf\s+of|at\s+the\s+request\s+of|"
            rf"as\s+requested\s+by|as\s+told\s+by|as\s+asked\s+by)\s+(?P<who>{anyone})\b",
            re.IGNORECASE,
        ),
        "in_view": re.compile(
            rf"\bin\s+(?P<who>(?:the\s+)?(?:user|owner|human|boss)['’]s|her|his|their|your|our"
            rf"{named_s})\s+(?:own\s+)?"
            rf"(?:view|opinion|words|eyes|mind|book|judg(?:e)?ment|estimation)\b",
            re.IGNORECASE,
        ),
        "passive_i": re.compile(
            r"\b(?:I|we)\s+(?:was|were|have\s+been|had\s+been|'ve\s+been|got|get|am|are|'m|'re)\s+"
            r"(?:\w+ly\s+)?(?:asked|told|instructed|requested|advised|directed|ordered|reminded|warned|"
            r"encouraged|allowed|permitted|forbidden|given|shown|taught|corrected|assigned|tasked|"
            r"expected|supposed|begged|urged|pressed|pushed|made|cleared|authori[sz]ed|approved)\b",
            re.IGNORECASE,
        ),
        "as_requested": re.compile(
            r"\b(?:as\s+(?:\w+ly\s+)?(?:requested|instructed|asked|agreed|discussed|directed|specified|decided|"
            r"desired|wished|wanted|preferred|ordered|told|promised|approved|demanded|suggested|"
            r"recommended|chosen|planned|arranged)|(?:at|on|upon|by|per)\s+(?:(?:the\s+)?(?:user['’]s|"
            r"owner['’]s|human['’]s)|their|his|her|your|our)?\s*(?:request|instruction|instructions|"
            r"direction|directions|wish|wishes|insistence|suggestion|demand|say-so)|"
            # "on orders over £250" is about purchase orders: an order is theirs only when
            # its owner is named ("on the owner's orders")
            r"(?:at|on|upon|by|per)\s+(?:(?:the\s+)?(?:user['’]s|owner['’]s|human['’]s)|their|his|her|"
            r"your|our)\s*(?:order|orders)|"
            r"per\s+(?:request|instructions?)|(?:user|owner|human)-(?:requested|approved|chosen|"
            r"specified|selected|preferred|mandated|decided|requested|driven|initiated|directed|"
            r"confirmed))\b",
            re.IGNORECASE,
        ),
        "it_was": re.compile(
            r"\bit\s+(?:was|has\s+been|had\s+been|is|got)\s+(?:\w+ly\s+)?(?:decided|agreed|requested|"
            r"approved|chosen|settled|determined|mandated|ruled|confirmed|specified|asked|ordered|"
            r"instructed|insisted)\b",
            re.IGNORECASE,
        ),
        "relative": re.compile(
            rf"\b(?:{human}|users?)\s*,?\s+(?:who|that)\s+(?:\w+ly\s+)?(?:had\s+|has\s+|have\s+)?"
            rf"(?:decided|chose|asked|wanted|wants|said|says|insisted|requested|prefers|preferred|approved|"
            rf"picked|told|agreed|demanded|likes|liked|hates|hated|needs|needed)\b",
            re.IGNORECASE,
        ),
        "by_human": re.compile(
            rf"\b(?:decided|approved|requested|chosen|picked|agreed|rejected|vetoed|ordered|asked|"
            rf"specified|wanted|preferred|mandated|selected|set|requested|proposed|suggested|"
            rf"instructed|demanded|signed\s+off|okayed|confirmed|insisted\s+on)\s+(?:upon\s+)?by\s+"
            rf"(?P<who>{anyone}|he|she|they)\b",
            re.IGNORECASE,
        ),
    }


@functools.lru_cache(maxsize=64)
def _names_re(names: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(_names_pattern(names), re.IGNORECASE)


# A speaker label at a line start: "Mika: …", "[Mika] …", "<Mika> …", "Mika - …", "> [USER] …",
# 「田中さん：…」. The words after it are the labelled person's.
_SPEAKER = re.compile(
    r"(?m)^[ \t>*\"'「『“-]*+(?:"
    r"\[[ \t]*+(?P<b>[^\]\n:：]{1,24}?)[ \t]*+\][ \t]*+[:：]?"
    r"|<(?P<a>[^>\n:：]{1,24})>[ \t]*+[:：]?"
    r"|(?P<c>[^\W\d_][\w .'’-]{0,24}?)[ \t]*+[:：]"
    r"|(?P<d>[A-Z][a-z]{1,15}(?: [A-Z][a-z]{1,15})?) [-–—]"
    r")[ \t]*+(?=\S)"
)
# 「田中さん: …」, "王老师：…": a named person's label (an honorific says it is a person)
_HONORIFIC_LABEL = re.compile(
    r"^(?P<name>[^\W\d_]{1,8}?)(?:さん|様|さま|氏|先生|くん|君|ちゃん|老师|老師|经理|經理|总|總)$"
)
#: What a titled name never holds: a possessive (导出的), or a title that is the end of
#: a common word (汇总 "summary", 总总).
_NOT_A_TITLED_NAME = re.compile(r"[的之の]|(?:汇|匯|总|總|统|統)(?:总|總)$")
#: A word before a titled name in a label that makes the line addressed to them: 回复,
#: 给, 跟, 告诉, 发给, 致; 宛, へ.
_ADDRESSED = re.compile(
    r"^(?P<by>.*?)(?:回复|回覆|回|给|給|跟|告诉|告訴|发给|發給|写给|寫給|致|问|問)|(?:宛|へ)$"
)
#: Who a label says is replying when it is the person: 用户已, 我, ユーザーが.
_HUMAN_SENDER = re.compile(
    r"(?:用户|用戶|使用者|我|ユーザー|私|(?i:the user|user|i))(?:已经?|已經|要|想|让|讓|会|會|が|は)?"
)
_LATIN_NAME = re.compile(r"[A-Z][a-z]{1,15}(?: [A-Z][a-z]{1,15})?")
#: The endings of English words that are not names ("Related:", "Pending:", "Resolution:").
_WORD_SHAPE = re.compile(
    r"^[A-Za-z]{4,}(?:ed|ing|ion|ions|ment|ments|ness|ity|ive|ous|ful|less|able|ible|ure|ance|"
    r"ence|ship|ics|ism|ist|ary|ory|ings|ers)$"
)
#: Labels that are another speaker than the human: the agent, a model, a system.
_AGENT_LABELS = lexicon.words("attribution_agent_labels")
#: A line that goes on in the first or second person after its label is speech.
_SPEECH_START = re.compile(
    r"(?i)(?:i|i['’](?:m|d|ll|ve)|we|we['’](?:re|ll|ve|d)|let['’]s|you|my|our|me)\b"
)
_DIALOGUE_HUMAN = re.compile(
    r"(?:the\s+)?(?:user|human|owner|boss|me|you|ユーザー|用户|使用者|主人)", re.IGNORECASE
)
_THIRD_EN = re.compile(
    r"\b(?P<who>[A-Z][a-z]{1,15}(?:\s+[A-Z][a-z]{1,15})?)"
    # where they are from: "Martin Hale of Bramble & Thyme wrote" credits Martin Hale
    r"(?:\s+(?:of|from|at)\s+[A-Z][\w'’.-]{0,20}(?:\s+(?:&\s+)?[A-Z][\w'’.-]{0,20}){0,3})?"
    r"(?P<adv>" + _ADVERBS + r")\s+"
    r"(?P<w>said|says|told|tells|asked|asks|wants|wanted|decided|decides|prefers|preferred|insisted|"
    r"insists|suggested|suggests|recommended|recommends|approved|approves|thinks|thought|believes|"
    r"believed|feels|felt|mentioned|mentions|noted|notes|wrote|writes|reported|reports|promised|"
    r"promises|agreed|agrees|confirmed|confirms|requested|requests|likes|liked|hates|hated|chose|"
    r"chooses|picked|picks|rejected|rejects|vetoed|refused|refuses|demanded|demands|warned|warns|"
    r"advised|advises|explained|explains|claimed|claims|argued|argues|objected|objects|doesn['’]t|"
    r"didn['’]t|won['’]t|wouldn['’]t|proposed|proposes|offered|offers|added|adds|volunteered|"
    r"volunteers|committed|commits|accepted|accepts|declined|declines|countered|counters|quoted|"
    r"quotes|estimated|estimates|conceded|concedes|insisted|vouched|promised|signed|questioned|"
    r"questions|raised|raises|okayed|okays|vetoes|overruled|overrules)\b"
)
# A named person's view: "Mika's call", "Hiro's decision".
_THIRD_POSSESSIVE = re.compile(
    rf"\b(?P<who>[A-Z][a-z]{{1,15}})['’]s\s+(?:own\s+|final\s+|explicit\s+|clear\s+|stated\s+)?"
    # "Hartley's order" is what Hartley's buys: a customer's order is no view of theirs
    rf"(?!order\b){_VIEW_NOUNS}\b"
)
# People named by who they are to someone: "my wife says", "our landlord decided".
_PEOPLE_EN = re.compile(
    r"\b(?:(?:my|our|his|her|their|your)\s+(?P<who>wife|husband|partner|spouse|boss|manager|"
    r"landlord|landlady|client|customer|colleague|co-?worker|friend|mother|mom|mum|father|dad|son|"
    r"daughter|brother|sister|doctor|lawyer|accountant|neighbou?r|kids?|child|children|parents?|"
    r"teacher|tenant|roommate|flatmate|team|company|vendor|lead)"
    # who decides for a group the human belongs to, named by role: "the team decided"
    # ("the client" is as often a program as a person, so it needs "my" or "our")
    r"|the\s+(?P<group>team|company|landlord|management|committee|council|school|doctor|lawyer|"
    r"accountant|manager|architect|reviewers?|maintainers?|neighbou?rs?|kids|children|parents))"
    r"(?P<adv>" + _ADVERBS + r")\s+(?P<w>[a-z'’]+)(?:\s+(?P<w2>[a-z'’]+))?",
    re.IGNORECASE,
)
_NOT_NAMES = frozenset(
    [
        "The",
        "This",
        "That",
        "These",
        "Those",
        "It",
        "Its",
        "I",
        "We",
        "You",
        "He",
        "She",
        "They",
        "There",
        "Here",
        "Then",
        "When",
        "While",
        "If",
        "But",
        "And",
        "Or",
        "So",
        "Also",
        "Now",
        "Today",
        "Yesterday",
        "Tomorrow",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
        "Nobody",
        "Everyone",
        "Someone",
        "Anyone",
        "Each",
        "Every",
        "Both",
        "Either",
        "Neither",
        "One",
        "Another",
        "Other",
        "Such",
        "What",
        "Which",
        "Who",
        "Why",
        "How",
        "Where",
        "Python",
        "Docker",
        "Git",
        "Linux",
        "Kura",
        "Claude",
        "Codex",
        "Gemini",
        "Aider",
        "Opencode",
        "Copilot",
        "Ollama",
        "Llama",
        "Mistral",
        "Qwen",
        "GPT",
        "Chrome",
        "Firefox",
        "Windows",
        "Mac",
        "Ubuntu",
        "Debian",
        "Fedora",
        "Arch",
        "User",
        "Users",
        "Owner",
        "Human",
        "Boss",
        "Agent",
        "Model",
        "Tool",
        "Nothing",
        "Everything",
        "Something",
        "Anything",
        "Most",
        "Many",
        "Some",
        "Few",
        "All",
        "None",
        "Our",
        "Their",
        "His",
        "Her",
        "Your",
        "My",
    ]
)


_Found = tuple[int, int, str, str, str]  # start, end, phrase, who (HUMAN, PRONOUN, THIRD), name


def _en_claims(text: str, names: tuple[str, ...]) -> list[_Found]:
    pats = _en_patterns(names)
    name_set = {fold(n).lower() for n in names if isinstance(n, str) and n}
    return (
        _en_subject_claims(text, pats, name_set)
        + _en_phrase_claims(text, pats, names)
        + _en_third_party_claims(text, name_set)
    )


def _en_subject_claims(
    text: str, pats: dict[str, re.Pattern[str]], name_set: set[str]
) -> list[_Found]:
    """A person (or a pronoun for one) as the subject of a verb that reports them."""
    out: list[_Found] = []
    for key in ("subject", "bare", "pronoun"):
        for m in pats[key].finditer(text):
            who_text = m.group("who")
            w = m.group("w").lower().replace("’", "'")
            w2 = (m.group("w2") or "").lower()
            w3 = (m.group("w3") or "").lower()
            if w in ("would", "will", "'d", "'ll") and (w2 in _HEDGES or w2.endswith("ly")):
                continue  # "the user would probably prefer": a guess, labelled as one
            if w2.endswith("ly") and w3:
                w2 = w3
            adv = (m.group("adv") or "").lower()
            if key == "bare" and who_text.lower() == "users":
                continue
            if not _is_claim_verb(w, w2, adv):
                continue
            end = m.end("w")
            who = PRONOUN if key == "pronoun" else HUMAN
            if key == "subject" and who_text.lower() in name_set:
                who = HUMAN
            if _in_condition(text, m.start(), w, adv):
                continue
            out.append((m.start(), end, text[m.start() : end], who, ""))
    return out


def _en_phrase_claims(
    text: str, pats: dict[str, re.Pattern[str]], names: tuple[str, ...]
) -> list[_Found]:
    """Phrases that credit a person: "in their view", "as requested", "User: ..."."""
    out: list[_Found] = []
    for key in ("possessive", "source", "in_view", "by_human"):
        for m in pats[key].finditer(text):
            who_text = (m.groupdict().get("who") or "").lower()
            who = (
                PRONOUN
                if who_text.strip() in ("his", "her", "their", "him", "them", "he", "she", "they")
                else HUMAN
            )
            out.append((m.start(), m.end(), m.group(0), who, ""))
    for key in ("passive_i", "as_requested", "it_was"):
        for m in pats[key].finditer(text):
            if key == "as_requested" or not _in_condition(text, m.start(), "ed", ""):
                out.append((m.start(), m.end(), m.group(0), HUMAN, ""))
    for m in pats["relative"].finditer(text):
        out.append((m.start(), m.end(), m.group(0), HUMAN, ""))
    return out


def _label_claims(text: str, names: tuple[str, ...]) -> list[_Found]:
    """Speaker labels at a line start: the human's ("User:", "[USER]", a configured name) or
    another person's -- a name with an honorific, a bare name ("Mika:", "[Mika]", "<Mika>",
    "Mika -", 张伟：, 田中：) or the agent's. Headings and field names ("Note:", "Step 1:",
    "TODO:", "Re:", "Summary:") are no speakers.

    A bare capitalised word before a colon or a dash is the one weak shape: "Mika:" and
    "Kitchen:" look alike. It names a speaker when the word is a common given name, when
    the text also holds a label that surely is a speaker (a conversation), when the text
    names that person elsewhere ("Mika's call", "@Mika", "Mika said"), or when the line goes
    on in the first person ("Mika: I think …"). Otherwise it is a topic heading."""
    found: list[tuple[re.Match[str], str, str]] = []
    for m in _SPEAKER.finditer(text):
        label = _label_of(m)
        who, name = _speaker(label, names, dash=m.group("d") is not None)
        if who:
            found.append((m, who, name))
    weak = [_weak_label(m, who, name) for m, who, name in found]
    conversation = not all(weak)
    people: set[str] | None = None
    out: list[_Found] = []
    for (m, who, name), is_weak in zip(found, weak, strict=True):
        if is_weak and not conversation:
            if people is None:
                people = _people_named(text)
            if not _a_person(name, text, m.end(), people):
                continue
        out.append((m.start(), m.end(), m.group(0), who, name))
    return out


def _label_of(m: re.Match[str]) -> str:
    return (m.group("a") or m.group("b") or m.group("c") or m.group("d") or "").strip()


def _weak_label(m: re.Match[str], who: str, name: str) -> bool:
    """A bare capitalised word as another person's label (*name*, as `_speaker` read it),
    outside a quotation: the one shape a topic heading shares ("Kitchen: …"). Bracketed
    and quoted labels are speakers."""
    if who != THIRD or m.group("a") or m.group("b"):
        return False
    if name.lower() in _AGENT_LABELS or not _LATIN_NAME.fullmatch(name):
        return False
    head = m.group(0)[: m.start("c" if m.group("c") else "d") - m.start()]
    return ">" not in head and name.split()[0].lower() not in GIVEN_NAMES


def _people_named(text: str) -> set[str]:
    """Names the text uses as people: who says or decides something, whose view it is."""
    named = {m.group("who").split()[0] for m in _THIRD_EN.finditer(text)}
    named |= {m.group("who") for m in _THIRD_POSSESSIVE.finditer(text)}
    return named


def _a_person(name: str, text: str, after: int, people: set[str]) -> bool:
    first = name.split()[0]
    return first in people or f"@{first}" in text or _SPEECH_START.match(text, after) is not None


def _speaker(label: str, names: tuple[str, ...], *, dash: bool = False) -> tuple[str, str]:
    """Who a line's label names: (HUMAN, ""), (THIRD, the name), or ("", "") for none."""
    if is_configured(label, names) or (not dash and _DIALOGUE_HUMAN.fullmatch(label)):
        return HUMAN, ""
    low = label.lower()
    if low in _AGENT_LABELS:
        return THIRD, label
    honorific = _HONORIFIC_LABEL.match(label)
    if honorific is not None and _NOT_A_TITLED_NAME.search(label):
        honorific = None  # 愿望单导出的汇总：a summary's heading (汇总), no 王总
    if honorific is not None:
        if (to := _ADDRESSED.search(honorific.group("name"))) is not None:
            # 回复刘经理：…, 给王总：…: what is said to them, not their words -- the words of
            # whoever the label says is replying (用户已回复王经理：… is the person's)
            sender = to.group("by") or ""
            return (HUMAN, "") if _HUMAN_SENDER.fullmatch(sender) else ("", "")
        return THIRD, honorific.group("name")
    first = label.split()[0] if label.split() else ""
    if _LATIN_NAME.fullmatch(label) and not (
        first in _NOT_NAMES
        or low in HEADINGS
        or first.lower() in HEADINGS
        or first.lower() in _STOP_EN
        or _WORD_SHAPE.search(first)
    ):
        return THIRD, label
    if _bare_cjk_name(label):
        return THIRD, label
    return "", ""


def _bare_cjk_name(word: str) -> bool:
    """Whether a run of Han characters is a bare personal name: a Japanese family name, or a
    Chinese surname and one or two characters that are not a common word."""
    if word in JA_SURNAMES:
        return True
    return (
        2 <= len(word) <= 3
        and word[0] in ZH_SURNAMES
        and all(is_han(ch) for ch in word)
        and word[:2] not in ZH_NOT_NAMES
    )


def _en_third_party_claims(text: str, name_set: set[str]) -> list[_Found]:
    """A third person, by name or by who they are ("my wife"), who "said" or "decided" something."""
    out: list[_Found] = []
    for m in _PEOPLE_EN.finditer(text):
        w = m.group("w").lower().replace("’", "'")
        if _is_claim_verb(
            w, (m.group("w2") or "").lower(), (m.group("adv") or "").lower()
        ) and not _in_condition(text, m.start(), w, ""):
            who = m.group("who") or m.group("group")
            out.append((m.start(), m.end("w"), text[m.start() : m.end("w")], THIRD, who))
    for m in _THIRD_POSSESSIVE.finditer(text):
        # "Assistant's view": the agent's own labelled view, not a third person's
        if m.group("who") not in _NOT_NAMES and m.group("who").lower() not in _AGENT_LABELS:
            out.append((m.start(), m.end(), m.group(0), THIRD, m.group("who")))
    for m in _THIRD_EN.finditer(text):
        name, start = m.group("who"), m.start()
        parts = name.split()
        if len(parts) == 2 and parts[0].lower() in _WH_WORDS:
            continue  # "Where Jellyfin writes its transcodes": a question named, no report
        if len(parts) == 2 and _opens_clause(parts[0]):
            # "Until Tomás confirms", "Once Priya approves": a word that opens the clause,
            # capitalised at the sentence's start, and the name after it
            name, start = parts[1], m.start() + name.index(parts[1], len(parts[0]))
        first = name.split()[0]
        if first in _NOT_NAMES or name.lower() in name_set:
            continue
        if _in_condition(text, start, m.group("w"), ""):
            continue
        if m.group("w").endswith("ed") and _HAVE_DONE.search(text, max(0, start - 30), start):
            continue  # "the plan has block 3 Chenin Blanc picked on Saturday": a thing done
        out.append((start, m.end("w"), text[start : m.end("w")], THIRD, name))
    return out


#: A verb that has something done, the thing right after it ("has block 3 Chenin Blanc
#: picked", "got the Landini serviced"): what follows it is no one's report.
_HAVE_DONE = re.compile(
    r"(?i)\b(?:has|have|having|get|gets|got|getting|want|wants|wanted|need|needs|needed)\b"
    r"(?:[ \t]+(?:the|a|an|our|their|his|her|its|block|row|no\.?|[0-9]+))*[ \t]+$"
)


#: Words that open a clause and are capitalised at a sentence's start, never part of a name.
_CLAUSE_OPENERS = lexicon.words("clause_openers", ("en",))
_WH_WORDS = lexicon.words("wh_words", ("en",))


def _opens_clause(word: str) -> bool:
    low = word.lower()
    return word in _NOT_NAMES or low in _CLAUSE_OPENERS or low in ENGLISH_FUNCTION_WORDS


def _is_claim_verb(w: str, w2: str, adv: str) -> bool:
    """Whether the word after a human subject makes the clause a claim about them."""
    if w in _NOUN_HEADS:
        return w2 in (
            "that",
            "how",
            "down",
            "it",
            "them",
            "this",
            "these",
            "those",
            "what",
            "why",
            "where",
            "whether",
        )
    if w in ("is", "was", "were", "are", "am", "'s", "s"):
        return (
            w2 in _PASSIVE_PARTICIPLE_OK
            or w2 in ("a", "an", "the", "not", "never", "no")
            or (
                w2 not in _OBJECT_STARTS
                and bool(w2)
                and not w2.endswith(("ed", "en"))
                and w2 not in _NOUN_HEADS
                and w2
                not in ("being", "going", "logged", "added", "created", "prompted", "shown", "sent")
            )
        )
    if w in _MODALS_HYPO:
        return False
    if w in ("will", "'ll") and w2 in ("need", "want", "use", "reuse"):
        return False  # "logistics the team will need again": a forecast of use, not a credit
    if w in ("would", "will", "'d", "'ll"):
        return w2 in _PREFERENCE
    if adv.strip().split() and adv.strip().split()[-1] in _HEDGES:
        return False
    if w in _VERBS:
        return True
    if w.endswith("ed") and len(w) > 4:
        return True
    return bool(
        w.endswith("s") and len(w) > 3 and not w.endswith("ss") and (not w2 or w2 in _OBJECT_STARTS)
    )


def _in_condition(text: str, start: int, verb: str, adv: str) -> bool:
    """A present-tense claim after "if", "when", "before"... is a condition, not a report."""
    before = text[max(0, start - 60) : start]
    if _EN_COUNTERFACTUAL.search(before):
        return True  # "as if it had been decided": what did not happen, in any tense
    if not _EN_CONDITION.search(before):
        return False
    return not (_PAST.search(verb) or _PAST_AUX.search(adv))


_PAST_AUX = re.compile(r"\b(?:did|had|was|were)\b")
_EN_COUNTERFACTUAL = re.compile(
    r"\b(?:as\s+if|as\s+though|pretend(?:s|ed|ing)?(?:\s+that)?|suppose|supposing|imagine|"
    r"imagining)\b[^.;:!?]*$",
    re.IGNORECASE,
)


# =========================================================================== Japanese

_JA_HUMAN = (
    r"ユーザー|ユーザ|利用者|使用者|人間|オーナー|ご主人様|ご主人|マスター|依頼者|依頼主|"
    r"お客様|あなた|私たち|わたしたち|僕たち|僕ら|ぼくら|我々|われわれ|私ども|うちら|自分たち"
    # 本人 opening its clause is the person; 山田さん本人 is 山田
    r"|(?<![^\s、。,，「『（(:：])本人"
)
_JA_PRONOUN = r"彼女ら|彼女|彼ら|先方|あの人|その人|あの方|その方"
#: people named by who they are to someone (third persons unless the evidence says otherwise)
_JA_PEOPLE = (
    r"妻|夫|母|父|家族|上司|同僚|友人|友達|息子|娘|旦那|嫁|子供|子ども|部長|課長|社長|医者|大家|"
    r"取引先|お客さん|顧客|先輩|後輩|家内|主人の母|義母|義父"
)
_JA_HONORIFIC = (
    r"(?:さん|様|さま|氏|くん|君|ちゃん|殿|先生|部長|課長|社長|さん達|たち|"
    r"医師|看護師|師長|院長|教授|主任|係長|室長|店長|所長|会長|専務|常務|弁護士|税理士|副社長)"
)
_JA_PARTICLE = (
    r"(?:が|は|も|から|より|としては|的には|って|で(?=[^。！？\n]{0,20}?(?:決め|決定|合意|話し合)))"
)
_JA_VIEW = (
    r"(?:希望|ご希望|意向|ご意向|判断|決定|指示|ご指示|依頼|ご依頼|要望|ご要望|好み|意見|ご意見|考え|"
    r"方針|要求|要請|提案|承認|許可|お願い|意思|気持ち|こだわり|意図|命令|注文|選択|一存|言いつけ|"
    r"言葉)"
    # 部長の承認が先, 承認を得てから: what is still needed from them credits them with nothing
    r"(?![ \t]*(?:が(?:先|必要|要る|いる)|を(?:得|待|もら|取)|待ち|次第|前|後|が出(?:て|る|たら)))"
)
_JA_BY = (
    r"に(?:[^。！？\n、]{0,16}?)(?:頼ま|言わ|指示さ|求めら|お願いさ|依頼さ|命じら|注意さ|指摘さ|"
    r"要望さ|要求さ|怒ら|止めら|許可さ|勧めら|すすめら|提案さ|決めら)"
)
_JA_PASSIVE = re.compile(
    r"(?:と|ように|よう)?(?:言われ|頼まれ|指示され|求められ|お願いされ|依頼され|命じられ|注意され|"
    r"指摘され|要望され|要求され|勧められ|許可され)(?:た|て|ました|ている|ていた|ています|ていました)|"
    r"(?:言われた|頼まれた|指示された|指示|ご要望|要望|ご希望|希望|ご指定|指定|ご依頼|依頼)(?:通り|どおり)|"
    r"とのこと|との事|との(?:指示|依頼|要望|希望|要求|決定|ご意向|意向|話|ご指示|ご依頼)|"
    r"(?:だ|です)そう(?:だ|です)"
)
#: The named source of a report: 佐藤さんのLINEより, 田中さんから聞いた, 鈴木氏からの連絡.
_JA_SOURCE = re.compile(
    rf"[{HAN}ァ-ヶー]{{1,6}}(?:さん|様|氏|先生|くん|ちゃん)(?:の[^。！？\n]{{0,12}}?)?"
    r"(?:より|から聞|からの|から連絡|では|によると|によれば)"
)
_JA_CONDITION = re.compile(
    r"(?:たら(?!しい)|れば|なら(?!な|ず)|ならば|場合|ときは|時は|際は|際に|限り|ても"
    # until or before the person does it (撤回するまで保持, 確認する前に): a time not yet come
    r"|(?<=[るうくすつむぶぐ])(?:まで(?!に)|前に|前は))"
)
#: A time or a condition right after a report: 言われたとき, 頼まれたら, 指示された場合.
_JA_WHEN_AFTER = re.compile(r"(?:とき|時|際|ら(?!し)|場合|ときは|時は)")
#: A quotative that closes what someone said (…と言った, …って言ってた, …と決めた).
_JA_QUOTATIVE = re.compile(r"(?:と|って)(?:言|いっ|話|伝え|決め|答え|頼|書|返信|連絡)")
_JA_THIRD = re.compile(
    # a family and a given name may stand apart (田中 遼さん)
    rf"(?P<who>(?<![ぁ-ん])[ぁ-ん]{{2,4}}|[{HAN}]{{1,3}}[ \u3000][{HAN}ァ-ヶー]{{1,4}}|"
    rf"[{HAN}ァ-ヶー]{{1,6}}|[A-Za-z]{{2,15}})"
    rf"(?P<hon>さん|様|氏|くん|君|ちゃん|殿|先生|部長|課長|社長|医師|看護師|師長|院長|教授|主任|係長|室長|店長|所長|会長|専務|常務|弁護士|税理士|副社長)"
    rf"(?=(?:{_JA_PARTICLE}|の{_JA_VIEW}|に(?:よると|よれば)|いわく|曰く|{_JA_BY}))"
)
_JA_NOT_NAMES = lexicon.words("attribution_ja_not_names")
_JA_ROLES = lexicon.words("role_nouns", ("ja",))
#: What a group named by its role must be said to do in its clause to be credited with it.
_JA_ROLE_SAYS = re.compile(
    r"言|話|決め|頼|希望|要望|求め|望|提案|指摘|依頼|申し|伝え|聞|答え|書い|連絡|訴え|相談|怒|"
    r"述べ|語っ|発言|主張|説明|報告|賛成|反対|承認|了承|断っ"
)
_JA_ROLE_CLAUSE_END = re.compile(r"[。！？!?\n]")


#: A bare Japanese family name (or a Latin name) as the subject of a clause that says or
#: decides something: 田中が決めた, 佐藤は…と言った, Mikaも賛成した.
_JA_BARE_VERBS = (
    # って quotes a clause after its plain form (明日着だって, 来るって, 「…」って, ないって);
    # after a verb's stem (終わって, 待って) or before the verb it joins (切ってください,
    # 決まっていない, 待っておく), it is the verb's own form and says nothing
    r"(?P<say>と言|って言|っていう|と話|と言わ|"
    r"(?:(?<=[うくすつぬふむゆるぐずぶぷただ」』])|(?<=ない)|(?<=いい))って(?![いおくあもしみほ]|下さい|欲しい))|"
    r"決め|決定|言っ|言わ|頼ん|頼ま|"
    r"指示|希望|望ん|選ん|思っ|反対|賛成|提案|要望|求め"
)
_JA_BARE = re.compile(
    r"(?<![" + HAN + r"々A-Za-zァ-ヶー])"
    r"(?P<who>[" + HAN + r"々]{1,4}|[ァ-ヶ][ァ-ヶー]{1,7}|[A-Z][a-z]{1,15})(?P<p>が|は|も|から)"
    rf"(?=[^。！？\n]{{0,40}}?(?:{_JA_BARE_VERBS}))"
)
_JA_BARE_VERB = re.compile(_JA_BARE_VERBS)
#: Where a subordinate clause ends before the verb: 寄付先が6自治体になるので、蓮は…決めた
#: (the subject of the ので clause is not the one who decides).
_JA_JOINT = re.compile(r"、|，|ので|のに|から|けど|けれど|ため|なら|たら|ても|でも")
#: A family name's (or a Latin name's) view: 田中の意見, Mikaの判断.
_JA_BARE_VIEW = re.compile(
    rf"(?<![{HAN}々A-Za-z])(?P<who>[{HAN}々]{{2,3}}|[A-Z][a-z]{{1,15}})の{_JA_VIEW}"
)
#: Subjects that are the speaker, or no one in particular, before が/は.
_JA_NOT_SUBJECTS = lexicon.words("attribution_ja_not_subjects")
_JA_PRONOUN_RE = re.compile(_JA_PRONOUN)
_JA_PEOPLE_RE = re.compile(
    rf"(?<![{HAN}])(?P<who>{_JA_PEOPLE})(?:さん|様)?(?:{_JA_PARTICLE}|の{_JA_VIEW}|"
    rf"に(?:よると|よれば)|{_JA_BY})"
)
_JA_CLAUSE_END = re.compile(r"[。！？!?\n]")


@functools.lru_cache(maxsize=64)
def _ja_patterns(names: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Who is the human in Japanese (the configured names too), and a claim they make."""
    named = _names_pattern(names)
    human = _JA_HUMAN + (f"|{named}" if named else "")
    subj = re.compile(
        rf"(?P<who>{human}|{_JA_PRONOUN})(?:{_JA_HONORIFIC})?(?:{_JA_PARTICLE}|の{_JA_VIEW}|"
        rf"に(?:よると|よれば)|いわく|曰く|{_JA_BY})"
    )
    return re.compile(human), subj


#: The words for "the user" that also name users of something (メールのユーザー, 新用户).
_USERS_WORDS = ("ユーザー", "ユーザ", "利用者", "使用者", "用户", "用戶")
_USERS_MODIFIERS = lexicon.words("users_modifiers", ("ja", "zh"))
_JA_OF_BEFORE = re.compile(rf"[{HAN}\u30a0-\u30ffA-Za-z0-9]の$")


def _users_of_something(text: str, start: int, who: str) -> bool:
    """Whether "the user" at *start* names some users rather than the person: users of a
    thing (メールのユーザー, 邮件的用户) or a kind of users (新規ユーザー, 付费用户)."""
    if who not in _USERS_WORDS:
        return False
    before = text[max(0, start - 8) : start]
    if _JA_OF_BEFORE.search(before) or before.endswith("的"):
        return True
    return any(before.endswith(w) for w in _USERS_MODIFIERS)


def _ja_claims(text: str, names: tuple[str, ...]) -> list[tuple[int, int, str, str, str]]:
    human, subj = _ja_patterns(names)
    out: list[tuple[int, int, str, str, str]] = []
    for m in subj.finditer(text):
        if _ja_condition(text, m.end()) or _users_of_something(text, m.start(), m.group("who")):
            continue
        who = PRONOUN if _JA_PRONOUN_RE.fullmatch(m.group("who")) else HUMAN
        out.append((m.start(), m.end(), m.group(0), who, ""))
    for m in _JA_PEOPLE_RE.finditer(text):
        if _ja_condition(text, m.end()) or _ja_described(text, m):
            continue
        out.append((m.start(), m.end(), m.group(0), THIRD, m.group("who")))
    for m in _JA_THIRD.finditer(text):
        name = m.group("who")
        family, space, given = name.replace("\u3000", " ").partition(" ")
        if space and family not in lexicon.words("names_ja_surnames"):
            name = given  # 取引先 田中さん: the word before the space is no family name
        if (
            human.fullmatch(name)
            or _JA_PRONOUN_RE.fullmatch(name)
            or name in _JA_NOT_NAMES
            or name[-1:] in "仕同模多異態有"
            or text[m.end("hon") : m.end("hon") + 1] in ("子", "々", "式")
        ):
            continue
        if _ja_condition(text, m.end()):
            continue
        if name in _JA_ROLES or text[m.end() : m.end() + 1] in ("は", "が", "も"):
            stop = _JA_ROLE_CLAUSE_END.search(text, m.end())
            end = stop.start() if stop else len(text)
            if not (
                _JA_ROLE_SAYS.search(text, m.end(), end) or _JA_BARE_VERB.search(text, m.end(), end)
            ):
                # 歯周病の患者さんは3ヶ月ごと, 田中翔さんは4万円で採択: the person or the group
                # is what the sentence is about, not who says or decides it
                continue
        out.append((m.start(), m.end(), m.group(0), THIRD, name))
    out += _ja_bare_claims(text, human)
    out += _ja_passive_claims(text, out)
    return out


def _ja_passive_claims(text: str, found: list[_Found]) -> list[_Found]:
    """Reports in the passive (言われた, 頼まれて, とのこと) whose clause names no one
    *found* already credits: the person's, or hearsay from the last speaker named."""
    out: list[_Found] = []
    stops = [m.start() for m in _JA_CLAUSE_END.finditer(text)]
    starts = sorted(a for a, _, _, _, _ in found)
    for m in _JA_PASSIVE.finditer(text):
        if _ja_condition(text, m.end()) or _JA_WHEN_AFTER.match(text, m.end()):
            continue  # 変えると言われたとき, 頼まれたら: a time to come, no one has said it
        i = bisect.bisect_left(stops, m.start())
        clause_start = stops[i - 1] + 1 if i else 0
        j = bisect.bisect_left(starts, clause_start)
        if j < len(starts) and starts[j] < m.start():
            continue  # an agent is named (田中さんに言われて): that claim stands for it
        end = stops[i] if i < len(stops) else len(text)
        if _JA_SOURCE.search(text, clause_start, end):
            continue  # …とのこと（佐藤さんのLINEより）: a report with its source named
        who, name = HUMAN, ""
        before = [f for f in found if f[0] < clause_start]
        last = max(before, key=lambda f: f[0]) if before else None
        follows = bool(last and last[3] == THIRD and text.count("。", last[1], clause_start) <= 1)
        if m.group(0) in UNNAMED_REPORTS:
            # a report that names no one is hearsay from whoever the evidence quotes
            who = PRONOUN
            if follows and last:
                # 佐藤さんは…。以前…とのこと: the report goes on with the last sentence's speaker
                who, name = THIRD, last[4]
        elif follows and last and _ASKED.search(m.group(0)):
            # 林さんによると…。…と書くよう求められている: asked by the one the sentence before names
            who, name = THIRD, last[4]
        out.append((m.start(), m.end(), m.group(0), who, name))
        bisect.insort(starts, m.start())
    return out


def _reported(text: str, start: int, sentences: list[tuple[int, int]]) -> frozenset[str]:
    """What a report that follows its content (…とのこと) credits: its sentence up to it,
    not what the sentence goes on to say (…とのことで、比較スクリプトでは…と出た)."""
    i = bisect.bisect_right(sentences, (start, len(text) + 1)) - 1
    s_start = sentences[i][0] if i >= 0 and sentences[i][0] <= start else 0
    return content_tokens(_unqualified(text[max(s_start, start - CLAIM_REACH) : start]))


#: A passive of asking: the one asked is told what to do by someone (求められ, 頼まれ).
_ASKED = re.compile(r"求められ|頼まれ|言われ|指示され|依頼され|要望され|お願いされ|要求され")
#: Reports that name no one: "it is said" of whoever spoke last.
UNNAMED_REPORTS = frozenset({"とのこと", "との事", "との話"})


def _ja_described(text: str, m: re.Match[str]) -> bool:
    """Whether a family member or a role before a bare particle is only what the clause
    describes (子どもは小学生2人, 母が出してくれる), not someone it credits: nothing in the
    clause says, decides or wants."""
    if not m.group(0).endswith(("が", "は", "も")):
        return False
    end = _JA_CLAUSE_END.search(text, m.end())
    clause = text[m.end() : end.start() if end else len(text)]
    return _JA_BARE_VERB.search(clause) is None


def _ja_bare_claims(text: str, human: re.Pattern[str]) -> list[_Found]:
    """A person named without a title: a family name (or a Latin name) with a view (田中の意見)
    or as a subject; any other subject that decides (…が決めた) or says (…は…と言った)."""
    out: list[_Found] = []
    for m in _JA_BARE_VIEW.finditer(text):
        name = m.group("who")
        if name in JA_SURNAMES or (name[0].isascii() and name not in _NOT_NAMES):
            out.append((m.start(), m.end(), m.group(0), THIRD, name))
    for m in _JA_BARE.finditer(text):
        name = m.group("who")
        if name in _JA_NOT_SUBJECTS or name in _NOT_NAMES or human.fullmatch(name):
            continue
        if len(name) == 1 and m.group("p") == "が" and text[m.end() : m.end() + 1] in _VERB_GOES_ON:
            continue  # 上がってる, 下がる: a verb's own が, no subject
        said = _JA_BARE_VERB.search(text, m.end(), m.end() + 44)
        if said and _JA_OTHER_SUBJECT.search(text, m.end(), said.start()):
            continue  # ランチが終わってすぐだが、店主はそれでいいと言っている: 店主 says it
        # a family name or a Latin name is a person; any other subject that decides (が) or
        # says (は…と言った) something is someone other than the speaker too
        person = name in JA_SURNAMES or name[0].isascii()
        if not (person or m.group("p") in ("が", "も") or m.group("say")):
            continue
        if not person and (text[m.start() - 1 : m.start()].isdigit() or _JA_WHEN.search(name)):
            continue  # 朝9時前が希望: a time is no one
        if not person and _ja_subordinate(text, m.end()):
            continue
        verb = _JA_BARE_VERB.search(text, m.end(), m.end() + 44)
        if not person and verb and text[verb.start() - 1 : verb.start()] == "未":
            continue  # 例外が未決定: nothing was decided, by anyone
        if (
            not person
            and m.group("say")
            and _JA_OUTER_SPEAKER.search(text, _sentence_start(text, m.start()), m.start())
        ):
            continue  # 佐藤さんは、歯周病の人は…と言った: the saying is 佐藤さん's
        if not _ja_condition(text, m.end()):
            out.append((m.start(), m.end(), m.group(0), THIRD, name))
    return out


#: What goes on a verb after its が (上がる, 上がって, 下がり): the が is the verb's.
_VERB_GOES_ON = frozenset("っるりられろ")
#: Another subject between a subject and the verb that says: the verb is that one's.
_JA_OTHER_SUBJECT = re.compile(
    rf"[、，][^、，。]{{0,12}}?(?:[{HAN}ァ-ヶー]{{1,6}}|ユーザー)(?:は|が)"
)

#: A titled speaker earlier in the sentence, whose saying a later subject sits inside.
_JA_OUTER_SPEAKER = re.compile(r"(?:さん|様|氏|くん|ちゃん|先生|部長|課長|社長)(?:は|が)")


def _sentence_start(text: str, pos: int) -> int:
    return max(text.rfind(c, 0, pos) for c in "。！？!?\n") + 1


#: A subject that is a time or an amount, not someone (9時前, 来週, 3日後).
_JA_WHEN = re.compile(r"[時前後頃日週月年分円]$|^[来今先毎]")


def _ja_subordinate(text: str, pos: int) -> bool:
    """Whether a subordinate clause ends between a subject ending at *pos* and the verb that
    says or decides: the subject then belongs to that clause, not to the verb."""
    stretch = _JA_CLAUSE_END.split(text[pos : pos + 40], maxsplit=1)[0]
    verb = _JA_BARE_VERB.search(stretch)
    return verb is None or _JA_JOINT.search(stretch, 0, verb.start()) is not None


#: A verb of deciding or judging after a condition, whose subject is the topic before it.
_JA_TOPIC_VERB = re.compile(
    r"賛成|反対|決め|了承|承認|同意|許可|希望|OK|オーケー|いい|良い|構わない"
)


def _ja_condition(text: str, pos: int) -> bool:
    """Whether the clause after *pos* (its first 24 characters) makes a claim a condition.
    A topic (ユーザーは) whose clause goes on to its own verb after the condition is the
    one who decides under it (ユーザーは月5千円以内なら賛成: the condition is credited)."""
    clause = _JA_CLAUSE_END.split(text[pos : pos + 24], maxsplit=1)[0]
    cond = _JA_CONDITION.search(clause)
    if cond is None:
        return False
    if text[pos - 1 : pos] == "は" or text[pos - 2 : pos] in ("は、", "は,"):
        rest = _JA_CLAUSE_END.split(text[pos + cond.end() : pos + 60], maxsplit=1)[0]
        if _JA_TOPIC_VERB.search(rest):
            return False
    # …30万円までなら出せると言った: the condition is inside what the person said
    rest = _JA_CLAUSE_END.split(text[pos + cond.end() : pos + 60], maxsplit=1)[0]
    return _JA_QUOTATIVE.search(rest) is None


# =========================================================================== Chinese

_ZH_HUMAN = r"用户|使用者|主人|老板|老闆|您|你们|你|我们|咱们|我們"
#: 他 and 她 as people, not inside a word (其他, 吉他, 利他, 排他; 他汀 the statin, 他人)
_ZH_PRONOUN = r"他们|她们|他們|她們|(?<![其吉利排])他(?![汀人])|她"
_ZH_COMPOUND = re.compile(
    r"(?:名|端|数据|數據|数|數|组|組|态|態|量|表|层|層|库|庫|说明|說明|手册|手冊|界面|体验|體驗|信息|"
    r"资料|資料|资讯|权限|權限|目录|目錄|空间|空間|账号|賬號|帐号|帳號|账户|帳戶|画像|協議|协议|隐私|"
    r"隱私|群|规模|規模|群体|群體|增长|增長|行为|行為|需求|习惯|習慣|留存|活跃|活躍|密码|密碼|头像|"
    r"頭像|昵称|暱稱|等级|等級|积分|積分|余额|餘額|订单|訂單|偏好设置|id|ID|代码|代碼|程序|进程|進程|"
    r"文件|配置|设置项|主目录|主目錄|家目录|模式|会话|會話|输入|輸入|反馈(?![说說称稱道了过過])|"
    r"故事|协议|研究|测试|測試|指南|文档|文檔|界面|页面|頁面|中心|管理|服务|服務|量级|量級)"
)
_ZH_VIEW = (
    r"(?:决定|決定|要求|意思|偏好|指示|意愿|意願|选择|選擇|吩咐|交代|想法|意见|意見|看法|观点|觀點|"
    r"建议|建議|需求|命令|安排|计划|計劃|主意|嘱咐|囑咐|叮嘱|叮囑|说法|說法|立场|立場|态度|態度|"
    r"说明|說明|解释|解釋|介绍|介紹)"
)
_ZH_INDIRECT = re.compile(
    rf"被(?P<w1>{_ZH_HUMAN}|{_ZH_PRONOUN})|"
    rf"(?:按照|按|照|根据|根據|依照|遵照|应|應|依|遵循|听从|聽從)(?:(?P<w2>{_ZH_HUMAN}|{_ZH_PRONOUN})的?)?{_ZH_VIEW}|"
    rf"据(?P<w3>{_ZH_HUMAN}|{_ZH_PRONOUN})所?(?:说|說|讲|講|称|稱|表示)"
)
#: A time clause the claim opens: 用户确认或否决后, 用户回来之前, 用户付款的时候 -- when
#: something will happen, not what the person said or did.
_ZH_WHEN_AFTER = re.compile(
    r"[^，。；;,.!?！？\n]{1,12}?(?:之后|之後|以后|以後|后(?![来來面续續])|後(?![来來面])|之前"
    r"|的时候|的時候)(?=[，,。；;\s]|再|就|才|可|即|$)"
)
_ZH_CONDITION = re.compile(
    r"(?:如果|若|要是|假如|假若|倘若|万一|萬一|一旦|每当|每當|只要|除非|如|当|當)\s*$"
)
_ZH_THIRD = re.compile(
    r"(?P<who>老婆|老公|妻子|丈夫|妈妈|爸爸|家人|领导|領導|同事|朋友|客户|客戶|甲方|医生|醫生|房东|房東|"
    r"经理|經理|主管|上司|团队|團隊|公司|组长|組長|部门|部門|运维|運維|对方|對方|乙方|厂商|廠商|"
    r"供应商|供應商|邻居|鄰居|学校|學校|他们|她们|他們|她們|"
    r"孩子|儿子|兒子|女儿|女兒|(?:老|小)["
    + HAN
    + r"]|["
    + HAN
    + r"]{1,3}(?:先生|女士|老师|老師|总|總|经理|經理|同学|同學|"
    r"师傅|師傅|医生|醫生|律师|律師))(?=[已也都又还還就曾一再明刚剛先不没沒]{0,3}(?:说|說|讲|講|告诉|告訴|要求|"
    r"希望|决定|決定|认为|認為|觉得|覺得|建议|建議|表示|提到|提出|同意|坚持|堅持|反对|反對|让|讓|叫|的"
    + _ZH_VIEW
    + r"))"
)


#: A bare Chinese name (a surname and one or two characters, no title) before a verb of
#: saying or deciding: 张伟决定, 李娜说, 王磊也觉得.
_ZH_BARE = re.compile(
    # a given name holds no function character (刘洋的说明 names 刘洋, not 刘洋的)
    rf"(?P<who>[{ZH_SURNAMES}](?:(?![的了是在和与與也都就还還说說听聽先不没沒别別])[{HAN}]){{1,2}}?)"
    r"(?= ?(?:已经|已經|也|都|又|还|還|就|一再|刚刚|剛剛|刚|剛|终于|終於|最终|最終|当时|當時|明确|明確"
    r"|先|不|没|沒){0,2}"
    r"(?:说|說|听说|聽說|讲|講|决定|決定|要求|认为|認為|觉得|覺得|希望|建议|建議|表示|提到|提出|同意|坚持|"
    r"堅持|反对|反對|打算|想要|选择|選擇|拍板|定了|告诉|告訴|让|讓|的" + _ZH_VIEW + r"))"
)
#: What defers to someone's word right before them: 以妈妈说的为准, 按医生说的做, 听老婆的.
_ZH_DEFER = re.compile(r"(?:以|按|按照|照|依|依照|遵照|听|聽)$")
#: A verb of saying or deciding right after who says it, with the adverbs before it.
_ZH_VERB = re.compile(
    r"(?:已经|已經|也|都|又|还|還|就|一再|刚刚|剛剛|刚|剛|明确|明確){0,2}"
    r"(?:说过|說過|说|說|讲|講|决定|決定|要求|认为|認為|觉得|覺得|希望|建议|建議|表示|提到|提出|"
    r"同意|坚持|堅持|反对|反對|打算|想要|选择|選擇|告诉|告訴)"
)
#: What makes the one after it spoken to, asked or waited for (跟经理说, 问下小陈再说,
#: 等王总定): the person's act, crediting nothing to them.
_ZH_OBJECT_MARKERS = tuple("跟和对對给給向与與同让讓叫帮幫请請问問等找") + (
    "告诉",
    "告訴",
    "问下",
    "問下",
    "问一下",
    "問一下",
)
_ZH_PRONOUN_RE = re.compile(_ZH_PRONOUN)
_ZH_WORD_START = re.compile(f"[{HAN}A-Za-z0-9]")
_KANA_START = KANA_CHAR
_ZH_OF_VIEW = re.compile(rf"的{_ZH_VIEW}")
_ZH_MODAL = re.compile(r"[可能会會应應要该該得]")
_ZH_IF_BEFORE = re.compile(r"(?:如果|若|要是|假如|万一|一旦|只要)[^，。,；;]*+$")
#: A condition or a time to come closing the claim's clause: 用户同意的话, 用户改主意时,
#: 用户确认之前 (the person does nothing in it yet).
_ZH_IF_AFTER = re.compile(
    r"[^，。,；;！？\n]{0,30}?(?:的话|时候|(?:之前|以前)(?!的)|(?<![同及准準按临臨小钟鐘])时(?![间間代期刻装裝尚常段区差]))"
)


#: A clause that ends as a time or a condition: …时, …的时候, …的话 (then a comma or the end).
_ZH_WHEN_CLAUSE = re.compile(
    r"[^，。,；;！？\n]{0,30}?(?:的话|时候|(?:(?<=[标標水]准)|(?<![同及准準按临臨小钟鐘]))时)"
    r"(?=[，,。；;\s]|$)"
)


@functools.lru_cache(maxsize=64)
def _zh_patterns(names: tuple[str, ...]) -> re.Pattern[str]:
    """Who is the human in Chinese (the configured names too), or a pronoun."""
    named = _names_pattern(names)
    human = _ZH_HUMAN + (f"|{named}" if named else "")
    return re.compile(rf"(?P<who>{human}|{_ZH_PRONOUN})")


def _zh_third_claims(text: str) -> list[_Found]:
    """Someone named by a role or a title before a verb of saying or deciding (团队决定,
    王经理说), unless the human speaks to them (跟经理说, 告诉王总)."""
    out: list[_Found] = []
    for m in _ZH_THIRD.finditer(text):
        who = m.group("who")
        title = next((t for t in ZH_TITLES if who.endswith(t) and who != t), "")
        named = who[: len(who) - len(title)] if title else ""
        if text[max(0, m.start() - 12) : m.start()].endswith(_ZH_OBJECT_MARKERS) or any(
            mark in named for mark in _ZH_OBJECT_MARKERS
        ):
            continue  # 跟团队说, 告诉经理, 我跟王经理说: the one spoken to, not the one credited
        before = text[max(0, m.start() - 12) : m.start()]
        if _ZH_CONDITION.search(before) or _ZH_IF_BEFORE.search(before):
            continue  # 如果客户要求…: a condition, crediting no one yet
        if _ZH_WHEN_CLAUSE.match(text, m.end()):
            continue  # 客户要求改变温控标准时: when they ask, not that they asked
        if _ZH_DEFER.search(text, max(0, m.start() - 3), m.start()) or (
            title and who[0] in "以按依听聽" and len(who) > len(title)
        ):
            continue  # 以妈妈说的为准, 按医生说的做: the person defers to them, crediting nothing
        if _ZH_NOUN_PHRASE.match(text, m.end()) and text[max(0, m.start() - 1) : m.start()] in (
            "的",
            "些",
            "项",
            "類",
            "类",
        ):
            continue  # 服务器的运维决定: a kind of decision named, not someone deciding
        start = m.start()
        if title and len(named) >= 2 and named[-1] in ZH_SURNAMES:
            # 岩韵陈总, 岩韵的陈总: a firm before the surname and title, who is 陈总
            start = m.start("who") + len(named) - 1
            who = who[len(named) - 1 :]
        out.append((start, m.end() + 2, text[start : m.end() + 2], THIRD, who))
    return out


#: A view noun that ends its phrase (…的运维决定。, 运维决定和原因): named, not made.
_ZH_NOUN_PHRASE = re.compile(rf"{_ZH_VIEW}(?=$|[，。、；,.;:：）)」\s和与及或])")


def _zh_claims(text: str, names: tuple[str, ...]) -> list[tuple[int, int, str, str, str]]:
    out: list[tuple[int, int, str, str, str]] = []
    for m in _zh_patterns(names).finditer(text):
        who_text = m.group("who")
        if _users_of_something(text, m.start(), who_text):
            continue
        after = text[m.end() : m.end() + 12]
        if not after or not _ZH_WORD_START.match(after):
            continue
        if _KANA_START.match(after):
            continue  # Japanese text around a shared character
        if _ZH_COMPOUND.match(after):
            continue
        if after.startswith("的") and not _ZH_OF_VIEW.match(after):
            continue
        if who_text in ("你", "您", "你们") and _ZH_MODAL.match(after):
            continue  # "you can/should": instructions, not claims
        before = text[max(0, m.start() - 12) : m.start()]
        if _ZH_CONDITION.search(before) or _ZH_IF_BEFORE.search(before):
            continue
        if _ZH_IF_AFTER.match(after) or _ZH_WHEN_AFTER.match(text, m.end()):
            continue
        if not before.endswith(("认为", "認為", "以为", "以為")) and before.endswith(
            (
                "告诉",
                "告訴",
                "给",
                "給",
                "对",
                "對",
                "向",
                "跟",
                "和",
                "帮",
                "幫",
                "为",
                "為",
                "让",
                "讓",
                "叫",
                "请",
                "請",
                "提醒",
                "通知",
                "催",
                "劝",
                "勸",
                "联系",
                "聯繫",
                "问问",
                "约",
                "約",
            )
        ):
            continue  # the human as an object ("告诉用户", "提醒他"), not the one credited
        who = PRONOUN if _ZH_PRONOUN_RE.fullmatch(who_text) else HUMAN
        verb = _ZH_VERB.match(after)
        # the phrase ends after its verb (用户说|用药…), else two characters on (用户定了)
        end = m.end() + (verb.end() if verb else min(2, len(after)))
        out.append((m.start(), end, text[m.start() : end], who, ""))
    for m in _ZH_INDIRECT.finditer(text):
        w = m.group("w1") or m.group("w2") or m.group("w3") or ""
        who = PRONOUN if w and _ZH_PRONOUN_RE.fullmatch(w) else HUMAN
        out.append((m.start(), m.end(), m.group(0), who, ""))
    out += _zh_third_claims(text)
    out += _zh_bare_claims(text)
    return out


def _zh_bare_claims(text: str) -> list[_Found]:
    """A bare Chinese name before a verb of saying or deciding (张伟决定, 李娜说), unless the
    person speaks to, asks or waits for them."""
    out: list[_Found] = []
    for m in _ZH_BARE.finditer(text):
        before = text[max(0, m.start() - 12) : m.start()]
        if before.endswith(_ZH_OBJECT_MARKERS):
            continue  # 跟张伟说, 告诉王磊, 我和李娜决定: an object or a partner, not the one credited
        if before.endswith(("小", "老")):
            continue  # 小陈再说: a familiar name, read whole by _zh_third_claims
        if _bare_cjk_name(m.group("who")) and not _ZH_IF_BEFORE.search(before):
            out.append(
                (m.start(), m.end() + 2, text[m.start() : m.end() + 2], THIRD, m.group("who"))
            )
    return out


# =========================================================================== claims

#: A sentence: read only from where one can start (a text or line start, or after its end
#: mark), so a long line is read once, not once per character.
#: A sentence: up to its end mark; a dot inside a word (calendar.yaml, 1.012, v2.3) is
#: none unless nothing else ends the sentence. Each character is read one way (a dot
#: before a word or not), and a sentence starts only after an end: linear.
_SENTENCE = re.compile(
    r"(?<![^.!?。！？；;\n])(?:[^.!?。！？；;\n]|\.(?=\w))+(?:[.!?。！？；;]++|$)|\n"
)
#: Where a clause ends inside a sentence. A run of spaces before a conjunction is read from
#: its first space (or from just after a dash break), not from each of its spaces.
#: A subordinating word that opens the sentence right before a credit ("After the user
#: rotated the key, …"): the credit's clause ends at its comma.
_SUBORDINATE_OPENING = re.compile(
    r"(?:^|[.!?]\s)\s*+(?:right\s++|just\s++|ever\s++|soon\s++|not\s++long\s++)?"
    r"(?:after|when|once|since|because|before|as\s++soon\s++as|although|though|while|"
    r"whenever|until|now\s++that)\s++$",
    re.IGNORECASE,
)


def subordinate_opening(before: str) -> bool:
    """Whether *before* (a sentence up to a credit) is only a subordinating word: the
    credit stands in a clause that ends at its comma."""
    return _SUBORDINATE_OPENING.search(before) is not None


_CLAUSE_BREAK = re.compile(
    r"""
      [;；：]
    | :(?!\d)
    | \s[—–-]\s
    | ,\s++(?:so|because|since|while|which|but|whereas|although|though|and\s++then)\b
    # ", and the configuration holds …": a clause with its own subject and verb
    | ,\s++and(?=\s++(?:the|its|their|this|that|it|they|there)\s++(?:[\w-]++\s++){0,3}?
        (?:is|are|was|were|has|have|had|holds|will|stays|remains|keeps|reads|says|shows|lists)\b)
    | (?:(?<!\s)|(?<=\s[—–-]\s))\s++(?:because|since|so\s++that|although|though)\s+
    """,
    re.VERBOSE,
)
_HAS_CJK = CJK_CHAR
#: How far into its sentence a claim's credit reaches on either side, in characters. Past
#: any real clause; it bounds the work per claim, which a text of thousands of claims in
#: one unbroken "sentence" (no stop in a page of Chinese) made quadratic.
CLAIM_REACH = 500


def fold_lines(text: str) -> str:
    """*text* folded line by line (:func:`.text.fold` on each line), its line breaks kept: a
    speaker label is read at a line start. Claims' offsets are into this form."""
    if "\n" not in text:
        return fold(text)
    return "\n".join(fold(line) for line in text.split("\n"))


#: A line break inside a sentence wrapped over lines: a word or a comma before it and a
#: lower-case word after ("we should\nmove the meeting").
_WRAPPED = re.compile(r"(?<=[A-Za-z0-9,;\-])\n(?=[ \t]*[a-z(])")


def unwrap(lined: str) -> str:
    """*lined* with the line breaks of a sentence wrapped over lines read as spaces (the
    same offsets: one character for one). Every other line break ends a clause: a chat
    message's lines, a paragraph, a pasted block ("田中さんからのメール貼るね" ends where
    the mail starts, and the person's own words after it are theirs again)."""
    if "\n" not in lined:
        return lined
    return _WRAPPED.sub(" ", lined)


#: A wh-word a few words before a pronoun: the clause is a question it names ("who she
#: is", "which days she works", "what they decided"), not something she said or did.
_EMBEDDED_QUESTION = re.compile(
    r"(?i)(?<![A-Za-z])(?:who|what|which|when|where|why|how|whether)(?:[ \t]+[A-Za-z]+){0,2}[ \t]+$"
)


#: What makes the person the one something is for or asked of, not the one who did it:
#: 供用户参考 (for the user's reference), 留给用户决定, 让用户选, 请用户确认.
_FOR_THEM = ("供", "以供", "便于", "方便", "留给", "交给", "让", "讓", "给", "給", "请", "請")

#: Characters that join a word into an identifier: a name right after one is a piece of it.
_IDENTIFIER_JOINS = frozenset(":/@_.#=\\")


#: A credit denied: "not something the user stated", …が言ったことではありません.
_NOT_A_CREDIT_BEFORE = re.compile(
    r"(?i)\bnot[ \t]+(?:(?:something|anything|what|one)[ \t]+(?:that[ \t]+)?)?$"
)
_NOT_A_CREDIT_AFTER = re.compile(
    r"[^。！？!?\n、，,]{0,30}?(?:ことでは|ことじゃ|わけでは|わけじゃ|のでは)(?:な|ありません)"
)


#: A bracketed aside: one that only says how sure a claim is ("（伝聞で、未確認）",
#: "(hearsay, unconfirmed)", （待确认）) is the writer's note on it, no part of it.
_META_ASIDE = re.compile(r"\([^()\n]{1,40}\)|（[^（）\n]{1,30}）")


def _blank_meta(m: re.Match[str]) -> str:
    inner = m.group(0)[1:-1].lower()
    qualifiers = lexicon.pattern("unsettled_kept")
    if not qualifiers.search(inner) or content_tokens(qualifiers.sub(" ", inner)):
        return m.group(0)  # it says something of its own: "(b)", "(to cancel it)"
    return " " * len(m.group(0))


#: A time to come right before a credit: "once", "until", "when", "after" and "if" as its
#: clause's opener. With a perfect ("has decided") the clause tells of no act yet.
_TIME_TO_COME = re.compile(r"(?i)(?:^|[\s(,;])(?:once|until|till|when|after|if|unless)\s+$")
_PERFECT = re.compile(
    r"(?i)\b(?:has|have)\s+(?:\w+ed|made|chosen|given|said|told|set|signed|written)\b"
)


def claims(text: str, human_names: Sequence[str] = ()) -> list[Claim]:
    """Every clause in *text* that credits the human or a named third person, once each,
    with what it credits. A person named by the one rule of :mod:`.names` as a configured
    human name is the human, however the clause names them."""
    lined = _META_ASIDE.sub(_blank_meta, fold_lines(text))
    if not lined.strip():
        return []
    folded = unwrap(lined)
    names = tuple(n for n in human_names if isinstance(n, str) and n.strip())
    labels = _label_claims(lined, names)
    spans = labels + _en_claims(folded, names)
    if _HAS_CJK.search(folded):
        spans += _ja_claims(folded, names)
        spans += _zh_claims(folded, names)
    spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
    lines = {s[0] for s in labels}
    out: list[Claim] = []
    reach = 0  # spans come by start, so one starts inside a kept one iff before its reach
    sentences = [m.span() for m in _SENTENCE.finditer(folded)]
    starts = [s[0] for s in spans]
    for start, end, phrase, who, name in spans:
        if start < reach:
            continue
        reach = max(reach, end)
        if start and folded[start - 1] in _IDENTIFIER_JOINS:
            continue  # staff:priya, @priya, /home/dana: a piece of an identifier, no one
        if who == THIRD and names and is_configured(name, names):
            who, name = HUMAN, ""
        if who == HUMAN and folded[max(0, start - 2) : start].endswith(_FOR_THEM):
            continue  # 供用户参考, 留给用户决定, 请用户确认: for the person to do, not done
        if _NOT_A_CREDIT_BEFORE.search(
            folded, max(0, start - 30), start
        ) or _NOT_A_CREDIT_AFTER.match(folded, end):
            continue  # "my judgement, not something the user stated", …言ったことではない
        if who == HUMAN and _disowned(folded, start, end):
            continue
        if _PERFECT.search(phrase) and _TIME_TO_COME.search(folded, max(0, start - 16), start):
            continue  # "once the owner has decided", "until the user has approved": not yet
        if (
            who == PRONOUN
            and _EMBEDDED_QUESTION.search(folded, max(0, start - 40), start)
            and not any(w in _SAYING for w in phrase.lower().split()[1:])
        ):
            continue  # "which days she works": a question named, no one credited
        k = bisect.bisect_left(starts, end)
        credited, framed = _credited(
            folded, start, end, sentences, starts[k] if k < len(starts) else None
        )
        if phrase.strip() in UNNAMED_REPORTS:
            credited, framed = _reported(folded, start, sentences), frozenset()
        wider = _wider(folded, start, end, sentences) if start not in lines else frozenset()
        wider = wider or framed
        wider = wider if wider != credited else frozenset()
        out.append(Claim(phrase.strip(), who, name, credited, start, end, start in lines, wider))
    return out


#: A view said not to be the person's: "not the user's decision", 不是用户的决定,
#: ユーザーの決定ではない. It credits them with nothing.
_DISOWNED_BEFORE = re.compile(r"(?:\bnot|n['’]t|不是|并非|并不是|而非|而不是)\s*$", re.IGNORECASE)
_DISOWNED_AFTER = re.compile(r"^\S{0,2}?(?:ではな|じゃな|ではあり|でもな)")


def _disowned(text: str, start: int, end: int) -> bool:
    """Whether the claim at [start, end) is a view denied to be the person's: a copula's
    negation right before it (not, 不是) or right after it (ではない)."""
    return bool(
        _DISOWNED_BEFORE.search(text[max(0, start - 12) : start])
        or _DISOWNED_AFTER.match(text[end : end + 8])
    )


#: The Japanese words of ``unsettled_kept`` of two characters or more: what keeps a claim
#: open (と考えている, 未確定, 予定) qualifies it and is no word the person must have said.
#: Not the Chinese ones: 先不考虑, 打算 are what a person decides; not a speech act (提案):
#: it says what was said before.
_QUALIFIERS = re.compile(
    "|".join(
        re.escape(w)
        for w in sorted(
            lexicon.words("unsettled_kept", ("ja",)) - lexicon.words("speech_acts"),
            key=len,
            reverse=True,
        )
        if len(w) >= 2 and not w.isascii()
    )
    or r"(?!)"
)


def _unqualified(text: str) -> str:
    return _QUALIFIERS.sub(lambda m: " " * len(m.group(0)), text)


#: A comma clause's start, just before a credit (its subject opens the clause).
_CJK_CLAUSE_OPEN = re.compile(
    r"[，,、；;：:]\s*(?:但是?|而且?|不过|可是|所以|然后|另外|并且?|而)?\s*$"
)


def _whole_sentence(before: str, after: str) -> frozenset[str]:
    return content_tokens(_unqualified(before + " " + after))


def _wider(text: str, start: int, end: int, sentences: list[tuple[int, int]]) -> frozenset[str]:
    """The whole-sentence reading of a credit that opens a comma clause (empty otherwise)."""
    i = bisect.bisect_right(sentences, (start, len(text) + 1)) - 1
    s_start, s_end = (
        sentences[i]
        if i >= 0 and sentences[i][0] <= start < sentences[i][1]
        else (
            0,
            len(text),
        )
    )
    s_start, s_end = max(s_start, start - CLAIM_REACH), min(s_end, end + CLAIM_REACH)
    before = text[s_start:start]
    if not _HAS_CJK.search(text[s_start:s_end]) or not opens_clause(before):
        return frozenset()
    return _whole_sentence(before, text[end:s_end])


def opens_clause(before: str) -> bool:
    """Whether a credit right after *before* (its sentence so far) opens a comma clause of
    Chinese or Japanese: then it credits what follows it, not the clauses before."""
    return bool(before) and _CJK_CLAUSE_OPEN.search(before) is not None


#: Code beside a credit: a command or a call in brackets or backticks ("(sed -i
#: '/Pennine Grain Co/d')", `git push`): the agent's tool, not what the person said.
_CODE_ASIDE = re.compile(r"`[^`\n]{1,200}`|\((?=[^()\n]{0,200}['\"/=`_])[^()\n]{1,200}\)")


def _credited(
    text: str, start: int, end: int, sentences: list[tuple[int, int]], limit: int | None = None
) -> tuple[frozenset[str], frozenset[str]]:
    """Content tokens of what a claim at [start, end) credits: the rest of its clause
    (before it too, when the claim closes the clause: "…, as the user asked"), never past
    *limit*, where the next claim of the sentence starts (健太が…と提案し、ユーザーは…と答えた:
    what the person answered is not 健太's). ``sentences`` are the spans of ``_SENTENCE``
    in *text*, in order. Second, the other reading when a colon may open a reason (empty
    when there is none)."""
    s_start, s_end = 0, len(text)
    i = bisect.bisect_right(sentences, (start, len(text) + 1)) - 1
    if i >= 0 and sentences[i][0] <= start < sentences[i][1]:
        s_start, s_end = sentences[i]
    s_start, s_end = max(s_start, start - CLAIM_REACH), min(s_end, end + CLAIM_REACH)
    if limit is not None and end <= limit < s_end:
        s_end = limit
    sentence_after = _CODE_ASIDE.sub(" ", text[end:s_end])
    sentence_before = _CODE_ASIDE.sub(" ", text[s_start:start])
    if _HAS_CJK.search(text[s_start:s_end]):
        if opens_clause(sentence_before) and content_tokens(sentence_after):
            # 这次王经理想涨到128，老板表示顶多接受125: a credit that opens its comma clause
            # credits what follows it, not the clauses before (someone else's)
            return content_tokens(_unqualified(sentence_after)), frozenset()
        return _whole_sentence(sentence_before, sentence_after), frozenset()
    if _SAID_AFTER.search(text[start:end]) and _AFTER_ASIDE.match(text, end):
        # "has left the company (since January, the owner says) and …", "…, Tom said.":
        # a report set after what it reports credits what its aside or clause said before
        aside = _ASIDE_OPENS.split(sentence_before)[-1]
        if content_tokens(aside):
            return content_tokens(aside), frozenset()
    parts = _CLAUSE_BREAK.split(sentence_after, maxsplit=2)
    after = parts[0]
    if subordinate_opening(sentence_before):
        # "After the user rotated the key, the job kept the old one": the credit is the
        # clause it opens, up to its comma; what the main clause says is not theirs
        after = after.split(",", 1)[0]
    tokens = content_tokens(after)
    if len(parts) > 1 and sentence_after[len(after) :].lstrip()[:1] in ":：":
        # "the user set the rule: late returns …", "the user corrected the draft report:
        # the leftover goes to …": a colon opens what is credited. After a clause of its
        # own ("doesn't want X written: Maeve keeps the accounts") it may give a reason
        # instead: the clause alone is the other reading
        return tokens | content_tokens(parts[1]), tokens if len(tokens) >= 2 else frozenset()
    if not tokens:
        before_parts = _CLAUSE_BREAK.split(sentence_before)
        before = before_parts[-1] if before_parts else ""
        tokens = tokens | content_tokens(before)
    return tokens, frozenset()


#: Where an aside or a clause of its own opens before a report set after it.
_ASIDE_OPENS = re.compile(r"[(（]|[;；]")
#: A saying verb that closes a report set after what it reports ("the owner says").
_SAID_AFTER = re.compile(r"(?i)\b(?:says|said|tells us|told us|reckons|reckoned|claims|claimed)$")
#: What closes such a report: a comma, a bracket or the sentence's end.
_AFTER_ASIDE = re.compile(r"[ \t]*(?:[,)）;；]|\.(?:\s|$)|$)")


def dynamic_patterns(names: Sequence[str]) -> list[re.Pattern[str]]:
    """Every pattern built for a set of human names (what the linear-time test runs)."""
    key = tuple(names)
    return [*_en_patterns(key).values(), _names_re(key), *_ja_patterns(key), _zh_patterns(key)]


def attribution_claims(text: str, human_names: Sequence[str] = ()) -> list[str]:
    """The phrases of :func:`claims` (what weave and tidy compare)."""
    return list(dict.fromkeys(c.phrase for c in claims(text, human_names)))


# =========================================================================== own words

#: Where a clause ends, for cutting someone else's clause out of a person's words.
_OWN_BREAK = re.compile(r"[.!?](?=\s|$)|[。！？;；:：,，、\n]")
_SENTENCE_STOPS = frozenset(".!?。！？")


@functools.lru_cache(maxsize=256)
def own_words(text: str, human_names: tuple[str, ...] = (), speaker: str = "") -> str:
    """A person's segment without what it credits to someone else: the clauses whose subject
    or speaker is a third person or a pronoun for one ("Mika decided to …", 张伟决定…,
    田中が…と言った, "she wants …", "Mika: …") are blanked. What is left is what the
    segment's speaker says in their own voice -- the only words that can vouch for a claim
    about them. Folded line by line (:func:`fold_lines`). With *speaker*, a third person
    named in the segment, the clauses credited to others are blanked and theirs kept: what
    the segment says of *speaker* ("Priya says the hub needs a spring" is not Dario's)."""
    lined = fold_lines(text)
    folded = unwrap(lined)
    cuts = [
        _clause_span(lined, folded, c)
        for c in claims(text, human_names)
        if (c.who == THIRD or (c.who == PRONOUN and someone_says(c.phrase)))
        and not _told_when(folded, c)
        and not (speaker and c.who == THIRD and _same_person(c.name, speaker))
    ]
    # lines under another speaker's label in a pasted chat (兄：…, 妈妈：…): theirs, even
    # when the label is a relative or a role the claims above do not read as a name
    cuts += [
        (v.start, v.end)
        for v in _voices.voices(lined)
        if v.speaker
        and not _HUMAN_SPEAKER.fullmatch(v.speaker.strip())
        and v.speaker not in human_names
        and not (speaker and _same_person(v.speaker, speaker))
    ]
    if not cuts:
        return lined
    parts, at = [], 0
    for a, b in sorted(cuts):
        if b <= at:
            continue
        a = max(a, at)
        parts.append(lined[at:a])
        parts.append(" " * (b - a))
        at = b
    parts.append(lined[at:])
    return "".join(parts)


#: A speaker label that is the person: User, Me, 我, 私, ユーザー …
_HUMAN_SPEAKER = re.compile(
    r"(?i)user|human|me|you|i|.*[我私俺僕].*|.*自分.*|ユーザー|ユーザ|用户|使用者|本人"
)


def _same_person(a: str, b: str) -> bool:
    """Whether two names read from text are one person's (王 and 王经理, Dario and Dario)."""
    a, b = a.casefold().strip(), b.casefold().strip()
    return bool(a and b) and (a in b or b in a)


#: A telling the speaker reports as an event, with only when or where after it ("he told
#: me at the gala", "she mentioned it to us yesterday"): nothing of it is the other's words.
_TOLD_WHEN = re.compile(
    r"[ \t]+(?:it[ \t]+|this[ \t]+|that[ \t]+)?(?:to[ \t]+)?(?:me|us)"
    r"(?:[ \t]+(?:(?:at|during|on|in|over|after|before|by)[ \t]+(?:the[ \t]+|a[ \t]+|an[ \t]+)?"
    r"[\w-]+(?:[ \t]+[\w-]+)?|yesterday|today|earlier|again|last[ \t]+\w+|this[ \t]+\w+))?"
    r"[ \t]*(?:[,;.!?]|$)",
    re.IGNORECASE,
)


def _told_when(folded: str, claim: Claim) -> bool:
    return (
        claim.phrase.split()[-1].lower() in ("told", "tells", "mentioned", "said", "says")
        and _TOLD_WHEN.match(folded, claim.end) is not None
    )


@functools.lru_cache(maxsize=256)
def foreign_words(text: str, human_names: tuple[str, ...] = ()) -> frozenset[str]:
    """The content tokens a person's segment has only in what it credits to someone else
    (:func:`own_words` blanked them): words the speaker only put in another's mouth."""
    own = own_words(text, human_names)
    lined = fold_lines(text)
    if own == lined:
        return frozenset()
    return content_tokens(lined) - content_tokens(own)


#: What "they" do when they are people: "they are kept" speaks of things, "they decided"
#: of someone.
_SAYING = lexicon.words("attribution_saying")


def someone_says(phrase: str) -> bool:
    """Whether a pronoun's claim is a person's: he, she (他, 她, 彼, 彼女 …), or "they" that
    say, decide or want something."""
    words = phrase.lower().split()
    if not words or words[0] != "they":
        return True
    return any(w in _SAYING for w in words[1:])


def _clause_span(lined: str, folded: str, claim: Claim) -> tuple[int, int]:
    """The clause a claim credits: a speaker label's rest of line; otherwise from the
    clause break before the claim to the one after it (a break right after the claim --
    "Mika decided: …", 张伟说，… -- opens what it credits, so the next one ends it)."""
    if claim.line:
        end = lined.find("\n", claim.end)
        return claim.start, len(lined) if end < 0 else end
    lo = max(0, claim.start - CLAIM_REACH)
    start = lo
    for brk in _OWN_BREAK.finditer(folded, lo, claim.start):
        start = brk.end()
    if not _HAS_CJK.search(folded, start, claim.end):
        # in English the one credited is the subject: the words before it are the
        # speaker's own ("let's wait till Marco confirms the rota")
        start = claim.start
    hi = min(len(folded), claim.end + CLAIM_REACH)
    after = _OWN_BREAK.search(folded, claim.end, hi)
    if after is None:
        return start, hi
    gap = folded[claim.end : after.start()].strip()
    if (len(gap) <= 2 or not content_tokens(gap)) and after.group(0) not in _SENTENCE_STOPS:
        # "Mika decided: …", 张伟说，…: the break opens what is credited; a sentence's end
        # ("… as Tomás wrote. Actually no, keep it") closes it
        after = _OWN_BREAK.search(folded, after.end(), hi)
    return start, (after.start() if after is not None else hi)
