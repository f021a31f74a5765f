"""The model's failures: the error family's members that carry an extractor's attempts and usage."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hylo_memory.errors import HyloMemoryError

if TYPE_CHECKING:
    from hylo_memory.domain.usage import Usage


class LLMError(HyloMemoryError):
    """The model could not give a usable answer: carries the attempts, the last reply and the usage so far."""

    def __init__(self, reason: str, attempts: int = 0, raw: str = "", usage: Usage | None = None):
        tries = f" (after {attempts} attempt{'s' if attempts != 1 else ''})" if attempts else ""
        super().__init__(f"{reason}{tries}")
        self.reason, self.attempts, self.raw = reason, attempts, raw
        self.usage = usage


class RequestFailed(LLMError):
    """A request the server did not complete, after the retries."""


class InvalidReply(LLMError):
    """A reply that is not the JSON asked for; `raw` is the reply, for the repair prompt."""


class TokenCeilingReached(RequestFailed):
    """The run's token ceiling would be passed: no further request is sent."""


class TooLong(RequestFailed):
    """The server refused the request as longer than its context: the batch is halved, not retried as it is.

    `context` is the context's size in tokens where the refusal says it (llama.cpp, vLLM and OpenAI do)."""

    def __init__(self, reason: str, attempts: int = 0, usage: Usage | None = None, context: int | None = None):
        super().__init__(reason, attempts=attempts, usage=usage)
        self.context = context


class ReplyCut(InvalidReply):
    """The reply stopped at its token limit (`finish_reason: length`): a smaller batch, not a repair, is the cure."""


class OutOfTime(RequestFailed):
    """The time the caller allowed (`remember_budget`) ran out before the model answered."""


class Declined(RequestFailed):
    """The person's assistant refused to lend its model (the person said no): nothing more is asked this run."""
