"""Shared fixtures; the test doubles' own (`fake_openai`) come from the `hylo_memory.testing.fixtures` plugin."""

import os

import pytest

pytest_plugins = ["hylo_memory.testing.fixtures"]


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user config file and no HYLO_MEMORY_* / OPENAI_* variables: every test sees the defaults only."""
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    for name in list(os.environ):
        if name.startswith(("HYLO_MEMORY_", "OPENAI_")):
            monkeypatch.delenv(name)
