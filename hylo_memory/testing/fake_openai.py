"""A fake OpenAI-compatible HTTP server for tests.

It is a real HTTP server (stdlib ``ThreadingHTTPServer`` on 127.0.0.1, ephemeral
port, one thread per connection), so the real ``openai`` client can be pointed
at it::

    with FakeOpenAI() as fake:
        fake.enqueue(reply('{"facts": []}'), error(429, "slow down", headers={"Retry-After": "1"}))
        client = openai.OpenAI(base_url=fake.base_url, api_key="test-key", max_retries=0)
        ...
        assert fake.chat_requests[0].body["model"] == "gpt-test"

or through the pytest fixture ``fake_openai`` (``hylo_memory.testing.fixtures``, registered
once by ``tests/conftest.py``).

How a POST /v1/chat/completions request is answered, first match wins:

1. ``reject_json_schema`` (a status code: 400, 422 or 500) and the body carries
   ``response_format: {"type": "json_schema", ...}`` -> an error naming
   ``response_format``.  Does not consume the script.
2. ``when(...)`` rules whose predicate matches the body (for concurrent requests:
   decide by prompt content rather than by arrival order).
3. The scripted queue (``enqueue`` / ``script``), first in, first out.
4. ``handler(body)`` if set; it may return ``None`` to fall through.
5. ``reply(default_content)``.

Responses are built with ``reply``, ``error``, ``delay``, ``raw`` (and the
shortcuts ``rate_limited`` and ``json_schema_unsupported``).  A handler or rule
may also return a plain ``str`` (same as ``reply(str)``) or a ``dict`` (sent
verbatim as a 200 JSON body).

``context_tokens`` (with ``server``, see ``fake_context``) gives the server a small context: ``GET /props``
says it, and a request too long for it is refused with the 400 that server sends (before the script).
Every request records when it arrived (``at``, ``time.monotonic()``).

``latency`` seconds are added to every request.  Delays wake up early when the
server stops, so a test whose client timed out does not slow teardown down.

POST /v1/embeddings answers from its own script (``enqueue_embeddings``: errors,
delays, raw bodies; ``delay(s)`` then vectors), else with vectors: a hashed bag of
words of ``embedding_dimensions`` (each word, casefolded, or each CJK character, adds
a fixed ±1 pattern), normalised, so texts sharing words are near and the same text
gives the same vector in every process.  ``encoding_format: "base64"`` is honoured.
``embedding_requests`` lists them, ``embedded`` every text embedded, in order::

    fake.enqueue_embeddings(delay(30))          # the next request hangs
    fake.enqueue_embeddings(error(500, "down"))  # the next one fails
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import math
import re
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .fake_context import SERVERS, props, refusal
from .fake_replies import (
    ERROR_TYPES,
    Body,
    Delay,
    Error,
    Handler,
    HandlerResult,
    Raw,
    Reply,
    Response,
    error,
    json_schema_unsupported,
    prompt_text,
    reply,
    wants_json_schema,
)

__all__ = ["FakeOpenAI", "RecordedRequest", "embedding_of"]


# --------------------------------------------------------------------------- #
# Recording
# --------------------------------------------------------------------------- #


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any  # parsed JSON, or None when absent / not JSON
    raw_body: bytes = b""
    index: int = 0  # arrival order, from 0
    at: float = 0.0  # time.monotonic() when it arrived: how long a client waited, read from the server's side

    @property
    def prompt(self) -> str:
        return prompt_text(self.body) if isinstance(self.body, dict) else ""


@dataclass
class _Rule:
    predicate: Callable[[Body], bool]
    response: Response | Callable[[Body], HandlerResult]
    times: int | None  # None: unlimited
    hits: int = 0


# --------------------------------------------------------------------------- #
# HTTP plumbing
# --------------------------------------------------------------------------- #


class _Stopped(Exception):
    """The server stopped while a request was waiting."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # we join them ourselves, with a bound
    block_on_close = False
    allow_reuse_address = False

    def __init__(self, fake: FakeOpenAI) -> None:
        self.fake = fake
        self.conn_lock = threading.Lock()
        self.connections: set[socket.socket] = set()
        self.handler_threads: set[threading.Thread] = set()
        super().__init__(("127.0.0.1", 0), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:  # one thread per connection
        with self.conn_lock:
            self.connections.add(request)
            self.handler_threads = {t for t in self.handler_threads if t.is_alive()}
            t = threading.Thread(
                target=self.process_request_thread,
                args=(request, client_address),
                name=f"fake-openai-conn-{client_address[1]}",
                daemon=True,
            )
            self.handler_threads.add(t)
        t.start()

    def shutdown_request(self, request: Any) -> None:
        with self.conn_lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients hanging up (timeouts, teardown) are expected; stay quiet.
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like a real API server
    server_version = "FakeOpenAI/1.0"
    timeout = 60  # idle keep-alive connections give up eventually
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence stderr
        pass

    def do_GET(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    def do_PUT(self) -> None:
        self._dispatch()

    def do_DELETE(self) -> None:
        self._dispatch()

    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _dispatch(self) -> None:
        fake = self.server.fake
        raw_body = self._read_body()
        try:
            body = json.loads(raw_body) if raw_body else None
        except ValueError:
            body = None
        record = fake._record(
            self.command,
            self.path.split("?", 1)[0],
            {k.lower(): v for k, v in self.headers.items()},
            body,
            raw_body,
        )
        fake._enter()
        try:
            fake._sleep(fake.latency)
            response = fake._respond(record, raw_body)
            while isinstance(response, Delay):
                fake._sleep(response.seconds)
                response = response.then if response.then is not None else fake._fallback(record)
            status, headers, payload = fake._render(response, record)
        except _Stopped:
            self.close_connection = True
            return
        finally:
            fake._leave()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()


# --------------------------------------------------------------------------- #
# The fake
# --------------------------------------------------------------------------- #


class FakeOpenAI:
    """A programmable OpenAI-compatible server on 127.0.0.1 (see module docs)."""

    def __init__(
        self,
        *,
        handler: Handler | None = None,
        latency: float = 0.0,
        default_content: str = "{}",
        reject_json_schema: int | None = None,
        models: tuple[str, ...] = ("gpt-4o-mini", "gpt-4o", "fake-model"),
        embedding_dimensions: int = 64,
        context_tokens: int | None = None,
        server: str = "llama.cpp",
    ) -> None:
        self.handler = handler
        self.latency = latency
        self.default_content = default_content
        self.reject_json_schema = reject_json_schema
        self.models = tuple(models)
        self.embedding_dimensions = embedding_dimensions
        if server not in SERVERS:
            raise ValueError(f"FakeOpenAI: server must be one of {SERVERS}")
        self.context_tokens, self.server = context_tokens, server  # a small context (fake_context)
        self._embedding_queue: deque[Response] = deque()
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._queue: deque[Response] = deque()
        self._rules: list[_Rule] = []
        self._ids = itertools.count(1)
        self._in_flight = 0
        self.max_in_flight = 0  # highest number of requests being served at once
        self._stop = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle --------------------------------------------------------- #

    def start(self) -> FakeOpenAI:
        if self._server is not None:
            raise RuntimeError("FakeOpenAI already started")
        self._stop.clear()
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-openai-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def close(self) -> None:
        server, thread = self._server, self._thread
        if server is None:
            return
        self._stop.set()  # wake requests sleeping in latency / delay
        server.shutdown()  # stop accepting
        if thread is not None:
            thread.join()
        with server.conn_lock:
            connections = list(server.connections)
            threads = list(server.handler_threads)
        for conn in connections:  # unblock idle keep-alive readers
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for t in threads:
            t.join(timeout=5)
        server.server_close()
        self._server = self._thread = None

    stop = close

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- addresses --------------------------------------------------------- #

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("FakeOpenAI is not running")
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    # -- programming ------------------------------------------------------- #

    def enqueue(self, *responses: Response | str) -> FakeOpenAI:
        """Append scripted responses (a ``str`` means ``reply(str)``)."""
        with self._lock:
            self._queue.extend(reply(r) if isinstance(r, str) else r for r in responses)
        return self

    script = enqueue

    def enqueue_embeddings(self, *responses: Response) -> FakeOpenAI:
        """Append scripted answers to embedding requests (an error, a delay, a raw body), first in, first out."""
        with self._lock:
            self._embedding_queue.extend(responses)
        return self

    def when(
        self,
        match: str | Callable[[Body], bool],
        response: Response | str | Callable[[Body], HandlerResult],
        *,
        times: int | None = None,
    ) -> FakeOpenAI:
        """Answer requests whose prompt contains ``match`` (or for which
        ``match(body)`` is true) with ``response`` -- a response, a ``str``
        content, or a callable ``body -> response``.  ``times=None``: forever;
        otherwise the rule retires after that many hits.  Rules are checked in
        the order added, before the script."""
        if isinstance(match, str):
            needle = match
            predicate: Callable[[Body], bool] = lambda body: needle in prompt_text(body)  # noqa: E731
        else:
            predicate = match
        if isinstance(response, str):
            response = reply(response)
        with self._lock:
            self._rules.append(_Rule(predicate, response, times))
        return self

    def reset(self) -> None:
        """Forget requests, script and rules (handler and options are kept)."""
        with self._lock:
            self._requests.clear()
            self._queue.clear()
            self._rules.clear()
            self.max_in_flight = 0

    # -- inspection -------------------------------------------------------- #

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far (a snapshot, arrival order)."""
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.rstrip("/").endswith("/chat/completions")]

    @property
    def embedding_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.rstrip("/").endswith("/embeddings")]

    @property
    def embedded(self) -> list[str]:
        """Every text sent to be embedded, in the order sent."""
        texts: list[str] = []
        for request in self.embedding_requests:
            given = request.body.get("input") if isinstance(request.body, dict) else None
            texts += [given] if isinstance(given, str) else [t for t in given or [] if isinstance(t, str)]
        return texts

    @property
    def pending(self) -> int:
        """Scripted responses not yet consumed."""
        with self._lock:
            return len(self._queue)

    # -- internals (called from handler threads) --------------------------- #

    def _record(self, method: str, path: str, headers: Body, body: Any, raw_body: bytes) -> RecordedRequest:
        with self._lock:
            rec = RecordedRequest(method, path, headers, body, raw_body, len(self._requests), time.monotonic())
            self._requests.append(rec)
            return rec

    def _enter(self) -> None:
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _sleep(self, seconds: float) -> None:
        if seconds and seconds > 0 and self._stop.wait(seconds):
            raise _Stopped
        if self._stop.is_set():
            raise _Stopped

    def _respond(self, record: RecordedRequest, raw_body: bytes) -> Response | Body:
        path = record.path.rstrip("/")
        if record.method == "GET" and path in ("/v1/models", "/models"):
            return {
                "object": "list",
                "data": [
                    {"id": m, "object": "model", "created": 1700000000, "owned_by": "fake-openai"}
                    for m in self.models
                ],
            }
        if record.method == "GET" and path == "/props" and self.context_tokens and self.server == "llama.cpp":
            return props(self.context_tokens)
        if path in ("/v1/embeddings", "/embeddings"):
            return self._embeddings(record)
        if path not in ("/v1/chat/completions", "/chat/completions"):
            return error(404, f"Unknown request URL: {record.method} {record.path}", code="unknown_url")
        if record.method != "POST":
            return error(405, f"Method {record.method} not allowed", type="invalid_request_error")
        body = record.body
        if not isinstance(body, dict):
            return error(400, "We could not parse the JSON body of your request.", type="invalid_request_error")
        if body.get("stream"):
            return error(400, "FakeOpenAI does not support stream=true", param="stream")
        if self.reject_json_schema and wants_json_schema(body):
            return json_schema_unsupported(self.reject_json_schema)
        if self.context_tokens and (refused := refusal(body, self.context_tokens, self.server)):
            return refused
        with self._lock:
            for rule in self._rules:
                if rule.times is not None and rule.hits >= rule.times:
                    continue
                if rule.predicate(body):
                    rule.hits += 1
                    chosen: Any = rule.response
                    break
            else:
                chosen = self._queue.popleft() if self._queue else None
        if callable(chosen):
            chosen = chosen(body)
        if chosen is None:
            return self._fallback(record)
        return self._coerce(chosen)

    def _embeddings(self, record: RecordedRequest) -> Response | Body:
        if record.method != "POST":
            return error(405, f"Method {record.method} not allowed", type="invalid_request_error")
        body = record.body
        if not isinstance(body, dict):
            return error(400, "We could not parse the JSON body of your request.", type="invalid_request_error")
        given = body.get("input")
        texts = [given] if isinstance(given, str) else given
        if not isinstance(texts, list) or not texts or not all(isinstance(t, str) and t for t in texts):
            return error(400, "'input' must be a non-empty string or a list of them", param="input")
        if len(texts) > 2048:
            return error(400, "'input' must have at most 2048 items", param="input")
        with self._lock:
            scripted = self._embedding_queue.popleft() if self._embedding_queue else None
        return scripted if scripted is not None else self._vectors(body, texts)

    def _vectors(self, body: Body, texts: list[str]) -> Body:
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        for index, text in enumerate(texts):
            vector = embedding_of(text, self.embedding_dimensions)
            packed = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
            data.append({"object": "embedding", "index": index, "embedding": packed if as_base64 else vector})
        tokens = sum(len(t) for t in texts) // 4 + len(texts)
        return {"object": "list", "data": data, "model": body.get("model") or "fake-embedding",
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}

    def _fallback(self, record: RecordedRequest) -> Response | Body:
        """Handler, then the default reply (used after the script is empty and
        after a ``delay(..., then=None)``); vectors for an embedding request."""
        if record.path.rstrip("/").endswith("/embeddings") and isinstance(record.body, dict):
            given = record.body.get("input")
            return self._vectors(record.body, [given] if isinstance(given, str) else list(given or []))
        handler = self.handler
        if handler is not None and isinstance(record.body, dict):
            result = handler(record.body)
            if result is not None:
                return self._coerce(result)
        return reply(self.default_content)

    @staticmethod
    def _coerce(result: HandlerResult) -> Response | Body:
        if isinstance(result, str):
            return reply(result)
        if isinstance(result, (Reply, Error, Delay, Raw, dict)):
            return result
        raise TypeError(f"FakeOpenAI: unsupported response {result!r}")

    def _render(self, response: Response | Body, record: RecordedRequest) -> tuple[int, dict[str, str], bytes]:
        n = next(self._ids)
        headers = {"Content-Type": "application/json", "x-request-id": f"req_fake_{n}"}
        if isinstance(response, Raw):
            headers["Content-Type"] = response.content_type
            headers.update(response.headers or {})
            return response.status, headers, response.body
        if isinstance(response, dict):
            return 200, headers, json.dumps(response).encode()
        if isinstance(response, Error):
            headers.update(response.headers or {})
            known = ERROR_TYPES.get(response.status, "invalid_request_error")
            fallback = "server_error" if response.status >= 500 else known
            err_type = response.type or fallback
            payload = {
                "error": {
                    "message": response.message,
                    "type": err_type,
                    "param": response.param,
                    "code": response.code,
                }
            }
            return response.status, headers, json.dumps(payload).encode()
        assert isinstance(response, Reply), response
        headers.update(response.headers or {})
        body = record.body if isinstance(record.body, dict) else {}
        usage = dict(response.usage or {})
        usage.setdefault("prompt_tokens", len(json.dumps(body.get("messages", []))) // 4)
        usage.setdefault("completion_tokens", len(response.content) // 4)
        usage.setdefault("total_tokens", usage["prompt_tokens"] + usage["completion_tokens"])
        completion = {
            "id": f"chatcmpl-fake-{n}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": response.model or body.get("model") or "fake-model",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": response.content, "refusal": None},
                    "logprobs": None,
                    "finish_reason": response.finish_reason,
                }
            ],
            "usage": usage,
            "system_fingerprint": "fp_fake",
        }
        return 200, headers, json.dumps(completion).encode()


_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]|[^\W_]+")


def embedding_of(text: str, dimensions: int = 64) -> list[float]:
    """The fake's vector for `text`: each word (or CJK character) adds its own fixed ±1 pattern; normalised."""
    vector = [0.0] * dimensions
    for token in _TOKEN.findall(text.casefold()):
        digest = hashlib.sha256(token.encode("utf-8")).digest()
        for i in range(4):  # four signed positions a token: distinct words rarely cancel each other out
            slot = int.from_bytes(digest[4 * i:4 * i + 3], "big") % dimensions
            vector[slot] += 1.0 if digest[4 * i + 3] & 1 else -1.0
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm else [0.0] * (dimensions - 1) + [1.0]
