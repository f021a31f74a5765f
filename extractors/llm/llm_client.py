"""Talking to an OpenAI-compatible server: structured output with fallbacks, retries, usage.

Retries are ours (`llm_retry`), one SDK attempt at a time, so a rejection is seen before any retry.
Servers differ in what they accept. `json_schema` (strict) is asked first; a server that rejects it
(a 4xx, or a 5xx whose body names the format) gets `json_object` with the schema in the prompt, then
plain text, at once and with no retry — decided once per run, not per request. A request refused as
longer than the server's context is `TooLong`, for the extractor to halve.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from enum import Enum
from typing import Any

import openai

from hylo_memory.domain.usage import Usage

from ..clients import async_client
from .batching import estimate_tokens
from .llm_errors import InvalidReply, OutOfTime, ReplyCut, RequestFailed, TokenCeilingReached, TooLong
from .llm_retry import retry_delay, should_retry
from .settings import LLMSettings


class Mode(str, Enum):
    json_schema = "json_schema"
    json_object = "json_object"
    text = "text"


class ChatClient:
    """One run's connection: its structured-output mode, token budget and usage."""

    def __init__(self, settings: LLMSettings, mode: Mode = Mode.json_schema, spent: Usage | None = None,
                 deadline: float | None = None):
        # Local servers need no key, but the SDK insists on one.
        key = settings.api_key.get_secret_value() if settings.api_key else None
        self._secret = hideable(key)
        self.client = async_client(api_key=key or "unused", base_url=settings.base_url,
                                   timeout=settings.timeout, max_retries=0)
        self.settings = settings
        self.request_limit = settings.request_token_budget  # prompt and reply; the extractor fits it to the context
        self.reply_tokens = settings.max_reply_tokens  # the extractor lowers it to fit a small context
        self.deadline = deadline  # time.monotonic() past which no request is sent (`remember_budget`)
        # Shared by concurrent requests: once a rejection steps it down, later requests start
        # there. Only the first wave (at most `concurrency` requests) can meet a rejection;
        # a server that accepts json_schema — most do — pays nothing to find out.
        self.mode = mode
        self.usage = spent if spent is not None else Usage()  # shared with the run, for its ceiling

    async def close(self) -> None:
        await self.client.close()

    async def complete(self, messages: list[dict[str, str]], name: str, schema: dict[str, Any]) -> str:
        """The reply's text for these messages, asking for JSON matching `schema`."""
        attempts = 0
        while True:
            mode = self.mode
            request = self.body(messages, name, schema, mode)
            self._check_ceiling(request["messages"])
            attempts += 1
            timeout = self._timeout(attempts)
            self.usage.requests += 1  # every HTTP request sent, retries included
            try:
                response = await self.client.chat.completions.create(**request, timeout=timeout)
            except openai.APIStatusError as exc:
                if mode is not Mode.text and _rejects_format(exc):
                    self._fall_back(mode)  # the server's limitation, not a failed attempt: no retry, no wait
                    attempts -= 1
                    continue
                if _too_long(exc):
                    raise TooLong(self._redact(describe_failure(exc)), attempts=attempts,
                                  usage=self.usage.model_copy(), context=said_context(exc)) from None
                headers = dict(exc.response.headers) if exc.response is not None else None
                if await self._retrying(attempts, exc.status_code, headers):
                    continue
                raise RequestFailed(self._redact(describe_failure(exc)), attempts=attempts,
                                    usage=self.usage.model_copy()) from None
            except openai.APIError as exc:  # timeouts and connection errors
                if self._out_of_time():
                    raise self._late(attempts) from None
                if await self._retrying(attempts, None, None):
                    continue
                raise RequestFailed(self._redact(describe_failure(exc)), attempts=attempts,
                                    usage=self.usage.model_copy()) from None
            except ValueError:  # a 200 whose body is not JSON: worth the repair attempt, like a bad reply
                raise InvalidReply("the server's answer was not JSON", attempts=1,
                                   usage=self.usage.model_copy()) from None
            return self._content(response, request["messages"])

    async def _retrying(self, attempts: int, status: int | None, headers: dict[str, str] | None) -> bool:
        """Whether to try again (after waiting as the server asked, or the backoff); False past the retries."""
        if attempts > self.settings.retries or not should_retry(status, headers):
            return False
        wait = retry_delay(attempts, self.settings.retry_backoff, headers)
        if self.deadline is not None and time.monotonic() + wait >= self.deadline:
            raise self._late(attempts)
        await asyncio.sleep(wait)
        return True

    def _timeout(self, attempts: int) -> float:
        """This attempt's timeout: the setting's, cut to what the caller's time budget has left."""
        if self.deadline is None:
            return self.settings.timeout
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise self._late(attempts - 1)
        return min(self.settings.timeout, left)

    def _out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline - 0.05

    def _late(self, attempts: int) -> OutOfTime:
        return OutOfTime(f"the model did not answer within {self.settings.remember_budget:g} s",
                         attempts=max(attempts, 0), usage=self.usage.model_copy())

    def _redact(self, text: str) -> str:
        """Servers echo a rejected key in errors (and a model may repeat one): never let it reach a log or a file."""
        text = text.replace(self._secret, "[api key]") if self._secret else text
        return text[:300]

    def body(self, messages: list[dict[str, str]], name: str, schema: dict[str, Any], mode: Mode) -> dict[str, Any]:
        return request_body(self.settings.model, self.settings.temperature, self.reply_tokens, messages, name, schema,
                            mode)

    def _fall_back(self, rejected: Mode) -> None:
        # Concurrent requests may all learn the same thing; step down once from what was tried.
        order = list(Mode)
        if self.mode == rejected:
            self.mode = order[order.index(rejected) + 1]

    def _check_ceiling(self, messages: list[dict[str, str]]) -> None:
        planned = sum(estimate_tokens(m["content"]) for m in messages) + self.reply_tokens
        ceiling = self.settings.run_token_ceiling
        if self.usage.prompt_tokens + self.usage.completion_tokens + planned > ceiling:
            raise TokenCeilingReached(f"the run's token ceiling ({ceiling:,}) would be passed",
                                      usage=self.usage.model_copy())

    def _content(self, response: Any, messages: list[dict[str, str]]) -> str:
        return reply_text(response, messages, self.usage, self.reply_tokens, self._secret)


# Characters: a shorter key ("ollama", "EMPTY", "lm-studio") is a placeholder, and hiding it would mangle text.
MIN_SECRET = 10


def hideable(key: str | None) -> str | None:
    """The key, if it is one worth keeping out of logs, files and replies; a local server's placeholder is not:
    every "k" or "none" in a model's reply would become "[api key]" in the person's memory."""
    return key if key and len(key) >= MIN_SECRET else None


def request_body(model: str, temperature: float, reply_tokens: int, messages: list[dict[str, str]], name: str,
                 schema: dict[str, Any], mode: Mode) -> dict[str, Any]:
    """A chat request's body: sent as it is, or written as a line of a batch's file (batch_api.py)."""
    request: dict[str, Any] = {"model": model, "messages": messages, "temperature": temperature,
                               "max_tokens": reply_tokens}
    if mode is Mode.json_schema:
        request["response_format"] = {"type": "json_schema",
                                      "json_schema": {"name": name, "schema": schema, "strict": True}}
        return request
    # Without structured outputs the schema travels in the prompt, after the stable prefix.
    hint = f"Reply with one JSON object, and nothing else, matching this JSON schema:\n{json.dumps(schema)}"
    request["messages"] = [*messages[:-1], {**messages[-1], "content": f"{messages[-1]['content']}\n\n{hint}"}]
    if mode is Mode.json_object:
        request["response_format"] = {"type": "json_object"}
    return request


def reply_text(response: Any, messages: list[dict[str, str]], usage_spent: Usage, cap: int, secret: str | None) -> str:
    """The reply's text, its tokens counted in `usage_spent`; a reply cut off at (or past) `cap` tokens is not
    trusted. A direct answer and a batch's answer alike."""
    usage = getattr(response, "usage", None)
    choices = getattr(response, "choices", None)
    content = (choices[0].message.content if choices and choices[0].message else None) or ""
    if isinstance(response, str):  # a server answering text/plain: the SDK hands back the body
        content = response
    if not isinstance(content, str) or (usage is not None and not all(
            isinstance(n, int | None) for n in (usage.prompt_tokens, usage.completion_tokens))):
        raise InvalidReply("the server's answer is not a chat completion (content or usage of the wrong type)",
                           attempts=1, usage=usage_spent.model_copy())
    if secret and secret in content:
        content = content.replace(secret, "[api key]")
    if usage is not None and usage.prompt_tokens is not None:
        usage_spent.prompt_tokens += usage.prompt_tokens
        usage_spent.completion_tokens += usage.completion_tokens or 0
        usage_spent.cached_tokens += _cached(usage)
    else:  # servers that report no usage still count against the ceiling
        usage_spent.prompt_tokens += sum(estimate_tokens(m["content"]) for m in messages)
        usage_spent.completion_tokens += estimate_tokens(content)
    spent = usage.completion_tokens if usage is not None and usage.completion_tokens is not None else None
    finish = choices[0].finish_reason if choices else None
    if finish == "length":  # stopped at its limit: the batch asked for too much at once
        raise ReplyCut(f"the reply stopped at its limit of {cap:,} tokens (asked again in halves while it can be)",
                       raw=content[:4000], usage=usage_spent.model_copy())
    if (spent if spent is not None else estimate_tokens(content)) > cap:
        # A server that ignores max_tokens, or a reply cut off mid-way: its JSON is not trusted whole.
        raise InvalidReply(f"the reply was longer than max_reply_tokens ({cap:,}) and is not trusted whole; "
                           "answer with fewer, shorter entries", raw=content[:4000], usage=usage_spent.model_copy())
    return content


_FORMAT_WORDS = ("response_format", "json_schema", "structured output", "json_object", "grammar")
# What llama.cpp, vLLM, Ollama and OpenAI say of a request longer than the context.
_LENGTH_WORDS = ("context length", "context size", "context window", "maximum context", "too long",
                 "exceeds the available context", "exceed_context_size", "prompt is too long", "too many tokens")


def _cached(usage: Any) -> int:
    """The prompt tokens the server's cache served, as OpenAI reports them (`prompt_tokens_details`); 0 if it
    says nothing, or something that is not a count no greater than the prompt."""
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    if not isinstance(cached, int) or isinstance(cached, bool) or not 0 <= cached <= (usage.prompt_tokens or 0):
        return 0
    return cached


def _error_text(exc: openai.APIStatusError) -> str:
    return f"{exc.message} {exc.body}".lower()


def _rejects_format(exc: openai.APIStatusError) -> bool:
    """A rejection of the response format: a 4xx (not 408/409/429), or a 5xx whose body names the format."""
    if not any(word in _error_text(exc) for word in _FORMAT_WORDS):
        return False
    return exc.status_code >= 500 or (400 <= exc.status_code < 500 and exc.status_code not in (408, 409, 429))


def _too_long(exc: openai.APIStatusError) -> bool:
    return exc.status_code in (400, 413, 422) and any(word in _error_text(exc) for word in _LENGTH_WORDS)


# How servers state their context when they refuse: "maximum context length is 2048 tokens" (OpenAI, vLLM,
# llama-cpp-python), `"n_ctx": 2048` (llama.cpp), "context window of 2048" (llama-cpp-python's own words).
_SAID_CONTEXT = re.compile(r"maximum context length is (\d+)|\bn_ctx\W{1,4}(\d+)|context (?:window|size) of (\d+)")


def said_context(exc: openai.APIStatusError) -> int | None:
    """The context's size the refusal names, if it names one (and a plausible one)."""
    found = _SAID_CONTEXT.search(_error_text(exc))
    size = int(next(g for g in found.groups() if g)) if found else 0
    return size if 256 <= size <= 100_000_000 else None


def describe_failure(exc: Exception) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return "the server did not answer in time"
    if isinstance(exc, openai.APIConnectionError):
        return "cannot connect to the server"
    if isinstance(exc, openai.APIStatusError):
        message = exc.body.get("message") if isinstance(exc.body, dict) else None
        return f"HTTP {exc.status_code}: {message or exc.message}"
    return str(exc)
