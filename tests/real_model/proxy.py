"""A recording pass-through between kura and the real model server.

Every exchange is forwarded unchanged and kept (task, request body, status, reply body,
seconds), so the real-model tests can check what the model actually answered against what
kura did with it: what a judge approved, what a scribe was told on a retry.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Exchange:
    task: str
    request: Any
    status: int
    reply: Any
    seconds: float

    @property
    def content(self) -> str:
        """The assistant's text, '' when there is none."""
        try:
            return str(self.reply["choices"][0]["message"]["content"] or "")
        except (KeyError, IndexError, TypeError):
            return ""

    @property
    def messages(self) -> list[dict]:
        return list((self.request or {}).get("messages") or [])


class RecordingProxy:
    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.prefix = parts.path.rstrip("/")  # e.g. /v1
        self.exchanges: list[Exchange] = []
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a: Any) -> None:
                pass

            def do_GET(self) -> None:
                owner._forward(self, "GET")

            def do_POST(self) -> None:
                owner._forward(self, "POST")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{self.prefix}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def _forward(self, h: BaseHTTPRequestHandler, method: str) -> None:
        n = int(h.headers.get("content-length") or 0)
        raw = h.rfile.read(n) if n else None
        task = h.headers.get("x-kura-task") or ""
        t0 = time.monotonic()
        conn = http.client.HTTPConnection(self.host, self.port, timeout=3600)
        try:
            headers = {"content-type": "application/json"}
            conn.request(method, h.path, body=raw, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            status = resp.status
        except OSError as exc:
            data, status = json.dumps({"error": str(exc)}).encode(), 502
        finally:
            conn.close()
        seconds = time.monotonic() - t0
        try:
            reply = json.loads(data)
        except ValueError:
            reply = data.decode("utf-8", "replace")
        with self.lock:
            body = json.loads(raw) if raw else None
            self.exchanges.append(Exchange(task, body, status, reply, seconds))
        try:
            h.send_response(status)
            h.send_header("content-type", "application/json")
            h.send_header("content-length", str(len(data)))
            h.end_headers()
            h.wfile.write(data)
        except OSError:
            pass  # kura gave up on this call and closed the connection

    def of(self, task: str) -> list[Exchange]:
        with self.lock:
            return [e for e in self.exchanges if e.task == task]

    def __enter__(self) -> RecordingProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
