"""The gate's batch index against the plain definition it replaces.

The index finds quotes in one joined text, strips only the segments a quote lands in, and
asks "did the agent type this before?" with one Aho-Corasick pass. None of that may change
a verdict, so the reference below is the definition written the plain way -- every segment
stripped up front, the agent's typed text re-joined and substring-searched per segment --
and generated batches must give the same echo and strip results, the same lookups and the
same verdicts through both.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from functools import partial

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from kura_core.budget import Deadline, Overran
from kura_core.distill import evidence as ev, gate
from kura_core.distill.evidence import Segment
from kura_core.distill.search import first_occurrences
from kura_core.floors.text import _INVISIBLE_EXTRA, _QUOTES
from kura_core.floors.voices import voices
from kura_core.script import CJK
from tests.core.linear_inputs import grows_linearly

# --------------------------------------------------------------------------- the reference

_WS = re.compile(r"\s+")


_CJK_CHAR = re.compile(f"[{CJK}]")
_LEAD_FIGURE = re.compile(r"[0-9]+(?:[.,][0-9]+)*")


def _figure_then_cjk(a: str, b: str) -> bool:
    """*a* ends with a figure standing alone (at its start, after a CJK character or a
    clause's punctuation) and *b* starts with a CJK character."""
    m = re.search(r"[0-9]+(?:[.,][0-9]+)*$", a)
    if not m or not b or not _CJK_CHAR.match(b[0]):
        return False
    before = a[: m.start()]
    return not before or _apart(before[-1])


def _cjk_then_figure(a: str, b: str) -> bool:
    """*a* ends with a CJK character and *b* is a figure, alone or before a CJK one."""
    m = _LEAD_FIGURE.match(b)
    if not a or not _CJK_CHAR.match(a[-1]) or not m:
        return False
    rest = b[m.end() :]
    return not rest or _apart(rest[0])


def _apart(ch: str) -> bool:
    """A character beside a figure that leaves it standing alone: a CJK character, or
    punctuation that joins no identifier (，4 月 but not v1.2 版 or A-4 号)."""
    return bool(_CJK_CHAR.match(ch)) or (not ch.isalnum() and ch not in "._-/:#@$%&+")


def _close_figures(text: str) -> str:
    """No space between a figure standing alone and a CJK character, either way round,
    where one space parts them (a line break stays, and so does a wider gap: a table's
    column)."""
    parts = re.split(r"(\s+)", text)
    out = [parts[0]]
    for gap, w in zip(parts[1::2], parts[2::2], strict=True):
        if gap == " " and (_figure_then_cjk(out[-1], w) or _cjk_then_figure(out[-1], w)):
            out[-1] += w
        else:
            out += [gap, w]
    return "".join(out)


def ref_normalize(text: str) -> str:
    if not text:
        return ""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(
        ch for ch in text if unicodedata.category(ch) != "Cf" and ch not in _INVISIBLE_EXTRA
    )
    text = text.translate(_QUOTES)
    return _WS.sub(" ", _close_figures(text)).strip()


def ref_weight(normalized: str) -> int:
    return sum(2 if ev.is_cjk(ch) else 1 for ch in normalized if not ch.isspace())


def _typed_before(blob: str, piece: str) -> bool:
    return gate._is_prose(piece) and piece in blob


def _cut_in_its_line(text: str, start: int, end: int, breaks) -> str:
    """cut_reason on the line of a machine's output that holds the quote (each line is a
    record of its own), or on the whole text when the quote spans lines."""
    bounds = [-1, *breaks, len(text)]
    for a, b in zip(bounds, bounds[1:], strict=False):
        if a < start and end <= b:
            return gate.cut_reason(text[a + 1 : b], start - a - 1, end - a - 1)
    return gate.cut_reason(text, start, end)


class RefIndex:
    """The batch index as it was defined: everything prepared up front, plainly."""

    def __init__(self, segments, is_echo):
        self.segments = list(segments)
        self.texts = [ref_normalize(s.text) for s in self.segments]
        self.vouch: list[str] = []
        self.own_echo: list[str] = []
        #: a tool output's pieces that are not the agent's own words (what it adds)
        self.added: list[list[str]] = []
        typed: list[str] = []
        for seg, norm in zip(self.segments, self.texts, strict=True):
            text = seg.text
            own = ""
            added: list[str] = []
            if seg.cls == "TOOL" and typed:
                blob = "\n".join(typed)
                text, hit = gate._strip_echoes(text, partial(_typed_before, blob))
                if hit:
                    own = ref_normalize(text)
                added = [
                    piece
                    for _, _, piece in gate._weighed_pieces(seg.text)
                    if not _typed_before(blob, piece)
                ]
            elif seg.cls == "ACT":
                text, hit = gate._strip_prose_payloads(text)
                if hit:
                    own = ref_normalize(text)
            if seg.cls in ("TOOL", "ACT"):
                text, _ = gate._strip_echoes(text, is_echo)
            self.vouch.append(text)
            self.own_echo.append(own)
            self.added.append(added)
            if seg.cls in ("SELF", "ACT"):
                typed.append(norm)

    def _quoted_back(self, i, needle):
        """The agent's words quoted back in the person's turn: every occurrence inside
        quotation marks, and an earlier SELF or ACT segment holds them."""
        text = self.texts[i]
        spots = [k for k in range(len(text)) if text.startswith(needle, k)]
        inside = all(
            text[k - 1 : k] in "「『“\"'‘"
            and text[k + len(needle) : k + len(needle) + 1] in "」』”\"'’"
            and text[k - 1 : k] != ""
            and text[k + len(needle) : k + len(needle) + 1] != ""
            for k in spots
        )
        earlier = any(
            self.segments[j].cls in ("SELF", "ACT") and needle in self.texts[j] for j in range(i)
        )
        return bool(spots) and inside and earlier

    def find(self, needle, prose=""):
        found = []
        for i, text in enumerate(self.texts):
            if needle in text:
                adds = any(p in needle and sum(c.isalnum() for c in p) >= 4 for p in self.added[i])
                if self.own_echo[i] and needle not in self.own_echo[i] and not adds:
                    continue  # only the agent's own words, and nothing the tool added
                rank = gate.CLASS_PREFERENCE.get(self.segments[i].cls, 9)
                undone = self.segments[i].cls == "ACT" and gate.call_outcome(self.segments, i)
                found.append((rank, bool(undone), i))
        demoted = not found
        if demoted:
            found = [(0, False, i) for i, text in enumerate(self.texts) if needle in text]
        why = ""
        for _rank, _undone, i in sorted(found):
            text = self.texts[i]
            start = text.find(needle)
            cls = self.segments[i].cls
            machine = cls in ("TOOL", "ACT")
            raw = self.segments[i].text
            # a machine's lines are records of their own; a person's paragraphs that end
            # a sentence or a pasted command line end it too
            lines = gate._line_breaks(raw, text) if machine else gate._paragraph_breaks(raw, text)
            while start >= 0:
                reason = _cut_in_its_line(text, start, start + len(needle), lines)
                if not reason and cls != "SELF":  # the clause that governs the quote
                    breaks = gate._line_breaks(self.segments[i].text, text)
                    end = start + len(needle)
                    strict = cls == "USER"
                    reason = gate._scope_reason(text, start, end, prose, breaks, strict=strict)
                if not reason:
                    seg = self.segments[i]
                    if demoted or (cls == "USER" and self._quoted_back(i, needle)):
                        seg = gate._as_self(seg)
                    return seg, "", i
                why = why or reason
                start = text.find(needle, start + 1)
        return None, why, -1


# --------------------------------------------------------------------------- generated batches

_PHRASES = [
    "the fan curve is too steep",
    "we decided to keep the backup at 3am",
    "I think the pump is failing",
    "duty cycle 55 percent",
    "ポンプの設定を確認してください",
    "バックアップは毎晩三時",
    "not the controller",
    "echo done",
    "\u201cquoted words here\u201d",
    "zero\u200bwidth joined words",
    "ＦＵＬＬ width text here",
]
_GLUE = ["\n", ". ", "! ", ": ", " | ", "\t", " — ", "。", ";", "  ", " ", "path/to:file:12: "]

_text = st.lists(
    st.one_of(st.sampled_from(_PHRASES), st.sampled_from(_GLUE), st.text(max_size=12)),
    max_size=14,
).map("".join)

_ACT = st.one_of(
    _text,
    st.tuples(
        st.sampled_from(_PHRASES), st.sampled_from(["", " >> notes.md", " > /etc/x.conf"])
    ).map(lambda t: f'Bash: echo "{t[0]}"{t[1]}'),
    st.tuples(st.sampled_from(_PHRASES), _text).map(
        lambda t: f"Bash: cat > notes.md <<'EOF'\n{t[0]}\n{t[1]}\nEOF\n"
    ),
)


@st.composite
def batches(draw):
    n = draw(st.integers(1, 9))
    segs = []
    for i in range(n):
        cls = draw(st.sampled_from(gate.CLASSES))
        text = draw(_ACT if cls == "ACT" else _text)
        segs.append(Segment(cls, text, "gen", i, i + 1, "seq"))
    store = draw(st.lists(st.sampled_from(_PHRASES), max_size=2))
    return segs, store


def _needles(segs, draw_from):
    out = set(_PHRASES)
    for s in segs:
        t = ev.normalize(s.text)
        for a in range(0, len(t), 5):
            out.add(t[a : a + draw_from])
    return sorted(out)


_SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(st.text(max_size=60))
def test_normalize_and_weight_match_the_plain_definitions(text):
    assert ev.normalize(text) == ref_normalize(text)
    norm = ref_normalize(text)
    assert ev.quote_weight(norm) == ref_weight(norm)
    assert ev.quote_weight(text) == ref_weight(text)


@pytest.mark.slow
@_SETTINGS
@given(batches(), st.integers(4, 30))
def test_index_strips_and_finds_like_the_plain_definition(batch, width):
    segs, store = batch
    echo = gate.StoreEcho(store)
    ref, new = RefIndex(segs, echo), gate._Index(segs, echo)
    needles = _needles(segs, width)
    new.warm(needles[: len(needles) // 2])  # half made ready up front, half on demand
    for i in range(len(segs)):
        assert new.own_echo(i) == ref.own_echo[i]
        assert new.vouch(i) == ref.vouch[i]
    for needle in needles:
        got, want = new.find(needle), ref.find(needle)
        if want[0] is not None and want[0].cls == "USER" and voices(want[0].text):
            # the reference does not model pasted material: a quote that reaches into a
            # quoted line ("> …") of the person's turn is re-filed by the index alone
            got = (got[0] and replace(got[0], cls=want[0].cls), *got[1:])
        assert got == want


@pytest.mark.slow
@_SETTINGS
@given(batches(), st.data())
def test_verdicts_do_not_change(batch, data):
    segs, store = batch
    quotes = data.draw(st.lists(st.sampled_from(_needles(segs, 12)), min_size=1, max_size=3))
    cand = {
        "kind": data.draw(st.sampled_from(["fact", "judgement", "idea"])),
        "title": "the pump",
        "description": "what was said about the pump",
        "body": "I judged the pump from what was said.",
        "quotes": [f"[USER] {q}" for q in quotes],
    }
    echo = gate.StoreEcho(store)
    got = gate.run_gate([cand], segs, is_echo=echo)[0]
    ref = RefIndex(segs, echo)
    prose = gate._prose(cand)
    for q in got.quotes:
        if q.status == "verified" and all(
            ev.quote_weight(v) < 8 for v in gate._variants(ev.normalize(q.text))
        ):
            # too short to look for: taken only as the whole of a tool's output
            whole = ev.normalize(q.text).strip()
            assert q.cls == "TOOL" and any(
                s.cls == "TOOL" and ref_normalize(s.text).strip() == whole for s in segs
            ), q.text
            continue
        if q.status in ("verified", "echo"):
            # the gate tries the quote as given, then without one wrapping pair of quote marks
            # or ellipses (gate._variants); the reference looks for each form the same way
            forms = gate._variants(ev.normalize(q.text))
            # and with its spaces read as the line breaks of a tool's output they stand for
            forms.append(ev.normalize(q.text.replace(" ", "\n")))
            found = [ref.find(v, prose)[0] for v in forms]
            assert any(
                seg is not None
                and (
                    seg.cls == q.cls
                    # the reference does not model pasted material: a quote in a quoted
                    # line ("> …") of the person's turn is re-filed as TOOL by the gate alone
                    or (seg.cls == "USER" and q.cls == "TOOL" and voices(seg.text))
                    # nor the agent's words quoted back in quotation marks, which stay SELF
                    or (seg.cls == "USER" and q.cls == "SELF" and _quoted_back(q.text, segs))
                )
                for seg in found
            ), q.text


def _quoted_back(quote: str, segs) -> bool:
    """Whether the person's segment holds *quote* in quotation marks and an agent's segment
    (its words or a call) holds it too -- the gate files such a quote as the agent's."""
    needle = ev.normalize(quote)
    return any(
        s.cls == "USER" and any(f"{a}{needle}{b}" in ev.normalize(s.text) for a, b in _QUOTE_PAIRS)
        for s in segs
    ) and any(s.cls in ("SELF", "ACT") and needle in ev.normalize(s.text) for s in segs)


_QUOTE_PAIRS = [("「", "」"), ("『", "』"), ("“", "”"), ('"', '"'), ("'", "'"), ("‘", "’")]


# --------------------------------------------------------------------------- first occurrences


@_SETTINGS
@given(
    st.text(alphabet="ab -\n", max_size=200),
    st.lists(st.text(alphabet="ab -", min_size=1, max_size=8), max_size=12),
)
def test_first_occurrences_are_str_find(text, patterns):
    assert first_occurrences(text, patterns) == {p: text.find(p) for p in patterns}


def test_periodic_text_makes_the_automaton_again_and_stays_exact():
    """Many patterns that all match at every position of a long periodic run: the scan
    drops what it has placed instead of wading through every repeat."""
    text = "- " * 20_000 + "end of the run"
    patterns = ["- " * k for k in range(4, 300)] + ["end of the run", "never here"]
    assert first_occurrences(text, patterns) == {p: text.find(p) for p in patterns}


def test_a_scan_past_its_deadline_names_the_check():
    ticks = iter(range(0, 10**9, 10))
    deadline = Deadline(5.0, clock=lambda: float(next(ticks)))
    text = "the same words again " * 100_000
    try:
        first_occurrences(text, ["same words", "words again", "nowhere at all"], deadline)
    except Overran as exc:
        assert exc.check == "gate: the agent's own words"
    else:
        raise AssertionError("a scan past its deadline went on")


@_SETTINGS
@given(
    st.text(alphabet=st.sampled_from(list("ab .:/\t\n") + ["ぁ", "ポ", "中", "\u9fff", "\ua000"]))
)
def test_prose_is_words_or_kana_and_han_as_defined(piece):
    expected = " " in piece.strip() or any("\u3040" <= ch <= "\u9fff" for ch in piece)
    assert gate._is_prose(piece) == expected


# --------------------------------------------------------------------------- linear growth


def _batch_of(n: int) -> tuple[list[Segment], list[str]]:
    """*n* turns: the human asks, the agent writes prose and a file, a tool prints a log that
    repeats some of the prose; quotes land in the last turns' tool output, in the agent's
    words and in the human's."""
    segs = []
    for t in range(n):
        said = f"turn {t} the fan curve of rack {t % 97} is set to ramp slowly. I think it holds."
        segs.append(
            Segment("USER", f"please check rack {t} and its fan number {t}", "g", t, t, "seq")
        )
        segs.append(Segment("SELF", said, "g", t, t, "seq"))
        body = "\n".join(f"def step_{t}_{k}(x):  # keeps shelf {k} at {t} C" for k in range(20))
        segs.append(Segment("ACT", f"Write: pump_{t}.py\n{body}", "g", t, t, "seq"))
        log = "\n".join(
            f"[{t}:{k}] sensor {k} reads {t * k % 89} C on shelf {k % 7}" for k in range(40)
        )
        segs.append(Segment("TOOL", log + "\n" + said + "\n+" + "-" * 60 + "+", "g", t, t, "seq"))
    last = n - 1
    needles = [
        f"[{last}:3] sensor 3 reads",
        f"please check rack {last} and its fan",
        f"turn {last} the fan curve of rack",
        "a sentence found nowhere in this batch",
    ]
    return segs, needles


def _index_once(batch: tuple[list[Segment], list[str]]) -> None:
    segs, needles = batch
    index = gate._Index(segs, gate.StoreEcho(["sensor 5 reads 0 C on shelf 5"]))
    index.warm(needles)
    for needle in needles:
        _, _, pos = index.find(needle)
        if pos >= 0:
            index.vouch(pos)


def test_the_index_grows_linearly_with_the_batch():
    """Ten times the batch costs at most ~fifteen times the CPU time (the old index re-joined
    everything the agent typed for every tool output: a hundred times). Measured by the
    shared harness: CPU time, not wall time, re-measured at larger sizes before a miss
    counts, so a loaded machine does not fail it."""
    growth = grows_linearly(_index_once, _batch_of, 150, cap=60.0)  # type: ignore[arg-type]
    assert growth.ok, growth.why


def test_a_quote_cut_in_every_tool_output_scans_the_typed_text_a_few_times(monkeypatch):
    """A needle that a thousand tool outputs hold, cut in each (it ends inside a word):
    every one of them must be stripped of the agent's own words, but the agent's typed
    text is scanned a logarithmic number of times, not once per output."""
    scans = []
    real = gate.first_occurrences

    def counting(text, patterns, deadline=None):
        scans.append(len(text))
        return real(text, patterns, deadline)

    monkeypatch.setattr(gate, "first_occurrences", counting)
    segs = []
    for t in range(1000):
        segs.append(
            Segment("SELF", f"I checked the pump {t} and it looks fine to me", "g", t, t, "seq")
        )
        segs.append(
            Segment(
                "TOOL", f"pump {t}: pressure is nominally steady\nline two of {t}", "g", t, t, "seq"
            )
        )
    index = gate._Index(segs, gate.StoreEcho([]))
    seg, why, _ = index.find("pressure is nominal")
    assert seg is None and why == "ends inside a word"
    assert 1 <= len(scans) <= 12, len(scans)
    ref = RefIndex(segs, gate.StoreEcho([]))
    assert [index.own_echo(i) for i in range(len(segs))] == ref.own_echo
