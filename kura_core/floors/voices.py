"""Voices inside the person's turn: which spans of a USER segment are not their own words.

A person pastes what others wrote -- a forwarded mail, a quoted block, meeting minutes, a
chat log, another agent's hand-off -- into their own message, and a journal files all of
it as USER. What those spans say is their speakers', not the person's: the gate files a
quote from one as TOOL (it vouches figures, and what its own speaker said), never as the
person's words.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ..vocabulary import PROVENANCE_CLASSES
from . import lexicon
from .names import GIVEN_NAMES
from .text import fold

__all__ = ["Voice", "introduced", "voices"]


@dataclass(frozen=True)
class Voice:
    """A span of a USER segment that is not the person's own words: material they pasted
    (a forwarded mail, a quoted block, minutes, a chat log, another agent's hand-off) or a
    line under another speaker's label. ``start``/``end`` are offsets in the segment's
    text; ``speaker`` is the label or sender when the text names one."""

    start: int
    end: int
    speaker: str = ""


#: A line under a speaker's label: "Tom: …", "健太：…", "1. 阿杰：…", "- Aisha: …",
#: "妻(由美): …", "Tomasz (Greenleaf): …", "Dr. Chidi Okafor: …", and a chat export's
#: "[Priya] …", "<Priya> …" (a time before it too: "[21:04] Priya: …", "10:41 田辺: …",
#: "[10:02 AM] Priya: …",
#: "[12/4/26, 10:02:33 PM] Priya: …", "12/4/26, 10:02 - Priya: …").
_STAMP = (
    # the day before the time: 12/4/26, 12/21, 12月21号, 2026年12月21日(月)
    r"(?:(?:\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4},?|\d{1,2}/\d{1,2}"
    r"|(?:\d{4}年)?\d{1,2}月\d{1,2}[日号號])(?:[ \t]?[(（][^()（）\n]{1,3}[)）])?[ \t]+)?"
    r"\d{1,2}:\d{2}(?::\d{2})?"
    r"(?:[ \t]?(?:[AaPp]\.?[Mm]\.?))?"
)
_LABELLED = re.compile(
    # a file read shows its line numbers first ("     3\t- Desmond: …", "12→Tom: …")
    r"^(?:[ \t]*\d{1,6}(?:\t|→)[ \t]*)?"
    rf"[ \t]*(?:\[{_STAMP}\][ \t]*|{_STAMP}(?:[ \t]+[-–][ \t]+|[ \t]+))?"
    r"(?:\d{1,2}[.)、][ \t]*|[-*•・][ \t]*)?"
    r"(?:(?P<who>(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?[ \t]+[A-Z][a-z]+(?:[ \t][A-Z][a-z'’-]+)?"
    r"|@?[^\W\d_][\w\-・·]{0,15}|[A-Z][a-z]+ [A-Z][a-z]+)"
    r"(?:[ \t]*[(（](?P<aka>[^()（）\n:：]{1,20})[)）])?"
    # a chat app's time after the sender's name: "孙可欣妈妈 20:03：…", "Priya 10:42: …"
    rf"(?P<late>[ \t]+(?:\[{_STAMP}\]|{_STAMP}))?[ \t]*[:：]"
    r"|[\[<](?P<tag>@?[^\W\d_][\w\-・· ]{0,23}?)[\]>])[ \t]*\S"
)


#: A line of a chat app's saved history, by tabs: the time, the sender, the message
#: ("20:14\t健太\t父ちゃん、…", as LINE saves a talk).
_TAB_CHAT = re.compile(rf"^[ \t]*(?:{_STAMP})\t(?P<who>[^\t\n]{{1,30}})\t\S")


def _chat_line(line: str, who: str) -> bool:
    """A line of a chat export: a time stamp, then a speaker written as a name is (not a
    lower-case word: "10:30 standup: …" is the person's own agenda), or a speaker, then
    the time."""
    if who[:1].islower():
        return False
    if _STAMPED.match(line):
        return True
    m = _LABELLED.match(line)
    return bool(m and m.group("late"))  # 孙可欣妈妈 20:03：…


#: A line that opens with a chat's time stamp.
_STAMPED = re.compile(rf"[ \t]*(?:\[{_STAMP}\]|{_STAMP}[ \t])")
_QUOTED_LINE = re.compile(r"^[ \t]*(?:>|＞)")
#: The marks of a line that opens or closes a pasted block: "---", "___", "===",
#: "---------- Forwarded message ---------".
#: The characters a rule line is drawn with: ASCII, and the dashes, bars and box lines of
#: other scripts (――――, ────, ━━━━, ＝＝＝, ーーー).
_RULE_CHARS = "-_=\u2014\u2015\u2500\u2501\u2550\uff1d\u30fc"
_WIDE_RULE_CHARS = "\u2014\u2015\u2500\u2501\u2550"


def is_delimiter(line: str) -> bool:
    """A line that opens or closes a pasted block (read without a pattern: a run of
    dashes is read once)."""
    s = line.strip(" \t")
    if len(s) < 3:
        # a Chinese dash (——) is two wide characters: a line of it alone is a rule too
        return len(s) == 2 and s[0] in _WIDE_RULE_CHARS and s[1] == s[0]
    if s[0] in _RULE_CHARS and not s.strip(s[0]):
        return True
    return len(s) <= 80 and s.startswith("---") and s.endswith("---")


def _titled(line: str) -> bool:
    """Whether a delimiter line names what follows it ("--- Mail from Aoba ---")."""
    return any(ch.isalnum() for ch in line)


#: A line of a mail's header: From:, To:, Subject:, Date:, 件名：, 发件人：.
_HEADER_FIELD = re.compile(
    r"[ \t>]*(?:from|to|cc|bcc|subject|date|sent|reply-to|差出人|宛先|件名|日付|送信日時|"
    r"发件人|收件人|主题|日期|时间|寄件人|抄送)[ \t]*[:：]",
    re.IGNORECASE,
)
_SENDER = re.compile(
    r"(?:From|差出人|发件人|寄件人)[ \t]*[:：][ \t]*(?P<who>[^<\n]{1,40}?)[ \t]*"
    r"(?:<(?P<address>[^>\n]{1,80})>|$)"
)


def _sender(found: re.Match[str]) -> str:
    """Who a mail's sender line names: the name, and the domain of the address after it
    ("Dan Whitcombe (northvale-vet.co.uk)": a mail from Northvale's Dan speaks for both)."""
    who = found.group("who").strip()
    address = found.groupdict().get("address") or ""
    domain = address.rpartition("@")[2].strip()
    return f"{who} ({domain})" if domain and who else who or domain


_TRAILER = re.compile(r"(?:——|―)[ \t]*(?P<who>[^\n]{1,30}?)[ \t]*$")
#: The head of a message copied out of a chat app, on a line of its own: a name and the
#: time it was sent ("田中 遼  [10:42]", "Dana Reyes  10:42 AM", "Dana — Today at 10:42
#: AM", 小陈（华芯科技）  14:32). The lines under it, up to a blank line, are that person's
#: message.
_CHAT_HEAD = re.compile(
    r"^[ \t]*(?P<who>[A-Z][A-Za-z'’-]+(?:[ \t][A-Z][A-Za-z'’-]+){0,2}"
    r"|[\u4e00-\u9fff々\u30a0-\u30ff]{1,5}(?:[ \t\u3000][\u4e00-\u9fff々\u3040-\u30ff]{1,4})?)"
    # the firm or team after the name, in brackets: 小陈（华芯科技）, 佐藤（営業部）
    r"(?:[ \t]*[（(][^()（）\n]{1,16}[)）])?"
    r"(?:[ \t]*[—–-][ \t]*(?:Today|Yesterday|今天|昨天|今日|昨日)(?:[ \t]+at)?)?"
    rf"[ \t]+(?:\[{_STAMP}\]|{_STAMP})[ \t]*$"
)


def _chat_head(line: str) -> re.Match[str] | None:
    """:data:`_CHAT_HEAD` where its name is a person's (:func:`_a_persons_name`)."""
    m = _CHAT_HEAD.match(line)
    return m if m is not None and _a_persons_name(m.group("who")) else None


def _a_persons_name(who: str) -> bool:
    """Whether *who* reads as a person's name: a given and a family name, a given name
    known as one, or a Japanese or Chinese name that opens with a family name, or with
    老, 小 or 阿 before one ("Standup" before a time is the person's own agenda)."""
    if who[:1].isascii():
        parts = who.split()
        return bool(parts) and (len(parts) >= 2 or parts[0].lower() in GIVEN_NAMES)
    families = lexicon.words("names_ja_surnames") | lexicon.words("names_zh_surnames")
    if who[:1] in "老小阿" and any(who[1:].startswith(f) for f in families):
        return True  # 小陈, 老王, 阿强: a family name called familiarly
    return any(who.startswith(f) for f in families)


def _label(line: str) -> str:
    """The speaker a labelled line names, or "" (a field such as "Note:" or a time
    such as 13:10 is not a speaker, nor is the person's own label)."""

    tabbed = _TAB_CHAT.match(line)
    if tabbed:
        who = tabbed.group("who").strip()
        return "" if who.lower() in lexicon.words("self_labels") else who
    m = _LABELLED.match(line)
    if not m:
        return ""
    who = (m.group("who") or m.group("tag")).strip()
    key = who.lower().lstrip("@")
    if m.group("tag") and (len(key) < 2 or key.upper() in PROVENANCE_CLASSES):
        return ""  # "[x] done" is a checked box; "[TOOL] …" a class, as kura writes one
    if key.isdigit() or key in lexicon.words("not_speakers") or key in lexicon.words("self_labels"):
        return ""
    if "://" in line[m.start("who" if m.group("who") else "tag") : m.end() + 3]:
        return ""
    if m.group("late") and not _a_persons_name(who):
        return ""  # "Standup 10:30: …" is the person's own agenda
    if m.group("aka"):  # "妻(由美)", "Tomasz (Greenleaf)": a role or a firm and a name
        return f"{who} ({m.group('aka').strip()})"
    return who


def speaker_of(line: str) -> str:
    """The speaker a line is labelled with ("田辺（技術職員）: …", "[14:03] Gemma: …"), or ""."""
    return _label(line)


#: Where a sentence of a line ends (an introduction is the line's last sentence).
_LINE_SENTENCE_END = re.compile(r"[。！？!?]|\.(?=\s)")


def labelled_lines(text: str) -> tuple[Voice, ...]:
    """Every line of *text* under a speaker's label, pasted or not ("刘洋：…", "Tom: …"): who
    said what, when the question is what one named speaker said (a label that is the
    person's own field, "Budget: 3,000", names no one a claim credits)."""
    out: list[Voice] = []
    pos = 0
    for line in text.split("\n"):
        who = _label(line)
        if who:
            out.append(Voice(pos, pos + len(line), who))
        pos += len(line) + 1
    return tuple(out)


def _is_intro(line: str) -> bool:
    """Whether a line introduces what follows it as pasted: it says so ("here's the
    agreement they sent, paste below. Have a look"); a word that also names what the
    person asks to be written (总结, まとめ, feedback: ``paste_intro_weak``) only in the
    line's last sentence ("…再写一份总结。几点说明：" introduces nothing). What is
    introduced and given in quotation marks in the same sentence ("You wrote "move on June
    30". Make that July 1.") is all there is: the lines after it are the person's."""
    if not line.strip():
        return False
    folded = fold(line).lower().rstrip()
    intro = lexicon.pattern("paste_intro")
    if any(not _quoted_inline(folded, m.end()) for m in intro.finditer(folded)):
        return True
    if _HERE_IS_THEIRS.search(folded):
        return True
    m = _THEIRS_CJK.search(folded)
    if m is not None and not m.group("who").startswith(_SELF_CJK):
        return True
    ends = [m.end() for m in _LINE_SENTENCE_END.finditer(folded, 0, max(0, len(folded) - 1))]
    last = folded[ends[-1] :] if ends else folded
    return lexicon.pattern("paste_intro_weak").search(last) is not None


def _writer(line: str) -> str:
    """The writer an introduction names for what it opens: "here's Pieter's handover",
    这是老赵昨晚写的, 中原さんの作業日誌, 小李的交班记录; "" when it names none (or the person)."""
    folded = fold(line)
    m = _HERE_IS_THEIRS.search(folded.lower())
    if m is not None:
        return folded[m.start("who") : m.end("who")]
    m = _THEIRS_CJK.search(folded) or _WRITERS_DOC.search(folded)
    if m is None or m.group("who").startswith(_SELF_CJK):
        return ""
    return m.group("who")


#: What someone named wrote, by its kind: 中原さんの作業日誌, 小李的交班记录, 田中の日報.
_WRITERS_DOC = re.compile(
    r"(?P<who>[一-鿿゠-ヿ]{1,6}?)(?:さん|様|くん|君|ちゃん|师傅|老师|姐|哥)?"
    r"(?:の|的)(?:作業日誌|日誌|日报|日報|週報|周报|メモ|笔记|申し送り|交班记录|交班|记录|報告書?|报告"
    r"|进货单|采购单|留言)"
)


#: "Here's Pieter's handover", "below is Tom's reply": what someone else wrote, given by
#: its writer's name (the person's own "here's my plan" gives their own words).
_HERE_IS_THEIRS = re.compile(
    r"(?<![\w'])(?:here(?:'s|’s| is| are)|below is|below are|attached is)[ \t]+"
    r"(?!my\b|our\b|your\b|what\b|how\b|where\b|why\b)(?P<who>[a-z][\w.-]{0,30})(?:'s|’s|s')[ \t]+[a-z]"
)


#: 这是老赵昨晚写的, 下面是小王整理的, 以下は田中さんが書いたもの: what someone named wrote,
#: given as theirs (the person's own 我写的 and 私が書いた give their own words).
_THEIRS_CJK = re.compile(
    r"(?:这是|这些是|下面是|以下是|これは|以下は)[ \t]?(?P<who>[^，。,、\n]{1,12}?)"
    r"(?:(?:昨晚|昨天|今天|刚才|刚|上午|下午|晚上)?(?:写|记|发|整理|列|做|拍)(?:下来|好|过来)?的"
    r"|が(?:書いた|まとめた|送ってきた|作った|メモした))"
)
_SELF_CJK = ("我", "咱", "私", "俺", "僕", "自分", "うち")


def _quoted_inline(folded: str, at: int) -> bool:
    """Whether the sentence of *folded* going on at *at* gives what it introduces in
    quotation marks (an opening mark before the sentence ends, and its closing one)."""
    end = _LINE_SENTENCE_END.search(folded, at)
    stop = len(folded) if end is None else end.start()
    for k in range(at, stop):
        closer = _CLOSERS.get(folded[k])
        if closer and folded.find(closer, k + 1) > k:
            return True
    return False


def _conversation_lines(labels: list[str], recurring: set[str], lines: list[str]) -> set[int]:
    """The labelled lines of a conversation: a run of labelled lines in a row in which some
    label recurs, or a line carries a chat's time stamp ("[10:02 AM] Priya: …"), is a
    conversation, and each of its lines is its speaker's, even a speaker who speaks once in
    it ("[Tomás] … / [Priya] … / [Tomás] ok")."""
    out: set[int] = set()
    run: list[int] = []
    for n, who in enumerate([*labels, ""]):
        if who:
            run.append(n)
            continue
        if any(labels[i] in recurring or _chat_line(lines[i], labels[i]) for i in run):
            out.update(run)
        run = []
    return out


def voices(text: str) -> tuple[Voice, ...]:
    """The spans of a USER segment's *text* that are not the person's own words.

    A line that introduces pasted material ("here's the hand-off from the other agent:",
    健太とのLINEを貼ります, 这是家里群里的聊天：) opens a block: quoted lines (``>``) or a
    block between delimiter lines (``---``) when it starts with one, else the lines up to
    the next blank line. Quoted lines and delimited blocks are pasted wherever they stand.
    A line under a speaker's label is that speaker's inside a pasted block, and anywhere
    when a label recurs (a conversation, minutes): "Budget: 3,000" alone is a field the
    person writes. Everything else is the person's own."""
    if not text or ("\n" not in text and ">" not in text[:3]):
        return ()
    lines = text.split("\n")
    offsets, pos = [], 0
    for line in lines:
        offsets.append(pos)
        pos += len(line) + 1
    labels = [_label(line) for line in lines]
    recurring = {w for w, k in Counter(labels).items() if w and k > 1}
    # a person's name as a label, then what they said at a length no field has ("老黄：阿强啊
    # D2317那个面料今天到咗 …"): theirs, as a recurring label is
    recurring |= {w for w, line in zip(labels, lines, strict=True) if w and _speech(w, line)}
    writers: dict[int, str] = {}
    pasted = _pasted_lines(lines, writers) | _conversation_lines(labels, recurring, lines)
    out: list[Voice] = []
    sender = ""
    last = ""  # who spoke the line before, in a run of pasted lines with no blank between
    for n, line in enumerate(lines):
        if not line.strip():
            last = ""
            continue
        who = labels[n]
        if n in pasted or (who and who in recurring):
            found = _SENDER.search(line) or _TRAILER.search(line) or _chat_head(line)
            if found:
                sender = _sender(found)
            # a label once inside a mail is one of its fields ("- Starter: $19 -> $24"):
            # the mail's sender speaks it; a label that recurs is a speaker of minutes
            # a label inside a document someone wrote is one of its fields (・瓶詰め：…)
            sender = sender or writers.get(n, "")
            speaker = who if who and (who in recurring or not sender) else sender
            if not speaker and not who and last in recurring:
                speaker = last  # a chat message's next line, under no label of its own
            last = speaker
            out.append(Voice(offsets[n], offsets[n] + len(line), speaker))
        else:
            sender = ""
            last = ""
    return tuple(out)


def _speech(who: str, line: str) -> bool:
    """Whether a line under the label *who* is what a person said: the label reads as a
    person's name, and what follows it is a sentence of some length, not a field's value
    ("小王：负责采购" assigns; "Tom: 3 boxes" counts)."""
    name = who.split(" (")[0]
    if name[:1].isascii():
        # a given name known as one, or a title ("The Cintiq: …" is a list's item)
        first = name.split()[0].rstrip(".").lower() if name.split() else ""
        if first not in GIVEN_NAMES and first not in ("dr", "mr", "mrs", "ms", "mx", "prof"):
            return False
    elif not _a_persons_name(name):
        return False
    rest = line.split(":", 1)[-1] if ":" in line else line.split("：", 1)[-1]
    rest = rest.strip()
    cjk = sum(1 for c in rest if "\u3040" <= c <= "\u9fff")
    return cjk >= 20 or len(rest.split()) >= 10


def _pasted_lines(lines: list[str], writers: dict[int, str] | None = None) -> set[int]:
    """The numbers of the lines that are pasted material (see :func:`voices`); *writers*
    gets the writer of the lines an introduction names one for ("中原さんの作業日誌を貼る",
    "here's Pieter's handover")."""
    out: set[int] = set()
    # whether the person writes anything besides quoted lines
    around = any(line.strip() and not _QUOTED_LINE.match(line) for line in lines)
    n = 0
    while n < len(lines):
        line = lines[n]
        if _QUOTED_LINE.match(line):
            n = _quoted_block(lines, n, out, around)
            continue
        elif is_delimiter(line):
            if len(line.strip()) == 2 and n and lines[n - 1].strip() and n - 1 not in out:
                n += 1  # a dash (——) under the person's own line: no paste opens below it
                continue
            n = _delimited(lines, n, out)
            if n < len(lines) and _titled(lines[n]):
                continue  # "--- 青葉運送 メールより ---" closes one block and opens the next
        elif _chat_head(line) and n + 1 < len(lines) and lines[n + 1].strip():
            n = _chat_message(lines, n, out)
            continue
        elif _SENDER.match(line) and _mail_header(lines, n):
            # a mail's header (From:, then To:, Subject: …), pasted with or without a line
            # that says so: the header and the mail's body under it
            m = n
            while m < len(lines) and lines[m].strip():
                out.add(m)
                m += 1
            n = _mail_body(lines, m)
            out.update(range(m, n))
            continue
        elif _is_intro(line):
            before = set(out)
            n = _introduced(lines, n + 1, out)
            writer = _writer(line)
            if writer and writers is not None:
                writers.update((k, writer) for k in out - before)
            continue
        n += 1
    return out


def _introduced(lines: list[str], m: int, out: set[int]) -> int:
    """Mark what a line that introduces a paste opens, from line *m* (after blank lines):
    a quoted block, a delimited block, a fenced block, or paragraphs of a document (a
    mail's header and its body); the number of the line after it."""
    while m < len(lines) and not lines[m].strip():
        m += 1
    if m < len(lines) and _QUOTED_LINE.match(lines[m]):
        while m < len(lines) and _QUOTED_LINE.match(lines[m]):
            out.add(m)
            m += 1
        return m
    if m < len(lines) and is_delimiter(lines[m]):
        return _delimited(lines, m, out) + 1
    if m < len(lines) and _FENCE.match(lines[m]):
        return _fenced(lines, m, out)
    first = m
    m = _paragraphs(lines, m, out)
    head = [line for line in lines[first:m] if line.strip()]
    if any(_SENDER.match(line) for line in head) and all(
        _HEADER_FIELD.match(line) for line in head
    ):
        # "Reply from the clinic:" then a mail's header alone: its body follows
        body = _mail_body(lines, m)
        out.update(range(m, body))
        m = body
    return m


#: A paragraph that goes on with a pasted document after a blank line: a numbered clause
#: (after a heading or another clause), or a sign-off.
_CLAUSE = re.compile(
    r"^[ \t\u3000]*(?:\d{1,2}(?:[.)．、]|\u3000)|第[一二三四五六七八九十\d]{1,3}[条條項]|[（(]\d{1,2}[)）])"
)


#: A closing word on a line of its own, which ends a pasted document even with no blank
#: line after it: 以上, 以上です, 敬具, 草々, 此致, 谨上.
_CLOSED = re.compile(r"(?:以上(?:です|になります)?|敬具|草々|此致|谨上|謹上)[。.]?")


def _signs_off(line: str) -> bool:
    """A sign-off line that closes the pasted document ("Thanks, Marta", 以上, 敬具): short,
    with nothing of the person's own after it ("以上です。受講料の件は…" is the person
    closing the paste, then writing on)."""
    m = _SIGN_OFF.match(line)
    if m is None:
        return False
    rest = line[m.end() :]
    stop = _ANY_STOP.search(rest)
    return not (stop and rest[stop.end() :].strip())


_ANY_STOP = re.compile(r"[。！？.!?]")


_SIGN_OFF = re.compile(
    r"^[ \t]*(?:signed\b|regards\b|best\b|thanks\b|cheers\b|sincerely\b|kind regards\b|"
    r"敬具|以上|此致|谨上|草々|[—―]\s*\S"
    # a notice's contact line closes it: お問い合わせ：…, 联系电话：…
    r"|お問い?合わせ|問い?合わせ先|联系人|联系电话|咨询电话|聯絡電話)",
    re.IGNORECASE,
)


def _heading(line: str) -> bool:
    """A line that titles a document: short, with no sentence's end, and mostly capitals
    when it has Latin letters at all (BRACKLEY CREAMERY LTD — AGREEMENT (2026 edition))."""
    s = line.strip()
    if not s or len(s) > 90 or s[-1] in ".!?。！？:：":
        return False
    letters = [c for c in s if c.isascii() and c.isalpha()]
    return not letters or sum(c.isupper() for c in letters) * 10 >= len(letters) * 7


def _paragraphs(lines: list[str], m: int, out: set[int]) -> int:
    """Mark the paragraph of pasted material at *m*, and the paragraphs after blank lines
    that go on with the same document (a clause after a heading or a clause, a sign-off);
    the number of the line after the last one marked."""
    last = ""
    while m < len(lines):
        first = m
        machine = _machine_line(lines[m])
        closer = _CLOSERS.get(lines[m].lstrip()[:1], "")
        while m < len(lines) and lines[m].strip():
            if machine and m > first and _prose_line(lines[m]):
                return m  # codes pasted, then the person writes on without a blank line
            if m > first and _BACK_TO_AGENT.match(lines[m]):
                return m  # "これは Secrets Manager に登録してください": the person, of the paste
            if m > first and is_delimiter(lines[m]):
                out.add(m)
                return m + 1  # a rule drawn under the paste: the person writes on below it
            out.add(m)
            m += 1
            if closer and lines[m - 1].rstrip().endswith(closer):
                return m  # 「…」 pasted whole: the person's words follow its closing mark
            if m - 1 > first and _CLOSED.fullmatch(lines[m - 1].strip()):
                return m  # 以上 on a line of its own ends the document: the person goes on
        last = lines[m - 1] if m > first else last
        head = lines[first] if m > first else ""
        k = m
        while k < len(lines) and not lines[k].strip():
            k += 1
        if k >= len(lines):
            return m
        nxt = lines[k]
        goes_on = (
            _signs_off(nxt)
            or (
                _CLAUSE.match(nxt)
                and (_heading(head) or _CLAUSE.match(head) or _CLAUSE.match(last))
            )
            # a notice's title set in by ideographic spaces, or a title its clauses follow
            or nxt.startswith("\u3000\u3000")
            or (_heading(nxt) and _clause_after(lines, k))
        )
        if not goes_on:
            return m
        m = k
    return m


#: A line that points back at what was pasted and asks the agent something of it: the
#: person writing on under their paste ("これは Secrets Manager に登録して…", "这个帮我记一下").
_BACK_TO_AGENT = re.compile(
    r"[ \t\u3000]*(?:これは|これを|これも|それは|それを|这个|这些|上面的?|以上を|"
    r"(?i:this|that|these|those)\b)[^\n]{0,80}?(?:ください|して|お願い|请|帮我|帮忙|"
    r"(?i:please|can you|could you))"
)


def _mail_header(lines: list[str], n: int) -> bool:
    """Whether the line at *n* opens a mail's header: it and the next line or two are all
    header fields (From:, then To:, Sent:, Subject: …)."""
    block = []
    for line in lines[n : n + 3]:
        if not line.strip():
            break
        block.append(line)
    return len(block) >= 2 and all(_HEADER_FIELD.match(line) for line in block)


def _clause_after(lines: list[str], k: int) -> bool:
    """Whether the paragraph after the one at *k* opens with a numbered clause: the line
    at *k* titles what follows it."""
    while k < len(lines) and lines[k].strip():
        k += 1
    while k < len(lines) and not lines[k].strip():
        k += 1
    return k < len(lines) and _CLAUSE.match(lines[k]) is not None


def _chat_message(lines: list[str], n: int, out: set[int]) -> int:
    """Mark a message copied out of a chat app, its head at *n*: the head and what it says
    under it, to a blank line or a rule drawn under it; the number of the line after."""
    while n < len(lines) and lines[n].strip():
        out.add(n)
        n += 1
        if is_delimiter(lines[n - 1]):
            break
    return n


def _quoted_block(lines: list[str], n: int, out: set[int], around: bool) -> int:
    """A run of quoted lines starting at *n*, marked pasted when it is someone else's: it
    names a sender ("> From: …", "——玩家 @…") or the person writes around it. A message
    that is one quoted note is the person's own emphasis. The number of the line after."""
    m = n
    while m < len(lines) and _QUOTED_LINE.match(lines[m]):
        m += 1
    block = lines[n:m]
    if around or any(_SENDER.search(line) or _TRAILER.search(line) for line in block):
        out.update(range(n, m))
    return m


#: A Markdown code fence, which a paste between fences opens and closes.
_FENCE = re.compile(r"[ \t]{0,3}(?:```|~~~)")


def _fenced(lines: list[str], n: int, out: set[int]) -> int:
    """Mark a fenced block opened at *n* as pasted, both fences included; the number of
    the line after the closing fence, where the person writes on (to the end when it is
    never closed)."""
    m = n + 1
    while m < len(lines) and not _FENCE.match(lines[m]):
        m += 1
    end = min(m + 1, len(lines))
    out.update(range(n, end))
    return end


def _delimited(lines: list[str], n: int, out: set[int]) -> int:
    """Mark the lines after the delimiter at *n* up to the closing one as pasted; the
    number of the closing line. With no closing delimiter, the block is its first
    paragraph: where it ends is not written, and the person's words after a blank line are
    theirs ("~/.gem/credentials\n---\n:key: …\n\nthis time only PyPI")."""
    m = n + 1
    while m < len(lines) and not is_delimiter(lines[m]):
        m += 1
    if m >= len(lines):  # never closed
        m = n + 1
        while m < len(lines) and (lines[m].strip() or m == n + 1):
            m += 1
        if any(_SENDER.match(line) for line in lines[n + 1 : m]):
            m = _mail_body(lines, m)  # a forwarded mail's header: its body follows
    for k in range(n + 1, m):
        out.add(k)
    return m


def _mail_body(lines: list[str], m: int) -> int:
    """The end of a mail whose header ends at line *m*: its paragraphs run to the sign-off
    (Thanks, T., — Priya, 以上, a lone name), which they include; with none, to the last
    paragraph, unless that one turns to the agent (the person's request after the mail)."""
    paragraphs: list[tuple[int, int]] = []
    k = m
    while k < len(lines):
        while k < len(lines) and not lines[k].strip():
            k += 1
        if k >= len(lines):
            break
        first = k
        while k < len(lines) and lines[k].strip():
            k += 1
        paragraphs.append((first, k))
    said = False  # a greeting ("Priya,") comes before anything is said; a signature after
    for a, b in paragraphs:
        if said and _signature(lines[a:b]):
            return b
        if b - a > 1 and _SIGN_OFF.match(lines[b - 1]):
            return b  # a paragraph closed by its sign-off line ("Regards, Teresa Ng, …")
        said = said or len(" ".join(lines[a:b]).split()) > 3 or len(lines[a].strip()) > 30
    if not paragraphs:
        return m
    a, b = paragraphs[-1]
    if len(paragraphs) > 1 and _turns_to_agent(" ".join(lines[a:b])):
        return paragraphs[-2][1]
    return b


def signs_off(line: str) -> bool:
    """Whether *line* is a closing word and what follows it ("Regards, Teresa Ng")."""
    return _SIGN_OFF.match(line) is not None


def name_line(line: str) -> bool:
    """Whether *line* is a name alone (a signature's first line)."""
    return _NAME_LINE.fullmatch(line.strip()) is not None


def _signature(block: list[str]) -> bool:
    """A paragraph that signs a mail off: a closing word, or one to three short lines of a
    name or initials and no sentence ("T.", "Best,\nTomás", "陈晓东")."""
    if _SIGN_OFF.match(block[0]) and len(block) <= 3:
        return True
    if len(block) <= 4 and _NAME_LINE.fullmatch(block[0].strip()) and len(block) > 1:
        # "Karen Whitlow\nFixtures Secretary, East Mids Sunday League": a name, then a
        # title, a company or a number, none of them a sentence
        return all(
            len(line.strip()) <= 70 and not _ENDS_SENTENCE.search(line) for line in block[1:]
        )
    if len(block) > 3 or any(len(line.strip()) > 30 for line in block):
        return False
    words = " ".join(block).split()
    return 0 < len(words) <= 3 and not any(ch in " ".join(block) for ch in "?？。：:")


#: A line that is a name alone: one to three capitalised words or initials, or a short
#: Chinese or Japanese name.
_NAME_LINE = re.compile(
    r"(?:[A-Z][a-zA-Z'’-]{0,20}\.?)(?:[ \t]+[A-Z][a-zA-Z'’-]{0,20}\.?){0,2}"
    r"|[\u3400-\u9fff\u30a0-\u30ff]{2,5}(?:[ \u3000][\u3400-\u9fff\u30a0-\u30ff]{1,4})?"
)
#: The end of a sentence: a line that says something, not a signature's.
_ENDS_SENTENCE = re.compile(r"[.!?。！？]\s*$|[?？]")


#: A paragraph addressed to the agent: a request or question (you, please, 你, ください).
_TO_AGENT = re.compile(
    r"(?i)(?:you|your|please|can|could|let's|give|draft|write|tell|check|make|now)|"
    r"[?？]|你|您|请|帮我|ください|して|お願い"
)


def _turns_to_agent(text: str) -> bool:
    return _TO_AGENT.search(fold(text)) is not None


_CJK_ANY = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


#: A pasted text opened by a quotation mark ends where the mark closes.
_CLOSERS = {"「": "」", "『": "』", "“": "”", '"': '"', "《": "》"}


def _machine_line(line: str) -> bool:
    """A code on its own line (7h2k-9qwm-x4pd, a redaction marker [secret:password]): one
    token, no Chinese or Japanese, with a digit in it or a marker kura writes; or an env
    or config line setting one name (HEROKU_API_KEY=…, port: 8080)."""
    s = line.strip()
    if not s or _CJK_ANY.search(s):
        return False
    if _ASSIGNMENT.match(s):
        return True  # an env or config line: NAME=value, key: value, export NAME="…"
    if any(ch.isspace() for ch in s):
        return False
    return any(ch.isdigit() for ch in s) or s.startswith(("[secret:", "[private"))


#: A line that sets one name to one value, as env files and configs write it.
_ASSIGNMENT = re.compile(
    r"(?:export[ \t]+)?[A-Za-z_][A-Za-z0-9_.-]{0,60}[ \t]*(?:=|:[ \t])[ \t]*"
    r"(?:\"[^\"\n]{0,400}\"|'[^'\n]{0,400}'|\S{0,400})$"
)


def _prose_line(line: str) -> bool:
    """A line of someone's prose: Chinese or Japanese, or three words in a row."""
    if _CJK_ANY.search(line):
        return True
    run = 0
    for tok in line.split():
        run = run + 1 if len(tok.strip(",;.:!?")) >= 2 and tok.strip(",;.:!?").isalpha() else 0
        if run >= 3:
            return True
    return False


# ------------------------------------------------------------------------ self-introductions

_EN_NAME = r"[A-Z][a-z]{1,20}(?:[ \t][A-Z][a-z]{1,20})?"
#: The person giving their name in their own words: "Hi, I'm Dana", "this is Dana from the
#: taproom", "my name is Dana Reyes", "Dana here."; a sign-off line "— Dana" ends a message.
_INTRO_EN = re.compile(
    r"(?:^|(?<=[.!?][ \t])|(?<=\n))[ \t]*(?:(?i:hi|hey|hello|morning|evening)[ \t]*[,!]?[ \t]*"
    r"(?:(?i:all|there|team)[ \t]*)?[,!—–-]?[ \t]*)?"
    rf"(?:(?i:i'm|i am|this is|my name is|my name's)[ \t]+(?P<a>{_EN_NAME})"
    r"(?=[ \t]*(?:[,.!;:—–-]|(?i:from|at|with|here)\b|$))"
    rf"|(?P<b>{_EN_NAME})[ \t]+(?i:here)[ \t]*[,.!—–-])"
    rf"|(?:^|\n)[ \t]*[—–~-]{{1,2}}[ \t]*(?P<c>{_EN_NAME})[ \t]*$"
)
#: 田村でございます, 歯科の田村と申します, 受付の山口です: a known family name, or any name before と申します.
_JA_NAME = r"(?P<n>[\u4e00-\u9fff々]{1,4}(?:[ \t\u3000]?[\u4e00-\u9fff々\u3040-\u30ff]{1,4})?)"
_INTRO_JA = re.compile(
    # the humble forms anywhere a word starts; a plain です only opening its sentence
    rf"(?:(?<![\u4e00-\u9fff々]){_JA_NAME}(?P<v>でございます|と申します|と言います|といいます)"
    # a plain です opening its sentence, or after a greeting (こんにちは、カフェの田中です)
    rf"|(?:^|(?<=[。！!\n])|(?<=こんにちは、)|(?<=はじめまして、)|(?<=おはようございます、)|"
    r"(?<=お疲れ様です、)|(?<=お世話になっております、)|(?<=こんばんは、))"
    # its place and role before it, a space between them too (ささの湯 支配人の佐々木です)
    # or a clause that says what they do (角館で旅館やってる佐藤だす)
    rf"[ \t\u3000]*(?:[^\s。、！!は]{{1,16}}?(?:[ \t\u3000][^\s。、！!は]{{1,12}}?)?"
    r"(?:の|やってる|やっている|してる|している|営んでる|営んでいる))?"
    rf"{_JA_NAME.replace('?P<n>', '?P<m>')}"
    # です, or a dialect's copula (だす, だ, じゃ, やで)
    r"(?:です|だす|だ|じゃ|やで))(?=[。！!、\s]|$)"
)
#: 我是小林, 我叫林静, 本人姓王 (a family name first, or 小/老/阿 and one).
#: How others name a person: no one gives their own name so.
_OTHERS_CALL = ("さん", "様", "さま", "君", "くん", "ちゃん")
_INTRO_ZH = re.compile(
    # 我是溪畔小院的老杨: the place or the firm they are of may come first
    r"(?:我是(?:[\u4e00-\u9fffA-Za-z0-9]{1,12}?的)?|我叫|本人是?|我姓)(?P<n>[\u4e00-\u9fff]{1,3}?)"
    r"(?=[，,。！!\s、]|$)"
)


def introduced(text: str) -> tuple[str, ...]:
    """The names the person gives as their own in a USER segment's *text*, in their own
    words (not in a span :func:`voices` marks as someone else's): a self-introduction or
    a sign-off. The gate reads a memory that names them as crediting the person."""
    spans = voices(text)
    if spans:
        chars = list(text)
        for v in spans:
            chars[v.start : v.end] = " " * (v.end - v.start)
        text = "".join(chars)
    out: list[str] = []
    not_names = lexicon.words("names_also_words")
    for m in _INTRO_EN.finditer(text):
        name = m.group("a") or m.group("b") or m.group("c")
        if name and name.split()[0].lower() not in not_names:
            out.append(name)
    ja_surnames = lexicon.words("names_ja_surnames")
    titles = sorted(lexicon.words("names_honorifics"), key=len, reverse=True)
    for m in _INTRO_JA.finditer(text):
        name = (m.group("n") or m.group("m")).replace("\u3000", " ").rpartition("の")[2]
        if name.endswith(_OTHERS_CALL):
            continue  # 田村さんです: someone else, named as others name them
        family = name.split()[0]
        # 佐藤院長です: the name without its title
        family = next(
            (family[: -len(t)] for t in titles if family.endswith(t) and family != t), family
        )
        strong = m.group("v") in ("と申します", "と言います", "といいます")
        if strong or any(family.startswith(s) for s in ja_surnames):
            out.append(family)
    zh_surnames = lexicon.words("names_zh_surnames")
    for m in _INTRO_ZH.finditer(text):
        name = m.group("n")
        lead = name[1:] if name[:1] in "小老阿" and len(name) >= 2 else name
        if lead[:1] in zh_surnames:
            out.append(name)
    return tuple(dict.fromkeys(out))


#: What says a message was received by the person who pastes it: 来ています, 届いた,
#: "got this", "sent me", 收到, 发来.
_RECEIVED = re.compile(
    # 来ています, and a dialect's 来とって, 来ちょる, 来たっちゃ (出来た is "could", not "came")
    r"(?<!出)来(?:[てとたちっ]|ま)|(?:が|から)[ \t]*き(?:[てとたちっ]|ま)|届|もらっ|もろた|いただい|"
    r"(?i:\b(?:got|received|sent me|emailed me|texted me|messaged me|wrote to me|forwarded me"
    r"|came in|arrived|in my inbox)\b)|"
    # a mail forwarded whole: the forward's own header
    r"(?m:^[ \t>]*-{2,}[ \t]*(?i:forwarded message|original message)|^[ \t>]*(?i:fwd?|fw):)|"
    r"收到|发给我|發給我|给我发|給我發|传来|傳來|转来|轉來"
    # 发来, 发过来, 又发微信来: sent over, with what was sent between
    r"|[发發][^\n，。,；;]{0,6}?(?:过来|過來|来|來)"
    # Cantonese: 发咗啲嘢过嚟 (sent things over), 传过嚟
    r"|发咗|發咗|过嚟|過嚟"
)
#: A message's salutation to its reader at a line's start: 佐藤様, 佐藤さん、, "Hi Maya,",
#: 王园长，, 李老师：.
#: The addressee line of a mail's or a FAX's header: "To: Sharlene Morrison <…>", 宛先：
#: 沢井配置薬品 沢井 勝彦 様 (the family name before the given one).
_ADDRESSEE = re.compile(
    r"(?m)^(?:>[ \t]?)*[ \t]*(?:(?i:to)|宛先|宛て先|收件人)[ \t]*[:：][ \t]*"
    r"(?:(?P<en>[A-Z][a-z]{1,15})(?:[ \t]+[A-Z][a-z'-]{1,20}){0,2}[ \t]*<"
    r"|[^\n]{0,30}?(?P<ja>[\u4e00-\u9fff々]{1,4})[ \t\u3000]+[\u4e00-\u9fff々]{1,4}[ \t\u3000]*(?:様|殿))"
)
#: What another agent or a helper left for the person: "Summary for Bernie:", a hand-off
#: headed with their name.
_FOR_THEM = re.compile(
    r"(?m)^(?:>[ \t]?)*[ \t]*(?i:summary|hand-?off|handover|notes?|update|brief|report|memo)"
    r"[ \t]+(?i:for)[ \t]+([A-Z][a-z]{1,15})[ \t]*[:—–-]"
)
_SALUTATION = re.compile(
    # a quoted mail's lines too: "> Hi Bernie,"
    # a letter's addressee: 佐藤様, and 越路泉酒造株式会社 代表取締役 五十嵐 昭一 様 (the family
    # name, the given name after it)
    r"^(?:>[ \t]?)*[ \t]*"
    r"(?:(?:[^\n]{0,40}?(?:代表取締役|取締役|代表|社長|院長|理事長|店主|組合長)[ \t\u3000]+)?"
    r"(?P<ja>[\u4e00-\u9fff々]{1,4})(?:[ \t\u3000]+[\u4e00-\u9fff々]{1,4})?[ \t\u3000]*"
    r"(?:様|さん|殿)[ \t]*(?:[、,][^\n]*)?$"
    # a greeting may follow a chat line's time and its speaker's label ("[12月1日 21:05]
    # 刘婷婷：于总，"); a form's field (宿泊者：鈴木 一郎 様) greets no one
    r"|(?:[\[【][^\]】\n]{1,30}[\]】][ \t]*)?(?:[^\n：:]{1,24}[：:][ \t]*)?"
    r"(?:(?i:hi|hello|hey|dear|hiya|morning|good[ \t]+(?:morning|afternoon|evening|day))[ \t]+"
    r"(?P<en>[A-Z][a-z]{1,15})[ \t]*[,!:]"
    r"|(?P<zh>[\u4e00-\u9fff]{1,3}(?:老师|老師|园长|園長|经理|經理|总|總|姐|哥|阿姨"
    # Cantonese and everyday Chinese titles: 梁生 (Mr Leung), 陈太, 王师傅, 李老板
    r"|生|先生|太|小姐|女士|师傅|師傅|老板|老闆))"
    r"(?:早晨|早上好|早安|你好|您好|晚上好|好)?[ \t]*[，,：:！!]))"
    # an organisation's addressee, a family name and the trade after it: 上園農園 御中
    r"|[^\n]{0,60}?(?P<org>[\u4e00-\u9fff々]{3,10})[ \t\u3000]*御中"
)
#: The agent's reply opening with the person's name, as it speaks to them: at its start or
#: after a short opener ("好的王园长，…", "Sure, Maya —", 佐藤さん、承知しました, "好的，于总。",
#: "Bless up, Sharlene.", 了解です、上園さん。).
_AGENT_VOCATIVE = re.compile(
    r"^[ \t]*(?:(?:好的|好|明白|收到|行|没问题|沒問題|了解です|承知しました|かしこまりました"
    r"|(?i:sure|ok|okay|got it|thanks|thank you|no worries|right))[，,、!！ \t]*"
    # an opener of words alone, no figure or bracket (メールの予約（0Y8K3M2P、鈴木様、… names
    # a guest, not the person)
    r"|[A-Za-z'’ \u3040-\u30ff\u4e00-\u9fff々]{1,20}[，,、!！.。][ \t]*)?"
    r"(?:(?P<zh>[\u4e00-\u9fff]{1,3}(?:老师|老師|园长|園長|经理|經理|总|總|姐|哥|阿姨|师傅|師傅|老板|老闆))"
    r"|(?P<ja>[\u4e00-\u9fff々]{1,4})(?:さん|様)|(?P<en>[A-Z][a-z]{1,15}))"
    r"[ \t]*(?:[—–-]|[，,、!！。.]|$)"
)


def addressed(text: str, *, agent: bool = False) -> tuple[str, ...]:
    """The names the person is called by, where what is said is said to them: the
    salutation of a message they say they received and paste ("山本先生からメールが来て
    います … 佐藤様"), or the agent's reply opening with their name (*agent*: "好的王园长，").
    Only a name that reads as a person's (a family name first, a given name known as one)."""
    found: list[str] = []
    headed: list[str] = []
    if agent:
        m = _AGENT_VOCATIVE.match(text)
        if m and m.group("en"):
            # the agent speaks to no one else: a capitalised word it calls the person by
            # is their name, on the list of given names or not; a word that opens the
            # reply with no opener before it is one only before a comma or "!" ("Moved —
            # Salt Fork is…" opens with a verb)
            word = m.group("en")
            bare = not text[: m.start("en")].strip()
            after = text[m.end("en") :].lstrip(" \t")[:1]
            if word.lower() not in lexicon.words("not_vocatives", ("en",)) and (
                not bare or after in (",", "!", "，", "！")
            ):
                headed.append(word)
        elif m and m.group("ja"):
            headed.append(m.group("ja"))  # 上園さん: the honorific names a person
        elif m:
            found.append(m.group("zh"))
    elif _RECEIVED.search(text):
        lines = text.split("\n")
        for n, line in enumerate(lines):
            if not _RECEIVED.search(line):
                continue
            for later in lines[n + 1 : n + 8]:
                m = _SALUTATION.match(later)
                if m and m.group("en"):
                    headed.append(m.group("en"))  # "> Hi Bernie,": the greeting names them
                    break
                if m and m.group("org"):
                    headed += _family_of(m.group("org"))
                    break
                if m:
                    found.append(m.group("ja") or m.group("zh"))
                    break
    # a mail's or a FAX's addressee ("To: Sharlene Morrison <…>", 宛先：… 沢井 勝彦 様) and
    # a hand-off headed for them ("Summary for Bernie:"): named by the form, not the word
    received = not agent and _RECEIVED.search(text) is not None
    headed += (
        [m.group("ja") or m.group("en") for m in _ADDRESSEE.finditer(text)] if received else []
    )
    headed += [] if agent else [m.group(1) for m in _FOR_THEM.finditer(text)]
    # who passed the message on is not the person it reached ("Lupe forwarded me this" over
    # a mail that greets Lupe): the greeting names them, not the one who pastes it
    passers = {m.group(1).lower() for m in _PASSED_ON.finditer(text)} if received else set()
    headed = [n for n in headed if n and n.lower() not in _NOT_ADDRESSEES | passers]
    found = [n for n in found if n.lower() not in passers]
    families = lexicon.words("names_ja_surnames") | lexicon.words("names_zh_surnames")
    return tuple(
        dict.fromkeys(
            n
            for n in found
            if (n[:1].isascii() and n.lower() in GIVEN_NAMES)
            or (not n[:1].isascii() and any(n.startswith(f) for f in families))
        )
    ) + tuple(dict.fromkeys(headed))


def _family_of(org: str) -> list[str]:
    """The family name an organisation's name opens with (上園農園 -> 上園: a family firm
    named for its owner), the longest one known; none when it opens with no family name."""
    families = lexicon.words("names_ja_surnames") | lexicon.words("names_zh_surnames")
    lead = max(
        (f for f in families if org.startswith(f) and len(org) > len(f) + 1), key=len, default=""
    )
    if len(lead) >= 2:
        return [lead]
    # a family name not on the list, before a trade's name (沢井 of 沢井配置薬品)
    trade = max((t for t in lexicon.words("org_trades") if org.endswith(t)), key=len, default="")
    rest = org[: len(org) - len(trade)] if trade else ""
    return [rest] if 2 <= len(rest) <= 3 else []


#: Someone who passed a message on to the person: "Lupe forwarded me this", "Dee sent me".
_PASSED_ON = re.compile(
    r"\b([A-Z][a-z]{1,15})[ \t]+(?:just[ \t]+|also[ \t]+)?(?:forwarded|sent|passed|emailed|texted|"
    r"messaged|showed)[ \t]+(?:me|us|this|it)\b"
)


#: Words a header or a hand-off is addressed to that name no one person.
_NOT_ADDRESSEES = frozenset(
    {"team", "all", "everyone", "everybody", "staff", "customers", "customer", "you", "me", "us"}
)


#: The owner of a home directory a session works in: /home/dana/…, /Users/maya/…,
#: C:\Users\kenji\…, and Claude Code's project folder that spells it (-home-dana-brewlog).
_HOME = re.compile(
    r"(?:(?<![\w.-])/home/|(?<![\w.-])/Users/|(?i:\b[A-Z]:\\{1,2}Users\\{1,2})|(?<![\w.])-(?:home|Users)-)"
    r"([a-z][a-z0-9]{1,15})(?=[/\\\-]|$)"
)


def home_owner(text: str) -> tuple[str, ...]:
    """The login names of the home directories *text* works in, as a person's given name is
    written (dana -> Dana); a login that names a role or a machine (root, admin, ubuntu,
    runner, office) is none."""
    out = []
    not_people = lexicon.words("login_not_people")
    for m in _HOME.finditer(text):
        login = m.group(1)
        if login not in not_people:
            out.append(login.capitalize())
    return tuple(dict.fromkeys(out))
