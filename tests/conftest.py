"""Shared fixtures. The fake OpenAI server lives in fake_openai.py."""

from fake_openai import fake_openai  # noqa: F401


import os  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user config file and no HYLO_MEMORY_* / OPENAI_* variables: a run sees the defaults only."""
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    for name in list(os.environ):
        if name.startswith(("HYLO_MEMORY_", "OPENAI_")):
            monkeypatch.delenv(name)
