"""The instant thinker: a loopback OpenAI-compatible responder that measures kura, not a model.

It answers ``kura_pick`` at once with the first few slugs of the index it was sent, and
keeps every prompt it was sent (the messages, in order of arrival), so the benchmarks can
read exactly what a real model server would have been asked to prefill. With ``nonsense``
set it names a slug that is in no store, so recall falls back to words on purpose. With
``oracle`` set it names the memory whose title the question holds (the longest such title),
or nothing: the thinker a direct question deserves, for the fastpath's agreement figure.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_SLUG_IN_INDEX = re.compile(r"\]\(([a-z0-9-]+)\.md\)")
_LINE_IN_INDEX = re.compile(r"^- \[([^\]\n]+)\]\(([a-z0-9-]+)\.md\)", re.M)
_QUESTION = re.compile(r"Question: (.*?)\n\nName at most", re.S)


def _holds(text: str, part: str) -> bool:
    """Whether *part* occurs in *text* with no letter or digit of a longer word on either side."""
    at = text.find(part)
    while at >= 0:
        before = text[at - 1 : at]
        after = text[at + len(part) : at + len(part) + 1]
        if not (before.isascii() and before.isalnum()) and not (
            after.isascii() and after.isalnum()
        ):
            return True
        at = text.find(part, at + 1)
    return False


def _oracle(messages: list[dict[str, Any]]) -> list[str]:
    """The slug whose title the question holds (the longest such), as a list."""
    text = "\n".join(str(m.get("content", "")) for m in messages)
    asked = _QUESTION.search(text)
    if not asked:
        return []
    q = f" {' '.join(asked.group(1).casefold().split())} "
    best = ""
    slug = ""
    for title, s in _LINE_IN_INDEX.findall(text):
        t = " ".join(title.casefold().split())
        if len(t) > len(best) and _holds(q, t):
            best, slug = t, s
    return [slug] if slug else []


class InstantThinker:
    """Use as a context manager; ``url`` is the base URL for a model spec."""

    def __init__(self, *, keep_prompts: bool = False) -> None:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *a: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._send({"data": [{"id": "instant"}]})

            def do_POST(self) -> None:
                n = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(n) or b"{}")
                messages = body.get("messages") or [{}]
                system = messages[0].get("content", "")
                if owner.nonsense:
                    slugs = ["no-such-memory-anywhere"]
                elif owner.oracle:
                    slugs = _oracle(messages)
                else:
                    slugs = _SLUG_IN_INDEX.findall(system)[:3]
                with owner.lock:
                    owner.calls += 1
                    if owner.keep_prompts:
                        owner.prompts.append(messages)
                self._send(
                    {
                        "choices": [
                            {
                                "message": {
                                    "role": "assistant",
                                    "content": json.dumps({"slugs": slugs}),
                                }
                            }
                        ]
                    }
                )

            def _send(self, obj: Any) -> None:
                data = json.dumps(obj).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.lock = threading.Lock()
        self.calls = 0
        self.keep_prompts = keep_prompts
        self.nonsense = False
        self.oracle = False
        self.prompts: list[list[dict[str, Any]]] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def take_prompts(self) -> list[list[dict[str, Any]]]:
        """The prompts received since the last call, oldest first."""
        with self.lock:
            out, self.prompts = self.prompts, []
        return out

    def __enter__(self) -> InstantThinker:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
