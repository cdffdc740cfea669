"""Fake model APIs the real agent CLIs talk to, on a real loopback socket.

One server answers the four dialects the agents speak: Anthropic Messages (Claude Code),
OpenAI Responses (Codex), OpenAI Chat Completions (opencode) and Gemini generateContent
(Gemini CLI), streamed or not, plus their token-counting calls. Every request is kept, in
order, so a test can read exactly what an agent sent to its model. The reply is always the
same short text; Gemini CLI's router asks for a JSON object of a given schema first, and
gets one of that shape.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPLY = "Noted."


def _sse(events: list[tuple[str | None, dict[str, Any] | str]]) -> bytes:
    out = []
    for name, data in events:
        body = data if isinstance(data, str) else json.dumps(data)
        out.append((f"event: {name}\n" if name else "") + f"data: {body}\n\n")
    return "".join(out).encode()


def anthropic_stream(model: str) -> bytes:
    msg = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    return _sse(
        [
            ("message_start", {"type": "message_start", "message": msg}),
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": REPLY},
                },
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 2},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
    )


def anthropic_json(model: str) -> dict[str, Any]:
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": REPLY}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 2},
    }


def responses_stream(model: str) -> bytes:
    item = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": REPLY, "annotations": []}],
    }
    resp = {
        "id": "resp_fake",
        "object": "response",
        "model": model,
        "status": "in_progress",
        "output": [],
    }
    done = {
        **resp,
        "status": "completed",
        "output": [item],
        "usage": {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12},
    }
    part = {"type": "output_text", "text": "", "annotations": []}
    return _sse(
        [
            ("response.created", {"type": "response.created", "response": resp}),
            (
                "response.output_item.added",
                {
                    "type": "response.output_item.added",
                    "output_index": 0,
                    "item": {**item, "content": [], "status": "in_progress"},
                },
            ),
            (
                "response.content_part.added",
                {
                    "type": "response.content_part.added",
                    "item_id": "msg_fake",
                    "output_index": 0,
                    "content_index": 0,
                    "part": part,
                },
            ),
            (
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "item_id": "msg_fake",
                    "output_index": 0,
                    "content_index": 0,
                    "delta": REPLY,
                },
            ),
            (
                "response.output_text.done",
                {
                    "type": "response.output_text.done",
                    "item_id": "msg_fake",
                    "output_index": 0,
                    "content_index": 0,
                    "text": REPLY,
                },
            ),
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": 0, "item": item},
            ),
            ("response.completed", {"type": "response.completed", "response": done}),
        ]
    )


def chat_stream(model: str) -> bytes:
    def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    usage = chunk({}, None)
    usage["choices"] = []
    usage["usage"] = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
    return _sse(
        [
            (None, chunk({"role": "assistant", "content": ""}, None)),
            (None, chunk({"content": REPLY}, None)),
            (None, chunk({}, "stop")),
            (None, usage),
            (None, "[DONE]"),
        ]
    )


def chat_json(model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": REPLY},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
    }


def from_schema(schema: Any) -> Any:
    """The smallest value of the shape a JSON schema asks for."""
    if not isinstance(schema, dict):
        return "x"
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        props = schema.get("properties") or {}
        return {k: from_schema(v) for k, v in props.items()}
    if kind == "array":
        return [from_schema(schema.get("items"))]
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return False
    return "flash"


def gemini_reply(body: dict[str, Any]) -> dict[str, Any]:
    gen = body.get("generationConfig") or body.get("generation_config") or {}
    schema = gen.get("responseJsonSchema") or gen.get("responseSchema")
    text = json.dumps(from_schema(schema)) if schema else REPLY
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": text}]},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12},
        "modelVersion": "fake",
    }


class AgentApis:
    """``with AgentApis() as api:`` — ``api.url`` is the base URL; ``api.requests`` the log."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a: Any) -> None:
                pass

            def do_GET(self) -> None:
                outer.record(self, {})
                self.reply_json({"data": [], "models": []})

            def do_POST(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                outer.record(self, body)
                outer.answer(self, body)

            def reply_json(self, obj: Any) -> None:
                data = json.dumps(obj).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def reply_sse(self, data: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def record(self, h: BaseHTTPRequestHandler, body: Any) -> None:
        with self.lock:
            self.requests.append({"path": h.path, "body": body})

    def clear(self) -> None:
        with self.lock:
            self.requests.clear()

    def sent(self, marker: str) -> list[dict[str, Any]]:
        """The model requests (not token counts) whose body holds *marker*."""
        with self.lock:
            return [r for r in self.requests if marker in json.dumps(r["body"], ensure_ascii=False)]

    def answer(self, h: Any, body: dict[str, Any]) -> None:
        path = h.path.split("?", 1)[0]
        model = str(body.get("model", "fake-model"))
        if path.endswith("/count_tokens"):
            h.reply_json({"input_tokens": 10})
        elif path.endswith("/messages"):
            if body.get("stream"):
                h.reply_sse(anthropic_stream(model))
            else:
                h.reply_json(anthropic_json(model))
        elif path.endswith("/responses"):
            h.reply_sse(responses_stream(model))
        elif path.endswith("/chat/completions"):
            if body.get("stream"):
                h.reply_sse(chat_stream(model))
            else:
                h.reply_json(chat_json(model))
        elif path.endswith(":countTokens"):
            h.reply_json({"totalTokens": 10})
        elif path.endswith(":streamGenerateContent"):
            h.reply_sse(_sse([(None, gemini_reply(body))]))
        elif path.endswith(":generateContent"):
            h.reply_json(gemini_reply(body))
        else:
            h.reply_json({})

    def __enter__(self) -> AgentApis:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
