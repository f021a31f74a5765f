"""A small context, as local servers have one: what they say of it, and how they refuse a request too long.

`FakeOpenAI(context_tokens=2048)` behaves like llama.cpp's server (`server="llama.cpp"`): `GET /props`
answers `default_generation_settings.n_ctx`, and a chat request whose prompt is longer than the context is
refused with llama.cpp's own 400 (`exceed_context_size_error`). With `server="llama-cpp-python"` there is no
`/props` and a prompt plus `max_tokens` longer than the context gets that server's 400 ("This model's maximum
context length is …"). Tokens are counted more harshly than the product estimates them (three ASCII
characters a token, one a token for other scripts), as a real tokenizer may: the product must cope with
an estimate that is off.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .fake_replies import Raw, raw

SERVERS = ("llama.cpp", "llama-cpp-python")
_PER_MESSAGE = 4  # the chat template's own tokens around each message


def prompt_tokens(body: dict[str, Any]) -> int:
    """The prompt's tokens as the fake's tokenizer counts them."""
    total = 0
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        text = content if isinstance(content, str) else json.dumps(content)
        ascii_chars = sum(1 for ch in text if ord(ch) < 128)
        total += math.ceil(ascii_chars / 3) + (len(text) - ascii_chars) + _PER_MESSAGE
    return total


def props(n_ctx: int) -> dict[str, Any]:
    """llama.cpp's `GET /props`, the part that matters."""
    return {"default_generation_settings": {"n_ctx": n_ctx, "params": {"n_predict": -1}}, "total_slots": 1}


def refusal(body: dict[str, Any], n_ctx: int, server: str) -> Raw | None:
    """The 400 the server sends for a request its context cannot hold, else None."""
    prompt = prompt_tokens(body)
    reply = body.get("max_tokens") or body.get("max_completion_tokens") or 0
    if server == "llama.cpp" and prompt > n_ctx:
        return raw(json.dumps({"error": {
            "code": 400, "message": "the request exceeds the available context size, try increasing it",
            "type": "exceed_context_size_error", "n_prompt_tokens": prompt, "n_ctx": n_ctx}}), 400)
    if server == "llama-cpp-python" and prompt + reply > n_ctx:
        return raw(json.dumps({"error": {
            "message": f"This model's maximum context length is {n_ctx} tokens. However, you requested "
                       f"{prompt + reply} tokens ({prompt} in the messages, {reply} in the completion). "
                       "Please reduce the length of the messages or completion.",
            "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}), 400)
    return None
