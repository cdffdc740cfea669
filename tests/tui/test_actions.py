"""Pilot tests: every action the person can take, driven by keys, checked on disk and on screen."""

from __future__ import annotations

from textual.widgets import Input, OptionList, Static, TextArea

from kura_tui.screens.confirm import ConfirmScreen, TossScreen
from kura_tui.screens.fix import FixScreen
from kura_tui.screens.help import HelpScreen
from kura_tui.screens.main import MainScreen
from kura_tui.screens.memory import MemoryScreen
from tests.tui.conftest import palette_offers, run, screen_text, settle, until

KETTLE = "descale-kettle-every-90-days"


def _store(app, name="maker"):
    return app.kura.registry.store(name)


def test_pour_moves_the_draft_into_the_store_and_the_index(make_app):
    app = make_app()

    async def script(pilot):
        await pilot.press("2")
        assert app.main.drafts.selected.slug == KETTLE
        await pilot.press("p")
        await settle(pilot)
        return [d.slug for d in app.main.drafts.drafts], list(app.main.map.slugs)

    drafts, map_slugs = run(app, script)
    st = _store(app)
    assert KETTLE not in drafts
    assert not (st.still / "drafts" / f"{KETTLE}.md").exists()
    assert st.read(KETTLE).description.startswith("descale the workshop kettle every 90 days")
    assert KETTLE in st.index().slugs()
    assert KETTLE in map_slugs  # the map pane reloaded with the new memory
    log = app.kura.registry.workshop("maker").gate_log(kinds=("poured",))
    assert log[0]["slug"] == KETTLE and "tui" in log[0]["reason"]


def test_toss_asks_why_confirms_and_records_the_reason_in_the_gate_log(make_app):
    app = make_app()

    async def script(pilot):
        await pilot.press("2", "t")
        assert isinstance(app.screen, TossScreen)
        await pilot.press("enter")  # no reason: refused, still asking
        assert isinstance(app.screen, TossScreen)
        assert "say why" in str(app.screen.query_one("#reason-error", Static).render())
        await pilot.press(*"covered by kettle-care", "enter")
        assert isinstance(app.screen, ConfirmScreen)
        assert (_store(app).still / "drafts" / f"{KETTLE}.md").exists()  # nothing yet
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        await pilot.press("3")
        await settle(pilot)
        return screen_text(app)

    text = run(app, script)
    assert not (_store(app).still / "drafts" / f"{KETTLE}.md").exists()
    tossed = app.kura.registry.workshop("maker").gate_log(kinds=("tossed",))
    assert tossed[0]["slug"] == KETTLE
    assert tossed[0]["reason"] == "covered by kettle-care"
    assert "Descale the kettle every 90 days" in tossed[0]["detail"]["draft"]
    assert "covered by kettle-care" in text  # the gate log pane shows it


def test_toss_can_be_called_off_at_the_confirmation(make_app):
    app = make_app()

    async def script(pilot):
        await pilot.press("2", "t", *"duplicate", "enter", "n")
        await settle(pilot)
        return isinstance(app.screen, MainScreen)

    assert run(app, script)
    assert (_store(app).still / "drafts" / f"{KETTLE}.md").exists()
    tossed = app.kura.registry.workshop("maker").gate_log(kinds=("tossed",))
    assert KETTLE not in [e["slug"] for e in tossed]


def test_a_fix_with_an_invented_number_is_refused_with_the_reason_on_screen(make_app):
    app = make_app()
    path = _store(app).still / "drafts" / f"{KETTLE}.md"
    before = path.read_text(encoding="utf-8")

    async def script(pilot):
        await pilot.press("2", "e")
        assert isinstance(app.screen, FixScreen)
        assert app.screen.query_one(TextArea).has_focus
        await pilot.press(*" It took 45 minutes.")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, FixScreen)  # still editing: nothing was saved
        shown = screen_text(app)
        # the refusal stays on screen until the edit changes; escape then asks to discard
        await pilot.press("escape")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        return shown, isinstance(app.screen, MainScreen)

    shown, back = run(app, script)
    assert "refused by the floor" in shown
    assert "number 45min is not in the evidence (body)" in shown, shown[shown.find("refused") :][
        :600
    ]
    assert back
    assert path.read_text(encoding="utf-8") == before
    refused = app.kura.registry.workshop("maker").gate_log(kinds=("refused",))
    assert "45" in refused[0]["reason"]


def test_a_fix_crediting_the_human_without_a_user_quote_is_refused(make_app):
    app = make_app()

    async def script(pilot):
        await pilot.press("2", "down", "e")
        assert app.screen.draft.slug == "glaze-cracks-cooling"
        app.screen.query_one("#fix-body", TextArea).insert(" The user decided to slow the cooling.")
        await pilot.press("ctrl+s")
        await settle(pilot)
        return screen_text(app)

    shown = run(app, script)
    assert "refused by the floor" in shown
    assert "attribution" in shown and "needs a surviving USER quote" in shown


def test_a_clean_fix_is_saved_and_the_floor_passes_it(make_app):
    app = make_app()

    async def script(pilot):
        await pilot.press("2", "e")
        title = app.screen.query_one("#fix-title", Input)
        title.value = "Descale the workshop kettle every 90 days"
        await pilot.press("ctrl+s")
        await settle(pilot)
        return isinstance(app.screen, MainScreen), app.main.drafts.selected.title

    back, title = run(app, script)
    assert back and title == "Descale the workshop kettle every 90 days"
    assert (
        "Descale the workshop kettle" in (_store(app).still / "drafts" / f"{KETTLE}.md").read_text()
    )


def test_quitting_with_an_unsaved_edit_asks_first(make_app):
    app = make_app()

    async def script(pilot):
        await pilot.press("2", "e", "x")
        await pilot.press("ctrl+q")
        asked = isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        still = isinstance(app.screen, FixScreen) and app.is_running
        await pilot.press("ctrl+q", "y")
        await pilot.pause()
        return asked, still

    asked, still = run(app, script)
    assert asked and still
    assert app.return_code == 0


def test_switching_store_switches_every_pane(make_app):
    app = make_app()

    async def script(pilot):
        before = (list(app.main.map.slugs), [d.slug for d in app.main.drafts.drafts])
        await pilot.press("right_square_bracket")
        await settle(pilot)
        m = app.main
        after = {
            "current": app.current_store,
            "map": list(m.map.slugs),
            "drafts": [d.slug for d in m.drafts.drafts],
            "gatelog": [e.title for e in m.gatelog.shown],
            "doctor": str(m.doctor.query_one("#doctor-report", Static).render()),
            "recall": str(m.recall.query_one("#recall-status", Static).render()),
            "top": str(m.query_one("#topbar", Static).render()),
            "highlight": m.stores.query_one(OptionList).highlighted_option.id,
        }
        await pilot.press("left_square_bracket")
        await settle(pilot)
        return before, after, list(app.main.map.slugs)

    before, after, back = run(app, script)
    assert "archive-on-slow-disk" in before[0] and "glaze-cracks-cooling" in before[1]
    assert after["current"] == "home" and after["highlight"] == "home"
    assert set(after["map"]) == {"rice-cooker-water-line", "pantry-rotation"}
    assert after["drafts"] == ["pantry-list-whiteboard"]
    assert after["gatelog"] == ["Buy more rice"]
    assert "home" in after["doctor"] and "maker" not in after["doctor"]
    assert "home" in after["recall"]
    assert "home" in after["top"]
    assert back == before[0]


def test_picking_a_store_in_the_stores_pane_switches(make_app):
    app = make_app()

    async def script(pilot):
        await pilot.press("s", "down")
        await settle(pilot)
        return app.current_store, [d.slug for d in app.main.drafts.drafts]

    assert run(app, script) == ("home", ["pantry-list-whiteboard"])


def test_recall_console_shows_which_tier_answered_without_a_model(make_app):
    app = make_app()

    async def script(pilot):
        await pilot.press("4")
        assert app.main.recall.query_one(Input).has_focus
        await pilot.press(*"kiln firmware", "enter")
        await settle(pilot)
        direct = screen_text(app), list(app.main.recall.walked)
        await pilot.press(*(["backspace"] * 13), *"backups and the kiln", "enter")
        await settle(pilot)
        return direct, (screen_text(app), list(app.main.recall.walked))

    (text, walked), (fallen, fell_to) = run(app, script)
    # a direct question: the fastpath answers, and the pane says no model was asked
    assert "tier fastpath answered, no model asked" in text and "how fastpath" in text
    assert "⚠ degraded" not in text
    assert walked and walked[0] == "kiln-firmware-3-2"
    # a question that names no memory: the fastpath was not sure, the word tier answered
    assert "fastpath was not sure; words answered" in fallen
    assert "⚠ degraded" in fallen and "how words" in fallen
    assert {"archive-on-slow-disk", "kiln-firmware-3-2"} <= set(fell_to)


def test_memory_viewer_opens_from_the_map_and_follows_links(make_app):
    app = make_app()

    async def script(pilot):
        await pilot.press("1", "enter")
        await settle(pilot)
        assert isinstance(app.screen, MemoryScreen)
        first = screen_text(app)
        await pilot.press("enter")  # follow the first link
        await settle(pilot)
        second = app.screen.slug
        await pilot.press("b")
        await settle(pilot)
        back = app.screen.slug
        await pilot.press("escape")
        return first, second, back, isinstance(app.screen, MainScreen)

    first, second, back, closed = run(app, script)
    assert "Prefers short answers" in first and "Lead with the answer" in first
    assert second == "archive-on-slow-disk" and back == "prefers-short-answers" and closed


def test_gate_log_filter_cycles_kinds(make_app):
    app = make_app()

    async def script(pilot):
        await pilot.press("3")
        kinds = []
        for _ in range(3):
            await pilot.press("f")
            kinds.append((app.main.gatelog.filter, [e.kind for e in app.main.gatelog.shown]))
        return kinds

    kinds = run(app, script)
    assert kinds[0] == ("dropped", ["dropped"])
    assert kinds[1] == ("tossed", ["tossed"])
    assert kinds[2] == ("refused", ["refused"])


def test_a_gate_log_entrys_quotes_read_as_quotes_not_as_records(make_app):
    """The detail of an entry that kept its quotes shows each as the evidence view does:
    class, words, status and where -- never the stored record itself."""
    app = make_app()

    async def script(pilot):
        await pilot.press("3")
        await settle(pilot)
        return screen_text(app)

    shown = run(app, script)
    assert "[USER] “yes, sharpen the plane irons before every glue-up from now on”" in shown
    assert "” · verified ·" in shown and "session-0412.jsonl · bytes 2226–2442" in shown
    assert "{'text'" not in shown and "'claimed'" not in shown


ALL_CLASSES = (
    "kura_tui.app:KuraApp",
    "kura_tui.screens.main:MainScreen",
    "kura_tui.widgets.map:MapPane",
    "kura_tui.widgets.drafts:DraftsPane",
    "kura_tui.widgets.gatelog:GateLogPane",
    "kura_tui.widgets.seeds:SeedsPane",
    "kura_tui.widgets.journals:JournalsPane",
    "kura_tui.widgets.recall:RecallPane",
    "kura_tui.widgets.find:FindInput",
    "kura_tui.widgets.rowlist:RowList",
    "kura_tui.screens.fix:FixScreen",
    "kura_tui.screens.confirm:ReasonScreen",
    "kura_tui.screens.confirm:ConfirmScreen",
    "kura_tui.screens.memory:MemoryScreen",
    "kura_tui.screens.edit:MemoryEditScreen",
    "kura_tui.screens.evidence:EvidenceScreen",
    "kura_tui.screens.tidy:TidyScreen",
    "kura_tui.screens.weave:WeaveScreen",
    "kura_tui.screens.help:HelpScreen",
    "kura_tui.screens.profile:ProfileScreen",
)


def _classes():
    import importlib

    out = []
    for spec in ALL_CLASSES:
        mod, name = spec.split(":")
        out.append(getattr(importlib.import_module(mod), name))
    return out


def test_help_lists_every_binding_and_closes(make_app):
    app = make_app()

    async def script(pilot):
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one("#help-text", Static).render())
        await pilot.press("escape")
        return text, isinstance(app.screen, MainScreen)

    text, closed = run(app, script)
    assert closed
    for cls in _classes():
        for b in cls.BINDINGS:
            assert (b.tooltip or b.description) in text, (cls.__name__, b)


def test_every_binding_names_an_action_that_exists():
    for cls in _classes():
        for b in cls.BINDINGS:
            name = b.action.split("(")[0]
            assert callable(getattr(cls, f"action_{name}", None)), (cls.__name__, b.action)
            assert b.id, (cls.__name__, b.key)


def test_every_action_is_in_the_command_palette_with_its_key(make_app):
    from kura_tui.commands import KuraCommands

    app = make_app()

    async def script(pilot):
        return [(text, help) for text, help, _ in KuraCommands(app.screen)._commands()]

    entries = run(app, script)
    helps = {text: help for text, help in entries}
    wanted = {
        "Distil now": "D",
        "Drain the drafts": "N",
        "Tidy the index…": "T",
        "Weave the map…": "w",
        "Stop the running work": "S",
        "Doctor (probe models)": "d",
        "Refresh": "r",
        "Help: every key": "?",
        "Find…": "/",
        "Open the selected memory": "enter in the map",
        "Edit the selected memory": "e in the map",
        "Edit the selected memory in $EDITOR": "E in the map",
        "Retire the selected memory…": "x in the map",
        "Pour the selected draft": "p",
        "Fix the selected draft": "e in drafts",
        "Toss the selected draft…": "t",
        "Open the selected draft's journal": "o in drafts",
        "Dismiss the selected seed…": "x in seeds",
        "Open the selected seed's journal": "o in seeds",
        "Show seeds": "6",
        "Show the tender": "7",
        "Show the journals": "8",
        "Show the learned profile": "P",
        "Draft the learned profile": "n in the profile",
        "Apply the profile draft…": "a in the profile",
    }
    for text, key in wanted.items():
        assert helps[text].endswith(f"· key {key}"), (text, helps.get(text))


def test_command_palette_switches_store(make_app):
    app = make_app()

    async def script(pilot):
        await pilot.press("ctrl+p")
        await pilot.press(*"Store: home")
        await palette_offers(pilot, "Store: home")
        await pilot.press("enter")
        await settle(pilot)
        return app.current_store

    assert run(app, script) == "home"


def test_a_core_error_is_a_notification_not_a_crash(make_app):
    app = make_app()
    st = _store(app)

    async def script(pilot):
        # another hand writes a memory with the draft's slug after it was drafted
        st.write(KETTLE, title="Kettle", description="someone else's kettle note", body="Kettle.")
        await pilot.press("2", "p")
        await settle(pilot)
        return list(app.notes_seen), app.is_running

    notes, running = run(app, script)
    assert running
    assert any("already exists" in n for n in notes)
    assert (st.still / "drafts" / f"{KETTLE}.md").exists()


def test_a_burst_of_arrow_keys_scrolls_the_help_a_line_each(make_app):
    app = make_app()

    async def script(pilot):
        await pilot.press("question_mark")
        from textual import events

        scroll = app.screen.query_one("#help-scroll")
        for _ in range(6):  # all at once, as a held key or a fast typist sends them
            app.post_message(events.Key("down", None))
        await until(
            pilot, lambda: scroll.scroll_y >= min(6, scroll.max_scroll_y), "the help to scroll"
        )
        await settle(pilot)  # and no further: a burst must not overshoot
        return scroll.scroll_y, scroll.max_scroll_y

    y, most = run(app, script)
    assert y == min(6, most) and most > 0
