"""How many tokens the model's context holds: the `context_tokens` setting, else what the server says.

Servers that say: llama.cpp (`GET /props`: `default_generation_settings.n_ctx`), vLLM (`GET /v1/models`:
the model's `max_model_len`), Ollama (`POST /api/show`: `num_ctx` in its parameters, else the model's
`context_length`, no more than Ollama's own default window). Each is asked once, briefly; a server that
says nothing (OpenAI's own, LM Studio) gets DEFAULT_CONTEXT.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from typing import Any

DEFAULT_CONTEXT = 8192
OLLAMA_DEFAULT_WINDOW = 4096  # what Ollama gives a request when no num_ctx is set, whatever the model could hold
PROBE_TIMEOUT = 2.0  # seconds for all the questions together: a server that hangs here costs little
MAX_ANSWER = 1_000_000  # bytes read of an answer: what a server says about itself is small


def context_tokens(setting: int | None, base_url: str | None, model: str, api_key: str | None,
                   timeout: float = PROBE_TIMEOUT) -> int:
    """The context's size in tokens: the setting, else what the server says, else DEFAULT_CONTEXT.

    `timeout` bounds all the questions together: a server that hangs costs at most that long.
    """
    if setting is not None:
        return setting
    if not base_url or timeout <= 0:
        return DEFAULT_CONTEXT
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    base = base_url.rstrip("/")
    root = re.sub(r"/v1$", "", base)
    deadline = time.monotonic() + timeout
    for url, body, read in ((f"{root}/props", None, _llama_cpp),  # llama.cpp
                            (f"{base}/models", None, lambda b: _vllm(b, model)),  # vLLM
                            (f"{root}/api/show", {"model": model}, _ollama)):  # Ollama
        left = deadline - time.monotonic()
        if left <= 0:
            break
        if found := read(_ask(url, body, headers, left)):
            return found
    return DEFAULT_CONTEXT


def _ask(url: str, body: dict[str, Any] | None, headers: dict[str, str], timeout: float) -> Any:
    """One GET (or POST of `body`) answered with JSON, else None: any failure means 'says nothing'."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers={**headers, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (the configured server)
            return json.loads(response.read(MAX_ANSWER)) if response.status == 200 else None
    except (OSError, ValueError):  # URLError, HTTPError, timeouts and refusals are OSErrors
        return None


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= 100_000_000 else None


def _llama_cpp(body: Any) -> int | None:
    if not isinstance(body, dict):
        return None
    settings = body.get("default_generation_settings")
    found = _positive(settings.get("n_ctx")) if isinstance(settings, dict) else None
    return found or _positive(body.get("n_ctx"))


def _vllm(body: Any, model: str) -> int | None:
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        return None
    models = [m for m in data if isinstance(m, dict)]
    chosen = [m for m in models if m.get("id") == model] or models[:1]
    return _positive(chosen[0].get("max_model_len")) if chosen else None


def _ollama(body: Any) -> int | None:
    if not isinstance(body, dict):
        return None
    parameters = body.get("parameters")
    if isinstance(parameters, str) and (set_here := re.search(r"(?m)^\s*num_ctx\s+(\d+)", parameters)):
        return _positive(int(set_here.group(1)))
    info = body.get("model_info")
    if isinstance(info, dict):
        lengths = [_positive(v) for k, v in info.items() if str(k).endswith(".context_length")]
        if found := next((n for n in lengths if n), None):
            return min(found, OLLAMA_DEFAULT_WINDOW)
    return None
