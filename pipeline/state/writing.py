"""The memory folder of a vault, and evidence applied to it through the rules."""

from __future__ import annotations

import datetime as dt
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from hylo_memory.decay import Evidence, FileUpdate, plan_updates, render
from hylo_memory.decay.store import MemoryStore

from .config import Config
from .errors import VaultError
from .journal import Journal, commit, recover
from .ledger import STATE_DIR
from .locking import DEFAULT_TIMEOUT, MEMORY_LOCK, hold


def check_vault(vault: Path) -> Path:
    """The vault folder, resolved; a clear error when it is not one."""
    if not vault.exists():
        raise VaultError(f"{vault}: vault not found")
    if not vault.is_dir():
        raise VaultError(f"{vault}: vault is not a folder")
    return vault.resolve()


def open_store(vault: Path, config: Config) -> MemoryStore:
    return MemoryStore(vault / config.memory_dir, archive_keep=config.archive_keep)


@contextmanager
def writing(store: MemoryStore, timeout: float = DEFAULT_TIMEOUT, run_lock_held: bool = False) -> Iterator[None]:
    """Hold the memory lock with any interrupted writes finished first: how every writer reads and writes."""
    with hold(store.folder / STATE_DIR, MEMORY_LOCK, timeout, "memory files are being written"):
        recover(store, run_lock_held)
        yield


def apply_evidence(
    store: MemoryStore,
    evidence: list[Evidence],
    today: dt.date,
    config: Config,
    dry_run: bool = False,
) -> list[FileUpdate]:
    """Rules A–G on every memory file with this evidence; write the changed files."""
    if dry_run:
        return plan_updates(store.read_all(), evidence, today, config.similarity_threshold)
    with writing(store, config.lock_timeout):
        files = store.read_all()  # refuses a hand-broken file before anything is written
        updates = plan_updates(files, evidence, today, config.similarity_threshold)
        changed = {u.dimension: render(u.after) for u in updates if u.write}
        if changed:
            # Several files change together or not at all, even if the process dies midway.
            commit(store, Journal(files=changed))
    return updates
