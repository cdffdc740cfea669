"""The learned profile in the app: the draft beside profile.md, asked of the brain in the
background, and applied only by a key press that a person confirms. Checked on disk and on
screen."""

from __future__ import annotations

import threading
from pathlib import Path

from kura_tui.screens.confirm import ConfirmScreen
from kura_tui.screens.help import HelpScreen
from kura_tui.screens.main import MainScreen
from kura_tui.screens.profile import ProfileScreen, marked, words
from tests.tui.conftest import run, screen_text, settle
from tests.tui.test_curation import until, with_model
from tests.tui.workspace import PROFILE_DRAFT, PROFILE_NOW, with_profile


def _files(app, name: str = "maker") -> dict[str, str | None]:
    st = app.kura.registry.store(name)

    def read(p: Path) -> str | None:
        return p.read_text(encoding="utf-8") if p.is_file() else None

    return {
        "profile": read(st.root / "profile.md"),
        "draft": read(st.still / "profile-draft.md"),
        "previous": read(st.still / "profile-previous.md"),
    }


def _sides(app) -> str:
    """The text of both sides of the profile view, unwrapped (the screen wraps it)."""
    from textual.widgets import Static

    return "\n".join(
        str(app.screen.query_one(f"#profile-{k}", Static).content)
        for k in ("current-meta", "current-text", "draft-meta", "draft-text")
    )


def _notes(app) -> list[str]:
    return list(app.notes_seen)


def _frozen(cfg: Path) -> None:
    cfg.write_text(
        cfg.read_text().replace("[stores.maker]\n", '[stores.maker]\nwrite_policy = "frozen"\n', 1)
    )


def test_the_profile_view_shows_the_current_profile_beside_the_waiting_draft(
    make_app, tui_config, model
):
    model.script("kura_profile", {"profile": PROFILE_DRAFT})
    with_profile(tui_config, model.url)
    app = make_app()

    async def script(pilot):
        await pilot.press("P")
        await settle(pilot)
        assert isinstance(app.screen, ProfileScreen)
        shown = screen_text(app), _sides(app)
        await pilot.press("escape")
        return shown, isinstance(app.screen, MainScreen)

    (shown, sides), back = run(app, script)
    assert back
    assert "Learned profile maker — draft waiting" in shown
    assert "current · profile.md" in shown and "draft · waiting" in shown
    assert PROFILE_NOW in sides and PROFILE_DRAFT in sides
    assert "from 5 memories · drafted 20m ago" in shown and "written 72.0h ago" in shown
    assert (
        "struck: 4 words the draft does not keep" in shown
        and "green: 34 words new in the draft" in shown
    )


def test_a_draft_is_applied_only_by_the_key_and_its_confirmation(make_app, tui_config, model):
    model.script("kura_profile", {"profile": PROFILE_DRAFT})
    with_profile(tui_config, model.url)
    app = make_app()
    before = _files(app)
    assert before["profile"] == PROFILE_NOW + "\n" and PROFILE_DRAFT in before["draft"]

    async def script(pilot):
        await pilot.press("P")
        await settle(pilot)
        opened = _files(app)
        await pilot.press("a")
        await settle(pilot)
        asked = isinstance(app.screen, ConfirmScreen)
        question = f"{app.screen.title_text} {app.screen.text}"
        await pilot.press("n")  # no: nothing changes
        await settle(pilot)
        declined = _files(app)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        return opened, asked, question, declined, screen_text(app) + _sides(app), _notes(app)

    opened, asked, question, declined, after, notes = run(app, script)
    assert opened == before and declined == before  # opening it and saying no change nothing
    assert asked and "Apply the draft as the profile of maker?" in question
    assert "kept in _still/profile-previous.md" in question
    files = _files(app)
    assert files["profile"] == PROFILE_DRAFT + "\n"
    assert files["draft"] is None and files["previous"] == PROFILE_NOW + "\n"
    assert any("applied: every model role reads it from its next call" in n for n in notes)
    assert (
        "Learned profile maker — applied" in after
        and "This room holds how Ren runs the workshop" in after
    )
    assert "no draft waiting" in after


def test_a_frozen_store_refuses_the_apply_and_keeps_both_texts(make_app, tui_config, model):
    model.script("kura_profile", {"profile": PROFILE_DRAFT})
    with_profile(tui_config, model.url)
    _frozen(tui_config)
    app = make_app()
    before = _files(app)

    async def script(pilot):
        await pilot.press("P")
        await settle(pilot)
        shown = screen_text(app)
        await pilot.press("a")
        await settle(pilot)
        asked = isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")  # even a stray yes changes nothing
        await settle(pilot)
        return shown, asked, _notes(app)

    shown, asked, notes = run(app, script)
    assert "the store maker is frozen: its profile is not changed here" in shown
    assert not asked
    assert any("store 'maker' is frozen: its profile is not changed" in n for n in notes)
    assert _files(app) == before


def test_the_brain_drafts_in_a_worker_and_the_draft_waits_beside_the_profile(
    make_app, tui_config, model
):
    from tests.fakes.model_server import Hang

    with_model(tui_config, model.url)
    answer = threading.Event()
    model.script("kura_profile", Hang(60, {"profile": PROFILE_DRAFT}, release=answer))
    app = make_app()

    async def script(pilot):
        await pilot.press("P")
        await settle(pilot)
        empty = screen_text(app)
        await pilot.press("n")
        await until(pilot, lambda: model.count("kura_profile") == 1)
        busy = app.screen.has_class("-busy"), screen_text(app), app.job.kind
        await pilot.press("j", "down")  # the keys stay live meanwhile
        answer.set()
        await settle(pilot)
        return empty, busy, screen_text(app) + _sides(app), _notes(app)

    empty, (is_busy, busy_text, kind), done, notes = run(app, script)
    assert "none yet: every role reads the charter alone" in empty
    assert "no draft waiting: n asks the brain for one" in empty
    assert is_busy and kind == "profile" and "asking the brain for a profile" in busy_text
    files = _files(app)
    assert files["profile"] is None  # drafting never touches the profile
    assert PROFILE_DRAFT in files["draft"]
    assert "draft · waiting" in done and "This room holds how Ren runs the workshop" in done
    assert any("a draft from 5 memories waits beside the current profile" in n for n in notes)
    assert app.job is None and model.count("kura_profile") == 1
    asked = model.requests[-1].body["messages"][-1]["content"]
    assert (
        "Kiln controller firmware 3.2" in asked and "Pantry rotation" not in asked
    )  # this store's memories only


def test_a_new_draft_replaces_a_waiting_one_only_when_confirmed(make_app, tui_config, model):
    model.script("kura_profile", {"profile": PROFILE_DRAFT})
    with_profile(tui_config, model.url)
    with_model(tui_config, model.url)
    second = "Ren keeps the workshop's machines running and wants short answers."
    model.script("kura_profile", {"profile": second})
    app = make_app()
    before = _files(app)
    drafted = model.count("kura_profile")

    async def script(pilot):
        await pilot.press("P")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        asked = isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await settle(pilot)
        kept = _files(app), model.count("kura_profile") - drafted
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        return asked, kept

    asked, (kept, calls) = run(app, script)
    assert asked and kept == before and calls == 0
    files = _files(app)
    assert second in files["draft"] and files["profile"] == before["profile"]


def test_without_a_brain_the_draft_key_says_so_and_asks_nothing(make_app):
    app = make_app()

    async def script(pilot):
        await pilot.press("P")
        await settle(pilot)
        shown = _sides(app)
        await pilot.press("n")
        await settle(pilot)
        return shown, _notes(app), app.job

    shown, notes, job = run(app, script)
    assert (
        "n cannot ask for one: drafting a profile needs a brain model, and none is configured"
        in shown
    )
    assert any(
        "drafting a profile needs a brain model, and none is configured: add [models.thinker]" in n
        for n in notes
    )
    assert job is None and _files(app) == {"profile": None, "draft": None, "previous": None}


def test_a_profile_the_brain_gets_wrong_is_refused_and_nothing_is_kept(make_app, tui_config, model):
    with_model(tui_config, model.url)
    model.script("kura_profile", {"profile": "- likes kilns\n- likes lasers"})
    app = make_app()

    async def script(pilot):
        await pilot.press("P")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        return _sides(app), _notes(app)

    shown, notes = run(app, script)
    assert "✗ the brain's profile was refused: the profile is written in sentences" in shown
    assert any("the brain's profile was refused" in n for n in notes)
    assert _files(app) == {"profile": None, "draft": None, "previous": None}
    (row,) = app.kura.registry.workshop("maker").gate_log(kinds=("profile-refused",))
    assert "likes kilns" in str(row)


def test_the_profile_view_follows_the_store_and_is_in_the_palette_and_help(
    make_app, tui_config, model
):
    from kura_tui.commands import KuraCommands

    model.script("kura_profile", {"profile": PROFILE_DRAFT})
    with_profile(tui_config, model.url, draft=False)
    app = make_app()

    async def script(pilot):
        entries = {text: help for text, help, _ in KuraCommands(app.screen)._commands()}
        await pilot.press("P")
        await settle(pilot)
        maker = screen_text(app) + _sides(app)
        app.switch_store("home")
        await settle(pilot)
        home = screen_text(app) + _sides(app)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        help_text = str(app.screen.query_one("#help-text").render())
        return entries, maker, home, help_text

    entries, maker, home, help_text = run(app, script)
    assert entries["Show the learned profile"].endswith("· key P")
    assert "Learned profile maker — applied" in maker and "Ren builds things" in maker
    assert "Learned profile home — none" in home and "Ren builds things" not in home
    assert "Learned profile" in help_text and "Ask the brain for a new draft" in help_text


def test_a_draft_written_by_another_process_appears_in_the_open_view(make_app, tui_config, model):
    import asyncio

    model.script("kura_profile", {"profile": PROFILE_DRAFT})
    app = make_app(watch=True)

    async def script(pilot):
        await asyncio.get_running_loop().run_in_executor(None, app.watching.wait, 10)
        await pilot.press("P")
        await settle(pilot)
        await asyncio.get_running_loop().run_in_executor(
            None, lambda: with_profile(tui_config, model.url)
        )
        await until(pilot, lambda: "draft · waiting" in screen_text(app))
        return _sides(app)

    shown = run(app, script)
    assert "This room holds how Ren runs the workshop" in shown and "Ren builds things" in shown


def test_words_are_marked_where_the_two_texts_differ():
    text = "Ren decides: offer options, not verdicts.\n\nEvenings belong to the family."
    content, count = marked(
        text, "Ren thinks and decides: offer options, not verdicts. Evenings are free.", "bold"
    )
    assert content.plain == text  # spacing and paragraphs as written
    assert [content.plain[s.start : s.end] for s in content.spans] == [
        "belong",
        " ",
        "to",
        " ",
        "the",
        " ",
        "family.",
    ]
    assert count == 4
    same, none = marked(text, text, "bold")
    assert none == 0 and not same.spans and same.plain == text
    assert marked(text, None, "bold")[1] == 0
    # languages written without spaces are compared character by character
    assert words("蓮は3.2を使う。") == ["蓮", "は", "3.2", "を", "使", "う", "。"]
    assert marked("蓮は白米を炊く。", "蓮は玄米を炊く。", "bold")[1] == 1


def test_the_palette_applies_through_the_same_confirmation(make_app, tui_config, model):
    model.script("kura_profile", {"profile": PROFILE_DRAFT})
    with_profile(tui_config, model.url)
    app = make_app()
    before = _files(app)

    async def script(pilot):
        app.profile_command("apply")
        await settle(pilot)
        asked = isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")
        await settle(pilot)
        return asked, isinstance(app.screen, ProfileScreen)

    asked, back = run(app, script)
    assert asked and back and _files(app) == before


def test_stop_ends_the_wait_for_the_brain_and_its_late_answer_only_lands_as_a_draft(
    make_app, tui_config, model
):
    from tests.fakes.model_server import Hang

    with_model(tui_config, model.url)
    answer = threading.Event()
    model.script("kura_profile", Hang(60, {"profile": PROFILE_DRAFT}, release=answer))
    app = make_app()

    async def script(pilot):
        await pilot.press("P")
        await settle(pilot)
        await pilot.press("n")
        await until(pilot, lambda: model.count("kura_profile") == 1)
        await pilot.press("S")
        await pilot.pause()
        stopped = app.job, app.screen.has_class("-busy"), _notes(app)
        answer.set()  # the brain's late answer
        await until(pilot, lambda: _files(app)["draft"] is not None)
        await settle(pilot)
        return stopped

    job, busy, notes = run(app, script)
    assert job is None and not busy
    assert any("no longer waiting for the brain" in n for n in notes)
    files = _files(app)
    assert PROFILE_DRAFT in files["draft"] and files["profile"] is None
