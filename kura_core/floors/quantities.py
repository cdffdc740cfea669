"""Quantities in English, Japanese and Chinese text: the one scanner every floor uses.

A quantity is a value with what it counts or measures. The scanner finds

* figures in any script (ASCII, full-width, Arabic-Indic and other decimal digits, with
  signs, decimals, thousands separators and scientific notation), written-out numbers
  ("forty", "a dozen", "two and a half million", 二十, 12万5千, 四万二千円, 两, 三成, 五割,
  百分之三十) and multipliers ("twice", "3x", "3倍");
* each with its unit, counter, magnitude or currency (30%, 5 °C, 1.5M, $12, 12万円, 90天,
  3个月, 3台) -- any word after a figure counts as what it counts;
* ranges (10–20 GB), dates (2026-11-28, Nov 28, 28 November 2026, 11月28日, 5月2号), times
  (02:30, 2:30 pm, 午後2時半, 下午3点) and versions (v0.18.1, 3.11.7).

Two quantities are compared by meaning, not by spelling: :func:`covers` says whether a
quantity written by a model is vouched for by one in the evidence. The same value written
another way passes ("two" = 2, 12万5千円 = 125,000円, 3月12日 = March 12, 1e-3 = 0.001);
a different value, unit, currency, date or version does not (30% ≠ 30 °C, $12 ≠ £12,
90天 ≠ 90个月, Nov 28 ≠ Dec 28, 5月2日 ≠ 2月5日). A model may be less specific than its
evidence ("2:30" for "14:30"; "$" for "USD"; a bare 3.2 for 3.2T), never more.
"""

from __future__ import annotations

import bisect
import csv
import datetime
import functools
import itertools
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from typing import NamedTuple

from ..script import HAN, has_cjk, has_han, has_kana, is_han, is_kana
from . import lexicon
from .calendar import WEEKDAY, eras, weekdays, zone_after
from .identifiers import IDENTIFIER, _host as url_host, covers as covers_identifier, identifiers
from .text import fold_numbers
from .units import (
    COUNTER,
    FUNCTION_WORDS,
    HARD,
    ISO_CURRENCIES,
    LOCAL_CURRENCIES,
    MAGNITUDES,
    SOFT,
    cjk_unit,
    covers_unit,
    hard_unit,
    katakana_counter,
)

NUMBER, RANGE, DATE, TIME, VERSION, LITERAL = (
    "number",
    "range",
    "date",
    "time",
    "version",
    "literal",
)


@dataclass(frozen=True, slots=True)
class Quantity:
    """One quantity found in a text.

    ``text`` is the span as written (after folding), ``canon`` one canonical spelling used
    in messages (``43.7tok/s``, ``30%``, ``2026-11-28``, ``v0.18.1``). For dates
    ``readings`` holds every ``(year, month, day)`` the text can mean (``03/04`` is two),
    for times every ``(hour, minute, second)``; ``None`` marks a part not written.
    """

    kind: str
    text: str
    canon: str
    start: int
    end: int
    value: Decimal | None = None
    high: Decimal | None = None
    unit: str = ""
    uclass: str = ""
    readings: tuple = ()
    parts: tuple[str, ...] = ()
    #: what a rate is per ("8.5元/公斤", "每斤8.5元", "1玉あたり48円", "£0.12 per jar"): the
    #: denominator's unit or word, "" for a figure that is no rate
    per: str = ""
    #: what an amount of money says of the tax in it, beside it: "incl" (税込, 含税, incl.
    #: VAT), "excl" (税別, 不含税, ex VAT) or "" when it says nothing
    basis: str = ""

    @property
    def has_unit(self) -> bool:
        return bool(self.unit)


# =========================================================================== helpers

#: A number: digits grouped by thousands (1,240) or the Indian way, by lakhs and crores
#: after the first thousand (2,16,000.00; 1,23,45,678: not after a word, a comma or a
#: dot, where 中2,80,80,160 is a row's cells), or ungrouped.
_NUM = (
    r"(?:(?<![\w,.])\d{1,2}(?:,\d{2})+,\d{3}(?!\d|,\d)|\d{1,3}(?:,\d{3}(?!\d))+|\d+)"
    r"(?:\.\d+)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?"
)
_NUM_RE = re.compile(_NUM)

#: The most digits a figure may have to be read as a number (its exponent, if written, may
#: have two). No real quantity is longer -- 30 digits is over a trillion trillion, with room
#: for card and account numbers -- and Python refuses to turn a digit run of a few thousand
#: into an int. A longer figure (or a numeral run of more characters) is still checked, as
#: written: it is a literal, not a number.
MAX_FIGURE_DIGITS = 30
_MAX_EXPONENT_DIGITS = 2


def _figure_fits(text: str) -> bool:
    """Whether a written figure is short enough to be read as a number."""
    mantissa, _, exponent = text.lower().partition("e")
    digits = sum(ch.isdigit() for ch in mantissa)
    return digits <= MAX_FIGURE_DIGITS and len(exponent.lstrip("+-")) <= _MAX_EXPONENT_DIGITS


def _dec(text: str) -> Decimal | None:
    if not _figure_fits(text):
        return None
    try:
        return Decimal(text.replace(",", ""))
    except (InvalidOperation, ValueError):
        return None


def _show(value: Decimal) -> str:
    """A value as a plain figure: 125000, 1.5, 0.001."""
    if value == value.to_integral_value():
        return str(int(value))
    text = format(value.normalize(), "f")
    return text


def _written(num: str) -> str:
    """A figure as written, without thousands separators (the old canonical spelling)."""
    return num.replace(",", "")


#: An ordered-list marker at a line start, after any indentation, quote and bullet marks:
#: "1. ", "(2) ", "> - 3) ", "1、". The lead is one possessive class (any mix of those marks
#: is one run), so a line of dashes or hashes is read once instead of split every way.
_LIST_MARKER = re.compile(
    r"""
    ^(?P<lead>[ \t#>*+\-]*+)
     (?P<marker>\(\d{1,3}\)|\d{1,3}[.)])(?=[ \t])
    |^(?P<cjk_lead>[ \t]*+)(?P<cjk_num>\d{1,3})、
    """,
    re.MULTILINE | re.VERBOSE,
)


def _blank_list_markers(text: str) -> str:
    def repl(m: re.Match[str]) -> str:
        if m["marker"] is not None:
            return m["lead"] + " " * len(m["marker"])
        return m["cjk_lead"] + " " * (len(m["cjk_num"]) + 1)

    return _LIST_MARKER.sub(repl, text)


#: ① ❶ ➀ at a line start: a list marker, not a figure (blanked before folding makes it 1).
_CIRCLED_MARKER = re.compile(r"(?m)^([ \t]*)[\u2460-\u2473\u2776-\u2793]")


# =========================================================================== English words

_ONES = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fourty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_MULTIPLIER_WORDS: dict[str, int | Decimal] = {
    "twice": 2,
    "thrice": 3,
    "doubled": 2,
    "tripled": 3,
    "quadrupled": 4,
    "halved": Decimal("0.5"),
    "twofold": 2,
    "threefold": 3,
    "fourfold": 4,
    "fivefold": 5,
    "tenfold": 10,
    "hundredfold": 100,
}
#: words that add their value to the group being read ("twenty" "one")
_ADDENDS = {**_ONES, **_TENS}
#: words that multiply the group being read ("two hundred", "a dozen"); "hundred" is also a
#: scale but multiplies only its own group ("three hundred thousand")
_MULTIPLES = {"dozen": 12, "hundred": 100}
_NUMBER_WORD = "|".join(sorted([*_ONES, *_TENS, *_SCALES, "dozen", "half"], key=len, reverse=True))
_WORD_RUN = re.compile(
    rf"\b(?:(?:a|an)\s+)?(?:{_NUMBER_WORD})(?:(?:\s+|-)(?:and\s+(?:a\s+)?)?(?:(?:a|an)\s+)?(?:{_NUMBER_WORD}))*\b",
    re.IGNORECASE,
)
#: Words a number joins by a hyphen to name a method, not to count: two-sided,
#: one-tailed, two-sample, two-proportion, one-way, two-factor, two-phase, three-dimensional.
_TERM_AFTER = re.compile(
    r"(?i)(?:sided|tailed|sample|proportion|way|factor|phase|dimensional|pass|shot)(?![A-Za-z])"
)
_MULTIPLIER_RE = re.compile(
    r"\b(" + "|".join(_MULTIPLIER_WORDS) + r")\b|\b(\d+|" + "|".join(_ONES) + r")-fold\b",
    re.IGNORECASE,
)


#: A unit written onto a figure, then a slash and a word in capitals or mixed case that
#: is no unit (8.02%/ACoS, 12kg/SKU): the next item of a list, not what it is per.
_LIST_SLASH = re.compile(r"^[^/]+/(?=[A-Za-z]*[A-Z])(?![A-Z]?[a-z]{0,2}$)")


def _suffix_at(t: str, b: int) -> re.Match[str] | None:
    """The unit written onto a figure ending at *b*, without a slash that parts the items
    of a list (8.02%/ACoS 34.2%)."""
    suffix = _SUFFIX.match(t, b)
    if suffix and "/" in suffix.group(0) and _LIST_SLASH.match(suffix.group(0)):
        return _SUFFIX.match(t[: suffix.start() + suffix.group(0).index("/")], b)
    return suffix


def _suffix_unit(s: str, yen: str) -> tuple[str, str]:
    """The unit of a suffix written onto a figure (``3x``, ``5GB``, ``10req/s``, ``4cores``);
    ``yen`` is what a bare ``¥`` means in the text at hand."""
    if s in ("x", "X"):
        return "x", HARD
    hu = hard_unit(s)
    if hu == "¥":
        hu = yen
    if hu is not None:
        return hu, HARD
    if "/" in s:
        return _rate_unit(s) or s, HARD
    return _stem(s), SOFT


def _rate_unit(word: str) -> str | None:
    """The one unit of a rate written with a slash between two units (mg/kg, mL/min,
    km/h), each half in its canonical spelling; None when either half is no unit."""
    head, slash, tail = word.partition("/")
    if not slash or "/" in tail:
        return None
    a, b = hard_unit(head), hard_unit(tail)
    return f"{a}/{b}" if a is not None and b is not None else None


#: Words that open a phrase of time of its own after a counted thing ("5 trips next week",
#: "3 Rongai next year"): the period after them is no unit of the figure.
_TIME_DETERMINERS = frozenset({"next", "last", "this", "that", "every", "each", "per", "a", "an"})


def _soft_unit(tokens: list[tuple[str, int, int]], pos: int) -> tuple[tuple[str, str] | None, int]:
    """When no unit phrase leads: a hard unit within the next two words ("3 long hours"),
    else the first plain word as a soft unit ("2 slow disks" counts disks)."""
    first = tokens[0][0]
    if first.lower() in FUNCTION_WORDS or not first[0].isalpha():
        return None, pos
    if first.lower() in _EN_DAY_WORDS and len(first) > 4:
        return None, pos  # "at 5 Thursday": an hour, then its day; no Thursdays counted
    # a name after the figure ("Route 125 Rongai") is what it counts or names, never an
    # adjective of a unit further on
    for w, _, e in tokens[1:3] if not first[0].isupper() else ():
        if w.lower() in FUNCTION_WORDS or w.lower() in _TIME_DETERMINERS:
            break  # "5 trips next week": a time of its own, not 5 weeks
        hu = hard_unit(w)
        if hu is not None and len(w) > 2:
            return (hu, HARD), e
    for w, _, e in tokens[:3]:
        if w.lower() in FUNCTION_WORDS:
            break
        if _describes(w.lower()):
            continue  # "2 slow disks" counts disks; "3.1 used" counts nothing named
        return (_stem(w), SOFT), e
    return None, pos


def _words_value(words: list[str]) -> Decimal | None:
    """The value of a run of number words, or None when the run is not a number."""
    total = Decimal(0)
    current = Decimal(0)
    seen = False
    half = False
    i = 0
    while i < len(words):
        w = words[i]
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w in ("a", "an"):
            if nxt in _SCALES or nxt == "dozen":
                current += 1
            elif nxt != "half":
                return None
        elif w == "and":
            pass
        elif w in _ADDENDS:
            current += _ADDENDS[w]
            seen = True
        elif w in _MULTIPLES:
            current = (current or Decimal(1)) * _MULTIPLES[w]
            seen = True
        elif w == "half":
            if seen or current:
                half = True  # "two and a half": applies to what came before
            elif nxt in ("a", "an") and i + 2 < len(words) and words[i + 2] in _SCALES:
                current = Decimal("0.5")
                i += 1
                seen = True
            else:
                return None
        elif w in _SCALES:
            if half:
                current += Decimal("0.5")
                half = False
            total += (current or Decimal(1)) * _SCALES[w]
            current = Decimal(0)
            seen = True
        else:
            return None
        i += 1
    if half:
        current += Decimal("0.5")
    if not seen:
        return None
    value = total + current
    return value if value.adjusted() < MAX_FIGURE_DIGITS else None


# =========================================================================== CJK numerals

_CJK_DIGITS = {
    "〇": 0,
    "零": 0,
    "一": 1,
    "壱": 1,
    "二": 2,
    "弐": 2,
    "两": 2,
    "兩": 2,
    "三": 3,
    "参": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_CJK_SMALL = {"十": 10, "拾": 10, "百": 100, "千": 1000, "廿": 20, "卅": 30}
_CJK_BIG = {"万": 10**4, "萬": 10**4, "億": 10**8, "亿": 10**8, "兆": 10**12}
_CJK_ALL = "".join([*_CJK_DIGITS, *_CJK_SMALL, *_CJK_BIG])
#: A numeral run: figures and CJK numerals mixed (12万5千, 三千, 1.5億). Every repeat is
#: possessive, and a leading figure is read only from its first digit, so a long digit run
#: is read once instead of once per position it could start from.
_CJK_MAGNITUDES = "".join([*_CJK_SMALL, *_CJK_BIG])
_CJK_RUN = re.compile(
    rf"""
    (?:(?<![\d.,])(?:\d{{1,3}}(?:,\d{{3}})++|\d++)(?:\.\d++)?+(?=[{_CJK_MAGNITUDES}]))?+
    [{_CJK_ALL}]
    (?:[{_CJK_ALL}]|(?:\d{{1,3}}(?:,\d{{3}})++|\d++)(?:\.\d++)?+)*+  # 4万8,400: groups after 万
    """,
    re.VERBOSE,
)
_CJK_TOKEN = re.compile(rf"\d{{1,3}}(?:,\d{{3}})++(?:\.\d++)?+|\d++(?:\.\d++)?+|[{_CJK_ALL}]")
#: Words that start with a numeral but are not numbers (or not only numbers).
_CJK_IDIOMS = re.compile(
    r"万一|万が一|万全|万能|万年筆|万歳|万岁|万物|万事|万分|千万(?=[不别要小记务])|千葉|千代|千差万别|"
    r"百度|百貨|百货|百科|百姓|百般|百分[号號比之率点點]|八百屋|八百長|四六時中|十中八九|七五三|二人三脚|二度と|"
    r"三日坊主|十分(?![間间钟鐘])|十分間に合|十分に|十足|十全|五月雨|五月蝿|八つ当|九死|一石二鳥|三三五五|"
    r"一成不变|三思|四处|四處|四方|八方|七夕|九州|四川|三菱|千万别|五花八门|五花八門|"
    r"乱七八糟|亂七八糟|一五一十|三番五次|四季|两者|兩者|两边|兩邊|两方|两种方|十字|百分百|"
    r"百分点|百分點|百分比"
)


#: The numerals one to nine (两 too): digits with no place and no zero.
_CJK_ONES = frozenset("一二三四五六七八九两兩")
_CLOCK_HOUR = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|1[0-2]|0?[1-9])"
#: A clock said in words (see :meth:`_Scan._spoken_clocks`).
_SPOKEN_CLOCK = re.compile(
    r"(?i)(?<![\w-])(?:"
    rf"(?P<part>half|quarter|five|ten|twenty|twenty[ -]five)[ \t]+(?P<rel>past|after|to)[ \t]+"
    rf"(?P<h1>{_CLOCK_HOUR})"
    rf"|(?:(?<=at )|(?<=by )|(?<=to )|(?<=on )|(?<=for )|(?<=till )|(?<=until ))"
    rf"half[ \t]+(?P<h2>{_CLOCK_HOUR})"
    rf"|(?P<h3>{_CLOCK_HOUR})[ \t]*o['’]?clock"
    # "five to ten minutes" is a span of minutes, no clock
    r")(?![\w-])(?![ \t]+(?i:min|mins|minutes?|hours?|hrs?|days?|weeks?|months?|years?"
    r"|seconds?|secs?|times|percent|people|points?|miles?|km|kg)\b)"
)
#: The minutes a spoken clock's first word names.
_CLOCK_PARTS = {"half": 30, "quarter": 15, "five": 5, "ten": 10, "twenty": 20, "twenty-five": 25}
#: Half the price, named without a figure.
_HALF_PRICE = re.compile(r"半額|半価|半价|半價|半値|(?i:\bhalf[ -]price\b)")
#: What two digits with no place before it read as tenths and hundredths (八五折 is 8.5折).
_TENTHS = frozenset("折")


def _cjk_value(run: str) -> Decimal | None:
    """The value of a numeral run, or None when it is longer than any real quantity."""
    if len(run) > MAX_FIGURE_DIGITS:
        return None
    total = Decimal(0)
    section = Decimal(0)
    num: Decimal | None = None
    prev_digit = False
    for tok in _CJK_TOKEN.findall(run):
        if tok[0].isdigit():
            num = Decimal(tok.replace(",", ""))  # 1,200万: the groups of one figure
            prev_digit = False
        elif tok in _CJK_DIGITS:
            d = Decimal(_CJK_DIGITS[tok])
            num = num * 10 + d if (num is not None and prev_digit) else d
            prev_digit = True
        elif tok in _CJK_SMALL:
            section += (num if num is not None else Decimal(1)) * _CJK_SMALL[tok]
            num = None
            prev_digit = False
        elif tok in _CJK_BIG:
            section += num if num is not None else Decimal(0)
            total += (section if section else Decimal(1)) * _CJK_BIG[tok]
            section = Decimal(0)
            num = None
            prev_digit = False
    section += num if num is not None else Decimal(0)
    return total + section


# =========================================================================== patterns

_MON = (
    r"(?:[Jj]an(?:uary)?|[Ff]eb(?:ruary)?|Mar(?:ch)?|[Aa]pr(?:il)?|May|[Jj]une?|[Jj]uly?|"
    r"[Aa]ug(?:ust)?|[Ss]ep(?:t(?:ember)?)?|[Oo]ct(?:ober)?|[Nn]ov(?:ember)?|[Dd]ec(?:ember)?)"
)
_MONTHS = {
    m: i
    for i, m in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"],
        start=1,
    )
}

_ISO = re.compile(
    r"""
    (?<![A-Za-z0-9_./-])(?<![0-9]:)                     # after a label's colon, not a clock's
    (\d{4}) ([-/.]) (\d{1,2}) \2 (\d{1,2})                 # 2026-11-28, 2026/11/28
    (?:[T\ ] (\d{1,2}) : (\d{2})                         # T14:30
       (?: : (\d{2}) (?:\.\d+)? )?                        # :05.123
       (?: Z | \+\d{2}:?\d{2} | (?(7)-\d{2}:?\d{2}|(?!)) )?  # Z, +09:00; -10:00 after
                                                          # seconds (else 08:00-10:00 is a span)
    )?
    (?![A-Za-z0-9_]) (?!\.\d)
    """,
    re.VERBOSE,
)
#: An ISO date right after the number a viewer or grep -n put before its line
#: ("9:2026-11-24,火"), which a clock's minutes never are.
_NUMBERED_ISO = re.compile(
    r"(?m)^[ \t]*\d{1,6}:(\d{4})-(\d{1,2})-(\d{1,2})(?![A-Za-z0-9_])(?!\.\d)"
)
_YEAR_MONTH = re.compile(r"(?<![A-Za-z0-9_.:/-])(\d{4})-(\d{2})(?![A-Za-z0-9_.-])")
_NUMERIC_DATE = re.compile(
    r"(?<![A-Za-z0-9_.:/-])(\d{1,2})([/.-])(\d{1,2})\2(\d{4}|\d{2})(?![A-Za-z0-9_])(?!\.\d)"
)
#: The marks of Chinese and Japanese text beside a figure: 12/26〜1/7（…）.
_CJK_MARKS = frozenset("〜～（）「」『』、。・【】")
#: A day written with a slash and a span's join right before another: "12/26 to 1/7".
_DAY_BEFORE_SPAN = re.compile(
    r"\d{1,2}/\d{1,2}[ \t]*(?:[-~\u2013〜～]|to|until|till)[ \t]*$"
    # "new hours from 1/4", "due by 3/5", "closed on 6/7": a word that leads a day
    r"|(?i:\b(?:from|on|by|until|till|since|starting|effective|wef|w\.e\.f\.))[ \t]+$"
)
#: A day written month/day or day/month without a year: 11/20, 20/11, 3/7(日).
#: after a label's colon too (メモ：12/11), never inside a clock or a path (10:12/11); a
#: comma between two of them parts a list (a header's 3/16,3/17)
_MONTH_DAY = re.compile(
    r"(?<![A-Za-z0-9_./-])(?<![A-Za-z0-9_]:)(\d{1,2})/(\d{1,2})"
    r"(?![A-Za-z0-9_/%]|\.\d|,\d(?!\d?/))"  # 3/16,3/17: a list of days, not 16,3
)
_MDY = re.compile(
    rf"""
    (?<![A-Za-z0-9_]) ({_MON}) \.? \s+                     # Nov, November.
    (\d{{1,2}}) (?:st|nd|rd|th)? (?![A-Za-z0-9_]|:\S)      # 28th ("April 1: $3.10" too)
    (?: ,? \s+ (\d{{4}}) (?![A-Za-z0-9_]) )?              # , 2026
    """,
    re.VERBOSE,
)
#: The months after a day's number: "may" and "mar" in lower case too ("paid on 9 may"),
#: where no verb stands after a number.
_MON_AFTER_DAY = _MON.replace("|May|", "|[Mm]ay|").replace("|Mar(?:ch)?|", "|[Mm]ar(?:ch)?|")
_DMY = re.compile(
    rf"""
    (?<![A-Za-z0-9_.]) (\d{{1,2}}) (?:st|nd|rd|th)? \s+     # 28th
    (?:of\s+)? ({_MON_AFTER_DAY}) \b (?: \. (?=,?\s+\d{{4}}) )?      # of November, Nov.
    (?: ,? \s+ (\d{{4}}) (?![A-Za-z0-9_]) )?              # , 2026
    """,
    re.VERBOSE,
)
_MY = re.compile(rf"(?<![A-Za-z0-9_])({_MON})\.?,?\s+(\d{{4}})(?![A-Za-z0-9_])")
_CJN = rf"\d{{1,4}}|[{''.join(_CJK_DIGITS)}十]{{1,4}}"
_CJK_DATE = re.compile(
    rf"(?<![\d{_CJK_ALL}])(?:({_CJN})年)?({_CJN})月(?:({_CJN})[日号號])?(?![間间])"
)
_CJK_YEAR = re.compile(rf"(?<![\d{_CJK_ALL}])(\d{{4}}|[〇零一二三四五六七八九]{{4}})年(?![間间])")
_CJK_TIME = re.compile(
    rf"(午前|午後|上午|下午|早上|早晨|晚上|夜里|夜裡|夜間|夜间|凌晨|中午|深夜|朝|夕方)?"
    rf"(?<![\d{_CJK_ALL}])({_CJN})[時时点點](?![間间代点])(?:({_CJN})分|(半))?(?:(\d{{1,2}})秒)?(钟|鐘)?"
)
#: A clock time; a colon may follow it ("10:00: kickoff", 00:31:05：2023年), a third or
#: fourth clock part may not.
#: A clock written with a dot, as British, Singaporean and Australian English write it,
#: its half of the day said: 11.30am, 1.30 pm, 7.15a.m. (no figure alone: 11.30 is a price).
_HM_DOT = re.compile(r"(?<![A-Za-z0-9_.$£€¥])(\d{1,2})\.(\d{2})[ \t]?([AaPp])\.?[Mm]\b\.?")
_HM = re.compile(
    # after a label's colon too (入住须知：14:00), never after a clock's or a code's
    r"(?<![A-Za-z0-9_.])(?<![A-Za-z0-9_.:]:)(\d{1,2}):(\d{2})(?::(\d{2}))?"
    # 2:30 pm, 2:30p.m.; and the schedule's shorthand 6:30a, 3:15p
    r"(?:\s?([AaPp])\.?[Mm]\b\.?|([ap])(?![A-Za-z0-9_]))?"
    r"(?![A-Za-z0-9_])(?!:\d{1,2}(?!\d))"
)
#: Twelve o'clock in words; 中午 only where no figure follows (中午12点 is read as a time).
_NOON = re.compile(
    r"(?<![A-Za-z])(?:noon|midday)(?![A-Za-z])|正午|中午(?![\d一二三四五六七八九十两])", re.I
)
#: A part of the day right before a Japanese or Chinese hour, with の or nothing between:
#: before noon (group 1: 夜中, 深夜, 未明, 明け方, 早朝, 朝) or after it (group 2: 夜, 晩, 夕方).
_DAY_PART = re.compile(
    r"(?:(夜中|夜半|深夜|未明|明け方|早朝|朝|午前|凌晨|早上)|(夜|晩|夕方|午後|晚上|傍晚))の?$"
)
_AFTERNOON = ("午後", "下午", "晚上", "夜里", "夜裡", "夕方", "傍晚", "pm", "p.m.")
_MORNING = ("午前", "上午", "早上", "早晨", "凌晨", "am", "a.m.")


def _day_half(before: str) -> str:
    """ "p" when the words right before a clock time put it after noon (午後10:24, 下午
    3:15, "PM 10:24"), "a" before noon, else ""."""
    b = before.rstrip().lower()
    if b.endswith(_AFTERNOON):
        return "p"
    if b.endswith(_MORNING):
        return "a"
    return ""


_AMPM = re.compile(r"(?<![A-Za-z0-9_.])(?<![A-Za-z0-9_.:]:)(\d{1,2})\s?([AaPp])\.?[Mm]\b\.?")
_RATIO = re.compile(r"(?<![A-Za-z0-9_.:])(\d+):(\d+)(?![A-Za-z0-9_:])")
_VPREFIX = re.compile(
    r"(?<![A-Za-z0-9_.])[vV](\d+(?:\.\d+)*)((?:[-+][0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?)(?![A-Za-z0-9_]|\.[A-Za-z0-9])"
)
_DOTTED = re.compile(
    r"(?<![A-Za-z0-9_.])(\d+(?:\.\d+){2,})((?:[-+][0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?)(?![A-Za-z0-9_])(?!\.\d)"
)
_HEX = re.compile(r"(?<![A-Za-z0-9_.])0[xX][0-9A-Fa-f]+(?![A-Za-z0-9_])")
_DIMS = re.compile(r"(?<![A-Za-z0-9_.])(\d+)[xX](\d+)(?:[xX](\d+))?(?![A-Za-z0-9_]|\.[A-Za-z0-9])")
_PERCENT_ZH = re.compile(rf"(百分之|千分之)([\d.]+|[{_CJK_ALL}]+)")
#: 三分之一, 3分之1: each side read from the start of its run, possessively
_FRACTION_ZH = re.compile(
    rf"((?<!\d)\d++|(?<![{_CJK_ALL}])[{_CJK_ALL}]++)分之(\d++|[{_CJK_ALL}]++)"
)
_WARI = re.compile(
    rf"(?<![\d{_CJK_ALL}])(\d+|[{''.join(_CJK_DIGITS)}十])割(?:(\d|[{''.join(_CJK_DIGITS)}])分)?"
)
_CHENG = re.compile(
    rf"(?<![\d{_CJK_ALL}])(\d+|[{''.join(_CJK_DIGITS)}十])成(?![功果本绩績立员員为為熟长長年人型分交就品份])"
    # 一成二, 三成五: the tenth's ones after it (12%, 35%), where no word goes on
    rf"(?:([{''.join(d for d in _CJK_DIGITS if d not in '〇零')}])(?![{_CJK_ALL}万亿億千百]))?"
)
_KANA_COUNT = {
    "ふたつ": 2,
    "みっつ": 3,
    "よっつ": 4,
    "いつつ": 5,
    "むっつ": 6,
    "ななつ": 7,
    "やっつ": 8,
    "ここのつ": 9,
    "ふたり": 2,
}
_KANA_RE = re.compile("|".join(_KANA_COUNT))
_CURRENCY_PREFIX = re.compile(
    r"(US\$|C\$|A\$|HK\$|NT\$|S\$|NZ\$|R\$|\$|€|£|¥|₩|₹|₽|₺|₪|₫|฿|₱|₿|₦|₴|GH₵|₵|"
    r"(?<![A-Za-z])(?:USD|EUR|GBP|JPY|CNY|RMB|CHF|CAD|AUD|HKD|INR|KRW|RUB|SEK|NOK|TWD|SGD"
    r"|PHP|THB|VND|BRL|PLN|MXN|DKK|ILS|NZD|"
    + "|".join(sorted(ISO_CURRENCIES | LOCAL_CURRENCIES.keys()))
    + r")\s?"
    r"|(?<![A-Za-z])(?:KShs?|Kshs?|TShs?|Tsh|USh|Ush|Rp|RM|S/)\.?\s?"
    r"|(?<![A-Za-z])Rs\.?\s?|(?<![A-Za-z0-9_])R)\s?$"
)
#: A rand amount right after its R (R1,250, R95.50): the R is its currency, not a code's
#: letter -- with grouped thousands or cents only, as R44 is as likely a road.
_RAND_FIGURE = (
    r"(?<=R)(?<![A-Za-z0-9_.]R)(?=\d{1,3}(?:,\d{3})+(?:\.\d\d)?(?![\d.])|\d+\.\d\d(?![\d.]))"
)
_DIGITS = re.compile(
    rf"(?:(?<![A-Za-z0-9_.])|{_RAND_FIGURE})(?:(?<![A-Za-z]-)|(?<=[A-Za-z]-)(?=\d+(?:\.\d+)?-[A-Za-z]))"
    rf"(?P<sign>[+\-±](?=[\d.]))?(?P<num>{_NUM})"
)
#: a compound duration: 1h30m, 2m30s, 1d12h
_DURATION = re.compile(r"(?<![A-Za-z0-9_.])((?:\d+(?:\.\d+)?(?:d|h|m|s|ms))+)(?![A-Za-z0-9_])")
_DURATION_PART = re.compile(r"(?<![\d.])(\d++(?:\.\d++)?+)(ms|d|h|m|s)")
_DURATION_SECONDS: dict[str, int | Decimal] = {
    "d": 86400,
    "h": 3600,
    "m": 60,
    "s": 1,
    "ms": Decimal("0.001"),
}
_SUFFIX = re.compile(r"[A-Za-zµμΩ°%‰′″]+(?:/[A-Za-z]+)?|[$€£¥₩₹₽₺₪₫฿₱₿¢]")
_SPACED_TOKEN = re.compile(
    r"[ \t]{0,2}(?:-(?=[A-Za-z]))?([A-Za-z°%‰µμΩ℃][A-Za-z0-9_°/'-]*|[%‰°℃$€£¥₩₹₽₺₪₫฿₱₿¢])"
)
_RANGE_JOIN = re.compile(
    r"(?:(?<=\d)-|[ \t]*[\u2013~][ \t]*|[ \t]+to[ \t]+|[ \t]*(?:[至到]|から)[ \t]*)(?=[+\-]?[\d.])"
)
#: What follows "X から Y" when it is a change, not a span: に or へ, but not にかけて
#: (10時から12時にかけて runs over those hours).
_CHANGED_TO = re.compile(r"[ \t]*(?:へ|に(?!かけ|わた|渡))")
#: "between 20 and 30": the "and" joins a range only after "between".
_BETWEEN_BEFORE = re.compile(r"(?i)\bbetween[ \t]++$")
_BETWEEN_AND = re.compile(r"[ \t]+and[ \t]+(?=[+\-]?[\d.])")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_LETTERS = re.compile(r"[A-Za-z]+")
#: what makes "one day" a span ("in one day") rather than someday
_ONE_DAY_LEAD = re.compile(
    r"\b(?:in|for|within|after|every|per|only|just|than|about|over|under)\s+$", re.IGNORECASE
)
_ORDINAL = lexicon.words("quantities_ordinal")
_PER_TIME = re.compile(r"[ \t]+(?:per|a|an)[ \t]+(second|sec|s)\b")
_APPROX_CJK = "多余餘几幾来來"
_NEXT_WORD = re.compile(r"[ \t]+([A-Za-z][A-Za-z-]*)")
_COUNT_NOUNS = lexicon.words("quantities_count_nouns")
_MAGNITUDE_WORD = re.compile(
    r"[ \t]+(thousand|million|billion|trillion|bn|mn|tn|lakh|crore)\b", re.IGNORECASE
)
_CURRENCIES = frozenset(
    {
        "USD",
        "CAD",
        "AUD",
        "HKD",
        "TWD",
        "SGD",
        "NZD",
        "MXN",
        "$",
        "EUR",
        "GBP",
        "JPY",
        "CNY",
        "¥",
        "KRW",
        "INR",
        "RUB",
        "CHF",
        "SEK",
        "NOK",
        "DKK",
        "BRL",
        "PLN",
        "TRY",
        "ILS",
        "VND",
        "THB",
        "PHP",
        "BTC",
        "ETH",
        "¢",
        "pound",
        *LOCAL_CURRENCIES,
        *ISO_CURRENCIES,
    }
)


# =========================================================================== the scanner


#: A negative written the accountant's way: ▲222,500 and △3,140 (Japanese books), and an
#: amount alone in parentheses with its thousands or its cents, (1,240.00), (222,500).
_TRIANGLE_MINUS = re.compile(r"[▲△](?=\d)")
_PAREN_NEGATIVE = re.compile(r"\((\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d{2})\)")


def _accountant_negatives(text: str) -> str:
    """*text* with accountant's negatives written with a minus, one character for one (the
    closing parenthesis becomes a space), so every offset stays."""
    if "▲" in text or "△" in text:
        text = _TRIANGLE_MINUS.sub("-", text)
    if "(" in text:
        text = _PAREN_NEGATIVE.sub(_paren_negative, text)
    return text


def _paren_negative(m: re.Match[str]) -> str:
    """An amount alone in parentheses, written with a minus; a month and a day set in
    Chinese or Japanese prose (下周五（12.11）晚上) is a date, no accountant's negative."""
    text = m.string
    beside = text[m.start() - 1 : m.start()] + text[m.end() : m.end() + 1]
    month, _dot, day = m.group(1).partition(".")
    if day and month.isdigit() and int(month) <= 12 and 1 <= int(day) <= 31 and has_cjk(beside):
        return m.group(0)  # a month and a day, as Chinese writes them: 12.11
    return f"-{m.group(1)} "


#: An amount written the continental way, its groups set off by dots or spaces and its
#: cents by a comma (1.250,00, 1 250,00): no English figure has that shape.
_CONTINENTAL = re.compile(
    r"(?<![\d.,])\d{1,3}(?:([ .\u00a0\u202f])\d{3})(?:\1\d{3})*+,\d{1,2}(?![\d,]|\.\d)"
)
#: A currency a continental amount is written beside: before it (€18,50, R45,90, R 1 250)
#: or after it (18,50 €, 1 250 kr).
_CONTINENTAL_BEFORE = re.compile(
    r"(?:[€£$₦₴₽]|R\$|(?<![A-Za-z0-9_])R|\b(?:EUR|ZAR|CHF|PLN|CZK|SEK|NOK|DKK))[ \t]?$"
)
_CONTINENTAL_AFTER = re.compile(
    r"[ \t\u00a0]?(?:€|₴|₽|\b(?:EUR|ZAR|zł|Kč|kr|lei|Ft)\b|\brand\b)", re.IGNORECASE
)
#: A figure beside such a currency: cents after a comma (18,50), or groups set off by a
#: space (1 250, 12 500,00).
_COMMA_CENTS = re.compile(
    r"(?<![\d.,])\d{1,3}(?:([ .\u00a0\u202f])\d{3})(?:\1\d{3})*+(?:,\d{2})?(?![\d,]|\.\d)"
    r"|(?<![\d.,])\d+,\d{2}(?![\d,]|\.\d)"
    r"|(?<![\d.,])\d+,\d{1,2}(?=[ \t\u00a0]?%)"
    r"|(?<!\S)\d{1,3},\d{1,2}(?=[ \t]?[A-Za-z°℃])"
)
#: A figure with one or two decimals after a comma, standing apart, a unit's word after it
#: ("22,5 balling", "13,5 % vol", "4,5 km"): no list runs "22,5" together before a word.
_DECIMAL_BEFORE_UNIT = re.compile(
    r"(?<!\S)\d{1,3},\d{1,2}(?=[ \t]?(?:[°℃]|(?!(?i:and|or|to|of|in|on|at|for|the|a|an)\b)[A-Za-z]))"
)


_GROUP_MARKS = re.compile(r"[ .\u00a0\u202f]")


def _continental(text: str) -> str:
    """*text* with amounts written the continental way (1.250,00; 1 250,00; €18,50;
    R1 250) in the English way (1,250.00; 1,250.00; €18.50; R1,250), one character for one,
    so every offset stays. A comma with two digits after it is cents only where the shape
    or a currency beside it says so: "18,50" alone may be two figures."""
    if "," not in text and " " not in text and "\u00a0" not in text:
        return text
    parts: list[str] = []
    last = 0
    for m in _COMMA_CENTS.finditer(text):
        a, b = m.span()
        whole = (
            _CONTINENTAL.fullmatch(m.group(0)) is not None
            or text[b : b + 2].strip() == "%"
            or _DECIMAL_BEFORE_UNIT.match(text, a) is not None
        )
        if not whole and "." in m.group(0):
            continue  # €1.250 may be a price in thousandths; only cents make the dots groups
        if not whole and not (
            _CONTINENTAL_BEFORE.search(text, max(0, a - 5), a) or _CONTINENTAL_AFTER.match(text, b)
        ):
            continue
        num = m.group(0)
        head, comma, cents = num.rpartition(",") if "," in num else (num, "", "")
        head = _GROUP_MARKS.sub(",", head)
        parts += [text[last:a], head + ("." if comma else "") + cents]
        last = b
    return "".join(parts) + text[last:] if parts else text


_LATIN_LETTER = re.compile(r"[A-Za-z]")


def _yen_of(text: str) -> str:
    """What a bare ¥ means in *text*: the yen among kana, the yuan in Chinese, and either
    in an English sentence that names a Japanese or Chinese office (田村 of 情報政策課)."""
    if has_kana(text):
        return "JPY"
    if not has_han(text):
        return "¥"
    han = sum(1 for c in text if is_han(c))
    return "CNY" if han >= len(_LATIN_LETTER.findall(text)) else "¥"


def _date_order(dates: list[re.Match[str]]) -> str:
    """The order a text writes its numeric dates in, when one of them shows it and none
    shows the other: "24/11/2026" (no month 24) makes that text's "4/12/2026" the fourth
    of December; "" when no date shows it, or dates show both."""
    orders = set()
    for m in dates:
        a, b = int(m.group(1)), int(m.group(3))
        if a > 12 >= b >= 1:
            orders.add("dmy")
        elif b > 12 >= a >= 1:
            orders.add("mdy")
    return orders.pop() if len(orders) == 1 else ""


#: Two figures of a day written with a slash or a dot, with or without its year.
_DAY_PAIR = re.compile(
    r"(?<![A-Za-z0-9_.:/-])(?:(\d{1,2})/(\d{1,2})(?:/(?:\d{4}|\d{2}))?"
    # a dot only with the year: 6.30 is a clock time, 1.40 a price
    r"|(\d{1,2})\.(\d{1,2})\.(?:\d{4}|\d{2}))(?![A-Za-z0-9_/%])(?!\.\d)"
)


def _pair(m: re.Match[str]) -> tuple[int, int]:
    return (int(m.group(1)), int(m.group(2))) if m.group(1) else (int(m.group(3)), int(m.group(4)))


def session_date_order(texts: Iterable[str]) -> str:
    """The order a whole session writes its numeric days in, when one of them shows it
    ("24/3", "26/01/2026": no month 24) and none shows the other: "dmy" or "mdy", "" when
    none shows it or they show both. A text's own dates decide first (:func:`_date_order`);
    this reads an ambiguous "1/4" of a day-first session (a Singapore stall's "from 1/4")
    as the first of April."""
    orders: set[str] = set()
    named: list[tuple[int, int, int | None, int]] = []  # day pairs a weekday is written by
    years: set[int] = set()
    for text in texts:
        if has_cjk(text):
            continue  # beside Chinese or Japanese a day is month/day
        for m in _DAY_PAIR.finditer(text):
            a, b = _pair(m)
            year = _pair_year(m)
            if year:
                years.add(year)
            if 31 >= a > 12 >= b >= 1:
                orders.add("dmy")
            elif 31 >= b > 12 >= a >= 1:
                orders.add("mdy")
            elif 12 >= a >= 1 and 12 >= b >= 1 and a != b:
                wd = _WEEKDAY_BEFORE.search(text, max(0, m.start() - 14), m.start())
                if wd:
                    named.append((a, b, year, _WEEKDAY_NUMBER[wd.group(1)[:3].lower()]))
            if len(orders) > 1:
                return ""
    # "Sat 07/02/2026": 7 February 2026 is a Saturday and 2 July is not, so the day comes
    # first (a pair written without its year takes the session's one year)
    for a, b, year, weekday in named:
        year = year or (next(iter(years)) if len(years) == 1 else None)
        if year is None:
            continue
        dmy = _weekday_of(year, b, a) == weekday
        mdy = _weekday_of(year, a, b) == weekday
        if dmy != mdy:
            orders.add("dmy" if dmy else "mdy")
        if len(orders) > 1:
            return ""
    return orders.pop() if orders else ""


#: A weekday written right before a day: "Sat 07/02/2026", "Monday 09/02", "Tues, 3/4".
_WEEKDAY_BEFORE = re.compile(
    r"(?i)\b(mon|tue|wed|thu|fri|sat|sun)[a-z]{0,6}\.?,?[ \t]{1,2}(?:the[ \t]+)?$"
)
_WEEKDAY_NUMBER = {d: i for i, d in enumerate(("mon", "tue", "wed", "thu", "fri", "sat", "sun"))}


def _pair_year(m: re.Match[str]) -> int | None:
    """The year a day pair of :data:`_DAY_PAIR` writes after it (07/02/2026, 5.3.26)."""
    tail = m.group(0).replace(".", "/").split("/")
    if len(tail) < 3 or not tail[2].isdigit():
        return None
    year = int(tail[2])
    return year + 2000 if year < 100 else year


def _weekday_of(year: int, month: int, day: int) -> int | None:
    try:
        return datetime.date(year, month, day).weekday()
    except ValueError:
        return None


#: Currencies a "$" or a "¥" may stand for, when a session writes that one beside it.
_DOLLARS = frozenset({"USD", "CAD", "AUD", "HKD", "TWD", "SGD", "NZD", "MXN"})
_YENS = frozenset({"JPY", "CNY"})


def session_currency(texts: Iterable[str]) -> str:
    """The one currency a whole session writes its amounts in (twice at least, and no
    other; a bare "$" beside S$ is the same dollar), or "": what a bare amount of it means
    where a word makes it money (运费38, "price 18.50")."""
    seen: dict[str, int] = {}
    for text in texts:
        for q in scan(text):
            if q.kind == NUMBER and q.unit in _CURRENCIES and q.unit not in ("¢", "pound"):
                seen[q.unit] = seen.get(q.unit, 0) + 1
    for sign, kin in (("$", _DOLLARS), ("¥", _YENS)):
        named = seen.keys() & kin
        if sign in seen and len(named) == 1:
            seen[next(iter(named))] += seen.pop(sign)
    if len(seen) != 1:
        return ""
    (unit, count), *_ = seen.items()
    return unit if count >= 2 and unit not in ("$", "¥") else ""


#: What makes the bare figure right after it an amount of money.
_MONEY_BEFORE = re.compile(
    r"(?:(?i:\b(?:"
    + "|".join(sorted(lexicon.words("money_nouns", ("en",)), key=len, reverse=True))
    + r"))|"
    + "|".join(sorted(lexicon.words("money_nouns", ("ja", "zh")), key=len, reverse=True))
    + r"|[\u4e00-\u9fff][费費])[ \t]{0,2}(?:(?i:of|is|was|at)[ \t]{1,2})?[:：=]?[ \t]{0,2}$"
)
#: An amount with two decimals, the way a decimal currency writes its cents (1.40, 6.00).
_CENTS = re.compile(r"\d\.\d\d$")


_RAND_AMOUNT = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d\d)?(?![\d.])|\d+\.\d\d(?![\d.])")


#: A key's parts, as a setting's name joins them (alarm_max_c, RETENTION-DAYS).
_KEY_PARTS = re.compile(r"[_-]")
#: The last part of a setting's key that names the unit of its value.
_KEY_UNIT_WORDS = frozenset(
    # not min, h, s, d or f alone: stock_min, img_h, retries_s name no unit
    [
        "c",
        "celsius",
        "fahrenheit",
        "ms",
        "sec",
        "secs",
        "seconds",
        "mins",
        "minutes",
        "hrs",
        "hours",
        "days",
        "kb",
        "mb",
        "gb",
        "tb",
        "pct",
        "percent",
        "kg",
    ]
)
_KEY_UNITS = {
    "c": "°C",
    "celsius": "°C",
    "f": "°F",
    "fahrenheit": "°F",
    "sec": "s",
    "secs": "s",
    "seconds": "s",
    "mins": "min",
    "minutes": "min",
    "hrs": "h",
    "hours": "h",
    "days": "day",
    "d": "day",
    "pct": "%",
    "percent": "%",
}


def _unit_of_key(text: str, at: int) -> tuple[str, str] | None:
    """The unit the key a figure at *at* is set under names: ``alarm_max_c: 8`` is 8 °C,
    ``timeout_ms=500`` 500 ms, ``surcharge_ngn: 800`` ₦800. Read backwards from the figure
    over a quote, a colon or an equals sign and the key, a few characters at most."""
    j = at
    for marks in (" \t", "\"'", " \t", ":=", " \t", "\"'"):
        if marks == ":=":
            if j == 0 or text[j - 1] not in marks:
                return None
            j -= 1
            continue
        stop = max(0, j - 4)
        while j > stop and text[j - 1] in marks:
            j -= 1
    k = j
    while k > max(0, j - 64) and (
        text[k - 1].isascii() and (text[k - 1].isalnum() or text[k - 1] in "_-")
    ):
        k -= 1
    parts = _KEY_PARTS.split(text[k:j])
    if len(parts) < 2 or not parts[0][:1].isalpha():
        return None
    word = parts[-1].lower()
    if word in _KEY_UNIT_WORDS:
        unit = _KEY_UNITS.get(word) or hard_unit(word)
        return (unit, HARD) if unit else None
    code = word.upper()
    return (code, HARD) if len(word) == 3 and code.isalpha() and code in _CURRENCIES else None


_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")


def _host_of(e: Quantity) -> str:
    """The host an identifier names: an address's after its @, a URL's before its path."""
    if e.unit == "email":
        return e.canon.rsplit("@", 1)[-1]
    if e.unit == "url":
        return url_host(e.canon)
    return ""


def _money_position(text: str, q: Quantity, currency: str) -> bool:
    """Whether the bare figure *q* of *text* is an amount of money: a word of price or fee
    right before it (运费38, 加急费500, "delivery charge 15"), or, in a currency with cents,
    two decimals (kopi 1.40)."""
    if _MONEY_BEFORE.search(text, max(0, q.start - 16), q.start):
        return True
    if _THOUSANDS_SAID.search(q.text):
        return True  # "mechanic say na 35k", 1.2m: a sum as people say one, nothing counted
    if _PRICE_CHANGE_BEFORE.search(text, max(0, q.start - 6), q.start) or _PRICE_CHANGE_AFTER.match(
        text, q.end
    ):
        return True  # 每袋从135涨到148: what rises and falls so is a price
    return currency not in ("JPY", "KRW", "VND") and bool(_CENTS.search(q.text))


#: A price's rise or fall said around a bare figure: 涨到148, 从135涨到, 降到, 跌至.
_PRICE_CHANGE_BEFORE = re.compile(r"(?:涨|漲|降|跌|涨价|漲價|降价|降價)(?:到|至)[ \t]*$")
_PRICE_CHANGE_AFTER = re.compile(r"[ \t]*(?:涨|漲|降|跌)(?:到|至)")
#: A figure said in thousands or millions with no word after it: 35k, 1.2m, 250K.
_THOUSANDS_SAID = re.compile(r"\d(?:k|K|m|M|mn|bn)$")


def in_date_order(q: Quantity, order: str) -> Quantity:
    """*q* with only the reading of a session's date order, when it is a day written
    with two figures that read both ways (1/4: 4 January or 1 April)."""
    if q.kind != DATE or not order or len(q.readings) != 2:
        return q
    m = _DAY_PAIR.search(q.text)
    if m is None:
        return q
    a, b = _pair(m)
    month, day = (b, a) if order == "dmy" else (a, b)
    kept = tuple(r for r in q.readings if r[1] == month and r[2] == day)
    return replace(q, readings=kept) if len(kept) == 1 else q


#: Names that begin with a digit and count nothing (2FA, 5G): taken before any figure.
_TERMS = re.compile(
    r"(?i)(?<![\w.])(?:"
    + "|".join(
        re.escape(w)
        for w in sorted(lexicon.words("quantities_terms", ("en",)), key=len, reverse=True)
    )
    + r")(?![\w.])"
)


class _Scan:
    def __init__(self, raw: str) -> None:
        self.text = scanned_text(raw)
        self.taken = bytearray(len(self.text))
        for m in _TERMS.finditer(self.text):  # 2FA, 5G: names, no figures
            self.taken[m.start() : m.end()] = b"\x01" * (m.end() - m.start())
        self.out: list[Quantity] = []
        self.yen = _yen_of(self.text)

    # ---- bookkeeping
    def free(self, a: int, b: int) -> bool:
        return not any(self.taken[a:b])

    def take(self, q: Quantity, a: int | None = None, b: int | None = None) -> None:
        a = q.start if a is None else a
        b = q.end if b is None else b
        for i in range(a, b):
            self.taken[i] = 1
        self.out.append(q)

    def span(self, a: int, b: int) -> str:
        return self.text[a:b]

    def literal(self, a: int, b: int) -> None:
        """A figure too long to be a number (see MAX_FIGURE_DIGITS): compared as written."""
        if self.free(a, b):
            text = self.text[a:b]
            self.take(Quantity(LITERAL, text, _written(text), a, b))

    # ---- passes
    def run(self) -> list[Quantity]:
        t = self.text
        if (
            not any(ch.isdigit() or ch in _CJK_ALL for ch in t)
            and not _maybe_words(t)
            and not _NOON.search(t)
            and not _KANA_RE.search(t)
            and not _HALF_PRICE.search(t)
        ):
            return []
        self.dates()
        self.times()
        self.versions()
        self.durations()
        self.cjk()
        self.words()
        self.digits()
        self.ratios()
        self.halves()
        self.out.sort(key=lambda q: (q.start, q.end))
        return self.out

    def halves(self) -> None:
        """Half the price said without a figure (半額, 半价, half price): five tenths of
        it, as 打五折 says -- a discount idiom is a quantity like any."""
        for m in _HALF_PRICE.finditer(self.text):
            if self.free(m.start(), m.end()):
                self.take(
                    Quantity(
                        NUMBER,
                        m.group(0),
                        "5折",
                        m.start(),
                        m.end(),
                        Decimal(5),
                        None,
                        "折",
                        COUNTER,
                    )
                )

    def _date(self, a: int, b: int, readings: list[tuple]) -> None:
        readings = [r for r in readings if _valid_date(*r)]
        if not readings or not self.free(a, b):
            return
        self.take(
            Quantity(
                DATE,
                self.span(a, b),
                _date_canon(readings, self.span(a, b)),
                a,
                b,
                readings=tuple(dict.fromkeys(readings)),
            )
        )

    def dates(self) -> None:
        t = self.text
        for m in _ISO.finditer(t):
            y, mo, d = int(m.group(1)), int(m.group(3)), int(m.group(4))
            if not _valid_date(y, mo, d):
                continue
            date_end = m.start(5) - 1 if m.group(5) else m.end()
            self._date(m.start(), date_end, [(y, mo, d)])
            if m.group(5) and self.free(m.start(5), m.end()):
                h, mi = int(m.group(5)), int(m.group(6))
                s = int(m.group(7)) if m.group(7) else None
                if h <= 24 and mi <= 59:
                    self.take(
                        Quantity(
                            TIME,
                            self.span(m.start(5), m.end()),
                            _time_canon(h, mi, s),
                            m.start(5),
                            m.end(),
                            readings=((h, mi, s),),
                        )
                    )
        for m in _NUMBERED_ISO.finditer(t):
            # "9:2026-11-24,火": a line a viewer numbered (grep -n), not a clock's minutes
            y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
            if _valid_date(y, mo, d) and self.free(m.start(1), m.end()):
                self._date(m.start(1), m.end(), [(y, mo, d)])
        numeric = list(_NUMERIC_DATE.finditer(t))
        order = _date_order(numeric)
        for m in numeric:
            a, b, y = int(m.group(1)), int(m.group(3)), int(m.group(4))
            if m.group(2) == "." and len(m.group(4)) != 4:
                continue
            if len(m.group(4)) == 2:
                y += 2000
            both = [(y, a, b), (y, b, a)]
            self._date(m.start(), m.end(), both if not order else [both[order == "dmy"]])
        for m in _YEAR_MONTH.finditer(t):
            self._date(m.start(), m.end(), [(int(m.group(1)), int(m.group(2)), None)])
        for m in _MONTH_DAY.finditer(t):
            a, b = int(m.group(1)), int(m.group(2))
            # the marks beside it, past a space (等 4/5 那场 is a day as 4/5那场 is)
            beside = (
                t[max(0, m.start() - 2) : m.start()].strip()[-1:]
                + t[m.end() : m.end() + 2].strip()[:1]
            )
            cjk = has_cjk(beside) or any(ch in _CJK_MARKS for ch in beside)
            after_day = (
                _DAY_BEFORE_SPAN.search(t, max(0, m.start() - 12), m.start()) is not None
                or _WEEKDAY_BEFORE.search(t, max(0, m.start() - 14), m.start()) is not None
            )
            padded = m.group(1)[0] == "0" or m.group(2)[0] == "0"  # 07/02: no fraction
            # one end of a span of two (4/6–4/12, 4/6~4/12): days, as fractions never run
            spans = _SLASH_SPAN_AFTER.match(t, m.end()) or _SLASH_SPAN_BEFORE.search(
                t, max(0, m.start() - 8), m.start()
            )
            if not (max(a, b) >= 10 or cjk or after_day or padded or spans):
                continue  # 1/2, 3/4: a fraction as often as a day
            # beside Chinese or Japanese it is month/day, the way both write it
            orders = ((a, b),) if cjk else ((a, b), (b, a))
            readings = [(None, x, y) for x, y in orders if 1 <= x <= 12 and 1 <= y <= 31]
            if readings and self.free(m.start(), m.end()):
                self._date(m.start(), m.end(), readings)
        self._named_dates()
        self._cjk_dates()

    def _named_dates(self) -> None:
        """28 November 2023, Nov 2, 2022, March 2024."""
        t = self.text
        y: int | None
        for m in _MDY.finditer(t):
            mo = _MONTHS[m.group(1)[:3].lower()]
            y = int(m.group(3)) if m.group(3) else None
            self._date(m.start(), m.end(), [(y, mo, int(m.group(2)))])
        for m in _DMY.finditer(t):
            mo = _MONTHS[m.group(2)[:3].lower()]
            y = int(m.group(3)) if m.group(3) else None
            self._date(m.start(), m.end(), [(y, mo, int(m.group(1)))])
        for m in _MY.finditer(t):
            self._date(
                m.start(), m.end(), [(int(m.group(2)), _MONTHS[m.group(1)[:3].lower()], None)]
            )

    def _cjk_dates(self) -> None:
        """2025年3月1日, 二〇二四年, 3月1日."""
        t = self.text
        for m in _CJK_DATE.finditer(t):
            y = _small_int(m.group(1)) if m.group(1) else None
            mo = _small_int(m.group(2))
            d = _small_int(m.group(3)) if m.group(3) else None
            if mo is None or (m.group(1) and y is None) or (m.group(3) and d is None):
                continue
            if y is not None and y < 100:
                y += 2000
            self._date(m.start(), m.end(), [(y, mo, d)])
        for m in _CJK_YEAR.finditer(t):
            y = _small_int(m.group(1))
            if y is not None and y >= 1000:
                self._date(m.start(), m.end(), [(y, None, None)])

    def _spoken_clocks(self) -> None:
        """A clock said in words: half past two, quarter to four, ten past six, two
        o'clock, and the British "at half two" (half past): either half of the day."""
        if "past" not in self.text and "to" not in self.text and "half" not in self.text:
            return
        for m in _SPOKEN_CLOCK.finditer(self.text):
            part, rel, hour, half_hour, whole = (
                m.group("part"),
                m.group("rel"),
                m.group("h1"),
                m.group("h2"),
                m.group("h3"),
            )
            h = _clock_hour(hour or half_hour or whole)
            if h is None or not self.free(m.start(), m.end()):
                continue
            mi = (
                0
                if whole
                else 30
                if half_hour
                else _CLOCK_PARTS.get(part.lower().replace(" ", "-"), -1)
            )
            if mi < 0:
                continue
            if not whole and not half_hour and rel.lower() == "to":
                mi, h = 60 - mi, (h - 1) or 12
            self._clock(m, h, mi, _clock_readings(h, mi, None))

    def _clock(self, m: re.Match[str], h: int, mi: int, readings: tuple) -> None:
        """Take the clock time *m* as the hour *h* and minute *mi*, read as *readings*."""
        self.take(
            Quantity(
                TIME, m.group(0), _time_canon(h, mi, None), m.start(), m.end(), readings=readings
            )
        )

    def times(self) -> None:
        t = self.text
        for m in _CJK_TIME.finditer(t):
            prefix, hs, ms, half, ss, clock = m.groups()
            if m.group(0)[len(prefix or "") + len(hs)] in "点點" and not (
                prefix or ms or half or clock
            ):
                continue  # 3点 alone is three points, not three o'clock
            h = _small_int(hs)
            mi = _small_int(ms) if ms else (30 if half else 0)
            if h is None or mi is None or h > 24 or mi > 59:
                continue
            half_day = ""
            if not prefix:
                # 夜中の2時, 夜の9時, 朝の7時: the part of the day a few characters before
                near = _DAY_PART.search(t, max(0, m.start(2) - 5), m.start(2))
                half_day = near.group(1) and "a" or near.group(2) and "p" if near else ""
            if (
                prefix in ("午後", "下午", "晚上", "夜里", "夜裡", "夕方") or half_day == "p"
            ) and h < 12:
                h += 12
            s = int(ss) if ss else None
            explicit = bool(prefix) or bool(half_day) or h > 12
            readings = ((h, mi, s),) if explicit else _clock_readings(h, mi, s)
            a = m.start(2) if not prefix else m.start()
            if self.free(a, m.end()):
                self.take(
                    Quantity(
                        TIME,
                        self.span(a, m.end()),
                        _time_canon(h, mi, s),
                        a,
                        m.end(),
                        readings=readings,
                    )
                )
        for m in _HM.finditer(t):
            h, mi = int(m.group(1)), int(m.group(2))
            if h > 24 or mi > 59 or not self.free(m.start(), m.end()):
                continue
            s = int(m.group(3)) if m.group(3) else None
            said = m.group(4) or m.group(5)
            ampm = (said or "").lower() or _day_half(t[max(0, m.start() - 4) : m.start()])
            if ampm and h > 12 and ampm == "p" and not said:
                readings = ((h, mi, s),)  # 晚上21:00: the evening's word beside a 24-hour clock
            elif ampm:
                if h > 12:
                    continue
                h = (h % 12) + (12 if ampm == "p" else 0)
                readings = ((h, mi, s),)
            elif m.group(1).startswith("0") or h > 12:
                readings = ((h, mi, s),)
            else:
                readings = _clock_readings(h, mi, s)
            self.take(
                Quantity(
                    TIME, m.group(0), _time_canon(h, mi, s), m.start(), m.end(), readings=readings
                )
            )
        self._dotted_clocks()
        self._noon()
        self._spoken_clocks()
        for m in _AMPM.finditer(t):
            h = int(m.group(1))
            if not 1 <= h <= 12 or not self.free(m.start(), m.end()):
                continue
            h = (h % 12) + (12 if m.group(2).lower() == "p" else 0)
            self.take(
                Quantity(
                    TIME,
                    m.group(0),
                    _time_canon(h, 0, None),
                    m.start(),
                    m.end(),
                    readings=((h, 0, None),),
                )
            )

    def _dotted_clocks(self) -> None:
        """11.30am, 7.15 a.m.: a clock written with a dot and its half of the day."""
        t = self.text
        for m in _HM_DOT.finditer(t):
            h, mi = int(m.group(1)), int(m.group(2))
            if not 1 <= h <= 12 or mi > 59 or not self.free(m.start(), m.end()):
                continue
            h = (h % 12) + (12 if m.group(3).lower() == "p" else 0)
            self._clock(m, h, mi, ((h, mi, None),))

    def _noon(self) -> None:
        """ "noon", 正午 and 中午 alone: 12:00 (a person writes them for twelve o'clock)."""
        for m in _NOON.finditer(self.text):
            if self.free(m.start(), m.end()):
                self.take(
                    Quantity(
                        TIME,
                        m.group(0),
                        _time_canon(12, 0, None),
                        m.start(),
                        m.end(),
                        readings=((12, 0, None),),
                    )
                )

    def versions(self) -> None:
        t = self.text
        for m in _VPREFIX.finditer(t):
            if self.free(m.start(), m.end()):
                parts = tuple(m.group(1).split(".")) + (
                    (m.group(2).lstrip("-+"),) if m.group(2) else ()
                )
                self.take(
                    Quantity(
                        VERSION,
                        m.group(0),
                        "v" + m.group(1) + m.group(2),
                        m.start(),
                        m.end(),
                        parts=parts,
                    )
                )
        for m in _DOTTED.finditer(t):
            if self.free(m.start(), m.end()):
                parts = tuple(m.group(1).split(".")) + (
                    (m.group(2).lstrip("-+"),) if m.group(2) else ()
                )
                self.take(
                    Quantity(
                        VERSION,
                        m.group(0),
                        m.group(1) + m.group(2),
                        m.start(),
                        m.end(),
                        parts=parts,
                    )
                )
        for m in _HEX.finditer(t):
            if self.free(m.start(), m.end()):
                self.take(Quantity(LITERAL, m.group(0), m.group(0).lower(), m.start(), m.end()))
        for m in _DIMS.finditer(t):
            if self.free(m.start(), m.end()):
                canon = "x".join(g for g in m.groups() if g)
                self.take(Quantity(LITERAL, m.group(0), canon, m.start(), m.end()))

    def cjk(self) -> None:
        if self.text.isascii():
            return
        self._cjk_percents()
        self._kana_counts()
        self._cjk_runs()

    def _cjk_percents(self) -> None:
        t = self.text
        for m in _PERCENT_ZH.finditer(t):
            v = _dec(m.group(2)) if m.group(2)[0].isdigit() else _cjk_value(m.group(2))
            if v is None and len(m.group(2)) > MAX_FIGURE_DIGITS:
                self.literal(m.start(), m.end())
            elif v is not None and self.free(m.start(), m.end()):
                unit = "%" if m.group(1) == "百分之" else "‰"
                self.take(
                    Quantity(
                        NUMBER,
                        m.group(0),
                        f"{_show(v)}{unit}",
                        m.start(),
                        m.end(),
                        value=v,
                        unit=unit,
                        uclass=HARD,
                    )
                )
        for m in _FRACTION_ZH.finditer(t):
            den, num = _small_int(m.group(1)), _small_int(m.group(2))
            if den and num is not None and self.free(m.start(), m.end()):
                self.take(Quantity(LITERAL, m.group(0), f"{num}/{den}", m.start(), m.end()))
        for pat in (_WARI, _CHENG):
            for m in pat.finditer(t):
                tens = _small_int(m.group(1))
                ones = _small_int(m.group(2)) if m.group(2) else 0
                if tens is None or ones is None or not self.free(m.start(), m.end()):
                    continue
                v = Decimal(tens * 10 + ones)
                self.take(
                    Quantity(
                        NUMBER,
                        m.group(0),
                        f"{_show(v)}%",
                        m.start(),
                        m.end(),
                        value=v,
                        unit="%",
                        uclass=HARD,
                    )
                )

    def _kana_counts(self) -> None:
        for m in _KANA_RE.finditer(self.text):
            if self.free(m.start(), m.end()):
                v = Decimal(_KANA_COUNT[m.group(0)])
                unit = "人" if m.group(0) == "ふたり" else "つ"
                self.take(
                    Quantity(
                        NUMBER,
                        m.group(0),
                        f"{_show(v)}{unit}",
                        m.start(),
                        m.end(),
                        value=v,
                        unit=unit,
                        uclass=COUNTER,
                    )
                )

    def _cjk_runs(self) -> None:
        t = self.text
        for m in _CJK_RUN.finditer(t):
            a, b = m.start(), m.end()
            if a and (t[a - 1].isdigit() or t[a - 1] == "."):
                continue
            if _CJK_IDIOMS.match(t, a) or not self.free(a, b):
                continue
            if t.endswith(_WEEK_HEADS, 0, a) and len(m.group(0)) == 1:
                continue  # 周六本来: the weekday, not six books
            run = m.group(0)
            if len(run) == 2 and all(c in _CJK_ONES for c in run) and t[b : b + 1] in _TENTHS:
                # 八五折, 七五折: tenths of the price with their hundredths, 8.5折 and 7.5折
                ones, tens = _cjk_value(run[0]), _cjk_value(run[1])
                if ones is not None and tens is not None:
                    self._with_unit(a, b + 1, run, ones + tens / 10, sign="", unit=cjk_unit(t, b))
                    continue
            if 2 <= len(run) <= 3 and all(c in _CJK_ONES for c in run):
                # digits without a place (十, 百) or a zero (二〇二六) are no number of their
                # own: 两三天 is two or three days, a guess; 一对一一节 is one lesson after a
                # word that ends on 一
                last, before = _cjk_value(run[-1]), _cjk_value(run[-2].replace("两", "二"))
                if last is not None and before is not None and last == before + 1:
                    continue
                a += len(run) - 1
                run = run[-1]
            cjk_chars = [c for c in run if c in _CJK_ALL]
            digits_before = run[0].isdigit()
            end = b
            while end < len(t) and t[end] in _APPROX_CJK:
                end += 1
            counter = cjk_unit(t, end)
            if not digits_before and len(cjk_chars) == 1:
                half_follows = counter is not None and t[counter[2] : counter[2] + 1] == "半"
                if (run == "一" and not half_follows) or run in _CJK_BIG or counter is None:
                    continue  # 一 is "a"/"one" in a thousand words; a lone numeral needs a counter
            if t[a - 1 : a] == "第":
                a -= 1
            v = _cjk_value(run)
            if v is None:
                self.literal(m.start(), b)
                continue
            self._with_unit(a, end, run, v, sign="", unit=counter)

    def _with_unit(
        self,
        a: int,
        end: int,
        shown_num: str,
        v: Decimal,
        *,
        sign: str,
        unit: tuple[str, str, int] | None,
    ) -> None:
        t = self.text
        u, uc = "", ""
        if unit is not None:
            u, uc, end = unit
            if u in ("个", "個") and t[end : end + 1] == "半":
                after = cjk_unit(t, end + 1)
                if after is not None and after[1] == HARD:  # 两个半小时: two and a half hours
                    v += Decimal("0.5")
                    u, uc, end = after
            if u in ("CNY", "块", "塊") and t[end - 1] in "块塊":
                nxt = t[end : end + 1]
                tenth = _JIAO.get(nxt)
                if tenth is not None and not _jiao_counted(t, end + 1):
                    v += Decimal(tenth) / 10  # 13块5: thirteen yuan fifty, 13.5元
                    end += 1
                    u, uc = "CNY", HARD
                elif (
                    is_han(nxt)
                    and nxt not in _AFTER_YUAN
                    and t[end + 1 : end + 2] not in _MONEY_NOUN_ENDS
                ):
                    u, uc = "块", COUNTER  # 3块砖: a count of pieces of something
                else:
                    u, uc = "CNY", HARD  # 80块, 加80块。: yuan, as said aloud
            if t[end : end + 1] == "半" and uc in (HARD, COUNTER) and u not in ("%", "x", "°"):
                v += Decimal("0.5")
                end += 1
        if u == "¥":
            u = self.yen
        self._take_number(a, end, sign + _show(v), -v if sign == "-" else v, (u, uc) if u else None)

    def words(self) -> None:
        t = self.text
        if not _maybe_words(t):
            return
        for m in _MULTIPLIER_RE.finditer(t):
            if not self.free(m.start(), m.end()):
                continue
            if m.group(1):
                v = Decimal(_MULTIPLIER_WORDS[m.group(1).lower()])
            else:
                g = m.group(2).lower()
                if not _figure_fits(g):
                    continue  # the figure is read (as written) by the digits pass
                v = Decimal(g) if g.isdigit() else Decimal(_ONES[g])
            self.take(
                Quantity(
                    NUMBER,
                    m.group(0),
                    f"{_show(v)}x",
                    m.start(),
                    m.end(),
                    value=v,
                    unit="x",
                    uclass=HARD,
                )
            )
        for m in _WORD_RUN.finditer(t):
            a, b = m.start(), m.end()
            if not self.free(a, b):
                continue
            words = [w.lower() for w in _LETTERS.findall(m.group(0))]
            if (
                len(words) > 1
                and words[0] in ("a", "an")
                and words[1] not in _SCALES
                and words[1] not in ("dozen", "half", "quarter")
            ):
                # "a three-week trial", "a two week delay": the article is no figure of its own
                words = words[1:]
                a = m.start() + m.group(0).lower().index(words[0], len(m.group(0).split()[0]))
            value = _words_value(words)
            if value is None:
                continue
            unit, end = self._unit_after(b, currency=False)
            if words == ["one"] and not (unit and unit[1] == HARD):
                continue  # "one" is a pronoun far more often than a count
            if t[b : b + 1] == "-" and _TERM_AFTER.match(t, b + 1):
                continue  # "two-proportion z-test", "two-factor": a term's name, not a count
            if (
                words == ["one"]
                and unit
                and unit[0] in ("day", "week", "month", "year", "s")
                and not _ONE_DAY_LEAD.search(t[max(0, a - 12) : a])
            ):
                continue  # "one day" is someday; "in one day" is a day
            if all(w in _SCALES or w in ("dozen", "half", "and") for w in words):
                continue  # "billion" alone, "hundreds": a scale with no figure (2 billion is read as a figure)
            self._take_number(a, end, _show(value), value, unit)

    def digits(self) -> None:
        t = self.text
        for m in _DIGITS.finditer(t):
            a = m.start()
            if not self.free(a, m.end()):
                continue
            num = m.group("num")
            v = self._figure(m)
            if v is None:
                continue
            sign = m.group("sign") or ""
            shown = sign + _written(num)
            currency, a = self._currency_before(a)
            b = m.end()
            unit: tuple[str, str] | None = None
            suffix = _suffix_at(t, b)
            if (
                suffix
                and suffix.end() < len(t)
                and (t[suffix.end()].isdigit() or t[suffix.end()] == "_")
            ):
                continue  # 1a2b, 3d_model: an identifier, not a figure
            if suffix:
                b = suffix.end()
                s = suffix.group(0)
                times = self._magnitude(s, currency, b)
                if s in _ORDINAL:
                    pass
                elif times is not None:
                    v *= times
                    shown += s
                else:
                    unit = _suffix_unit(s, self.yen)
            elif b < len(t) and not t[b].isascii() and not t[b].isspace():
                cu = cjk_unit(t, b)
                if cu is not None and not currency:
                    self._with_unit(a, b, num, v, sign=sign, unit=cu)
                    continue
            if unit is None:
                mw = _MAGNITUDE_WORD.match(t, b)
                if mw:
                    v *= MAGNITUDES[mw.group(1).lower()]
                    shown += " " + mw.group(1).lower()
                    b = mw.end()
                unit, b = self._free_unit_after(b, currency=bool(currency))
                # alarm_max_c: 8 -- the key names the unit the value is in
                unit = unit if unit and unit[1] != SOFT else (_unit_of_key(t, a) or unit)
            if currency:
                unit = (currency, HARD)
            if self._range(a, b, sign, num, v, unit):
                continue
            if sign == "-":
                v = -v
            self._take_number(a, b, shown, v, unit)

    def _magnitude(self, s: str, currency: str, b: int) -> Decimal | None:
        """What the letters *s* right after a figure multiply it by (12k, 1.5M, 2bn), or
        None when they are its unit: M after a bare figure is a metre's unless a count
        follows, and m after a currency is a million (₦1.2m, $3m: money is never measured)."""
        if s in ("k", "bn", "mn", "tn"):
            return MAGNITUDES[s]
        if s in ("K", "M", "B", "T") and (currency or self._count_follows(b)):
            return MAGNITUDES[s]
        if s == "m" and currency:
            return MAGNITUDES["M"]
        return None

    def _figure(self, m: re.Match[str]) -> Decimal | None:
        """The value of the figure ``m`` of ``_DIGITS`` read; one too long to be a number is
        taken as a literal instead."""
        v = _dec(m["num"])
        if v is None and not _figure_fits(m["num"]):
            self.literal(m.start("num"), m.end())
        return v

    def _currency_before(self, a: int) -> tuple[str, int]:
        """A currency written just before the figure at *a* ("$", "USD ", "¥"): the currency
        and where the quantity starts; ``("", a)`` when there is none."""
        cur = _CURRENCY_PREFIX.search(self.text, max(0, a - 5), a)
        if not cur or not self.free(cur.start(), a):
            return "", a
        sign = cur.group(1).strip().rstrip(".")  # "Rs." as Rs
        if sign == "R":  # the rand, before a figure grouped or with cents (R 1,250.00)
            shaped = _RAND_AMOUNT.match(self.text, a)
            currency = "ZAR" if shaped else ""
        else:
            currency = hard_unit(sign) or ""
        if currency == "¥":
            currency = self.yen
        return currency, (cur.start() if currency else a)

    def _range(
        self, a: int, b: int, sign: str, num: str, lo: Decimal, unit: tuple[str, str] | None
    ) -> bool:
        """A range that starts with the figure just read: 10–20 GB, 3-5, 10 to 20."""
        t = self.text
        if a and t[a - 1] in "/／" and t[a - 2 : a - 1].isdigit():
            return False  # Coartem 80/480 – 3,900 naira: a strength's second figure
        rj = _RANGE_JOIN.match(t, b)
        if not rj and _BETWEEN_BEFORE.search(t, max(0, a - 12), a):
            rj = _BETWEEN_AND.match(t, b)
        if not rj:
            return False
        m2 = _DIGITS.match(t, rj.end())
        if not m2 or not self.free(rj.end(), m2.end()):
            return False
        hi = _dec(m2.group("num"))
        if hi is None:
            return False
        if (m2.group("sign") or "") == "-":
            hi = -hi
        b2 = m2.end()
        unit2: tuple[str, str] | None = None
        suffix2 = _SUFFIX.match(t, b2)
        if suffix2:
            hu = hard_unit(suffix2.group(0))
            if hu is None:
                return False
            unit2, b2 = (hu, HARD), suffix2.end()
        else:
            unit2, b2 = self._unit_after(b2, currency=False)
        if unit is not None and unit2 is not None and unit != unit2:
            return False
        if "から" in rj.group(0) and _CHANGED_TO.match(t, b2):
            return False  # 2 から 3 に変える: it was 2, it is 3; a span runs まで
        u = unit or unit2
        if sign == "-":
            lo = -lo
        show_unit = u[0] if u and u[1] != SOFT else ""
        canon = f"{sign}{_written(num)}-{_written(m2.group('num'))}{show_unit}"
        if not self.free(a, b2):
            return False
        self.take(
            Quantity(
                RANGE,
                t[a:b2],
                canon,
                a,
                b2,
                value=lo,
                high=hi,
                unit=u[0] if u else "",
                uclass=u[1] if u else "",
            )
        )
        return True

    def _take_number(
        self, a: int, b: int, shown: str, v: Decimal, unit: tuple[str, str] | None
    ) -> None:
        if not self.free(a, b):
            return
        u, uc = unit if unit else ("", "")
        if uc == HARD and u in _CURRENCIES:
            canon = f"{u} {shown}"
        elif uc in (HARD, COUNTER):
            canon = f"{shown}{u}"
        else:
            canon = shown
        self.take(Quantity(NUMBER, self.text[a:b], canon, a, b, value=v, unit=u, uclass=uc))

    def _count_follows(self, pos: int) -> bool:
        """Whether what follows is counted: "2M rows", "7B params" are counts of things,
        "3.2T used", "2M" alone are sizes."""
        m = _NEXT_WORD.match(self.text, pos)
        if not m:
            return False
        w = m.group(1).lower()
        if w in _COUNT_NOUNS:
            return True
        return (
            len(w) > 3
            and w.endswith("s")
            and not w.endswith(("ss", "us", "is"))
            and w not in FUNCTION_WORDS
            and hard_unit(w) is None
        )

    def _free_unit_after(self, pos: int, *, currency: bool) -> tuple[tuple[str, str] | None, int]:
        """:meth:`_unit_after`, unless the words it takes are already read as a date or a
        time ("97845312 Nov 20" in a listing: the size, then the date)."""
        unit, end = self._unit_after(pos, currency=currency)
        if unit is not None and not self.free(pos, end):
            return None, pos
        if currency and unit is not None and unit[1] == SOFT:
            return None, pos  # "S$4.50 leaves a margin": money counts no word after it
        return unit, end

    def _unit_after(self, pos: int, *, currency: bool) -> tuple[tuple[str, str] | None, int]:
        """The unit written after a figure that ends at *pos*: a symbol, a unit (up to three
        words, "degrees Celsius", "tokens per second"), or else the first plain word as a
        soft unit -- unless a hard unit follows within the next two words ("3 long hours")."""
        t = self.text
        if pos < len(t) and not t[pos].isascii() and not t[pos].isspace():
            cu = cjk_unit(t, pos) or katakana_counter(t, pos)
            if cu is not None:
                return (cu[0] if cu[0] != "¥" else self.yen, cu[1]), cu[2]
            return None, pos
        tokens = self._words_after(pos)
        if not tokens:
            return None, pos
        found = self._unit_phrase(tokens)
        if found is not None:
            return found
        return _soft_unit(tokens, pos)

    def _words_after(self, pos: int) -> list[tuple[str, int, int]]:
        """Up to four words after *pos*, each with where it starts and ends."""
        t = self.text
        tokens: list[tuple[str, int, int]] = []
        p = pos
        for _ in range(4):
            m = _SPACED_TOKEN.match(t, p)
            if not m:
                break
            word = m.group(1).rstrip(".,;:'")
            head, slash, tail = word.partition("/")
            if slash and head and tail[:1].isdigit():
                word = head  # 4,812 sessions/386 件: a list parted by slashes, no rate
            unit = hard_unit(head) if slash and head else None
            if unit is not None and (unit in _CURRENCIES or (tail and hard_unit(tail) is None)):
                # 16.80 USD/box, 2.1 kg/box: the unit, then what it is per (km/h and MB/s
                # stay one unit of two)
                word = head
            if not word:
                break
            tokens.append((word, m.start(1), m.start(1) + len(word)))
            p = m.start(1) + len(word)
            if t[p : p + 1] not in (" ", "\t", "-"):
                break
        return tokens

    def _unit_phrase(
        self, tokens: list[tuple[str, int, int]]
    ) -> tuple[tuple[str, str], int] | None:
        """A hard unit of up to three words at the start of *tokens*, longest first, with a
        rate ("tokens per second") folded in."""
        t = self.text
        for n in (3, 2, 1):
            if len(tokens) >= n:
                phrase = " ".join(w for w, _, _ in tokens[:n])
                hu = hard_unit(phrase) if n > 1 else None
                if n == 1:
                    w = tokens[0][0]
                    if w.lower() in FUNCTION_WORDS and w not in ("°", "%"):
                        hu = None
                    else:
                        # 0.5 ml/kg: a rate of two units is one hard unit, never a word
                        hu = hard_unit(w) or _rate_unit(w)
                if hu is not None:
                    end = tokens[n - 1][2]
                    per = _PER_TIME.match(t, end)
                    if per and hu in ("tok", "B", "KB", "MB", "GB", "TB", "bit", "Mbit", "Gbit"):
                        return (f"{hu}/s", HARD), per.end()
                    return (hu, HARD), end
        return None

    def durations(self) -> None:
        """1h30m is ninety minutes, written as one token; read it as seconds."""
        for m in _DURATION.finditer(self.text):
            parts = _DURATION_PART.findall(m.group(1))
            if len(parts) < 2 or not self.free(m.start(), m.end()):
                continue
            if not all(_figure_fits(n) for n, _ in parts):
                continue  # its figures are read (as written) by the digits pass
            total = sum((Decimal(n) * _DURATION_SECONDS[u] for n, u in parts), Decimal(0))
            self.take(
                Quantity(
                    NUMBER,
                    m.group(0),
                    m.group(0),
                    m.start(),
                    m.end(),
                    value=total,
                    unit="s",
                    uclass=HARD,
                )
            )

    def ratios(self) -> None:
        for m in _RATIO.finditer(self.text):
            if self.free(m.start(), m.end()):
                self.take(Quantity(LITERAL, m.group(0), m.group(0), m.start(), m.end()))


_ADJECTIVES = lexicon.words("quantities_adjectives")


def _describes(word: str) -> bool:
    """A word after a figure that describes rather than names what is counted."""
    return word in _ADJECTIVES or (len(word) >= 4 and word.endswith(("ed", "ing", "ly")))


def _maybe_words(text: str) -> bool:
    low = text.lower()
    return any(
        w in low
        for w in (
            "one",
            "two",
            "thr",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "twel",
            "twen",
            "fort",
            "fift",
            "hundred",
            "thousand",
            "million",
            "billion",
            "dozen",
            "twice",
            "thrice",
            "fold",
            "doubled",
            "tripled",
            "halved",
            "zero",
            "eleven",
        )
    )


def _stem(word: str) -> str:
    w = word.lower().strip("-'")
    for suffix in ("'s", "ies", "es", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return w


def _small_int(text: str | None) -> int | None:
    if not text or len(text) > MAX_FIGURE_DIGITS:
        return None
    if text.isdigit():
        return int(text)
    v = _cjk_value(text)
    return int(v) if v is not None and v == v.to_integral_value() else None


def _valid_date(y: int | None, m: int | None, d: int | None) -> bool:
    if m is not None and not 1 <= m <= 12:
        return False
    if d is not None and not 1 <= d <= 31:
        return False
    if y is not None and not 1000 <= y <= 2999:
        return False
    return m is not None or y is not None


def _date_canon(readings: list[tuple], written: str) -> str:
    if len(set(readings)) > 1:
        return written
    y, m, d = readings[0]
    if y is not None and m is not None and d is not None:
        return f"{y:04d}-{m:02d}-{d:02d}"
    if y is not None and m is not None:
        return f"{y:04d}-{m:02d}"
    return " ".join(written.split())


def _clock_hour(word: str) -> int | None:
    """The hour a spoken clock names (two, 10)."""
    w = word.lower()
    h = int(w) if w.isdigit() else _ONES.get(w)
    return h if h is not None and 1 <= h <= 12 else None


def _clock_readings(h: int, m: int, s: int | None) -> tuple:
    """A 12-hour clock time without am/pm: both halves of the day -- but twelve is noon
    (12:00 is read as noon on either clock; midnight is written 0:00 or 12 am)."""
    if h == 0 or h >= 12:
        return ((h, m, s),)
    return ((h, m, s), (h + 12, m, s))


def _time_canon(h: int, m: int, s: int | None) -> str:
    return f"{h:02d}:{m:02d}" + (f":{s:02d}" if s is not None else "")


#: A full-width comma after an ASCII digit: a clause's comma (团数4，125人 is 4 groups and
#: 125 people); full-width digits may group with it (１２，０００円).
_CLAUSE_COMMA = re.compile(r"(?<=[0-9])\uff0c")
#: Two dots between two dates or figures: a span (2026-12-01..2026-12-24), read as a dash.
_DOT_SPAN = re.compile(r"(?<=[0-9])\.\.(?=[0-9])")


@functools.lru_cache(maxsize=512)
def scanned_text(raw: str) -> str:
    """The form of *raw* that :func:`scan` reads, whose offsets its quantities give."""
    if "\uff0c" in raw:
        raw = _CLAUSE_COMMA.sub("\u3001", raw)
    if ".." in raw:
        raw = _DOT_SPAN.sub("~~", raw)
    text = _accountant_negatives(
        _continental(_blank_list_markers(fold_numbers(_CIRCLED_MARKER.sub(r"\1 ", raw))))
    )
    return _CJK_DECIMAL.sub(_decimal_digits, text) if "点" in text else text


#: A decimal written in Chinese numerals: 一点六GB, 两点五MB, 十二点五 (not a clock: 三点五十,
#: 三点零五分).
_CJK_DECIMAL = re.compile(
    r"(?<![〇零一二三四五六七八九十两])"
    r"([一二三四五六七八九两]|十[一二三四五六七八九]?|[一二三四五六七八九]十[一二三四五六七八九]?)"
    r"点([〇零一二三四五六七八九]{1,3})(?![〇零一二三四五六七八九十分刻钟鐘])"
)


def _decimal_digits(m: re.Match[str]) -> str:
    """一点六 as 1.6 -- written in as many characters, so every offset stays where it was
    (a decimal whose digits would take more room is left as it is)."""
    whole = _cjk_value(m.group(1).replace("两", "二"))
    frac = "".join(str(_CJK_DIGITS.get(c, 0)) for c in m.group(2))
    out = f"{whole}.{frac}"
    return out if len(out) == len(m.group(0)) else m.group(0)


@functools.lru_cache(maxsize=32768)
def _scan_cached(text: str) -> tuple[Quantity, ...]:
    scanner = _Scan(text)
    found = _span_years(
        scanner.text, _month_days(scanner.text, _calendar(scanner.text, scanner.run()))
    )
    found = [_days(scanner.text, q) for q in found]
    if "at " in scanner.text or "clock" in scanner.text or " in the " in scanner.text:
        timed: list[Quantity] = []
        for q in found:
            timed.append(_at_hour(scanner.text, q, timed[-1] if timed else None))
        found = timed
    if "m" in scanner.text or "M" in scanner.text:
        found = _shared_meridiem(scanner.text, found)
    found = _change_shares_per(
        scanner.text, _rates(scanner.text, _shared_counter(scanner.text, found))
    )
    if _TAX_WORD.search(scanner.text) or _WEIGHT_BASIS.search(scanner.text):
        found = [_with_basis(scanner.text, q) for q in found]
    if "%" in scanner.text:
        found = [_with_off(scanner.text, q) for q in found]
    return tuple(_year_month(q) for q in found)


#: Another month/day right after or before one, across a dash or a tilde: a span of days.
_SLASH_SPAN_AFTER = re.compile(r"[ \t]?[–—~〜][ \t]?\d{1,2}/\d{1,2}(?![\d/])")
_SLASH_SPAN_BEFORE = re.compile(r"(?<![\d/])\d{1,2}/\d{1,2}[ \t]?[–—~〜][ \t]?$")
#: A year and its month with a hyphen (2026-11): no range runs from 2026 down to 11.
_YEAR_AND_MONTH = re.compile(r"(19|20)\d\d-(0?[1-9]|1[0-2])(?!\d)")


def _year_month(q: Quantity) -> Quantity:
    """*q*, a range that is a year and its month (2026-11), as that month."""
    m = _YEAR_AND_MONTH.match(q.text.strip()) if q.kind == RANGE else None
    if m is None or (q.unit and q.uclass != SOFT):
        return q  # "2026-12 stands": a word after it is no unit of a month
    year, month = int(m.group(0)[:4]), int(m.group(2))
    return replace(
        q, kind=DATE, value=None, high=None, unit="", uclass="", readings=((year, month, None),)
    )


#: A word of the tax in an amount, beside it: 24万円(税別), 税込 1,980円, ¥500 incl. VAT.
_TAX_WORD = re.compile(
    r"(?P<incl>税込み?|内税|含税|(?i:incl(?:uding|\.)?[ \t]+(?:VAT|GST|tax)|tax[ \t]+included))"
    r"|(?P<excl>税抜き?|税別|外税|不含税|未税|(?i:excl(?:uding|\.)?[ \t]+(?:VAT|GST|tax)"
    r"|ex\.?[ \t]+(?:VAT|GST)|plus[ \t]+(?:VAT|GST)|\+[ \t]?(?:VAT|GST)|before[ \t]+tax))"
)
#: What may stand between an amount and its tax word: a space, a bracket, a comma.
_TAX_AFTER = re.compile(r"[ \t]{0,2}[(（\[【]?[ \t]{0,2}")
_TAX_BEFORE = re.compile(r"(?:価格|価|价格|价|金額|金额)?[ \t:：]{0,2}$")


def _with_basis(text: str, q: Quantity) -> Quantity:
    """*q* with the tax its text writes right beside it (an amount of money only), or the
    weight it is of."""
    if q.kind != NUMBER or q.unit not in _CURRENCIES:
        return _with_weight_basis(text, q)
    head = text[max(0, q.start - 12) : q.start]
    lead = _TAX_BEFORE.search(head)
    cut = head[: lead.start()] if lead else head
    found = next((m for m in _TAX_WORD.finditer(cut) if m.end() == len(cut)), None)
    if found is None:
        gap = _TAX_AFTER.match(text, q.end)
        found = _TAX_WORD.match(text, gap.end() if gap else q.end)
        # 税抜2,500円（税込2,750円）: a tax word that opens the next amount is that one's
        if found is not None and _AMOUNT_NEXT.match(text, found.end()):
            found = None
    if found is None:
        return _with_weight_basis(text, q)
    return replace(q, basis="incl" if found.group("incl") else "excl")


#: What weight a price or a mass is of, right after it: the carcass (cwt, carcass weight,
#: dressed weight) or the live animal (lw, liveweight).
_WEIGHT_BASIS = re.compile(
    r"(?P<carcass>(?i:cwt|carcass(?:[ \t]+weight)?|dressed(?:[ \t]+weight)?)|CW|DW)\b"
    r"|(?P<live>(?i:lw|live[ \t-]?weight)|LW)\b"
)
#: Which bases say the same kind of thing: two of one family are two amounts.
_BASIS_FAMILY = {
    "incl": "tax",
    "excl": "tax",
    "carcass": "weight",
    "live": "weight",
    "off": "discount",
    "paid": "discount",
}
#: A share said as what comes off a price: 优惠10%, 便宜10%, 減10%, 10% off, 10%オフ, 10%引き.
_OFF_BEFORE = re.compile(r"(?:优惠|優惠|便宜|减|減|降价|降價|折扣|割引|値引き?)[ \t]{0,2}$")
_OFF_AFTER = re.compile(r"[ \t]{0,2}(?:(?i:off\b|discount)|オフ|引き|引|の割引|折扣)")


def _discount_shares(q: Quantity) -> list[Quantity]:
    """What a discount idiom says as percentages: 打九折 pays 90% of the price (``paid``)
    and takes 10% off it (``off``); never 90% off."""
    if q.kind != NUMBER or q.unit != "折" or q.value is None or not 0 < q.value < 10:
        return []
    paid = q.value * 10
    return [
        replace(q, canon=f"{paid}%", value=paid, unit="%", uclass=HARD, basis="paid"),
        replace(q, canon=f"{100 - paid}%", value=100 - paid, unit="%", uclass=HARD, basis="off"),
    ]


def _with_off(text: str, q: Quantity) -> Quantity:
    """*q*, a percentage, marked ``off`` where its words say it comes off a price: what a
    discount idiom (打九折: nine tenths paid) vouches as 10% off, never as 90% off."""
    if q.kind != NUMBER or q.unit != "%":
        return q
    if _OFF_BEFORE.search(text, max(0, q.start - 8), q.start) or _OFF_AFTER.match(text, q.end):
        return replace(q, basis="off")
    return q


def _with_weight_basis(text: str, q: Quantity) -> Quantity:
    """*q* (money or a mass) with the weight its text writes right after it ($8.10/kg cwt,
    320 kg lw): a carcass's price is not a live animal's."""
    if q.kind != NUMBER or not (q.unit in _CURRENCIES or q.unit in ("kg", "lb", "t")):
        return q
    per = _SLASH_PER.match(text, q.end)  # $8.10/kg cwt: past what it is per
    at = per.end() if per else q.end
    gap = _TAX_AFTER.match(text, at)
    found = _WEIGHT_BASIS.match(text, gap.end() if gap else at)
    if found is None:
        return q
    return replace(q, basis="carcass" if found.group("carcass") else "live")


_SLASH_PER = re.compile(r"[ \t]?/[ \t]?[A-Za-z]{1,6}\b")


#: What opens an amount right after a tax word: its figure or its currency sign.
_AMOUNT_NEXT = re.compile(r"[ \t:：]{0,2}[0-9０-９¥￥$€£]")


#: "at eight", "at 7", "eight o'clock": an hour of the clock written as a bare number.
_AT_BEFORE = re.compile(r"(?i)\bat[ \t]+$")
#: A level set at a figure ("capped at 3", "priced at 12"): no clock.
_AT_LEVEL = re.compile(
    r"(?i)\b(?:capped|limited|set|fixed|held|kept|stays?|remains?|stands?|priced|pegged|"
    r"maxed|topped|peaked|rated|valued|sits?|level|retries|attempts)[ \t]+at[ \t]+$"
)
_OCLOCK_AFTER = re.compile(r"(?i)[ \t]*o['’]?clock\b")
_HOUR_ENDS = re.compile(
    r"(?i)[ \t]*(?:$|[.,;!?)]|every\b|each\b|sharp\b|on\b|in[ \t]+the\b|tonight\b|today\b|tomorrow\b|and\b"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b)"  # "at 5 Thursday": the hour, then its day
)
_EVENING = re.compile(r"(?i)\b(?:evening|night|tonight|pm|p\.m\.)\b")
#: What parts two clock times of one list: "at 8 in the morning and 8 in the evening".
_TIME_LISTED = re.compile(r"(?i)[ \t]*(?:,|and|or|then|&)[ \t]*(?:again[ \t]+)?(?:at[ \t]+)?")
#: The half of the day said right after an hour: "8 in the morning", "9 at night",
#: "7 this evening". It decides that hour, whatever else its sentence names.
_HALF_AFTER = re.compile(
    r"(?i)[ \t]+(?:in[ \t]+the[ \t]+(?P<a>morning)|(?:in[ \t]+the|this)[ \t]+"
    r"(?P<p>afternoon|evening)|(?:at|to)[ \t]+(?P<n>night)|this[ \t]+(?P<m>morning)|(?P<t>tonight))\b"
)


def _at_hour(text: str, q: Quantity, before: Quantity | None = None) -> Quantity:
    """A bare number 1 to 12 after "at" and before the end of its clause ("checked every
    morning at eight", "meet at 7 on Friday"), or before "o'clock", is a clock time: the
    hour, in the evening when the sentence says so. One that names its half of the day
    right after it and follows such a time ("at 8 in the morning and 8 in the evening") is
    one too; alone ("3 in the morning and 4 in the evening") it may be a count."""
    soft_word = q.uclass == SOFT and q.unit.lower() in _HOUR_WORDS  # "o'clock", "tonight"
    if q.kind != NUMBER or (q.unit and not soft_word) or q.value is None:
        return q
    if q.value != q.value.to_integral() or not 1 <= int(q.value) <= 12:
        return q
    hour = int(q.value)
    oclock = _OCLOCK_AFTER.match(text, q.end) or (soft_word and "clock" in q.unit.lower())
    at = _AT_BEFORE.search(text, max(0, q.start - 6), q.start) and not _AT_LEVEL.search(
        text, max(0, q.start - 24), q.start
    )
    half = _HALF_AFTER.match(text, q.end)
    listed = (
        before is not None
        and before.kind == TIME
        and _TIME_LISTED.fullmatch(text, before.end, q.start) is not None
    )
    dated = (
        before is not None
        and before.kind in (DATE, WEEKDAY)
        and _AFTER_DATE.fullmatch(text, before.end, q.start) is not None
    )
    if half and not (at or listed or dated):
        half = None  # "Saturday 12/5, 11 in the morning": the day, then its hour
    if not oclock and not half and not (at and (soft_word or _HOUR_ENDS.match(text, q.end))):
        return q
    around = text[max(0, q.start - 40) : q.end + 40]
    if half:
        if not (half.group("a") or half.group("m")) and hour < 12:
            hour += 12  # "8 in the evening", "10 at night"; "12 at night" stays as written
    elif _EVENING.search(around) and hour < 12:
        hour += 12
    end = oclock.end() if isinstance(oclock, re.Match) else half.end() if half else q.end
    return replace(
        q,
        kind=TIME,
        text=text[q.start : end],
        canon=f"{hour:02d}:00",
        end=end,
        unit="",
        uclass="",
        readings=((hour, 0, None),),
        parts=_BARE_HOUR if not oclock else (),
    )


#: What parts a date or a weekday from the hour said after it: "12/5, 11 in the morning".
_AFTER_DATE = re.compile(r"[ \t]{0,3},?[ \t]{0,3}(?:at[ \t]{1,3})?")
#: The mark of a clock time read from a bare figure after "at" (no o'clock, no colon).
_BARE_HOUR = ("at",)


_HOUR_WORDS = frozenset({"o'clock", "o’clock", "oclock", "tonight", "tomorrow", "today"})

#: What joins the two ends of a span of clock times: "7-9 pm", "7 to 9pm", "11–1 pm".
_CLOCK_SPAN_JOIN = re.compile(r"[ \t]*(?:-|–|—|~|〜|～|(?i:to|till|until|through|thru))[ \t]*")
_MERIDIEM_END = re.compile(r"(?i)(?<![a-z])([ap])\.?m\.?(?![a-z])")


def _shared_meridiem(text: str, found: list[Quantity]) -> list[Quantity]:
    """A bare hour 1 to 12 that opens a span whose other end carries am or pm ("7-9 pm",
    "from 7 to 9pm") is a clock time in the same half of the day -- or in the other when
    it is the larger hour ("11-1 pm" runs from 11 in the morning): both readings."""
    out = list(found)
    for i in range(len(out) - 1):
        q, nxt = out[i], out[i + 1]
        if nxt.kind != TIME or not q.text.isdigit() or not 1 <= int(q.text) <= 12:
            continue
        if q.kind == NUMBER and q.unit or q.kind not in (NUMBER, DATE):
            continue  # a bare figure, or one a list of days took ("Apr 2, 7-9 pm")
        join = _CLOCK_SPAN_JOIN.match(text, q.end)
        if join is None or join.end() != nxt.start:
            continue
        mark = _MERIDIEM_END.search(text, nxt.start, nxt.end + 4)
        if mark is None or not nxt.readings:
            continue
        hour = int(q.text) % 12
        pm = mark.group(1).lower() == "p"
        same = hour + 12 if pm else hour
        other = hour if pm else hour + 12
        readings = (
            ((same, 0, None),)
            if hour <= nxt.readings[0][0] % 12 or hour == 0
            else (
                (same, 0, None),
                (other, 0, None),
            )
        )
        out[i] = replace(
            q, kind=TIME, canon=f"{same:02d}:00", value=None, unit="", uclass="", readings=readings
        )
    return out


#: What makes a count of 日 a number of days: 30日で (in 30 days), 30日以内, 3日ほど,
#: 7日ごと, 10日前, 14日かけて; Chinese 30日内, 7日之内.
_DAYS_AFTER = re.compile(
    r"(?:で(?![締〆]|付|は)|以内|以上|未満|ほど|程度|くらい|ぐらい|かけ|経|ごと|毎|おき|前|連続|分の"
    r"|内(?![容部外])|之内)"
)


#: What joins the days of one month in a list or a span: 16、17日, 14日至20日, 3日と5日.
_DAY_JOIN = re.compile(r"[ \t]*(?:、|,|，|至|到|~|〜|～|-|–|和|及|与|與|から|と|或)[ \t]*")


def _month_days(text: str, found: list[Quantity]) -> list[Quantity]:
    """Days written after a date of the same month as bare numbers or with 日/号: 6月14日至
    20日 (the 20th of June), 6月16、17日, 6月16、17、18三场: each a date of that month."""
    out = list(found)
    for i, q in enumerate(out):
        if q.kind != DATE or not q.readings or len(q.readings[0]) < 3:
            continue
        year, month = q.readings[0][0], q.readings[0][1]
        if month is None:
            continue
        prev = q
        for j in range(i + 1, len(out)):
            n = out[j]
            gap = text[prev.end : n.start]
            if prev.readings and prev.readings[0][2] is None:
                joined = gap == "" and prev.text.endswith("月")  # 6月16、…; 10月から5 is no day
            else:
                joined = _DAY_JOIN.fullmatch(gap) is not None
            if (
                n.kind != NUMBER
                or n.value is None
                or n.unit not in ("", "日", "号", "號")
                or not joined
                or n.value != n.value.to_integral_value()
                or not 1 <= n.value <= 31
                or (n.unit == "" and _NOT_A_DAY_AFTER.match(text, n.end))
                or (n.unit == "" and _HALF_AFTER.match(text, n.end))  # "12/5, 11 in the morning"
            ):
                break
            readings = ((year, month, int(n.value)),)
            out[j] = Quantity(
                DATE, n.text, _date_canon(list(readings), n.text), n.start, n.end, readings=readings
            )
            prev = n
    return out


#: What joins the two ends of a span of days: 至, 到, から, 〜, a dash, "to", "until".
_DAYS_JOINED = re.compile(r"[ \t]*(?:至|到|から|~|〜|～|-|–|—|to|until|till|through)[ \t]*", re.I)


def _span_years(text: str, found: list[Quantity]) -> list[Quantity]:
    """The end of a span of days that names its month but not its year takes the year of
    the start (2026年12月14日至12月25日: the 25th of December 2026; 12月28日〜1月4日 runs into
    the next year)."""
    out = list(found)
    for i in range(len(out) - 1):
        a, b = out[i], out[i + 1]
        if a.kind != DATE or b.kind != DATE or len(a.readings) != 1 or len(b.readings) != 1:
            continue
        (ya, ma, da), (yb, mb, db) = a.readings[0], b.readings[0]
        if ya is None or ma is None or da is None or yb is not None or mb is None or db is None:
            continue
        if not _DAYS_JOINED.fullmatch(text, a.end, b.start):
            continue
        year = ya if (mb, db) >= (ma, da) else ya + 1
        readings = ((year, mb, db),)
        out[i + 1] = replace(b, readings=readings, canon=_date_canon(list(readings), b.text))
    return out


#: What makes a bare number after a month no day of it: more figures or a unit (16.5,
#: 16%), or a word it counts or names (5東, 3人); a numeral may follow (18三场).
_NOT_A_DAY_AFTER = re.compile(r"[.\d%:]|(?![一二三四五六七八九十两])[\u4e00-\u9fff\u3040-\u30ff]")


def _days(text: str, q: Quantity) -> Quantity:
    """A count of 日 that no month has (90日, 45日), or that says how long (30日で,
    30日以内, 3日ほど), is days, not a day of the month: it is the duration 90日間 and
    90天."""
    if (
        q.kind == NUMBER
        and q.unit == "日"
        and q.value is not None
        and (q.value > 31 or _DAYS_AFTER.match(text, q.end))
    ):
        return replace(q, unit="day", canon=f"{_show(q.value)}day")
    return q


#: What joins the two ends of a change: 从每月600元涨到800元, "from £40 to £45 a month",
#: 600元 → 800元, 月3万から3万5千円に.
_CHANGE_TO = re.compile(
    r"[ \t]*+(?:涨到|降到|升到|减到|增加到|减少到|提高到|降低到|调到|改到|改成|变成|到|至|→|->|⇒"
    r"|(?i:to)|から"
    # the old amount said after the new one: 每斤要68蚊，之前系59蚊; 900円、以前は800円
    r"|[，,、][ \t]*+(?:之前|以前|原来|原來|原本|本来|本來)(?:系|是|係|為|为|は)?"
    # the old amount in brackets after the new one: "KSh 400 per vehicle (previously KSh
    # 300)", 800元/月（原来600元）
    r"|(?:(?i:per|a|an|each)[ \t]++[A-Za-z]{1,12}+[ \t]*+|[/／][A-Za-z\u4e00-\u9fff]{1,4}+[ \t]*+)?+"
    r"[(（][ \t]*+(?:(?i:previously|formerly|was|before|from|old|down from|up from)"
    r"|原来|原价|原為|原为|以前|之前|旧|従来|以前は|旧価格)[ \t:：]*+)[ \t]*+"
)


def _change_shares_per(text: str, found: Sequence[Quantity]) -> list[Quantity]:
    """Two amounts of one unit joined as a change share its period or denominator: the
    one that names it (每月600元) gives it to the other (涨到800元 is 800 a month too)."""
    out = list(found)
    for i in range(len(out) - 1):
        a, b = out[i], out[i + 1]
        if (
            a.kind != NUMBER
            or b.kind != NUMBER
            or a.unit != b.unit
            or not a.unit
            or bool(a.per) == bool(b.per)
            or not _CHANGE_TO.fullmatch(text[a.end : b.start])
        ):
            continue
        if a.per:
            out[i + 1] = replace(b, per=a.per)
        else:
            out[i] = replace(a, per=b.per)
    return out


#: What joins the two ends of a span of months or days: 4〜10月, 12～15日.
_SPAN_JOIN = frozenset("〜～~-–—")


def _shared_counter(text: str, found: list[Quantity]) -> list[Quantity]:
    """A bare figure that opens a span whose other end is a date shares that date's counter
    (4〜10月 is April to October, 12～15日 the 12th to the 15th), so it is read as a month
    or a day, not as a bare number."""
    out = list(found)
    for i, q in enumerate(out[:-1]):
        nxt = out[i + 1]
        if (
            q.kind != NUMBER
            or q.unit
            or q.value is None
            or nxt.kind != DATE
            or len(nxt.readings) != 1
            or not text[q.end : nxt.start].strip()
            or any(c not in _SPAN_JOIN and not c.isspace() for c in text[q.end : nxt.start])
        ):
            continue
        year, month, day = nxt.readings[0][:3]
        v = int(q.value) if q.value == q.value.to_integral_value() else 0
        reading: tuple[int | None, int | None, int | None]
        if month is not None and day is None and 1 <= v <= 12:
            reading = (year, v, None)
        elif day is not None and month is not None and 1 <= v <= 31:
            reading = (year, month, v)
        else:
            continue
        out[i] = replace(q, kind=DATE, value=None, readings=(reading,))
    return out


#: A denominator after a figure: "/公斤", "／kg", " per jar", "每斤", " a month".
_PER_AFTER = re.compile(
    r"[ \t]*(?:/|／|\bper[ \t]+|\ba[ \t]+(?=[a-z])|\ban[ \t]+(?=[a-z])|每|一"
    # "£170 for the season": the period it pays for
    r"|\bfor[ \t]+the[ \t]+(?=(?:season|year|month|week|term|quarter|night|day)\b))[ \t]*"
    # a denominator's word stops at a particle (一組の当番 is 組)
    rf"(?P<d>[A-Za-z]{{1,12}}(?:[23²³](?![0-9]))?|[{HAN}\u30a0-\u30ff]{{1,4}})(?![A-Za-z])"
)
#: What follows a list's next item right after its name: its own figure (北信ガス71万5千円,
#: "B: 12").
_LISTED = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]{0,8}[ \t:：]?[0-9０-９一二三四五六七八九十]")
#: A figure right after a denominator: the rate it is the denominator of (每套 58.6 元).
_FIGURE_NEXT = re.compile(r"[ \t]{0,2}[:：]?[ \t]{0,2}[0-9０-９]")
#: What marks a denominator before a figure: 每公斤8.5元 (before the word), 1玉あたり48円
#: and 一人当たり3,000円 (after it).
_PER_MARK_ZH = "每"
_PER_MARKS_JA = ("あたり", "当たり", "につき")


def _past_link(text: str, i: int) -> int:
    """Where a word that links a thing in brackets to its figure starts (蛋一箱（10台斤）還是
    650), or *i* when none stands right before it."""
    for link in _STILL_LINKS:
        if text.endswith(link, 0, i) and text[i - len(link) - 1 : i - len(link)] in ("）", ")"):
            return i - len(link)
    return i


def _denominator_before(text: str, start: int) -> str:
    """The denominator written before a figure at *start* ("" when none); read backwards
    over a few characters of its clause, without a pattern: 1玉あたり48円, 每公斤8.5元,
    每月最多提取2000元 (每 and its unit a few words before), 一个月11美元 (a period first)."""
    i = start
    while i > 0 and start - i < 4 and text[i - 1] in " \t":
        i -= 1
    i = _past_link(text, i)
    if i > 0 and text[i - 1] in "(（":
        i -= 1  # 一桶（20升）: a figure in brackets right after what it is of
    elif i > 0 and text[i - 1] in ")）":
        opened = max(text.rfind("(", max(0, i - 12), i), text.rfind("（", max(0, i - 12), i))
        if opened >= 0:
            i = opened  # 一桶（20升）¥268: the bracket between them says what it holds
    for mark in _PER_MARKS_JA:
        if text.endswith(mark, 0, i):
            j = k = i - len(mark)
            while (
                j > 0
                and k - j < 6
                and _word_char(text[j - 1])
                and text[j - 1] not in "はがをのにでへもや"
            ):
                j -= 1
            return text[j:k]
    j = i
    while j > 0 and i - j < _PER_REACH and is_han(text[j - 1]):
        j -= 1
    run = text[j:i]
    at = run.rfind(_PER_MARK_ZH)
    if at < 0 and j > 0 and text[j - 1] == _PER_MARK_ZH and run:
        return _unit_word(run)
    if at >= 0 and run[at + 1 :]:
        return _unit_word(run[at + 1 :])
    one = run.rfind("一")
    if (
        0 <= one < len(run) - 2
        and run[one + 1] not in _ONE_ADVERB
        and (one == 0 or (run[one - 1] not in _NOT_ONE and run[one - 1] not in _CJK_NUMERALS))
    ):
        # 一托盘加80块: one of a thing, then a verb of charging, then what it costs (each
        # pallet, as 每托盘 says); not 三室一厅月租 (the rooms of a flat)
        tail = run[one + 1 :]
        for word in dict.fromkeys((_unit_word(tail), tail[:1])):  # 一托盘加, then 一份賣
            rest = tail[len(word) :]
            if word and ((1 <= len(rest) <= 2 and rest[-1] in _PAY_VERBS) or rest in _PRICE_MOVES):
                return word  # 一托盘加80块, 一斤涨到二十八块
    return _period_before(text, j, run) or _one_of_a_thing(text, i, run)


#: A count of a thing, then a multiplication sign, right before a price: "64,770単位 ×",
#: "300斤×", "12 boxes x": the price is of one of those things.
_COUNT_TIMES = re.compile(
    r"\d(?:[\d,.]{0,12}\d)?[ \t]?([A-Za-z]{1,10}|[\u3041-\u30ff\u4e00-\u9fff]{1,3})"
    r"[ \t]{0,3}[×xX*＊][ \t]{0,3}$"
)


def _counted_times(text: str, start: int) -> str:
    """The thing a count multiplied by the price at *start* counts ("" when none)."""
    m = _COUNT_TIMES.search(text, max(0, start - 24), start)
    if m is None or m.group(1).lower() in {"x", "by"}:
        return ""
    return _unit_word(m.group(1)) if is_han(m.group(1)[0]) else m.group(1)


def _period_before(text: str, j: int, run: str) -> str:
    """The period a run of Han characters ending right before a figure names as its
    denominator: 一个月11美元, 家賃は月8万5千円, 房租月付8500元 ("" when none)."""
    for head in _PER_ONE:
        if run.endswith(head) and _per_unit(head[1:]) in _PERIODS:
            return head[1:]
    if run in _BARE_PERIODS and (j == 0 or text[j - 1] in _BEFORE_BARE_PERIOD):
        return run  # a period alone before the amount
    for head, period in _PERIOD_HEADS.items():
        if run.endswith(head):
            return period  # a period and what is paid in it: 月付, 月額, 年费
    return ""


#: A period written alone right before an amount makes it a rate (月8万5千円 is a month's).
_BARE_PERIODS = frozenset({"月", "年", "週", "周", "日"})
#: A period and what is paid in it, right before an amount: the amount is that period's.
_PERIOD_HEADS = {
    **{f"月{w}": "月" for w in ("付", "租", "缴", "繳", "费", "費", "额", "額", "薪", "給")},
    **{f"年{w}": "年" for w in ("付", "缴", "繳", "费", "費", "额", "額", "薪", "収", "收")},
    # 年間18万円, 月間3万円: the year's or the month's whole amount
    "年間": "年",
    "月間": "月",
}
#: What may stand before such a period: a particle, a mark, a space (今年, 3月 are no rate).
_BEFORE_BARE_PERIOD = frozenset("はがもでをに、，,:：（( \t\n")


def _one_of_a_thing(text: str, i: int, run: str) -> str:
    """The thing a price before *i* is of when one of it is named right before: 1文字12円,
    1ワード18円, 1人3000円, 一桶 ¥268, 一箱 156元 ("" when none)."""
    one = _ONE_THING.search(text, max(0, i - 8), i)
    if one and one.group("w")[0] in _RANKS:
        one = None  # 1等5俵, 1位: the first grade or place, no "one" of a thing
    if one and not (
        one.group("w")[0] in _DATE_COUNTERS and _DATE_BEFORE_ONE.search(text, 0, one.start())
    ):
        return one.group("w")  # not 12月1日起18%: the first of a month, then a rate
    for size in (1, 2, 3):  # 一斤28元, 一公斤28元, 一平方米: one of a unit of any length
        at = len(run) - size - 1
        if at >= 0 and run[at] == "一" and (at == 0 or run[at - 1] not in _NOT_ONE):
            counted = cjk_unit(run, at + 1)
            if counted is not None and counted[2] == len(run):
                return run[at + 1 :]
    return ""


#: "1" written as a digit before the thing a price is of, right before the price (第1批
#: is the first batch, no "one batch"; 1割引 is ten per cent off, no "one 割引").
_ONE_THING = re.compile(
    # (not the 1 of a code: C1 学费4800元 is no price per 学费)
    r"(?<![\d.,第A-Za-zＡ-Ｚａ-ｚ_-])[1１][ \t]?(?!割)(?P<w>[\u30a1-\u30fa\u30fc\u4e00-\u9fff]{1,4}?)(?:は|が|で|[:：])?[ \t]*$"
)
#: Counters of a rank, not of a thing: 1等 (first grade), 1位, 1番, 1期, 1級.
_RANKS = frozenset("等級级位番期代")
#: The counters of a date, and a month right before a "1" that makes it a day's number.
_DATE_COUNTERS = frozenset("日号號")
_DATE_BEFORE_ONE = re.compile(r"月[ \t]?$")
#: Characters before 一 that make it part of a word, not "one" (统一, 唯一, 第一, 万一).
_NOT_ONE = frozenset("统統唯第万萬之同")


#: What follows 块 when it is yuan, not pieces of a thing: 钱 and its tenths, and the
#: words that go on a sentence (34,650块已付, 80块了, 200块左右, 30块的) where no noun
#: counted follows.
_AFTER_YUAN = frozenset(
    "钱錢毛角已了的都就还還也又才左上以起到至每吧呢啊呀哦啦嘛吗嗎呗唄涨漲降跌变變不没沒一"
)
#: The second character of a word for money after 块 (2000块奖金, 500块押金, 300块运费,
#: 50块红包): the 块 is yuan, not pieces of it (5块金牌 counts medals: 金 comes first).
_MONEY_NOUN_ENDS = frozenset("金费費资資款钱錢租薪包")
#: The digit after 块 that gives tenths of a yuan (13块5), in figures or characters.
_JIAO = {
    **{str(d): d for d in range(1, 10)},
    **dict(zip("一二三四五六七八九", range(1, 10), strict=True)),
}


def _jiao_counted(text: str, at: int) -> bool:
    """Whether the digit before *at* goes on as a figure or a count of its own (13块5毛 is
    still tenths; 13块50 and 2块3个 are not)."""
    nxt = text[at : at + 1]
    return nxt.isdigit() or nxt in _COUNTED_AFTER_JIAO


#: Counters after 2块3 that make it two pieces and three things, not 2.3 yuan.
_COUNTED_AFTER_JIAO = frozenset(
    "个個只件张張条條本台套块塊箱斤两兩盒瓶包袋碗份杯桶罐双雙对對串盘盤锅鍋车車"
)


#: A verb of charging between "one of a thing" and its price: 一托盘加80块, 一份卖12元.
_PAY_VERBS = frozenset("加收付卖賣")
#: A price's move between one of a thing and the new price: 一斤涨到二十八块.
_PRICE_MOVES = frozenset({"涨到", "漲到", "降到", "跌到", "卖到", "賣到", "涨了", "漲了"})
#: Words that link a thing in brackets to what it costs (一箱（10台斤）還是 650).
_STILL_LINKS = (
    "還是",
    "还是",
    "仍是",
    "仍然是",
    "依然是",
    "都是",
    "也是",
    "還要",
    "还要",
    "是",
    "要",
    "賣",
    "卖",
)
_CJK_NUMERALS = frozenset("一二三四五六七八九十两兩百千万萬")


#: What 一 begins as an adverb, not "one" of something (一共, 一起, 一定, 一下).
_ONE_ADVERB = frozenset("共起样樣般直定些点點下边邊旦向律概同齐齊切")


#: How far back a 每 may stand from its figure, in Han characters (每月最多提取2000元).
_PER_REACH = 8
#: What names a weekday before its numeral (周六, 星期三, 礼拜天): the numeral is the day.
_WEEK_HEADS = ("周", "週", "星期", "礼拜", "禮拜")
#: A period named with 一 just before a figure makes it a rate: 一个月11美元, 一晚300元.
_PER_ONE = ("一个月", "一個月", "一天", "一晚", "一周", "一週", "一年", "一小时", "一小時")
#: The units a period is measured in.
_PERIODS = frozenset({"month", "day", "week", "year", "h", "night"})
#: Period words a scan alone reads otherwise (1月 is January, 1日 the first of a month).
_PER_PERIOD_WORDS = {
    "月": "month",
    "日": "day",
    "晚": "night",
    "夜": "night",
    "泊": "night",
    # a school's or a club's term, however it is written
    "学期": "term",
    "學期": "term",
    "term": "term",
    "semester": "term",
    "学期ごと": "term",
}


def _unit_word(run: str) -> str:
    """The longest start of *run* that is a unit or counter (月最多 → 月, 公斤 → 公斤); the
    run's first character when none is. A generic counter before a noun counts the noun
    (每个孩子 is per child, not per 个)."""
    if run[:1] in "个個" and len(run) >= 3 and all(is_han(c) for c in run[1:3]):
        return run[1:3]
    for n in range(min(3, len(run)), 0, -1):
        word = run[:n]
        if _per_unit(word) != word.lower() or n == 1:
            return word
    return run[:1]


def _word_char(c: str) -> bool:
    return is_han(c) or is_kana(c) or (c.isascii() and c.isalpha())


def per_word(word: str) -> str:
    """A denominator's one spelling (泊 → night, 公斤 → kg), as :attr:`Quantity.per` holds it."""
    return _per_unit(word)


@functools.lru_cache(maxsize=1024)
def _per_unit(word: str) -> str:
    """A denominator in one spelling: its unit when it is one (公斤, kg, キロ → kg), else the
    word folded and without a plural s."""
    if len(word) > 1 and word[0] in "一1１" and not word[1].isascii():
        word = word[1:]  # 一件あたり is 件あたり: one of it is what "per" means
    if word in _PER_PERIOD_WORDS:
        return _PER_PERIOD_WORDS[word]
    if word.lower() in _ONE_ITEM:
        return EACH
    probe = f"1{word}" if not word[:1].isascii() else f"1 {word}"
    got = scan(probe)
    if len(got) == 1 and got[0].unit and got[0].end - got[0].start >= len(probe):
        return got[0].unit  # the whole word a unit: 公斤 is kg, 公斤卖 is not
    w = word.lower()
    return w[:-1] if w.endswith("s") and len(w) > 3 else w


#: A line's label that gives a denominator before its colon ("25kg/袋：", "单价/千字:",
#: "每袋："; a path's "/data:" is none): the figures after the colon on that line are
#: per that thing.
#: A line's label that opens with a period and names an amount of it (月收入合计：, 年费：,
#: 月学费：); not 年龄, 年级, 月份, 日期, 周末 (the period's own words), nor a label that says
#: whose the amount is (周敏转来的报价：, 年轻人的预算：: 周 and 年 open names and words too,
#: and a period's amount is a compound noun, never one thing's of another).
_PERIOD_LABEL = re.compile(
    r"(?:^|(?<=[\s，,、]))(月|年|周|週)(?!龄|齡|级|級|份|末|底|初|度|报|報|会|會)"
    r"(?:(?![的之])[\u4e00-\u9fff]){1,6}[ \t]*[：:][ \t]*(?=[^：:\n]*$)"
)
_LABEL_PER = re.compile(
    r"(?:(?<=[0-9A-Za-z\u4e00-\u9fff])[/／]|每)[ \t]*([\u4e00-\u9fff\u3041-\u30ff]{1,3})[ \t]*[：:]"
    r"(?=[^：:\n]*$)"
)

#: An English label that gives a denominator before its figure, parted from it by a colon
#: or a table's gap: "cost per plate      S$1.79", "price/kg: 6.80" (not "3 per plate
#: for 2", where per opens no label).
_LABEL_PER_EN = re.compile(
    r"(?i)(?:\bper[ \t]+|(?<=[a-z])/)([a-z]{1,12})[ \t]*(?::[ \t]*|[ \t]{2,}|\t[ \t]*)$"
)


def _label_start(text: str, pos: int) -> int:
    """Where a label before *pos* may start: its line's start, at most 80 characters back."""
    back = max(0, pos - 80)
    return max(back, text.rfind("\n", back, pos) + 1)


def _rates(text: str, found: list[Quantity]) -> list[Quantity]:
    """The quantities with the denominator a rate gives them (:attr:`Quantity.per`)."""
    out = []
    for q in found:
        if q.kind == NUMBER and q.value is not None:
            if q.unit in _PERIODS and text.endswith(_PER_MARK_ZH, 0, q.start):
                out.append(q)  # 每两周一次: every two weeks, once; the period is no count
                continue
            after = _PER_AFTER.match(text, q.end)
            if after is None and q.unit not in _CURRENCIES:
                # "24 covers/seating", "3 posts per day": the thing, then per (money counts no
                # thing: "S$4.50 leaves a margin" is no price per margin)
                thing = _COUNTED.match(text, q.end)
                after = _PER_AFTER.match(text, thing.end()) if thing else None
            if after and _not_its_per(text, q, after):
                after = None
            if after and _SPACED_SLASH.search(after.group(0)) and not _unit_like(after.group("d")):
                after = None  # "8分 / ロイヤル西新": a list's separator, not "per"
            elif after and _LISTED.match(text, after.end()) and not _unit_like(after.group("d")):
                after = (
                    None  # "704,000円／北信ガス71万5千円": the next item of a list and its figure
                )
            word = after.group("d") if after else _denominator_before(text, q.start)
            if after and len(word) >= 3 and is_han(word[0]):
                word = _unit_word(word)  # 520元/吨到场: the unit, then the words that go on
            if (
                not word
                and q.unit
                and (label := _LABEL_PER.search(text, _label_start(text, q.start), q.start))
            ):
                # 高筋面粉 25kg/袋：185元 → 198元: the label's per; 每月多交：825元, its unit
                word = _unit_word(label.group(1))
            if (
                not word
                and q.unit
                and (label := _LABEL_PER_EN.search(text, _label_start(text, q.start), q.start))
            ):
                word = label.group(1)  # "cost per plate      S$1.79", "price/kg: 6.80"
            if (
                not word
                and q.unit
                and (label := _PERIOD_LABEL.search(text, _label_start(text, q.start), q.start))
            ):
                word = label.group(1)  # 月收入合计: 484,440元 is the month's
            if word and q.unit in _LEVELS and _per_unit(word) in _PERIODS:
                word = ""  # 1週間は40kV: a setting for a week, not 40 kV per week
            if word and not _no_denominator(word):
                q = replace(q, per=_per_unit(word))
            elif _EACH.match(text, q.end):
                q = replace(q, per=EACH)
        out.append(q)
    return out


#: Units of a level or a setting (a voltage, a temperature, a frequency): a period before
#: or after one says for how long it holds, never that it is counted per period.
_LEVELS = frozenset(
    {
        "V",
        "kV",
        "mV",
        "A",
        "mA",
        "°C",
        "°F",
        "Hz",
        "kHz",
        "MHz",
        "GHz",
        "dB",
        "rpm",
        "bar",
        "Pa",
        "kPa",
        "MPa",
        "psi",
        "W",
        "kW",
        "MW",
    }
)


#: The denominator of a price for one of whatever is counted ("$7.50 each", "£3 apiece").
EACH = "each"
#: The denominator of a figure whose key says it is a rate without saying of what
#: (rate_jpy, unit_price_eur): any denominator the model gives it.
SOME_RATE = "some rate"
_EACH = re.compile(r"(?i)[ \t]*(?:each|apiece|ea)\b(?![ \t]*[A-Za-z])")
#: Words for "one of the things counted" after "per"/"a": "per piece", "per unit".
_ONE_ITEM = frozenset({"piece", "unit", "item", "each"})


def same_per(c: str, e: str) -> bool:
    """Whether a rate's denominator *c* is the evidence's *e*: the same word, or *c* says
    "each" (of whatever the evidence counts), or the evidence says "each" and *c* names the
    thing ("$7.50 a shirt" for "$7.50 each"). A period is never "each" ("$40 a month" is
    not "$40 each")."""
    c, e = _ONE_OF.get(c, c), _ONE_OF.get(e, e)
    if e == SOME_RATE:
        return True  # rate_jpy: 9500 is a rate of something the key does not name
    if c == e or (c == EACH and e not in _PERIODS):
        return True  # "eleven slots each" of a table's 11: each names no other thing
    if not c or not e or c in _PERIODS or e in _PERIODS:
        return False
    if (c in _PER_HEAD and e in _PER_PERSON) or (e in _PER_HEAD and c in _PER_PERSON):
        return True  # 每人 for 每个孩子, "per person" for "per student": a head is a head
    if _PER_THINGS.get(c.lower(), frozenset()) & _PER_THINGS.get(e.lower(), frozenset()):
        return True  # 每盒 for "/box": one thing in two languages
    if is_han(c[0]) and is_han(e[0]) and (c.startswith(e) or e.startswith(c)):
        return True  # 每品种 read as 品, 每个品种 as 品种: a word of no known unit is read short
    return e == EACH


def _per_things() -> dict[str, frozenset[int]]:
    """The lines of the list ``per_things`` each of its words stands on."""
    out: dict[str, set[int]] = {}
    for n, line in enumerate(sorted(lexicon.words("per_things"))):
        for word in line.split("|"):
            if word.strip():
                out.setdefault(word.strip().lower(), set()).add(n)
    return {w: frozenset(ns) for w, ns in out.items()}


_PER_THINGS = _per_things()


#: Counters that count one of whatever is counted (每个, 一つ): "each"; and a weight's
#: names that are one in a denominator ("$14.25 per pound" is "$14.25/lb": no money is
#: sold by the pound sterling).
_ONE_OF = {"个": EACH, "個": EACH, "つ": EACH, "pound": "lb", "pounds": "lb", "lbs": "lb"}
#: A head, whoever: 人, 位, 名, person. It is the same denominator as any one kind of person.
_PER_HEAD = frozenset({"人", "位", "名", "person", "people", "head", "pax", "人様", "名様"})
#: The kinds of person a price may be for (a child is not an adult, but each is a head).
_PER_PERSON = _PER_HEAD | frozenset(
    {
        "孩子",
        "小孩",
        "儿童",
        "兒童",
        "学生",
        "學生",
        "子ども",
        "子供",
        "大人",
        "成人",
        "生徒",
        "child",
        "kid",
        "student",
        "adult",
        "guest",
        "participant",
        "member",
        "attendee",
    }
)


#: What a figure counts, written between it and its denominator ("24 covers/seating").
_COUNTED = re.compile(r"[ \t]{1,2}[A-Za-z]{2,15}(?=[ \t]*(?:/|／)|[ \t]+per[ \t])")
#: A slash with space on both sides: it parts a list as often as it means "per".
_SPACED_SLASH = re.compile(r"\s[/／]\s")


def _unit_like(word: str) -> bool:
    """Whether a word after a spaced slash is a unit or a period ("$5 / month", "8元 / 公斤")."""
    if word in _PER_PERIOD_WORDS:
        return True
    probe = f"1{word}" if not word[:1].isascii() else f"1 {word}"
    got = scan(probe)
    # the unit must be the whole word: 国区 is no unit because 国 counts countries
    # and a unit the scanner knows, not any word it would count ("1 ACoS")
    return (
        len(got) == 1
        and bool(got[0].unit)
        and got[0].uclass != SOFT
        and got[0].end >= len(probe)
        and (got[0].uclass != COUNTER or cjk_unit(probe, 1) is not None)  # not any katakana word
    )


def _no_denominator(word: str) -> bool:
    """Words after "a"/"per"/"/" that are no denominator ("3 a piece" aside, "a few",
    "2/3" is a fraction, not per three)."""
    return word.lower() in _NOT_DENOMINATORS


_NOT_DENOMINATORS = frozenset(
    {"few", "lot", "bit", "little", "and", "or", "the", "of", "to", "in", "on", "at", "is"}
)


def _calendar(text: str, found: list[Quantity]) -> list[Quantity]:
    """The scanner's quantities with era years made Gregorian, clock times bound to their
    zone, and weekdays added (:mod:`.calendar`)."""
    out = list(found)
    for a, b, year, month, day in eras(text):
        # never the scanner's reading ("8年5月2日" as 2008-05-02, "115年" as a count)
        out = [q for q in out if not a <= q.start < b]
        readings = [(year, month, day)]
        out.append(
            Quantity(
                DATE, text[a:b], _date_canon(readings, text[a:b]), a, b, readings=tuple(readings)
            )
        )
        if month is None:
            out[-1] = replace(out[-1], canon=str(year))
    zones: list[tuple[int, int]] = []
    for i, q in enumerate(out):
        if q.kind == TIME:
            zone = zone_after(text, q.end, q.start)
            if zone is not None:
                out[i] = replace(q, canon=f"{q.canon} {zone[0]}", unit=zone[0])
                zones.append((q.end, zone[1]))
    out = [q for q in out if not any(a <= q.start < b for a, b in zones)]
    spans = identifiers(text)
    if spans:
        tails = []
        for q in out:
            code_end = next((b for a, b, _s, _c in spans if a <= q.start < b < q.end), None)
            if code_end is not None:
                # a figure read on from inside a code ("HM-2026-118，914.14" folded to
                # "118,914.14"): the code ends it; what follows its separator is read again
                rest = len(text[code_end : q.end]) - len(text[code_end : q.end].lstrip(",，、 "))
                tails += [
                    replace(t, start=t.start + code_end + rest, end=t.end + code_end + rest)
                    for t in scan(text[code_end + rest : q.end])
                ]
        out = [q for q in out if not any(a <= q.start < b for a, b, _s, _c in spans)]
        out += tails
        out += [
            Quantity(IDENTIFIER, text[a:b], canon, a, b, unit=sort) for a, b, sort, canon in spans
        ]
    for w_start, w_end, wday in weekdays(text):
        if not any(q.start < w_end and w_start < q.end for q in out):
            out.append(Quantity(WEEKDAY, text[w_start:w_end], wday, w_start, w_end))
    out.sort(key=lambda q: (q.start, q.end))
    return out


def scan(text: str) -> tuple[Quantity, ...]:
    """Every quantity in *text*, in order of appearance."""
    if not text:
        return ()
    return _scan_cached(text)


# =========================================================================== comparison


def _date_covers(c: tuple, e: tuple) -> bool:
    return all(cv is None or cv == ev for cv, ev in zip(c, e, strict=False))


def _time_covers(c: tuple, e: tuple) -> bool:
    return c[0] == e[0] and c[1] == e[1] and (c[2] is None or c[2] == e[2])


def _all_covered(c_readings: tuple, e_readings: tuple, fn) -> bool:
    return all(any(fn(rc, re_) for rc in c_readings) for re_ in e_readings)


#: What a version is called when a model names it by a count word ("the 1.4 line").
_RELEASE_WORDS = frozenset({"", "line", "series", "branch", "release"})


def _number_covers(c: Quantity, e: Quantity) -> bool:
    """:func:`covers` for a figure the model wrote."""
    if e.kind == NUMBER:
        return (
            c.value == e.value
            and covers_unit(c.unit, c.uclass, e.unit, e.uclass)
            # 24万円(税込) for 24万円(税別): the tax in it is another amount
            and not (
                c.basis
                and e.basis
                and c.basis != e.basis
                and _BASIS_FAMILY[c.basis] == _BASIS_FAMILY[e.basis]
            )
            and (
                not c.per
                or same_per(c.per, e.per)  # a rate's denominator is its own
                # a count of things the evidence gives bare may say what each is for
                # ("two reminders" as "two reminders per appointment"); never money,
                # a measure or a period, where a total and a rate differ
                or (not e.per and c.uclass == SOFT and c.per not in _PERIODS)
            )
        )
    if e.kind == DATE and not c.unit and c.value is not None and _ORDINAL_DAY.fullmatch(c.text):
        # "stops at the 13th" for "1 Jan to 13 Mar 2026": a day of the month the evidence dates
        return all(r[2] is not None and Decimal(r[2]) == c.value for r in e.readings)
    if e.kind == DATE and not c.unit and c.value is not None:
        return all(r[0] is not None and Decimal(r[0]) == c.value for r in e.readings)
    if e.kind == DATE and c.unit in ("日", "号", "號") and c.value is not None:
        # 17日 for 6月16、17、18: a day of the month the evidence dates
        return all(r[2] is not None and Decimal(r[2]) == c.value for r in e.readings)
    if e.kind == TIME and c.unit in ("点", "點") and c.value is not None and c.unit in e.text:
        # 7点装 for 早上7点装货, 3点前到 for 下午3点前到: the clock's hour as the evidence
        # writes it, the half of the day left to the reader
        return any(r[1] == 0 and r[0] in (c.value, c.value + 12) for r in e.readings)
    if e.kind == VERSION and c.unit in _RELEASE_WORDS and c.value is not None and "." in c.text:
        digits = c.text.strip()
        return ".".join(e.parts).startswith(digits + ".") or ".".join(e.parts) == digits
    return False


#: A currency written as a word of its own, with no figure: a column's header (（元）,
#: 単位：円, (JPY)), a rate's unit (元/斤), a note on what a file's figures are in.
_CURRENCY_WORD = re.compile(
    r"(?<![A-Za-z])(?:USD|EUR|GBP|JPY|CNY|RMB|TWD|HKD|CAD|AUD|NT\$|HK\$|US\$)(?![A-Za-z])"
    r"|人民币|人民幣|美元|日元|日圓|港元|港幣|港币|新台幣|新台币|台幣|台币|欧元|歐元|英镑|英鎊"
    r"|ユーロ|ドル|元|円|块|塊"
)


@functools.cache
def _currency_of(word: str) -> str:
    found = scan("1" + word)
    return found[0].unit if len(found) == 1 and found[0].unit in _CURRENCIES else ""


#: A denominator a line writes apart from its figure: 每斤（元）, per kg, 1個あたり.
_PER_WORD = re.compile(
    r"每[ \t]?([\u4e00-\u9fff]{1,2})|(?i:\bper[ \t]+([a-z]{1,12}))"
    r"|([\u4e00-\u9fff\u30a1-\u30fa]{1,3})(?:あたり|当たり)|[/／][ \t]?([\u4e00-\u9fff\u30a1-\u30fa]{1,3})"
)


#: What stands between two figures that are a row's cells: 3 | 57.00, 3, 57.00.
_BETWEEN_CELLS = re.compile(r"[ \t|,;]*")


def _gives_per(line: str, per: str) -> bool:
    """Whether *line* writes *per* as a denominator somewhere in it."""
    return any(
        _per_unit(w) == per or w == per for m in _PER_WORD.finditer(line) for w in m.groups() if w
    )


def _money_of_the_line(
    text: str, bare: list[Quantity]
) -> Iterator[tuple[Quantity, frozenset[str], str]]:
    """Each bare figure of *text* that stands alone on its line beside a currency written
    as a word of its own, with that currency: ``OYSTER_PER_JIN = 220  # 每斤（元）``. A
    currency some figure of the line carries is that figure's; a line of two bare figures
    or more is a table's row, whose header says which column is money."""
    if not bare or not _CURRENCY_WORD.search(text):
        return
    spans = [(q.start, q.end) for q in scan(text)]
    lines: dict[int, list[Quantity]] = {}
    for q in bare:
        if q.start < len(text) and text[q.start : q.end] == q.text:
            lines.setdefault(text.rfind("\n", 0, q.start) + 1, []).append(q)
    for start, figures in lines.items():
        figures.sort(key=lambda q: q.start)
        if any(
            _BETWEEN_CELLS.fullmatch(text, a.end, b.start) for a, b in itertools.pairwise(figures)
        ):
            continue  # 3 | 57.00: a row's cells
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        words = {
            c
            for m in _CURRENCY_WORD.finditer(text, start, end)
            if not any(a <= m.start() < b for a, b in spans) and (c := _currency_of(m.group()))
        }
        if words:
            for q in figures:
                yield q, frozenset(words), text[start:end]


#: A day of the month written as an English ordinal: 13th, 1st, 22nd.
_ORDINAL_DAY = re.compile(r"(?i)(?:[1-9]|[12]\d|3[01])(?:st|nd|rd|th)")


def covers(c: Quantity, e: Quantity) -> bool:
    """Whether *e* (in the evidence) vouches for *c* (written by a model): the same value,
    and nothing *c* says that *e* does not (unit, currency, year, am/pm, version part)."""
    if c.kind == NUMBER:
        return _number_covers(c, e)
    if c.kind == RANGE:
        return (
            e.kind == RANGE
            and c.value == e.value
            and c.high == e.high
            and covers_unit(c.unit, c.uclass, e.unit, e.uclass)
        )
    if c.kind == DATE:
        if e.kind == DATE:
            return _all_covered(c.readings, e.readings, _date_covers)
        if e.kind == NUMBER and not e.unit and e.value is not None:
            return any(
                r[1] is None and r[2] is None and r[0] is not None and Decimal(r[0]) == e.value
                for r in c.readings
            )
        return False
    if c.kind == TIME and e.kind == NUMBER and e.unit in ("点", "點") and e.value is not None:
        # 06:00 for 六点出摊: the hour the evidence says on the clock, whole
        return bool(c.readings) and all(
            r[1] == 0 and r[0] in (e.value, e.value + 12) for r in c.readings
        )
    if c.kind == TIME:
        return (
            e.kind == TIME
            and (not c.unit or c.unit == e.unit)
            and (
                _all_covered(c.readings, e.readings, _time_covers)
                # the same clock written the same way, no half of the day named: whatever
                # it means, the text says what the evidence says ("--time 10:00")
                or (
                    c.text == e.text
                    and c.text.replace(":", "").isdigit()
                    and all(r[0] == int(c.text.split(":")[0]) for r in c.readings)
                )
            )
        )
    if c.kind == IDENTIFIER:
        return e.kind == IDENTIFIER and covers_identifier(c.unit, c.canon, e.unit, e.canon)
    if c.kind == VERSION:
        if e.kind == VERSION:
            n = len(c.parts)
            # less specific, but never without the evidence's pre-release or build suffix
            return e.parts[:n] == c.parts and all(p.isdigit() for p in e.parts[n:])
        if e.kind == NUMBER and not e.unit and "." in e.text:
            return ".".join(c.parts) == e.text.strip()
        return False
    return e.kind == c.kind and e.canon.lower() == c.canon.lower()


#: Where a table's cells part: a tab, two spaces and more (an aligned column), or a rule
#: drawn between them (``|`` of Markdown and ASCII tables, ``│``/``┃`` of box drawing).
_CELL_GAP = re.compile(r"\t|[ \u3000]{2,}|[ \u3000]*[|│┃｜][ \u3000]*")
#: A comma that is no digit group's (a digit before it, three digits and no more after).
_NOT_GROUP_COMMA = re.compile(r"(?<!\d),|,(?!\d{3}(?!\d))")
_SPACE_GAP = re.compile(r"[ \u3000]{2,}")
#: A row that only draws the table (``|---|:--:|``, ``+----+``, ``├──┼──┤``).
_RULE_ROW = re.compile(r"^[\s|│┃｜+:=\-─━┼├┤┌┐└┘┬┴]*$")
#: A column header that names its unit: 金額(円), 金额（元）, Weight (kg).
_HEADED = re.compile(r"^[^()（）]{1,40}?\s*[(（]\s*([^()（）0-9]{1,12}?)\s*[)）]$")
#: A unit declared for a whole table: （単位：円）, (单位：元), (units: kg).
_DECLARED = re.compile(
    r"[(（]\s*(?:単位|单位|units?)\s*[:：]\s*([^()（）0-9]{1,12}?)\s*[)）]", re.I
)
#: A title line that ends in its figures' unit in brackets: 工资表（元）, 売上一覧(円).
_TITLE_UNIT = re.compile(r"[^\s()（）][(（]\s*([^()（）0-9\s]{1,4})\s*[)）]\s*$")
#: A line that says which currency every amount of the text is in: "All amounts AUD.",
#: "Prices in NZD excl. GST", "Amounts are in USD".
_DECLARED_EN = re.compile(
    r"(?im)^[ \t]*(?:all[ \t]+)?(?:amounts?|prices?|figures?|totals?)[ \t]+(?:are[ \t]+)?"
    r"(?:shown[ \t]+)?(?:in[ \t]+)?([A-Z]{3})\b"
)


@functools.lru_cache(maxsize=256)
class _Unit(NamedTuple):
    """A unit a header or a declaration gives bare figures: the unit and its class as a
    figure written with it carries, and the magnitude it writes with it (千円 is 1000 of
    円: 45,600 under it is 45,600,000円)."""

    unit: str
    uclass: str
    scale: Decimal = Decimal(1)


def _unit_of(written: str) -> _Unit | None:
    """The unit a header writes (円, 元, kg, %, 千円, 万元), as a figure written with it would
    carry: None when it is not one. A list of notes in one bracket (税込・円, USD, excl. VAT)
    gives the one unit among them."""
    parts = [p.strip() for p in _NOTE_PARTS.split(written) if p.strip()]
    if len(parts) > 1:
        units = {u for p in parts if (u := _unit_of(p)) is not None}
        return units.pop() if len(units) == 1 else None
    forms = (f"1{written}", f"1 {written}")
    if written[:1].isascii() and written[:1].isalpha():
        forms = forms[::-1]  # USD/box: a word-like unit stands apart from its figure
    for form in forms:
        got = scan(form)
        if "/" in written or "／" in written:
            # 元/千字 reads as 1元 per 字 and the 1000字 its denominator counts: the unit is
            # the first figure's
            got = tuple(q for q in got if q.start == 0)[:1]
        if len(got) == 1 and got[0].unit and got[0].uclass in (HARD, COUNTER):
            scale = got[0].value
            if scale is None or not _power_of_ten(scale):
                return None  # a header of "1.5kg" or "3本" writes a figure, no unit
            return _Unit(got[0].unit, got[0].uclass, scale)
    return None


def _power_of_ten(value: Decimal) -> bool:
    """1, 10, 1000, 10000 …: a magnitude a header may write before its unit."""
    norm = value.normalize()
    sign, digits, _exp = norm.as_tuple()
    return not sign and digits == (1,) and norm >= 1


def _not_its_per(text: str, q: Quantity, after: re.Match[str]) -> bool:
    """Whether a denominator read after *q* belongs to something else: 1500 套每套 58.6 元
    (每套 is the next figure's), "seed 42 一回のみ" (once, in Japanese: no per)."""
    if "每" in after.group(0) and _FIGURE_NEXT.match(text, after.end()):
        return True
    return (
        not q.unit
        and after.group(0).strip().startswith("一")
        and _JA_AFTER_ONE.match(text, after.end()) is not None
    )


#: A Japanese particle after 一 and its counter: 一回のみ, 一回だけ is "only once".
_JA_AFTER_ONE = re.compile(r"(?:のみ|だけ|しか|きり|ずつ|目)")
#: Units a snake_case key writes in lower case whose case tells nothing apart
#: (pv_kwh, battery_mah): each as it is written after a figure.
_KEY_CASED = {
    "kwh": "kWh",
    "mwh": "MWh",
    "gwh": "GWh",
    "wh": "Wh",
    "kw": "kW",
    "mah": "mAh",
    "kva": "kVA",
    "khz": "kHz",
    "mhz": "MHz",
    "ghz": "GHz",
    "hz": "Hz",
}
#: What parts the notes of one bracket: 税込・円, 含税，元, USD, excl. VAT.
_NOTE_PARTS = re.compile(r"[・·、，,;；]")
#: Where a header's words part: price_eur, Weight kg, fuel-cost/EUR.
_HEAD_WORDS = re.compile(r"[_\s/-]+")


def _has_digit(cell: str) -> bool:
    return any(ch.isdigit() for ch in cell)


#: A header that ends in a per cent sign after its word ("収率_%", "yield %", "hit%"); not
#: "mol%", whose figures are of a mole fraction, a unit of its own.
_PERCENT_HEAD = re.compile(r"(?:^|[_\s-]|[^\x00-\x7f])%\s*$|^(?!(?i:mol|wt|vol)%)[A-Za-z]{2,}%\s*$")


@functools.lru_cache(maxsize=1024)
def _header_unit(cell: str) -> _Unit | None:
    """The unit a column header gives its figures: written in parentheses (金額(円),
    Weight (kg)), as its last word (price_eur, moisture_pct, km) or, in Chinese and
    Japanese, as its last characters (月租元, 通勤分钟, 容量kW; 保証年数 counts years). Only units of measure and
    currencies count, not counters; a word with a digit in it (total_3y) is none."""
    head = _HEADED.match(cell)
    if head:
        return _unit_of(head.group(1))
    if _PERCENT_HEAD.search(cell):
        return _unit_of("%")  # 収率_%, yield%: a column of percentages
    sign = _SIGN_HEAD.search(cell)
    if sign:
        got = _unit_of(sign.group(1))  # "Unit $", "Ext £": a currency's sign as the last word
        return got if got and got[0] in _CURRENCIES else None
    if cell.isascii():
        whole = _unit_of(cell.strip()) if "/" in cell and len(cell.strip()) <= 12 else None
        if whole and whole[1] == HARD:
            return whole  # req/s, km/h: a rate is the header's whole
        words = _HEAD_WORDS.split(cell.strip())
        per = _HEAD_PER_WORD.search(cell)
        if per and per.start():
            # price_gbp_per_kg, cost EUR per box: the unit before "per", not the one after
            words = _HEAD_WORDS.split(cell[: per.start()].strip())
        last = words[-1]
        if not last.isalpha() or len(last) > 12:
            return None
        got = _unit_of(last) or _unit_of(_KEY_CASED.get(last.lower(), ""))
        if got is None and len(last) == 3:
            # diesel_ngn, total_kes: a currency's code in lower case
            code = _unit_of(last.upper())
            got = code if code and code[0] in _CURRENCIES else None
        if got is None and len(words) > 1 and not any(w.lower() in _RATE_WORDS for w in words):
            # km_round, tonnes_moved: the unit first, then what was measured
            first = _unit_of(words[0]) if words[0].isalpha() else None
            got = first if first and first[0] not in _CURRENCIES else None
        return got if got and got[1] == HARD else None
    cell = cell.strip()
    latin = _LATIN_TAIL.search(cell)
    if latin and latin.start() and not cell[latin.start() - 1].isascii():
        got = _unit_of(latin.group(0))  # 容量kW, 距離km: a unit after the header's word
        return got if got and got[1] == HARD else None
    return _cjk_tail_unit(cell)


def _cjk_tail_unit(cell: str) -> _Unit | None:
    """The unit a Chinese or Japanese header's last characters name (月租元, 通勤分钟)."""
    if cell.endswith("年数"):
        cell = cell[:-1]  # 保証年数: a number of years
    for n in (3, 2, 1):
        tail = cell[-n:]
        if n == 1 and tail == "成":
            continue  # 提成, 達成: a commission, an achievement; no tenths
        if len(tail) == n and all(is_han(c) or is_kana(c) for c in tail):
            got = _unit_of(tail)
            if got and got[1] == HARD:
                return got
    return None


_LATIN_TAIL = re.compile(r"[A-Za-z%°]{1,5}$")
#: A header's word, then a currency's sign as a word of its own: "Unit $", "Ext £".
_SIGN_HEAD = re.compile(r"\w[ \t_]{1,4}([^\w\s]{1,2})[ \t]{0,4}$")
#: Words of a header that make its first word what is priced, not the column's unit
#: (kg_price is money for a kilogram).
_RATE_WORDS = frozenset(
    {"price", "cost", "rate", "fee", "per", "each", "unit", "avg", "average", "max", "min"}
)
#: "per" and what a header's figures are a rate of: price_gbp_per_kg, fee per_box.
_HEAD_PER_WORD = re.compile(r"(?i)[_\s/-]per[_\s-]+(?P<d>[a-z]+)\s*$")


#: A comma-separated row (CSV): cells part at a comma that no space follows, so "1,284"
#: inside a quoted cell or a sentence's "a, b" is not read as one.
_CSV_GAP = re.compile(r"[,，](?! )")


def _cells(line: str, csv: bool = False) -> list[str]:
    if csv and '"' in line:
        return _csv_cells(line.strip())  # "p50 (ms)", "11,862.35": a quoted cell whole
    if csv:
        return [c.strip() for c in _CSV_GAP.split(line.strip())]
    return [c for c in _CELL_GAP.split(line.strip()) if c]


def _is_csv(lines: list[str]) -> bool:
    """Whether a block of lines is CSV: a header and rows with one count of cells (two and
    more), and no aligned or ruled cells."""
    rows = [ln for ln in lines if ln.strip()]
    if len(rows) < 2 or any(_CELL_GAP.search(ln.strip()) for ln in rows[:2]):
        return False
    width = len(_cells(rows[0], csv=True))
    return width >= 2 and len(_cells(rows[1], csv=True)) == width


def _figure_cell(cell: str) -> bool:
    """A cell that is a bare figure: a row holding one is data, never a header."""
    if _HEADED.match(cell.strip()):
        return False  # 近3单实际交期(天): a header that names its unit, a digit or not
    got = scan(cell)
    return len(got) == 1 and got[0].kind in (NUMBER, RANGE) and not got[0].unit


def _table_lines(text: str) -> Iterator[str]:
    """The lines of a table that carry words or figures: the rows that only draw it part
    nothing, and a header keeps its columns across them. A file read's line numbers
    ("     2→…", "00002| …") and a host's "Output: " label are no cell of it."""
    for line in text.split("\n"):
        line = _OUTPUT_LABEL.sub("", _LINE_NUMBER.sub("", line, count=1), count=1)
        if line.strip() and _RULE_ROW.match(line):
            continue
        yield line


#: A line number a file read puts before each line: Claude Code's "     2→", opencode's
#: "00002| ", cat -n's "     2\t".
_LINE_NUMBER = re.compile(r"^[ \t]*\d{1,6}(?:→|\| |\t)")
#: The label a host writes before a command's output, on its first line ("Output: 圃場
#: 俵数 …" in Gemini CLI's shell results): no cell, and the columns below start where it ends.
_OUTPUT_LABEL = re.compile(r"^(?:Output|Stdout|stdout|STDOUT):[ \t]")


def _display_starts(
    line: str, sep: re.Pattern[str], wide: Callable[[str], int] | None = None
) -> list[tuple[int, int]]:
    """Each cell of a space-aligned row as (first, last) display columns, a Chinese or
    Japanese character two columns wide, as a terminal lays it out (with *wide* ``len``,
    one column each, as a program that pads by characters lays it out)."""
    wide = wide or _wide
    out: list[tuple[int, int]] = []
    col, pos = 0, 0
    for m in [*sep.finditer(line), None]:
        end = m.start() if m else len(line)
        cell = line[pos:end]
        width = wide(cell)
        if cell.strip():
            out.append((col, col + width))
        col += width
        if m:
            col += wide(m.group(0))
            pos = m.end()
    return out


def _row_under(header: str, row: str) -> list[int]:
    """The header each cell of a space-aligned *row* stands under: read by terminal columns
    and by characters (a script pads 見込み額(円) by its characters, not its width), the
    reading whose cells overlap their headers the more."""
    best: list[int] = []
    score = -1.0
    for wide in (_wide, len):
        heads, cells = (
            _display_starts(header, _SPACE_GAP, wide),
            _display_starts(row, _SPACE_GAP, wide),
        )
        under = _under_headers(heads, cells)
        fit = sum(
            _overlap(heads, k, a, b) / max(1, b - a) for k, (a, b) in zip(under, cells, strict=True)
        )
        if fit > score:
            best, score = under, fit
    return best


def _overlap(heads: list[tuple[int, int]], k: int, a: int, b: int) -> int:
    if k < 0:
        return 0
    ha, hb = heads[k][0], heads[k][1]
    return max(0, min(b, hb) - max(a, ha))


def _wide(text: str) -> int:
    """How many terminal columns *text* takes: a wide (Chinese, Japanese) character two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _under_headers(heads: list[tuple[int, int]], cells: list[tuple[int, int]]) -> list[int]:
    """The header each cell of a row stands under, by display columns: the one its span
    overlaps most (-1 when none)."""
    out = []
    for a, b in cells:
        best, most = -1, 0
        for k, (ha, _hb) in enumerate(heads):
            hb = heads[k + 1][0] if k + 1 < len(heads) else 10**6
            overlap = min(b, hb) - max(a, ha)
            if overlap > most:
                best, most = k, overlap
        out.append(best)
    return out


_CSV_COMMA = re.compile(r",(?! )")


#: A cell that is a figure: 284, 92.5, 6.2%, -3, 1,280.
_FIGURE_CELL = re.compile(r"[-+]?\d[\d,]{0,20}(?:\.\d{1,12})?%?")


def _spaced_rows(lines: Sequence[str]) -> set[int]:
    """The lines of a table whose columns a single space parts (a score list printed by a
    script: ``1 03 刘佳怡 95 92 97 284``): three lines and more in a row of the same four
    words and more, two of them at least half figures. Each line is read once."""
    out: set[int] = set()
    i = 0
    while i < len(lines):
        width = len(lines[i].split())
        j = i
        while j < len(lines) and width >= 4 and len(lines[j].split()) == width:
            j += 1
        figured = sum(
            2 * sum(bool(_FIGURE_CELL.fullmatch(w)) for w in lines[k].split()) >= width
            for k in range(i, j)
        )
        if j - i >= 3 and figured >= 2:
            out.update(range(i, j))
        i = max(j, i + 1)
    return out


def cell_figures(text: str) -> list[Quantity]:
    """The figures of a table's cells, each read on its own: a CSV row "2026-11,8,240,103"
    gives 8, 240 and 103 (read as one line it is also 8,240,103). Only bare numbers: a
    cell's date, money or unit is read with the line already."""
    if "\n" not in text or ("," not in text and "\t" not in text and "|" not in text):
        return []
    out: list[Quantity] = []
    for block in table_cells(text)[0]:
        for row in block:
            for cell in row:
                if not cell or len(cell) > 24 or not any(ch.isdigit() for ch in cell):
                    continue
                got = scan(cell)
                # a cell that is one figure, whole (55, 720ml, 1,500円): read on its own
                whole = len(got) == 1 and got[0].end - got[0].start >= len(cell.strip()) - 1
                if whole and got[0].kind == NUMBER and got[0].value is not None:
                    out.append(got[0])
    return out


def _csv_cells(line: str) -> list[str]:
    """The cells of a CSV line, a quoted cell whole ("11,862.35" is one figure)."""
    if '"' not in line:
        return [c.strip() for c in _CSV_COMMA.split(line)]
    try:
        row = next(csv.reader([line]))
    except (csv.Error, StopIteration):
        return [c.strip() for c in _CSV_COMMA.split(line)]
    return [c.strip() for c in row]


def table_cells(text: str) -> tuple[list[list[list[str]]], list[str]]:
    """The tables of *text*, each a list of rows of cells, and the lines outside them. A
    table is two lines and more in a row that part into the same number of cells (three
    and more at commas with no space after them: CSV), or into two and more at a tab, a
    wide gap or a ruled ``|`` (aligned, Markdown and box-drawn tables; the rows that only
    draw the table are left out), or at single spaces in rows of figures alike
    (:func:`_spaced_rows`)."""
    tables: list[list[list[str]]] = []
    outside: list[str] = []
    block: list[list[str]] = []
    lines: list[str] = []
    width = 0
    ruled = False

    def close() -> None:
        if len(block) >= 2:
            tables.append(list(block))
        else:
            outside.extend(lines)
        block.clear()
        lines.clear()

    all_lines = text.split("\n")
    spaced = _spaced_rows(all_lines)
    for n, line in enumerate(all_lines):
        stripped = line.strip()
        if stripped and _RULE_ROW.match(stripped):
            continue
        if n in spaced and not _CELL_GAP.search(stripped):
            cells = stripped.split()
        elif _CELL_GAP.search(stripped):
            cells = [c for c in _CELL_GAP.split(stripped) if c]
        elif "," in stripped and not _NOT_GROUP_COMMA.search(stripped):
            cells = [stripped]  # "A重油　3,400 L　118円　401,200円": its commas group digits
        else:
            cells = _csv_cells(stripped)
            if len(cells) < 3:
                cells = [stripped]
        if len(cells) < 2:
            close()
            outside.append(line)
            width = 0
            continue
        piped = "|" in stripped
        if block and len(cells) != width and (not _CELL_GAP.search(stripped) or piped != ruled):
            close()  # another count of cells, parted another way: a title over a ruled table
        width, ruled = len(cells), piped
        block.append(cells)
        lines.append(line)
    close()
    return tables, outside


#: A figure under a key that names its unit by its last word: "total_eur": 914.14,
#: due_days = 45, timeout-ms: 300 (JSON, YAML, TOML, env).
#: A key that makes its value a rate: rate_jpy, unit_price_gbp, price_per_kg_eur.
_RATE_KEY = re.compile(r"(?i)(?:^|[\"'_-])(?:rate|unit[_-]?price|per)(?:[_-]|$)")
_KEYED = re.compile(
    r"[\"']?[A-Za-z][A-Za-z0-9]{0,30}(?:[_-][A-Za-z0-9]{1,30}){0,4}[_-](?P<u>[A-Za-z]{1,12})[\"']?"
    r"[ \t]{0,4}[:=][ \t]{0,4}[\"']?(?P<v>-?\d[\d,]{0,20}(?:\.\d{1,12})?)(?![\w.])"
)

#: A key that names its unit in brackets, as a column header does: 未収合計(円): 17010,
#: 未收合计（元）：17010.30, Total (EUR): 12.50.
_KEYED_HEADED = re.compile(
    r"(?P<u>[^\s:：()（）]{1,20}[ \t]?[(（][^()（）0-9\n]{1,12}[)）])"
    r"[ \t]{0,4}[:：][ \t]{0,4}(?P<v>-?\d[\d,]{0,20}(?:\.\d{1,12})?)(?![\w.])"
)

#: Where a sentence ends, for figures that share a unit inside one.
_SHARED_STOP = re.compile(r"[。！？!?\n]|\.(?=\s|$)")


def units_shared(text: str) -> list[Quantity]:
    """A bare figure written beside a figure of the same size with a unit, in one sentence
    and a few words apart ("48000じゃなくて…32,000円", "from 19 to $24", "4888 → 4588元"):
    the person gives the unit once for both. Only where the sentence has one unit."""
    found = scan(text)
    if len(found) < 2:
        return []
    out: list[Quantity] = []
    stops = [m.start() for m in _SHARED_STOP.finditer(scanned_text(text))]
    sentence = [bisect.bisect_right(stops, q.start) for q in found]
    for i, q in enumerate(found):
        if q.kind != NUMBER or q.unit or q.value is None or not q.value:
            continue
        near = [
            e
            for j in range(max(0, i - 3), min(len(found), i + 4))  # its neighbours only
            if j != i
            and (e := found[j])
            and sentence[j] == sentence[i]
            and e.kind == NUMBER
            and e.unit
            and e.value
            and min(abs(e.start - q.end), abs(q.start - e.end)) <= 30
        ]
        units = {e.unit for e in near}
        if len(units) != 1:
            continue
        e = near[0]
        if e.value and Decimal("0.1") <= abs(q.value / e.value) <= Decimal(10):
            out.append(replace(q, unit=e.unit, uclass=e.uclass, canon=f"{e.unit} {_show(q.value)}"))
    return out


def keyed_units(text: str) -> list[Quantity]:
    """The figures of ``key: value`` lines whose key ends in a unit (total_eur, due_days,
    size_gb), with that unit: what a column header is to a table."""
    if ":" not in text and "=" not in text and "：" not in text:
        return []
    out = []
    for m in itertools.chain(_KEYED.finditer(text), _KEYED_HEADED.finditer(text)):
        unit = _header_unit(m.group("u"))
        if unit is None:
            continue
        for q in scan(m.group("v")):
            if q.kind == NUMBER and not q.unit and q.value is not None:
                if unit.scale != 1:  # amount_k_jpy-style keys: the key's magnitude applies
                    q = replace(q, value=q.value * unit.scale, canon=_show(q.value * unit.scale))
                at = m.start("v")
                per = SOME_RATE if _RATE_KEY.search(m.group(0)[: m.start("v") - m.start()]) else ""
                out.append(
                    replace(
                        q, unit=unit[0], uclass=unit[1], start=q.start + at, end=q.end + at, per=per
                    )
                )
    return out


#: 一 before a counter: "one" of it (早晚各一次, 一件あたり, 一回だけ).
_ONE_BEFORE_COUNTER = re.compile(r"一(?=[\u3040-\u30ff\u4e00-\u9fff])")


def ones_counted(text: str) -> list[Quantity]:
    """The figures 1 that 一 before a counter writes (早晚各一次 is 1次). The scanner leaves
    a lone 一 alone, since it is "a" or "one" in a thousand words (一定, 一起, 统一); as
    evidence it still vouches a model's 1次 -- and only vouches: it is never a figure a
    candidate must account for."""
    if "一" not in text:
        return []
    text = scanned_text(text)
    at = [
        m.start()
        for m in _ONE_BEFORE_COUNTER.finditer(text)
        if not (m.start() and (text[m.start() - 1] in _NOT_ONE or text[m.start() - 1] in _CJK_ALL))
        and cjk_unit(text, m.start() + 1) is not None
    ]
    if not at:
        return []
    chars = list(text)
    for i in at:
        chars[i] = "1"
    marked = set(at)
    return [q for q in scan("".join(chars)) if q.start in marked and q.unit]


#: A unit written before its figure, as tool output and logs do ("at km 61.2", "kg 12.5").
_UNIT_FIRST = re.compile(r"(?<![\w.-])([A-Za-z]{2,6})[ \t]+$")
#: The same, as evidence: a command's flag or a key before its value ("--years 3",
#: "weight_kg: 12.5") says what the value is in.
_UNIT_FIRST_EVIDENCE = re.compile(r"(?<![A-Za-z])([A-Za-z]{2,9})[ \t]*[:=]?[ \t]*$")
#: Units of time: "month 3", "day 12" in a model's sentence count a period's place.
_TIME_UNITS = frozenset({"s", "ms", "min", "h", "day", "week", "month", "year", "night"})
#: Words that are a unit after a figure and something else before one ("in 5 days",
#: "min 3" for a minimum).
_NOT_UNIT_FIRST = frozenset({"in", "min", "sec", "at", "pt", "ct"})


def with_units_first(text: str) -> list[Quantity]:
    """:func:`scan`, with a bare figure read with the unit of length, mass, volume or data
    written just before it ("at mile 61.2" is 61.2 miles): what a model writes that way
    must be vouched as that quantity."""
    found = list(scan(text))
    ahead = {q.start: q for q in units_first(text, as_evidence=False)}
    return [
        ahead.get(q.start, q) if not q.unit else q
        for i, q in enumerate(found)
        if not _rate_one(q, found[i + 1] if i + 1 < len(found) else None, text)
    ]


def _rate_one(q: Quantity, nxt: Quantity | None, text: str) -> bool:
    """Whether *q* is the "1" of a rate the next figure gives (1泊9500円, 1人3000円): it
    names what the price is of, and is no figure of its own."""
    if q.kind != NUMBER or q.unit or q.value != 1 or nxt is None or not nxt.per:
        return False
    between = text[q.end : nxt.start].strip()
    return 0 < len(between) <= 4 and not any(ch.isdigit() for ch in between)


def units_first(text: str, *, as_evidence: bool = True) -> list[Quantity]:
    """The bare figures of *text* read with a measuring unit written just before them
    ("max grade at km 61.2" is 61.2 km; as evidence also a flag or a key: "--years 3", and
    a label padded to the figure's column: "TOTAL USD      2,563.36").
    A unit that only counts things (page, item) or a word that is also a preposition
    ("in 5") is not read this way."""
    out = []
    read = scanned_text(text)
    before = _UNIT_FIRST_EVIDENCE if as_evidence else _UNIT_FIRST
    for q in scan(text):
        if q.kind != NUMBER or q.unit or q.value is None:
            continue
        at = q.start
        while as_evidence and at > 0 and q.start - at < 80 and read[at - 1] in " \t":
            at -= 1  # "TOTAL USD          2,563.36": a label padded to its column
        m = before.search(read, max(0, at - 12), at)
        if m is None or m.group(1).lower() in _NOT_UNIT_FIRST:
            continue
        probe = scan(f"{q.text} {m.group(1)}")
        if (
            len(probe) == 1
            and probe[0].uclass == HARD
            and (as_evidence or probe[0].unit not in _TIME_UNITS)
            and probe[0].end == len(probe[0].text)
        ):
            out.append(replace(q, unit=probe[0].unit, uclass=HARD))
    return out


#: A version glued to the name of what it versions: py3.10, node20, go1.22.
_GLUED_VERSION = re.compile(
    r"(?<![A-Za-z0-9])([A-Za-z]{1,7})(\d{1,3}(?:\.\d{1,3}){0,2})(?![\d.]\d)"
)


def glued_versions(text: str) -> list[Quantity]:
    """The versions a runtime's name carries glued to it (py3.10+, node20, pg16): as
    evidence, the figure of the version. Only for the names of ``version_prefixes``:
    digits glued to any other word are an identifier's, and give no figure."""
    out: list[Quantity] = []
    names = lexicon.words("version_prefixes")
    for m in _GLUED_VERSION.finditer(text):
        if m.group(1).lower() in names:
            out.extend(
                replace(q, start=q.start + m.start(2), end=q.end + m.start(2))
                for q in scan(m.group(2))
            )
    for m in _FILE_VERSION.finditer(text):
        # help_center_v3.docx, release_notes_2.4.md: the version a file's name gives
        out.extend(
            replace(q, start=m.start(1), end=m.end(1))
            for q in scan(f"v{m.group(1)}")
            if q.kind == VERSION
        )
    return out


def file_dates(text: str) -> list[Quantity]:
    """The month or the day a file's name gives (2026-08.pdf, report_2026-08-15.csv): a
    date the evidence writes, which vouches a date, never a count (its year is no figure)."""
    if "." not in text:
        return []
    return [
        replace(q, start=m.start(1), end=m.end(1))
        for m in _FILE_DATE.finditer(text)
        for q in scan(m.group(1))
        if q.kind == DATE
    ]


#: An ISO date or month in a file's name, before its extension or a part after it.
_FILE_DATE = re.compile(
    r"(?<![\d-])((?:19|20)\d\d-[01]\d(?:-[0-3]\d)?)(?=(?:[_-][A-Za-z0-9-]{0,16})?\.[A-Za-z]{1,5}\b)"
)


#: A version at the end of a file's name, before its extension: _v3.docx, -2.4.md, _v1.2-final.pdf.
_FILE_VERSION = re.compile(
    r"(?<=[_-])[vV]?(\d{1,4}(?:\.\d{1,4}){0,3})(?=(?:[_-][A-Za-z][A-Za-z0-9-]{0,12})?\.[A-Za-z]{1,5}\b)"
)


#: A clock time with its half of the day, then a bare hour it is set against: "5pm not
#: 6", "9am or 10", "from 3pm to 5".
_MERIDIEM_PAIR = re.compile(
    r"(?i)(?<![\d:])\d{1,2}(?::\d{2})?[ \t]?(?P<m>am|pm|a\.m\.|p\.m\.)(?![a-z])"
    r"[ \t,]{0,3}(?:not|or|to|and|instead[ \t]+of|rather[ \t]+than|-|–)[ \t]+"
    r"(?P<h>\d{1,2}(?::\d{2})?)(?![\d:.])(?![ \t]?(?:am|pm|a\.m|p\.m|%|[a-z]))"
)


def meridiem_carried(text: str) -> list[Quantity]:
    """A bare hour set against a clock time that names its half of the day takes that
    half: "make it 5pm not 6" gives 6pm as well as 5pm. Only as evidence."""
    out: list[Quantity] = []
    for m in _MERIDIEM_PAIR.finditer(text):
        probe = scan(f"{m.group('h')}{m.group('m')}")
        if len(probe) == 1 and probe[0].kind == TIME:
            out.append(replace(probe[0], start=m.start("h"), end=m.end("h")))
    return out


_PLAIN_FIGURE = re.compile(r"[ \t]*\d{1,12}(?:\.\d{1,6})?[ \t]*")
_UNIT_CELL = re.compile(r"[ \t]*[^\d\s,\t|]{1,12}[ \t]*")


#: A month as the sentence's topic, then its day: 11月は23日(月)が休み, 12月の5日.
_MONTH_THEN_DAY = re.compile(r"(?<!\d)(\d{1,2})月(?:は|の|も|、|,)[ \t]?(\d{1,2})日")


def month_then_day(text: str) -> list[Quantity]:
    """The date a month and a day of it make when a particle parts them (11月は23日 is
    the 23rd of November)."""
    if "月" not in text:
        return []
    out: list[Quantity] = []
    for m in _MONTH_THEN_DAY.finditer(text):
        got = scan(f"{m.group(1)}月{m.group(2)}日")
        if len(got) == 1 and got[0].kind == DATE:
            out.append(replace(got[0], start=m.start(), end=m.end()))
    return out


def cell_units(text: str) -> list[Quantity]:
    """A bare figure of a CSV, TSV or Markdown row whose next cell is its unit (…,25,斤,375,…,
    qty,unit columns, | 30 | litres |): the figure with that unit, as the row means it."""
    if "," not in text and "\t" not in text and "|" not in text:
        return []
    out: list[Quantity] = []
    pos = 0
    for line in text.split("\n"):
        base = pos
        pos += len(line) + 1
        sep = (
            "\t"
            if line.count("\t") >= 2
            else "|"
            if line.count("|") >= 3
            else ","
            if line.count(",") >= 2
            else ""
        )
        if not sep:
            continue
        cells = line.split(sep)
        at = 0
        for cell, nxt in zip(cells, cells[1:], strict=False):
            if _PLAIN_FIGURE.fullmatch(cell) and _UNIT_CELL.fullmatch(nxt):
                got = scan(cell.strip() + nxt.strip())
                if len(got) == 1 and got[0].kind == NUMBER and got[0].unit:
                    out.append(replace(got[0], start=base + at, end=base + at + len(cell)))
            at += len(cell) + 1
    return out


def _row_currency(
    cells: list[str],
    units: list[_Unit | None],
    periods: list[str],
    money_at: tuple[int, frozenset[int], frozenset[int]],
) -> tuple[list[_Unit | None], list[str]]:
    """A row's own currency cell gives its money columns their unit (rate, est_cost beside
    currency = USD: 0.09 under rate is 0.09 USD in that row), a rate column a rate."""
    cur = _unit_of(cells[money_at[0]].strip()) if money_at[0] < len(cells) else None
    if cur is None or cur[1] != HARD:
        return units, periods
    return (
        [cur if k in money_at[1] and u is None else u for k, u in enumerate(units)],
        [SOME_RATE if k in money_at[2] and not per else per for k, per in enumerate(periods)],
    )


def _cells_with_units(
    cells: list[str],
    units: list[_Unit | None],
    periods: list[str],
    bases: Sequence[str] = (),
) -> list[Quantity]:
    """The bare figures of a row's cells with the units their columns give them (1-2 under
    时效(天) is 1-2 days, as 13 under 首重(元) is 13元), and the tax a money column's header
    says is in them (1650 under 税込価格(円))."""
    out: list[Quantity] = []
    for n, (cell, unit, per) in enumerate(zip(cells, units, periods, strict=False)):
        if unit is None:
            continue
        basis = bases[n] if n < len(bases) and unit[0] in _CURRENCIES else ""
        for q in scan(cell):
            if q.kind in (NUMBER, RANGE) and not q.unit and q.value is not None:
                value = q.value * unit.scale
                if unit.scale != 1:
                    # 45,600 under 金額（千円）: 45,600,000円, its figure as written no more
                    q = replace(
                        q,
                        value=value,
                        high=None if q.high is None else q.high * unit.scale,
                        canon=_show(value),
                    )
                canon = (
                    f"{_show(value)}-{_show(q.high)}{unit[0]}" if q.high is not None else q.canon
                )
                out.append(
                    replace(
                        q, unit=unit[0], uclass=unit[1], per=per or q.per, canon=canon, basis=basis
                    )
                )
    return out


def _column_basis(header: str) -> str:
    """The tax a column's header says is in its amounts (税込価格(円), 含税金额): "incl",
    "excl" or ""."""
    m = _TAX_WORD.search(header)
    return "" if m is None else "incl" if m.group("incl") else "excl"


def header_units(text: str) -> list[Quantity]:
    """The bare figures of a table with the unit its column header gives them ("金額(円)"
    over "1,284,600" vouches 1,284,600円), or that a declaration above the table gives
    every figure below it ("（単位：円）"). A figure in another column keeps no unit."""
    if "\n" not in text:
        return []  # a table has a header line and rows
    out: list[Quantity] = []
    columns: list[_Unit | None] = []
    bases: list[str] = []
    pers: list[str] = []
    declared: _Unit | None = None
    said = _DECLARED_EN.search(text)
    if said:  # "All amounts AUD.", "Prices in NZD excl. GST": every bare figure's currency
        declared = _unit_of(said.group(1).upper())
    lines = list(_table_lines(text))
    csv = False
    money_at: tuple[int, frozenset[int], frozenset[int]] | None = None
    head_cols: list[tuple[int, int]] = []
    header = ""
    bounds: tuple[int, int] | None = None
    unit_col = -1
    for n, line in enumerate(lines):
        if not columns and not csv:
            csv = _is_csv(lines[n : n + 2])
        cells = _cells(line, csv)
        if not line.strip():
            csv = False
            continue
        decl = _DECLARED.search(line) or _TITLE_UNIT.search(line)
        if decl and len(cells) <= 1 and (unit := _unit_of(decl.group(1))) and unit[1] == HARD:
            declared = unit  # （単位：円）, or a title's own: 2026年12月 工资表（元）
            columns = []
            continue
        if len(cells) >= 2 and not any(_figure_cell(c) for c in cells if _has_digit(c)):
            heads = [_header_unit(c) for c in cells]
            named = _currency_columns(cells)
            unit_at = next(
                (k for k, c in enumerate(cells) if _UNIT_COLUMN.fullmatch(c.strip())), -1
            )
            if any(heads) or named or unit_at >= 0:
                columns = heads
                unit_col = unit_at
                bases = [_column_basis(c) for c in cells]
                head_cols = (
                    _display_starts(line, _SPACE_GAP) if not csv and "\t" not in line else []
                )
                if len(head_cols) != len(cells):
                    head_cols = []
                header = line
                pers = [_header_per(c) if h else "" for c, h in zip(cells, heads, strict=True)]
                money_at = named
                bounds = _bound_columns(cells, heads)
                continue
        # a row of a tab or comma table may end in empty cells ("白萝卜\t120\t"): its
        # cells still stand under the headers from the left
        aligned = bool(columns) and (
            len(cells) == len(columns) or (len(cells) < len(columns) and ("\t" in line or csv))
        )
        units = (
            [u if u is not None else declared for u in columns[: len(cells)]]
            if aligned
            else [declared] * len(cells)
        )
        periods = pers[: len(cells)] if aligned else [""] * len(cells)
        if columns and not aligned and not csv and head_cols and "\t" not in line:
            # a space-aligned row with an empty cell: each cell goes under the header its
            # columns stand under ("2250.00" under 收入(元), the 支出 cell left blank)
            under = _row_under(header, line)
            if len(under) == len(cells):
                units = [(columns[k] or declared) if k >= 0 else None for k in under]
                periods = [pers[k] if k >= 0 else "" for k in under]
        if aligned and money_at:
            units, periods = _row_currency(cells, units, periods, money_at)
        if aligned and unit_col >= 0:
            units = _row_unit(cells, units, unit_col)
        out += _cells_with_units(cells, units, periods, bases[: len(cells)] if aligned else [])
        if aligned and bounds:
            out += _row_span(cells, units, bounds)
    return out


#: A column header that names a lower or an upper bound: 最低, 最小, 下限, min, low, from.
_LOW_HEAD = re.compile(r"(?i)最低|最小|下限|\bmin(?:imum)?\b|\blow(?:est)?\b|^from\b")
_HIGH_HEAD = re.compile(r"(?i)最高|最大|上限|\bmax(?:imum)?\b|\bhigh(?:est)?\b|^to\b")


def _bound_columns(cells: list[str], heads: list[_Unit | None]) -> tuple[int, int] | None:
    """The columns of a header that hold a row's lower and upper bound, of one unit
    (最低品温(℃) and 最高品温(℃)): a row's two cells there make its span."""
    low = [k for k, c in enumerate(cells) if heads[k] and _LOW_HEAD.search(c.replace("_", " "))]
    high = [k for k, c in enumerate(cells) if heads[k] and _HIGH_HEAD.search(c.replace("_", " "))]
    if len(low) == 1 and len(high) == 1 and heads[low[0]] == heads[high[0]]:
        return low[0], high[0]
    return None


def _row_span(
    cells: list[str], units: list[_Unit | None], bounds: tuple[int, int]
) -> list[Quantity]:
    """The span a row's bound cells make (7.9 and 12.1 under 最低 and 最高品温(℃) are
    7.9-12.1℃)."""
    lo_at, hi_at = bounds
    if hi_at >= len(cells) or lo_at >= len(cells) or units[lo_at] is None:
        return []
    lo = [q for q in scan(cells[lo_at]) if q.kind == NUMBER and q.value is not None]
    hi = [q for q in scan(cells[hi_at]) if q.kind == NUMBER and q.value is not None]
    if len(lo) != 1 or len(hi) != 1 or lo[0].value is None or hi[0].value is None:
        return []
    unit = units[lo_at]
    a, b = lo[0].value, hi[0].value
    if unit is None or b < a:
        return []
    text = f"{_show(a)}-{_show(b)}"
    return [
        Quantity(
            RANGE, text, f"{text}{unit[0]}", 0, 0, value=a, high=b, unit=unit[0], uclass=unit[1]
        )
    ]


#: A column that names each row's currency, and the columns that hold money.
_CURRENCY_HEAD = re.compile(r"(?i)^(?:currency|ccy|cur|币种|货币|幣別|通貨)$")
_MONEY_HEAD = re.compile(
    r"(?i)rate|cost|price|amount|fee|total|paid|due|budget|单价|金额|费用|總額|总额|料金|金額|単価|費用"
)


_RATE_HEAD = re.compile(r"(?i)rate|unit[ _]?price|单价|単価|每")


#: A header's column of units: 单位, 単位, unit, UoM.
_UNIT_COLUMN = re.compile(r"(?i)units?|uom|単位|单位|單位")


def _row_unit(cells: list[str], units: list[_Unit | None], at: int) -> list[_Unit | None]:
    """A row's own unit cell (厘米 under 单位, kg under 単位) gives the bare figures right
    before it their unit: 胸围,腰围,…,单位 over 84,67,…,厘米 is 84厘米; a column after it
    (単価) is not measured in it, nor a number left of a name (序号)."""
    if at >= len(cells):
        return units
    unit = _unit_of(cells[at].strip())
    if unit is None or unit.scale != 1:
        return units
    out = list(units)
    k = at - 1
    while k >= 0 and _figure_cell(cells[k]):
        if out[k] is None:
            out[k] = unit
        k -= 1
    return out


def _currency_columns(cells: list[str]) -> tuple[int, frozenset[int], frozenset[int]] | None:
    """Where a header names the rows' currency, and which of its columns hold money."""
    at = next((k for k, c in enumerate(cells) if _CURRENCY_HEAD.match(c.strip())), -1)
    if at < 0:
        return None
    money = frozenset(k for k, c in enumerate(cells) if k != at and _MONEY_HEAD.search(c))
    # a rate column is a price of each of something the row names in its own words
    rates = frozenset(k for k in money if _RATE_HEAD.search(cells[k]))
    return (at, money, rates) if money else None


#: A column of a rate: 月租元, 月額(円), 時給, monthly_eur, rent_per_month.
_HEAD_PERIOD_CJK = re.compile(
    # 月租, 想定月額, 预计月费: the period and what is paid for it, anywhere in the header
    r"(?P<p>月|年|日|周|週|時|时)(?:租|费|費|薪|額|额|給|给|収|收|付)"
)
_HEAD_PERIOD_EN = re.compile(
    r"(?i)\b(?:(?P<m>monthly|per[ _]month|pm|mo)|(?P<y>annual|yearly|per[ _]year|pa)|"
    r"(?P<d>daily|per[ _]day)|(?P<h>hourly|per[ _]hour))\b"
)
_CJK_PERIODS = {
    "月": "month",
    "年": "year",
    "日": "day",
    "周": "week",
    "週": "week",
    "時": "h",
    "时": "h",
}


def _header_per(cell: str) -> str:
    """The period or the denominator a column header makes its figures a rate of: 月租,
    monthly_eur, 单价(元/斤), 续重(元/kg) ("" when none)."""
    head = _HEADED.match(cell.strip())
    if head and "/" in head.group(1):
        written = head.group(1).strip()
        spaced = " " if written[:1].isascii() and written[:1].isalpha() else ""
        rate = [q for q in scan(f"1{spaced}{written}") if q.start == 0][:1]
        if len(rate) == 1 and rate[0].per:
            return rate[0].per
    m = _HEAD_PERIOD_CJK.search(cell)
    if m:
        return _CJK_PERIODS[m.group("p")]
    per = _HEAD_PER_WORD.search(cell)
    if per and cell.isascii():
        return _per_unit(per.group("d"))  # price_gbp_per_kg: a price of each kilogram
    m = _HEAD_PERIOD_EN.search(cell.replace("_", " "))
    if m:
        return {"m": "month", "y": "year", "d": "day", "h": "h"}[m.lastgroup or "m"]
    return ""


#: "the 16th", "3rd": a day of the month an English text gives by its ordinal.
_DAY_ORDINAL = re.compile(r"(?<![\w.])([1-9]|[12][0-9]|3[01])(?:st|nd|rd|th)(?![A-Za-z])")


def day_ordinals(text: str) -> list[Quantity]:
    """The days of the month *text* gives as English ordinals ("starts on the 16th"): as
    evidence they vouch a day written 16日 or 16号."""
    out: list[Quantity] = []
    for m in _DAY_ORDINAL.finditer(text):
        got = scan(f"{m.group(1)}日")
        out.extend(replace(q, start=m.start(), end=m.end()) for q in got)
    return out


_ORDINAL_DAY_WORDS = {
    w: n
    for n, w in enumerate(
        [
            "first",
            "second",
            "third",
            "fourth",
            "fifth",
            "sixth",
            "seventh",
            "eighth",
            "ninth",
            "tenth",
            "eleventh",
            "twelfth",
            "thirteenth",
            "fourteenth",
            "fifteenth",
            "sixteenth",
            "seventeenth",
            "eighteenth",
            "nineteenth",
            "twentieth",
        ],
        start=1,
    )
}
_ORDINAL_DAY_WORDS.update(
    {f"twenty-{w}": 20 + n for w, n in list(_ORDINAL_DAY_WORDS.items())[:9]}
    | {"thirtieth": 30, "thirty-first": 31}
)
_MONTH_WORD = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_ORDINAL_WORD = r"(?:twenty[- ](?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)|thirty[- ]first|[a-z]+(?:st|nd|rd|th))"
#: A day of a month spelled as an ordinal: "the first of August", "August the twenty-first".
_SPELLED_DAY = re.compile(
    rf"(?i)\bthe[ \t]+(?P<d>{_ORDINAL_WORD})[ \t]+of[ \t]+(?P<m>{_MONTH_WORD})\b"
    rf"|\b(?P<m2>{_MONTH_WORD})[ \t]+(?:the[ \t]+)?(?P<d2>{_ORDINAL_WORD})\b"
)


def spelled_days(text: str) -> list[Quantity]:
    """The dates *text* spells with an ordinal word ("the first of August", "March the
    twenty-first"): as evidence they vouch 1 August and 21 March."""
    out: list[Quantity] = []
    for m in _SPELLED_DAY.finditer(text):
        word = (m.group("d") or m.group("d2")).lower().replace(" ", "-")
        day = _ORDINAL_DAY_WORDS.get(word)
        if day is None:
            continue
        month = m.group("m") or m.group("m2")
        if m.group("m2") and not month[0].isupper():
            continue  # "you may first ask", "march second": a verb, not a month
        got = scan(f"{day} {month}")
        out.extend(replace(q, start=m.start(), end=m.end()) for q in got if q.kind == DATE)
    return out


#: "8,000 to 10,000 yen", 8000到10000: read as a change from one value to another as often
#: as a span (SPEC §5.4: "from X to Y" is a change of two values), so each end stands alone.
_CHANGE_WORD = re.compile(r"(?i)\bto\b|到|至|→|->")


#: "高了1.3个点" beside a percentage: percentage points, as a Chinese speaker says them.
_ZH_POINTS = re.compile(r"(?<![\d.])(\d++(?:\.\d++)?+)个点")


def points_said(text: str) -> list[Quantity]:
    """The percentage points a Chinese sentence gives as 个点 beside a percentage
    (破损率3.4%，比10月高了1.3个点 is 1.3 percentage points)."""
    out: list[Quantity] = []
    for m in _ZH_POINTS.finditer(text):
        sentence = text[max(0, m.start() - 40) : m.end() + 40]
        if "%" not in sentence and "百分" not in sentence:
            continue
        for q in scan(f"{m.group(1)}个百分点"):
            out.append(replace(q, start=m.start(), end=m.end()))
    return out


def at_each(text: str) -> list[Quantity]:
    """An amount written after "@" ("12,000 words @ USD 0.09", "3 x 250g @ £4.20"): the
    price of each of the things counted before it."""
    if "@" not in text:
        return []
    return [
        replace(q, per=EACH)
        for q in scan(text)
        if q.kind == NUMBER
        and q.unit
        and not q.per
        and scanned_text(text)[max(0, q.start - 3) : q.start].strip().endswith("@")
    ]


def changed_ends(text: str) -> list[Quantity]:
    """The two values of each "from X to Y" that a change word before it (bump, raised,
    上げ, 提高; or an arrow between them) makes a change, not a span: it was X, it is Y."""
    out: list[Quantity] = []
    for q in scan(text):
        if q.kind != RANGE or q.value is None or q.high is None:
            continue
        if not _CHANGE_WORD.search(q.text):
            continue
        before = scanned_text(text)[max(0, q.start - 40) : q.start].lower()
        arrow = "→" in q.text or "->" in q.text
        if not arrow and lexicon.search("change_verbs", before) is None:
            continue
        out.extend(
            replace(q, kind=NUMBER, value=v, high=None, canon=f"{_show(v)}{q.unit}")
            for v in (q.value, q.high)
        )
    return out


#: A clock time that only a 24-hour clock writes: 13:10, 21:45, 09:00, 0:30.
_TWENTY_FOUR = re.compile(r"^(?:0\d|1[3-9]|2[0-3]|0)[:：]\d\d")
#: A half of the day named in any of the three languages: a text that names one keeps
#: its clock times open to both halves.
_HALF_NAMED = re.compile(
    r"(?i)(?<![a-z])[ap]\.?m\.?(?![a-z])|午前|午後|上午|下午|中午|早上|晚上|夜里|夜裡|凌晨|傍晚|"
    r"\b(?:morning|afternoon|evening|night|tonight|noon|midnight)\b"
)


def _as_written_on_24_hours(text: str, found: Sequence[Quantity]) -> list[Quantity]:
    """The clock times of an evidence text that keeps a 24-hour clock, each read only as
    written: "10:25 → 13:10" and "09:00-10:00" put 10:25 and 10:00 in the morning, as a
    timetable means them. A text that names a half of the day anywhere, or writes no time
    only a 24-hour clock writes, keeps both readings of 10:00."""
    times = [q for q in found if q.kind == TIME]
    if len(times) < 2 or not any(_TWENTY_FOUR.match(q.text) for q in times):
        return list(found)
    if _HALF_NAMED.search(text):
        return list(found)
    return [
        replace(q, readings=q.readings[:1])
        if q.kind == TIME and len(q.readings) > 1 and q.text[:1].isdigit() and ":" in q.text
        else q
        for q in found
    ]


def _a_year(value: Decimal) -> bool:
    """Whether a bare figure reads as a year of a calendar (1900 to 2199)."""
    return value == value.to_integral_value() and 1900 <= value <= 2199


#: What says which dollar a text's "$" is: the ISO code, the prefixed sign, the name.
_DOLLAR_HINTS = {
    "USD": r"USD|US\$|美元|美金|美区|美國|美国|米ドル|(?<![A-Za-z])US(?![A-Za-z])",
    "CAD": r"CAD|C\$|CA\$|加元|加币|カナダドル",
    "AUD": r"AUD|A\$|AU\$|澳元|澳币|豪ドル",
    "HKD": r"HKD|HK\$|港元|港币|港幣|香港ドル",
    "SGD": r"SGD|S\$|新币|新元|シンガポールドル",
    "NZD": r"NZD|NZ\$|纽币|紐ドル",
    "TWD": r"TWD|NT\$|台币|台幣|新台币",
    "MXN": r"MXN|MX\$|墨西哥比索",
}
_DOLLAR_HINT = re.compile("|".join(f"(?P<{k}>{v})" for k, v in _DOLLAR_HINTS.items()))


def dollars_named(text: str) -> list[Quantity]:
    """The "$" figures of a text that names one dollar only (美区 $14.99 beside USD):
    each as that dollar too, as the text says it."""
    if "$" not in text:
        return []
    named = {m.lastgroup for m in _DOLLAR_HINT.finditer(text)}
    if len(named) != 1:
        return []
    cur = named.pop() or ""
    return [
        replace(q, unit=cur, canon=f"{cur} {_show(q.value)}")
        for q in scan(text)
        if q.kind == NUMBER and q.unit == "$" and q.value is not None
    ]


#: Two small numbers and a slash: a day of a month, or a ratio (READY 6/6), as written.
_SLASHED_PAIR = re.compile(r"\d{1,2}/\d{1,2}")


def _written_alone(written: str, text: str) -> bool:
    """Whether *text* writes *written* as a token of its own (no digit or slash beside)."""
    pos = text.find(written)
    while pos >= 0:
        end = pos + len(written)
        before = text[pos - 1 : pos]
        after = text[end : end + 1]
        if not (before.isdigit() or before == "/" or after.isdigit() or after == "/"):
            return True
        pos = text.find(written, pos + 1)
    return False


#: A fee's word that names its period: 月謝, 月租, 年费, 週給.
_PERIOD_FEE = re.compile(
    r"(?<![\u4e00-\u9fff])(月|年|週|周)(?:謝|租|费|費|会費|会费|薪|給|给|額|额)"
)


def period_named(text: str) -> list[Quantity]:
    """The amounts of a clause that opens with a fee's word naming its period (月謝は中3が
    28,600円: a month's), with that period: what a label's colon would have said."""
    if not _PERIOD_FEE.search(text):
        return []
    read = scanned_text(text)
    out = []
    for q in scan(text):
        if q.kind != NUMBER or q.unit not in _CURRENCIES or q.per or q.value is None:
            continue
        start = max(read.rfind(c, 0, q.start) for c in "。\n！!？?") + 1
        m = _PERIOD_FEE.search(read, max(start, q.start - 40), q.start)
        if m is not None:
            out.append(replace(q, per=_per_unit(m.group(1))))
    return out


def line_items(text: str) -> list[tuple[Decimal, str]]:
    """The price of one counted thing on each line that gives a count, a price and an
    amount the count times the price makes ("46 len $27.36 $1,258.56", "140  4.87  681.80",
    牛肉 12斤 38元 456元), or that multiplies a count by it (64,770単位 × 10.00円): the
    price's value with its denominator (the count's unit, or "each" when it has none). The
    arithmetic says what the line's columns are. (Evidence only: a memory that writes
    "240本×18.50ドル" gives the price no denominator of its own.)"""
    out: list[tuple[Decimal, str]] = []
    read = scanned_text(text)
    for q in scan(text):
        if q.kind == NUMBER and q.unit in _CURRENCIES and not q.per and q.value is not None:
            word = _counted_times(read, q.start)
            if word:
                out.append((q.value, _per_unit(word)))  # 64,770単位 × 10.00円: 10円 a 単位
    for line in text.split("\n"):
        if len(line) > 400 or sum(c.isdigit() for c in line) < 3:
            continue
        found = [q for q in scan(line) if q.kind == NUMBER and q.value is not None]
        if _CSV_GAP.search(line):  # 雫,720,240,18.50,4440.00: a CSV row's cells one by one
            found += [
                q
                for cell in _CSV_GAP.split(line)
                for q in scan(cell)
                if q.kind == NUMBER and q.value is not None
            ]
        for a, b, c in zip(found, found[1:], found[2:], strict=False):
            if a.unit in _CURRENCIES or a.value is None or b.value is None or c.value is None:
                continue
            if a.value <= 1 or b.value <= 0 or a.value != a.value.to_integral_value():
                continue
            if b.unit not in _CURRENCIES and b.unit or c.unit not in _CURRENCIES and c.unit:
                continue
            exp = c.value.as_tuple().exponent
            step = Decimal(1).scaleb(exp if isinstance(exp, int) else 0)
            if abs(a.value * b.value - c.value) < step:
                out.append((b.value, _per_unit(a.unit) if a.unit else EACH))
    return out


class Vouchers:
    """Quantities found in a set of evidence texts, indexed for :meth:`vouches`."""

    def __init__(self, texts: Iterable[str] = (), date_order: str = "", currency: str = "") -> None:
        #: the session's order of numeric days ("dmy", "mdy" or ""): an ambiguous "1/4"
        #: of the evidence is read that way (:func:`session_date_order`)
        self.date_order = date_order
        #: the session's one currency (:func:`session_currency`): a bare amount a word
        #: makes money is in it
        self.currency = currency
        self.by_value: dict[Decimal, list[Quantity]] = {}
        self.other: dict[str, list[Quantity]] = {}
        #: the weekdays the evidence names in any case, or that its full dates fall on
        self.days: set[str] = set()
        #: the weekdays the evidence writes beside a date of a month ((12, 12) -> {"sat"}),
        #: or that a date with its year falls on
        self.dated_days: dict[tuple[int, int], set[str]] = {}
        self._texts: list[str] = []
        self._codes: str | None = None
        self._raw_codes: str | None = None
        #: for a bare figure's value, the denominators it is read with and the currencies
        #: its text writes (a figure in a price list whose header says 元)
        self._bare_money: dict[Decimal, list[tuple[str, frozenset[str], str]]] = {}
        for text in texts:
            self.add(text)

    def add(self, text: str) -> None:
        self._texts.append(text)
        self._codes = self._raw_codes = None
        bare: list[Quantity] = []
        for q in (
            *_as_written_on_24_hours(text, scan(text)),
            *header_units(text),
            *keyed_units(text),
            *units_shared(text),
            *points_said(text),
            *ones_counted(text),
            *units_first(text),
            *glued_versions(text),
            *meridiem_carried(text),
            *day_ordinals(text),
            *spelled_days(text),
            *cell_units(text),
            *month_then_day(text),
            *dollars_named(text),
            *cell_figures(text),
        ):
            if q.kind in (NUMBER, RANGE) and q.value is not None:
                for read in (q, *_discount_shares(q)):
                    self.by_value.setdefault(read.value, []).append(read)  # type: ignore[arg-type]
            else:
                q = in_date_order(q, self.date_order)
                self.other.setdefault(q.kind, []).append(q)
                if q.kind == DATE:
                    self.days.update(_days_of(q))
            if q.kind == NUMBER and not q.unit and q.value is not None:
                self.other.setdefault("bare", []).append(q)
                bare.append(q)
        self._add_money_of_lines(text, bare)
        self._add_session_money(text, bare)
        self._add_line_items(text)
        self.other.setdefault("file_date", []).extend(file_dates(text))
        self._add_dated_days(text)
        for q in (*at_each(text), *period_named(text)):
            self.by_value.setdefault(q.value, []).append(q)  # type: ignore[arg-type]
        for q in changed_ends(text):
            self.by_value.setdefault(q.value, []).append(q)  # type: ignore[arg-type]
        if _DAY_WORD.search(text):  # fri, sat in a table's cells: a reader takes them for days
            self.days.update(_EN_DAY_WORDS[w.lower()] for w in _DAY_WORD.findall(text))
        for cell in _KANJI_DAY_CELL.findall(text):  # 金,2,18:30 and 水金 in a CSV: 曜日 cells
            self.days.update(_KANJI_DAYS[ch] for ch in cell)

    def _add_dated_days(self, text: str) -> None:
        """The weekday each dated day of *text* falls on, as the text or the calendar says."""
        for date, day in dated_weekdays(text):
            for _y, m, d in date.readings:
                if m is not None and d is not None:
                    self.dated_days.setdefault((m, d), set()).add(day.canon)
        for q in self.other.get(DATE, ()):
            for y, m, d in q.readings:
                if y is not None and m is not None and d is not None:
                    self.dated_days.setdefault((m, d), set()).update(_days_of(q))

    def _add_line_items(self, text: str) -> None:
        """Each reading of a line item's price, again with the denominator its line's
        arithmetic gives it (46 len × $27.36 = $1,258.56: $27.36 a len)."""
        for value, per in line_items(text):
            known = self.by_value.get(value, [])
            self.by_value[value] = known + [
                replace(q, per=per) for q in known if not q.per and q.kind == NUMBER
            ]
            self._bare_money[value] = [
                *(here := self._bare_money.get(value, [])),
                *((per, money, line) for p, money, line in here if not p),
            ]

    def _add_session_money(self, text: str, bare: list[Quantity]) -> None:
        """The bare amounts a word makes money, in the session's one currency (a "$" or a
        "¥" written for it as well)."""
        if not self.currency:
            return
        money = {self.currency}
        if self.currency in _DOLLARS:
            money.add("$")
        elif self.currency in _YENS:
            money.add("¥")
        folded = scanned_text(text)
        for q in bare:
            if q.value is not None and _money_position(folded, q, self.currency):
                here = (q.per, frozenset(money), "")
                self._bare_money.setdefault(q.value, []).append(here)

    def _add_money_of_lines(self, text: str, bare: list[Quantity]) -> None:
        for q, money, line in _money_of_the_line(text, bare):
            here = (q.per, money, line)
            self._bare_money.setdefault(q.value, []).append(here)  # type: ignore[arg-type]

    def vouches(self, q: Quantity) -> bool:
        if q.kind == NUMBER and q.value is not None:
            return self._vouches_number(q)
        if q.kind == RANGE and q.value is not None:
            # a range is one claim: two stray figures do not make it
            if any(covers(q, e) for e in self.by_value.get(q.value, ())):
                return True
            if q.high is not None and (q.high < q.value or _CHANGE_WORD.search(q.text)):
                # "from 48 to 24 hours", 42から28: no range runs downwards, and "8,000 to
                # 10,000 yen" may be a change: each value must be vouched
                return all(
                    self.vouches(
                        replace(q, kind=NUMBER, value=v, high=None, canon=f"{_show(v)}{q.unit}")
                    )
                    for v in (q.value, q.high)
                )
            return False
        if q.kind == DATE:
            if any(
                covers(q, e) for e in [*self.other.get(DATE, ()), *self.other.get("file_date", ())]
            ):
                return True
            if _SLASHED_PAIR.fullmatch(q.text) and any(
                _written_alone(q.text, t) for t in self._texts
            ):
                return True  # 6/6 copied from a READY column the evidence reads as a ratio
            return any(covers(q, e) for e in self.other.get("bare", ()))
        if q.kind == VERSION:
            if any(covers(q, e) for e in self.other.get(VERSION, ())):
                return True
            if _IPV4.fullmatch(q.canon) and any(
                _host_of(e) == q.canon for e in self.other.get(IDENTIFIER, ())
            ):
                return True  # 192.168.1.20 of scp … pos@192.168.1.20:/srv/…: the host named
            return any(
                covers(q, e) for vals in self.by_value.values() for e in vals if "." in e.text
            )
        if self._vouched_apart(q):
            return True
        return any(covers(q, e) for e in self.other.get(q.kind, ()))

    def _vouches_number(self, q: Quantity) -> bool:
        assert q.value is not None
        if any(covers(q, e) for e in self.by_value.get(q.value, ())):
            return True
        if q.unit == "日" and any(
            e.unit == "day" and "日" in e.text for e in self.by_value.get(q.value, ())
        ):
            return True  # 工事2日 for 工事は2日で終わった: the same 日, read without its で
        if (
            (not q.unit or q.uclass == SOFT)
            and _a_year(q.value)
            and any(r[0] == int(q.value) for e in self.other.get(DATE, ()) for r in e.readings)
        ):
            return True  # "Q1 2026" where the evidence dates 2026-03-04: its year
        if q.per and q.unit and self._rate_in_two(q):
            return True
        if q.unit in _CURRENCIES and any(
            q.unit in money
            and (same_per(q.per, per) or not per and _gives_per(line, q.per) if q.per else not per)
            for per, money, line in self._bare_money.get(q.value, ())
        ):
            return True  # 220元 for "OYSTER_PER_JIN = 220  # 每斤（元）": the text's currency
        if not q.unit:
            return any(
                covers(q, e) for e in [*self.other.get(DATE, ()), *self.other.get(VERSION, ())]
            )
        if q.unit in ("日", "号", "號"):
            return any(covers(q, e) for e in self.other.get(DATE, ()))
        if q.unit in ("点", "點"):
            return any(covers(q, e) for e in self.other.get(TIME, ()))
        return False

    def _rate_in_two(self, q: Quantity) -> bool:
        """每人2000元 where the person says 每人2000 and the file written from it gives 2000
        under 奖金(元): the rate's denominator from one, its unit from the other, both the
        same value. Neither alone says a unit the other contradicts."""
        found = self.by_value.get(q.value, ()) if q.value is not None else ()
        bare = replace(q, per="")
        return any(not e.unit and e.per and same_per(q.per, e.per) for e in found) and any(
            not e.per and covers(bare, e) for e in found
        )

    def _vouched_apart(self, q: Quantity) -> bool:
        """A weekday the evidence names in any form, a code it holds as a whole token, and a
        bare hour it gives as a figure."""
        if q.kind == WEEKDAY:
            return q.canon in self.days
        if q.kind == IDENTIFIER and q.unit == "domain":
            return self._host_in_text(q.text)  # the host of a URL the evidence gives
        if q.kind == IDENTIFIER:
            return q.unit == "code" and self._code_in_text(q.canon, q.text)
        return q.kind == TIME and self._bare_hour(q)

    def _bare_hour(self, q: Quantity) -> bool:
        """ "reorder at 10": a bare figure after "at" read as the clock is vouched by the same
        figure bare in the evidence ("raised to 10"), as it stands."""
        if q.parts != _BARE_HOUR or not q.readings:
            return False
        hour = Decimal(q.readings[0][0] % 12 or 12)
        return any(not e.unit for e in self.by_value.get(hour, ()))

    def _host_in_text(self, host: str) -> bool:
        """Whether a host's name stands in the evidence as a whole name: alone, or as a
        URL's host (https://…@stg.example.co.jp/healthz), whatever its case."""
        low = host.lower().rstrip(".")
        for text in self._texts:
            t = text.lower()
            at = t.find(low)
            while at >= 0:
                end = at + len(low)
                before = t[at - 1 : at]
                after = t[end : end + 1]
                more = after == "." and t[end + 1 : end + 2].isalnum()  # .co inside .co.jp
                if not (before.isalnum() or before in "-.") and not (
                    after.isalnum() or after == "-" or more
                ):
                    return True
                at = t.find(low, at + 1)
        return False

    def _code_in_text(self, code: str, written: str = "") -> bool:
        """Whether a code (PCS-44817, apc1500) stands in the evidence as a whole token,
        whatever the case and separators, wherever it stands (``upsc apc1500@localhost``),
        or as written at the head of a name its separators set off (INV-2026-047 of
        ``invoices/INV-2026-047-deshmukh-patil.md``)."""
        if self._codes is None:
            self._codes = _CODE_SEPARATORS.sub("", "\n".join(self._texts)).upper()
        if _whole_token(self._codes, code):
            return True
        # a part of a longer name the separators set off (the pod order-sync-6d8f7c9b5-q9bn2
        # is q9bn2): the code as written, whole between them
        if self._raw_codes is None:
            self._raw_codes = "\n".join(self._texts).upper()
        return _whole_token(self._raw_codes, code) or (
            bool(written) and _whole_token(self._raw_codes, written.upper())
        )


def _whole_token(haystack: str, token: str) -> bool:
    """Whether *token* stands in *haystack* with no letter or digit right beside it."""
    at = haystack.find(token)
    while at >= 0:
        end = at + len(token)
        if not (at and haystack[at - 1].isalnum()) and not (
            end < len(haystack) and haystack[end].isalnum()
        ):
            return True
        at = haystack.find(token, at + 1)
    return False


#: What a code's spelling may part it with: compared without them (PCS-44817, PCS44817;
#: Z39.50 as a tag writes it, z3950).
_CODE_SEPARATORS = re.compile(r"[-_.]")
#: A weekday's name written in a table cell or a list in any case (fri, SAT, Sunday).
_DAY_WORD = re.compile(
    r"(?<![A-Za-z])(mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday)(?![A-Za-z])",
    re.IGNORECASE,
)
#: A table cell of weekdays written with their kanji alone (金, 水金, 月水土): 曜日 columns.
_KANJI_DAY_CELL = re.compile(
    r"(?m)(?:^|(?<=[,\t|]))[ \t]{0,4}+([月火水木金土日]{1,4}+)[ \t]{0,4}+(?=[,\t|]|$)"
)
_KANJI_DAYS = dict(
    zip("月火水木金土日", ("mon", "tue", "wed", "thu", "fri", "sat", "sun"), strict=True)
)
_EN_DAY_WORDS = {
    **{w: w[:3] for w in ("monday", "tuesday", "wednesday", "thursday", "friday")},
    **{"saturday": "sat", "sunday": "sun", "tues": "tue", "thur": "thu", "thurs": "thu"},
    **{w: w for w in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")},
}
_DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def _days_of(q: Quantity) -> set[str]:
    """The weekdays a date with its year falls on (2027-03-07 is a Sunday)."""
    out = set()
    for year, month, day in q.readings:
        if year is not None and month is not None and day is not None:
            try:
                out.add(_DAY_NAMES[datetime.date(year, month, day).weekday()])
            except ValueError:
                continue
    return out


#: What may stand between a date and the weekday written beside it: "12月12日（土）",
#: "Sat 12 Dec", "Sunday, 13 December".
_DATE_DAY_GAP = re.compile(r"[ \t]{0,2}[,、]?[ \t]{0,2}[(（)）]?[ \t]{0,2}")


def dated_weekdays(text: str) -> list[tuple[Quantity, Quantity]]:
    """Each date of *text* with the weekday written right beside it, before or after."""
    found = sorted(scan(text), key=lambda q: q.start)
    read = scanned_text(text)  # the offsets are the scanned form's (休市 12月 reads 休市12月)
    out = []
    for a, b in zip(found, found[1:], strict=False):
        gap = read[a.end : b.start]
        if not _DATE_DAY_GAP.fullmatch(gap):
            continue
        if a.kind == DATE and b.kind == WEEKDAY:
            out.append((a, b))
        elif a.kind == WEEKDAY and b.kind == DATE:
            out.append((b, a))
    return out


def wrong_weekdays(text: str, vouchers: Vouchers) -> list[Quantity]:
    """The weekdays *text* writes beside a date that the evidence puts on another day:
    "12月12日（日）" where the evidence gives 令和8年12月12日（土）. A weekday the evidence
    never ties to that date is left to :meth:`Vouchers.vouches`."""
    out = []
    for date, day in dated_weekdays(text):
        expected: set[str] = set()
        for y, m, d in date.readings:
            if m is None or d is None:
                continue
            if y is not None:
                expected |= _days_of(replace(date, readings=((y, m, d),)))
            else:
                expected |= vouchers.dated_days.get((m, d), set())
        if expected and day.canon not in expected:
            out.append(day)
    return out


def unvouched(text: str, evidence: Iterable[str]) -> list[Quantity]:
    """The quantities of *text* that nothing in *evidence* vouches for, once each."""
    v = Vouchers(evidence)
    out: dict[str, Quantity] = {}
    for q in scan(text):
        if q.canon not in out and not v.vouches(q):
            out[q.canon] = q
    return list(out.values())


def numbers_in(text: str) -> list[str]:
    """The canonical spellings of the quantities in *text*, once each, in order."""
    return list(dict.fromkeys(q.canon for q in scan(text) if q.kind != IDENTIFIER))
