"""A scripted OpenAI-compatible model server on a real socket.

    with ScriptedModel() as model:
        model.script("kura_pick", {"slugs": ["a"]})            # every kura_pick gets this
        model.script("kura_judge", Status(400, "no"), {...})   # first a 400, then the dict
        client = ModelClient({"thinker": model.spec()})
        ...
        assert model.count("kura_pick") == 1
        assert model.requests[-1].body["messages"][-1]["content"] == "question"

A task is recognised from ``response_format.json_schema.name``, else from the
``X-Kura-Task`` header (which is how a plain retry without ``response_format`` is matched).
``script(task, *replies)`` replaces that task's script; replies are served in order and the
last one repeats forever. The task ``"*"`` is the fallback for any unscripted task, and the
task ``"models"`` overrides the answer to ``GET /v1/models``. An unscripted task gets an
HTTP 500 whose body names it, so a test that forgot a script fails loudly.

A reply is one of:

* ``dict``: served as the JSON content of an assistant message;
* ``str`` or ``Reply(content)``: served verbatim as the content;
* ``Garbage()``: content that is not JSON;
* ``ReasoningOnly()``: empty content with ``reasoning_content`` set;
* ``Status(code, body)``: a bare HTTP answer (``body`` a str, or a dict sent as JSON);
* ``Refuse()``: the connection is closed without any answer;
* ``Hang(seconds, then, release)``: wait (interrupted at shutdown) for ``seconds`` or for the
  ``release`` event, then serve ``then``; a client that closes its connection meanwhile ends
  the wait (the request is counted in ``model.cancelled``), as llama-server does;
* ``CutOff(content, tokens)``: ``content`` with ``finish_reason: "length"`` after ``tokens``;
* a callable taking the ``Recorded`` request and returning any of the above.

``ScriptedModel(dialect=Dialect.load("llama-cpp-python"))`` answers as that server does:
a request in a structured-output shape it does not accept gets that server's own refusal
(recorded in ``tests/fakes/dialects/*.json`` with where it was learnt). ``slots=1`` serves
one chat completion at a time, as a single-slot local server does. The task ``kura_probe``
is answered by default (a tiny object that fits every role's probe) unless scripted.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

TASK_HEADER = "x-kura-task"
MODELS_TASK = "models"
FALLBACK_TASK = "*"
PROBE_TASK = "kura_probe"
PROBE_REPLY = {"ok": True, "slugs": [], "candidates": [], "verdict": "keep", "reason": "fits"}
DIALECTS_DIR = Path(__file__).with_name("dialects")


# ---------------------------------------------------------------------------------------
# behaviours


@dataclass(frozen=True)
class Reply:
    """Serve ``content`` verbatim as the assistant message content."""

    content: str


@dataclass(frozen=True)
class Garbage:
    """Serve content that is not JSON."""

    content: str = "Certainly! The first and the third memories look relevant to me."


@dataclass(frozen=True)
class ReasoningOnly:
    """Serve an empty content with the thinking in ``reasoning_content``."""

    reasoning: str = "The user asks about the deploy. Let me think about which memories..."


@dataclass(frozen=True)
class Status:
    """Answer with a bare HTTP status and body (a dict body is sent as JSON)."""

    code: int
    body: Any = ""


@dataclass(frozen=True)
class Refuse:
    """Close the connection without answering."""


@dataclass(frozen=True)
class Hang:
    """Wait ``seconds`` before serving ``then``. Shutdown interrupts the wait at once. With
    ``release``, the reply waits for that event instead (``seconds`` only bounds a test that
    never sets it): a test that looks at what happens *while* a model is thinking sets it
    once it has looked, so a slow machine cannot answer before the test looks."""

    seconds: float = 30.0
    then: Any = field(default_factory=dict)
    release: threading.Event | None = None


@dataclass(frozen=True)
class CutOff:
    """Serve ``content`` as a reply that stopped at its token limit after ``tokens``."""

    content: str
    tokens: int = 0


def shape_of(body: Any) -> str:
    """The structured-output shape a request body asks in (see ``kura_core.llm.SHAPES``)."""
    fmt = body.get("response_format") if isinstance(body, dict) else None
    if not isinstance(fmt, dict) or fmt.get("type") in (None, "text"):
        return "plain"
    if fmt.get("type") == "json_object":
        return "json_object_schema" if "schema" in fmt else "json_object"
    return str(fmt.get("type"))


@dataclass(frozen=True)
class Dialect:
    """What one real server accepts, and how it refuses the rest (a recorded fixture)."""

    name: str
    accepts: tuple[str, ...]
    refusals: dict[str, Any]
    field_refusals: dict[str, Any]
    expect: tuple[str, ...]
    sources: tuple[str, ...]

    @classmethod
    def load(cls, name: str) -> Dialect:
        data = json.loads((DIALECTS_DIR / f"{name}.json").read_text(encoding="utf-8"))
        return cls(
            name=name,
            accepts=tuple(data["accepts"]),
            refusals=dict(data.get("refusals") or {}),
            field_refusals=dict(data.get("field_refusals") or {}),
            expect=tuple(data["expect"]),
            sources=tuple(data["sources"]),
        )

    @staticmethod
    def names() -> list[str]:
        return sorted(p.stem for p in DIALECTS_DIR.glob("*.json"))

    def refusal(self, body: Any) -> Status | None:
        """This server's answer to *body* when it refuses it, else None."""
        if isinstance(body, dict):
            for name, rule in self.field_refusals.items():
                if name in body and body[name] not in rule["allowed"]:
                    return Status(rule["status"], rule["body"])
        shape = shape_of(body)
        if shape in self.accepts:
            return None
        rule = self.refusals.get(shape)
        if rule is None:
            return Status(400, {"error": f"{self.name}: no recorded answer for {shape}"})
        return Status(rule["status"], rule["body"])


@dataclass
class Recorded:
    """One request the server received."""

    method: str
    path: str
    task: str | None
    headers: dict[str, str]
    raw: bytes
    body: Any

    @property
    def shape(self) -> str:
        return shape_of(self.body)

    @property
    def messages(self) -> list[dict]:
        if isinstance(self.body, dict):
            return list(self.body.get("messages") or [])
        return []

    @property
    def last_content(self) -> str:
        """The content of the last message (the task's own input)."""
        messages = self.messages
        return str(messages[-1].get("content", "")) if messages else ""


def closed_port_url() -> str:
    """A base URL on a loopback port where nothing listens."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    finally:
        sock.close()
    return f"http://127.0.0.1:{port}/v1"


# ---------------------------------------------------------------------------------------
# server


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    block_on_close = False

    def __init__(self, owner: ScriptedModel) -> None:
        self.owner = owner
        self.stopping = threading.Event()
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)

    def process_request(self, request, client_address):  # type: ignore[override]
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request):  # type: ignore[override]
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def drop_connections(self) -> None:
        with self._open_lock:
            sockets = list(self._open)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def handle_one_request(self) -> None:
        try:
            super().handle_one_request()
        except (ConnectionError, OSError):
            self.close_connection = True

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            recorded = self._record(b"", MODELS_TASK)
            reply = self.server.owner._next(MODELS_TASK, recorded, fallback=False)
            if reply is None:
                self._send_json(
                    200,
                    {
                        "object": "list",
                        "data": [{"id": "scripted", "object": "model", "owned_by": "kura-tests"}],
                    },
                )
            else:
                self._serve(reply, recorded)
            return
        self._record(b"", None)
        self._send_json(404, {"error": {"message": f"no route GET {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._record(raw, None)
            self._send_json(404, {"error": {"message": f"no route POST {self.path}"}})
            return
        try:
            body = json.loads(raw.decode("utf-8")) if raw else None
        except ValueError:
            body = None
        task = _task_of(body, self.headers.get(TASK_HEADER))
        recorded = self._record(raw, task, body)
        owner = self.server.owner
        refusal = owner.dialect.refusal(body) if owner.dialect is not None else None
        if refusal is not None:
            self._serve(refusal, recorded)
            return
        if task == PROBE_TASK:
            reply = owner._next(task, recorded, fallback=False) or PROBE_REPLY
        else:
            reply = owner._next(task, recorded)
        if reply is None:
            self._send_json(
                500,
                {
                    "error": {
                        "message": f"scripted model: no script for task {task!r}; "
                        f"call model.script({task!r}, ...)",
                    }
                },
            )
            return
        with owner._slots:
            self._serve(reply, recorded)

    # -- helpers ---------------------------------------------------------------------------

    def _record(self, raw: bytes, task: str | None, body: Any = None) -> Recorded:
        recorded = Recorded(
            method=self.command,
            path=self.path,
            task=task,
            headers={k.lower(): v for k, v in self.headers.items()},
            raw=raw,
            body=body,
        )
        self.server.owner._remember(recorded)
        return recorded

    def _serve(self, reply: Any, recorded: Recorded) -> None:
        for _ in range(16):
            if callable(reply) and not isinstance(reply, type):
                reply = reply(recorded)
                continue
            if isinstance(reply, Hang):
                if self._hang(reply):
                    self.close_connection = True
                    return
                reply = reply.then
                continue
            break
        if isinstance(reply, Refuse):
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        if isinstance(reply, Status):
            if isinstance(reply.body, (dict, list)):
                self._send_json(reply.code, reply.body)
            else:
                self._send_bytes(
                    reply.code, str(reply.body).encode("utf-8"), "text/plain; charset=utf-8"
                )
            return
        model = (
            recorded.body.get("model", "scripted")
            if isinstance(recorded.body, dict)
            else "scripted"
        )
        finish, tokens = "stop", 0
        if isinstance(reply, CutOff):
            message = {"role": "assistant", "content": reply.content}
            finish, tokens = "length", reply.tokens
        elif isinstance(reply, ReasoningOnly):
            message = {"role": "assistant", "content": "", "reasoning_content": reply.reasoning}
        elif isinstance(reply, (Garbage, Reply)):
            message = {"role": "assistant", "content": reply.content}
        elif isinstance(reply, str):
            message = {"role": "assistant", "content": reply}
        elif isinstance(reply, (dict, list)):
            message = {"role": "assistant", "content": json.dumps(reply, ensure_ascii=False)}
        else:
            self._send_json(500, {"error": {"message": f"scripted model: cannot serve {reply!r}"}})
            return
        self._send_json(
            200,
            {
                "id": f"chatcmpl-{self.server.owner.count()}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 0, "completion_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _hang(self, hang: Hang) -> bool:
        """Wait as *hang* says; True when the reply is off: the server is stopping, or the
        client closed its connection (then the request is counted as cancelled)."""
        deadline = time.monotonic() + hang.seconds
        while True:
            if hang.release is not None and hang.release.wait(0.01):
                return self.server.stopping.is_set()
            if hang.release is None and self.server.stopping.wait(0.01):
                return True
            if self.server.stopping.is_set():
                return True
            if self._client_gone():
                self.server.owner._cancel()
                return True
            if time.monotonic() > deadline:
                return hang.release is not None

    def _client_gone(self) -> bool:
        try:
            readable, _w, _x = select.select([self.connection], [], [], 0)
            if not readable:
                return False
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True

    def _send_json(self, code: int, payload: Any) -> None:
        self._send_bytes(
            code, json.dumps(payload, ensure_ascii=False).encode("utf-8"), "application/json"
        )

    def _send_bytes(self, code: int, data: bytes, content_type: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


def _task_of(body: Any, header: str | None) -> str | None:
    if isinstance(body, dict):
        fmt = body.get("response_format")
        if isinstance(fmt, dict):
            schema = fmt.get("json_schema")
            if isinstance(schema, dict) and isinstance(schema.get("name"), str):
                return schema["name"]
    return header or None


class ScriptedModel:
    """A scripted OpenAI-compatible server; use as a context manager."""

    def __init__(self, *, dialect: Dialect | None = None, slots: int = 0) -> None:
        self.dialect = dialect
        self._slots: Any = threading.Semaphore(slots) if slots > 0 else contextlib.nullcontext()
        self._cancelled = 0
        self._lock = threading.Lock()
        self._scripts: dict[str, list[Any]] = {}
        self._requests: list[Recorded] = []
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self.url = ""

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> ScriptedModel:
        if self._server is not None:
            return self
        self._server = _Server(self)
        host, port = self._server.server_address[:2]
        self.url = f"http://{host}:{port}/v1"
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"scripted-model-{port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, thread = self._server, self._thread
        if server is None:
            return
        server.stopping.set()
        server.shutdown()
        server.drop_connections()
        server.server_close()
        if thread is not None:
            thread.join(timeout=2)
        self._server = None
        self._thread = None

    def __enter__(self) -> ScriptedModel:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting -------------------------------------------------------------------------

    def script(self, task: str, *replies: Any) -> None:
        """Replace ``task``'s script: serve ``replies`` in order, the last one forever."""
        if not replies:
            raise ValueError("script() needs at least one reply")
        with self._lock:
            self._scripts[task] = list(replies)

    def reset(self) -> None:
        """Forget every script and every recorded request."""
        with self._lock:
            self._scripts.clear()
            self._requests.clear()

    @property
    def requests(self) -> list[Recorded]:
        with self._lock:
            return list(self._requests)

    def requests_for(self, task: str) -> list[Recorded]:
        with self._lock:
            return [r for r in self._requests if r.task == task]

    def last(self, task: str | None = None) -> Recorded:
        found = self.requests if task is None else self.requests_for(task)
        if not found:
            raise AssertionError(f"scripted model received no request for task {task!r}")
        return found[-1]

    def count(self, task: str | None = None) -> int:
        with self._lock:
            if task is None:
                return len(self._requests)
            return sum(1 for r in self._requests if r.task == task)

    def spec(self, model: str = "scripted", **overrides: Any):
        """A ``ModelSpec`` pointing at this server (short timeout unless overridden)."""
        from kura_core.llm import ModelSpec

        overrides.setdefault("timeout", 5.0)
        return ModelSpec(url=self.url, model=model, **overrides)

    @property
    def cancelled(self) -> int:
        """How many requests ended because their client closed the connection while waiting."""
        with self._lock:
            return self._cancelled

    # -- used by the handler ---------------------------------------------------------------

    def _cancel(self) -> None:
        with self._lock:
            self._cancelled += 1

    def _remember(self, recorded: Recorded) -> None:
        with self._lock:
            self._requests.append(recorded)

    def _next(self, task: str | None, recorded: Recorded, *, fallback: bool = True) -> Any:
        with self._lock:
            queue = self._scripts.get(task) if task is not None else None
            if queue is None and fallback:
                queue = self._scripts.get(FALLBACK_TASK)
            if not queue:
                return None
            return queue.pop(0) if len(queue) > 1 else queue[0]
