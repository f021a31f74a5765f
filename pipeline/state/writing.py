"""How every writer reaches the memory files: the vault's store, under the memory lock, after recovery."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from hylo_memory.decay.files.store import MemoryStore, resolved
from hylo_memory.errors import ConfigError, HyloMemoryError, LedgerError, StorageError, storage_error
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.state.locking import DEFAULT_TIMEOUT, MEMORY_LOCK, RUN_LOCK, hold
from hylo_memory.pipeline.state.names import STATE_DIR, journal_path
from hylo_memory.pipeline.vaults import home_of

if TYPE_CHECKING:
    from hylo_memory.pipeline.state.ledger import Ledger
    from hylo_memory.pipeline.state.opened import Opened

LOG = logging.getLogger(__name__)


def open_store(vault: Path, config: Config) -> MemoryStore:
    """The vault's memory folder as a store, with the configured archive depth.

    The folder must be inside the vault once symlinks are followed (`memory_dir` itself is
    checked to be a relative path by the configuration): a memory folder linked elsewhere
    would write the person's memory where their vault, and its backups, are not.
    """
    folder = vault / config.memory_dir
    root, real = resolved(vault), resolved(folder)
    if root is None or real is None:
        raise ConfigError(f"{folder}: memory_dir is a symlink loop; it must be a folder inside the vault")
    if real == root or not real.is_relative_to(root):
        where = "the vault itself" if real == root else f"{real}, outside the vault"
        raise ConfigError(f"{folder}: memory_dir leads to {where}; it must be a folder inside the vault")
    if real.exists() and not real.is_dir():
        raise ConfigError(f"{folder}: memory_dir is not a folder")
    return MemoryStore(folder, archive_keep=config.archive_keep, root=root)


def settle(store: MemoryStore, timeout: float = DEFAULT_TIMEOUT) -> None:
    """Before reading: finish the writes of a command a crash interrupted, so no reader shows half a change.

    A reader that cannot (a memory folder it may not write, a full disk) says so in one line and
    reads the files as they are: reading needs no write."""
    if not journal_path(store).exists():
        return
    try:
        with writing(store, timeout):
            pass
    except (StorageError, LedgerError, OSError) as exc:
        LOG.warning("a change interrupted earlier could not be finished (%s); the memory is read as it is",
                    str(exc if isinstance(exc, HyloMemoryError) else storage_error(exc)))


@contextmanager
def writing(store: MemoryStore, timeout: float = DEFAULT_TIMEOUT, run_lock_held: bool = False) -> Iterator[None]:
    """Hold the memory lock with any interrupted writes finished first: how every writer reads and writes."""
    with hold(store.folder / STATE_DIR, MEMORY_LOCK, timeout, "memory files are being written"):
        from hylo_memory.pipeline.state.journal import (
            recover,  # here, not above: a reader with no journal to finish never loads the rules
        )

        recover(store, run_lock_held)
        home = home_of(store.root)  # a Hylo vault's memory: synced with Hylo while the lock is held
        home.take()
        yield
        home.push()


@contextmanager
def running(memory: Opened) -> Iterator[Ledger]:
    """A run's hold on the vault: the run lock, any interrupted writes finished (so the files a run reads for its
    profile and prompts are whole), and the memory's ledger. A refresh, a batch's submission, a lease handed out."""
    store, timeout = memory.store, memory.config.lock_timeout
    with hold(store.folder / STATE_DIR, RUN_LOCK, timeout, "a refresh is running"):
        with writing(store, timeout, run_lock_held=True):
            pass
        yield memory.ledger
