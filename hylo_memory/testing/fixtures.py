"""The pytest fixtures of the test doubles; `tests/conftest.py` registers this module once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .fake_model import answer
from .fake_openai import FakeOpenAI

if TYPE_CHECKING:  # the fake Hylo (and the MCP SDK) load with a test that uses it
    from .fake_hylo import FakeHylo

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


@pytest.fixture
def fake_hylo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHylo]:
    """A running ``FakeHylo`` over ``tmp_path/"hylo"`` (its ``root``), its key in HYLO_API_KEY, hylo-memory's
    local state for it in ``tmp_path/"state"``; stopped at teardown."""
    from .fake_hylo import KEY, FakeHylo

    root = tmp_path / "hylo"
    root.mkdir(exist_ok=True)
    monkeypatch.setenv("HYLO_API_KEY", KEY)
    monkeypatch.setenv("HYLO_MEMORY_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HYLO_MEMORY_HYLO_TIMEOUT", "10")
    with FakeHylo(root) as fake:
        yield fake
