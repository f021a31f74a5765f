"""The fake OpenAI server's request log: what the client sent, so a test can assert on it from the server's side.

Every request is kept in arrival order as a ``RecordedRequest`` (body parsed, headers lower-cased, when it
arrived), whatever its path and whether or not it was answered. The log also counts the requests being served
at once: a test of concurrency reads ``max_in_flight`` rather than trusting the client.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from .fake_replies import prompt_text

__all__ = ["RecordedRequest", "RequestLog"]


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any  # parsed JSON, or None when absent / not JSON
    raw_body: bytes = b""
    index: int = 0  # arrival order, from 0
    at: float = 0.0  # time.monotonic() when it arrived: how long a client waited, read from the server's side

    @property
    def prompt(self) -> str:
        return prompt_text(self.body) if isinstance(self.body, dict) else ""


class RequestLog:
    """The requests received, and the most served at once; guarded by the fake's one lock."""

    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock
        self._requests: list[RecordedRequest] = []
        self._in_flight = 0
        self.max_in_flight = 0  # highest number of requests being served at once

    def record(self, method: str, path: str, headers: dict[str, str], body: Any, raw_body: bytes) -> RecordedRequest:
        with self._lock:
            rec = RecordedRequest(method, path, headers, body, raw_body, len(self._requests), time.monotonic())
            self._requests.append(rec)
            return rec

    def enter(self) -> None:
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)

    def leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def snapshot(self) -> list[RecordedRequest]:
        """Every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def to(self, endpoint: str) -> list[RecordedRequest]:
        """The requests whose path ends with ``endpoint`` (``"/chat/completions"``), with or without ``/v1``."""
        return [r for r in self.snapshot() if r.path.rstrip("/").endswith(endpoint)]

    def clear(self) -> None:
        """Forget the requests and the highest count; the caller holds the lock (``reset`` clears all at once)."""
        self._requests.clear()
        self.max_in_flight = 0
