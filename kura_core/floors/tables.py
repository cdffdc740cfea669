"""Tables in the evidence: a figure is vouched with its own row.

A table (CSV, a Markdown or box-drawn table, columns aligned by spaces or tabs) says what
each figure is by the row it stands in. A memory that names one row ("钱塘春晓", "MA68TPX",
"the Yaris Hybrid") and gives a figure that only another row holds ("6500元" from the
星耀城 row) has moved the figure, even though every figure it writes occurs in the
evidence. This module reads the rows, and finds the figures a sentence takes from a row it
does not name.

A row is named by its *keys*: its cells that are words, not figures, and that do not fill
a column of many rows alike (PASS, 滨江区, 3LDK name no row). A figure that the evidence
also gives outside every table is not judged here. Where a row stands under a header of
as many cells, each figure has its column too: a sentence that names the row and writes a
column's name right before a figure of that row from another column ("黑色XXL码库存22"
where 22 stands under XL) has moved it across. Linear in the evidence and the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .identifiers import IDENTIFIER
from .quantities import COUNTER, DATE, HARD, NUMBER, RANGE, Quantity, Vouchers, scan, table_cells
from .text import fold
from .units import cjk_unit

__all__ = ["Rows", "moved_figures"]

#: The keys of a row that sums the others: its figures are the table's, not one row's.
_TOTALS = frozenset(
    {
        "合计",
        "合計",
        "总计",
        "總計",
        "小计",
        "小計",
        "総計",
        "累计",
        "累計",
        "计",
        "計",
        "total",
        "totals",
        "grand total",
        "sum",
        "subtotal",
        "sub-total",
    }
)
#: A word of a Latin key that names its row in part.
_HINT_WORD = re.compile(r"[a-z0-9]{3,}")
#: Where a memory's sentences end: each is judged on its own.
_SENTENCE = re.compile(r"[.!?](?=\s|$)|[。！？;；\n]")


@dataclass(frozen=True)
class _Row:
    keys: tuple[str, ...]
    values: frozenset[str]
    #: each figure's column, by the header over it (where the row stands under a header
    #: of as many cells): {"xl": "#22", "xxl": "#9"}
    columns: tuple[tuple[str, str], ...] = ()
    #: the unit each figure's column header gives it (数量(kg), 箱数): {"#1032": "kg"}
    units: tuple[tuple[str, str], ...] = ()

    @property
    def hints(self) -> frozenset[str]:
        """What names the row in part: each word of three letters and more of a Latin key
        (Yaris for "Yaris Hybrid"), and the first two characters of any other
        (アー for アート引越センター)."""
        out: set[str] = set()
        for k in self.keys:
            if k.isascii():
                out.update(_HINT_WORD.findall(k))
            else:
                out.add(k if k[:1].isdigit() else k[:2])  # 11月18号 whole: 11 is any November
        return frozenset(out)

    @property
    def tails(self) -> frozenset[str]:
        """The last two characters of each longer Chinese or Japanese key: a compound's
        head noun, which names the row in part (寿命 of 設計寿命)."""
        return frozenset(
            k[-2:] for k in self.keys if len(k) >= 4 and not k[:1].isdigit() and not k.isascii()
        )


def _value_key(q: Quantity) -> str:
    """A figure as a row holds it: its value (1,284 and 1284 alike), or for a date or
    anything else its canonical form."""
    if q.kind in (NUMBER, RANGE) and q.value is not None:
        return f"#{q.value.normalize()}"
    return f"{q.kind}:{q.canon}"


class Rows:
    """The rows of every table in a set of evidence texts, and the figures the evidence
    gives outside them."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.rows: list[_Row] = []
        outside: list[str] = []
        for text in texts:
            lines_out = self._read(text)
            outside.append("\n".join(lines_out))
        self._outside = Vouchers(outside) if self.rows else None

    def _read(self, text: str) -> list[str]:
        """Reads *text*'s tables into :attr:`rows`; returns its lines outside them."""
        blocks, outside = table_cells(text)
        for block in blocks:
            cells_of = [[fold(c).strip() for c in row] for row in block]
            found = [[scan(c) for c in row] for row in cells_of]
            unit_cols = _unit_columns(cells_of)
            words = [
                [
                    c
                    for n, (c, qs) in enumerate(zip(row, fs, strict=True))
                    if n not in unit_cols and c and not _figure(c, qs)
                ]
                for row, fs in zip(cells_of, found, strict=True)
            ]
            counts: dict[str, int] = {}
            for row, fs in zip(words, found, strict=True):
                if not any(fs):
                    continue  # a header names columns, not rows: its words count for none
                for c in set(row):
                    counts[c.lower()] = counts.get(c.lower(), 0) + 1
            common = max(2, (len(block) + 1) // 2)
            header = next((r for r, fs in zip(cells_of, found, strict=True) if not any(fs)), None)
            for cells, row, fs in zip(cells_of, words, found, strict=True):
                keys = tuple(
                    c.lower() for c in row if counts.get(c.lower(), 0) < common and _key_like(c)
                )
                if not keys and fs and len(fs[0]) == 1 and fs[0][0].kind == DATE:
                    keys = (fs[0][0].text.lower(),)  # 11月17号,420,12.6: a day's row
                    fs = [(), *fs[1:]]
                values = frozenset(_value_key(q) for qs in fs for q in qs if q.kind != IDENTIFIER)
                columns: tuple[tuple[str, str], ...] = ()
                units: tuple[tuple[str, str], ...] = ()
                if header is not None and len(header) == len(cells):
                    columns = tuple(
                        (_column_name(h), _value_key(qs[0]))
                        for h, c, qs in zip(header, cells, fs, strict=True)
                        if len(qs) == 1 and _key_like(h) and _figure(c, qs)
                    )
                    units = tuple(
                        (_value_key(qs[0]), u)
                        for h, c, qs in zip(header, cells, fs, strict=True)
                        if len(qs) == 1 and not qs[0].unit and (u := _header_unit(h))
                    ) + tuple(  # a cell's own counter: 4,800個 counts pieces, not shots
                        (_value_key(qs[0]), qs[0].unit)
                        for qs in fs
                        if len(qs) == 1 and qs[0].unit and qs[0].uclass == COUNTER
                    )
                if keys and values:
                    self.rows.append(_Row(keys, values, columns, units))
        return outside

    def moved(self, text: str) -> list[Quantity]:
        """The figures of *text* that a sentence takes from a row it does not name, while
        naming another row of the same figures' tables."""
        if not self.rows or not text:
            return []
        folded = fold(text)
        out: list[Quantity] = []
        start = 0
        for m in [*_SENTENCE.finditer(folded), None]:
            end = m.end() if m else len(folded)
            sentence = folded[start:end]
            start = end
            if sentence.strip():
                out.extend(self._moved_in(sentence))
        return out

    def _change_from(
        self, sentence: str, found: Sequence[Quantity], n: int, named: set[int]
    ) -> bool:
        """Whether figure *n* of *sentence* is what a named row's figure changed from (or
        to): the sentence compares the rows, it does not move a figure between them."""
        q = found[n]
        for other in (found[n - 1] if n else None, found[n + 1] if n + 1 < len(found) else None):
            if other is None:
                continue
            key = _value_key(other)
            if not any(key in self.rows[i].values for i in named):
                continue
            if _joined(sentence, q, other) or _joined(sentence, other, q):
                return True
        return False

    def _moved_in(self, sentence: str) -> list[Quantity]:
        low = sentence.lower()
        named = {i for i, r in enumerate(self.rows) if any(_said(low, k) for k in r.keys)}
        if not named:
            return []
        # the sentence is about one row (or rows that share the key it names): a sentence
        # naming several rows lists them, and which figure goes with which is not read
        shared = set.intersection(*(set(self.rows[i].keys) for i in named))
        if not any(_said(low, k) for k in shared):
            return []
        out = []
        found = scan(sentence)
        for n, q in enumerate(found):
            key = _value_key(q)
            if self._other_column(low, q, key, named) and not self._change_from(
                sentence, found, n, named
            ):
                out.append(q)
                continue
            if self._other_unit(q, key, named):
                out.append(q)  # 1,032箱 from the 数量(kg) column: the unit of another column
                continue
            holders = {i for i, r in enumerate(self.rows) if key in r.values}
            if not holders or holders & named:
                continue
            if any(_TOTALS.intersection(self.rows[i].keys) for i in holders):
                continue  # 合计 258: a total is the whole table's, whichever rows are named
            if self._change_from(sentence, found, n, named):
                continue  # p99 从 640 ms 降到 95 ms: the other row's figure is what it was
            if any(h in low for i in holders for h in self.rows[i].hints):
                continue  # the figure's own row is named in part
            if any(
                t in low and not any(t in k for j in named for k in self.rows[j].keys)
                for i in holders
                for t in self.rows[i].tails
            ):
                continue  # by its head noun (寿命 of 設計寿命), which no named row shares
            if self._outside is not None and self._outside.vouches(q):
                continue
            out.append(q)
        return out

    def _other_unit(self, q: Quantity, key: str, named: set[int]) -> bool:
        """Whether a figure written with a unit stands in a named row only under columns
        whose headers give it another unit (1,032箱 where 1,032 is under 数量(kg) and the
        boxes are counted under 箱数)."""
        if not q.unit or q.kind != NUMBER:
            return False
        seen = False
        for i in named:
            units = self.rows[i].units
            if any(value == key and unit == q.unit for value, unit in units):
                return False
            # its own column gives another unit, and another column of the row this one
            # (人 for 名 is a way of writing, where no column counts in 人)
            seen = seen or (
                any(value == key for value, _u in units)
                and any(value != key and unit == q.unit for value, unit in units)
            )
        return seen

    def _other_column(self, low: str, q: Quantity, key: str, named: set[int]) -> bool:
        """Whether the sentence puts a figure of a named row under another column of that
        row: the column named right before *q* ("黑色XXL码库存22" where the row gives 22
        under XL and 9 under XXL), unless a row it names has the figure there."""
        wrong = False
        for i in named:
            columns = dict(self.rows[i].columns)
            if len(columns) < 2:
                continue
            head = _column_before(low, q.start, columns)
            if not head:
                continue
            if any(head in name and value == key for name, value in columns.items()):
                # the row has it there, or under a column the name is short for (負担 for
                # 利用者負担), or another row the sentence names does (a table printed twice)
                return False
            # the figure stands in this row under another column: taken from the row, put
            # in the wrong cell
            wrong = wrong or key in columns.values()
        return wrong


def _column_name(header: str) -> str:
    """A column as a sentence names it: its header without the unit in brackets after it
    (在籍(名) as 在籍, 金額（円） as 金額)."""
    return (_HEAD_UNIT.sub("", header).strip() or header).lower()


_HEAD_UNIT = re.compile(r"\s*[(（][^()（）]{1,12}[)）]\s*$")


#: A header that counts in a unit: 箱数, 件数, 人数, 本数 (the counter, then 数).
_COUNT_HEAD = re.compile(r"([^\W\d_])数$")


def _header_unit(header: str) -> str:
    """The unit a column's header gives its cells, as a figure with it reads: the unit in
    brackets after it (数量(kg), 金額（円）) or the counter a count names (箱数); "" when it
    gives none or one the figures are not read with."""
    m = _HEAD_UNIT.search(header)
    word = m.group(0).strip().strip("()（）").strip() if m else ""
    if not word:
        c = _COUNT_HEAD.search(header.strip())
        word = c.group(1) if c else ""
    if not word:
        return ""
    found = scan(f"1{word}") if not word.isascii() else scan(f"1 {word}")
    if len(found) != 1 or not found[0].unit or found[0].value != 1:
        return ""  # 金額（千円）: its cells are thousands, a figure with the unit is not theirs
    return found[0].unit


def _column_before(low: str, at: int, columns: dict[str, str]) -> str:
    """The column name a sentence writes right before position *at*: at most four Chinese
    or Japanese characters between, or a colon ("黑色XXL码库存22", "XXL: 9"; not "55 runners
    and $4,015", "950.00 net, 190.00 VAT"); a Latin name as a word of its own (XL is not in
    XXL), and the longest name where one holds another (原価率, not 原価)."""
    window = low[max(0, at - 40) : at]
    best, span = "", (-1, -1)
    for name in columns:
        found = window.find(name)
        while found >= 0:
            a, b = found, found + len(name)
            found = window.find(name, found + 1)
            gap = "".join(window[b:].split()).strip(":：=")
            if len(gap) > 4 or not all(ch.isalpha() and not ch.isascii() for ch in gap):
                continue  # "net, 190.00", "sessions/386": the name goes with another figure
            if name.isascii() and a and window[a - 1].isascii() and window[a - 1].isalnum():
                continue
            if b > span[1] or (b == span[1] and a < span[0]):
                best, span = name, (a, b)
    return best


#: What joins the two ends of a change between two figures: "from 640 ms to 95 ms",
#: 从640降到95, 640→95, 640から95に.
_CHANGE_JOIN = re.compile(
    r"\s*(?:to|down to|up to|->|→|⇒|~>|到|降到|降至|升到|升至|涨到|减到|提到|变成|變成|から)\s*"
)


#: A rate's denominator after its figure: /吨, / kg, per box.
_PER_TAIL = re.compile(
    # a blank run is tried from its start only (the leftmost match starts there anyway):
    # linear on a long run of tabs
    r"(?<![ \t])(?:[ \t]*+[/／][ \t]*+|[ \t]++per[ \t]++)[^\s/／]{1,8}$"
)


def _figure(cell: str, found: Sequence[Quantity]) -> bool:
    """Whether a cell is a figure (with its unit), not a word."""
    if not found or any(q.kind == IDENTIFIER for q in found):
        return False
    # one figure, or figures that fill the cell between them ("Thu 19 Nov": a weekday and
    # a date, which name no row)
    covered = sum(q.end - q.start for q in found)
    size = len(_PER_TAIL.sub("", cell.strip())) if any(q.per for q in found) else len(cell.strip())
    return covered >= size - len(found)  # 2650元/吨: the rate's denominator is the figure's


def _said(low: str, key: str) -> bool:
    """Whether a sentence (lower case) names a row's *key*: a short Latin key with a digit
    (r3, c1) as a word of its own, not inside another (r30, error1); any other anywhere."""
    if not (key.isascii() and len(key) <= 3 and any(c.isdigit() for c in key)):
        return key in low  # cat for "cats", as a word runs on
    at = low.find(key)
    while at >= 0:
        before = low[at - 1 : at]
        after = low[at + len(key) : at + len(key) + 1]
        if not (before.isascii() and before.isalnum()) and not (
            after.isascii() and after.isalnum()
        ):
            return True
        at = low.find(key, at + 1)
    return False


#: A column header that says its cells are units: unit, units, UoM, 単位, 单位.
_UNIT_HEAD = re.compile(r"(?i)units?|uom|単位|单位|單位")


def _unit_columns(rows: list[list[str]]) -> frozenset[int]:
    """The columns a header names as units ("| item | qty | unit |"): their cells say what
    a figure is counted in, and name no row."""
    for row in rows[:2]:
        cols = frozenset(n for n, c in enumerate(row) if _UNIT_HEAD.fullmatch(c.strip()))
        if cols:
            return cols
    return frozenset()


def _a_unit(word: str) -> bool:
    """Whether *word* is a unit of measure or a counter as a whole (kg, litres, 箱)."""
    if not word or len(word) > 12 or any(ch.isdigit() for ch in word):
        return False
    probe = f"1 {word}" if word.isascii() else f"1{word}"
    got = scan(probe)
    return (
        len(got) == 1
        and got[0].uclass in (HARD, COUNTER)
        and got[0].start == 0
        and got[0].end == len(probe)
        # a word in katakana is a counter after a figure (4,800ショット), never alone (スルメイカ)
        and (got[0].uclass != COUNTER or cjk_unit(probe, 1) is not None)
    )


def _key_like(cell: str) -> bool:
    """Whether a word cell can name its row: two characters and more (two Latin letters
    only as capitals: MI, SE), and not only punctuation."""
    core = cell.strip(" -—–:：|")
    if _a_unit(core):
        return False  # kg, litres, 箱: a unit names what is measured, no row
    if core.isascii() and len(core) == 2:
        # MI, SE: a variable's name; R3, C1: a run's or a cell's label, said as a word
        return core.isupper() and core[0].isalpha() and (core[1].isalpha() or core[1].isdigit())
    return len(core) >= 2 and any(ch.isalnum() for ch in core)


def _joined(sentence: str, a: Quantity, b: Quantity) -> bool:
    """Whether figure *a* is the start of a change whose end is *b* (same unit)."""
    return (
        a.end <= b.start
        and a.unit == b.unit
        and _CHANGE_JOIN.fullmatch(sentence[a.end : b.start]) is not None
    )


def moved_figures(text: str, evidence: Sequence[str]) -> list[Quantity]:
    """The figures of *text* taken from a table row it does not name (see :class:`Rows`)."""
    return Rows(evidence).moved(text)
