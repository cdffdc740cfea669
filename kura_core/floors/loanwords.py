"""Japanese loanwords compared with the English words they come from.

A person who writes 「シフトはコミットしないで」 and a memory that says "do not commit the
shift" use the same two words: Japanese writes English loans in katakana. No glossary can
list every loan, so both spellings are reduced to the consonants a Japanese ear keeps, in
broad classes (b/v/w, k/g, s/z/j/ch/sh/ts, t/d, r/l …), and compared: the English word's
skeleton must begin the katakana word's, with at most two consonants more (the English side
is a stem, cut after five letters). A vowel-less match of fewer than two consonants says
nothing and is never a match.

Linear in the word; no table of loans.
"""

from __future__ import annotations

import functools

# consonant classes: B (b v w), K (k g q c), S (s z j ch sh ts), T (t d), R (r l),
# F (f h ph), P, M, N; "?" is a c or g the stem cut off before its vowel (K or S).
_KANA_ROWS = {
    "K": "カキクケコガギグゲゴヵヶ",
    "S": "サシスセソザジズゼゾチヂツヅ",
    "T": "タテトダデド",
    "N": "ナニヌネノ",
    "F": "ハヒフヘホ",
    "B": "バビブベボヴワヰヱヲ",
    "P": "パピプペポ",
    "M": "マミムメモ",
    "R": "ラリルレロ",
}
_KANA = {ch: cls for cls, row in _KANA_ROWS.items() for ch in row}
#: The vowel of each kana by its column (ア段 a, イ段 i …).
_COLUMNS = {
    "a": "アカガサザタダナハバパマヤラワァャヵ",
    "i": "イキギシジチヂニヒビピミリヰィ",
    "u": "ウクグスズツヅヌフブプムユルヴゥュ",
    "e": "エケゲセゼテデネヘベペメレヱェヶ",
    "o": "オコゴソゾトドノホボポモヨロヲォョ",
}
_VOWEL_OF = {ch: v for v, col in _COLUMNS.items() for ch in col}
_SMALL = set("ァィゥェォャュョ")
_VOWELS = set("aeiouy")
#: The katakana vowels an English spelling of a vowel is heard as (table テー, price プライ,
#: month マン …), a diphthong written as two vowels (ai).
_HEARD: dict[str, tuple[str, ...]] = {
    "a": ("a", "e", "ei"),
    "e": ("e", "i"),
    "i": ("i", "ai"),
    "o": ("o", "a", "ou"),
    "u": ("a", "u"),
    "y": ("i", "ai"),
    "ee": ("i",),
    "ea": ("i", "e"),
    "oo": ("u",),
    "ou": ("a", "au", "o", "u"),
    "oa": ("o",),
    "ai": ("e", "ei", "ai"),
    "ay": ("e", "ei"),
    "ie": ("i", "ai", "u"),
    "ei": ("e", "ei", "ai"),
    "ue": ("u",),
    "ui": ("u", "i"),
    "au": ("o",),
    "ow": ("o", "a", "au"),
    "ew": ("u",),
    "io": ("o", "io"),
}

#: One syllable: its consonant class ("" for a vowel that opens the word) and its vowel
#: (katakana) or the vowels it may be heard with (English; None: the consonant ends a
#: cluster, and any vowel Japanese adds to it will do).
_Unit = tuple[str, str | tuple[str, ...] | None]


def _kana_units(word: str) -> list[_Unit]:
    units: list[list[str]] = []
    for i, ch in enumerate(word):
        if ch in _SMALL:
            if units:
                if units[-1][0] == "" and ch in "ィェォ" and word[i - 1] == "ウ":
                    units[-1][0] = "B"  # ウィ ウェ ウォ: wi, we, wo
                units[-1][1] = _VOWEL_OF.get(ch, units[-1][1])
            continue
        if ch == "ン":
            units.append(["N", ""])
            continue
        cls = _KANA.get(ch)
        vowel = _VOWEL_OF.get(ch, "")
        if cls is None:
            if vowel and not units:
                units.append(["", vowel])  # a vowel opening the word (アカウント)
            elif vowel and units[-1][1] and len(units[-1][1]) == 1 and vowel != units[-1][1]:
                units[-1][1] += vowel  # ライ, ワイ: a diphthong
            continue  # a long vowel, ッ, ー: nothing new is heard
        if units and units[-1][0] == cls and units[-1][1] == "":
            units[-1][1] = vowel
        else:
            units.append([cls, vowel])
    return [(c, v or None) for c, v in units]


#: Two letters heard as one sound (or none): their class.
_DIGRAPHS = {"ch": "S", "sh": "S", "ph": "F", "gh": "", "ck": "K", "ts": "S", "ng": "NK", "dg": "?"}
#: One consonant letter's class where no neighbour changes it.
_LETTERS = {
    "b": "B",
    "v": "B",
    "k": "K",
    "q": "K",
    "s": "S",
    "z": "S",
    "j": "S",
    "x": "KS",
    "t": "T",
    "d": "T",
    "l": "R",
    "f": "F",
    "h": "F",
    "p": "P",
    "m": "M",
    "n": "N",
    "y": "",
}
_SOFTENS = ("e", "i", "y")


def _consonant(w: str, i: int) -> tuple[int, str]:
    """How many letters the consonant at *i* of *w* takes, and its classes."""
    c, nxt = w[i], w[i + 1 : i + 2]
    pair = w[i : i + 2]
    if pair == "th":
        return 2, "S" if w[i + 2 : i + 3] else "T"
    if pair in _DIGRAPHS:
        return 2, _DIGRAPHS[pair]
    if pair in ("kn", "wr"):
        return 1, ""  # the k and the w are silent
    if c == "w":
        return 1, "B" if nxt in _VOWELS else ""
    if c == "c":
        return 1, "S" if nxt in _SOFTENS else ("?" if not nxt else "K")
    if c == "g":
        return 1, "?" if nxt in _SOFTENS or not nxt else "K"
    if c == "r":
        # an English r before a consonant or at the end is not heard in a Japanese loan
        # (order オーダー, server サーバー)
        return 1, "R" if nxt in _VOWELS else ""
    return 1, _LETTERS.get(c, "")


def _english_units(stem: str) -> list[_Unit]:
    w = stem.lower()
    out: list[list] = []
    i, n = 0, len(w)
    while i < n:
        c = w[i]
        nxt = w[i + 1] if i + 1 < n else ""
        if c in _VOWELS and not (c == "y" and nxt in _VOWELS):
            j = i
            while j < n and w[j] in _VOWELS:
                j += 1
            group = w[i:j]
            heard = _HEARD.get(group[:2]) or _HEARD.get(group[0], ())
            if j < n and w[j] == "r" and (j + 1 == n or w[j + 1] not in _VOWELS):
                heard += ("a", "o")  # order オーダー, server サーバー: the r is not heard
            if j == n and n >= 5:
                # the stem may have been cut after this vowel: serve|r サーバー, versi|on
                heard += ("a", "o") if group[-1] == "e" else ("o",)
            if out:
                if out[-1][1] is None:
                    out[-1][1] = heard
            else:
                out.append(["", heard])
            i = j
            continue
        step, cls = _consonant(w, i)
        for k in cls:
            if out and out[-1][0] == k and out[-1][1] is None:
                continue  # a doubled consonant is heard once (commit, staff)
            out.append([k, None])
        i += step
    return [(c, v) for c, v in out]


def _fits(english: list[_Unit], kana: list[_Unit], cut: bool) -> bool:
    if english and english[0][0] == "":
        if not kana or kana[0][0] != "" or (english[0][1] and kana[0][1] not in english[0][1]):
            return False
        english, kana = english[1:], kana[1:]
    elif kana and kana[0][0] == "":
        return False
    # a stem cut at five letters may have lost up to two consonants (deliv|ery デリバリー);
    # an uncut one has every consonant the loan has (back is not バックル or ワクチン)
    if len(english) < 2 or len(english) > len(kana) or len(kana) - len(english) > 2 * cut:
        return False
    for (ec, ev), (kc, kv) in zip(english, kana, strict=False):
        if not (
            ec == kc
            or (ec == "?" and kc in "KS")
            or (ec == "M" and kc == "N" and ev is None)  # campaign キャンペーン
            or (ec == "T" and kc == "S" and ev and any("i" in v for v in ev))  # ticket, option
        ):
            return False
        if ev and kv and kv not in ev and kv[0] not in ev:
            return False  # a diphthong may be heard by its first vowel (デプロイ, リペア)
    return True


@functools.lru_cache(maxsize=4096)
def same_loanword(stem: str, katakana: str) -> bool:
    """Whether the English *stem* (a comparison token: lower case, at most five letters)
    and the katakana word are the same loan (commi ↔ コミット, cance ↔ キャンセル,
    vacci ↔ ワクチン, but not commi ↔ コメント); never for a stem of fewer than four
    letters."""
    if len(stem) < 4 or not stem.isalpha() or not stem.isascii() or len(katakana) < 3:
        return False
    return _fits(_english_units(stem), _kana_units(katakana), len(stem) >= 5)
