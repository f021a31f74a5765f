"""Talking to an OpenAI-compatible server: structured output with fallbacks, retries, usage.

Retries are the SDK's own. Servers differ in what they accept. `json_schema` (strict) is asked first; a server
that rejects it (400, 422, even a 500 naming `response_format`) gets `json_object`
with the schema in the prompt, then plain text — decided once per run, not per request.
"""

from __future__ import annotations

import json
from enum import Enum
from typing import Any

import openai

from .base import Usage
from .batching import estimate_tokens
from .llm_errors import InvalidReply, RequestFailed, TokenCeilingReached
from .settings import LLMSettings


class Mode(str, Enum):
    json_schema = "json_schema"
    json_object = "json_object"
    text = "text"


class _SDKClient(openai.AsyncOpenAI):
    """The SDK's client with the SDK's own retries (408, 409, 429, 5xx, timeouts, connection errors,
    `Retry-After`, `retry-after-ms`, `x-should-retry`). Only the base of its exponential backoff is
    ours to set (`retry_backoff`): a delay the server asks for is kept as the SDK computed it."""

    def __init__(self, *, backoff: float, **kwargs: Any):
        super().__init__(**kwargs)
        self._backoff_scale = backoff / _SDK_FIRST_DELAY

    def _calculate_retry_timeout(self, remaining_retries: int, options: Any, response_headers: Any = None) -> float:
        delay = super()._calculate_retry_timeout(remaining_retries, options, response_headers)
        asked = self._parse_retry_after_header(response_headers)
        return delay if asked is not None and delay == asked else delay * self._backoff_scale


_SDK_FIRST_DELAY = 0.5  # seconds: the SDK's first backoff, which `retry_backoff` replaces


class ChatClient:
    """One run's connection: its structured-output mode, token budget and usage."""

    def __init__(self, settings: LLMSettings, mode: Mode = Mode.json_schema, spent: Usage | None = None):
        # Local servers need no key, but the SDK insists on one.
        self._secret = settings.api_key.get_secret_value() if settings.api_key else None
        self.client = _SDKClient(api_key=self._secret or "unused", base_url=settings.base_url,
                                 timeout=settings.timeout, max_retries=settings.retries,
                                 backoff=settings.retry_backoff)
        self.settings = settings
        # Shared by concurrent requests: once a rejection steps it down, later requests start
        # there. Only the first wave (at most `concurrency` requests) can meet a rejection;
        # a server that accepts json_schema — most do — pays nothing to find out.
        self.mode = mode
        self.usage = spent if spent is not None else Usage()  # shared with the run, for its ceiling

    async def close(self) -> None:
        await self.client.close()

    async def complete(self, messages: list[dict[str, str]], name: str, schema: dict[str, Any]) -> str:
        """The reply's text for these messages, asking for JSON matching `schema`."""
        while True:
            mode = self.mode
            request = self._request(messages, name, schema, mode)
            self._check_ceiling(request["messages"])
            try:
                raw = await self.client.chat.completions.with_raw_response.create(**request)
                self.usage.requests += raw.retries_taken + 1  # every HTTP request sent, retries included
                response = raw.parse()
            except openai.APIStatusError as exc:
                attempts = self._count_attempts(exc)
                rejectable = exc.status_code in (400, 422) or exc.status_code >= 500
                if mode is not Mode.text and rejectable and _about_response_format(exc):
                    self._fall_back(mode)  # the server's limitation, not a failed attempt
                    continue
                raise RequestFailed(self._redact(describe_failure(exc)), attempts=attempts,
                                    usage=self.usage.model_copy()) from None
            except openai.APIError as exc:  # timeouts and connection errors, after the SDK's retries
                raise RequestFailed(self._redact(describe_failure(exc)), attempts=self._count_attempts(exc),
                                    usage=self.usage.model_copy()) from None
            except ValueError:  # a 200 whose body is not JSON: worth the repair attempt, like a bad reply
                raise InvalidReply("the server's answer was not JSON", attempts=1,
                                   usage=self.usage.model_copy()) from None
            return self._content(response, request["messages"])

    def _count_attempts(self, exc: openai.APIError) -> int:
        """How many requests the SDK sent before giving up (it numbers its retries in a header); counted as spent."""
        request = getattr(exc, "request", None)
        retried = request.headers.get("x-stainless-retry-count") if request is not None else None
        attempts = int(retried) + 1 if retried and retried.isdigit() else 1
        self.usage.requests += attempts
        return attempts

    def _redact(self, text: str) -> str:
        """Servers echo a rejected key in errors (and a model may repeat one): never let it reach a log or a file."""
        text = text.replace(self._secret, "[api key]") if self._secret else text
        return text[:300]

    def _request(self, messages: list[dict[str, str]], name: str, schema: dict[str, Any], mode: Mode) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self.settings.model,
            "messages": messages,
            "temperature": self.settings.temperature,
            "max_tokens": self.settings.max_reply_tokens,
        }
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

    def _fall_back(self, rejected: Mode) -> None:
        # Concurrent requests may all learn the same thing; step down once from what was tried.
        order = list(Mode)
        if self.mode == rejected:
            self.mode = order[order.index(rejected) + 1]

    def _check_ceiling(self, messages: list[dict[str, str]]) -> None:
        planned = sum(estimate_tokens(m["content"]) for m in messages) + self.settings.max_reply_tokens
        ceiling = self.settings.run_token_ceiling
        if self.usage.prompt_tokens + self.usage.completion_tokens + planned > ceiling:
            raise TokenCeilingReached(f"the run's token ceiling ({ceiling:,}) would be passed",
                                      usage=self.usage.model_copy())

    def _content(self, response: Any, messages: list[dict[str, str]]) -> str:
        """The reply's text, its tokens counted; a reply cut off at (or past) `max_reply_tokens` is not trusted."""
        usage = getattr(response, "usage", None)
        choices = getattr(response, "choices", None)
        content = (choices[0].message.content if choices and choices[0].message else None) or ""
        if isinstance(response, str):  # a server answering text/plain: the SDK hands back the body
            content = response
        if not isinstance(content, str) or (usage is not None and not all(
                isinstance(n, int | None) for n in (usage.prompt_tokens, usage.completion_tokens))):
            raise InvalidReply("the server's answer is not a chat completion (content or usage of the wrong type)",
                               attempts=1, usage=self.usage.model_copy())
        if self._secret and self._secret in content:
            content = content.replace(self._secret, "[api key]")
        if usage is not None and usage.prompt_tokens is not None:
            self.usage.prompt_tokens += usage.prompt_tokens
            self.usage.completion_tokens += usage.completion_tokens or 0
        else:  # servers that report no usage still count against the ceiling
            self.usage.prompt_tokens += sum(estimate_tokens(m["content"]) for m in messages)
            self.usage.completion_tokens += estimate_tokens(content)
        cap = self.settings.max_reply_tokens
        spent = usage.completion_tokens if usage is not None and usage.completion_tokens is not None else None
        finish = choices[0].finish_reason if choices else None
        if finish == "length" or (spent if spent is not None else estimate_tokens(content)) > cap:
            # A server that ignores max_tokens, or a reply cut off mid-way: its JSON is not trusted whole.
            raise InvalidReply(f"the reply was longer than max_reply_tokens ({cap:,}) and is not trusted whole; "
                               "answer with fewer, shorter entries", raw=content[:4000], usage=self.usage.model_copy())
        return content


def _about_response_format(exc: openai.APIStatusError) -> bool:
    text = f"{exc.message} {exc.body}".lower()
    return any(word in text for word in ("response_format", "json_schema", "structured output", "json_object"))


def describe_failure(exc: Exception) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return "the server did not answer in time"
    if isinstance(exc, openai.APIConnectionError):
        return "cannot connect to the server"
    if isinstance(exc, openai.APIStatusError):
        message = exc.body.get("message") if isinstance(exc.body, dict) else None
        return f"HTTP {exc.status_code}: {message or exc.message}"
    return str(exc)
