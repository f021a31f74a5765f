"""The pytest fixtures of the test doubles; `tests/conftest.py` registers this module once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .fake_model import answer
from .fake_openai import FakeOpenAI

FAKE_KEY = "sk-test-very-secret-key-0123456789"  # long and unique: a test can see it is never printed


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A running ``FakeOpenAI``; stopped (threads joined, sockets closed) at teardown."""
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def llm(fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> FakeOpenAI:
    """The fake server as the configured LLM, answering like a careful model, with fast retries.

    A test that wants another model sets `llm.handler` (or enqueues replies)."""
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("HYLO_MEMORY_MODEL", "test-model")
    monkeypatch.setenv("HYLO_MEMORY_RETRY_BACKOFF", "0.01")
    fake_openai.handler = answer
    return fake_openai
