"""How every writer reaches the memory files: the vault's store, under the memory lock, after recovery."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hylo_memory.decay.store import MemoryStore

from ..config import Config
from .journal import recover
from .ledger import STATE_DIR
from .locking import DEFAULT_TIMEOUT, MEMORY_LOCK, hold


def open_store(vault: Path, config: Config) -> MemoryStore:
    """The vault's memory folder as a store, with the configured archive depth."""
    return MemoryStore(vault / config.memory_dir, archive_keep=config.archive_keep)


@contextmanager
def writing(store: MemoryStore, timeout: float = DEFAULT_TIMEOUT, run_lock_held: bool = False) -> Iterator[None]:
    """Hold the memory lock with any interrupted writes finished first: how every writer reads and writes."""
    with hold(store.folder / STATE_DIR, MEMORY_LOCK, timeout, "memory files are being written"):
        recover(store, run_lock_held)
        yield
