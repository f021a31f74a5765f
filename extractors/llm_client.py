"""Talking to an OpenAI-compatible server: structured output with fallbacks, retries, usage.

Servers differ in what they accept. `json_schema` (strict) is asked first; a server
that rejects it (400, 422, even a 500 naming `response_format`) gets `json_object`
with the schema in the prompt, then plain text — decided once per run, not per request.
"""

from __future__ import annotations

import asyncio
import json
import random
from enum import Enum
from typing import Any

import openai

from .base import Usage
from .batching import estimate_tokens


class Mode(str, Enum):
    json_schema = "json_schema"
    json_object = "json_object"
    text = "text"


class RequestFailed(Exception):
    """A request that could not be completed; carries the attempts made."""

    def __init__(self, reason: str, attempts: int):
        tries = f" (after {attempts} attempt{'s' if attempts != 1 else ''})" if attempts else ""
        super().__init__(f"{reason}{tries}")
        self.attempts = attempts


_TRANSIENT = (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError, json.JSONDecodeError)
_MAX_RETRY_AFTER = 60.0


class ChatClient:
    """One run's connection: its structured-output mode, token budget and usage."""

    def __init__(self, *, model: str, api_key: str | None, base_url: str | None, timeout: float, retries: int,
                 temperature: float, max_reply_tokens: int, token_ceiling: int, backoff: float = 0.5,
                 mode: Mode = Mode.json_schema, spent: Usage | None = None):
        # Local servers need no key, but the SDK insists on one.
        self._secret = api_key
        self.client = openai.AsyncOpenAI(api_key=api_key or "unused", base_url=base_url, timeout=timeout,
                                         max_retries=0)
        self.model, self.retries, self.temperature = model, retries, temperature
        self.max_reply_tokens, self.token_ceiling, self.backoff = max_reply_tokens, token_ceiling, backoff
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
            request = self._request(messages, name, schema, mode)
            self._check_ceiling(request["messages"])
            attempts += 1
            try:
                response = await self.client.chat.completions.create(**request)
            except (openai.BadRequestError, openai.UnprocessableEntityError, openai.InternalServerError) as exc:
                if mode is not Mode.text and _about_response_format(exc):
                    self._fall_back(mode)
                    attempts -= 1  # the server's limitation, not a failed attempt
                    continue
                if isinstance(exc, openai.InternalServerError) and attempts <= self.retries:
                    await asyncio.sleep(self._delay(attempts, exc))
                    continue
                raise RequestFailed(self._redact(_describe(exc)), attempts) from None
            except _TRANSIENT as exc:
                if attempts > self.retries:
                    raise RequestFailed(self._redact(_describe(exc)), attempts) from None
                await asyncio.sleep(self._delay(attempts, exc))
                continue
            except openai.APIStatusError as exc:  # 401, 403, 404, other 4xx: retrying will not help
                raise RequestFailed(self._redact(_describe(exc)), attempts) from None
            return self._content(response, request["messages"])

    def _redact(self, text: str) -> str:
        """Servers echo a rejected key in errors (and a model may repeat one): never let it reach a log or a file."""
        text = text.replace(self._secret, "[api key]") if self._secret else text
        return text[:300]

    def _request(self, messages: list[dict[str, str]], name: str, schema: dict[str, Any], mode: Mode) -> dict:
        request: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_reply_tokens,
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
        planned = sum(estimate_tokens(m["content"]) for m in messages) + self.max_reply_tokens
        if self.usage.prompt_tokens + self.usage.completion_tokens + planned > self.token_ceiling:
            raise RequestFailed(f"the run's token ceiling ({self.token_ceiling:,}) would be passed", 0)

    def _content(self, response: Any, messages: list[dict[str, str]]) -> str:
        self.usage.requests += 1
        usage = getattr(response, "usage", None)
        choices = getattr(response, "choices", None)
        content = (choices[0].message.content if choices and choices[0].message else None) or ""
        if isinstance(response, str):  # a server answering text/plain: the SDK hands back the body
            content = response
        if self._secret and self._secret in content:
            content = content.replace(self._secret, "[api key]")
        if usage is not None and usage.prompt_tokens is not None:
            self.usage.prompt_tokens += usage.prompt_tokens
            self.usage.completion_tokens += usage.completion_tokens or 0
        else:  # servers that report no usage still count against the ceiling
            self.usage.prompt_tokens += sum(estimate_tokens(m["content"]) for m in messages)
            self.usage.completion_tokens += estimate_tokens(content)
        return content

    def _delay(self, attempt: int, exc: Exception) -> float:
        """Retry-After when the server gives one, else exponential backoff with jitter."""
        response = getattr(exc, "response", None)
        header = response.headers.get("retry-after") if response is not None else None
        if header:
            try:
                return min(max(float(header), 0.0), _MAX_RETRY_AFTER)
            except ValueError:
                pass
        return min(self.backoff * 2 ** (attempt - 1), 8.0) * random.uniform(0.75, 1.0)


def _about_response_format(exc: openai.APIStatusError) -> bool:
    text = f"{exc.message} {exc.body}".lower()
    return any(word in text for word in ("response_format", "json_schema", "structured output", "json_object"))


def _describe(exc: Exception) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return "the server did not answer in time"
    if isinstance(exc, openai.APIConnectionError):
        return "cannot connect to the server"
    if isinstance(exc, openai.APIStatusError):
        message = exc.body.get("message") if isinstance(exc.body, dict) else None
        return f"HTTP {exc.status_code}: {message or exc.message}"
    if isinstance(exc, json.JSONDecodeError):
        return "the server's answer was not JSON"
    return str(exc)
