"""The pytest fixtures of the test doubles; `tests/conftest.py` registers this module once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .fake_openai import FakeOpenAI


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A running ``FakeOpenAI``; stopped (threads joined, sockets closed) at teardown."""
    with FakeOpenAI() as fake:
        yield fake
