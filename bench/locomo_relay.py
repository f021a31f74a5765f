"""A loopback relay in front of the configured model endpoint: it forwards every request unchanged and counts,
per speaker, the chat requests and the characters of their messages (what `--extractor openai` sends).

Each speaker's vault is given `http://127.0.0.1:PORT/<label>/v1`-style base URL; the label is stripped before
forwarding to the endpoint the person configured (`base_url`, else the OpenAI API).
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote, unquote

from hylo_memory.pipeline.config import load_config

OPENAI_API = "https://api.openai.com/v1"
_SKIP = {"host", "content-length", "connection", "accept-encoding"}


@dataclass
class Relay:
    server: ThreadingHTTPServer
    target: str
    tallies: dict[str, dict[str, int]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def base_url(self, label: str) -> str:
        return f"{self.root}/{quote(label, safe='')}"

    def count(self, label: str, body: bytes) -> None:
        try:
            messages = json.loads(body).get("messages") or []
        except (ValueError, AttributeError):
            return
        chars = sum(len(m.get("content") or "") for m in messages if isinstance(m, dict))
        with self.lock:
            tally = self.tallies.setdefault(label, {"requests": 0, "chars": 0})
            tally["requests"] += 1
            tally["chars"] += chars

    def counts(self) -> dict[str, dict[str, int]]:
        with self.lock:
            return {label: dict(t) for label, t in self.tallies.items()}

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _handler(relay: Relay) -> type[BaseHTTPRequestHandler]:
    class Forward(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
            pass

        def _forward(self) -> None:
            label, _, rest = self.path.lstrip("/").partition("/")
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if rest.endswith("chat/completions") or "chat/completions?" in rest:
                relay.count(unquote(label), body)
            # The SDK joins base URL and path: ".../<label>/chat/completions" forwards to "<target>/chat/completions".
            url = f"{relay.target.rstrip('/')}/{rest}"
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _SKIP}
            request = urllib.request.Request(url, data=body or None, headers=headers, method=self.command)
            try:
                with urllib.request.urlopen(request, timeout=600) as reply:  # noqa: S310 - the configured endpoint
                    self._reply(reply.status, reply.headers.items(), reply.read())
            except urllib.error.HTTPError as exc:
                self._reply(exc.code, exc.headers.items(), exc.read())
            except (urllib.error.URLError, OSError) as exc:
                self._reply(502, [("Content-Type", "text/plain")], f"relay: {exc}".encode())

        def _reply(self, status: int, headers: list[tuple[str, str]], data: bytes) -> None:
            self.send_response(status)
            for key, value in headers:
                if key.lower() not in {"content-length", "transfer-encoding", "connection", "content-encoding"}:
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_DELETE = _forward  # noqa: N815 - http.server's names

    return Forward


def start_relay() -> Relay:
    """A relay on a free loopback port, forwarding to the configured endpoint, serving from a thread."""
    config = load_config()
    target = config.base_url or OPENAI_API
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    relay = Relay(server, target)
    server.RequestHandlerClass = _handler(relay)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return relay
