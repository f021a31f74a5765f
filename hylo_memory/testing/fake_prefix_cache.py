"""Prompt caching as OpenAI reports it: `usage.prompt_tokens_details.cached_tokens` for a repeated prefix.

OpenAI caches the longest prefix a request shares with one it saw recently, in steps of 128 tokens from
1,024 on. The fake does the same over the messages' text, counting four characters a token, so a test
can see what a stable prefix is worth, and that what the server reports is counted.
"""

from __future__ import annotations

import os
from typing import Any

STEP = 128


class PrefixCache:
    """The prompts seen so far (by their text), and what a new one shares with them."""

    def __init__(self, minimum: int = 1024):
        self.minimum = minimum
        self.seen: list[str] = []

    def cached_tokens(self, body: Any) -> int:
        """The tokens of this request's prompt a provider would have cached; the prompt is remembered."""
        messages = body.get("messages", []) if isinstance(body, dict) else []
        text = "".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))
        shared = max((len(os.path.commonprefix([text, earlier])) for earlier in self.seen), default=0)
        self.seen.append(text)
        tokens = shared // 4 // STEP * STEP
        return tokens if tokens >= self.minimum else 0

    def clear(self) -> None:
        self.seen.clear()
