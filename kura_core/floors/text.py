"""Comparison forms of text for the floors: what the gate reads, folded so that it reads
what a person sees.

A model that wants a claim past a deterministic check writes it so that a person and the
check read different things: a Cyrillic ``е`` inside "user", a ``一`` (the numeral one)
where ``ー`` belongs in ユーザー, an Arabic-Indic digit, a zero-width space inside a number,
a right-to-left override that reorders what is shown. Two defences:

* **refuse** what renders as nothing or reorders the line (bidi controls and invisible
  format characters) in every field that will be stored -- :func:`disguises`;
* **fold** everything else to one form before matching -- :func:`fold` for wording
  (attribution, negation), :func:`fold_numbers` for quantities. The same fold is applied
  to the candidate and to the evidence, so an honest text never loses by it.

The look-alike table comes from the ``confusable-homoglyphs`` package (Unicode's
confusables data); it is read once, on first use.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from ..normal import (
    _INVISIBLE_EXTRA as _INVISIBLE_EXTRA,
    _QUOTES as _QUOTES,
    _close_counters,
    normalize as normalize,
    strip_invisible as strip_invisible,
)

# --------------------------------------------------------------------------- disguise

#: Characters that reorder how a line is displayed.
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_ZWJ = "\u200d"
_VARIATION = re.compile("[\ufe00-\ufe0f]|[\U000e0100-\U000e01ef]")


def _pictographic(ch: str) -> bool:
    """Emoji and symbols, around which a zero-width joiner is part of the glyph."""
    return unicodedata.category(ch) == "So" or 0x1F000 <= ord(ch) <= 0x1FAFF


def disguises(text: str) -> list[str]:
    """The disguising characters in *text*, each named (``U+202E RIGHT-TO-LEFT
    OVERRIDE``), in order, once each.

    Refused: bidirectional controls; format characters (Unicode category Cf: zero-width
    spaces and joiners, word joiners, BOMs, soft hyphens, tag characters) except a
    zero-width joiner between two pictographs (an emoji sequence); characters that render
    blank (Hangul fillers, the combining grapheme joiner, Mongolian free variation
    selectors, the braille blank). Variation selectors are allowed after a symbol (⚠️) and
    refused elsewhere.
    """
    found: dict[str, None] = {}
    for i, ch in enumerate(text or ""):
        bad = False
        if ch in BIDI_CONTROLS or ch in _INVISIBLE_EXTRA:
            bad = True
        elif ch == _ZWJ:
            prev = text[i - 1] if i else ""
            nxt = text[i + 1] if i + 1 < len(text) else ""
            bad = not (
                prev
                and nxt
                and (_pictographic(prev) or _VARIATION.match(prev))
                and _pictographic(nxt)
            )
        elif _VARIATION.match(ch):
            prev = text[i - 1] if i else ""
            bad = not (
                prev
                and (
                    _pictographic(prev)
                    or unicodedata.category(prev).startswith("S")
                    or prev.isdigit()
                    or prev in "#*"
                )
            )
        elif unicodedata.category(ch) == "Cf":
            bad = True
        elif not ch.isascii():
            bad = _reads_otherwise(ch)
        if bad:
            found.setdefault(f"U+{ord(ch):04X} {unicodedata.name(ch, 'UNNAMED CHARACTER')}", None)
    for m in _LETTER_IN_FIGURE.finditer(text or ""):
        if sum(c.isdigit() for c in m.group(0)) >= 2:
            found.setdefault(f"{m.group(0)} (a letter inside a figure)", None)
    return list(found)


#: A run of digits and the letters that imitate them (l, I, O, o): "l00", "1O0".
_LETTER_IN_FIGURE = re.compile(
    r"(?<![A-Za-z0-9])(?=[0-9lIOo]*[lIOo])(?=[0-9lIOo]*[0-9])[0-9lIOo]{3,}(?![A-Za-z0-9])"
)


def _reads_otherwise(ch: str) -> bool:
    """A character a reader takes for something the gate does not: a decimal digit of
    another script (Bengali ৪ is 4 and looks like 8; only ASCII and full-width digits are
    figures as written), a Roman-numeral glyph (Ⅻ is a number the figures floor cannot
    compare), a combining overlay or enclosing mark (a stroke through "not", ⃠ over a
    word changes its meaning; it is not noise to fold away)."""
    if ch.isdecimal():
        return not ("\uff10" <= ch <= "\uff19")
    if "\u2160" <= ch <= "\u2188":
        return True
    if unicodedata.combining(ch) == 1:  # overlays: U+0334..U+0338, U+20D2..U+20D3 …
        return True
    return unicodedata.category(ch) == "Me"


# --------------------------------------------------------------------------- look-alikes

# Look-alikes the confusables data does not map to a single ASCII letter but a reader
# takes for one.
_EXTRA_LOOKALIKES = {
    "ε": "e",
    "κ": "k",
    "τ": "t",
    "χ": "x",
    "ι": "i",
    "ν": "v",
    "ɑ": "a",
    "ɡ": "g",
    "ʏ": "y",
    "ℓ": "l",
    "Ꭺ": "A",
    "ᴀ": "A",
    "ʙ": "B",
    "ᴄ": "c",
    "ᴅ": "D",
    "ᴇ": "E",
    "ɢ": "G",
    "ʜ": "H",
    "ɪ": "I",
    "ᴊ": "J",
    "ᴋ": "K",
    "ʟ": "L",
    "ᴍ": "M",
    "ɴ": "N",
    "ᴏ": "o",
    "ᴘ": "P",
    "ʀ": "R",
    "ꜱ": "s",
    "ᴛ": "T",
    "ᴜ": "u",
    "ᴠ": "v",
    "ᴡ": "w",
    "ᴢ": "z",
    "Ա": "U",
    "ս": "u",
    "ց": "g",
    "ք": "p",
    "օ": "o",
    "հ": "h",
    "ո": "n",
    "ա": "w",
    "զ": "q",
    "Ս": "U",
    "Օ": "O",
}


def _east_asian(ch: str) -> bool:
    """Ideographs, kana, hangul and CJK symbols: never folded to Latin look-alikes
    (〇 is a numeral, 口 a word, not the letter O)."""
    o = ord(ch)
    return (
        0x2E80 <= o <= 0x9FFF
        or 0xAC00 <= o <= 0xD7AF
        or 0xF900 <= o <= 0xFAFF
        or 0xFF00 <= o <= 0xFFEF
        or 0x20000 <= o <= 0x3FFFF
    )


_NAME_LETTER = re.compile(r"\b(CAPITAL|SMALL) LETTER ([A-Z])$")


@functools.lru_cache(maxsize=1)
def _lookalike_table() -> dict[int, str]:
    """Non-ASCII letters and digits that look like one ASCII letter or digit."""
    table: dict[int, str] = {}
    try:
        from confusable_homoglyphs import confusables  # type: ignore[import-untyped]

        data = confusables.confusables_data
    except Exception:  # noqa: BLE001 - the package is a dependency; without it, our own list
        data = {}
    for ch, entries in data.items():
        if len(ch) != 1 or ch.isascii() or _east_asian(ch):
            continue
        target = ""
        name = unicodedata.name(ch, "")
        by_name = _NAME_LETTER.search(name)
        for entry in entries:
            c = entry.get("c", "")
            if len(c) == 1 and c.isascii() and c.isalnum():
                target = c
                break
        if by_name and target and target.isalpha():
            letter = by_name.group(2)
            target = letter if by_name.group(1) == "CAPITAL" else letter.lower()
        if target:
            table[ord(ch)] = target
    for ch, target in _EXTRA_LOOKALIKES.items():
        table[ord(ch)] = target
    return table


# Kana long-vowel look-alikes: in a run of katakana these are ー, whatever they are coded as.
_LONG_VOWEL_LOOKALIKES = "一ー－—―─━‐‑‒–ｰ-〜~"
_KATAKANA_RUN = re.compile(
    rf"(?<=[\u30a0-\u30fa\u30fc-\u30ff])[{re.escape(_LONG_VOWEL_LOOKALIKES)}]+"
    rf"(?=[\u3040-\u30ff]|[^\u3400-\u9fff]|$)"
)
# Ideograph variants that read alike to a person: folded to the form the patterns use.
_CJK_VARIANTS = str.maketrans({"戸": "户", "戶": "户"})


def _strip_marks(text: str) -> str:
    """Combining marks removed from letters outside kana (so ``úser`` is ``user`` and a
    struck-through ``3̸`` is ``3``), while Japanese voiced kana keep their marks."""
    if text.isascii():
        return text
    nfd = unicodedata.normalize("NFD", text)
    marks = {
        ord(ch): None
        for ch in set(nfd)
        if ch not in "\u3099\u309a" and unicodedata.category(ch) in ("Mn", "Me")
    }
    if not marks:
        return text
    return unicodedata.normalize("NFC", nfd.translate(marks))


def fold_digits(text: str) -> str:
    """Decimal digits of any script as ASCII digits (NFKC leaves Arabic-Indic and others)."""
    if text.isascii():
        return text
    digits = {
        ord(ch): str(unicodedata.decimal(ch))
        for ch in set(text)
        if ch.isdecimal() and not ch.isascii()
    }
    return text.translate(digits) if digits else text


@functools.lru_cache(maxsize=4096)
def fold(text: str) -> str:
    """The comparison form for wording (attribution, negation, scope): :func:`normalize`,
    then look-alikes folded -- combining marks removed outside kana, decimal digits of
    every script as ASCII digits, look-alike letters of other scripts as the ASCII letter
    they imitate (a Cyrillic ``е`` in "user"), a long-vowel look-alike in a katakana word
    as ー, ideograph variants folded (戸→户). Case is kept."""
    text = normalize(text)
    if text.isascii():
        return text
    text = _confusables(text)
    text = _KATAKANA_RUN.sub(lambda m: "ー" * len(m.group(0)), text)
    return text.translate(_CJK_VARIANTS) if "戸" in text or "戶" in text else text


def _confusables(text: str) -> str:
    """Marks, digits of other scripts and look-alike letters folded (outside ASCII)."""
    text = _strip_marks(text)
    text = fold_digits(text)
    text = text.translate(_lookalike_table())
    return _close_counters(text)


def _fold_scripts(text: str) -> str:
    """:func:`normalize`'s steps that keep the lines of a text, and the look-alikes folded:
    the start of the figures' form."""
    text = unicodedata.normalize("NFKC", text)
    if text.isascii():
        return text
    return _confusables(strip_invisible(text))


#: A multiplication sign before a figure: the operator, which no letter x imitates.
_TIMES_BEFORE_FIGURE = re.compile(r"×(?=[ \t]?[0-9０-９])")
_DASHES = str.maketrans(
    {
        "\u2010": "-",
        "\u2011": "-",
        "\u2212": "-",
        "\ufe63": "-",
        "\uff0d": "-",
        "\u2012": "\u2013",
        "\u2014": "\u2013",
        "\u2015": "\u2013",
        "\ufe58": "\u2013",
        "\u301c": "~",
        "\uff5e": "~",
        "\u223c": "~",
        "\u00d7": "x",
        "\u2044": "/",
        "\u2215": "/",
        "\u066b": ".",
        "\u066c": ",",
    }
)
#: An em dash with a space on each side sets a phrase apart ("241,350.00 — 29 days", "KSh
#: 500 — paid"): it is kept as it is, where an em dash between two figures alone is a range
#: (10—20元) and folds to the en dash ranges are read with.
_SPACED_EM_DASH = re.compile(r"(?<=\s)\u2014+(?=\s)")
# ASCII letters read as digits when they sit inside a figure: 4O% is 40%, 1l0 is 110.
_DIGIT_LIKE = {"O": "0", "o": "0", "l": "1", "I": "1"}
_DIGIT_LIKE_INSIDE = re.compile(r"(?<=\d)[Oo]+(?=%)|(?<=\d)[OolI]+(?=\d)")


def fold_numbers(text: str) -> str:
    """The comparison form for quantities: like :func:`fold` (look-alike digits of other
    scripts become digits, so ``З0`` with a Cyrillic Ze is ``30``) but line breaks are
    kept, dashes and minus signs are folded, and an ASCII O, l or I wedged against digits
    is the digit it imitates."""
    if not text:
        return ""
    if "×" in text:
        text = _TIMES_BEFORE_FIGURE.sub("*", text)  # 14名×12,000円: times, then a figure
    text = _fold_scripts(text)
    if not text.isascii():
        kept = [m.span() for m in _SPACED_EM_DASH.finditer(text)] if "\u2014" in text else []
        text = text.translate(_DASHES)  # one character for one: the spans still stand
        for a, b in kept:
            text = text[:a] + "\u2014" * (b - a) + text[b:]
    if any(c in text for c in "OolI"):
        text = _DIGIT_LIKE_INSIDE.sub(lambda m: "".join(_DIGIT_LIKE[c] for c in m.group(0)), text)
    return text
