"""Short answers: what a person's "b", "the second one", "yes", 「2案で」, 选B picks.

An agent offers options or asks a question, and the person answers in a word. The answer
alone says little; the person's choice is what they picked -- the option's own words, or
the question they said yes to. :func:`picked` reads that from the agent's message right
before the reply, so a memory that says "the user chose a CSV file for the tracker" is
carried by "b." and the option "(b) a CSV file in the repo". Only the option picked is
credited: the others stay the agent's offer, and a yes to an either-or question picks
nothing. Every pattern is anchored or bounded: linear in the texts.
"""

from __future__ import annotations

import json
import re

from . import lexicon
from .text import fold

__all__ = ["picked"]

#: An option the agent lists, one a line: "(b) …", "b) …", "B: …", "2. …", "**Option 2** —",
#: "- A案：…", "方案二：…", "1案: …", "①…".
_OPTION = re.compile(
    r"^[ \t]*+(?:[-*•・][ \t]*+)?(?:\*\*)?[ \t]*+"
    r"(?:(?:option|choice|plan|方案|选项|選項|案)[ \t]*+)?"
    r"\(?(?P<k>[A-Ea-e]|[1-9]|[一二三四五]|[①②③④⑤])\)?(?:案)?(?:\*\*)?"
    r"[ \t]*+(?:[).:：、．—–-]|\*\*)[ \t]*+(?:\*\*)?[ \t]*+(?P<t>\S[^\n]{0,300})$",
    re.IGNORECASE | re.MULTILINE,
)
#: A pick in the first words of a reply.
_PICK = re.compile(
    r"[ \t]*+(?:"
    # "b", "(b)", "B.", "2" alone or before punctuation, 2で, B吧, B案, 2番, 2つ目
    r"\(?(?P<k1>[A-Ea-e]|[1-9])\)?(?:[ \t]*+(?:[.。!！,，:：)]|$|案|番目?|つ目|で|吧|方案|号|號)|[ \t]++(?:please|pls|plz)\b)"
    # "option b", "plan 2", "#2", "number 2"
    r"|(?:go[ \t]++with[ \t]++|let'?s[ \t]++(?:do|go[ \t]++with)[ \t]++|i'?ll[ \t]++take[ \t]++)?"
    r"(?:option|choice|plan|number|no\.|#)[ \t]*+\(?(?P<k2>[A-Ea-e]|[1-9])\b"
    # "the second one", "second", "go with the first"
    r"|(?:go[ \t]++with[ \t]++|let'?s[ \t]++(?:do|go[ \t]++with)[ \t]++)?(?:the[ \t]++)?"
    r"(?P<o>first|second|third|fourth|fifth|last)(?:[ \t]++(?:one|option|choice))?\b"
    # 选B, 选第二个, 第二个, 方案二, 用方案B, 二番目, 一つ目
    r"|(?:选|選|用|要)?(?:第(?P<k3>[一二三四五1-9])(?:个|個|种|種|条|條|项|項|套|个方案)?"
    r"|方案[ \t]*+(?P<k4>[一二三四五1-9A-Ea-e])|(?P<k5>[A-Ea-e1-9])[ \t]*+(?:方案|吧|就行|就好))"
    r"|(?P<k6>[一二三四五])(?:番目|つ目|案)"
    r"|(?:选|選)[ \t]*+(?P<k7>[A-Ea-e1-9])"
    r")",
    re.IGNORECASE,
)
#: Words that take back what came before in the same reply.
_TAKEN_BACK = re.compile(
    r"\bactually\b|\binstead\b|やっぱ|じゃなくて|不对|算了|还是(?!.{0,3}[?？吗])"
)
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}
_CJK_NUMERALS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5}
_CIRCLED = {"①": 1, "②": 2, "③": 3, "④": 4, "⑤": 5}
#: The first clause of a reply, where a yes is read.
_FIRST_CLAUSE = re.compile(r"[^.。!！?？,，、;；\n—]{0,40}")
_QUESTION = re.compile(r"[^.。!！?？\n]{1,300}[?？]")


def _index(key: str) -> int:
    """An option's key as its place in the list (b, 2, 二, ② are all the second)."""
    k = key.lower()
    if k in _ORDINALS:
        return _ORDINALS[k]
    if k in _CJK_NUMERALS:
        return _CJK_NUMERALS[k]
    if k in _CIRCLED:
        return _CIRCLED[k]
    if k.isdigit():
        return int(k)
    return ord(k) - ord("a") + 1


def _options(asked: str) -> dict[int, str]:
    """The options *asked* lists, by place; empty unless it lists two or more with keys of
    one kind in order (a, b, c or 1, 2, 3), so a numbered heading is no offer."""
    found: list[tuple[int, str, str]] = []
    for m in _OPTION.finditer(asked):
        key = m.group("k")
        kind = "letter" if key.isascii() and key.isalpha() else "number"
        found.append((_index(key), kind, m.group("t").strip()))
    if len(found) < 2:
        return {}
    kinds = {k for _i, k, _t in found}
    places = [i for i, _k, _t in found]
    if len(kinds) > 1 or places != list(range(1, len(places) + 1)):
        return {}
    return {i: t for i, _k, t in found}


def _intro(asked: str) -> str:
    """The line that introduces a list of options ("A few options for the tracker:"): what
    the options are for, and so what picking one decides."""
    first = _OPTION.search(asked)
    if first is None:
        return ""
    before = asked[: first.start()].rstrip()
    line = before[before.rfind("\n") + 1 :].strip()
    return line if line.endswith((":", "：", "?", "？")) else ""


#: A code a reply and an option may share: letters, digits and _ . -, with a digit, an
#: underscore or a capital inside (RSA_PUBLIC_KEY_2, PO-2031, v1.9.0, SVC_DBT).
_CODE = re.compile(
    r"(?<![\w.-])(?=[\w.-]*[\d_]|[A-Za-z][\w.-]*[A-Z])[A-Za-z0-9][\w.-]{3,63}(?![\w-])"
)
#: A line that is a JSON list of strings: the options a tool offered (Cline's
#: ask_followup_question, ["Register as RSA_PUBLIC_KEY_2", "Replace RSA_PUBLIC_KEY"]).
_JSON_OPTIONS = re.compile(r"(?m)^[ \t]*\[[ \t]*\"[^\n]{1,800}\][ \t]*$")


#: A reply's first sentence ("yes go ahead, use RSA_PUBLIC_KEY_2 so …"): where it picks.
_FIRST_SENTENCE = re.compile(r"[^。!！?？\n]{0,160}?(?:[.。!！?？](?=\s|$)|\n|$)")


#: A sentence of the agent's message, for the context of an option it offered.
_SENTENCE = re.compile(r"[^.。!！?？\n]{1,400}+(?:[.。!！?？]++|\n)?")


def _listed(asked: str) -> list[str]:
    """The options *asked* offers: a lettered or numbered list, or a JSON list of strings."""
    options = _options(asked)
    if options:
        return [options[k] for k in sorted(options)]
    for m in _JSON_OPTIONS.finditer(asked):
        try:
            got = json.loads(m.group(0))
        except ValueError:
            continue
        if isinstance(got, list) and len(got) >= 2 and all(isinstance(x, str) for x in got):
            return got
    return []


def _codes(text: str) -> set[str]:
    return {c.rstrip(".-").lower() for c in _CODE.findall(fold(text))}


def _named_option(reply: str, asked: str) -> str:
    """The option a reply names by a code only it holds ("use RSA_PUBLIC_KEY_2 so …" for
    "Register as RSA_PUBLIC_KEY_2"), with the question that offered it; "" otherwise."""
    options = _listed(asked)
    if len(options) < 2:
        return ""
    first = _FIRST_SENTENCE.match(reply)
    said = _codes(first.group(0) if first else reply)
    if not said:
        return ""
    codes = [_codes(o) for o in options]
    holding = [o for o, c in zip(options, codes, strict=True) if said & c]
    if len(holding) != 1:
        return ""
    others = set().union(*(c for o, c in zip(options, codes, strict=True) if o != holding[0]))
    others -= _codes(holding[0])
    end = asked.find(holding[0])
    line_start = asked.rfind("\n", 0, end) if end >= 0 else -1
    before = asked[:line_start] if line_start >= 0 else ""
    # what the message says around the offer, but no sentence that names another option
    # ("…as RSA_PUBLIC_KEY_2, or replace RSA_PUBLIC_KEY": picking one is not the other)
    context = [
        m.group(0).strip()
        for m in _SENTENCE.finditer(before)
        if m.group(0).strip() and not others & _codes(m.group(0))
    ]
    return "\n".join([*context[-3:], holding[0]])


def picked(reply: str, asked: str) -> str:
    """What a person's *reply* picks from the agent's message *asked* just before it: the
    text of the option it names, or the question it says yes to ("" when it picks
    nothing, names an option the message does not list, or says yes to an either-or)."""
    if not reply or not asked:
        return ""
    if _TAKEN_BACK.search(fold(reply[:400]).lower()) or lexicon.search(
        "retraction", fold(reply[:400]).lower()
    ):
        return ""  # "a. definitely a. actually hmm, make it 5pm": the pick is taken back
    head = fold(reply[:80])
    m = _PICK.match(head)
    if m is None:  # "うん、1案でいく", "ok, option b": a yes before the pick
        lead = _FIRST_CLAUSE.match(head)
        said = lead.group(0).strip().lower() if lead else ""
        if said in lexicon.words("answer_yes") and lead and lead.end() < len(head):
            m = _PICK.match(head, lead.end() + 1)
    options = _options(asked)
    if m and options:
        key = next((g for g in m.groupdict().values() if g), "")
        option = options[max(options)] if key.lower() == "last" else options.get(_index(key), "")
        intro = _intro(asked)
        return f"{intro}\n{option}" if option and intro else option
    named = _named_option(fold(reply[:200]), asked)
    if named:
        return named
    first = _FIRST_CLAUSE.match(head)
    said = first.group(0).strip().lower() if first else ""
    if said and said in lexicon.words("answer_yes") and not options:
        questions = _QUESTION.findall(asked[-600:])
        if questions:
            question = questions[-1].strip()
            if not lexicon.pattern("answer_either").search(fold(question).lower()):
                return question.rstrip("?？").strip()
    return ""
