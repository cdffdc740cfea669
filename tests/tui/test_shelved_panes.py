"""A stretch shelved over the time budget, as the journals and tender panes show it: the
note names the file, the offset and the check; nothing claims a retry it would not get."""

from __future__ import annotations

from pathlib import Path

from kura_core.budget import Overran
from kura_core.distill.pipeline import overran_note
from kura_core.handwork.journals import JournalState, Stretch
from kura_tui.widgets.journals import render_journal
from kura_tui.widgets.tender import _log_row

NOTE = overran_note(
    Path("/home/me/j.jsonl"), "byte", 10412, 34780, Overran("floor: the candidate's text", 61.2, 60)
)


def _journal(reason: str) -> JournalState:
    shelf = Stretch(10412, 34780, "shelved", reason, 2, "", 1000.0)
    return JournalState(
        "claude", "/home/me/j.jsonl", "byte", 50000, 50000, 10412, 39588, 39588, 900.0, (shelf,)
    )


def test_the_journals_pane_shows_the_note_of_a_shelved_stretch():
    text = render_journal(_journal(NOTE), 1100.0).plain
    assert "shelved 10,412–34,780" in text or "shelved 10412–34780" in text
    assert "/home/me/j.jsonl byte 10412–34780: floor: the candidate's text took 61.2s" in text
    assert "retried first by the next distil" not in text  # the note says what happens
    other = render_journal(_journal("HTTP 500 from the brain"), 1100.0).plain
    assert "HTTP 500 from the brain — retried first by the next distil" in other


def test_the_tender_log_line_of_a_shelved_stretch_is_a_warning():
    row = _log_row(f"2026-12-02T10:00:00 [main] shelved {NOTE}")
    assert "shelved over the time budget" in row.plain
    assert any("warning" in str(span.style) for span in row.spans)
    plain = _log_row("2026-12-02T10:00:00 [main] distil: 3 batch(es)")
    assert not any("warning" in str(span.style) for span in plain.spans)
