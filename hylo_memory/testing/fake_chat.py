"""The fake OpenAI server's chat completions endpoint (POST /v1/chat/completions): the extractor's one model call.

A test scripts what the model answers; this decides which answer a request gets, first match wins:

1. the request itself is wrong: not a POST (405), no JSON object (400), ``stream: true`` (400; unsupported);
2. ``reject_json_schema`` (a status code: 400, 422 or 500) and the body asks for ``response_format``
   ``json_schema`` -> the error a server without structured outputs sends.  Does not consume the script;
3. ``context_tokens`` and a prompt too long for it -> the local server's own 400 (``fake_context``);
4. ``when(...)`` rules whose predicate matches the body -- for concurrent requests, decide by prompt content
   rather than by arrival order;
5. the scripted queue (``enqueue`` / ``script``), first in, first out;
6. ``handler(body)`` if set; it may return ``None`` to fall through;
7. ``reply(default_content)``.

A rule or handler may answer with a response (``fake_replies``), a plain ``str`` (same as ``reply(str)``) or a
``dict`` (sent verbatim as a 200 JSON body).  A ``Reply`` goes out as the API's ``chat.completion``, usage
estimated where the test gave none, so the client parses it as it parses the real thing.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from .fake_context import refusal
from .fake_replies import (
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
from .fake_requests import RecordedRequest

__all__ = ["CHAT_PATHS", "ChatCompletions", "ChatOptions", "completion"]

CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")


class ChatOptions(Protocol):
    """The fake's options the endpoint reads at each request (a test may change them between requests)."""

    handler: Handler | None
    default_content: str
    reject_json_schema: int | None
    context_tokens: int | None
    server: str


@dataclass
class _Rule:
    predicate: Callable[[Body], bool]
    response: Response | Callable[[Body], HandlerResult]
    times: int | None  # None: unlimited
    hits: int = 0


class ChatCompletions:
    """The chat script (rules, then the queue) and the choice of an answer; guarded by the fake's one lock."""

    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock
        self._queue: deque[Response] = deque()
        self._rules: list[_Rule] = []

    def enqueue(self, responses: tuple[Response | str, ...]) -> None:
        with self._lock:
            self._queue.extend(reply(r) if isinstance(r, str) else r for r in responses)

    def when(self, match: str | Callable[[Body], bool], response: Response | str | Callable[[Body], HandlerResult],
             times: int | None) -> None:
        if isinstance(match, str):
            needle = match
            predicate: Callable[[Body], bool] = lambda body: needle in prompt_text(body)  # noqa: E731
        else:
            predicate = match
        if isinstance(response, str):
            response = reply(response)
        with self._lock:
            self._rules.append(_Rule(predicate, response, times))

    def clear(self) -> None:
        """Forget the script and the rules; the caller holds the lock (``reset`` clears all at once)."""
        self._queue.clear()
        self._rules.clear()

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def answer(self, record: RecordedRequest, options: ChatOptions) -> Response | Body:
        """What a request to the endpoint is answered (the order in the module docs)."""
        if record.method != "POST":
            return error(405, f"Method {record.method} not allowed", type="invalid_request_error")
        body = record.body
        if not isinstance(body, dict):
            return error(400, "We could not parse the JSON body of your request.", type="invalid_request_error")
        if body.get("stream"):
            return error(400, "FakeOpenAI does not support stream=true", param="stream")
        if options.reject_json_schema and wants_json_schema(body):
            return json_schema_unsupported(options.reject_json_schema)
        if options.context_tokens and (refused := refusal(body, options.context_tokens, options.server)):
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
            return self.fallback(record, options)
        return _coerce(chosen)

    @staticmethod
    def fallback(record: RecordedRequest, options: ChatOptions) -> Response | Body:
        """Handler, then the default reply (used after the script is empty and after a ``delay(..., then=None)``)."""
        handler = options.handler
        if handler is not None and isinstance(record.body, dict):
            result = handler(record.body)
            if result is not None:
                return _coerce(result)
        return reply(options.default_content)


def _coerce(result: HandlerResult) -> Response | Body:
    if isinstance(result, str):
        return reply(result)
    if isinstance(result, (Reply, Error, Delay, Raw, dict)):
        return result
    raise TypeError(f"FakeOpenAI: unsupported response {result!r}")


def completion(response: Reply, record: RecordedRequest, n: int, headers: dict[str, str],
               cached: int = 0) -> tuple[int, dict[str, str], bytes]:
    """The 200 ``chat.completion`` a ``Reply`` is sent as (``n``: the fake's count, for its id; ``cached``: the
    prompt tokens a provider's cache served, reported as OpenAI does)."""
    headers.update(response.headers or {})
    body = record.body if isinstance(record.body, dict) else {}
    limit = body.get("max_tokens")
    if response.usage is None and isinstance(limit, int) and len(response.content) > limit * 4:
        # A server stops the model at max_tokens (four characters a token here): the reply cut, `length`.
        response = replace(response, content=response.content[:limit * 4], finish_reason="length")
    usage: dict[str, Any] = dict(response.usage or {})
    if cached:
        usage.setdefault("prompt_tokens_details", {"cached_tokens": cached})
    usage.setdefault("prompt_tokens", len(json.dumps(body.get("messages", []))) // 4)
    usage.setdefault("completion_tokens", len(response.content) // 4)
    usage.setdefault("total_tokens", usage["prompt_tokens"] + usage["completion_tokens"])
    chat_completion = {
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
    return 200, headers, json.dumps(chat_completion).encode()
