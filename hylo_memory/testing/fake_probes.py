"""What the fake OpenAI server says of itself when asked: ``GET /v1/models`` and llama.cpp's ``GET /props``.

The product asks these to learn how big the model's context is (``extractors/context_size``). The fake answers
as the servers it plays: ``/v1/models`` lists ``models`` by id with no context length, as OpenAI's own API does,
so the product falls back to its default; ``/props`` is there only with a small context (``context_tokens``) on
the llama.cpp server (``fake_context``), as llama.cpp says its ``n_ctx`` there. Any other probe, Ollama's
``POST /api/show`` included, gets the API's 404 for an unknown URL.
"""

from __future__ import annotations

from .fake_context import props
from .fake_replies import Body

__all__ = ["probe"]


def probe(method: str, path: str, models: tuple[str, ...], context_tokens: int | None, server: str) -> Body | None:
    """The answer to a question about the server itself at ``path`` (no trailing slash), else None."""
    if method == "GET" and path in ("/v1/models", "/models"):
        return {
            "object": "list",
            "data": [
                {"id": m, "object": "model", "created": 1700000000, "owned_by": "fake-openai"}
                for m in models
            ],
        }
    if method == "GET" and path == "/props" and context_tokens and server == "llama.cpp":
        return props(context_tokens)
    return None
