"""Embeddings for recall (docs/spec.md §9), from the extractor's OpenAI-compatible endpoint, within one deadline.

Every request of one call shares the deadline: they run in a daemon thread the caller waits for, so a
server that accepts the connection and then trickles, stalls or hangs costs `timeout` seconds, never more.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

if TYPE_CHECKING:
    import openai

MAX_INPUT_CHARS = 2000  # an item is one line; a hand-written one longer than this is embedded by its start
MAX_DIMENSIONS = 16_384  # the largest embedding models give 4,096; more is not an embedding


class EmbeddingSettings(BaseModel):
    """The embedding model and the endpoint, key and limits it is reached with."""

    model_config = ConfigDict(allow_inf_nan=False)

    model: str = Field(min_length=1, max_length=1024)
    api_key: SecretStr | None = None
    base_url: str | None = Field(None, max_length=1024)
    timeout: float = Field(5.0, gt=0, le=600)
    batch: int = Field(64, ge=1, le=2048)


class _Datum(BaseModel):
    index: int = Field(ge=0)
    embedding: list[float] = Field(min_length=1, max_length=MAX_DIMENSIONS)

    @field_validator("embedding")
    @classmethod
    def _finite(cls, value: list[float]) -> list[float]:
        if not all(math.isfinite(x) for x in value):
            raise ValueError("not a finite number")
        return value


class _Reply(BaseModel):
    data: list[_Datum] = Field(max_length=2048)


class Embedded(BaseModel):
    """What one call got: a vector for each text it embedded, and why it stopped short, if it did."""

    vectors: dict[str, list[float]]
    failure: str | None = None


def embed(settings: EmbeddingSettings, texts: Sequence[str], seconds: float | None = None) -> Embedded:
    """Vectors for `texts` (distinct, non-blank), in batches of `settings.batch`, all within `seconds` (default
    `settings.timeout`, each request's own limit too).

    What was embedded before a failure or the deadline is returned with the failure, for the caller to keep.
    """
    deadline = settings.timeout if seconds is None else seconds
    # The SDK is imported when embeddings are asked for: it costs most of a command's start-up.
    import openai

    from .clients import sync_client
    from .llm.llm_client import describe_failure, hideable  # the chat client's wording of a failure, and its key

    wanted = list(dict.fromkeys(texts))
    done: dict[str, list[float]] = {}
    failure: list[str] = []
    lock, stop, finished = threading.Lock(), threading.Event(), threading.Event()
    secret = settings.api_key.get_secret_value() if settings.api_key else None

    def work() -> None:
        # Local servers need no key, but the SDK insists on one; no retries: the deadline is too short for them.
        client = sync_client(api_key=secret or "unused", base_url=settings.base_url, timeout=settings.timeout,
                             max_retries=0)
        try:
            for start in range(0, len(wanted), settings.batch):
                if stop.is_set():
                    return
                batch = wanted[start:start + settings.batch]
                vectors = _request(client, settings.model, batch)
                with lock:
                    done.update(zip(batch, vectors, strict=True))
        except openai.APIError as exc:
            failure.append(describe_failure(exc))
        except (ValidationError, ValueError) as exc:
            failure.append(f"the embedding server's answer is not valid ({str(exc).splitlines()[0][:200]})")
        except Exception as exc:  # noqa: BLE001 - whatever stops the thread must reach the caller, not vanish
            failure.append(f"the embedding request failed ({type(exc).__name__})")
        finally:
            client.close()
            finished.set()

    threading.Thread(target=work, name="hylo-embeddings", daemon=True).start()
    in_time = finished.wait(deadline)
    stop.set()  # a thread past the deadline sends nothing more; the SDK's own timeout ends its last request
    with lock:
        vectors = dict(done)
    if failure:
        reason = failure[0]
    elif not in_time:
        reason = f"the embedding server did not answer within {deadline:g} s"
    else:
        reason = None
    if reason and (hidden := hideable(secret)):  # servers echo a rejected key in their errors
        reason = reason.replace(hidden, "[api key]")
    return Embedded(vectors=vectors, failure=reason)


def _request(client: openai.OpenAI, model: str, batch: list[str]) -> list[list[float]]:
    """One request's vectors, in the order of `batch`, checked: one finite vector per text, all of one length."""
    raw = client.embeddings.with_raw_response.create(
        model=model, input=[text[:MAX_INPUT_CHARS] for text in batch], encoding_format="float")
    reply = _Reply.model_validate_json(raw.content)
    by_index = {d.index: d.embedding for d in reply.data}
    if sorted(by_index) != list(range(len(batch))):
        raise ValueError(f"{len(reply.data)} vectors for {len(batch)} texts")
    vectors = [by_index[i] for i in range(len(batch))]
    if len({len(v) for v in vectors}) > 1:
        raise ValueError("vectors of different lengths")
    return vectors
