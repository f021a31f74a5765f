"""When to try a request again, and how long to wait first: ours, so no private SDK method is needed.

The SDK is asked for one attempt a call (`max_retries=0`); the client loops. A server's own word wins —
`x-should-retry`, then `retry-after-ms` or `Retry-After` (bounded: a server asking for an hour gets
MAX_ASKED_DELAY) — else an exponential backoff from `retry_backoff`.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping

RETRIED_STATUSES = frozenset({408, 409, 429})  # and every 5xx
MAX_ASKED_DELAY = 60.0  # seconds: the longest wait a server may ask for
MAX_BACKOFF = 30.0


def should_retry(status: int | None, headers: Mapping[str, str] | None) -> bool:
    """Whether a failed attempt is worth another: a timeout or lost connection (`status` None), 408, 409, 429,
    5xx — unless the server says otherwise."""
    said = (headers or {}).get("x-should-retry", "").strip().lower()
    if said in ("true", "false"):
        return said == "true"
    return status is None or status in RETRIED_STATUSES or status >= 500


def retry_delay(retry: int, backoff: float, headers: Mapping[str, str] | None) -> float:
    """Seconds before retry number `retry` (1 for the first): what the server asked, else the backoff doubled."""
    asked = asked_delay(headers)
    if asked is not None:
        return asked
    return min(MAX_BACKOFF, backoff * 2.0 ** (retry - 1))


def asked_delay(headers: Mapping[str, str] | None) -> float | None:
    """The wait a response asks for (`retry-after-ms`, else `Retry-After` in seconds or as a date), bounded."""
    headers = headers or {}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            seconds = _from_date(value) if scale == 1.0 else -1.0
        if 0 <= seconds <= MAX_ASKED_DELAY:
            return seconds
        if seconds > MAX_ASKED_DELAY:
            return MAX_ASKED_DELAY
    return None


def _from_date(value: str) -> float:
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return -1.0
    return when.timestamp() - time.time()
