"""A weak local model meets kura: one bad candidate drops itself, one failed call does not
end a run, and nothing its judge did not approve -- nor any of kura's own words -- is
stored or woven."""

from __future__ import annotations

from hypothesis import given, strategies as st

from kura_core.distill import drafts as dr, pipeline
from kura_core.floors import Violation
from kura_core.floors.kura_messages import (
    COMPOSE_RETRY,
    RULE,
    WEAVE_RETRY,
    kura_message_violations,
    kura_words_in,
)
from kura_core.weave import trigger_floor
from tests.core.test_distill import config, echo_scribe, honest_brain, registry, write_journal
from tests.fakes.model_server import Garbage, Status, closed_port_url

ROUTER = "the router lives in the hall cupboard"
PRINTER = "the printer lives in the study now"
MIGRATION = "⚠️ never run the migration on a Friday"


def _drafts(tmp_path, model, lines):
    write_journal(tmp_path / "journals" / "d.jsonl", [("user", line) for line in lines])
    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", echo_scribe)
    reg = registry(config(tmp_path, model.url))
    pipeline.run(reg, "main")
    return reg, {d.body: d.slug for d in dr.list_drafts(reg.store("main"))}


# -- item by item --------------------------------------------------------------------------


def test_one_malformed_candidate_drops_itself_and_the_rest_is_judged(tmp_path, model):
    write_journal(tmp_path / "journals" / "c.jsonl", [("user", ROUTER), ("user", PRINTER)])

    def weak_brain(req):
        good = honest_brain(req)["candidates"][:2]
        bad_keep = {**good[0], "title": "keeps a boolean", "keep": True}
        bad_fade = {**good[0], "title": "fades a boolean", "may_fade": True}
        bad_tags = {**good[1], "title": "spaced tags", "tags": ["two words"]}
        return {"candidates": [bad_keep, good[0], bad_fade, bad_tags, good[1], "not a candidate"]}

    model.script("kura_candidates", weak_brain)
    model.script("kura_compose", echo_scribe)
    reg = registry(config(tmp_path, model.url))
    rep = pipeline.run(reg, "main")
    assert rep.stopped == "" and rep.errors == ()
    assert sorted(d.body for d in dr.list_drafts(reg.store("main"))) == [PRINTER, ROUTER]
    dropped = {e["title"]: e["reason"] for e in reg.workshop("main").gate_log(kinds=("dropped",))}
    assert "keep must be a string" in dropped["keeps a boolean"]
    assert "may_fade must be a string" in dropped["fades a boolean"]
    assert "two words" in dropped["spaced tags"]


def test_distill_goes_on_past_one_unusable_reply(tmp_path, model):
    for name, line in (("a.jsonl", ROUTER), ("b.jsonl", PRINTER)):
        write_journal(tmp_path / "journals" / name, [("user", line)])
    model.script("kura_candidates", Garbage(), honest_brain)
    model.script("kura_compose", echo_scribe)
    reg = registry(config(tmp_path, model.url))
    rep = pipeline.run(reg, "main")
    assert rep.shelved == 1 and rep.stopped == ""
    assert len(rep.drafts) == 1 and "shelved; retried next run" in rep.errors[0]
    again = pipeline.run(reg, "main")  # the shelved stretch is read next run
    assert len(again.drafts) == 1 and again.shelved == 0


def test_distill_stops_when_the_model_is_unreachable(tmp_path, model):
    for name, line in (("a.jsonl", ROUTER), ("b.jsonl", PRINTER)):
        write_journal(tmp_path / "journals" / name, [("user", line)])
    reg = registry(config(tmp_path, closed_port_url()))
    rep = pipeline.run(reg, "main")
    assert rep.shelved == 1 and rep.stopped.startswith("a model failed (unreachable)")


def test_a_scribe_reply_that_cannot_be_used_drops_its_candidate_only(tmp_path, model):
    write_journal(tmp_path / "journals" / "c.jsonl", [("user", ROUTER), ("user", PRINTER)])
    model.script("kura_candidates", honest_brain)
    model.script("kura_compose", Garbage(), echo_scribe)
    reg = registry(config(tmp_path, model.url))
    rep = pipeline.run(reg, "main")
    assert rep.shelved == 0 and len(rep.drafts) == 1
    assert any("the scribe's reply could not be used" in e for e in rep.errors)


# -- drain keeps its promises -----------------------------------------------------------------


def test_a_fix_without_fixed_text_never_pours(tmp_path, model):
    reg, slugs = _drafts(tmp_path, model, [ROUTER])
    model.script("kura_judge", {"verdict": "fix", "reason": "the text contradicts the quote"})
    rep = pipeline.drain(reg, "main")
    assert rep.poured == () and rep.fixed == () and rep.kept == (slugs[ROUTER],)
    assert reg.store("main").file_slugs() == []
    assert reg.workshop("main").gate_log(kinds=("fixed",)) == []
    (kept,) = reg.workshop("main").gate_log(kinds=("kept",))
    assert "gave no fixed text" in kept["reason"]


def test_a_pour_whose_reason_says_it_contradicts_is_kept(tmp_path, model):
    reg, slugs = _drafts(tmp_path, model, [ROUTER])
    model.script(
        "kura_judge", {"verdict": "pour", "reason": "The draft contradicts its quote; pour"}
    )
    rep = pipeline.drain(reg, "main")
    assert rep.poured == () and rep.kept == (slugs[ROUTER],)
    assert reg.store("main").file_slugs() == []


def test_a_fix_faces_the_floors_marks_and_negations_included(tmp_path, model):
    reg, slugs = _drafts(tmp_path, model, [MIGRATION, ROUTER, PRINTER])
    fixes = {
        slugs[MIGRATION]: {"body": "Never run the migration on a Friday."},  # ⚠️ dropped
        slugs[ROUTER]: {"body": "The router is not in the hall cupboard."},  # negation added
        slugs[PRINTER]: {"body": "The printer lives in the study now, ⚠️ landmines mark (body)."},
    }

    def judge(req):
        for slug, fix in fixes.items():
            if fix and dr.read_draft(reg.store("main"), slug).body in req.last_content:
                return {"verdict": "fix", "reason": "clearer", "fix": fix}
        return {"verdict": "maybe"}

    model.script("kura_judge", judge)
    rep = pipeline.drain(reg, "main")
    assert rep.poured == () and rep.fixed == ()
    assert set(rep.kept) == set(slugs.values())
    why = " | ".join(rep.errors)
    assert "drops the ⚠️ landmine mark (body)" in why
    assert "adds the negation 'not' (body)" in why
    assert "kura's own words" in why
    assert {d.body for d in dr.list_drafts(reg.store("main"))} == {MIGRATION, ROUTER, PRINTER}


def test_a_good_fix_is_poured(tmp_path, model):
    reg, slugs = _drafts(tmp_path, model, [MIGRATION])
    model.script(
        "kura_judge",
        {
            "verdict": "fix",
            "reason": "say it plainly",
            "fix": {"body": "⚠️ Never run the migration on a Friday."},
        },
    )
    rep = pipeline.drain(reg, "main")
    assert rep.fixed == rep.poured == (slugs[MIGRATION],)
    assert (
        reg.store("main").read(slugs[MIGRATION]).body.strip()
        == "⚠️ Never run the migration on a Friday."
    )


def test_drain_goes_on_past_one_failed_call_and_names_what_is_left(tmp_path, model):
    reg, slugs = _drafts(tmp_path, model, [ROUTER, PRINTER, MIGRATION])
    model.script("kura_judge", Garbage(), {"verdict": "pour", "reason": "true"})
    rep = pipeline.drain(reg, "main")
    assert len(rep.poured) == 2 and len(rep.errors) == 1 and rep.stopped == ""
    assert len(dr.list_drafts(reg.store("main"))) == 1

    model.script("kura_judge", Status(200, "not json"))
    rep = pipeline.drain(reg, "main")  # one draft: one failure is not a stop
    assert rep.stopped == "" and rep.left == ()


def test_drain_stops_when_the_scribe_is_unreachable_and_lists_the_rest(tmp_path, model):
    reg, slugs = _drafts(tmp_path, model, [ROUTER, PRINTER, MIGRATION])
    url = model.url
    model.stop()
    try:
        rep = pipeline.drain(reg, "main")
    finally:
        model.start()
    assert rep.stopped.startswith("the scribe failed (unreachable)")
    assert len(rep.left) == 2 and len(rep.errors) == 1
    assert set(rep.left) < set(slugs.values()) and url


# -- the floor on kura's own words ------------------------------------------------------------


def test_a_trigger_carrying_the_retry_explanation_is_refused():
    description = "⚠️ Deploy freeze on Fridays"
    problems = trigger_floor("⚠️ Deploy freeze, landmines mark (trigger).", description)
    assert any(v.rule == RULE for v in problems)
    assert not trigger_floor("⚠️ Deploy freeze on Fridays", description)


def test_every_retry_prompt_and_floor_message_is_found():
    retry = WEAVE_RETRY.format(reason="drops the ⚠️ landmine mark (trigger)")
    assert kura_words_in(retry)
    assert kura_words_in(COMPOSE_RETRY.format(reason="number 30 is not in the source (body)"))
    for v in (
        Violation("number", "body", "30", "not_in_source"),
        Violation("negation", "trigger", "never", "dropped"),
        Violation("mark", "description", "⚠️", "added"),
        Violation("attribution", "body", "the user decided", "no_user_quote"),
    ):
        assert kura_words_in("Deploys wait. " + v.message()), v.message()


def test_words_the_source_has_are_the_sources():
    body = "The gate log says the quote is not in the source (body) of the file."
    assert kura_words_in(body)
    assert kura_words_in(body, source=body) == []
    assert kura_message_violations({"body": body}, source=body) == []


PLAIN = st.lists(
    st.sampled_from(
        [
            "the",
            "router",
            "lives",
            "in",
            "hall",
            "cupboard",
            "deploy",
            "on",
            "friday",
            "never",
            "not",
            "we",
            "use",
            "tabs",
            "cache",
            "size",
            "was",
            "raised",
            "to",
            "2500",
            "entries",
            "after",
            "the",
            "outage",
            "東京",
            "に",
            "引っ越し",
        ]
    ),
    max_size=40,
)


@given(PLAIN)
def test_ordinary_text_carries_no_kura_words(words):
    assert kura_words_in(" ".join(words)) == []


@given(
    PLAIN,
    st.sampled_from(["(trigger)", "(body)", "landmine mark", "write it again within the rules"]),
)
def test_kura_words_are_found_wherever_they_sit(words, fragment):
    half = len(words) // 2
    text = " ".join([*words[:half], fragment, *words[half:]])
    assert kura_words_in(text)


def test_a_brain_that_loops_until_its_bound_still_gives_its_whole_candidates(tmp_path, model):
    from tests.fakes.model_server import CutOff

    write_journal(tmp_path / "journals" / "c.jsonl", [("user", ROUTER), ("user", PRINTER)])

    def looping_brain(req):
        first, second = honest_brain(req)["candidates"][:2]
        import json as _json

        text = _json.dumps({"candidates": [first, second, second, second]})
        return CutOff(text[: text.rindex("}, {") + 30], tokens=2048)

    model.script("kura_candidates", looping_brain)
    model.script("kura_compose", echo_scribe)
    reg = registry(config(tmp_path, model.url))
    rep = pipeline.run(reg, "main")
    assert rep.shelved == 0 and rep.candidates == 2
    assert sorted(d.body for d in dr.list_drafts(reg.store("main"))) == [PRINTER, ROUTER]
    assert any("cut off at 2048 tokens" in e for e in rep.errors)


def test_which_reasons_say_the_draft_contradicts_its_evidence():
    from kura_core.distill.pipeline import says_it_contradicts

    for said in (
        "the text contradicts the quote",
        "Contradiction: the user said Tuesday",
        "misquotes the user",
        "the body does not match the evidence",
        "this is not what the quote says",
        "not supported by the evidence",
    ):
        assert says_it_contradicts(said), said
    for said in (
        "true to the evidence; nothing wrong",
        "no contradiction with the quotes",
        "does not contradict the evidence",
        "it never misquotes",
        "accurate and short",
        "",
    ):
        assert not says_it_contradicts(said), said


def test_a_scribe_that_pastes_the_retry_explanation_never_reaches_the_map(tmp_path, model):
    import datetime as dt

    from kura_core.weave import weave
    from tests.core.test_weave import registry as weave_registry, write_memory

    root = tmp_path / "main"
    reg = weave_registry(root, model_url=model.url)
    desc = (
        "⚠️ the garden hose bib behind the shed freezes solid in winter and splits its "
        "fitting, so it has to be drained and closed before the first frost comes"
    )
    old = dt.date.today() - dt.timedelta(days=400)
    write_memory(root, "hose-bib", desc, created=old)
    (root / "MEMORY.md").write_text(f"# main\n\n- [hose-bib](hose-bib.md) — {desc}\n")

    def pasting_scribe(req):
        if "was refused" in req.last_content:  # the retry: paste kura's own explanation
            reason = req.last_content.split("was refused: ", 1)[1].split(". Write", 1)[0]
            return {"trigger": f"hose bib freezes, drain before frost, ⚠️ {reason}"}
        return {"trigger": "hose bib behind the shed freezes in winter, drain it"}

    model.script("kura_trigger", pasting_scribe)
    res = weave(reg, "main", today=dt.date.today)
    assert res.written and dict(res.refused)["hose-bib"]
    assert any("was refused" in r.last_content for r in model.requests_for("kura_trigger"))
    woven = (root / "MEMORY.md").read_text(encoding="utf-8") + "".join(
        text for _l, _s, text in res.lines
    )
    assert "landmine mark" not in woven and "(trigger)" not in woven
    assert "hose bib freezes, drain before frost" not in woven
