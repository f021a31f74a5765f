"""The person's assistant's own model, lent through MCP sampling (docs/spec.md §9.5): the LLM extractor's prompts,
batching, validation, retries and stuck-source rules, with requests the assistant's client answers.

The extractor knows no MCP: it is given `ask`, which sends one request (system prompt, messages, reply
tokens) and returns the reply's text and why it stopped, raising `Declined` when the client refuses.
The schema travels in the prompt (sampling has no structured outputs); the whole extraction is bounded
by `budget` seconds, after which the batches not yet sent wait for the next run.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from hylo_memory.domain.usage import Usage

from ..base import Extraction
from .batching import estimate_tokens
from .context_size import DEFAULT_CONTEXT
from .llm import LLMExtractor
from .llm_client import ChatClient, Mode
from .llm_errors import Declined, InvalidReply, OutOfTime, ReplyCut, RequestFailed
from .settings import LLMSettings

# (system prompt, [{"role", "content"}], max reply tokens) → (reply text, stop reason: "maxTokens" when cut)
Ask = Callable[[str, list[dict[str, str]], int], tuple[str, str | None]]


class SamplingClient(ChatClient):
    """A run's connection to the assistant's model: one sampling request a completion."""

    def __init__(self, settings: LLMSettings, ask: Ask, spent: Usage, deadline: float | None,
                 stopped: list[str]):
        self.settings, self.ask, self.usage, self.deadline = settings, ask, spent, deadline
        self.stopped = stopped  # the extractor's: why no more is asked this run
        self.mode = Mode.text
        self.request_limit = settings.request_token_budget
        self.reply_tokens = settings.max_reply_tokens
        self._secret = None

    async def close(self) -> None:
        pass

    async def complete(self, messages: list[dict[str, str]], name: str, schema: dict[str, Any]) -> str:
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        turns = [m for m in messages if m["role"] != "system"]
        hint = f"Reply with one JSON object, and nothing else, matching this JSON schema:\n{json.dumps(schema)}"
        turns[-1] = {**turns[-1], "content": f"{turns[-1]['content']}\n\n{hint}"}
        self._check_ceiling(turns)
        attempts = 0
        while True:
            if self._out_of_time():
                raise self._late(attempts)
            attempts += 1
            self.usage.requests += 1
            try:
                text, stop = await asyncio.to_thread(self.ask, system, turns, self.reply_tokens)
            except Declined as exc:
                self.stopped.append(exc.reason)
                raise
            except RequestFailed as exc:
                if await self._retrying(attempts, None, None):
                    continue
                raise RequestFailed(exc.reason, attempts=attempts, usage=self.usage.model_copy()) from None
            break
        self.usage.prompt_tokens += sum(estimate_tokens(m["content"]) for m in [{"content": system}, *turns])
        self.usage.completion_tokens += estimate_tokens(text)
        if stop == "maxTokens":
            raise ReplyCut(f"the reply stopped at its limit of {self.reply_tokens:,} tokens", raw=text[:4000],
                           usage=self.usage.model_copy())
        if not text.strip():
            raise InvalidReply("the reply was empty", attempts=1, usage=self.usage.model_copy())
        return text

    def _late(self, attempts: int) -> OutOfTime:
        reason = f"the assistant's model did not answer within sampling_budget ({self.settings.sampling_budget:g} s)"
        self.stopped.append(reason)
        return OutOfTime(reason, attempts=max(attempts, 0), usage=self.usage.model_copy())


class SamplingExtractor(LLMExtractor):
    """The LLM extractor, its requests answered by the assistant's client (sampling/createMessage)."""

    def __init__(self, config: LLMSettings, ask: Ask, client: str):
        super().__init__(config)
        self.name = f"sampling ({client})"
        self.ask = ask
        self.deadline: float | None = None  # set by the first request: not spent waiting for the run lock
        self.mode = Mode.text
        self.stopped: list[str] = []  # why no more is asked: the person said no, or the budget ran out

    @property
    def gave_up(self) -> bool:
        return bool(self.stopped) or super().gave_up

    def _not_sent(self, paths: list[str]) -> Extraction:
        if not self.stopped:
            return super()._not_sent(paths)
        return Extraction(failed=paths, failures=[f"{len(paths)} source(s) not sent: {self.stopped[0]}; they wait "
                                                  "for the next run"])

    def _context(self, timeout: float = 0) -> int:
        # No server to ask: the setting, else the size every model a client may hold has.
        self.context = self.config.context_tokens or DEFAULT_CONTEXT
        return self.context

    def _connect(self, deadline: float | None) -> ChatClient:
        if self.deadline is None:
            self.deadline = time.monotonic() + self.config.sampling_budget
        return SamplingClient(self.config, self.ask, self.usage, min(d for d in (deadline, self.deadline) if d),
                              self.stopped)
