"""A provider's batch endpoint (docs/spec.md §4.9): the direct path's requests as one file, answered within a day.

OpenAI's Batch API (and a LiteLLM proxy in front of other servers) takes chat requests as JSONL
(`/v1/files`, purpose `batch`), answers them within its `completion_window`, and bills them at a
discount. Each request is built exactly as the direct path builds it (llm.py), and each answer is read
exactly as a direct answer is read: the same checks, the same drops, the same reasons. A request the
batch did not answer (its error file, or a batch expired or cancelled first) fails its sources, which
wait. This module talks to the endpoint and reads files; the pipeline keeps the ledger.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import openai
from openai.types.chat import ChatCompletion
from pydantic import BaseModel, ValidationError

from hylo_memory.domain.sources import SourceFailure
from hylo_memory.domain.usage import Usage

from ..base import Cluster, Extraction
from ..clients import sync_client
from .batching import estimate_tokens
from .evidence_reply import Asked, read_evidence, read_preferences
from .llm_client import describe_failure, hideable, reply_text
from .llm_errors import LLMError, RequestFailed
from .settings import LLMSettings

WINDOW: Literal["24h"] = "24h"
WINDOW_SECONDS = 24 * 3600.0
MAX_FILE_BYTES = 200 * 1024 * 1024  # an output or error file read whole: bounded, whatever the server sends
MAX_LINE_BYTES = 4 * 1024 * 1024
MAX_LISTED = 500  # batches looked through for one a killed run created but never recorded
TAG = "hylo_memory"  # the metadata key naming the ledger's record of a batch
FINISHED = ("completed", "expired", "cancelled", "failed")
UNREADABLE = "the server's answer is not what the Batch API answers"


class BatchRequest(BaseModel):
    """One line of a batch's file, with what its request showed, to read the answer by."""

    custom_id: str
    body: dict[str, Any]  # the chat request, exactly as the direct path sends it
    asked: Asked | None = None  # extraction: the sources by id and the items by number
    clusters: dict[int, Cluster] = {}  # synthesis: the themes by number

    def paths(self) -> list[str]:
        if self.asked is not None:
            return sorted({s.path for s in self.asked.sources.values()})
        return sorted({p for c in self.clusters.values() for p in c.sources})

    def line(self) -> bytes:
        return json.dumps({"custom_id": self.custom_id, "method": "POST", "url": "/v1/chat/completions",
                           "body": self.body}, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def under_lease(requests: list[BatchRequest], tag: str) -> list[BatchRequest]:
    """The requests, each `custom_id` naming the ledger's record of its batch and its number (`L-…-r1`): an answer
    line of another batch, or of another vault's, is told by its id alone and passed over."""
    return [r.model_copy(update={"custom_id": f"{tag}-{r.custom_id}"}) for r in requests]


def within_ceiling(requests: list[BatchRequest], ceiling: int) -> list[BatchRequest]:
    """The first requests whose prompts and replies fit the run's token ceiling, as the direct path stops at it."""
    kept, planned = [], 0
    for request in requests:
        planned += sum(estimate_tokens(str(m.get("content", ""))) for m in request.body["messages"])
        planned += int(request.body.get("max_tokens") or 0)
        if planned > ceiling:
            break
        kept.append(request)
    return kept


class BatchGone(RequestFailed):
    """The server no longer has the batch the ledger records: its notes are no one's again."""


class CreationUnknown(RequestFailed):
    """The batch's creation was sent and its answer lost: the batch may exist (the next run looks for its tag)."""


class CreationUnreadable(RequestFailed):
    """The creation was answered, in words that cannot be read: the batch may exist (looked for by its tag, and
    cancelled, before the run asks directly)."""


class NoBatchEndpoint(RequestFailed):
    """The server has no batch endpoint (a 404, as Ollama, llama.cpp and plain vLLM answer)."""


class BatchState(BaseModel):
    """What the server says of a batch."""

    id: str
    status: str
    created_at: float
    tag: str | None = None  # the ledger's record it was created for (its metadata)
    output_file_id: str | None = None
    error_file_id: str | None = None

    @property
    def finished(self) -> bool:
        return self.status in FINISHED


class BatchEndpoints:
    """The server's `/v1/files` and `/v1/batches`, one call at a time, each failure one line (an LLMError)."""

    def __init__(self, settings: LLMSettings):
        key = settings.api_key.get_secret_value() if settings.api_key else None
        self.settings, self.secret = settings, hideable(key)
        self.client = sync_client(api_key=key or "unused", base_url=settings.base_url, timeout=settings.timeout,
                                  max_retries=min(settings.retries, 3))

    def close(self) -> None:
        self.client.close()

    def submit(self, requests: list[BatchRequest], tag: str) -> BatchState:
        """Upload the requests as one file and create their batch, tagged with the ledger's record of it.

        The creation is sent once: retried after a lost answer, it could make two batches, both billed. A
        creation whose answer is lost raises CreationUnknown: the batch may exist, and is looked for by its tag; one
        answered in words that cannot be read raises CreationUnreadable."""
        data = b"".join(r.line() for r in requests)
        uploaded = self._call("uploading the batch file",
                              lambda: self.client.files.create(file=("requests.jsonl", data), purpose="batch"),
                              endpoint=True)
        once = self.client.with_options(max_retries=0)

        def create() -> BatchState:
            try:
                return _state(once.batches.create(input_file_id=uploaded.id, endpoint="/v1/chat/completions",
                                                  completion_window=WINDOW, metadata={TAG: tag}))
            except (openai.APIConnectionError, openai.InternalServerError) as exc:  # a timeout is a connection error
                raise CreationUnknown(self._redact(f"creating the batch: {describe_failure(exc)}")) from None
            except (ValueError, TypeError, AttributeError, RecursionError):  # as `_call` tells an unreadable answer
                raise CreationUnreadable(f"creating the batch: {UNREADABLE}") from None

        created: BatchState = self._call("creating the batch", create, endpoint=True)
        return created

    def retrieve(self, batch_id: str, tag: str) -> BatchState:
        """The batch, as the server says; BatchGone when it knows no such batch, or the batch of that id is not the
        one created for the ledger's record `tag` (a server reset, another server at the same address)."""
        def ask() -> BatchState:
            try:
                return _state(self.client.batches.retrieve(batch_id))
            except openai.NotFoundError:
                raise BatchGone(f"the server knows no batch {batch_id}") from None
        state: BatchState = self._call(f"asking after batch {batch_id}", ask)
        if state.tag != tag:
            raise BatchGone(f"the server's batch {batch_id} is not the one this vault sent")
        return state

    def cancel(self, batch_id: str) -> BatchState:
        """Cancel the batch; what the server says of it then (`cancelling`, or finished before it could be)."""
        state: BatchState = self._call(f"cancelling batch {batch_id}",
                                       lambda: _state(self.client.batches.cancel(batch_id)))
        return state

    def find(self, tag: str) -> BatchState | None:
        """The batch created for the ledger's record `tag`, among the newest MAX_LISTED; None if there is none."""
        def look() -> BatchState | None:
            for seen, batch in enumerate(self.client.batches.list(limit=100)):
                if seen >= MAX_LISTED:
                    break
                if isinstance(batch.metadata, dict) and batch.metadata.get(TAG) == tag:
                    return _state(batch)
            return None
        found: BatchState | None = self._call("looking for a batch", look, endpoint=True)
        return found

    def content(self, file_id: str | None) -> bytes:
        """A file's bytes (b"" for no file), at most MAX_FILE_BYTES."""
        if not file_id:
            return b""

        def read() -> bytes:
            with self.client.files.with_streaming_response.content(file_id) as response:
                data = bytearray()
                for chunk in response.iter_bytes():
                    data += chunk
                    if len(data) > MAX_FILE_BYTES:
                        raise RequestFailed(f"file {file_id} is larger than {MAX_FILE_BYTES // 2**20} MB")
                return bytes(data)
        data: bytes = self._call(f"reading file {file_id}", read)
        return data

    def _call(self, what: str, call: Any, endpoint: bool = False) -> Any:
        """`call`'s answer; `endpoint`: a 404 means the server has no such endpoint (not a missing batch)."""
        try:
            return call()
        except openai.NotFoundError as exc:
            if endpoint:
                raise NoBatchEndpoint(f"the server has no batch endpoint ({what}: HTTP 404)") from None
            raise RequestFailed(self._redact(f"{what}: {describe_failure(exc)}")) from None
        except openai.APIError as exc:
            raise RequestFailed(self._redact(f"{what}: {describe_failure(exc)}")) from None
        except (ValueError, TypeError, AttributeError, RecursionError):  # pydantic's ValidationError is a ValueError
            raise RequestFailed(f"{what}: {UNREADABLE}") from None

    def _redact(self, text: str) -> str:
        return (text.replace(self.secret, "[api key]") if self.secret else text)[:300]


def _state(batch: Any) -> BatchState:
    """What the server says of a batch; a field of the wrong type raises ValueError (one line, in `_call`)."""
    metadata = batch.metadata if isinstance(batch.metadata, dict) else {}
    return BatchState.model_validate({"id": batch.id, "status": batch.status, "created_at": batch.created_at or 0,
                                      "output_file_id": batch.output_file_id, "error_file_id": batch.error_file_id,
                                      "tag": metadata.get(TAG)})


class Answers(BaseModel):
    """What a finished batch's files say of each request: its chat completion, or why it has none."""

    replies: dict[str, dict[str, Any]] = {}
    errors: dict[str, str] = {}
    unreadable: int = 0  # lines that are not a result of this batch's requests


def answers(output: bytes, errors: bytes, wanted: set[str]) -> Answers:
    """The output and error files' lines by custom_id; only the ids asked about, each at most once."""
    result = Answers()
    for data, is_output in ((output, True), (errors, False)):
        for raw in data.splitlines():
            if not raw.strip():
                continue
            line = _line(raw)
            custom_id = line.get("custom_id") if line else None
            if line is None or not isinstance(custom_id, str) or custom_id not in wanted or custom_id in result.replies:
                result.unreadable += 1
                continue
            response = line.get("response") if isinstance(line.get("response"), dict) else {}
            body = response.get("body") if isinstance(response, dict) else None
            status = response.get("status_code") if isinstance(response, dict) else None
            if is_output and status == 200 and isinstance(body, dict) and not line.get("error"):
                result.replies[custom_id] = body
                result.errors.pop(custom_id, None)
            else:
                result.errors[custom_id] = _error_text(line, status, body)
    return result


def _line(raw: bytes) -> dict[str, Any] | None:
    if len(raw) > MAX_LINE_BYTES:
        return None
    try:
        line = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, or nested past what the parser takes
        return None
    return line if isinstance(line, dict) else None


def _error_text(line: dict[str, Any], status: Any, body: Any) -> str:
    error = line.get("error")
    if not isinstance(error, dict) and isinstance(body, dict):
        error = body.get("error")
    message = error.get("message") if isinstance(error, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    said = " ".join(str(x) for x in (code, message) if x) or "no answer"
    return (f"HTTP {status}: {said}" if isinstance(status, int) and status != 200 else said)[:300]


def read_results(requests: list[BatchRequest], found: Answers, ended: str, cap: int, secret: str | None) -> Extraction:
    """Each request's answer read as a direct answer is read; a request without one fails its sources (they
    wait), with the batch's word for why: its error line, or that it expired or was cancelled first."""
    result = Extraction()
    for request in requests:
        reply = found.replies.get(request.custom_id)
        if reply is None:
            why = found.errors.get(request.custom_id) or f"the batch {_ended(ended)} before answering it"
            result.merge(_failed(request, why.replace(secret, "[api key]") if secret else why))
            continue
        spent = Usage(requests=1, batched=1)
        try:
            completion = ChatCompletion.model_validate(reply)
            text = reply_text(completion, request.body["messages"], spent,
                              int(request.body.get("max_tokens") or 0), secret)
            part = (read_evidence(text, request.asked, cap) if request.asked is not None
                    else read_preferences(text, request.clusters))
        except ValidationError:
            part = _failed(request, "the answer is not a chat completion")
        except LLMError as exc:
            part = _failed(request, exc.reason, own=True)
        part.usage.add(spent)
        result.merge(part)
    return result


def _ended(status: str) -> str:
    return {"expired": "expired", "cancelled": "was cancelled", "failed": "failed"}.get(status, "ended")


def _failed(request: BatchRequest, why: str, own: bool = False) -> Extraction:
    """The request's sources failed (they wait), the reason named."""
    paths, said = request.paths(), f"batch request {request.custom_id}: {why}"
    return Extraction(failed=paths, failures=[said],
                      why_failed=dict.fromkeys(paths, SourceFailure(reason=said, own=own)))
