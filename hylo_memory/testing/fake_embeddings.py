"""The fake OpenAI server's embeddings endpoint (POST /v1/embeddings): what recall's semantic ranking asks for.

A request is answered from its own script first (``enqueue_embeddings``: errors, delays, raw bodies; a
``delay(s)`` then vectors), else with vectors: a hashed bag of words of ``embedding_dimensions`` (each word,
casefolded, or each CJK character, adds a fixed ±1 pattern), normalised, so texts sharing words are near and
the same text gives the same vector in every process -- a test can reason about the ranking without a model.
``encoding_format: "base64"`` is honoured.  ``embedded`` lists every text embedded, in order, so a test sees
what the product's cache spared.
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
import struct
import threading
from collections import deque

from .fake_replies import Body, Response, error
from .fake_requests import RecordedRequest

__all__ = ["EMBEDDING_PATHS", "Embeddings", "embedding_of", "texts_of"]

EMBEDDING_PATHS = ("/v1/embeddings", "/embeddings")


class Embeddings:
    """The embeddings script and the vectors; the script is guarded by the fake's one lock."""

    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock
        self._queue: deque[Response] = deque()

    def enqueue(self, responses: tuple[Response, ...]) -> None:
        with self._lock:
            self._queue.extend(responses)

    def answer(self, record: RecordedRequest, dimensions: int) -> Response | Body:
        """The script's next answer, else the vectors; the API's 4xx for a request it would refuse."""
        if record.method != "POST":
            return error(405, f"Method {record.method} not allowed", type="invalid_request_error")
        body = record.body
        if not isinstance(body, dict):
            return error(400, "We could not parse the JSON body of your request.", type="invalid_request_error")
        given = body.get("input")
        texts = [given] if isinstance(given, str) else given
        if not isinstance(texts, list) or not texts or not all(isinstance(t, str) and t for t in texts):
            return error(400, "'input' must be a non-empty string or a list of them", param="input")
        if len(texts) > 2048:
            return error(400, "'input' must have at most 2048 items", param="input")
        with self._lock:
            scripted = self._queue.popleft() if self._queue else None
        return scripted if scripted is not None else vectors(body, texts, dimensions)

    @staticmethod
    def fallback(body: Body, dimensions: int) -> Body:
        """The vectors, after a scripted ``delay(s)`` that wraps nothing."""
        given = body.get("input")
        return vectors(body, [given] if isinstance(given, str) else list(given or []), dimensions)


def vectors(body: Body, texts: list[str], dimensions: int) -> Body:
    """The API's list of embeddings for ``texts``, as floats or (``encoding_format: "base64"``) packed."""
    as_base64 = body.get("encoding_format") == "base64"
    data = []
    for index, text in enumerate(texts):
        vector = embedding_of(text, dimensions)
        packed = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
        data.append({"object": "embedding", "index": index, "embedding": packed if as_base64 else vector})
    tokens = sum(len(t) for t in texts) // 4 + len(texts)
    return {"object": "list", "data": data, "model": body.get("model") or "fake-embedding",
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}


def texts_of(requests: list[RecordedRequest]) -> list[str]:
    """Every text the embedding requests sent, in the order sent."""
    texts: list[str] = []
    for request in requests:
        given = request.body.get("input") if isinstance(request.body, dict) else None
        texts += [given] if isinstance(given, str) else [t for t in given or [] if isinstance(t, str)]
    return texts


_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]|[^\W_]+")


def embedding_of(text: str, dimensions: int = 64) -> list[float]:
    """The fake's vector for `text`: each word (or CJK character) adds its own fixed ±1 pattern; normalised."""
    vector = [0.0] * dimensions
    for token in _TOKEN.findall(text.casefold()):
        digest = hashlib.sha256(token.encode("utf-8")).digest()
        for i in range(4):  # four signed positions a token: distinct words rarely cancel each other out
            slot = int.from_bytes(digest[4 * i:4 * i + 3], "big") % dimensions
            vector[slot] += 1.0 if digest[4 * i + 3] & 1 else -1.0
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm else [0.0] * (dimensions - 1) + [1.0]
