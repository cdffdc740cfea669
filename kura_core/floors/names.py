"""Names: when two spellings name the same person.

One rule, applied the same way wherever a name is compared -- the store's configured human
names, a name in a candidate's text, a name in a segment of evidence, a speaker label:

* both sides are **folded** (:func:`.text.fold`: look-alike letters of other scripts as the
  letter they imitate, full-width as half-width, Latin case ignored), and
* an **honorific suffix** is taken off both sides (Ren-san, Ren san, 蓮さん, 蓮先生, 蓮くん,
  王老师, 王先生 are Ren, 蓮, 王) -- and an English title before the name (Mr, Ms, Dr).

Any other difference makes **another person**: a nickname (Renny, 小蓮, 老王), a longer or
shorter name (Renata, 张伟明 is not 张伟), and the same name in another script's characters
(張偉 is not 张伟, 沢 is not 澤). Simplified and traditional forms are not folded on purpose:
the mapping is many-to-one (发/發/髮, 后/後, 干/乾/幹) and a person's characters are their own,
so folding could make two people one. Another person is never credited as the human -- a
claim about them needs evidence that names them -- so a spelling the store did not configure
can only be refused, never credit the human with someone else's words. A person who writes
their name more than one way lists every form in ``human_names``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from . import lexicon
from .text import fold

#: Chinese titles after a name (王经理, 张总), longest first.
ZH_TITLES = tuple(sorted(lexicon.words("names_zh_titles", ("zh",)), key=lambda t: (-len(t), t)))
#: Honorific suffixes, longest first (a name is compared without them).
HONORIFIC_SUFFIXES = tuple(
    sorted(
        lexicon.words("names_honorifics", ("ja",)) | {t for t in ZH_TITLES if t != "先生"},
        key=lambda t: (-len(t), t),
    )
)
#: Romanised honorifics after a hyphen or a space ("Ren-san", "Ren san").
_LATIN_SUFFIX = re.compile(r"[\s-](?:san|sama|kun|chan|sensei|senpai|dono|shi)$", re.IGNORECASE)
#: English titles before a name ("Mr Tanaka", "Dr. Ren").
_LATIN_TITLE = re.compile(r"^(?:mr|mrs|ms|miss|mx|dr|prof)\.?\s+", re.IGNORECASE)
#: A role in capitals glued before a Chinese or Japanese name (TA佐藤, PM田中, CTO王): the
#: role is no part of the name.
_ROLE_BEFORE_CJK = re.compile(r"^[A-Z]{2,4}[ \t]?(?=[\u3040-\u30ff\u4e00-\u9fff])")
#: The regex form of the honorific suffixes, for patterns that find names in text.
HONORIFIC_PATTERN = (
    r"(?:[-\s](?i:san|sama|kun|chan|sensei|senpai|dono)\b|"
    + "|".join(sorted(HONORIFIC_SUFFIXES, key=len, reverse=True))
    + ")"
)
#: The regex form of an English title before a name.
TITLE_PATTERN = r"(?:(?i:mr|mrs|ms|miss|mx|dr|prof)\.?\s+)"


def name_key(name: str) -> str:
    """The form a name is compared in: folded, Latin letters in lower case, one honorific
    suffix (or English title, or a role in capitals before a CJK name: TA佐藤) taken off. "" for a name that is only an honorific."""
    f = fold(name).strip()
    f = _LATIN_TITLE.sub("", f)
    f = _ROLE_BEFORE_CJK.sub("", f)
    f = _LATIN_SUFFIX.sub("", f)
    for suffix in HONORIFIC_SUFFIXES:
        if f.endswith(suffix) and len(f) > len(suffix):
            f = f[: -len(suffix)]
            break
    return f.strip().lower()


def same_person(a: str, b: str) -> bool:
    """Whether two written names are the same person under the one rule."""
    ka, kb = name_key(a), name_key(b)
    return bool(ka) and ka == kb


def is_configured(name: str, configured: Iterable[str]) -> bool:
    """Whether *name* is one of the store's configured human names."""
    key = name_key(name)
    return bool(key) and any(key == name_key(n) for n in configured if isinstance(n, str))


def names_in(name: str, text: str) -> bool:
    """Whether *text* names the person *name* (compared by :func:`name_key`; a Latin name
    only as a whole word, so Mika is not named by "Mikael")."""
    key = name_key(name)
    if not key:
        return False
    hay = fold(text).lower()
    start = hay.find(key)
    while start >= 0:
        end = start + len(key)
        before = hay[start - 1] if start else " "
        after = hay[end] if end < len(hay) else " "
        latin = key[0].isascii() and key[0].isalpha()
        if not latin or not (_word_char(before) or _word_char(after)):
            return True
        start = hay.find(key, start + 1)
    return False


def _word_char(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch == "_")


# =========================================================================== bare names

#: Common Chinese surnames (simplified and traditional forms). A bare name -- a surname and
#: one or two characters, no title -- is read as a person only where a person is expected:
#: before a verb of saying or deciding, or as a speaker label. Surnames that are also common
#: words at the start of a clause (曾 "once", 向 "towards", 莫 "do not", 钱 "money", 钟 "clock")
#: are left out.
ZH_SURNAMES = "".join(sorted(lexicon.words("names_zh_surnames", ("zh",))))
#: Words that start with a surname's character but name no one (times, quantities,
#: adverbs, things): a bare name is never read where one of these stands.
ZH_NOT_NAMES = lexicon.words("names_zh_not_names")
#: Common Japanese family names (two characters or more: a one-character name is too often
#: a word). Read as a person before が/は/も in a clause that says or decides something, or
#: as a speaker label.
JA_SURNAMES = lexicon.words("names_ja_surnames")
#: Words that open a line with a colon or a dash without being anyone's name: headings,
#: markers and field names. A label that is one of them (or starts with one) is no speaker.
HEADINGS = lexicon.words("names_headings")


#: Given names common in English-speaking, European, South and East Asian, Latin American
#: and African families, written in the Latin alphabet, lower case. A bare "Name:" at a line
#: start is a speaker when its first word is one of them; any other capitalised word there
#: ("Kitchen:", "Postgres:") is a speaker only when the text shows a conversation or a
#: person by that name (see ``attribution._label_claims``).
_GIVEN_NAMES_TEXT = """
    aaron abby abdul abigail adam adrian ahmed aisha akira alan albert alex alexander alexandra
    alfredo ali alice alicia alison amanda amber amelia amir amit amy ana anand andrea andreas
    andrew andy angela anil anita ann anna anne annie anthony antonio anya arjun arthur asha
    ashley aya ayumi barbara ben benjamin beth betty bill bob bobby brandon brenda brian bruce
    bruno carl carla carlos carmen carol caroline catherine charles charlie chen chloe chris
    christina christine christopher claire clara daisuke dan daniel danielle daria dave david
    deborah debbie deepak denise dennis diana diego dmitri donald donna doug dylan ed eddie
    edward elena eli elizabeth ella ellen emily emma eric erik erin ethan eva evan fatima felix
    fernando fiona frank fred gabriel gary george grace greg hana hannah hans harry haruka
    haruto hector helen henry hiro hiroshi hiroko hugo ian igor ingrid isaac isabel ivan jack
    jacob james jamie jan jane janet jason jay jean jeff jennifer jenny jerry jessica jim jin
    joan joe joel johan john jon jonas jonathan jorge jose joseph josh joshua juan judy julia
    julie jun justin kai kaito karen karl kate katie kathy keiko ken kenji kenta kevin kim
    kumar kyle lakshmi laura lauren lee leo li liam lily linda lisa liz lucas lucy luis luke
    maria mariko mario mark marta martin mary matt matthew max maya megan mei mel melissa mia
    michael michelle miguel mika mike miki min mohammed mohamed nadia nancy naomi naoki natalie
    nathan neha nick nicole nikhil nina noah nora olga oliver olivia omar oscar pablo pam patrick
    paul paula pedro peter phil priya rachel rahul raj rajesh ravi ray rebecca ren riya rob
    robert robin rosa ruby ryan ryo saki sakura sam samantha sandra sanjay sara sarah satoshi
    scott sean sergei shota simon sofia sophia sophie stephen steve steven sue sunil susan
    takashi taro ted thomas tim tina tom tomo tony tyler uma victor victoria vikram vincent
    wei william xin yan yang yasmin yuki yuko yumi yusuf yuto zara zhang zoe
"""
GIVEN_NAMES = frozenset(_GIVEN_NAMES_TEXT.split())
