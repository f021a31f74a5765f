"""What becomes of a batch: sized to the room its request has, or failed with a reason the summary names."""

from __future__ import annotations

import json
from collections.abc import Awaitable
from typing import Any

from hylo_memory.domain.sources import SourceFailure

from ..base import Candidate, Extraction
from .batching import Batch, estimate_tokens
from .llm_client import ChatClient
from .llm_errors import InvalidReply, LLMError, OutOfTime, TooLong


async def or_failed(work: Awaitable[Extraction], paths: list[str], what: str) -> Extraction:
    """The extraction, or, when the model could not give one, its sources left for the next run."""
    try:
        return await work
    except LLMError as exc:
        return Extraction(failed=paths, failures=[f"{what}: {exc}"], why_failed=dict.fromkeys(paths, why(exc)))


def why(exc: LLMError) -> SourceFailure:
    return SourceFailure(reason=str(exc), own=isinstance(exc, InvalidReply | TooLong))


def failed(batch: Batch, exc: LLMError) -> Extraction:
    """A batch the model could not read: its sources wait for the next run, the reason named."""
    pieces = f" (piece {batch.parts[0].piece} of {batch.parts[0].pieces})" if batch.parts[0].pieces > 1 else ""
    what = f"batch of {len(batch.paths)} source(s) from {batch.paths[0]}{pieces}"
    return Extraction(failed=batch.paths, failures=[f"{what}: {exc}"], why_failed=dict.fromkeys(batch.paths, why(exc)))


def repair_turn(client: ChatClient, messages: list[dict[str, str]], reason: str, raw: str) -> list[dict[str, str]]:
    """The repair turn: the error, and as much of the unusable reply as the context has room for."""
    note = {"role": "user", "content": f"That reply was not usable: {reason}. "
                                       "Answer again with only the JSON object asked for."}
    spare = client.request_limit - client.reply_tokens - sum(estimate_tokens(m["content"]) for m in messages) - 80
    shown = raw[:min(4000, max(0, spare) * 3)]  # three characters a token at worst
    return [*messages, {"role": "assistant", "content": shown}, note] if shown else [*messages, note]


def why_offline(exc: LLMError) -> str:
    """Why `remember` fell back to the patterns: out of time, a poor reply, or no model to be had."""
    if isinstance(exc, OutOfTime):
        return exc.reason
    if isinstance(exc, InvalidReply):
        return f"the model's reply was not usable ({exc.reason})"
    return f"LLM unavailable ({exc})"


# Of a request's room after its fixed parts and the reply: the sources' share, and the items shown's: the 40 items
# MAX_CANDIDATES allows, of about 40 characters each, at the default request_token_budget.
SOURCES_SHARE = 0.8
CANDIDATES_SHARE = 0.2


def reply_room(request_limit: int, max_reply_tokens: int) -> int:
    """The tokens a request keeps for its reply: at most a third of it."""
    return min(max_reply_tokens, max(128, request_limit // 3))


def rooms(request_limit: int, fixed: int, reply: int) -> tuple[int, int]:
    """Tokens a request has for its sources and for the items it shows, after `fixed` and the reply: the
    model's requests and the batches handed to the person's assistant alike."""
    room = request_limit - fixed - reply
    return max(int(room * SOURCES_SHARE), 64), max(int(room * CANDIDATES_SHARE), 0)


def within(candidates: list[Candidate], room: int) -> list[Candidate]:
    """As many of the candidates, in order, as `room` tokens hold (a small context shows fewer items)."""
    kept, used = [], 0
    for candidate in candidates:
        used += estimate_tokens(candidate.text) + 6  # its number and dimension
        if used > room:
            break
        kept.append(candidate)
    return kept


def hint_tokens(schema: dict[str, Any]) -> int:
    """The schema hint a server without json_schema is sent in the prompt (llm_client): counted from the start."""
    return estimate_tokens(json.dumps(schema)) + 20
