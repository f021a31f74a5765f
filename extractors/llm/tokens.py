"""The token estimate every request and block is sized by, apart from the batching models: the command line's
quick `context` (pipeline/cli/quick.py) needs it and nothing else of the extractors."""

from __future__ import annotations

import math


def estimate_tokens(text: str) -> int:
    """Tokens in `text`: ~4 characters a token for ASCII, ~1 a token for other scripts."""
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return math.ceil(ascii_chars / 4 + (len(text) - ascii_chars) * 0.9)
