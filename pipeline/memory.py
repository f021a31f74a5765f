"""The memory folder of a vault, and evidence applied to it through the rules."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from hylo_memory.decay import Evidence, FileUpdate, plan_updates
from hylo_memory.decay.store import MemoryStore

from .config import Config
from .errors import VaultError


def check_vault(vault: Path) -> Path:
    """The vault folder, resolved; a clear error when it is not one."""
    if not vault.exists():
        raise VaultError(f"{vault}: vault not found")
    if not vault.is_dir():
        raise VaultError(f"{vault}: vault is not a folder")
    return vault.resolve()


def open_store(vault: Path, config: Config) -> MemoryStore:
    return MemoryStore(vault / config.memory_dir, archive_keep=config.archive_keep)


def apply_evidence(
    store: MemoryStore,
    evidence: list[Evidence],
    today: dt.date,
    config: Config,
    dry_run: bool = False,
) -> list[FileUpdate]:
    """Rules A–G on every memory file with this evidence; write the changed files."""
    files = store.read_all()  # refuses a hand-broken file before anything is written
    updates = plan_updates(files, evidence, today, config.similarity_threshold)
    if not dry_run:
        for update in updates:
            if update.write:
                store.write(update.after)
    return updates
