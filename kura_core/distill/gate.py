"""The gate: deterministic checks between a model's candidates and the store.

No model is involved. A candidate memory survives only on quotes that exist verbatim in
one single segment of the batch, and only with numbers, attributions and tags that those
quotes license. :func:`floor` is the same set of checks for any final surface a model
writes later (a composed draft, a judge's fix, a trigger line).

What each evidence class licenses:

* USER -- statements about the human ("they decided", "they asked") and numbers;
* TOOL -- numbers (measurements) and the ``landmine`` tag;
* ACT  -- "this was done" and numbers (a command's arguments);
* SELF -- a first-person judgement only. SELF vouches for no number and no attribution.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kura_core.distill.evidence import (
    CLASSES,
    Segment,
    normalize,
    parse_claimed,
    quote_weight,
    strip_invisible,
)

KINDS = ("fact", "judgement", "idea")
FLOOR_FIELDS = ("title", "description", "body", "belongs_because", "keep", "may_fade")

#: Where a quote found in several segments is filed. USER first: if the human's own
#: words contain the text, the human said it, whoever else repeated it. Then TOOL and ACT,
#: which license numbers; SELF last, because it licenses least.
CLASS_PREFERENCE = {cls: rank for rank, cls in enumerate(CLASSES)}

#: Tags that claim something about the human, and the classes that can vouch for them.
TAG_EVIDENCE: Mapping[str, frozenset[str]] = {
    "entrusted": frozenset({"USER"}),
    "emotion-carried": frozenset({"USER"}),
    "commitment": frozenset({"USER"}),
    "landmine": frozenset({"USER", "TOOL"}),
}
#: Tags only the distiller itself writes (§5.5); a model may not propose them.
DISTILLER_TAGS = frozenset({"recurred"})


# =========================================================================== text folding

_DIGIT_DASHES = str.maketrans(
    {
        "\u2010": "-",  # hyphen
        "\u2011": "-",  # non-breaking hyphen
        "\u2212": "-",  # minus sign
        "\ufe63": "-",  # small hyphen-minus
        "\u2012": "\u2013",  # figure dash
        "\u2014": "\u2013",  # em dash
        "\u2015": "\u2013",  # horizontal bar
        "\ufe58": "\u2013",  # small em dash
        "\u301c": "~",  # wave dash
        "\u223c": "~",  # tilde operator
        "\u00d7": "x",  # multiplication sign
    }
)

# Latin look-alikes from Cyrillic and Greek, folded only where wording is matched
# (attribution), so "the usеr decided" with a Cyrillic е is still seen.
_CONFUSABLES = str.maketrans(
    {
        "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o",
        "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "і": "i", "ї": "i", "ј": "j",
        "ѕ": "s", "ԁ": "d", "ɡ": "g", "һ": "h", "ԛ": "q", "ԝ": "w", "ӏ": "l",
        "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
        "С": "C", "Т": "T", "У": "Y", "Х": "X", "І": "I", "Ј": "J", "Ѕ": "S",
        "α": "a", "ε": "e", "ι": "i", "κ": "k", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
        "ν": "v", "χ": "x", "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I",
        "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
        "ı": "i",
    }
)


def _fold_digits(text: str) -> str:
    """Any script's decimal digits as ASCII digits (NFKC leaves e.g. Arabic-Indic alone)."""
    if text.isascii():
        return text
    return "".join(
        str(unicodedata.decimal(ch)) if ch.isdecimal() and not ch.isascii() else ch
        for ch in text
    )


def _prepare_numbers(text: str) -> str:
    """Comparison form for number scanning: like :func:`normalize` but line breaks kept
    (list markers are recognised at line starts) and dashes/digits folded."""
    text = unicodedata.normalize("NFKC", text or "")
    text = strip_invisible(text)
    text = _fold_digits(text).translate(_DIGIT_DASHES)
    return text


def _fold_words(text: str) -> str:
    """Comparison form for wording: normalised, look-alike letters folded."""
    return normalize(text).translate(_CONFUSABLES)


# =========================================================================== numbers

_LIST_MARKER = re.compile(
    r"^([ \t]*(?:[#>]+[ \t]*)*)(?:\(\d{1,3}\)|\d{1,3}[.)])(?=[ \t])|^([ \t]*)\d{1,3}、",
    re.MULTILINE,
)

_CORE = r"(?:0[xX][0-9A-Fa-f]+|(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)"
_UNIT = r"(?:%|‰|°[CF]?|[A-Za-zµμΩ]+(?:/[A-Za-z]+)?|[倍万億亿千百])"
_SPACED_UNITS = sorted(
    [
        "tokens/s", "tok/s", "t/s", "it/s", "req/s", "ops/s", "MB/s", "GB/s", "KB/s",
        "Mbps", "Gbps", "KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", "TB", "PB", "kB",
        "bytes", "kilobytes", "megabytes", "gigabytes", "terabytes",
        "B", "K", "M", "G", "T", "ms", "µs", "μs", "us", "ns", "sec", "secs", "seconds",
        "second", "s", "min", "mins", "minutes", "minute", "h", "hr", "hrs", "hours",
        "hour", "days", "day", "weeks", "week", "months", "month", "years", "year",
        "%", "percent", "x", "times", "fold", "°C", "°F", "GHz", "MHz", "kHz", "Hz",
        "W", "kW", "V", "rpm", "fps", "dB", "px", "kg", "g", "mg", "km", "m", "cm", "mm",
    ],
    key=len,
    reverse=True,
)
_SPACED = "|".join(re.escape(u) for u in _SPACED_UNITS)
_NUMBER = re.compile(
    rf"""
    (?<![0-9A-Za-z_.\u00C0-\u024F])          # not inside a word, not after a dot
    (?<![0-9A-Za-z_\u00C0-\u024F]-)          # not the tail of a word-hyphen (SHA-256)
    (?P<sign>[+\-±\u2013](?=[\d.]))?
    (?P<body>
        {_CORE}(?:{_UNIT}(?![0-9]))?
        (?:(?:[-\u2013~/:x]|[ \t]*[\u2013~][ \t]*){_CORE}(?:{_UNIT}(?![0-9]))?)*
    )
    (?:[ \t](?P<spaced>{_SPACED})(?![0-9A-Za-z_/]))?
    (?![0-9A-Za-z_\u00C0-\u024F])
    """,
    re.VERBOSE,
)

_UNIT_IN_TOKEN = re.compile(rf"(?<=[0-9.])({_UNIT})")
_HEX = re.compile(r"^[+\-±]?0[xX][0-9A-Fa-f]+$")
_EXPONENT = re.compile(r"[+-]?\d")
_MULTIPLIERS = frozenset("万億亿千百")
_UNIT_CANON = {
    **{u: "x" for u in ("x", "times", "fold", "倍")},
    **{u: "%" for u in ("%", "percent", "pct")},
    **{u: "s" for u in ("s", "sec", "secs", "second", "seconds")},
    **{u: "ms" for u in ("ms", "msec", "millisecond", "milliseconds")},
    **{u: "µs" for u in ("us", "µs", "μs", "microsecond", "microseconds")},
    **{u: "min" for u in ("min", "mins", "minute", "minutes")},
    **{u: "h" for u in ("h", "hr", "hrs", "hour", "hours")},
    **{u: "day" for u in ("day", "days")},
    **{u: "week" for u in ("week", "weeks")},
    **{u: "month" for u in ("month", "months")},
    **{u: "year" for u in ("year", "years", "yr", "yrs")},
    **{u: "tok/s" for u in ("tok/s", "tokens/s")},
    **{u: "B" for u in ("B", "byte", "bytes")},
    "kilobytes": "K", "megabytes": "M", "gigabytes": "G", "terabytes": "T",
    **{u: "" for u in ("st", "nd", "rd", "th")},  # ordinals: 2nd is the number 2
}
_SIZE = re.compile(r"^(?:([kKMGTPE])(?:i?B)?|([kmgtp])(?:i?b))$")


def _canon_unit(unit: str) -> str:
    if unit in _UNIT_CANON:
        return _UNIT_CANON[unit]
    size = _SIZE.match(unit)
    if size:
        return (size.group(1) or size.group(2)).upper()
    lowered = unit.lower()
    if lowered in _UNIT_CANON and lowered not in ("s", "h", "b"):
        return _UNIT_CANON[lowered]
    return unit


@dataclass(frozen=True)
class _Num:
    canon: str  # the whole token: sign, figures, joiners and units
    bare: str  # the same with units removed (multipliers like 万 stay)

    @property
    def has_unit(self) -> bool:
        return self.canon != self.bare


def _is_joiner(raw: str, after: str) -> bool:
    """An ``e`` before an exponent or an ``x`` between figures is not a unit."""
    return (raw in ("e", "E") and bool(_EXPONENT.match(after))) or (
        raw in ("x", "X") and after[:1].isdigit()
    )


def _canon(sign: str, body: str, spaced: str | None) -> _Num:
    prefix = sign.replace("\u2013", "-")
    text = re.sub(r"[ \t]+", "", body)
    if _HEX.match(text):
        return _Num(prefix + text.lower(), prefix + text.lower())
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    text = text.replace("\u2013", "-").replace("~", "-")

    def unit(match: re.Match[str]) -> str:
        raw = match.group(1)
        if _is_joiner(raw, text[match.end() :]):
            return raw.lower()
        return _canon_unit(raw)

    canon = prefix + _UNIT_IN_TOKEN.sub(unit, text)
    if spaced and canon == prefix + _UNIT_IN_TOKEN.sub(
        lambda m: m.group(1) if _is_joiner(m.group(1), text[m.end() :]) else "", text
    ):
        canon += _canon_unit(spaced)

    def strip_unit(match: re.Match[str]) -> str:
        raw = match.group(1)
        if _is_joiner(raw, canon[match.end() :]) or raw in _MULTIPLIERS:
            return raw
        return ""

    bare = _UNIT_IN_TOKEN.sub(strip_unit, canon)
    return _Num(canon, bare)


def _numbers(text: str) -> list[_Num]:
    prepared = _prepare_numbers(text)
    prepared = _LIST_MARKER.sub(lambda m: (m.group(1) or m.group(2) or "") + " ", prepared)
    out: list[_Num] = []
    for match in _NUMBER.finditer(prepared):
        out.append(_canon(match.group("sign") or "", match.group("body"), match.group("spaced")))
    return out


def numbers_in(text: str) -> list[str]:
    """The number tokens of *text*, canonical and de-duplicated, in order.

    One token each: a sign (``-5`` is not ``5``), a range (``3-5``, ``10–20``, ``10 ~ 20``
    all become ``3-5``/``10-20``), a date or time (``2026-11-02``, ``12:30``), a decimal
    (``43.7``), scientific notation (``1e-3``), a figure with its unit (``1GB``, ``900G``,
    ``2.6T``, ``12ms``, ``43.7 tok/s`` -> ``43.7tok/s``; byte sizes fold ``3.2TB`` to
    ``3.2T``; ``x``/``times``/``倍`` fold to ``x``). Thousands separators are not numbers:
    ``1,000`` is the token ``1000``. A list marker (``1.``, ``2)``, ``(3)``, ``4、`` at the
    start of a line) is not a number. Digits inside a word (``cp932``, ``x86_64``,
    ``SHA-256``, ``[[slug-2]]``) are part of a name, not a number. Full-width and other
    scripts' digits count as digits; invisible characters are removed first, so
    ``4\u200b3`` is ``43``. Number words ("three") are not recognised.
    """
    seen: dict[str, None] = {}
    for num in _numbers(text):
        seen.setdefault(num.canon, None)
    return list(seen)


class _Vouchers:
    """Number tokens found in a set of evidence texts."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.canon: set[str] = set()
        self.bare: set[str] = set()
        for text in texts:
            for num in _numbers(text):
                self.canon.add(num.canon)
                self.bare.add(num.bare)

    def vouches(self, num: _Num) -> bool:
        """A figure with a unit needs the same figure with the same unit; a bare figure
        needs the same figure, with any unit (``3.2`` is vouched by ``3.2T``)."""
        if num.canon in self.canon:
            return True
        return not num.has_unit and num.bare in self.bare


def unvouched_numbers(text: str, vouching_texts: Iterable[str]) -> list[str]:
    """Numbers of *text* that no token in *vouching_texts* vouches for (same rules as
    the gate's number floor)."""
    vouchers = _Vouchers(vouching_texts)
    out: dict[str, None] = {}
    for num in _numbers(text):
        if not vouchers.vouches(num):
            out.setdefault(num.canon, None)
    return list(out)


# =========================================================================== attribution

_EN_SUBJECT_WORDS = r"(?:user|users|human|owner|boss)"
_EN_ADVERBS = (
    r"(?:\s+(?:has|have|had|did|does|do|is|was|were|also|already|just|then|now|once|"
    r"clearly|explicitly|finally|originally|specifically|actually|really|firmly|"
    r"strongly|repeatedly|personally|always|never|not|later|earlier|initially|"
    r"eventually|definitely|politely|kindly|directly|expressly|themselves|himself|"
    r"herself|yourself))*"
)
_EN_PAST = (
    r"(?:decided|chose|chosen|asked|requested|said|told|wanted|preferred|approved|"
    r"insisted|agreed|instructed|demanded|refused|rejected|vetoed|promised|confirmed|"
    r"signed\s+off|okayed|ok'd|opted|settled\s+on|went\s+with|ruled|mandated|ordered|"
    r"specified|directed|didn't\s+want|did\s+not\s+want)"
)
_EN_THIRD = (
    r"(?:decides|chooses|asks|requests|says|tells|wants|prefers|approves|insists|"
    r"agrees|demands|refuses|rejects|promises|confirms|doesn't\s+want|does\s+not\s+want)"
)
_EN_BASE = (
    r"(?:decide|choose|ask|request|say|tell|want|prefer|approve|insist|agree|demand|"
    r"refuse|reject|promise|confirm|don't\s+want|do\s+not\s+want)"
)
_EN_MORE = (
    r"(?:mentioned|mentions|stated|states|explained|explains|noted|notes|reported|reports|"
    r"emphasized|emphasised|stressed|likes|liked|like|hates|hated|hate|dislikes|disliked|"
    r"committed|commits|entrusted|entrusts|trusts|trusted|believes|believed|thinks|"
    r"thought|feels|felt|worries|worried|expects|expected|wishes|wished|suggested|"
    r"suggests|proposed|proposes|needs|needed|loves|loved|is\s+worried|was\s+worried|"
    r"is\s+upset|was\s+upset|is\s+happy|was\s+happy|is\s+annoyed|was\s+annoyed)"
)
_EN_WE_VERBS = r"(?:decided|agreed|chose|settled\s+on|approved|went\s+with|opted)"
_EN_NOUNS = (
    r"(?:decision|request|preference|call|choice|instruction|instructions|wish|wishes|"
    r"rule|requirement|order|orders|approval|idea|demand|verdict|words)"
)
# A present-tense claim after "if", "when", "before" … is a condition, not a report.
_EN_CONDITION = re.compile(
    r"\b(?:if|when|whenever|unless|until|before|after|once|in\s+case|whether|should|lest)"
    r"\s+$",
    re.IGNORECASE,
)
_EN_PAST_END = re.compile(
    r"(?:ed|said|told|chose|chosen|thought|felt|went\s+with|ok'd|settled\s+on|"
    r"signed\s+off|want|ruled)$",
    re.IGNORECASE,
)

_JA_SUBJECTS = (
    r"(?:ユーザー|ユーザ|利用者|使用者|人間|オーナー|ご主人様|ご主人|マスター|あなた|"
    r"彼女|彼ら|彼|先方|お客様|依頼者|依頼主)"
)
_JA_HONORIFIC = r"(?:さん|(?<![仕同模多異一態有])様|さま|氏|くん|ちゃん|殿)"
_JA_PARTICLE = r"(?:が|は|も|から|より)"
_JA_VERBS = (
    r"(?:(?:決め|決定し|決断し|言っ|おっしゃっ|仰っ|頼ん|依頼し|望ん|希望し|承認し|了承し|"
    r"許可し|指示し|求め|要求し|要望し|同意し|賛成し|選ん|選択し|約束し|述べ|話し|好ん|"
    r"嫌っ|拒否し|反対し|命じ|お願いし|主張し|強調し|こだわっ|断っ|認め)"
    r"(?:た(?!ら)|ました|ている|ています|ていた|ていました)|"
    r"言いました|好む|嫌う|望む|決めている)"
)
_JA_HEARSAY = (
    r"(?:とのこと|との事|と(?:言っ|おっしゃっ|仰っ|話し|述べ|頼ん|言われ)"
    r"(?:た(?!ら)|ました|ていた|ていました|ている|ています)|"
    r"との(?:指示|依頼|要望|希望|要求|決定|ご意向|意向))"
)
_JA_NOUNS = r"(?:決定|判断|希望|要望|指示|依頼|意向|要求|方針|意見|好み|承認)"

_ZH_SUBJECTS = (
    r"(?:用户(?![名端数數组組态態量表层層库庫])|用戶(?![名端数數组組态態量表层層库庫])|"
    r"使用者|主人|老板|老闆|他们|她们|他們|她們|(?<![其吉利])他|她|你|您|对方|對方)"
)
_ZH_ADVERBS = (
    r"(?:已经|已經|已|明确地|明確地|明确|明確|刚才|剛才|刚刚|剛剛|曾经|曾經|曾|也|还|還|"
    r"一直|再次|亲自|親自|特别|特別|最终|最終|最后|最後|之前|本来|本來|当时|當時|反复|"
    r"反復|坚决|堅決|清楚地|都|又|就|早就|早已)*"
)
_ZH_VERBS = (
    r"(?:决定|決定|要求|请求|請求|说过|說過|说|說|讲|講|告诉|告訴|希望|想要|同意|批准|"
    r"认可|認可|喜欢|喜歡|偏好|坚持|堅持|指示|吩咐|答应|答應|选择|選擇|确认|確認|表示|"
    r"拒绝|拒絕|反对|反對|承诺|承諾|交代|嘱咐|囑咐|叮嘱|叮囑|强调|強調|提出|指定|不想)"
)
_ZH_NOUNS = r"(?:决定|決定|要求|意思|偏好|指示|意愿|意願|选择|選擇|吩咐|交代|想法)"
_ZH_CONDITION = re.compile(r"(?:如果|若|要是|假如|假若|倘若|当|當|一旦|万一|萬一|如)\s*$")


def _names_alternation(names: Sequence[str]) -> tuple[str, str]:
    """Regex alternations for configured names: (latin, any-script)."""
    latin, other = [], []
    for name in names:
        if not isinstance(name, str):
            continue
        folded = _fold_words(name)
        if not folded:
            continue
        escaped = re.escape(folded).replace(r"\ ", r"\s+")
        if folded.isascii():
            latin.append(escaped)
        other.append(escaped)
    latin.sort(key=len, reverse=True)
    other.sort(key=len, reverse=True)
    return "|".join(latin), "|".join(other)


def _attribution_patterns(names: Sequence[str]) -> list[tuple[str, re.Pattern[str]]]:
    latin, anyname = _names_alternation(names)
    human = rf"(?:the\s+)?{_EN_SUBJECT_WORDS}" + (rf"|\b(?:{latin})\b" if latin else "")
    definite = rf"the\s+{_EN_SUBJECT_WORDS}" + (rf"|\b(?:{latin})\b" if latin else "")
    en = [
        rf"\b(?:{human}){_EN_ADVERBS}\s+(?:{_EN_PAST}|{_EN_THIRD}|{_EN_BASE}|{_EN_MORE})\b",
        rf"\b(?:they|you){_EN_ADVERBS}\s+{_EN_PAST}\b",
        rf"\b(?:he|she){_EN_ADVERBS}\s+(?:{_EN_PAST}|{_EN_THIRD})\b",
        rf"\bwe{_EN_ADVERBS}\s+{_EN_WE_VERBS}\b",
        rf"\b(?:{human})'s?\s+(?:own\s+)?{_EN_NOUNS}\b",
        rf"\b(?:per|according\s+to|at\s+the\s+request\s+of|as\s+requested\s+by|"
        rf"on\s+behalf\s+of)\s+(?:{definite})\b",
        rf"\bas\s+(?:{definite}|they|he|she|you)\s+(?:said|asked|wanted|requested|decided|"
        rf"preferred|insisted)\b",
        r"\bit\s+was\s+(?:decided|agreed|approved|requested)\b",
        rf"\b(?:decided|approved|requested|chosen|agreed|rejected|vetoed|ordered)\s+by\s+"
        rf"(?:{definite}|them|him|her|you)\b",
    ]
    ja_subj = _JA_SUBJECTS + (f"|{anyname}" if anyname else "")
    ja = [
        rf"(?:{ja_subj}){_JA_HONORIFIC}?{_JA_PARTICLE}[^。！？!?\n]{{0,40}}?{_JA_VERBS}",
        rf"[\u3040-\u30ff\u4e00-\u9fffA-Za-z]{{1,12}}{_JA_HONORIFIC}{_JA_PARTICLE}"
        rf"[^。！？!?\n]{{0,40}}?{_JA_VERBS}",
        _JA_HEARSAY,
        rf"(?:{ja_subj}){_JA_HONORIFIC}?(?:によると|によれば|いわく|曰く|の{_JA_NOUNS})",
    ]
    zh_subj = _ZH_SUBJECTS + (f"|{anyname}" if anyname else "")
    zh = [
        rf"(?:{zh_subj}){_ZH_ADVERBS}{_ZH_VERBS}",
        rf"据(?:{zh_subj})所?(?:说|說|讲|講)",
        rf"(?:{zh_subj})的{_ZH_NOUNS}",
    ]
    out = [("en", re.compile(p, re.IGNORECASE)) for p in en]
    out += [("ja", re.compile(p)) for p in ja]
    out += [("zh", re.compile(p)) for p in zh]
    return out


def attribution_claims(text: str, human_names: Sequence[str] = ()) -> list[str]:
    """Phrases in *text* that credit the human with a decision, request, statement,
    preference or feeling, in English, Japanese or Chinese.

    The human is "the user"/"the human"/"the owner", a pronoun (they/he/she/you;
    彼/彼女/あなた; 他/她/你/您), a ``human_names`` entry, or (Japanese) any name with
    さん/様/氏. Not claims: the agent's own voice ("I decided", "I judged that …",
    私は…と判断した, 我认为), hedged forms ("the user would probably prefer"), and
    conditions in the present tense ("if the user asks, …", ユーザーが言ったら,
    如果用户要求) -- a "How to apply" line may address what the human might do. A
    condition in the past tense ("when the user decided …") is still a report. Hearsay
    (…とのこと, …と言っていた) is a claim even without a subject. Look-alike Cyrillic and
    Greek letters, full-width forms and invisible characters are folded first.
    """
    folded = _fold_words(text)
    if not folded:
        return []
    spans: list[tuple[int, int, str]] = []
    for lang, pat in _attribution_patterns(human_names):
        for match in pat.finditer(folded):
            before = folded[max(0, match.start() - 24) : match.start()]
            phrase = match.group(0).strip()
            if lang == "en" and _EN_CONDITION.search(before) and not _EN_PAST_END.search(phrase):
                continue
            if lang == "zh" and _ZH_CONDITION.search(before):
                continue
            spans.append((match.start(), match.end(), phrase))
    # One claim, one report: drop a match lying inside a longer one.
    spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
    found: dict[str, None] = {}
    for start, end, phrase in spans:
        if any(a <= start and end <= b and (a, b) != (start, end) for a, b, _ in spans):
            continue
        found.setdefault(phrase, None)
    return list(found)


# =========================================================================== negations

_EN_NEGATIONS = re.compile(
    r"\b(?:not|no|never|none|nothing|nobody|nowhere|neither|nor|without|cannot|"
    r"[a-z]+n't|[a-z]+n’t)\b",
    re.IGNORECASE,
)
_CJK_NEGATIONS = sorted(
    [
        # Japanese
        "ない", "ません", "なかった", "なくて", "なく", "無い", "無し", "なし", "禁止",
        "不可", "不要", "ダメ", "だめ", "駄目", "いけない", "するな", "べからず", "ずに", "せず",
        # Chinese
        "不", "没有", "没", "沒有", "沒", "别", "別", "勿", "莫", "未", "无", "無", "非",
        "不要", "不能", "不会", "不會", "甭",
    ],
    key=len,
    reverse=True,
)
_CJK_NEG = re.compile("|".join(re.escape(w) for w in _CJK_NEGATIONS))


def negations_in(text: str) -> list[str]:
    """Negation words of *text* in order of appearance (English words lower-cased;
    Japanese and Chinese by longest match: ない, ません, 禁止, 不, 没有, 别, 勿 …)."""
    folded = normalize(text)
    hits: list[tuple[int, str]] = []
    for match in _EN_NEGATIONS.finditer(folded):
        hits.append((match.start(), match.group(0).lower().replace("’", "'")))
    for match in _CJK_NEG.finditer(folded):
        hits.append((match.start(), match.group(0)))
    hits.sort()
    return [word for _pos, word in hits]


# =========================================================================== links

_LINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")


def links_in(text: str) -> list[str]:
    """Slugs named by ``[[slug]]``, ``[[slug|label]]`` or ``[[slug#part]]`` links."""
    out: dict[str, None] = {}
    for match in _LINK.finditer(text or ""):
        slug = re.split(r"[|#]", match.group(1), maxsplit=1)[0].strip()
        if slug:
            out.setdefault(slug, None)
    return list(out)


# =========================================================================== floor


def floor(
    fields: Mapping[str, str],
    evidence: Sequence[Segment],
    *,
    has_user_quote: bool,
    human_names: Sequence[str] = (),
    existing_slugs: Container[str] | None = None,
) -> list[str]:
    """Final-surface checks on text a model wrote; returns violations (empty = passes).

    * numbers: every number must be vouched for by a USER, TOOL or ACT segment of
      *evidence* (the segments the surviving quotes were found in, whole);
    * attribution: without a surviving USER quote, nothing may credit the human;
    * links: ``[[slug]]`` must name a memory in *existing_slugs* (skipped when ``None``).
    """
    vouch = _Vouchers(s.text for s in evidence if s.cls != "SELF")
    self_only = _Vouchers(s.text for s in evidence if s.cls == "SELF")
    violations: dict[str, None] = {}
    seen_numbers: set[str] = set()
    seen_claims: set[str] = set()
    seen_links: set[str] = set()
    for name, value in fields.items():
        if not isinstance(value, str) or not value:
            continue
        for num in _numbers(value):
            if num.canon in seen_numbers or vouch.vouches(num):
                continue
            seen_numbers.add(num.canon)
            if self_only.vouches(num):
                violations.setdefault(f"number {num.canon} is vouched only by SELF ({name})")
            else:
                violations.setdefault(f"number {num.canon} is not in the evidence ({name})")
        if not has_user_quote:
            for claim in attribution_claims(value, human_names):
                if claim in seen_claims:
                    continue
                seen_claims.add(claim)
                violations.setdefault(
                    f'attribution "{claim}" needs a surviving USER quote ({name})'
                )
        if existing_slugs is not None:
            for slug in links_in(value):
                if slug not in existing_slugs and slug not in seen_links:
                    seen_links.add(slug)
                    violations.setdefault(f"link [[{slug}]] names no memory in this store ({name})")
    return list(violations)


# =========================================================================== the gate


@dataclass(frozen=True)
class QuoteCheck:
    """One quote of a candidate: as given, as claimed, as found."""

    text: str
    claimed: str | None
    cls: str | None
    status: str  # verified | not_found | echo | too_short
    segment: Segment | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "text": self.text,
            "claimed": self.claimed,
            "class": self.cls,
            "status": self.status,
        }
        if self.segment is not None:
            out["where"] = {
                "source": self.segment.source,
                "start": self.segment.start,
                "end": self.segment.end,
                "unit": self.segment.unit,
            }
        return out


@dataclass(frozen=True)
class GateResult:
    title: str
    verdict: str  # kept | dropped | seed
    reasons: tuple[str, ...]
    classes: tuple[str, ...]
    quotes: tuple[QuoteCheck, ...]
    violations: tuple[str, ...]
    label: str = ""
    tag_checks: Mapping[str, str] = field(default_factory=dict)
    candidate: Mapping[str, Any] = field(default_factory=dict)

    @property
    def survivors(self) -> tuple[QuoteCheck, ...]:
        return tuple(q for q in self.quotes if q.status == "verified")

    def to_json(self) -> dict[str, Any]:
        """The per-candidate object of ``kura gate --json`` (SPEC §12), plus ``label``
        and ``tag_checks``."""
        return {
            "title": self.title,
            "verdict": self.verdict,
            "reasons": list(self.reasons),
            "classes": list(self.classes),
            "quotes": [q.to_json() for q in self.quotes],
            "violations": list(self.violations),
            "label": self.label,
            "tag_checks": dict(self.tag_checks),
        }


class _Index:
    """Normalised segment texts, computed once per gate run."""

    def __init__(self, segments: Sequence[Segment]) -> None:
        self.segments = list(segments)
        self.texts = [normalize(s.text) for s in self.segments]

    def find(self, needle: str) -> Segment | None:
        best: Segment | None = None
        for seg, text in zip(self.segments, self.texts):
            if needle in text:
                if best is None or CLASS_PREFERENCE.get(seg.cls, 9) < CLASS_PREFERENCE.get(best.cls, 9):
                    best = seg
                    if seg.cls == CLASSES[0]:
                        break
        return best


_WRAP_PAIRS = {'"': '"', "'": "'"}


def _variants(quote: str) -> list[str]:
    """The quote as given, then with one wrapping pair of quote marks and leading or
    trailing ellipses removed (models often mark a quote that way). Whatever remains must
    still be verbatim; an ellipsis inside a quote is never a wildcard."""
    out = [quote]
    current = quote
    for _ in range(2):
        changed = current
        if len(changed) >= 2 and changed[0] in _WRAP_PAIRS and changed[-1] == _WRAP_PAIRS[changed[0]]:
            changed = changed[1:-1].strip()
        changed = re.sub(r"^(?:\.\.\.|…)\s*", "", changed)
        changed = re.sub(r"\s*(?:\.\.\.|…)$", "", changed)
        if changed != current and changed:
            out.append(changed)
            current = changed
    return out


def _check_quote(
    raw: object, index: _Index, is_echo: Callable[[str], bool], min_chars: int
) -> QuoteCheck:
    if not isinstance(raw, str):
        return QuoteCheck(text="", claimed=None, cls=None, status="not_found")
    claimed, rest = parse_claimed(raw)
    shown = rest.strip()
    variants = _variants(normalize(rest))
    if all(quote_weight(v) < min_chars for v in variants):
        return QuoteCheck(shown, claimed, None, "too_short")
    for needle in variants:
        if quote_weight(needle) < min_chars:
            continue
        seg = index.find(needle)
        if seg is not None:
            status = "echo" if is_echo(needle) else "verified"
            return QuoteCheck(shown, claimed, seg.cls, status, seg)
    return QuoteCheck(shown, claimed, None, "not_found")


def _text(candidate: Mapping[str, Any], key: str) -> str:
    value = candidate.get(key)
    return value if isinstance(value, str) else ""


def _tag_key(tag: str) -> str:
    return re.sub(r"[\s_]+", "-", normalize(tag).lower())


def _check_tags(tags: object, classes: set[str]) -> tuple[list[Any], dict[str, str], list[str]]:
    kept: list[Any] = []
    checks: dict[str, str] = {}
    notes: list[str] = []
    if not isinstance(tags, list):
        return kept, checks, notes
    for tag in tags:
        if not isinstance(tag, str) or not tag.strip():
            notes.append("a tag that is not a word was removed")
            continue
        key = _tag_key(tag)
        if key in DISTILLER_TAGS:
            checks[tag] = f"{key} is written by the distiller, not proposed"
            notes.append(f"tag {tag} removed: {checks[tag]}")
            continue
        needs = TAG_EVIDENCE.get(key)
        if needs is not None and not (needs & classes):
            checks[tag] = f"needs a surviving {' or '.join(c for c in CLASSES if c in needs)} quote"
            notes.append(f"tag {tag} removed: {checks[tag]}")
            continue
        checks[tag] = "ok"
        kept.append(tag)
    return kept, checks, notes


_TAG_WORD = re.compile(r"[^\W_][\w-]{0,39}")


def tag_violations(tags: Sequence[str], classes: set[str], *, allowed: Sequence[str] = ()) -> list[str]:
    """What is wrong with tags a person or a model set on a draft, for the final floor.

    A tag is one word or a hyphenated phrase (no spaces, at most 40 characters) — a
    sentence in a tag is text that no floor would read. Tags that claim something about the
    human need their kind of evidence among *classes*; the distiller's own tags may not be
    added by hand (*allowed* lists tags the draft already carried).
    """
    out: list[str] = []
    for tag in tags:
        if not isinstance(tag, str) or not _TAG_WORD.fullmatch(normalize(tag)):
            out.append(f"tag {str(tag)[:40]!r} is not one word or a hyphenated phrase")
            continue
        if tag in allowed:
            continue
        key = _tag_key(tag)
        if key in DISTILLER_TAGS:
            out.append(f"tag {tag} is written by the distiller, not by hand")
            continue
        needs = TAG_EVIDENCE.get(key)
        if needs is not None and not (needs & classes):
            out.append(f"tag {tag} needs a surviving {' or '.join(c for c in CLASSES if c in needs)} quote")
    return out


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _gate_one(
    candidate: object,
    index: _Index,
    *,
    is_echo: Callable[[str], bool],
    human_names: Sequence[str],
    min_quote_chars: int,
) -> GateResult:
    if not isinstance(candidate, Mapping):
        return GateResult("", "dropped", ("candidate is not a JSON object",), (), (), ())
    title = _text(candidate, "title")
    kind_raw = candidate.get("kind", "fact")
    kind = kind_raw.strip().lower() if isinstance(kind_raw, str) else ""
    quotes_raw = candidate.get("quotes")
    quote_list = quotes_raw if isinstance(quotes_raw, list) else []
    checks = tuple(_check_quote(q, index, is_echo, min_quote_chars) for q in quote_list)
    reasons: list[str] = []
    for q in checks:
        if q.status in ("verified", "echo") and q.claimed and q.claimed != q.cls:
            reasons.append(f"quote re-filed from {q.claimed} to {q.cls}: {_short(q.text)}")
    survivors = [q for q in checks if q.status == "verified"]
    classes = tuple(sorted({q.cls for q in survivors if q.cls}))
    copy = dict(candidate)

    def dropped(*why: str, violations: Sequence[str] = (), tag_checks=None) -> GateResult:
        return GateResult(
            title, "dropped", tuple(reasons) + why, classes, checks, tuple(violations),
            "", tag_checks or {}, copy,
        )

    if kind not in KINDS:
        return dropped("kind must be fact, judgement or idea")
    if not survivors:
        counts: dict[str, int] = {}
        for q in checks:
            counts[q.status] = counts.get(q.status, 0) + 1
        detail = ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in sorted(counts.items()))
        if not checks:
            return dropped("no quotes given")
        if counts.get("echo") and len(counts) == 1:
            return dropped(f"every quote is an echo of the store ({detail})")
        return dropped(f"no quote survived ({detail})")

    present = set(classes)
    kept_tags, tag_checks, tag_notes = _check_tags(candidate.get("tags"), present)
    reasons.extend(tag_notes)
    if "tags" in copy:
        copy["tags"] = kept_tags

    evidence = [q.segment for q in survivors if q.segment is not None]
    has_user = "USER" in present
    fields = {name: _text(candidate, name) for name in FLOOR_FIELDS}
    violations = floor(fields, evidence, has_user_quote=has_user, human_names=human_names)

    if kind == "idea":
        prose = "\n".join(v for v in fields.values() if v)
        claims = attribution_claims(prose, human_names)
        if claims:
            return dropped(
                f'fact dressed as an idea: credits the human ("{_short(claims[0], 40)}")',
                violations=violations, tag_checks=tag_checks,
            )
        measured = _measurements(prose, evidence)
        if measured:
            return dropped(
                f"fact dressed as an idea: states the measurement {measured[0]}",
                violations=violations, tag_checks=tag_checks,
            )
        if violations:
            return dropped("refused by the floor", violations=violations, tag_checks=tag_checks)
        return GateResult(
            title, "seed", tuple(reasons) + ("ideas go to seeds, never to the store",),
            classes, checks, (), "", tag_checks, copy,
        )

    if violations:
        return dropped("refused by the floor", violations=violations, tag_checks=tag_checks)
    label = ""
    if present == {"SELF"}:
        label = "judgement"
        reasons.append("kept as a first-person judgement: only SELF evidence survived")
    else:
        reasons.append(f"{len(survivors)} quote(s) verified ({', '.join(classes)})")
    return GateResult(title, "kept", tuple(reasons), classes, checks, (), label, tag_checks, copy)


def _measurements(prose: str, evidence: Sequence[Segment]) -> list[str]:
    """Numbers in an idea that state a measurement: a figure with a unit, or a figure
    that only TOOL output vouches for among the idea's evidence."""
    tool = _Vouchers(s.text for s in evidence if s.cls == "TOOL")
    other = _Vouchers(s.text for s in evidence if s.cls in ("USER", "ACT"))
    out: dict[str, None] = {}
    for num in _numbers(prose):
        if num.has_unit or (tool.vouches(num) and not other.vouches(num)):
            out.setdefault(num.canon, None)
    return list(out)


def run_gate(
    candidates: list[dict],
    segments: Sequence[Segment],
    *,
    is_echo: Callable[[str], bool] = lambda s: False,
    human_names: Sequence[str] = (),
    min_quote_chars: int = 8,
) -> list[GateResult]:
    """Gate every candidate against the batch *segments*; one result per candidate, in
    order. ``is_echo`` receives a normalised quote and says whether the store already
    holds it."""
    index = _Index(segments)
    return [
        _gate_one(
            c, index, is_echo=is_echo, human_names=human_names, min_quote_chars=min_quote_chars
        )
        for c in candidates
    ]
