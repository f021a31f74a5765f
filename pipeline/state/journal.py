"""Crash safety: a run's writes are planned in a journal before any is made.

Commit order: (1) the journal — every changed memory file's new text, the sources to
mark extracted, the run's end, the change `history` and `undo` will know — is written
atomically; (2) the memory files are written; (3) the ledger records sources, run and
change in one transaction; (4) the journal is removed. A process killed before (1)
changed nothing, and its sources are extracted again by the next run. Killed after (1),
the next process to take the memory lock replays the journal — rewriting files and
committing the ledger are both idempotent — so the run ends exactly as if it had not been
interrupted. Every writer holds the memory lock and calls `recover` first, so nothing is
written between a crash and its replay.

A person's editor takes no lock. So a command carries the hash of each file as it READ it
(`MemoryStore.planned_from`), never read again at commit time, and each file is written only
if it still holds that (checked just before its rename, and again just after: see
`MemoryStore.replace`). A file saved meanwhile raises `FileChanged` with nothing of the
command written, and `commit_planned` plans the command again on the person's text
(ATTEMPTS times, then a one-line refusal naming the file).

A command that fails (rather than dies) leaves nothing behind: when a file cannot be written
(a folder it may not write, a full disk, a person's save) or the ledger refuses, the files it
already wrote are put back as they were, the journal is removed, and the error is raised —
no change, no provenance, nothing a later command would carry out. Only a process that dies
(a kill, a power cut, Ctrl-C) leaves its journal to be finished. If putting a file back fails
too, the journal stays, so that the next command finishes the command rather than leave it half done.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from hylo_memory.decay import Dimension
from hylo_memory.decay.files.store import ARCHIVE_DIR, MemoryStore, atomic_write, digest, fsync_dir
from hylo_memory.domain.sources import PoolUnit
from hylo_memory.domain.usage import Usage
from hylo_memory.errors import FileChanged, HyloMemoryError, JournalError, storage_error
from hylo_memory.pipeline.state.candidates import Waiting
from hylo_memory.pipeline.state.candidates import write as write_candidates
from hylo_memory.pipeline.state.changes import ChangeRecord
from hylo_memory.pipeline.state.leases import close
from hylo_memory.pipeline.state.ledger import STATE_DIR, Counts, Ledger, RunStatus
from hylo_memory.pipeline.state.names import JOURNAL_FILE as JOURNAL_FILE
from hylo_memory.pipeline.state.names import journal_path as journal_path
from hylo_memory.pipeline.state.trust import has_change, record_change, recorded_sources

LOG = logging.getLogger(__name__)
RUNS_DIR = "runs"  # a refresh's summaries (pipeline/refresh.py writes them)
BROKEN_SUFFIX = ".broken-"  # a journal set aside: journal.json.broken-20261130T030000
# A journal is the new text of six memory files and a run's source list: far below this.
# One past it was not written by a run (a run refuses to write one), and is set aside unread.
MAX_JOURNAL_BYTES = 256 * 1024 * 1024
MAX_FIELD = 65_536  # characters of a path, hash, title or tag in a journal (the vault bounds them far lower)
MAX_TAGS = 1000
ATTEMPTS = 3  # plans of one command on files a person keeps saving, before it refuses
REPLAN_PAUSE = 0.05  # seconds, times the attempt, before planning again on a person's save
T = TypeVar("T")


class RunEnd(BaseModel):
    """The ledger's record of a finished run."""

    run_id: int
    today: dt.date
    status: RunStatus
    waiting: int
    counts: Counts
    usage: Usage
    extractor: str | None = None  # what read the run's sources (a later, different one may read them again)


class Journal(BaseModel):
    files: dict[Dimension, str | None] = {}  # the full new text of each changed memory file (None: removed)
    # Each such file's sha256 when the journal was written (None: it did not exist). A replay,
    # maybe days later, writes a file only if it still holds that: the person's own edit wins.
    before: dict[Dimension, str | None] = {}
    sources: list[tuple[str, str]] = []  # (path, content hash) extracted by the run
    pool: list[PoolUnit] = []  # external units the run read, for the themes of later runs
    run: RunEnd | None = None
    change: ChangeRecord | None = None  # what `history` and `undo` will know of this command (docs/spec.md §8)
    lease: str | None = None  # the assistant's lease this run answers, closed as its sources are marked read
    candidates: Waiting | None = None  # what the command does to the facts waiting for a sighting (docs/spec.md §3.2)


def commit_planned(store: MemoryStore, ledger: Ledger | None, plan: Callable[[], tuple[Journal | None, T]]) -> T:
    """Plan from the files as they are now and commit; plan again on a person's text when they saved
    a file meanwhile (up to ATTEMPTS times, then a one-line refusal naming the file). `plan` reads the
    files through `store` and returns the journal (None: nothing to write) and what the command reports."""
    for attempt in range(ATTEMPTS):
        if attempt:
            time.sleep(REPLAN_PAUSE * attempt)  # a save under way ends before its text is read
        try:
            journal, result = plan()
            if journal is not None:
                commit(store, journal, ledger)
            return result
        except FileChanged as exc:
            changed = exc.path
    raise FileChanged(changed, ATTEMPTS)


def commit(store: MemoryStore, journal: Journal, ledger: Ledger | None = None) -> None:
    """Make the journal's writes durable, in the crash-safe order above (call under the memory lock).

    Each file must still hold what the command read: else `FileChanged`, with nothing written."""
    path = journal_path(store)
    if path.exists():  # an unfinished journal is finished by `recover`, never overwritten
        raise JournalError(f"{path}: an interrupted run's journal is waiting; run the command again")
    read = {d: store.planned_from(d) for d in journal.files}
    _still_as_read(store, read)
    update: dict[str, object] = {"before": {d: digest(data) for d, data in read.items()}}
    if journal.change is not None:
        update["change"] = journal.change.model_copy(update={"before": {
            d: None if data is None else data.decode("utf-8") for d, data in read.items()}})
    journal = journal.model_copy(update=update)
    data = journal.model_dump_json().encode("utf-8")
    if len(data) > MAX_JOURNAL_BYTES:  # nothing is written: a journal recover would refuse is no safety
        raise JournalError(f"{path}: this run's writes ({len(data):,} bytes) are more than a journal holds "
                           f"({MAX_JOURNAL_BYTES:,}); nothing was written")
    atomic_write(path, data)
    written: list[Dimension] = []
    try:
        _send_first(store, journal)
    except BaseException:
        _remove(path)  # nothing was written here: the command failed whole, its sources wait (docs/spec.md §10)
        raise
    try:
        _apply(store, ledger, journal, written)
    except Exception:
        if _put_back(store, journal, read, written):
            _remove(path)
        raise
    _remove(path)
    for dimension in written:  # only now: a command that failed leaves the archive as it found it
        store.prune(dimension)


def _send_first(store: MemoryStore, journal: Journal) -> None:
    """A Hylo vault's memory lives in Hylo: its files are sent there before anything is written here, so a
    Hylo that cannot take them (or changed one meanwhile: `FileChanged`, planned again) fails the command
    whole, with no source marked read (docs/spec.md §10)."""
    from hylo_memory.pipeline.vaults import home_of

    home_of(store.root).send(journal.files)


def _still_as_read(store: MemoryStore, read: dict[Dimension, bytes | None]) -> None:
    """Before the journal: a file saved since the command read it is `FileChanged`, and nothing is written."""
    for dimension, data in read.items():
        if store.read_bytes(dimension) != data:
            raise FileChanged(store.path(dimension))


def _put_back(store: MemoryStore, journal: Journal, read: dict[Dimension, bytes | None],
              written: list[Dimension]) -> bool:
    """Give the files a failed commit wrote what they held before it; False if one could not be."""
    for dimension in reversed(written):
        text = journal.files[dimension]
        try:
            store.put_back(dimension, read[dimension], digest(None if text is None else text.encode("utf-8")))
        except (HyloMemoryError, OSError) as exc:
            LOG.warning("%s: could not be put back as it was before this failed command (%s); the next "
                        "command finishes that command instead", store.path(dimension), exc)
            return False
    return True


def _remove(path: Path) -> None:
    path.unlink()
    fsync_dir(path.parent)


def recover(store: MemoryStore, run_lock_held: bool = False) -> bool:
    """Finish writes a crash interrupted after their journal was written; True if there were some.
    Call under the memory lock (and say if the run lock is held too): it also sweeps dead temp files, and
    puts back (or archives) a file a killed write had moved aside, before the journal is replayed."""
    store.settle_asides()
    _sweep_temp_files(store, run_lock_held)
    path = journal_path(store)
    try:
        journal = _load(path)
    except _Broken as exc:
        _set_aside(path, str(exc))
        return False
    if journal is None:
        return False
    try:
        if journal.run is None and journal.change is None:
            _apply(store, None, journal)
        else:
            with Ledger.for_memory_dir(store.folder) as ledger:
                _apply(store, ledger, journal)
    except (HyloMemoryError, OSError):
        raise  # a locked ledger, a full disk, a refused memory file: the journal waits for the next command
    except (ValueError, TypeError, OverflowError, MemoryError, RecursionError) as exc:
        _set_aside(path, f"it cannot be replayed ({type(exc).__name__})")
        return False
    path.unlink()
    fsync_dir(path.parent)
    LOG.warning("finished the writes of a command interrupted earlier (%s)", path)
    return True


class _Broken(Exception):
    """A journal that cannot be replayed as it is, and why."""


def _load(path: Path) -> Journal | None:
    """The journal at `path`, None when there is none, or _Broken: every check made before anything is written."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise storage_error(exc) from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise _Broken("it is not a regular file")
        if info.st_size > MAX_JOURNAL_BYTES:
            raise _Broken(f"it is {info.st_size:,} bytes, more than a run writes")
        data = handle.read(MAX_JOURNAL_BYTES + 1)
    if len(data) > MAX_JOURNAL_BYTES:
        raise _Broken("it is more than a run writes")
    try:
        journal = Journal.model_validate_json(data)
    except (ValidationError, ValueError, MemoryError, RecursionError):
        raise _Broken("it is not a journal hylo-memory can read") from None
    fields = [p for pair in journal.sources for p in pair]
    fields += [t for u in journal.pool for t in (u.path, u.title, *u.tags)]
    if any(len(u.tags) > MAX_TAGS for u in journal.pool) or any(len(f) > MAX_FIELD for f in fields):
        raise _Broken("it holds fields far longer than a vault's")
    return journal


def _set_aside(path: Path, why: str) -> None:
    """Rename a journal that cannot be replayed, beside itself, so that the vault is never stuck on it."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.name}{BROKEN_SUFFIX}{stamp}")
    n = 1
    while target.exists() or target.is_symlink():
        n += 1
        target = path.with_name(f"{path.name}{BROKEN_SUFFIX}{stamp}-{n}")
    try:
        os.replace(path, target)
        fsync_dir(path.parent)
    except OSError as exc:
        raise storage_error(exc) from None
    LOG.warning("%s: an interrupted run's journal was set aside as %s (%s); the memory files keep what they "
                "hold, and the notes that run read may be read again", path, target.name, why)


def _apply(store: MemoryStore, ledger: Ledger | None, journal: Journal,
           written: list[Dimension] | None = None) -> None:
    """Write the journal's files, then record it in the ledger. A live commit lists in `written` the
    files written so far; a replay (no `written`) leaves a file already written, or edited since, as it is."""
    for dimension, text in journal.files.items():
        if written is None:
            _replay(store, journal, dimension, text)
        else:
            store.replace(dimension, None if text is None else text.encode("utf-8"), journal.before[dimension],
                          prune=False)
            written.append(dimension)
    if ledger is not None:
        _record(ledger, journal)


def _replay(store: MemoryStore, journal: Journal, dimension: Dimension, text: str | None) -> None:
    current = store.read_bytes(dimension)
    if current == (None if text is None else text.encode("utf-8")):
        return  # on a replay, a file already written is left as it is (and not archived again)
    expected = journal.before.get(dimension, digest(current))
    try:
        if digest(current) != expected:
            raise FileChanged(store.path(dimension))
        store.replace(dimension, None if text is None else text.encode("utf-8"), expected)
    except FileChanged:
        LOG.warning("%s changed since the interrupted command planned its writes: kept as it is now "
                    "(that command's version of it is not written)", store.path(dimension))


def _record(ledger: Ledger, journal: Journal) -> None:
    run, change = journal.run, journal.change
    with ledger.transaction():
        if run is not None and ledger.run_status(run.run_id) == "running":
            if change is not None:  # in this transaction, so a replay finds them recorded or not at all
                change = change.model_copy(update={"replaced_sources": recorded_sources(
                    ledger, [path for path, _ in journal.sources])})
            ledger.record_sources(run.run_id, run.today, journal.sources, run.extractor)
            ledger.record_pool(journal.pool)
            ledger.finish_run(run.run_id, run.status, run.waiting, run.counts.model_dump(), run.usage)
            if journal.lease is not None:
                close(ledger, journal.lease)
        if journal.candidates is not None:  # a delta: applied again on a replay, it ends the same
            write_candidates(ledger, journal.candidates)
        if change is not None and not has_change(ledger, change.token):
            record_change(ledger, change, dict(journal.files))


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
