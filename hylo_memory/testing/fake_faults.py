"""The fake OpenAI server's faults, acted out on the wire: errors, delays and malformed replies.

``fake_replies`` describes them (``error``, ``delay``, ``raw``, ``rate_limited``, ...); this is how they are sent,
the same way whichever endpoint they answer. They are what the product's error paths are tested against:

- an ``Error`` goes out with an OpenAI-style body ``{"error": {...}}``, its ``type`` by status as the API has
  it, so the real client raises the exception it would raise against the real API (``RateLimitError``, ...);
- a ``Delay`` waits, then answers with what it wraps, or with what the endpoint would answer without a script
  (a client that times out first sees a timeout; the wait ends early when the server stops, dropping the
  connection unanswered);
- a ``Raw`` goes out byte for byte: invalid JSON, a wrong shape, any status and content type.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from .fake_replies import ERROR_TYPES, Body, Delay, Error, Raw, Response

__all__ = ["fault", "settle"]


def settle(response: Response | Body, wait: Callable[[float], None],
           fallback: Callable[[], Response | Body]) -> Response | Body:
    """Sit out the delays before an answer: ``wait`` each one's seconds (it raises when the server stops),
    then take what it wraps, or ``fallback()`` when it wraps nothing."""
    while isinstance(response, Delay):
        wait(response.seconds)
        response = response.then if response.then is not None else fallback()
    return response


def fault(response: Error | Raw, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    """The status, headers (``headers`` plus the fault's own) and payload of an error or a raw body."""
    if isinstance(response, Raw):
        headers["Content-Type"] = response.content_type
        headers.update(response.headers or {})
        return response.status, headers, response.body
    headers.update(response.headers or {})
    known = ERROR_TYPES.get(response.status, "invalid_request_error")
    fallback = "server_error" if response.status >= 500 else known
    err_type = response.type or fallback
    payload = {
        "error": {
            "message": response.message,
            "type": err_type,
            "param": response.param,
            "code": response.code,
        }
    }
    return response.status, headers, json.dumps(payload).encode()
