"""Pilot tests for curating by hand: every action driven by keys, checked on disk and on screen."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import pytest
from textual.widgets import Input, TextArea

from kura_tui.screens.confirm import ConfirmScreen, LinksScreen, ReasonScreen
from kura_tui.screens.edit import MemoryEditScreen
from kura_tui.screens.evidence import EvidenceScreen
from kura_tui.screens.main import MainScreen
from kura_tui.screens.memory import MemoryScreen
from kura_tui.screens.tidy import TidyScreen
from kura_tui.screens.weave import WeaveScreen
from tests.tui.conftest import palette_offers, run, screen_text, settle, until

KILN = "kiln-firmware-3-2"
ARCHIVE = "archive-on-slow-disk"


def _store(app, name="maker"):
    return app.kura.registry.store(name)


def _log(app, *kinds, name="maker"):
    return app.kura.registry.workshop(name).gate_log(kinds=kinds)


async def select_in_map(pilot, slug: str) -> None:
    app = pilot.app
    await pilot.press("1")
    lines = app.main.map.query_one("#map-lines")
    lines.move_to(app.main.map.slugs.index(slug))
    await pilot.pause()
    assert app.main.map.selected == slug


def with_model(cfg: Path, url: str) -> None:
    cfg.write_text(
        cfg.read_text() + f'\n[models.thinker]\nurl = "{url}"\nmodel = "scripted"\ntimeout = 5\n'
    )


# --------------------------------------------------------------------------- memories


def test_a_memory_opened_from_the_map_says_where_it_stands_with_the_gate(make_app):
    app = make_app()

    async def script(pilot):
        await select_in_map(pilot, KILN)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MemoryScreen)
        gated = screen_text(app)
        await pilot.press("escape")
        await select_in_map(pilot, "laser-cutter-air-assist")
        await pilot.press("enter")
        await settle(pilot)
        return gated, screen_text(app)

    gated, edited = run(app, script)
    assert "as the gate passed it: the file matches its evidence seal" in gated
    assert "[TOOL] kiln controller: firmware 3.2 flashed over USB" in gated
    assert "linked from laser-cutter-air-assist" in gated and "poured by drain" in gated
    assert "hand-edited by ren (tui) on 2026-11-18 (body)" in edited
    assert "no longer matches its evidence seal" in edited


def test_a_memory_opened_from_a_recall_result(make_app):
    app = make_app()

    async def script(pilot):
        await pilot.press("4", *"kiln firmware", "enter")
        await settle(pilot)
        await pilot.press("escape", "enter")  # to the results, open the first
        await settle(pilot)
        return isinstance(app.screen, MemoryScreen) and app.screen.slug, screen_text(app)

    slug, text = run(app, script)
    assert slug == KILN and "Firmware 3.2 fixed the thermocouple offset" in text


def test_editing_a_memory_in_the_app_is_written_and_recorded_as_a_hand_edit(make_app):
    app = make_app(by="ren (tui)")
    st = _store(app)
    before = (st.root / f"{KILN}.md").read_text()
    line_before = st.index().by_slug()[KILN].raw

    async def script(pilot):
        await select_in_map(pilot, KILN)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, MemoryEditScreen)
        assert app.screen.query_one(TextArea).has_focus
        await pilot.press("end", *" Check the offset after flashing.")
        app.screen.query_one("#edit-tags", Input).value = "decision, firmware"
        app.screen.query_one("#edit-keep", Input).value = "flash over USB only"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        await pilot.press("enter")
        await settle(pilot)
        return screen_text(app)

    text = run(app, script)
    mem = st.read(KILN)
    assert "USB only. Check the offset after flashing." in mem.body
    assert mem.tags == ("decision", "firmware") and mem.curation("keep") == "flash over USB only"
    md = mem.meta["metadata"]
    assert md["hand_edited"]["by"] == "ren (tui)" and set(md["hand_edited"]["fields"]) == {
        "tags",
        "keep",
        "body",
    }
    assert md["evidence_manifest"].startswith("sha256:")  # the evidence is kept
    assert st.index().by_slug()[KILN].raw == line_before  # the title and trigger did not change
    (e,) = _log(app, "edited")
    assert e["slug"] == KILN and e["detail"]["before"] == before and "passes no gate" in e["reason"]
    assert "hand-edited by ren (tui)" in text and "no longer matches its evidence seal" in text


def test_the_edit_form_starts_where_attention_is_keeps_text_on_tab_and_picks_a_type(make_app):
    from textual.widgets import Select

    app = make_app()
    st = _store(app)
    # written by another tool: no type in its frontmatter
    (st.root / "untyped.md").write_text(
        "---\nname: untyped\ndescription: a memory written without a type\n---\nB.\n"
    )
    st.add_index_lines([("untyped", "No type yet", "a memory written without a type")])
    line = st.index().by_slug()["untyped"].raw
    assert st.read("untyped").type == ""

    async def script(pilot):
        await select_in_map(pilot, "untyped")
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, MemoryEditScreen)
        picker = app.screen.query_one("#edit-type", Select)
        assert picker.has_focus  # the first field that needs attention
        # tab back into the trigger and the title: typing adds to the text, never replaces it
        await pilot.press("shift+tab")
        assert app.screen.query_one("#edit-description", Input).has_focus
        await pilot.press("shift+tab")
        title = app.screen.query_one("#edit-title", Input)
        assert title.has_focus and title.selection.is_empty
        await pilot.press(*" here")
        assert title.value == "No type yet here"
        await pilot.press("tab", "tab", "enter")
        await settle(pilot)
        await pilot.press(*"ref", "enter")
        await settle(pilot)
        assert picker.value == "reference"
        await pilot.press("ctrl+s")
        await settle(pilot)
        await until(pilot, lambda: st.read("untyped").type == "reference", "the type saved")
        return True

    assert run(app, script)
    assert st.read("untyped").type == "reference"
    assert st.index().by_slug()["untyped"].title == "No type yet here"
    assert st.index().by_slug()["untyped"].raw != line


def test_saving_a_huge_body_asks_first_and_nothing_is_lost_either_way(make_app):
    app = make_app()
    st = _store(app)
    before = (st.root / f"{KILN}.md").read_text()
    huge = "A pasted manual line.\n" * 400  # far over the recall budget of 6,000 characters

    async def script(pilot):
        await select_in_map(pilot, KILN)
        await pilot.press("e")
        await settle(pilot)
        app.screen.query_one(TextArea).text = huge
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        asked = app.screen.text + " " + app.screen.yes
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, MemoryEditScreen)  # the form, with the text as typed
        kept = app.screen.query_one(TextArea).text == huge
        unchanged = (st.root / f"{KILN}.md").read_text() == before
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("y")
        await until(pilot, lambda: "A pasted manual line." in st.read(KILN).body, "the save")
        return asked, kept, unchanged

    asked, kept, unchanged = run(app, script)
    assert "over the store's whole recall budget" in asked and "Save anyway" in asked
    assert kept and unchanged
    assert st.read(KILN).body.count("A pasted manual line.") == 400


def test_a_hand_edit_of_the_title_and_trigger_moves_the_index_line_with_it(make_app):
    app = make_app()
    st = _store(app)

    async def script(pilot):
        await select_in_map(pilot, KILN)
        await pilot.press("e")
        await settle(pilot)
        app.screen.query_one("#edit-title", Input).value = "Kiln firmware"
        app.screen.query_one(
            "#edit-description", Input
        ).value = "kiln controller on firmware 3.2, flashed over USB"
        await pilot.press("ctrl+s")
        await settle(pilot)
        return list(app.main.map.lines)

    lines = run(app, script)
    entry = st.index().by_slug()[KILN]
    assert (
        entry.title == "Kiln firmware"
        and entry.description == "kiln controller on firmware 3.2, flashed over USB"
    )
    assert st.read(KILN).description == entry.description
    assert any(ln.slug == KILN and ln.title == "Kiln firmware" for ln in lines)


def test_a_refused_edit_keeps_the_editor_open_and_the_file_as_it_was(make_app):
    app = make_app()
    st = _store(app)
    before = (st.root / f"{KILN}.md").read_text()

    async def script(pilot):
        await select_in_map(pilot, KILN)
        await pilot.press("e")
        await settle(pilot)
        app.screen.query_one("#edit-tags", Input).value = "decision, a whole sentence here"
        await pilot.press("ctrl+s")
        await settle(pilot)
        return isinstance(app.screen, MemoryEditScreen), screen_text(app)

    still, text = run(app, script)
    assert still and "not one word" in text and "nothing was written" in text
    assert (st.root / f"{KILN}.md").read_text() == before
    assert _log(app, "edited") == []


def test_an_edit_against_a_file_changed_by_another_process_is_refused_and_kept_on_screen(make_app):
    app = make_app()
    st = _store(app)

    async def script(pilot):
        await select_in_map(pilot, KILN)
        await pilot.press("e")
        await settle(pilot)
        await pilot.press("end", *" Mine.")
        # the tender, meanwhile, rewrites the memory
        st.write(
            KILN,
            title="Kiln controller firmware 3.2",
            description="kiln controller on 3.2",
            body="Rewritten elsewhere.",
        )
        await pilot.press("ctrl+s")
        await settle(pilot)
        screen = app.screen
        return (
            isinstance(screen, MemoryEditScreen),
            screen.query_one(TextArea).text,
            screen_text(app),
        )

    still, mine, text = run(app, script)
    assert still and "USB only. Mine." in mine  # nothing typed is lost
    assert "changed on disk after you opened it" in text
    assert st.read(KILN).body.strip() == "Rewritten elsewhere."


EDITOR = """
import sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
open(path, "w", encoding="utf-8").write(text.replace({old!r}, {new!r}))
"""


def _editor(tmp_path: Path, monkeypatch, old: str, new: str, name: str = "ed.py") -> None:
    script = tmp_path / name
    script.write_text(EDITOR.format(old=old, new=new))
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)


def test_editing_in_editor_writes_through_the_store_and_leaves_no_edit_file(
    make_app, tmp_path, monkeypatch
):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    _editor(
        tmp_path, monkeypatch, "Flash it over USB only.", "Flash it over USB only, never over wifi."
    )
    app = make_app(by="ren (tui)")
    st = _store(app)

    async def script(pilot):
        await select_in_map(pilot, KILN)
        await pilot.press("E")
        await settle(pilot)
        return list(app.notes_seen)

    notes = run(app, script)
    assert "never over wifi" in st.read(KILN).body
    assert st.read(KILN).meta["metadata"]["hand_edited"]["fields"] == ["body"]
    assert "title" not in st.read(KILN).meta  # the title went back to the index line
    assert _log(app, "edited")[0]["detail"]["by"] == "ren (tui)"
    assert any("hand edit written (body)" in n for n in notes)
    assert not list((tmp_path / "cache" / "kura" / "edits").rglob("*.md"))


def test_an_editor_edit_with_invalid_frontmatter_is_asked_about_not_saved_without_its_tags(
    make_app, tmp_path, monkeypatch
):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    _editor(tmp_path, monkeypatch, "metadata:", "metadata: [unclosed")
    app = make_app()
    st = _store(app)
    before = (st.root / f"{KILN}.md").read_text()
    tags = st.read(KILN).tags
    assert tags  # the memory has tags that a silent save would drop
    kept = tmp_path / "cache" / "kura" / "edits" / "maker" / f"{KILN}.md"

    async def script(pilot):
        await select_in_map(pilot, KILN)
        await pilot.press("E")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        asked = screen_text(app)
        assert (st.root / f"{KILN}.md").read_text() == before  # nothing written
        # edit again: this time the editor closes the bracket it left open
        _editor(tmp_path, monkeypatch, "metadata: [unclosed", "metadata:", "fix.py")
        kept.write_text(kept.read_text().replace("Flash it over USB only.", "USB only."))
        await pilot.press("y")
        await settle(pilot)
        await until(pilot, lambda: "USB only." in st.read(KILN).body, "the fixed edit saved")
        return asked

    asked = run(app, script)
    assert "not valid YAML" in asked and "Nothing was written" in asked
    assert st.read(KILN).tags == tags


def test_an_editor_edit_that_cannot_be_read_is_kept_and_resumed(make_app, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    _editor(tmp_path, monkeypatch, "name: kiln-firmware-3-2", "name: kiln-firmware-4")
    app = make_app()
    st = _store(app)
    before = (st.root / f"{KILN}.md").read_text()
    kept = tmp_path / "cache" / "kura" / "edits" / "maker" / f"{KILN}.md"

    async def script(pilot):
        await select_in_map(pilot, KILN)
        await pilot.press("E")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        asked = screen_text(app)
        await pilot.press("n")
        await settle(pilot)
        assert kept.is_file() and "kiln-firmware-4" in kept.read_text()
        # put the name back and change the body, in the kept text
        _editor(
            tmp_path, monkeypatch, "name: kiln-firmware-4\n", "name: kiln-firmware-3-2\n", "fix.py"
        )
        kept.write_text(kept.read_text().replace("Flash it over USB only.", "USB only."))
        await pilot.press("E")
        await settle(pilot)
        return asked, list(app.notes_seen)

    asked, notes = run(app, script)
    assert "renaming a memory is not an edit" in asked and "Nothing was written" in asked
    assert any("resuming your unfinished edit" in n for n in notes)
    assert (st.root / f"{KILN}.md").read_text() != before
    assert "USB only." in st.read(KILN).body and not kept.exists()


def test_retire_asks_why_warns_of_dead_links_confirms_and_removes_file_and_line(make_app):
    app = make_app(by="ren (tui)")
    st = _store(app)
    text = (st.root / f"{ARCHIVE}.md").read_text()

    async def script(pilot):
        await select_in_map(pilot, ARCHIVE)
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, ReasonScreen)
        await pilot.press("enter")
        assert isinstance(app.screen, ReasonScreen)  # a reason is required
        await pilot.press(*"moved to the NAS", "enter")
        assert isinstance(app.screen, LinksScreen)  # what becomes of the links to it
        await pilot.press("k")
        assert isinstance(app.screen, ConfirmScreen)
        confirm = screen_text(app)
        assert st.has(ARCHIVE)  # nothing yet
        await pilot.press("y")
        await settle(pilot)
        return confirm, list(app.main.map.slugs)

    confirm, slugs = run(app, script)
    assert (
        "link to it" in confirm and "disk-layout" in confirm and "prefers-short-answers" in confirm
    )
    assert not (st.root / f"{ARCHIVE}.md").exists()
    assert ARCHIVE not in st.index().slugs() and ARCHIVE not in slugs
    (e,) = _log(app, "retired")
    assert (
        e["reason"] == "moved to the NAS"
        and e["detail"]["by"] == "ren (tui)"
        and e["detail"]["text"] == text
    )


@pytest.mark.parametrize("how", ["unlink", "redirect"])
def test_retire_makes_the_links_to_it_plain_text_or_points_them_elsewhere(make_app, how):
    app = make_app(by="ren (tui)")
    st = _store(app)
    linkers = [m.slug for m in st.scan().memories if ARCHIVE in m.links]
    assert linkers

    async def script(pilot):
        await select_in_map(pilot, ARCHIVE)
        await pilot.press("x", *"moved to the NAS", "enter")
        assert isinstance(app.screen, LinksScreen)
        if how == "unlink":
            await pilot.press("u")
        else:
            app.screen.query_one("#links-to", Input).focus()
            await pilot.press(*"nowhere", "enter")
            assert isinstance(app.screen, LinksScreen)  # no such memory: asked again
            assert "no other memory" in screen_text(app)
            app.screen.query_one("#links-to", Input).value = ""
            await pilot.press(*KILN, "enter")
        assert isinstance(app.screen, ConfirmScreen)
        confirm = screen_text(app)
        await pilot.press("y")
        await settle(pilot)
        await until(pilot, lambda: not st.has(ARCHIVE))
        return confirm

    confirm = run(app, script)
    assert ("plain text" in confirm) if how == "unlink" else (f"point at {KILN}" in confirm)
    assert not (st.root / f"{ARCHIVE}.md").exists()
    for slug in linkers:
        body = st.read(slug).body
        assert ARCHIVE not in st.read(slug).links
        assert (KILN in st.read(slug).links) == (how == "redirect"), body
    assert {e["slug"] for e in _log(app, "edited")} == set(linkers)


def test_retire_can_be_called_off_from_the_memory_viewer(make_app):
    app = make_app()
    st = _store(app)

    async def script(pilot):
        await select_in_map(pilot, KILN)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("x", *"no longer true", "enter", "k", "n")
        await settle(pilot)
        return isinstance(app.screen, MemoryScreen)

    assert run(app, script)
    assert st.has(KILN) and KILN in st.index().slugs() and _log(app, "retired") == []


# --------------------------------------------------------------------------- drafts and evidence


def test_an_extension_draft_shows_what_it_changes_beside_its_evidence(make_app):
    app = make_app()

    async def script(pilot):
        await pilot.press("2")
        slugs = [d.slug for d in app.main.drafts.drafts]
        app.main.drafts.query_one("#draft-queue").move_to(slugs.index("disk-layout-ext"))
        await pilot.pause()
        return screen_text(app)

    text = run(app, script)
    assert "extends → disk-layout" in text and "Changes to disk-layout: +2 −0" in text
    assert "+ The archive disk holds 5.1 TB" in text
    assert "[TOOL] “sdb: 8 TB archive" in text


def test_a_quote_opens_the_journal_around_it(make_app):
    app = make_app()

    async def script(pilot):
        await pilot.press("2", "o")
        await settle(pilot)
        assert isinstance(app.screen, EvidenceScreen)
        first = screen_text(app)
        await pilot.press("down")
        await settle(pilot)
        return first, screen_text(app)

    first, second = run(app, script)
    assert "session-0412.jsonl" in first
    assert (
        "▶ [USER]" in first
        and "let's descale the kettle every 90 days, the scale was awful" in first
    )
    assert "▶ [TOOL]" in second and "scale layer measured: 2.1 mm on the element" in second


def test_evidence_from_a_journal_the_store_does_not_drink_is_not_opened(make_app):
    app = make_app()

    async def script(pilot):
        from kura_core.handwork.quotes import Quote

        app.open_evidence("maker", "x", [Quote("USER", "hush", source="/etc/passwd", start=0)])
        await settle(pilot)
        return screen_text(app)

    assert "not one of the journals store 'maker' drinks" in run(app, script)


# --------------------------------------------------------------------------- seeds


def test_seeds_show_their_origin_and_confirmation_and_a_waiting_one_is_dismissed(make_app):
    app = make_app(by="ren (tui)")
    ws = app.kura.registry.workshop("maker")

    async def script(pilot):
        await pilot.press("6")
        await settle(pilot)
        waiting = screen_text(app)
        await pilot.press("f")  # graduated
        await settle(pilot)
        graduated = screen_text(app)
        await pilot.press("x")
        await settle(pilot)
        refused = isinstance(app.screen, MainScreen)
        await pilot.press("f", "f", "f", "f")  # dismissed, withered, all, back to waiting
        await pilot.press("x")
        assert isinstance(app.screen, ReasonScreen)
        await pilot.press(*"no room for a jig", "enter")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        return waiting, graduated, refused, list(app.notes_seen)

    waiting, graduated, refused, notes = run(app, script)
    assert "A jig for repeatable dovetails" in waiting and "[SELF]" in waiting
    assert "nothing yet" in waiting
    assert "✓ confirmed" in graduated and "became the draft sharpen-plane-irons" in graduated
    assert "yes, sharpen the plane irons before every glue-up" in graduated
    assert refused and any("only a waiting idea is dismissed" in n for n in notes)
    row = ws.query("SELECT state FROM seeds WHERE title='A jig for repeatable dovetails'")[0]
    assert row["state"] == "dismissed"
    (e,) = _log(app, "seed-dismissed")
    assert e["reason"] == "no room for a jig" and e["detail"]["by"] == "ren (tui)"


def test_a_withered_seed_is_listed_and_revived(make_app):
    app = make_app(by="ren (tui)")
    ws = app.kura.registry.workshop("maker")
    ws.query("UPDATE seeds SET updated = 0 WHERE state = 'waiting'")  # planted long ago
    assert app.kura.wither_seeds(store="maker") >= 1

    async def script(pilot):
        await pilot.press("6")
        await settle(pilot)
        await pilot.press("f", "f", "f")  # graduated, dismissed, withered
        await settle(pilot)
        withered = screen_text(app)
        await pilot.press("r")
        await settle(pilot)
        return withered, list(app.notes_seen)

    withered, notes = run(app, script)
    assert "withered 1" in withered and "A jig for repeatable dovetails" in withered
    assert "with no evidence" in withered and "r revives it" in withered
    assert any("revived" in n for n in notes)
    row = ws.query("SELECT state, checks FROM seeds WHERE title='A jig for repeatable dovetails'")
    assert row[0]["state"] == "waiting" and row[0]["checks"] == 0
    log = ws.query("SELECT kind, detail FROM gate_log WHERE kind = 'seed-revived'")
    assert json.loads(log[0]["detail"])["by"] == "ren (tui)"


# --------------------------------------------------------------------------- find


def test_find_filters_the_map_drafts_and_gate_log_as_you_type(make_app):
    app = make_app()

    async def script(pilot):
        out = {}
        await pilot.press("slash", *"decision")
        out["tag"] = list(app.main.map.slugs)
        app.main.map.query_one("#find-input", Input).value = ""
        await pilot.press(*"kiln 3.2")
        await pilot.pause()
        out["words"] = list(app.main.map.slugs)
        await pilot.press("escape")
        await pilot.pause()
        out["cleared"] = list(app.main.map.slugs)
        await pilot.press("2", "slash", *"disk")
        await pilot.pause()
        out["drafts"] = [d.slug for d in app.main.drafts.drafts]
        await pilot.press("enter")  # from the find bar to the list: the filter stays
        out["kept"] = [d.slug for d in app.main.drafts.drafts]
        await pilot.press("3", "slash", *"kiln")
        await pilot.pause()
        out["gatelog"] = [e.title for e in app.main.gatelog.shown]
        out["screen"] = screen_text(app)
        return out

    out = run(app, script)
    assert out["tag"] == [ARCHIVE, KILN]
    assert out["words"] == [KILN]
    assert len(out["cleared"]) == 5
    assert out["drafts"] == out["kept"] == ["disk-layout-ext"]
    assert out["gatelog"] == ["Kiln controller firmware 3.2", "Kiln peak temperature"]
    assert "2 of 5" in out["screen"]


# --------------------------------------------------------------------------- tender and journals


def test_the_tender_pane_shows_its_state_last_tick_and_log_live(make_app):
    app = make_app(watch=True)
    log = _store(app).still / "tend.log"

    async def script(pilot):
        import asyncio

        await asyncio.get_running_loop().run_in_executor(None, app.watching.wait, 10)
        await pilot.press("7")
        await settle(pilot)
        first = screen_text(app)
        with open(log, "a", encoding="utf-8") as fh:
            fh.write("2026-11-20T09:29:00 [maker] tidy: 2 weak line(s), 1 rewritten\n")
        await until(pilot, lambda: "tidy: 2 weak line(s), 1 rewritten" in screen_text(app))
        return first

    first = run(app, script)
    assert "alive" in first and "pid 4242" in first and "last beat 40s ago" in first
    assert "last tick 2026-11-20 08:50:02 · did work · drain, tidy, weave" in first
    assert "drain: poured 1, fixed 0, tossed 1, kept 0" in first


def test_the_journals_pane_shows_marks_and_shelved_stretches_and_opens_at_the_mark(make_app):
    app = make_app()

    async def script(pilot):
        await pilot.press("8")
        await settle(pilot)
        text = screen_text(app)
        await pilot.press("o")
        await settle(pilot)
        return text, screen_text(app)

    text, opened = run(app, script)
    assert "session-0412.jsonl" in text and "1 shelved" in text
    assert "scribe: connection refused" in text and "tried 2×" in text
    assert "▶ [USER]" in opened and "let's descale the kettle" in opened  # the next record to drink


def test_a_mark_at_the_end_of_a_journal_opens_on_what_comes_before_it(make_app):
    app = make_app()
    (j,) = app.kura.journals(store="maker").files

    async def script(pilot):
        from kura_core.handwork.quotes import Quote

        app.open_evidence(
            "maker",
            "the mark",
            [Quote("MARK", "the watermark", source=j.path, start=j.size, unit=j.unit)],
        )
        await settle(pilot)
        return screen_text(app)

    shown = run(app, script)
    assert f"the journal ends at byte {j.size:,}: nothing was written after it yet" in shown
    assert "and the bandsaw blade is due, remind me on Friday" in shown and "▶" not in shown


# --------------------------------------------------------------------------- the metabolism


def test_without_a_model_the_keys_say_so_plainly_and_start_nothing(make_app):
    app = make_app()

    async def script(pilot):
        bar = screen_text(app)
        await pilot.press("D")
        await pilot.press("N")
        await settle(pilot)
        return bar, list(app.notes_seen), app.job

    bar, notes, job = run(app, script)
    assert (
        "D distil (no model)" in bar and "N drain (no model)" in bar and "T tidy (by hand)" in bar
    )
    assert any(
        "distil needs a brain and a scribe model, and none is configured" in n for n in notes
    )
    assert any("drain needs a scribe model" in n for n in notes)
    assert job is None


def _brain(req):
    """One candidate per USER line, quoting it exactly."""
    import re

    lines = [l for l in req.messages[-1]["content"].splitlines() if re.match(r"^\[USER\] ", l)]
    return {
        "candidates": [
            {
                "kind": "fact",
                "title": l[7:60],
                "description": l[7:],
                "body": l[7:],
                "quotes": [l],
                "tags": [],
            }
            for l in lines
        ]
    }


def _scribe(req):
    task = req.messages[-1]["content"]
    cand = json.loads(task.split("Candidate:\n", 1)[1].split("\n\nVerified evidence:", 1)[0])
    return {
        "decision": "new",
        "slug": "",
        "title": cand["title"],
        "description": cand["description"],
        "type": "project",
        "body": cand["body"],
        "tags": [],
    }


def test_distil_now_runs_in_a_worker_with_progress_and_fills_the_drafts(
    make_app, tui_config, model
):
    with_model(tui_config, model.url)
    model.script("kura_candidates", _brain)
    model.script("kura_compose", _scribe)
    model.script("kura_seed_check", {"confirms": []})
    app = make_app()
    st = _store(app)
    before = {p.name for p in (st.still / "drafts").glob("*.md")}

    async def script(pilot):
        bar = app.main.workbar
        shown = []
        real = bar.progress
        bar.progress = lambda done, total, text: (
            shown.append((done, total, text)),
            real(done, total, text),
        )
        await pilot.press("D")
        await settle(pilot)
        return (
            shown,
            [d.slug for d in app.main.drafts.drafts],
            list(app.notes_seen),
        )

    shown, drafts, notes = run(app, script)
    after = {p.name for p in (st.still / "drafts").glob("*.md")}
    assert after > before
    assert (
        shown
        and all(total > 0 for _, total, _ in shown)
        and "drinking session-0412.jsonl" in shown[0][2]
    )
    assert any("batch(es) drunk" in n for n in notes)
    assert len(drafts) == len(after)
    (j,) = app.kura.journals(store="maker").files
    assert j.backlog == 0 and not j.shelved  # the shelved stretch was retried first, nothing lost


def test_stop_ends_a_distil_at_the_next_safe_point(make_app, tui_config, model):
    from tests.fakes.model_server import Hang

    with_model(tui_config, model.url)
    answer = threading.Event()
    model.script(
        "kura_candidates", Hang(60, {"candidates": []}, release=answer), {"candidates": []}
    )
    model.script("kura_seed_check", {"confirms": []})
    app = make_app()

    async def script(pilot):
        await pilot.press("D")
        await until(pilot, lambda: model.count("kura_candidates") >= 1)
        await pilot.press("S")
        stopping = screen_text(app)
        answer.set()
        await settle(pilot)
        return stopping, list(app.notes_seen), app.job

    stopping, notes, job = run(app, script)
    assert "stopping at the next safe point" in stopping
    assert any("asked to stop" in n for n in notes) and job is None
    assert model.count("kura_candidates") == 1
    (j,) = app.kura.journals(store="maker").files
    assert j.backlog > 0 and not j.held  # the rest waits for the next run; nothing is held


def test_drain_pours_through_the_scribe(make_app, tui_config, model):
    with_model(tui_config, model.url)
    model.script("kura_judge", {"verdict": "pour", "reason": "true to the evidence"})
    app = make_app()
    st = _store(app)

    async def script(pilot):
        await pilot.press("N")
        await settle(pilot)
        return [d.slug for d in app.main.drafts.drafts]

    drafts = run(app, script)
    assert "descale-kettle-every-90-days" in st.index().slugs() and drafts == []
    assert "5.1 TB used" in st.index().by_slug()["disk-layout"].description


def test_tidy_review_accepts_edits_and_rejects_line_by_line(make_app, tui_config, model):
    with_model(tui_config, model.url)
    app = make_app(by="ren (tui)")
    st = _store(app)
    st.write(
        "router",
        title="Router",
        description="note",
        body="The router is in the hall cupboard; reboot weekly.",
    )
    st.write("nas", title="NAS", description="misc info", body="The NAS holds 4 disks of 8TB.")
    st.write(
        "printer",
        title="Printer",
        description="stuff",
        body="The printer needs the blue cable, never wifi.",
    )

    def rewrite(req):
        task = req.messages[-1]["content"]
        if "Memory router" in task:
            return {"description": "router in the hall cupboard; reboot weekly"}
        if "Memory nas" in task:
            return {"description": "NAS with 6 disks of 8TB"}
        return {"description": "printer on the blue cable"}

    model.script("kura_tidy", rewrite)

    async def script(pilot):
        await pilot.press("T")
        await settle(pilot)
        assert isinstance(app.screen, TidyScreen)
        order = [p.slug for p in app.screen.review.proposals]
        rl = app.screen.query_one("#tidy-list")
        rl.move_to(order.index("nas"))
        await pilot.pause()
        await pilot.press("a")  # the scribe's line invents a number: refused
        await settle(pilot)
        refused = screen_text(app)
        await pilot.press("e")
        app.screen.query_one("#tidy-line", Input).value = "NAS: 4 disks of 8TB"
        await pilot.press("enter")
        await settle(pilot)
        rl.move_to(order.index("router"))
        await pilot.press("a")
        await settle(pilot)
        rl.move_to(order.index("printer"))
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        return refused, isinstance(app.screen, MainScreen)

    refused, back = run(app, script)
    assert "refused by the floors" in refused and "6" in refused
    idx = st.index().by_slug()
    assert idx["nas"].description == "NAS: 4 disks of 8TB"
    assert idx["router"].description == "router in the hall cupboard; reboot weekly"
    assert idx["printer"].description == "stuff"
    assert back
    tidied = {e["slug"]: e for e in _log(app, "tidied")}
    assert set(tidied) == {"nas", "router"} and tidied["nas"]["detail"]["by"] == "ren (tui)"
    assert _log(app, "tidy-rejected")[0]["slug"] == "printer"


def test_tidy_without_a_scribe_lets_a_person_write_the_line(make_app):
    app = make_app()
    st = _store(app)
    st.write(
        "router", title="Router", description="note", body="The router is in the hall cupboard."
    )

    async def script(pilot):
        await pilot.press("T")
        await settle(pilot)
        text = screen_text(app)
        await pilot.press("e")
        app.screen.query_one("#tidy-line", Input).value = "router in the hall cupboard"
        await pilot.press("enter")
        await settle(pilot)
        return text

    text = run(app, script)
    assert "no scribe model is configured" in text and "write the line yourself" in text
    assert st.index().by_slug()["router"].description == "router in the hall cupboard"


def test_a_refused_tidy_line_stays_in_the_box_and_gives_the_keys_back(make_app):
    app = make_app()
    st = _store(app)
    st.write(
        "router", title="Router", description="note", body="The router is in the hall cupboard."
    )
    mine = "router in the hall cupboard, 7 shelves up"  # a number the memory does not hold

    async def script(pilot):
        await pilot.press("T")
        await settle(pilot)
        await pilot.press("e")
        box = app.screen.query_one("#tidy-line", Input)
        box.value = ""
        await pilot.press(*mine, "enter")
        await settle(pilot)
        await until(pilot, lambda: "refused" in screen_text(app), "the floors' refusal")
        kept, focused = box.value, box.has_focus
        await pilot.press("e")  # a key works again: back into the box, the text as typed
        again = box.has_focus and box.value == mine
        box.value = "router in the hall cupboard"
        await pilot.press("enter")
        await settle(pilot)
        return kept, focused, again

    kept, focused, again = run(app, script)
    assert kept == mine and not focused and again
    assert st.index().by_slug()["router"].description == "router in the hall cupboard"


def test_weave_previews_against_the_current_map_and_writes_only_on_w(make_app):
    app = make_app()
    woven = _store(app).still / "woven.md"

    async def script(pilot):
        await pilot.press("w")
        await settle(pilot)
        assert isinstance(app.screen, WeaveScreen)
        preview = screen_text(app)
        await pilot.press("escape")
        await settle(pilot)
        assert not woven.exists()
        await pilot.press("w")
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        return preview, isinstance(app.screen, MainScreen), screen_text(app)

    preview, back, after = run(app, script)
    assert "now    not woven: the raw index" in preview and "1 line change" in preview
    assert "− the archive lives on the slow disk (sdb); the fast NVMe stays scratch" in preview
    assert back and woven.is_file() and "● woven, fresh" in after
    # the trim says what it left out, and what it left out is what the woven line lacks
    line = next(ln for ln in woven.read_text().splitlines() if ARCHIVE in ln)
    cut = [ln.split("cut    ", 1)[1].strip() for ln in preview.splitlines() if "cut    " in ln]
    assert cut == ["the fast NVMe stays scratch"]
    assert cut[0] not in line and "⚠️ never point backups at /scratch" in line


def test_quitting_while_work_runs_asks_first(make_app, tui_config, model):
    from tests.fakes.model_server import Hang

    with_model(tui_config, model.url)
    answer = threading.Event()
    model.script(
        "kura_candidates", Hang(60, {"candidates": []}, release=answer), {"candidates": []}
    )
    model.script("kura_seed_check", {"confirms": []})
    app = make_app()

    async def script(pilot):
        await pilot.press("D")
        await until(pilot, lambda: model.count("kura_candidates") >= 1)
        job = app.job
        await pilot.press("q")
        asked = isinstance(app.screen, ConfirmScreen) and "Quit while distil runs?" in screen_text(
            app
        )
        await pilot.press("n")
        still = app.is_running and job is not None and not job.stop.is_set()
        answer.set()
        await settle(pilot)
        return asked, still

    asked, still = run(app, script)
    assert asked and still


def test_the_palette_names_the_missing_model_on_the_action(make_app):
    app = make_app()

    async def script(pilot):
        await pilot.press("ctrl+p", *"Distil now")
        await palette_offers(pilot, "Distil now")
        return screen_text(app)

    text = run(app, script)
    assert "Distil now" in text and "none is configured" in text


@pytest.mark.parametrize("key,label", [("6", "Seeds"), ("7", "Tender"), ("8", "Journals")])
def test_the_new_panes_are_reached_by_number(make_app, key, label):
    app = make_app()

    async def script(pilot):
        await pilot.press(key)
        return app.main.active_tab

    assert run(app, script) == f"tab-{label.lower()}"


# --------------------------------------------------------------------------- doctor's fixes


def test_doctor_pane_fixes_dead_links_left_by_a_retire(make_app):
    app = make_app(by="ren (tui)")
    st = _store(app)
    linkers = [m.slug for m in st.scan().memories if ARCHIVE in m.links]
    app.kura.retire(ARCHIVE, "moved", store="maker")  # links kept: they point at nothing

    async def script(pilot):
        await pilot.press("5")
        await until(pilot, lambda: app.main.doctor.report is not None)
        before = screen_text(app)
        app.main.doctor.focus()
        await pilot.press("f")
        assert isinstance(app.screen, LinksScreen)
        await pilot.press("u")
        await until(pilot, lambda: app.main.doctor.report.ok, "doctor healthy again")
        return before, screen_text(app)

    before, after = run(app, script)
    assert "broken" in before and "kura relink" in before and "f (here)" in before
    assert "healthy" in after
    for slug in linkers:
        assert ARCHIVE not in st.read(slug).links


def test_doctor_pane_adopts_memory_files_without_a_line(make_app):
    app = make_app()
    st = _store(app)
    (st.root / "copied-in.md").write_text(
        "---\nname: copied-in\ndescription: a memory copied from another store\n---\nBody.\n"
    )

    async def script(pilot):
        await pilot.press("5")
        await until(pilot, lambda: app.main.doctor.report is not None)
        app.main.doctor.focus()
        await pilot.press("f")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await until(pilot, lambda: app.main.doctor.report.ok, "doctor healthy again")
        return screen_text(app)

    after = run(app, script)
    assert "healthy" in after
    assert "copied-in" in st.index().slugs()
    assert any("adopted 1" in n for n in app.notes_seen)


def test_doctor_d_says_what_it_did_when_no_model_is_configured(make_app):
    app = make_app()
    assert not any(m.configured for m in app.kura.doctor(store="maker").models.values())

    async def script(pilot):
        await pilot.press("d")
        await until(pilot, lambda: any("doctor checked" in n for n in app.notes_seen), "the note")
        return [n for n in app.notes_seen if "doctor checked" in n]

    (note,) = run(app, script)
    assert "no model is configured" in note and "asked every" not in note
