"""The model client against the scripted server on a real socket."""

from __future__ import annotations

import threading

import pytest

from kura_core.errors import KuraError, ModelUnavailable
from kura_core.llm import (
    CallRecord,
    ModelClient,
    ModelSpec,
    build_body,
    parse_json_reply,
    plain_body,
    validate,
)
from tests.fakes.model_server import (
    Garbage,
    Hang,
    ReasoningOnly,
    Refuse,
    Reply,
    ScriptedModel,
    Status,
    closed_port_url,
)

PICK = {
    "type": "object",
    "properties": {"slugs": {"type": "array", "items": {"type": "string"}}},
    "required": ["slugs"],
}
MESSAGES = [
    {"role": "system", "content": "charter"},
    {"role": "user", "content": "which memories fit: deploy friday?"},
]
SECRET = "sk-test-0123456789abcdef"


@pytest.fixture
def model():
    with ScriptedModel() as server:
        yield server


@pytest.fixture
def records():
    return []


def make_client(spec: ModelSpec | None, records: list, **kw) -> ModelClient:
    return ModelClient({"thinker": spec}, recorder=records.append, **kw)


def failing(client: ModelClient, task: str = "kura_pick", **kw) -> str:
    with pytest.raises(ModelUnavailable) as caught:
        client.ask("thinker", task, MESSAGES, PICK, **kw)
    return str(caught.value)


# -- happy paths per dialect ----------------------------------------------------------------


def test_vllm_sends_every_knob_and_extra(model, records):
    model.script("kura_pick", {"slugs": ["deploy-freeze"]})
    spec = model.spec(
        effort="medium",
        thinking=True,
        extra={
            "max_tokens": 300,
            "chat_template_kwargs": {"custom": 1},
        },
    )
    with make_client(spec, records) as client:
        assert client.ask("thinker", "kura_pick", MESSAGES, PICK) == {"slugs": ["deploy-freeze"]}
    body = model.last("kura_pick").body
    assert body["model"] == "scripted"
    assert body["messages"] == MESSAGES
    assert body["temperature"] == 0.2
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "kura_pick", "schema": PICK, "strict": False},
    }
    assert body["reasoning_effort"] == "medium"
    assert body["thinking_effort"] == "medium"
    assert body["chat_template_kwargs"] == {"enable_thinking": True, "thinking": True, "custom": 1}
    assert body["max_tokens"] == 300
    assert model.last().headers["x-kura-task"] == "kura_pick"
    assert "authorization" not in model.last().headers
    [record] = records
    assert record.ok and record.reason == "" and record.task == "kura_pick"
    assert record.url == model.url and record.model == "scripted" and record.elapsed_ms >= 0


def test_openai_dialect_is_plain_plus_reasoning_effort(model, records):
    model.script("kura_pick", {"slugs": []})
    with make_client(model.spec(dialect="openai", extra={"max_tokens": 5}), records) as client:
        client.ask("thinker", "kura_pick", MESSAGES, PICK)
    body = model.last().body
    assert set(body) == {
        "model",
        "messages",
        "temperature",
        "response_format",
        "reasoning_effort",
        "max_tokens",
    }
    assert body["reasoning_effort"] == "low"
    assert body["max_tokens"] == 256  # the task's own bound: extra is read by vllm only


def test_openai_dialect_without_effort_omits_it(model, records):
    model.script("kura_pick", {"slugs": []})
    with make_client(model.spec(dialect="openai", effort=""), records) as client:
        client.ask("thinker", "kura_pick", MESSAGES, PICK)
    assert set(model.last().body) == {
        "model",
        "messages",
        "temperature",
        "response_format",
        "max_tokens",
    }


def test_generic_dialect_sends_only_the_basics(model, records):
    model.script("kura_pick", {"slugs": []})
    with make_client(
        model.spec(dialect="generic", thinking=True, extra={"x": 1}), records
    ) as client:
        client.ask("thinker", "kura_pick", MESSAGES, PICK)
    assert set(model.last().body) == {
        "model",
        "messages",
        "temperature",
        "response_format",
        "max_tokens",
    }


def test_400_retries_once_with_the_bare_body(model, records):
    model.script("kura_pick", Status(400, "unknown field chat_template_kwargs"), {"slugs": ["a"]})
    with make_client(model.spec(), records) as client:
        assert client.ask("thinker", "kura_pick", MESSAGES, PICK) == {"slugs": ["a"]}
        first, retry = model.requests_for("kura_pick")
        assert "chat_template_kwargs" in first.body
        assert retry.body == {
            "model": "scripted",
            "messages": MESSAGES,
            "max_tokens": 256,
            "response_format": first.body["response_format"],
        }
        # the bare body is remembered: the next call does not knock twice
        client.ask("thinker", "kura_pick", MESSAGES, PICK)
        assert set(model.last("kura_pick").body) == set(retry.body)
    assert [r.ok for r in records] == [True, True]


def test_400_that_names_nothing_ends_at_the_plain_bare_body(model, records):
    model.script("kura_pick", Status(400, "bad body"), Status(400, "still bad"), Status(400, "no"))
    with make_client(model.spec(), records) as client:
        assert failing(client) == "HTTP 400: no (after 2 other shapes)"
    shapes = [(r.shape, "temperature" in r.body) for r in model.requests_for("kura_pick")]
    assert shapes == [("json_schema", True), ("json_schema", False), ("plain", False)]


def test_fenced_json_with_prose_is_parsed(model, records):
    model.script("kura_pick", Reply('Here you go:\n```json\n{"slugs": ["x"]}\n```\nHope it helps.'))
    with make_client(model.spec(), records) as client:
        assert client.ask("thinker", "kura_pick", MESSAGES, PICK) == {"slugs": ["x"]}


def test_replies_follow_the_script_and_the_last_repeats(model, records):
    model.script("kura_pick", {"slugs": ["one"]}, {"slugs": ["two"]})
    with make_client(model.spec(), records) as client:
        got = [client.ask("thinker", "kura_pick", MESSAGES, PICK)["slugs"][0] for _ in range(3)]
    assert got == ["one", "two", "two"]


def test_callable_reply_sees_the_request(model, records):
    model.script("kura_pick", lambda req: {"slugs": [req.last_content.split(":")[0]]})
    with make_client(model.spec(), records) as client:
        assert client.ask("thinker", "kura_pick", MESSAGES, PICK) == {
            "slugs": ["which memories fit"]
        }


# -- failure shapes -------------------------------------------------------------------------


def test_connection_refused(records):
    url = closed_port_url()
    with make_client(ModelSpec(url=url, model="m", timeout=0.5), records) as client:
        assert failing(client) == f"connection refused at {url}"
    assert records[-1].ok is False and records[-1].reason.startswith("connection refused")


def test_timeout(model, records):
    model.script("kura_pick", Hang(5))
    with make_client(model.spec(timeout=5), records) as client:
        assert failing(client, timeout=0.3) == "timed out after 0.3s"
    assert not records[-1].ok


def test_dropped_connection(model, records):
    model.script("kura_pick", Refuse())
    with make_client(model.spec(), records) as client:
        assert failing(client) == f"connection dropped by {model.url} without a reply"


def test_http_500_carries_a_body_excerpt(model, records):
    model.script("kura_pick", Status(500, "boom " * 100))
    with make_client(model.spec(), records) as client:
        reason = failing(client)
    assert reason.startswith("HTTP 500: boom boom")
    assert len(reason) == len("HTTP 500: ") + 200
    assert model.count("kura_pick") == 1


def test_unscripted_task_fails_loudly(model, records):
    with make_client(model.spec(), records) as client:
        reason = failing(client, task="kura_nothing")
    assert reason.startswith("HTTP 500:") and "kura_nothing" in reason


def test_garbage(model, records):
    model.script("kura_pick", Garbage())
    with make_client(model.spec(), records) as client:
        assert failing(client).startswith("unparseable reply: no JSON object in")


def test_reasoning_only(model, records):
    model.script("kura_pick", ReasoningOnly())
    with make_client(model.spec(), records) as client:
        assert failing(client) == "reasoning-only reply with empty content"


def test_response_that_is_not_a_completion(model, records):
    model.script("kura_pick", Status(200, {"hello": "world"}))
    with make_client(model.spec(), records) as client:
        assert failing(client).startswith("unparseable reply: no choices[0].message")


def test_schema_misfit(model, records):
    model.script("kura_pick", {"slugs": "deploy"})
    with make_client(model.spec(), records) as client:
        assert (
            failing(client)
            == "reply does not fit kura_pick: reply.slugs should be array, got string"
        )
    model.script("kura_pick", {"picked": []})
    with make_client(model.spec(), records) as client:
        assert failing(client) == "reply does not fit kura_pick: reply.slugs is missing"


def test_unconfigured_role_needs_no_network(records):
    client = ModelClient({"thinker": None}, recorder=records.append)
    assert not client.configured("thinker") and not client.configured("brain")
    with pytest.raises(ModelUnavailable, match="^brain is not configured$"):
        client.ask("brain", "kura_candidates", MESSAGES, {})
    assert records[-1].ok is False and records[-1].url == ""
    assert client.probe("scribe") == (False, "scribe is not configured")
    assert isinstance(ModelUnavailable("x"), KuraError)


def test_missing_api_key_variable_never_sends(model, records):
    model.script("kura_pick", {"slugs": []})
    spec = model.spec(api_key_env="KURA_TEST_KEY")
    with make_client(spec, records, env={}) as client:
        assert failing(client) == "api key variable KURA_TEST_KEY is not set"
    with make_client(spec, records, env={"KURA_TEST_KEY": ""}) as client:
        assert failing(client) == "api key variable KURA_TEST_KEY is not set"
    assert model.count() == 0


def test_api_key_is_sent_as_bearer_and_never_shown(model, records):
    model.script("kura_pick", {"slugs": []}, Status(401, f"bad key {SECRET} for you"))
    spec = model.spec(api_key_env="KURA_TEST_KEY")
    with make_client(spec, records, env={"KURA_TEST_KEY": SECRET}) as client:
        client.ask("thinker", "kura_pick", MESSAGES, PICK)
        assert model.last().headers["authorization"] == f"Bearer {SECRET}"
        reason = failing(client)
        ok, probe_reason = client.probe("thinker")
        status = client.status()
    assert reason == "HTTP 401: bad key *** for you"
    assert ok and probe_reason.startswith("answers in json_schema")
    assert SECRET not in repr(status) and SECRET not in repr(records) and SECRET not in repr(spec)


def test_status_reflects_calls_and_last_error(model):
    times = iter([100.0, 200.0, 300.0])
    model.script("kura_pick", {"slugs": []}, Garbage(), {"slugs": []})
    client = ModelClient({"thinker": model.spec(dialect="generic")}, clock=lambda: next(times))
    with client:
        client.ask("thinker", "kura_pick", MESSAGES, PICK)
        with pytest.raises(ModelUnavailable):
            client.ask("thinker", "kura_pick", MESSAGES, PICK)
        status = client.status()
        thinker = status["thinker"]
        assert thinker["configured"] and thinker["url"] == model.url
        assert thinker["model"] == "scripted" and thinker["dialect"] == "generic"
        assert thinker["calls"] == 2 and thinker["failures"] == 1
        assert thinker["last_ok_at"] == 100.0 and thinker["last_error_at"] == 200.0
        assert thinker["last_error"].startswith("unparseable reply")
        assert status["brain"] == {
            "configured": False,
            "url": "",
            "model": "",
            "shape": "",
            "dialect": "",
            "calls": 0,
            "failures": 0,
            "last_ok_at": None,
            "last_error": "",
            "last_error_at": None,
        }
        client.ask("thinker", "kura_pick", MESSAGES, PICK)
        assert client.status()["thinker"]["last_ok_at"] == 300.0
        assert [r.ok for r in client.records()] == [True, False, True]


def test_recorder_errors_are_swallowed(model):
    model.script("kura_pick", {"slugs": []})

    def explode(record: CallRecord) -> None:
        raise RuntimeError("recorder broke")

    with ModelClient({"thinker": model.spec()}, recorder=explode) as client:
        assert client.ask("thinker", "kura_pick", MESSAGES, PICK) == {"slugs": []}


def test_probe(model, records):
    with make_client(model.spec(), records) as client:
        ok, said = client.probe("thinker")
        assert ok and said.startswith("answers in json_schema (") and said.endswith("s)")
        model.script("kura_probe", Status(503, "loading"))
        assert client.probe("thinker") == (False, "HTTP 503: loading")
    assert [(r.task, r.ok) for r in records] == [("probe", True), ("probe", False)]
    assert model.last().path == "/v1/chat/completions"
    url = closed_port_url()
    with make_client(ModelSpec(url=url, model="m"), records) as client:
        assert client.probe("thinker", timeout=0.5) == (False, f"connection refused at {url}")


def test_concurrent_asks_share_one_client(model, records):
    model.script("kura_pick", lambda req: {"slugs": [req.last_content]})
    results: dict[int, dict] = {}
    errors: list[BaseException] = []
    with make_client(model.spec(), records) as client:

        def work(n: int) -> None:
            try:
                messages = [MESSAGES[0], {"role": "user", "content": f"q{n}"}]
                results[n] = client.ask("thinker", "kura_pick", messages, PICK)
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        assert client.status()["thinker"]["calls"] == 8
    assert not errors
    assert results == {n: {"slugs": [f"q{n}"]} for n in range(8)}
    assert len(records) == 8 and all(r.ok for r in records)


def test_hang_does_not_block_shutdown():
    import time

    server = ScriptedModel().start()
    server.script("kura_pick", Hang(30))
    client = ModelClient({"thinker": server.spec(timeout=0.2)})
    with pytest.raises(ModelUnavailable):
        client.ask("thinker", "kura_pick", MESSAGES, PICK)
    started = time.monotonic()
    server.stop()
    client.close()
    assert (
        time.monotonic() - started < 10.0
    )  # the reply hangs for 30 s: shutdown must not wait for it


# -- pure pieces ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}',
        '  ```json\n{"a": 1}\n```  ',
        '```\n{"a": 1}\n```',
        'Sure, here it is: {"a": 1} -- done.',
        '<think>maybe {"a": 2}? no.</think>\n{"a": 1}',
        'prefix {not json} then {"a": 1}',
    ],
)
def test_parse_json_reply_tolerates_wrappers(text):
    assert parse_json_reply(text) == {"a": 1}


@pytest.mark.parametrize(
    "text, why",
    [
        ("", "empty content"),
        ("just words", "no JSON object in 'just words'"),
        ("[1, 2]", "expected a JSON object, got array"),
        ('{"a": 1', "no JSON object in"),
    ],
)
def test_parse_json_reply_reasons(text, why):
    with pytest.raises(ValueError) as caught:
        parse_json_reply(text)
    assert str(caught.value).startswith(why)


def test_validate_subset():
    schema = {
        "type": "object",
        "required": ["verdict", "n"],
        "properties": {
            "verdict": {"type": "string", "enum": ["pour", "fix", "toss"]},
            "n": {"type": "integer"},
            "score": {"type": "number"},
            "ok": {"type": "boolean"},
            "items": {"type": "array", "items": {"type": "object", "required": ["kind"]}},
        },
    }
    assert validate({"verdict": "pour", "n": 2, "extra": "fine"}, schema) == []
    assert validate(
        {"verdict": "keep", "n": True, "score": "1", "ok": 1, "items": [{"kind": "x"}, {}]}, schema
    ) == [
        'reply.verdict should be one of "pour", "fix", "toss", got "keep"',
        "reply.n should be integer, got boolean",
        "reply.score should be number, got string",
        "reply.ok should be boolean, got integer",
        "reply.items[1].kind is missing",
    ]
    assert validate([], schema) == ["reply should be object, got array"]


# -- failure kinds: what code branches on (the message is for a person) ---------------------


def failure(client: ModelClient, task: str = "kura_pick", **kw) -> ModelUnavailable:
    with pytest.raises(ModelUnavailable) as caught:
        client.ask("thinker", task, MESSAGES, PICK, **kw)
    return caught.value


@pytest.mark.parametrize(
    "reply,kind",
    [
        (Status(500, "boom"), "http_status"),
        (Status(401, "who are you"), "http_status"),
        (Garbage(), "unparseable"),
        (Status(200, {"hello": "world"}), "unparseable"),
        (Status(200, "not json at all"), "unparseable"),
        (Reply(""), "unparseable"),
        (ReasoningOnly(), "reasoning_only"),
        ({"slugs": "deploy"}, "schema"),
        ({"picked": []}, "schema"),
        (Refuse(), "dropped"),
    ],
)
def test_each_reply_failure_has_its_kind_in_the_error_and_the_record(model, records, reply, kind):
    model.script("kura_pick", reply)
    with make_client(model.spec(), records) as client:
        exc = failure(client)
        ok, _why = client.probe("thinker")
    assert exc.kind == kind
    assert exc.unreachable is (kind == "dropped")
    rec = [r for r in records if r.task == "kura_pick"][-1]
    assert rec.ok is False and rec.kind == kind and rec.reason == str(exc)
    assert ok  # the endpoint itself answers: only this reply could not be used


def test_unreachable_kinds(model, records):
    url = closed_port_url()
    with make_client(ModelSpec(url=url, model="m", timeout=0.5), records) as client:
        refused = failure(client)
        assert client.probe("thinker", timeout=0.5)[0] is False
    assert refused.kind == "connect" and refused.unreachable
    assert [r.kind for r in records] == ["connect", "connect"]

    model.script("kura_pick", Hang(5))
    with make_client(model.spec(timeout=5), records) as client:
        slow = failure(client, timeout=0.3)
    assert slow.kind == "timeout" and slow.unreachable and records[-1].kind == "timeout"

    with make_client(None, records) as client:
        missing = failure(client)
    assert (
        missing.kind == "unconfigured"
        and missing.unreachable
        and records[-1].kind == "unconfigured"
    )

    model.script("kura_pick", {"slugs": []})
    sent = model.count("kura_pick")
    with make_client(model.spec(api_key_env="KURA_TEST_KEY"), records, env={}) as client:
        keyless = failure(client)
    assert keyless.kind == "unconfigured" and keyless.unreachable
    assert model.count("kura_pick") == sent  # nothing was sent


def test_a_successful_call_records_no_kind(model, records):
    model.script("kura_pick", {"slugs": []})
    with make_client(model.spec(), records) as client:
        client.ask("thinker", "kura_pick", MESSAGES, PICK)
    assert records[-1].ok and records[-1].kind == ""


def test_model_unavailable_kind_is_a_closed_set():
    import pickle

    from kura_core.errors import MODEL_FAILURE_KINDS, UNREACHABLE_KINDS

    assert ModelUnavailable("x").kind == "other" and not ModelUnavailable("x").unreachable
    assert str(ModelUnavailable("timed out", kind="schema")) == "timed out"
    assert not ModelUnavailable("timed out after 3s", kind="schema").unreachable  # never by wording
    with pytest.raises(ValueError, match="kind must be one of"):
        ModelUnavailable("x", kind="broken")  # type: ignore[arg-type]
    assert set(MODEL_FAILURE_KINDS) > UNREACHABLE_KINDS
    back = pickle.loads(pickle.dumps(ModelUnavailable("gone", kind="dropped")))
    assert back.kind == "dropped" and str(back) == "gone"


def test_a_refused_profile_is_kind_refused(tmp_path, model):
    from kura_core.profile import draft_profile
    from tests.conftest import make_registry

    model.script("kura_profile", {"profile": "- a list\n- not sentences"})
    reg = make_registry(
        tmp_path,
        stores={"main": {"alpha": ("Alpha", "the first memory", "Body.")}},
        model_url=model.url,
    )
    try:
        with pytest.raises(ModelUnavailable) as caught:
            draft_profile(reg, "main")
    finally:
        reg.close()
    assert caught.value.kind == "refused" and "refused" in str(caught.value)


def test_spec_is_safe_value():
    spec = ModelSpec(url="http://x/v1", model="m", extra={"a": 1})
    assert hash(spec) == hash(ModelSpec(url="http://x/v1", model="m", extra={"b": 2}))
    with pytest.raises(TypeError):
        spec.extra["a"] = 2  # type: ignore[index]
    with pytest.raises(ValueError):
        ModelSpec(url="http://x/v1", model="m", dialect="bogus")
    assert spec.endpoint == "http://x/v1/chat/completions"
    assert plain_body(spec, MESSAGES) == {"model": "m", "messages": MESSAGES}
    assert build_body(spec, "t", MESSAGES, {})["a"] == 1


def test_importing_the_client_loads_no_ui_library():
    import subprocess
    import sys

    code = (
        "import sys, kura_core.llm\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'textual', 'pygments'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
