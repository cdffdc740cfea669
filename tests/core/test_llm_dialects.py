"""Each server's structured-output dialect is learnt from its own answers, bounded replies,
and giving up on a call by its deadline (the scripted server replays each server's
recorded refusals, tests/fakes/dialects/*.json)."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, strategies as st

from kura_core.errors import ModelUnavailable
from kura_core.llm import (
    CUT_OFF_KEY,
    SHAPES,
    TASK_MAX_TOKENS,
    ModelClient,
    build_body,
    max_tokens_for,
    names_the_shape,
    salvage_items,
)
from kura_core.workshop import Workshop
from tests.fakes.model_server import CutOff, Dialect, Hang, ScriptedModel, Status
from tests.wait import wait_for

PICK = {
    "type": "object",
    "properties": {"slugs": {"type": "array", "items": {"type": "string"}}},
    "required": ["slugs"],
}
MESSAGES = [
    {"role": "system", "content": "charter"},
    {"role": "user", "content": "which memories fit: deploy friday?"},
]


@pytest.fixture
def workshop(tmp_path):
    w = Workshop(tmp_path / "_still")
    yield w
    w.close()


def ask(client: ModelClient, **kw) -> dict:
    return client.ask("thinker", "kura_pick", MESSAGES, PICK, **kw)


@pytest.mark.parametrize("name", Dialect.names())
def test_each_server_is_met_in_a_shape_it_accepts_and_remembered(name, workshop):
    dialect = Dialect.load(name)
    assert dialect.sources, f"{name}.json must say where its answers were learnt"
    with ScriptedModel(dialect=dialect) as model:
        model.script("kura_pick", {"slugs": ["deploy-freeze"]})
        spec = model.spec()
        with ModelClient({"thinker": spec}, dialects=workshop) as client:
            assert ask(client) == {"slugs": ["deploy-freeze"]}
            assert [r.shape for r in model.requests] == list(dialect.expect)
            learnt = dialect.expect[-1]
            assert client.status()["thinker"]["shape"] == learnt
            ask(client)  # the same process asks in the learnt shape at once
            assert model.requests[-1].shape == learnt
            assert model.count() == len(dialect.expect) + 1
        before = model.count()
        with ModelClient({"thinker": spec}, dialects=workshop) as later:  # a later run
            ask(later)
        assert [r.shape for r in model.requests[before:]] == [learnt]
    assert learnt in dialect.accepts


def test_the_refusal_names_response_format_and_the_next_shape_carries_the_schema():
    with ScriptedModel(dialect=Dialect.load("llama-cpp-python")) as model:
        model.script("kura_pick", {"slugs": []})
        with ModelClient({"thinker": model.spec()}) as client:
            ask(client)
        refused, answered = model.requests
    assert refused.body["response_format"]["type"] == "json_schema"
    assert answered.body["response_format"] == {"type": "json_object", "schema": PICK}
    assert answered.body["max_tokens"] == TASK_MAX_TOKENS["kura_pick"]


def test_a_server_that_refuses_every_format_gets_the_schema_in_the_prompt():
    def strict(request):
        if "response_format" in request.body:
            return Status(422, {"detail": "response_format is not supported here"})
        return {"slugs": ["x"]}

    with ScriptedModel() as model:
        model.script("kura_pick", strict)
        with ModelClient({"thinker": model.spec()}) as client:
            assert ask(client) == {"slugs": ["x"]}
        shapes = [r.shape for r in model.requests]
        last = model.requests[-1].messages[-1]["content"]
    assert shapes == list(SHAPES)
    assert (
        last.startswith(MESSAGES[-1]["content"]) and json.dumps(PICK, separators=(",", ":")) in last
    )


def test_an_error_that_is_not_about_the_shape_is_reported_at_once():
    with ScriptedModel() as model:
        model.script("kura_pick", Status(500, {"error": {"message": "CUDA out of memory"}}))
        with ModelClient({"thinker": model.spec()}) as client, pytest.raises(ModelUnavailable) as e:
            ask(client)
        assert model.count() == 1
    assert e.value.kind == "http_status" and "CUDA out of memory" in str(e.value)


def test_every_shape_refused_reports_each_refusal():
    with ScriptedModel() as model:
        model.script("kura_pick", Status(500, "response_format: nothing works today"))
        with ModelClient({"thinker": model.spec()}) as client:
            with pytest.raises(ModelUnavailable) as e:
                ask(client)
            result = client.check("thinker", timeout=2)
    assert "after 3 other shapes" in str(e.value)
    assert str(e.value).startswith("HTTP 500: response_format: nothing works today")
    # the probe's own task is answered: the refusals were the kura_pick script's
    assert result.ok and result.shape == "json_schema"


def test_an_ollama_refusing_a_reasoning_value_is_asked_again_bare():
    with ScriptedModel(dialect=Dialect.load("ollama")) as model:
        model.script("kura_pick", {"slugs": []})
        with ModelClient({"thinker": model.spec(effort="minimal")}) as client:
            ask(client)
        first, bare = model.requests
    assert first.body["reasoning_effort"] == "minimal"
    assert "reasoning_effort" not in bare.body and bare.shape == "json_schema"


def test_the_probe_learns_afresh_and_reports_shape_latency_and_refusals(workshop):
    with ScriptedModel(dialect=Dialect.load("llama-server-2024")) as model:
        spec = model.spec()
        key = ModelClient.endpoint_key(spec)
        workshop.learn_dialect(key, {"shape": "plain", "bare": True})
        with ModelClient({"thinker": spec}, dialects=workshop) as client:
            result = client.check("thinker")
        assert [r.shape for r in model.requests] == ["json_schema", "json_object_schema"]
    assert result.ok and result.shape == "json_object_schema" and result.latency_ms > 0
    assert len(result.tried) == 1 and "but got: json_schema" in result.tried[0]
    assert result.summary.startswith("answers in json_object_schema")
    assert workshop.learnt_dialect(key)["shape"] == "json_object_schema"
    assert workshop.learnt_dialects()[key]["bare"] is False


def test_a_probe_that_fails_says_what_came_back():
    with ScriptedModel() as model:
        model.script("kura_probe", Status(503, {"error": "model is loading"}))
        with ModelClient({"scribe": model.spec()}) as client:
            result = client.check("scribe", timeout=2)
    assert not result.ok and result.reason == 'HTTP 503: {"error": "model is loading"}'
    assert result.to_json()["tried"] == [result.reason.replace("HTTP", "json_schema: HTTP")]


# -- bounded replies -----------------------------------------------------------------------


def test_a_reply_cut_off_at_its_limit_says_so():
    with ScriptedModel() as model:
        model.script("kura_pick", CutOff('{"slugs": ["deploy-freeze", "tab', tokens=256))
        with ModelClient({"thinker": model.spec()}) as client, pytest.raises(ModelUnavailable) as e:
            ask(client)
    assert e.value.kind == "cut_off"
    assert str(e.value) == "cut off at 256 tokens before the answer was complete"


def test_a_whole_answer_that_reached_its_limit_is_still_used():
    with ScriptedModel() as model:
        model.script("kura_pick", CutOff('{"slugs": ["a"]}', tokens=256))
        with ModelClient({"thinker": model.spec()}) as client:
            assert ask(client) == {"slugs": ["a"]}


def test_max_tokens_follow_the_task_and_the_role_setting():
    with ScriptedModel() as model:
        model.script("*", {"slugs": [], "verdict": "keep"})
        roles = {"thinker": model.spec(), "scribe": model.spec(max_tokens=77)}
        with ModelClient(roles) as client:
            ask(client)
            client.ask("scribe", "kura_judge", MESSAGES, {"type": "object"})
            ask(client, max_tokens=9)
        sent = [r.body["max_tokens"] for r in model.requests]
    assert sent == [TASK_MAX_TOKENS["kura_pick"], 77, 9]
    spec = roles["thinker"]
    assert max_tokens_for(spec, "brain", "kura_candidates") > max_tokens_for(
        spec, "scribe", "kura_judge"
    )
    assert max_tokens_for(spec, "scribe", "something_new") == 512


def test_a_call_past_its_deadline_is_cancelled_and_the_next_does_not_queue():
    # one slot, as llama-cpp-python serves: a call left running would block the next one
    with ScriptedModel(slots=1) as model:
        model.script("kura_pick", Hang(30, {"slugs": ["late"]}), {"slugs": ["next"]})
        with ModelClient({"thinker": model.spec(timeout=20)}) as client:
            started = time.monotonic()
            with pytest.raises(ModelUnavailable) as e:
                ask(client, timeout=0.4)
            assert e.value.kind == "timeout" and str(e.value) == "timed out after 0.4s"
            assert ask(client) == {"slugs": ["next"]}
            took = time.monotonic() - started
        wait_for(lambda: model.cancelled, "the server to see the first call cancelled", timeout=5)
    assert model.cancelled == 1
    assert took < 10, f"the second call waited behind the first ({took:.1f}s)"


def test_a_trickling_reply_ends_at_the_deadline():
    import socket
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    stop = threading.Event()

    def trickle():
        conn, _ = server.accept()
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
        conn.sendall(b"Transfer-Encoding: chunked\r\n\r\n")
        while not stop.wait(0.05):  # one byte every 50 ms: never a whole reply
            try:
                conn.sendall(b"1\r\n \r\n")
            except OSError:
                break
        conn.close()

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    from kura_core.llm import ModelSpec

    spec = ModelSpec(url=f"http://127.0.0.1:{port}/v1", model="m", timeout=0.5)
    started = time.monotonic()
    with ModelClient({"thinker": spec}) as client, pytest.raises(ModelUnavailable) as e:
        ask(client)
    stop.set()
    server.close()
    assert e.value.kind == "timeout" and time.monotonic() - started < 3


# -- properties ----------------------------------------------------------------------------


@given(st.integers(min_value=100, max_value=399), st.text(max_size=200))
def test_a_success_or_redirect_never_names_the_shape(status, body):
    assert not names_the_shape(status, body + " response_format json_schema")


@given(st.sampled_from(SHAPES), st.booleans(), st.integers(min_value=1, max_value=10_000))
def test_every_body_is_bounded_and_json(shape, bare, limit):
    from kura_core.llm import ModelSpec

    spec = ModelSpec(url="http://127.0.0.1:1/v1", model="m", extra={"top_k": 5})
    body = build_body(spec, "kura_pick", MESSAGES, PICK, shape=shape, max_tokens=limit, bare=bare)
    assert body["max_tokens"] == limit and json.loads(json.dumps(body)) == body
    assert ("response_format" in body) is (shape != "plain")
    assert ("top_k" in body) is not bare
    assert MESSAGES[-1]["content"] == "which memories fit: deploy friday?"  # never mutated


def test_a_list_cut_off_mid_item_gives_the_items_written_whole():
    item = {"title": "again", "quotes": ["[USER] again"]}
    cut = '{"candidates": [' + ", ".join([json.dumps(item)] * 3) + ', {"title": "aga'
    schema = {"type": "object", "properties": {"candidates": {"type": "array"}}}
    with ScriptedModel() as model:
        model.script("kura_candidates", CutOff(cut, tokens=2048))
        with ModelClient({"brain": model.spec()}) as client:
            reply = client.ask("brain", "kura_candidates", MESSAGES, schema, salvage="candidates")
            with pytest.raises(ModelUnavailable) as e:  # without salvage: the honest failure
                client.ask("brain", "kura_candidates", MESSAGES, schema)
    assert reply["candidates"] == [item] * 3
    assert reply[CUT_OFF_KEY] == "cut off at 2048 tokens before the answer was complete"
    assert e.value.kind == "cut_off"


@given(
    st.lists(st.dictionaries(st.text(max_size=5), st.integers()), max_size=6), st.integers(0, 80)
)
def test_salvage_never_invents_an_item(items, cut):
    text = json.dumps({"candidates": items})
    got = salvage_items(text[: len(text) - cut], "candidates")
    assert got == items[: len(got)]


@pytest.mark.parametrize("name", Dialect.names())
def test_recall_and_distill_work_on_every_server_as_it_ships(name, tmp_path):
    """The whole path, not only the client: recall meets the thinker in a shape the server
    accepts (it once fell back to words on every question), and a distil drafts."""
    from kura_core.distill import drafts as dr, pipeline
    from kura_core.recall import recall
    from tests.conftest import make_registry
    from tests.core.test_distill import config, echo_scribe, honest_brain, registry, write_journal
    from tests.core.test_recall import CHAIN

    with ScriptedModel(dialect=Dialect.load(name)) as model:
        model.script("kura_pick", {"slugs": ["archive-on-slow-disk"]})
        reg = make_registry(tmp_path / "r", stores={"main": CHAIN}, model_url=model.url)
        res = recall(reg, "main", "where does the archive live?", hops=0)
        assert res.how == "meaning" and not res.degraded
        assert list(res.picked) == ["archive-on-slow-disk"]

        write_journal(
            tmp_path / "d" / "journals" / "a.jsonl", [("user", "the router lives in the hall")]
        )
        model.script("kura_candidates", honest_brain)
        model.script("kura_compose", echo_scribe)
        dreg = registry(config(tmp_path / "d", model.url))
        rep = pipeline.run(dreg, "main")
        assert rep.stopped == "" and rep.shelved == 0
        assert [d.body for d in dr.list_drafts(dreg.store("main"))] == [
            "the router lives in the hall"
        ]
        refused = [
            r
            for r in model.requests
            if r.task != "models" and r.shape not in Dialect.load(name).accepts
        ]
    # one refusal per client at most (recall's, the distiller's): then the shape is known
    assert len(refused) == (2 if len(Dialect.load(name).expect) > 1 else 0)


def test_a_service_that_wants_max_completion_tokens_gets_it_and_it_is_remembered(workshop):
    def openai_reasoning_model(request):
        if "max_tokens" in request.body:
            return Status(
                400,
                {
                    "error": {
                        "message": "Unsupported parameter: 'max_tokens' is not supported with "
                        "this model. Use 'max_completion_tokens' instead.",
                        "type": "invalid_request_error",
                        "param": "max_tokens",
                        "code": "unsupported_parameter",
                    }
                },
            )
        return {"slugs": ["a"]}

    with ScriptedModel() as model:
        model.script("kura_pick", openai_reasoning_model)
        spec = model.spec(dialect="openai")
        with ModelClient({"thinker": spec}, dialects=workshop) as client:
            assert ask(client) == {"slugs": ["a"]}
        first, second = model.requests
        assert first.body["max_tokens"] == second.body["max_completion_tokens"] == 256
        assert second.shape == "json_schema" and "reasoning_effort" in second.body
        with ModelClient({"thinker": spec}, dialects=workshop) as later:
            ask(later)
        assert "max_completion_tokens" in model.requests[-1].body and model.count() == 3
