"""How big the model's context is (docs/spec.md §4.5): the setting, else what the server says of itself."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from hylo_memory.extractors.llm.context_size import DEFAULT_CONTEXT, OLLAMA_DEFAULT_WINDOW, context_tokens
from hylo_memory.testing import FakeOpenAI


@contextmanager
def server(answers: dict[str, Any]) -> Iterator[str]:
    """A server answering the paths in `answers` with their JSON, anything else 404; yields its /v1 URL."""
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = json.dumps(answers[self.path]).encode() if self.path in answers else b"{}"
            self.send_response(200 if self.path in answers else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_POST = do_GET

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


def asked(answers: dict[str, Any], model: str = "m") -> int:
    with server(answers) as url:
        return context_tokens(None, url, model, None)


def test_the_setting_wins_and_asks_nothing() -> None:
    assert context_tokens(4096, "http://127.0.0.1:9/v1", "m", None) == 4096


def test_llama_cpp_says_it_at_props() -> None:
    assert asked({"/props": {"default_generation_settings": {"n_ctx": 2048}}}) == 2048


def test_vllm_says_it_as_the_models_max_model_len() -> None:
    models = {"data": [{"id": "other", "max_model_len": 32768}, {"id": "m", "max_model_len": 8192}]}
    assert asked({"/v1/models": models}) == 8192


def test_ollama_says_it_as_num_ctx_in_the_models_parameters() -> None:
    assert asked({"/api/show": {"parameters": "temperature 0.7\nnum_ctx 16384", "model_info": {}}}) == 16384


def test_ollama_without_num_ctx_gives_its_own_window_not_the_models_length() -> None:
    show = {"parameters": "", "model_info": {"llama.context_length": 131072}}
    assert asked({"/api/show": show}) == OLLAMA_DEFAULT_WINDOW


@pytest.mark.parametrize("answers", [{}, {"/props": {"n_ctx": "big"}}, {"/v1/models": {"data": [{"id": "m"}]}}])
def test_a_server_that_says_nothing_usable_gets_the_default(answers: dict[str, Any]) -> None:
    assert asked(answers) == DEFAULT_CONTEXT


def test_openai_style_models_without_a_length_get_the_default() -> None:
    with FakeOpenAI() as fake:
        assert context_tokens(None, fake.base_url, "gpt-4o-mini", "k") == DEFAULT_CONTEXT
