"""Shared fixtures. The fake OpenAI server lives in fake_openai.py, the fake model in fake_model.py."""

import os

import pytest
from fake_openai import fake_openai  # noqa: F401


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user config file and no HYLO_MEMORY_* / OPENAI_* variables: every test sees the defaults only."""
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    for name in list(os.environ):
        if name.startswith(("HYLO_MEMORY_", "OPENAI_")):
            monkeypatch.delenv(name)
