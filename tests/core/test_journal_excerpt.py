"""The journal around a piece of evidence (Kura.journal_excerpt): one reading path, the
adapters' own segment_context, behind the check that only the store's journals are opened."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kura_core.distill.journals import read_claude, read_gemini
from kura_core.errors import ContainmentError, KuraError, NotFound
from kura_core.kura import Kura
from kura_core.registry import Registry
from tests.conftest import make_store

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "journals"


def _line(kind: str, text: str) -> str:
    if kind == "user":
        return json.dumps(
            {
                "type": "user",
                "message": {"role": "user", "content": [{"type": "text", "text": text}]},
            }
        )
    if kind == "tool":
        return json.dumps(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "t1",
                            "content": [{"type": "text", "text": text}],
                        }
                    ],
                },
            }
        )
    if kind == "meta":  # a record that holds no segment
        return json.dumps({"type": "summary", "summary": "a title the agent gave the session"})
    return json.dumps(
        {
            "type": "assistant",
            "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
        }
    )


RECORDS = [
    ("user", f"turn {i}: the shelf bracket number {i} goes on the left wall")
    if i % 2 == 0
    else ("assistant", f"reply {i}: noted, bracket {i} on the left")
    for i in range(12)
]


@pytest.fixture
def kura(tmp_path):
    make_store(tmp_path / "main", "main")
    (tmp_path / "journals").mkdir()
    (tmp_path / "chats").mkdir()
    cfg = tmp_path / "kura.toml"
    cfg.write_text(
        f'[stores.main]\npath = "{tmp_path / "main"}"\n'
        f'[stores.main.journals]\nclaude = "{tmp_path / "journals"}"\ngemini = "{tmp_path / "chats"}"\n'
    )
    k = Kura(Registry.open(cfg))
    yield k
    k.close()


def _claude(tmp_path: Path, records) -> Path:
    p = tmp_path / "journals" / "s1.jsonl"
    p.write_text("".join(_line(k, t) + "\n" for k, t in records), encoding="utf-8")
    return p


def test_the_segment_a_quote_came_from_is_marked_with_its_neighbours(kura, tmp_path):
    p = _claude(tmp_path, RECORDS)
    segs = read_claude(p, 0).segments
    q = segs[6]
    ex = kura.journal_excerpt(str(p), q.start, store="main", unit="byte", around=2)
    assert ex.adapter == "claude" and ex.unit == "byte" and ex.found and not ex.at_end
    assert [ln.text for ln in ex.lines] == [s.text for s in segs[4:9]]
    assert [ln.text for ln in ex.lines if ln.target] == [q.text]


def test_a_position_between_segments_marks_the_next_one_and_says_it_is_not_exact(kura, tmp_path):
    p = _claude(tmp_path, RECORDS[:4] + [("meta", "")] + RECORDS[4:])
    lines = p.read_bytes().split(b"\n")
    meta_at = sum(len(x) + 1 for x in lines[:4])  # where the summary record begins
    ex = kura.journal_excerpt(str(p), meta_at, store="main")
    (target,) = [ln for ln in ex.lines if ln.target]
    assert target.start > meta_at and "turn 4" in target.text
    assert not ex.found and not ex.at_end


def test_a_mark_at_the_end_shows_what_comes_before_it(kura, tmp_path):
    p = _claude(tmp_path, RECORDS)
    ex = kura.journal_excerpt(str(p), p.stat().st_size, store="main", around=3)
    assert ex.at_end and not ex.found and not any(ln.target for ln in ex.lines)
    assert ex.lines[-1].text.startswith("reply 11") and ex.lines[-1].end == p.stat().st_size
    assert len(ex.lines) == 4


def test_a_position_past_the_end_of_a_cut_journal_is_an_error_that_says_so(kura, tmp_path):
    p = _claude(tmp_path, RECORDS)
    with pytest.raises(KuraError, match="shorter"):
        kura.journal_excerpt(str(p), p.stat().st_size + 500, store="main")


def test_a_position_in_another_unit_is_refused_not_misread(kura, tmp_path):
    doc = tmp_path / "chats" / "session-2025-10-02T07-00-6a1e9b2c.json"
    shutil.copy(FIX / "gemini" / doc.name, doc)
    with pytest.raises(KuraError, match="seq"):
        kura.journal_excerpt(str(doc), 3, store="main", unit="byte")


def test_a_record_numbered_journal_opens_at_its_record(kura, tmp_path):
    doc = tmp_path / "chats" / "session-2025-10-02T07-00-6a1e9b2c.json"
    shutil.copy(FIX / "gemini" / doc.name, doc)
    user = next(s for s in read_gemini(doc, 0).segments if "leave the listener alone" in s.text)
    ex = kura.journal_excerpt(str(doc), user.start, store="main", unit="seq", around=1)
    assert ex.adapter == "gemini" and ex.unit == "seq" and ex.found
    assert [ln.cls for ln in ex.lines if ln.target] == ["USER"]
    assert "listener" in next(ln.text for ln in ex.lines if ln.target)


def test_only_the_stores_own_journals_are_opened(kura, tmp_path):
    secret = tmp_path / "secret.jsonl"
    secret.write_text(_line("user", "hush") + "\n")
    with pytest.raises(ContainmentError, match="not one of the journals"):
        kura.journal_excerpt(str(secret), 0, store="main")
    with pytest.raises(ContainmentError):  # a path that only seems to be under the root
        kura.journal_excerpt(str(tmp_path / "journals" / ".." / "secret.jsonl"), 0, store="main")
    with pytest.raises(NotFound):
        kura.journal_excerpt(str(tmp_path / "journals" / "gone.jsonl"), 0, store="main")


@pytest.mark.slow
@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_the_context_in_a_long_journal_matches_a_whole_read_wherever_the_quote_is(tmp_path, where):
    """The reader looks only near the position, widening its windows as needed (a record
    after the quote far larger than the first window included); what it shows is exactly what
    reading the whole journal shows there."""
    from kura_core.distill.journals import segment_context

    lines = [
        _line("user" if i % 2 == 0 else "assistant", f"line {i}: " + "words on the shelf " * 30)
        for i in range(1500)
    ]
    big = {"start": 12, "middle": 753, "end": 1490}[where]
    lines[big + 1] = _line("assistant", "a very long reply " + "x" * 300_000)
    lines[big + 2] = _line("meta", "")
    path = tmp_path / "long.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    whole = list(read_claude(path, 0).segments)
    at = whole[big].start
    got = segment_context(path, at, adapter="claude", radius=3)
    i = [s.start for s in whole].index(at)
    assert [s.start for s in got.segments] == [s.start for s in whole[max(0, i - 3) : i + 4]]
    assert [s.text for s in got.segments] == [s.text for s in whole[max(0, i - 3) : i + 4]]
    assert got.segments[got.focus[0]].start == at
