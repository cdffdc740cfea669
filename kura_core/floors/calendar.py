"""Calendar words the number floor compares as quantities: weekdays, time zones, era years.

* **Weekdays** ("Monday", "Mon,", 月曜日, 星期一, 周一, 禮拜天) are a claim like a date:
  "on Tuesday" is not vouched by "on Monday".
* **Time zones** after a clock time ("02:30 JST", "14:00 UTC+9", "9:00 +09:00", 北京时间 before
  it) belong to the time: a time with a zone vouches only that zone (and the same offset
  written another way: JST = UTC+9 = +09:00 = 日本時間), and a time without one vouches no
  zone at all. Ambiguous abbreviations (CST, IST) match only themselves.
* **Era years** (令和8年, 平成30年, 昭和64年, 民国115年, 令和元年) are converted to their
  Gregorian year and never read as a small number or as 20XX.

Every pattern is a literal alternation or a bounded digit run: linear time.
"""

from __future__ import annotations

import re

WEEKDAY = "weekday"

_EN_DAYS = {
    "monday": "mon",
    "tuesday": "tue",
    "wednesday": "wed",
    "thursday": "thu",
    "friday": "fri",
    "saturday": "sat",
    "sunday": "sun",
}
_EN_ABBR = {
    "Mon": "mon",
    "Tue": "tue",
    "Tues": "tue",
    "Wed": "wed",
    "Thu": "thu",
    "Thur": "thu",
    "Thurs": "thu",
    "Fri": "fri",
    "Sat": "sat",
    "Sun": "sun",
}
_CJK_DAY = {
    "月": "mon",
    "火": "tue",
    "水": "wed",
    "木": "thu",
    "金": "fri",
    "土": "sat",
    "日": "sun",
    "一": "mon",
    "二": "tue",
    "三": "wed",
    "四": "thu",
    "五": "fri",
    "六": "sat",
    "天": "sun",
}
_WEEKDAY_EN = re.compile(
    r"(?<![A-Za-z])(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?(?![A-Za-z])",
    re.IGNORECASE,
)
# an abbreviation only where a reader takes it for a day: before a comma, a full stop
# with a date, or a figure ("Mon, 28 Nov", "Fri 14:00")
_WEEKDAY_ABBR = re.compile(r"(?<![A-Za-z])(Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)\.?(?=,|\s\d)")
#: 金曜, 土曜日, and the day in parentheses after a date: 11月20日（土）, 3/7(日).
_WEEKDAY_JA = re.compile(r"([月火水木金土日])曜(?:日)?|(?<=[日\d])[(（]([月火水木金土日])[)）]")
#: 周五, 星期六, 礼拜天, and the day in brackets after a date: 12/5（五）, 12月6日(六); not
#: the 一 of a word after 周 (这周一共5单 is "this week, in all", 这周一直在忙 "all week"),
#: nor the 天 of 天气 (下礼拜天气 is "next week's weather").
_WEEKDAY_ZH = re.compile(
    r"(?:星期|礼拜|禮拜|周|週)(一(?![共直样樣般些切致律旦])|[二三四五六日]|天(?![气氣]))(?![次遍回])"
    r"|(?<=[日号號\d])[(（]([一二三四五六天])[)）]"
)


def weekdays(text: str) -> list[tuple[int, int, str]]:
    """Every weekday named in *text*: (start, end, canonical three-letter name)."""
    out = []
    for m in _WEEKDAY_EN.finditer(text):
        out.append((m.start(), m.end(), _EN_DAYS[m.group(1).lower()]))
    for m in _WEEKDAY_ABBR.finditer(text):
        out.append((m.start(), m.end(), _EN_ABBR[m.group(1)]))
    for pat in (_WEEKDAY_JA, _WEEKDAY_ZH):
        for m in pat.finditer(text):
            day = m.group(1) or m.group(2)
            out.append((m.start(), m.end(), _CJK_DAY[day]))
    return out


# =========================================================================== zones

_OFFSETS = {
    "UTC": "+0",
    "GMT": "+0",
    "Z": "+0",
    "WET": "+0",
    "CET": "+1",
    "BST": "+1",
    "CEST": "+2",
    "EET": "+2",
    "EEST": "+3",
    "MSK": "+3",
    "JST": "+9",
    "KST": "+9",
    "HKT": "+8",
    "SGT": "+8",
    "AWST": "+8",
    "AEST": "+10",
    "AEDT": "+11",
    "NZST": "+12",
    "NZDT": "+13",
    "EST": "-5",
    "EDT": "-4",
    "CDT": "-5",
    "MST": "-7",
    "MDT": "-6",
    "PST": "-8",
    "PDT": "-7",
    "AKST": "-9",
    "HST": "-10",
}
_CJK_ZONES = {
    "日本時間": "+9",
    "日本时间": "+9",
    "東京時間": "+9",
    "北京时间": "+8",
    "北京時間": "+8",
    "台北时间": "+8",
    "台北時間": "+8",
    "香港时间": "+8",
    "香港時間": "+8",
}
_ZONE_AFTER = re.compile(
    # a zone's name may stand in brackets after its time: "13:10 (JST)"
    r"\s?(?:(?P<paren>[(（])?(?P<name>UTC|GMT|Z|[A-Z]{2,4}T)(?![A-Za-z])"
    r"(?P<off>[+-]\d{1,2}(?::?\d{2})?)?(?(paren)[)）])"
    r"|(?P<bare>[+-]\d{2}:?\d{2})(?![\d:]))"
)
_ZONE_BEFORE = re.compile(
    r"(日本時間|日本时间|東京時間|北京时间|北京時間|台北时间|台北時間|香港时间|香港時間)\s?$"
)


def _offset(sign_digits: str) -> str:
    sign, rest = sign_digits[0], sign_digits[1:].replace(":", "")
    hours = int(rest[:2] if len(rest) > 2 else rest)
    minutes = rest[2:] if len(rest) > 2 else ""
    tail = f":{minutes}" if minutes and minutes != "00" else ""
    return f"{'+' if hours == 0 else sign}{hours}{tail}"


def _iso_clock(text: str, start: int, end: int) -> bool:
    """Whether a clock time is written the ISO way, where a bare offset may follow it: with
    seconds (08:00:00-10:00) or after a date's ``T`` (2026-06-14T08:00-10:00)."""
    return text.count(":", start, end) >= 2 or (start > 0 and text[start - 1] in "Tt")


def zone_after(text: str, end: int, start: int) -> tuple[str, int] | None:
    """The zone a clock time at ``text[start:end]`` is written in: its canonical form
    (``UTC+9``, or the name itself when it is ambiguous) and where it ends, or None."""
    m = _ZONE_AFTER.match(text, end)
    if m and (m.group("bare") or "").startswith("-") and not _iso_clock(text, start, end):
        m = None  # "08:00-10:00" is a span of two times, not a time at UTC-10
    if m:
        if m.group("bare"):
            return "UTC" + _offset(m.group("bare")), m.end()
        name = m.group("name")
        if m.group("off"):
            if name not in ("UTC", "GMT"):
                return None
            return "UTC" + _offset(m.group("off")), m.end()
        if name in _OFFSETS:
            return "UTC" + _OFFSETS[name], m.end()
        return name, m.end()
    b = _ZONE_BEFORE.search(text, max(0, start - 6), start)
    if b:
        return "UTC" + _CJK_ZONES[b.group(1)], end
    return None


# =========================================================================== eras

_ERA_BASE = {
    "令和": 2018,
    "平成": 1988,
    "昭和": 1925,
    "大正": 1911,
    "明治": 1867,
    "民国": 1911,
    "民國": 1911,
    "中华民国": 1911,
    "中華民國": 1911,
}
_ERA = re.compile(
    r"(中华民国|中華民國|令和|平成|昭和|大正|明治|民国|民國)\s?(\d{1,3}|元|[〇零一二三四五六七八九十百]{1,4})\s?年"
)
_KANJI = {"〇": 0, "零": 0, "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7}
_KANJI.update({"八": 8, "九": 9})


def _kanji_year(text: str) -> int | None:
    if text == "元":
        return 1
    if text.isdigit():
        return int(text)
    total, digit = 0, 0
    for ch in text:
        if ch in _KANJI:
            digit = _KANJI[ch]
        elif ch == "十":
            total += (digit or 1) * 10
            digit = 0
        elif ch == "百":
            total += (digit or 1) * 100
            digit = 0
        else:
            return None
    return total + digit


_MONTH_DAY = re.compile(
    r"\s?(\d{1,2}|[一二三四五六七八九十]{1,3})月(?:\s?(\d{1,2}|[一二三四五六七八九十]{1,3})[日号號])?"
)


def eras(text: str) -> list[tuple[int, int, int, int | None, int | None]]:
    """Every era year in *text* with the month and day written after it: (start, end,
    Gregorian year, month, day)."""
    out = []
    for m in _ERA.finditer(text):
        n = _kanji_year(m.group(2))
        if n is None or n <= 0:
            continue
        end, month, day = m.end(), None, None
        md = _MONTH_DAY.match(text, end)
        if md:
            month = _kanji_year(md.group(1))
            day = _kanji_year(md.group(2)) if md.group(2) else None
            if month is not None and 1 <= month <= 12 and (day is None or 1 <= day <= 31):
                end = md.end()
            else:
                month = day = None
        out.append((m.start(), end, _ERA_BASE[m.group(1)] + n, month, day))
    for m in _ROC_BARE.finditer(text):
        # 115年12月21日 in a Taiwanese notice: the 民國 year, written without its era (a
        # year of three figures with a month and a day after it names no other year)
        md = _MONTH_DAY.match(text, m.end())
        if md is None or not md.group(2):
            continue
        month, day = _kanji_year(md.group(1)), _kanji_year(md.group(2))
        if month is not None and day is not None and 1 <= month <= 12 and 1 <= day <= 31:
            out.append((m.start(), md.end(), 1911 + int(m.group(1)), month, day))
    return out


#: A year of the Republic of China written without its era: 100年 to 149年.
_ROC_BARE = re.compile(r"(?<![\d民國国元.\-/])(1[0-4]\d)\s?年")
