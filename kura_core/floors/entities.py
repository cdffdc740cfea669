"""Names of things in stored text, vouched like quantities (SPEC §5.4 *Content*).

A model that wants a false fact stored swaps a name while everything else stays true:
"£18.40 from Halden" for the evidence's "from Thorne", 石桥镇第二小学 for 石桥镇中心小学.
A name is read where its spelling marks it, and it must occur in the text that vouches:

* **Latin names** -- a capitalised word inside a sentence ("from Halden", "the Shopify
  plan", "改用Mailchimp"), and a word with capitals inside it (PostgreSQL, GitHub). A word
  that opens a sentence, a line or a field is not read (its capital says nothing), nor a
  field written in Title Case, nor an acronym (CSV, DNS: formats and abbreviations, not
  who or where).
  Months, weekdays and the common words of the list ``names_common`` are no names.
* **Places and organisations in Chinese and Japanese** -- a run of Han characters that ends
  in a suffix which names a place or an institution (市, 区, 镇, 駅, 小学, 病院, 公司 …, the
  list ``names_place_suffixes``), read from after its last function character (地点为石桥镇
  is 石桥镇); its last two characters before the suffix (and the suffix) must occur. A run
  whose last characters are a demonstrative or a counter (这所小学, 各駅), a common word
  that ends like a place (城市, 超市), or a common word of the list ``glossary`` before the
  suffix (通知酒店: "notify the hotel"), names nothing.

What vouches is compared folded (:func:`.text.fold`) with Latin case ignored; a Latin name
must occur as a whole word. Everything here is linear in the text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from ..script import CJK_CHAR, HAN
from . import lexicon
from .names import GIVEN_NAMES, JA_SURNAMES, ZH_SURNAMES, name_key
from .readings import Readings
from .text import fold

__all__ = ["KinNameFinder", "NameVouchers", "names_in_text", "people_in_text", "unvouched_names"]

_COMMON = lexicon.words("names_common")
#: English function words: "The" of "The Orchid Lawns" names nothing by itself.
_FUNCTION = lexicon.words("units_english_function_words", ("en",))


def _common(word: str) -> bool:
    """Whether a capitalised word is one of the common words or an English function word,
    or the plural of a common one (Thursdays, Mondays)."""
    low = word.lower()
    return low in _COMMON or low in _FUNCTION or (low.endswith("s") and low[:-1] in _COMMON)


_SUFFIXES = sorted(lexicon.words("names_place_suffixes"), key=len, reverse=True)
_NOT_HEADS = lexicon.words("names_not_heads")
_NOT_PLACES = lexicon.words("names_not_places")
_BREAKS = lexicon.words("names_breaks")
_DEICTIC = lexicon.words("names_deictic_heads")
_OPENERS = lexicon.words("names_deictic_openers")
_GRAMMAR_CHARS = lexicon.words("function_chars", ("zh",))


def _name_char(ch: str) -> bool:
    """A character a place's name may have before its last (Han or katakana, no grammar)."""
    return bool(_NAME_CHAR.fullmatch(ch)) and ch not in _GRAMMAR_CHARS


#: The Chinese and Japanese words of the list ``glossary``: common words (通知, 确认, 预订),
#: which before a place's suffix make a phrase (通知酒店 is "notify the hotel"), not a name.
_COMMON_CJK = frozenset(
    part.strip()
    for line in lexicon.words("glossary")
    for part in line.split("|")
    if not part.strip().isascii() and len(part.strip()) >= 2
) | lexicon.words("names_not_before")
#: What after a one-character suffix makes it begin another word: 校長, 校舎, 店長, 店舗.
_SUFFIX_WORDS = {
    "校": "長舎内則門外庭章歌友風正務",
    "店": "長舗铺鋪員员頭头内主名里裡休",  # 店里: "in the shop"; 店休: the shop's day off
    "区": "分画域間切別",  # 高齢区分: a classification, no ward
    "市": "場民販況価",
    "町": "内民",
    "県": "民内外道庁",
    "村": "民内",
    "駅": "前員長",
    "館": "長内員",
}
#: Compound nouns an institution's suffix begins (公司账号, 银行卡), by suffix.
_COMPOUNDS: dict[str, list[str]] = {}
for _c in lexicon.words("names_noun_suffixes"):
    for _s in _SUFFIXES:
        if _c.startswith(_s) and len(_c) > len(_s):
            _COMPOUNDS.setdefault(_s, []).append(_c)
            break

#: A Latin word: letters, with an inner apostrophe, hyphen or ampersand.
_LATIN_WORD = re.compile(
    r"(?<![A-Za-z0-9_./@#-])[A-Za-z][A-Za-z'’]*(?:-[A-Za-z]+)*(?![A-Za-z0-9_/@])"
)
#: What, before a word (spaces aside), keeps it inside a sentence: a letter or a digit
#: of any script, or one of these. After anything else (a sentence's end, a colon, a
#: bracket, a bullet, an emoji) the word's capital is the sentence's, not a name's.
_INSIDE = frozenset(",，、&/+'’")
_WORD = re.compile(r"[A-Za-z]{2,}")
_ASCII_WORD = re.compile(r"[a-z0-9]+")
#: A Latin word written in camel case, and its parts (NotoSerifCJK: Noto, Serif, CJK).
_CAMEL_WORD = re.compile(r"[A-Za-z0-9]+")
_LOWER_UPPER = re.compile(r"[a-z][A-Z]")
_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_PLACE = (
    re.compile(rf"[{HAN}]{{2,8}}?(?:{'|'.join(map(re.escape, _SUFFIXES))})")
    if _SUFFIXES
    else re.compile(r"(?!)")
)


def _title_case(text: str) -> bool:
    """A field written in Title Case ("Belt Supplier For The Press"): its capitals mark
    nothing."""
    words = _WORD.findall(text)[1:]
    if len(words) < 2:
        return False
    return sum(w[0].isupper() for w in words) * 4 >= len(words) * 3


def _opens(text: str, at: int) -> bool:
    """Whether a word at *at* opens its sentence, line, field or quotation."""
    i = at - 1
    while i >= 0 and text[i] in " \t\u3000":
        i -= 1
    return i < 0 or not (text[i].isalnum() or text[i] in _INSIDE)


def _latin_names(text: str) -> list[str]:
    cjk = bool(CJK_CHAR.search(text))
    titled = not cjk and _title_case(text)
    out = []
    for m in _LATIN_WORD.finditer(text):
        word = m.group(0).rstrip("'’")
        if word.endswith(("'s", "’s")):
            word = word[:-2]
        head, dash, rest = word.partition("-")
        if dash and rest[:1].islower() and head[:1].isupper():
            word = head  # "the Ikeja-pump recommendation": the name is Ikeja, the rest a word
        if len(word) < 3 or _common(word):
            continue
        inner = any(c.isupper() for c in word[1:])
        if word.isupper():
            continue  # an acronym
        if inner and any(c.islower() for c in word[1:]):
            if len(word) > 3:  # PostgreSQL, GitHub, iPhone; not TiB, kWh, mAh
                out.append(word)
            continue
        if not word[0].isupper() or titled:
            continue
        if _opens(text, m.start()):
            continue
        out.append(word)
    return out


def _place_names(text: str) -> list[str]:
    out = []
    for m in _PLACE.finditer(text):
        run = m.group(0)
        suffix = next(s for s in _SUFFIXES if run.endswith(s))
        head = run[: -len(suffix)]
        cut = max((head.rfind(c) for c in _BREAKS.intersection(head)), default=-1)
        head = head[cut + 1 :]  # 地点为石桥镇: the name starts after 为
        if not head or head[-1] in _NOT_HEADS or head[:-1][-1:] in _NOT_HEADS:
            continue
        if head[-1] in _DEICTIC or (
            head[-1] in _OPENERS and (len(head) == 1 or not _name_char(head[-2]))
        ):
            continue  # 我市, 给本区快递员: our city, this district; 松本市 stays a name
        if head[-1] in _NUMERALS and head[-2:-1] != "第":
            continue  # 三店合计, 两校: a count of places (第三小学 stays a name)
        if head[-1] + suffix in _NOT_PLACES or head[-2:] + suffix in _NOT_PLACES:
            continue  # 城市, 超市, 小区: a common word that ends like a place
        if head[-2:] in _COMMON_CJK:
            continue  # 通知酒店, 确认酒店: a common word before the suffix, not a name
        at = m.end() - len(suffix)
        if any(text.startswith(c, at) for c in _COMPOUNDS.get(suffix, ())):
            continue  # 检查公司账号: the suffix begins a compound noun
        if text[m.end() : m.end() + 1] in _SUFFIX_WORDS.get(suffix, ""):
            continue  # 山口校長, 駅前店舗: a one-character suffix that begins another word
        out.append(head[-2:] + suffix)
    return out


#: A person called by a familiar prefix and a surname: 小刘, 老王, 阿李.
FAMILIAR_NAME = re.compile(rf"[老小阿][{ZH_SURNAMES}]")


def _familiar_names(text: str) -> list[str]:
    """People named by a familiar prefix and a surname (司机小刘, 老王说): names, vouched like
    the rest."""
    return [m.group(0) for m in FAMILIAR_NAME.finditer(text)]


#: A title in kanji after a family name (高橋様, 藤井医師, 森部長): the name ends before it.
_JA_TITLES = (
    "(?:様|氏|君|殿|先生|医師|看護師|部長|課長|社長|院長|教授|主任|係長|室長|店長|所長|会長|"
    "専務|常務|弁護士|税理士|副社長|次長|先輩|選手|監督|議員|委員|理事|代表)"
)
#: A Japanese family name of the list standing as a word: no kanji right before or after
#: it but a title (担当は佐々木。, 佐々木さん, 高橋様; not 山田錦, a rice, or 中村屋).
_JA_SURNAME = re.compile(
    rf"(?<![{HAN}々])(?:{'|'.join(sorted((n for n in JA_SURNAMES if len(n) >= 2), key=len, reverse=True))})"
    rf"(?:(?![{HAN}々])|(?={_JA_TITLES}))"
)


def _ja_family_names(text: str) -> list[str]:
    """Japanese family names of the list the text gives as words, vouched like the rest."""
    return [m.group(0) for m in _JA_SURNAME.finditer(text)]


#: A Latin name as the one who does something in a clause: before an auxiliary, a modal
#: or a verb of saying or deciding ("Kemar has to approve", "Andre will pre-record").
_DOER = re.compile(
    r"\s*(?:has|had|is|was|will|would|must|should|can|could|may|might|does|did|needs?|wants?"
    r"|said|says|told|asked|agreed|decided|approves?|approved|handles?|covers?|keeps?|gets?"
    r"|takes?|runs?|owns?|signs?|pays?|sends?|sent|calls?|called|wrote|writes?|'ll|’ll)\b"
)


def people_in_text(text: str, speakers: Iterable[str] = ()) -> list[str]:
    """The people *text* names, once each: a Latin name known as a given name, one of
    *speakers* (the labels someone speaks under in the session) or one that does
    something in its clause, a familiar name (老王, 小刘) and a Japanese family name of
    the list. A name that qualifies a thing (the Pemberton cupcakes) is no one here."""
    known = {name_key(s) for s in speakers if isinstance(s, str)}
    out: list[str] = []
    for line in text.splitlines():
        folded = fold(line)
        for name in _latin_names(folded):
            if " " in name:
                continue
            if name.lower() in GIVEN_NAMES or name_key(name) in known:
                out.append(name)
                continue
            at = folded.find(name)
            if at >= 0 and _DOER.match(folded, at + len(name)):
                out.append(name)
        out += _familiar_names(folded) + _ja_family_names(folded)
    return list(dict.fromkeys(out))


def names_in_text(text: str) -> list[str]:
    """The names *text* writes that must be vouched, in order, once each."""
    found: list[str] = []
    for line in text.splitlines():  # folded line by line: a line's start opens a sentence
        folded = fold(line)
        found += (
            _latin_names(folded)
            + _place_names(folded)
            + _familiar_names(folded)
            + _ja_family_names(folded)
            + _listed_names(folded)
        )
    return list(dict.fromkeys(found))


def _listed_names(text: str) -> list[str]:
    """Places the list ``names_same`` spells in Chinese or Japanese (墨西哥, メキシコ, 大阪):
    names as a capitalised word is, vouched by any spelling of their line. A katakana name
    inside a longer katakana word (タイ of タイヤ) is none."""
    if not _LISTED.pattern:
        return []
    out = []
    for m in _LISTED.finditer(text):
        before = text[m.start() - 1 : m.start()]
        after = text[m.end() : m.end() + 1]
        if _KATAKANA.fullmatch(m.group(0)[:1]) and (
            _KATAKANA.fullmatch(before or " ") or _KATAKANA.fullmatch(after or " ")
        ):
            continue
        out.append(m.group(0))
    return out


#: Marks that quote a name or a title without being part of it.
_QUOTE_MARKS = re.compile("[\"'`\u2018\u2019\u201c\u201d\u300c-\u300f\u3008-\u3011\u00ab\u00bb]")


#: Suffixes that make a region of any place (中国区, 美区): the place named is the head.
_REGION_SUFFIXES = frozenset({"区", "地区", "区域", "區", "地區"})
_BRANCHES = lexicon.words("names_branch_suffixes")


class NameVouchers:
    """The evidence a text's names are looked up in, folded once for every field checked
    against it (the person's configured names need no evidence: they are the store's own)."""

    def __init__(self, evidence: Iterable[str], human_names: Iterable[str] = ()) -> None:
        self._evidence = list(evidence)
        self._own = {name_key(n) for n in human_names if isinstance(n, str)}
        self._blob = ""
        self._words: set[str] | None = None
        self._bare: str | None = None
        self._readings: Readings | None = None

    def unvouched(self, text: str) -> list[str]:
        """The names of *text* that occur in none of the evidence, in any spelling or in
        a reading of its Chinese or Japanese (Li Wei for 李伟, Suzuki for 鈴木)."""
        return self.unvouched_of(names_in_text(text), text)

    def unvouched_of(self, names: Iterable[str], text: str) -> list[str]:
        """Those of *names* (found in *text*) that occur in none of the evidence, in any
        spelling or reading."""
        out = self.missing(names)
        if out and CJK_CHAR.search(self._blob):
            if self._readings is None:
                self._readings = Readings(self._blob)
            out = [n for n in out if not (n.isascii() and self._readings.vouched(n, text))]
        return out

    def missing(self, names: Iterable[str]) -> list[str]:
        """Those of *names* that occur in none of the evidence."""
        names = [n for n in names if name_key(n) not in self._own]
        if not names:
            return []
        if self._words is None:  # folded on the first name asked about, not before
            folded = fold("\n".join(self._evidence))
            self._blob = folded.lower()
            # a word's camel-case parts too: "Noto Serif CJK" of NotoSerifCJK-Regular.ttc
            self._words = set(_ASCII_WORD.findall(self._blob)) | {
                part.lower()
                for word in _CAMEL_WORD.findall(folded)
                if _LOWER_UPPER.search(word)
                for part in _CAMEL.findall(word)
            }
        out = []
        for name in names:
            if not any(self._has(k) for k in _spellings(name)):
                out.append(name)
        return out

    def _has(self, key: str) -> bool:
        assert self._words is not None
        if key.isascii():
            return (
                key in self._words or _in_words(key, self._blob) or _before_digits(key, self._blob)
            )
        return key in self._blob or key in self._unquoted() or self._shortened(key)

    def _shortened(self, key: str) -> bool:
        """Whether a place or a branch is a shortened form of one the evidence writes in
        full: 虹桥店 for 上海虹桥国家会展中心店 (its head, then its suffix a few characters on)."""
        if len(key) < 3 or not _PLACE.fullmatch(key):
            return False
        suffix = next((s for s in _SUFFIXES if key.endswith(s)), "")
        head = key[: -len(suffix)] if suffix else ""
        if len(head) < 2:
            return False
        if (suffix in _REGION_SUFFIXES or suffix in _BRANCHES) and head in self._blob:
            # 中国区 of a store for the 中国 its table lists, 中洲店 for the stall in 中洲:
            # the region or the branch of a place
            return True
        at = self._blob.find(head)
        while at >= 0:
            if suffix in self._blob[at + len(head) : at + len(head) + 12]:
                return True
            at = self._blob.find(head, at + 1)
        return False

    def _unquoted(self) -> str:
        """The folded evidence without quotation marks and title brackets: a name the
        evidence quotes (用"竹乡驿站", 「さくら薬局」で) is the same name written bare."""
        if self._bare is None:
            self._bare = _QUOTE_MARKS.sub("", self._blob)
        return self._bare


def _load_same() -> dict[str, tuple[str, ...]]:
    """Each spelling of a name on a line of ``names_same``, with every spelling of its line."""
    out: dict[str, tuple[str, ...]] = {}
    for line in lexicon.words("names_same"):
        spellings = tuple(dict.fromkeys(p.strip().lower() for p in line.split("|") if p.strip()))
        for p in spellings:
            out[p] = tuple(dict.fromkeys((*out.get(p, ()), *spellings)))
    return out


_SAME = _load_same()
#: The home countries of the two languages read (日本, 中国): a memory names them without
#: the evidence having to (日本円, 中国語), so they are never asked for.
_HOME = frozenset({"日本", "中国", "中國", "ニッポン"})
_LISTED = re.compile(
    "|".join(
        sorted(
            (re.escape(k) for k in _SAME if not k.isascii() and len(k) >= 2 and k not in _HOME),
            key=len,
            reverse=True,
        )
    )
)
_KATAKANA = re.compile("[\u30a1-\u30fa\u30fc]")
#: An acronym's plural: "SHAs", "PRs", "APIs" are the SHA, PR and API of the evidence.
_ACRONYM_PLURAL = re.compile(r"[A-Z][A-Z0-9]+s")


def _spellings(name: str) -> tuple[str, ...]:
    """The spellings a name may be found under in the evidence, lower-cased: itself, an
    acronym's singular, and its other spellings in ``names_same`` (Tokyo, 東京, 东京)."""
    key = name.lower()
    out = [key]
    if _ACRONYM_PLURAL.fullmatch(name):
        out.append(key[:-1])
    for k in list(out):
        out.extend(_SAME.get(k, ()))
    return tuple(dict.fromkeys(out))


def unvouched_names(
    text: str, evidence: Iterable[str], human_names: Iterable[str] = ()
) -> list[str]:
    """The names of *text* that occur in none of *evidence*."""
    return NameVouchers(evidence, human_names).unvouched(text)


def _before_digits(key: str, blob: str) -> bool:
    """Whether *key* is in *blob* as a word glued to a version (py3.10, node20): a
    runtime's name as it is written with its version."""
    if key not in lexicon.words("version_prefixes"):
        return False
    at = blob.find(key)
    while at >= 0:
        end = at + len(key)
        if (at == 0 or not blob[at - 1].isalnum()) and blob[end : end + 1].isdigit():
            return True
        at = blob.find(key, at + 1)
    return False


def _in_words(key: str, blob: str) -> bool:
    """Whether *key* (a Latin name with a hyphen or an apostrophe in it) is in *blob* as
    whole words."""
    at = blob.find(key)
    while at >= 0:
        end = at + len(key)
        # a Chinese or Japanese character glued on ends a Latin word too (e-Taxをご利用)
        if (at == 0 or not _latin_alnum(blob[at - 1])) and (
            end == len(blob) or not _latin_alnum(blob[end])
        ):
            return True
        at = blob.find(key, at + 1)
    return False


def _latin_alnum(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


# =========================================================================== swapped words

#: How wide a window of a copied phrase is compared, and where in it a swap may stand:
#: two characters of the phrase stay on each side of what was changed.
_SWAP_WINDOW = 6
_SWAP_AT = ((2,), (3,))
_NAME_CHAR = re.compile(rf"[{HAN}\u30a1-\u30fa\u30fc-\u30ff]")


def _swappable(ch: str) -> bool:
    """A character a name is written in (Han, katakana) that is not grammar (的, 是, a
    pronoun: they change in an honest retelling)."""
    return bool(_NAME_CHAR.fullmatch(ch)) and ch not in _SWAP_NOT


_SWAP_NOT = lexicon.words("swap_not")


class SwapFinder:
    """Phrases a text copies from its evidence with one name-like character changed:
    息子の健二に for 息子の健太に, 农技站的李工 for 农技站的赵工, 信州アグロテック for
    信州アグリテック. A Chinese or Japanese window of the text that occurs nowhere in the
    evidence, but matches a window of the evidence except one Han or katakana character in
    its middle (two characters of the phrase on each side), has swapped it. Two characters
    changed together are not read: an honest retelling changes a word that way (建议 for
    应该), and so 豆豆 for 朵朵 passes. The evidence is indexed once: each window with its
    middle blanked."""

    def __init__(self, evidence: Iterable[str]) -> None:
        self._windows: set[str] = set()
        self._keys: dict[str, set[str]] = {}
        self._texts: list[str] = []
        for text in evidence:
            windows, keys = _swap_index(text)
            if keys:
                self._texts.append(fold(text))
            self._windows |= windows
            for k, v in keys.items():
                self._keys.setdefault(k, set()).update(v)

    def swapped(self, text: str) -> list[str]:
        """The phrases of *text* with a swapped name-like character, each as written."""
        if not self._keys:
            return []
        folded = fold(text)
        out: list[str] = []
        for i in range(len(folded) - _SWAP_WINDOW + 1):
            w = folded[i : i + _SWAP_WINDOW]
            if w in self._windows or not _phrase(w):
                continue
            for at in (*_SWAP_AT, (4,)) if _name_end(w) else _SWAP_AT:
                got = "".join(w[p] for p in at)
                were = self._keys.get(_blank(w, at))
                if not were or got in were or not all(_swappable(c) for c in got):
                    continue
                if at != (4,) and not _inside_clause(w, at[0]):
                    continue  # 备货，下 for 备点，下: a clause edge beside it, no name phrase
                if _weekday(w, at[0]):
                    continue  # 木曜 for 水曜: a weekday, compared exactly as a value is
                if _counted(w, at[0]) or _a_counter(w, at[0]):
                    # 十点 for 九点, もう一度 for もう一回: a figure in words or its counter,
                    # compared as a value is
                    continue
                if _reported_day(w, at[0], were):
                    continue  # 翌日 for 明日: the day retold from the memory's side
                if self._written_elsewhere(w, at[0]):
                    continue  # 来月から, which the evidence writes elsewhere
                if any(all(_swappable(c) for c in was) for was in were):
                    out.append(w)
                    break
        return list(dict.fromkeys(out))

    def _written_elsewhere(self, window: str, at: int) -> bool:
        """Whether the changed character, with the three characters of the window on one
        side of it or around it, is written somewhere in the evidence: the phrase is copied
        from another place of it (ユーザーは来月から where the person wrote 来月から), not
        swapped."""
        runs = {window[i : i + 4] for i in range(max(0, at - 3), min(at, len(window) - 4) + 1)}
        runs = {r for r in runs if all(CJK_CHAR.fullmatch(c) for c in r)}
        return any(r in t for r in runs for t in self._texts)


#: Days a retelling names from its own side: 明日 said is 翌日 retold, 昨日 is 前日, 今日
#: is 当日 (pairs of the first character before 日).
_RETOLD_DAYS = frozenset(
    {frozenset("明翌"), frozenset("昨前"), frozenset("今当"), frozenset("今當")}
)


def _reported_day(window: str, at: int, were: Iterable[str]) -> bool:
    """Whether the changed character and the one it stands for name the same day, told
    by the person and retold by the memory (翌日 for 明日)."""
    if window[at + 1 : at + 2] != "日":
        return False
    return any(frozenset(window[at] + was) in _RETOLD_DAYS for was in were)


@functools.lru_cache(maxsize=4096)
def _swap_index(text: str) -> tuple[frozenset[str], dict[str, frozenset[str]]]:
    """One evidence text's windows for :class:`SwapFinder`, and each window with its middle
    blanked (computed once per text: every candidate of a batch reads the same segments)."""
    t = fold(text)
    windows: set[str] = set()
    keys: dict[str, set[str]] = {}
    if CJK_CHAR.search(t) is None:
        return frozenset(), {}
    for i in range(len(t) - _SWAP_WINDOW + 1):
        w = t[i : i + _SWAP_WINDOW]
        if w in windows or not _phrase(w):
            continue
        windows.add(w)
        for at in (*_SWAP_AT, (4,)) if _name_end(w) else _SWAP_AT:
            keys.setdefault(_blank(w, at), set()).add("".join(w[p] for p in at))
    return frozenset(windows), {k: frozenset(v) for k, v in keys.items()}


def _inside_clause(window: str, at: int) -> bool:
    """Whether the two characters on each side of *at* are Chinese or Japanese writing,
    not a mark between clauses: a name stands inside its phrase."""
    return all(CJK_CHAR.fullmatch(window[p]) for p in range(at - 2, at + 3) if p != at)


def _name_end(window: str) -> bool:
    """Whether a window ends on a two-character Chinese name closing its sentence or clause
    (…转给刘畅。): a surname, its given name, then a mark. Only there may the given name be
    the swapped character without two characters after it."""
    return window[3] in ZH_SURNAMES and not window[5].isalnum()


_WEEKDAY_CHARS = frozenset("月火水木金土日一二三四五六天")


#: Figures written in words, and what counts them right after (点, 時, 月, 个 …): a
#: quantity, not a name (健二 stays a name: に is no counter).
_NUMERALS = frozenset("〇零一二三四五六七八九十百千万两兩半")
_COUNTS = frozenset(c for c in lexicon.words("units_cjk_counters") if len(c) == 1) | frozenset(
    "点點時时分秒月日号號年天周週歳岁度倍割成元円"
)


def _counted(window: str, at: int) -> bool:
    """Whether the character at *at* is a figure in words that a counter follows."""
    return window[at] in _NUMERALS and window[at + 1 : at + 2] in _COUNTS


def _a_counter(window: str, at: int) -> bool:
    """Whether the character at *at* is a counter right after a figure in words (度 of
    一度, 回 of 一回)."""
    return at > 0 and window[at - 1] in _NUMERALS and window[at] in _COUNTS


def _weekday(window: str, at: int) -> bool:
    """Whether the character at *at* names a weekday: 水 of 水曜, 三 of 周三 or 星期三."""
    ch = window[at]
    if ch not in _WEEKDAY_CHARS:
        return False
    after = window[at + 1 : at + 2]
    before = window[max(0, at - 2) : at]
    return after == "曜" or before.endswith(("周", "週", "期", "拜"))


def _phrase(window: str) -> bool:
    """A window of Chinese or Japanese writing: its characters CJK or punctuation, no space,
    no Latin letter or digit, and at least four CJK."""
    if any(c.isspace() or (c.isascii() and c.isalnum()) for c in window):
        return False
    return sum(1 for c in window if CJK_CHAR.fullmatch(c)) >= 4


def _blank(window: str, at: tuple[int, ...]) -> str:
    return "".join("\0" if i in at else c for i, c in enumerate(window))


#: A word of Latin text or a figure, as the word swap finder compares them; a phrase ends
#: at punctuation (a window never joins two clauses or two cells).
_SWAP_WORD = re.compile(r"[A-Za-z][A-Za-z0-9&-]*|\d[\d.]*")
_PHRASE_END = re.compile(r"[.,;:!?()\[\]{}\"“”|\n\t]|\s[-–—]\s")
_WORD_WINDOW = 4
#: Where in a window a name may be swapped: after the first word (a sentence's first word
#: is capitalised by grammar, not by being a name).
_WORD_AT = (1, 2, 3)


def _latin_name(word: str) -> bool:
    """A word that may be a name: capitalised, three letters and more, not a common word."""
    return len(word) >= 3 and word[0].isupper() and not _common(word)


class WordSwapFinder:
    """The Latin twin of :class:`SwapFinder`: a phrase of four words copied from the
    evidence with one name in its middle replaced by another ("cancel the Shopify plan" for
    "cancel the Mailchimp plan", "ask Allianz about insurance" for "ask HUK about
    insurance"). Only a capitalised word standing where the evidence has a capitalised
    word is read: a retelling changes other words freely."""

    def __init__(self, evidence: Iterable[str]) -> None:
        self._windows: set[tuple[str, ...]] = set()
        self._keys: dict[tuple[str, ...], set[str]] = {}
        for words in (w for text in evidence for w in _phrases(text)):
            for i in range(len(words) - _WORD_WINDOW + 1):
                w = tuple(words[i : i + _WORD_WINDOW])
                low = tuple(x.lower() for x in w)
                self._windows.add(low)
                for at in _WORD_AT:
                    if _latin_name(w[at]):
                        self._keys.setdefault(_blank_word(low, at), set()).add(low[at])

    def swapped(self, text: str) -> list[str]:
        if not self._keys:
            return []
        out: list[str] = []
        for words in _phrases(text):
            out.extend(self._swapped_in(words))
        return list(dict.fromkeys(out))

    def _swapped_in(self, words: list[str]) -> list[str]:
        out: list[str] = []
        for i in range(len(words) - _WORD_WINDOW + 1):
            w = tuple(words[i : i + _WORD_WINDOW])
            low = tuple(x.lower() for x in w)
            if low in self._windows:
                continue
            for at in _WORD_AT:
                were = self._keys.get(_blank_word(low, at))
                if were and low[at] not in were and _latin_name(w[at]):
                    out.append(w[at])
                    break
        return out


def _phrases(text: str) -> list[list[str]]:
    """The phrases of *text* (parted at punctuation), each as its words and figures, a
    possessive 's taken off (Okafor's is Okafor)."""
    out = []
    for part in _PHRASE_END.split(fold(text).replace("'s ", " ").replace("’s ", " ")):
        words = _SWAP_WORD.findall(part)
        if len(words) >= _WORD_WINDOW:
            out.append(words)
    return out


def _blank_word(words: tuple[str, ...], at: int) -> tuple[str, ...]:
    return tuple("\0" if i == at else x for i, x in enumerate(words))


# =========================================================================== relatives' names

_KIN = sorted(lexicon.words("kin_terms"), key=len, reverse=True)
#: A relative, then the name the text gives them: 長女の美咲が, 息子・健太は, 女儿叫朵朵，
#: (a Japanese name after の only before が, は or も, or a title: 妻の実家に names no one).
_KIN_NAME = re.compile(
    rf"(?P<kin>{'|'.join(map(re.escape, _KIN))})"
    r"(?:(?:の|・|、)?(?P<ja>[\u4e00-\u9fff々]{1,3}?|[\u30a1-\u30fa\u30fc]{2,8}|[\u3041-\u3096]{2,4}?)"
    r"(?=[がはも、]|さん|ちゃん|くん|君)"
    r"|(?:叫|名叫|名字叫|名字是)(?P<zh>[\u4e00-\u9fff]{1,3}?)"
    r"(?=[，,。、；\s]|说|說|对|對|今年|也|都|和|跟|在|是|$))"
)
#: Words that follow a relative and the particle の without being their name (妻の実家は).
_KIN_NOT_NAMES = lexicon.words("kin_not_names")


def _kin_names(text: str) -> list[tuple[str, str]]:
    out = []
    for m in _KIN_NAME.finditer(text):
        name = m.group("ja") or m.group("zh")
        if name not in _KIN_NOT_NAMES:
            out.append((m.group("kin"), name))
    return out


class KinNameFinder:
    """A relative the evidence names, given another name: 长女の美沙 for the evidence's
    長女の美咲, 女儿叫豆豆 for 女儿叫朵朵. Only a relative the evidence itself names is
    read (a name for one it does not name is vouched as any name is), and a name the
    evidence gives anywhere passes (the text may put it to another relative)."""

    def __init__(self, evidence: Iterable[str]) -> None:
        texts = [fold(t) for t in evidence]
        self._blob = "\n".join(texts)
        self._named: dict[str, set[str]] = {}
        for t in texts:
            for kin, name in _kin_names(t):
                self._named.setdefault(kin, set()).add(name)

    def swapped(self, text: str) -> list[str]:
        if not self._named:
            return []
        out: list[str] = []
        for kin, name in _kin_names(fold(text)):
            names = self._named.get(kin)
            if names and name not in names and name not in self._blob:
                out.append(name)
        return list(dict.fromkeys(out))
