"""Crash safety: a run's writes are planned in a journal before any is made.

Commit order: (1) the journal — every changed memory file's new text, the sources to
mark extracted, the run's end — is written atomically; (2) the memory files are
written; (3) the ledger records sources and run in one transaction; (4) the journal
is removed. A process killed before (1) changed nothing, and its sources are extracted
again by the next run. Killed after (1), the next process to take the memory lock
replays the journal — rewriting files and committing the ledger are both idempotent —
so the run ends exactly as if it had not been interrupted. Every writer holds the memory
lock and calls `recover` first, so nothing is written between a crash and its replay.
"""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path

from pydantic import BaseModel, ValidationError

from hylo_memory.decay import Dimension
from hylo_memory.decay.store import ARCHIVE_DIR, MemoryStore, atomic_write, fsync_dir
from hylo_memory.errors import JournalError
from hylo_memory.extractors.base import PoolUnit, Usage

from .ledger import STATE_DIR, Counts, Ledger, RunStatus

LOG = logging.getLogger(__name__)
JOURNAL_FILE = "journal.json"
RUNS_DIR = "runs"  # a refresh's summaries (pipeline/refresh.py writes them)


class RunEnd(BaseModel):
    """The ledger's record of a finished run."""

    run_id: int
    today: dt.date
    status: RunStatus
    waiting: int
    counts: Counts
    usage: Usage


class Journal(BaseModel):
    files: dict[Dimension, str] = {}  # the full new text of each changed memory file
    sources: list[tuple[str, str]] = []  # (path, content hash) extracted by the run
    pool: list[PoolUnit] = []  # external units the run read, for the themes of later runs
    run: RunEnd | None = None


def commit(store: MemoryStore, journal: Journal, ledger: Ledger | None = None) -> None:
    """Make the journal's writes durable, in the crash-safe order above (call under the memory lock)."""
    path = journal_path(store)
    if path.exists():  # an unfinished journal is finished by `recover`, never overwritten
        raise JournalError(f"{path}: an interrupted run's journal is waiting; run the command again")
    atomic_write(path, journal.model_dump_json().encode("utf-8"))
    _apply(store, ledger, journal)
    path.unlink()
    fsync_dir(path.parent)


def recover(store: MemoryStore, run_lock_held: bool = False) -> bool:
    """Finish writes a crash interrupted after their journal was written; True if there were some.
    Call under the memory lock (and say if the run lock is held too): it also sweeps dead temp files."""
    _sweep_temp_files(store, run_lock_held)
    path = journal_path(store)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return False
    try:
        journal = Journal.model_validate_json(data)
    except ValidationError:
        raise JournalError(f"{path}: unfinished run journal is unreadable; move it aside to continue") from None
    if journal.run is None:
        _apply(store, None, journal)
    else:
        with Ledger.for_memory_dir(store.folder) as ledger:
            _apply(store, ledger, journal)
    path.unlink()
    fsync_dir(path.parent)
    LOG.warning("finished the writes of a command interrupted earlier (%s)", path)
    return True


def journal_path(store: MemoryStore) -> Path:
    return store.folder / STATE_DIR / JOURNAL_FILE


def _apply(store: MemoryStore, ledger: Ledger | None, journal: Journal) -> None:
    for dimension, text in journal.files.items():
        path = store.path(dimension)
        # On a replay, a file already written is left as it is (and not archived again).
        if not path.exists() or path.read_bytes() != text.encode("utf-8"):
            store.write_text(dimension, text)
    if ledger is None or journal.run is None:
        return
    run = journal.run
    with ledger.transaction():
        if ledger.run_status(run.run_id) == "running":
            ledger.record_sources(run.run_id, run.today, journal.sources)
            ledger.record_pool(journal.pool)
            ledger.finish_run(run.run_id, run.status, run.waiting, run.counts.model_dump(), run.usage)


def _sweep_temp_files(store: MemoryStore, run_lock_held: bool) -> None:
    # atomic_write's temp files (".NAME.XXXX.tmp") left by a killed process, where only a
    # holder of this lock writes. A refresh writes its summary in runs/ under the run lock
    # alone, so only a caller holding that lock may sweep there.
    folders = [(store.folder, [f".{d.filename}." for d in Dimension]),
               (store.folder / ARCHIVE_DIR, [f".{d.filename}." for d in Dimension]),
               (store.folder / STATE_DIR, [f".{JOURNAL_FILE}."])]
    if run_lock_held:
        folders.append((store.folder / STATE_DIR / RUNS_DIR, ["."]))
    for folder, prefixes in folders:
        if not folder.is_dir():
            continue
        for path in folder.iterdir():
            if path.name.endswith(".tmp") and path.name.startswith(tuple(prefixes)):
                path.unlink(missing_ok=True)
