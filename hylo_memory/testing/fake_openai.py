"""A fake OpenAI-compatible HTTP server for tests: ``FakeOpenAI``, put together from one module per thing it fakes.

It is a real HTTP server on 127.0.0.1, so the real ``openai`` client can be pointed at it::

    with FakeOpenAI() as fake:
        fake.enqueue(reply('{"facts": []}'), error(429, "slow down", headers={"Retry-After": "1"}))
        client = openai.OpenAI(base_url=fake.base_url, api_key="test-key", max_retries=0)
        ...
        assert fake.chat_requests[0].body["model"] == "gpt-test"

or through the pytest fixture ``fake_openai`` (``hylo_memory.testing.fixtures``, registered
once by ``tests/conftest.py``).

The parts, each documented where it lives:

- ``fake_chat``: POST /v1/chat/completions, and the order in which its answer is chosen (``when`` rules, the
  ``enqueue`` script, ``handler``, ``default_content``);
- ``fake_embeddings``: POST /v1/embeddings (``enqueue_embeddings``, the fake's vectors, ``embedded``);
- ``fake_probes``: what the server says of itself (GET /v1/models; GET /props given ``context_tokens``, whose
  refusals of a prompt too long are in ``fake_context``);
- ``fake_replies`` describes the answers (``reply``, ``error``, ``delay``, ``raw``, ...); ``fake_faults`` sends
  the errors, delays and malformed bodies;
- ``fake_requests``: the request log (``requests``, ``max_in_flight``); ``fake_server``: the HTTP plumbing.

``latency`` seconds are added to every request.  Every request records when it arrived (``at``).

- ``fake_batches``: the Batch API's /v1/files and /v1/batches (``batches``, ``batch_delay``, ``batch_expire``,
  ``lose_batch_creation``, ``garble_batch_creation``, ``batch_answer_ids``, ``cancel_batch``, ``batch_status``,
  ``batch_lines``), each request of a batch answered by the chat endpoint's logic.

A new endpoint is a module like ``fake_embeddings`` -- its own script, its answer, its fallback after a delay --
joined to ``FakeOpenAI._respond``'s routes, with its programming and inspection methods here.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from typing import Any, Literal

from .fake_batches import Batches, is_batch_path, settled
from .fake_chat import CHAT_PATHS, ChatCompletions, completion
from .fake_context import SERVERS, props, refusal  # noqa: F401 - props, refusal: importable here as before the split
from .fake_embeddings import EMBEDDING_PATHS, Embeddings, embedding_of, texts_of
from .fake_faults import fault, settle
from .fake_prefix_cache import PrefixCache
from .fake_probes import probe
from .fake_replies import (  # noqa: F401 - those unused here stay importable here, as before the split
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
from .fake_requests import RecordedRequest, RequestLog
from .fake_server import LocalServer

__all__ = ["FakeOpenAI", "RecordedRequest", "embedding_of"]


class FakeOpenAI(LocalServer):
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
        cache_prefixes: int | None = None,
        batches: bool = True,
        batch_delay: float = 0.0,
        batch_expire: bool = False,
        lose_batch_creation: bool = False,
        garble_batch_creation: Literal["", "created", "not created"] = "",
        batch_answer_ids: Callable[[str], str] | None = None,
    ) -> None:
        super().__init__()
        self.handler = handler
        self.latency = latency
        self.default_content = default_content
        self.reject_json_schema = reject_json_schema
        self.models = tuple(models)
        self.embedding_dimensions = embedding_dimensions
        if server not in SERVERS:
            raise ValueError(f"FakeOpenAI: server must be one of {SERVERS}")
        self.context_tokens, self.server = context_tokens, server  # a small context (fake_context)
        self._lock = threading.Lock()  # one for every part: `reset` forgets all at once
        self._log = RequestLog(self._lock)
        self._chat = ChatCompletions(self._lock)
        self._embeddings = Embeddings(self._lock)
        # Prompt caching from this many tokens on (OpenAI: 1,024), reported in usage; None: no caching.
        self._prefixes = None if cache_prefixes is None else PrefixCache(cache_prefixes)
        self._ids = itertools.count(1)
        # The Batch API (fake_batches): whether it exists, how long a batch takes, whether it expires first.
        self.batches, self.batch_delay, self.batch_expire = batches, batch_delay, batch_expire
        self.lose_batch_creation, self.garble_batch_creation = lose_batch_creation, garble_batch_creation
        self.batch_answer_ids = batch_answer_ids  # an output file's lines under other ids than their requests'
        self._batches = Batches(self._lock)

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    # -- programming ------------------------------------------------------- #

    def enqueue(self, *responses: Response | str) -> FakeOpenAI:
        """Append scripted responses (a ``str`` means ``reply(str)``)."""
        self._chat.enqueue(responses)
        return self

    script = enqueue

    def enqueue_embeddings(self, *responses: Response) -> FakeOpenAI:
        """Append scripted answers to embedding requests (an error, a delay, a raw body), first in, first out."""
        self._embeddings.enqueue(responses)
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
        self._chat.when(match, response, times)
        return self

    def reset(self) -> None:
        """Forget requests, script and rules (handler and options are kept)."""
        with self._lock:
            self._log.clear()
            self._chat.clear()
            if self._prefixes is not None:
                self._prefixes.clear()

    # -- inspection -------------------------------------------------------- #

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far (a snapshot, arrival order)."""
        return self._log.snapshot()

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return self._log.to("/chat/completions")

    @property
    def embedding_requests(self) -> list[RecordedRequest]:
        return self._log.to("/embeddings")

    @property
    def embedded(self) -> list[str]:
        """Every text sent to be embedded, in the order sent."""
        return texts_of(self.embedding_requests)

    @property
    def batch_lines(self) -> list[Body]:
        """Every chat request a batch carried, in the order answered."""
        with self._lock:
            return list(self._batches.lines)

    @property
    def batch_ids(self) -> list[str]:
        with self._lock:
            return list(self._batches.batches)

    def batch_status(self, batch_id: str) -> str:
        """What the server says of a batch: `in_progress`, `completed`, `cancelled`, `expired`."""
        with self._lock:
            return str(self._batches.batches[batch_id]["status"])

    def cancel_batch(self, batch_id: str) -> None:
        """Cancel a batch, as its owner may from the provider's dashboard: nothing of it is answered."""
        self._batches.cancel(batch_id)

    @property
    def pending(self) -> int:
        """Scripted responses not yet consumed."""
        return self._chat.pending

    @property
    def max_in_flight(self) -> int:
        """The highest number of requests being served at once."""
        return self._log.max_in_flight

    # -- answering (called from the connections' threads) ------------------ #

    def _exchange(self, method: str, path: str, headers: dict[str, str], body: Any,
                  raw_body: bytes) -> tuple[int, dict[str, str], bytes]:
        record = self._log.record(method, path, headers, body, raw_body)
        self._log.enter()
        try:
            self._wait(self.latency)
            response = settle(self._respond(record), self._wait, lambda: self._fallback(record))
            return self._render(response, record)
        finally:
            self._log.leave()

    def _respond(self, record: RecordedRequest) -> Response | Body:
        """The routes: which part answers a request, by its path; a new endpoint's paths join here."""
        path = record.path.rstrip("/")
        said = probe(record.method, path, self.models, self.context_tokens, self.server)
        if said is not None:
            return said
        if path in EMBEDDING_PATHS:
            return self._embeddings.answer(record, self.embedding_dimensions)
        if path in CHAT_PATHS:
            return self._chat.answer(record, self)
        if is_batch_path(path):
            return self._batches.answer(record, self)
        return error(404, f"Unknown request URL: {record.method} {record.path}", code="unknown_url")

    def _fallback(self, record: RecordedRequest) -> Response | Body:
        """What a ``delay(..., then=None)`` ends with: vectors for an embedding request, else the chat's fallback."""
        if record.path.rstrip("/") in EMBEDDING_PATHS and isinstance(record.body, dict):
            return Embeddings.fallback(record.body, self.embedding_dimensions)
        return ChatCompletions.fallback(record, self)

    def _chat_answer(self, record: RecordedRequest) -> tuple[int, dict[str, str], bytes]:
        """A batch's request answered as the chat endpoint answers it (status, headers, body)."""
        response = settled(self._chat.answer(record, self))
        if isinstance(response, Delay):
            response = ChatCompletions.fallback(record, self)
        return self._render(response, record)

    def _render(self, response: Response | Body, record: RecordedRequest) -> tuple[int, dict[str, str], bytes]:
        n = next(self._ids)
        headers = {"Content-Type": "application/json", "x-request-id": f"req_fake_{n}"}
        if isinstance(response, (Error, Raw)):
            return fault(response, headers)
        if isinstance(response, dict):
            return 200, headers, json.dumps(response).encode()
        assert isinstance(response, Reply), response
        cached = 0
        if self._prefixes is not None:
            with self._lock:
                cached = self._prefixes.cached_tokens(record.body)
        return completion(response, record, n, headers, cached)
