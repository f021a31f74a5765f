"""The notes as the archive (docs/spec.md §9.7): the index of every note the vault reads, kept by each refresh and
rebuilt by `index`.

A refresh brings it up to date within bounds: notes gone from the vault dropped, new and changed ones read
(newest first, at most NOTES_PER_REFRESH), then their passages embedded by the bundled model for at most
EMBED_SECONDS; what is left, the next refresh does. `rebuild_archive` reads every note again and embeds
every passage with no vector. Whatever goes wrong here, the refresh it follows stands: one warning.
"""

from __future__ import annotations

import logging
import math
import sqlite3
import time
from collections.abc import Callable, Iterable
from typing import Protocol

from pydantic import BaseModel

from hylo_memory.errors import HyloMemoryError, LockTimeout
from hylo_memory.extractors import bundled
from hylo_memory.pipeline.notes.passages import ArchivedNote
from hylo_memory.pipeline.state import archive_matrix
from hylo_memory.pipeline.state.archive import ArchiveIndex
from hylo_memory.pipeline.state.locking import hold
from hylo_memory.pipeline.state.names import STATE_DIR
from hylo_memory.pipeline.state.opened import Opened
from hylo_memory.pipeline.vaults import archive_of

log = logging.getLogger(__name__)

NOTES_PER_REFRESH = 2_000  # notes a refresh reads into the index at most (~10 s); the next refresh reads on
EMBED_SECONDS = 30.0  # what a refresh spends embedding passages; `index` embeds them all
WRITE_NOTES = 200  # notes written to the index a transaction
EMBED_CHUNK = 256  # passages taken from the index to embed at a time
ARCHIVE_LOCK = "archive.lock"  # one writer of the index at a time: a refresh passes, `index` waits



class Progress(Protocol):
    """Told how a long indexing goes (`index`'s bar): meaning.Progress's shape."""

    def started(self, what: str, total: int) -> None: ...

    def advanced(self, count: int) -> None: ...


class _Unwatched:
    def started(self, what: str, total: int) -> None:
        pass

    def advanced(self, count: int) -> None:
        pass


class Indexing(BaseModel):
    """What one update of the archive did, and what it left for the next."""

    notes: int  # notes in the vault
    read: int  # read (new or changed)
    dropped: int  # gone from the vault, and from the index
    passages: int  # passages written
    waiting: int  # new or changed notes left for the next update
    embedded: int = 0  # passages embedded
    unembedded: int = 0  # passages still without a vector
    skipped: int = 0  # notes that could not be read

    def line(self) -> str:
        said = [f"{self.notes:,} notes: {self.read:,} read ({self.passages:,} passages), {self.dropped:,} dropped"]
        if self.waiting:
            said.append(f"{self.waiting:,} left for the next refresh")
        if self.embedded or self.unembedded:
            said.append(f"{self.embedded:,} passages embedded, {self.unembedded:,} to go")
        return "; ".join(said)


def update_archive(memory: Opened) -> Indexing | None:
    """A refresh's step: the index brought up to date, within bounds. None when another command is writing it, or
    it could not be written (said in one warning): the next refresh does it."""
    try:
        with hold(memory.folder / STATE_DIR, ARCHIVE_LOCK, 0.0, "indexing the notes"):
            return index_notes(memory, NOTES_PER_REFRESH, EMBED_SECONDS)
    except LockTimeout:
        log.debug("the notes' index is being written by another command: left to it")
    except (HyloMemoryError, OSError, sqlite3.Error) as exc:
        log.warning("the notes' index was not updated: %s", exc)
    return None


def rebuild_archive(memory: Opened, progress: Progress | None = None,
                    stop: Callable[[], bool] | None = None) -> Indexing:
    """`index`'s step: every note read again, every passage without a vector embedded (docs/spec.md §9.7); `stop`,
    asked between batches of passages, ends the embedding early (what was embedded is kept)."""
    with hold(memory.folder / STATE_DIR, ARCHIVE_LOCK, memory.config.lock_timeout, "indexing the notes"):
        return index_notes(memory, None, math.inf, progress, again=True, stop=stop)


def index_notes(memory: Opened, most: int | None, embed_seconds: float,
                progress: Progress | None = None, again: bool = False, stop: Callable[[], bool] | None = None
                ) -> Indexing:
    """Bring the index of the vault's notes up to date: at most `most` notes read (None: all), `embed_seconds`
    spent embedding; `again`: every note read again, not only new and changed ones. The caller holds the lock."""
    progress = progress or _Unwatched()
    folder, config = memory.folder, memory.config
    archive = archive_of(memory.vault, config)
    listed = archive.listing()
    with ArchiveIndex.writing(folder) as index:
        if again:
            index.stale()
        kept = index.stamps()
        gone = [path for path in kept if path not in listed]
        index.drop(gone)
        changed = sorted((p for p, stamp in listed.items() if kept.get(p) != stamp),
                         key=lambda p: listed[p].mtime_ns, reverse=True)  # the newest first: a bounded run's best
        todo = changed if most is None else changed[:most]
        progress.started("Indexing notes", len(todo))
        written, skipped = _read_into(index, archive.read(todo), progress)
        done = Indexing(notes=len(listed), read=len(todo), dropped=len(gone), passages=written,
                        waiting=len(changed) - len(todo), skipped=skipped)
        vectors = config.bundled_embeddings and bundled.installed()
        if vectors and embed_seconds > 0:
            try:
                done.embedded, done.unembedded = _embed(index, embed_seconds, progress, stop or (lambda: False))
            except bundled.LoadFailed as exc:  # a search says so in its own line
                log.warning("the notes' passages were not embedded: %s", exc)
        if again:
            index.tidy()
        if vectors:  # what a search reads at once, of the index as it is now
            archive_matrix.keep(index, folder, bundled.cache_key())
    return done


def _read_into(index: ArchiveIndex, notes: Iterable[ArchivedNote], progress: Progress) -> tuple[int, int]:
    """Write the notes read into the index, a transaction a batch; the passages written and the notes skipped."""
    written = skipped = 0
    batch: list[ArchivedNote] = []
    for note in notes:
        batch.append(note)
        skipped += note.skipped is not None
        if len(batch) >= WRITE_NOTES:
            written += index.replace(batch)
            progress.advanced(len(batch))
            batch = []
    written += index.replace(batch)
    progress.advanced(len(batch))
    return written, skipped


def _embed(index: ArchiveIndex, seconds: float, progress: Progress, stop: Callable[[], bool]) -> tuple[int, int]:
    """Embed passages with no vector, newest first, for at most `seconds` (a batch at least); how many were, and how
    many are left. Kept a chunk at a time: a stop loses at most one chunk's work."""
    import numpy as np

    model = bundled.cache_key()
    end = time.monotonic() + seconds
    embedded = 0
    progress.started("Embedding notes for recall", index.unembedded_count(model))
    while (todo := index.unembedded(model, EMBED_CHUNK)) and (not embedded or time.monotonic() < end):
        rows: dict[bytes, bytes] = {}
        for start in range(0, len(todo), bundled.BATCH):
            if rows and (time.monotonic() >= end or stop()):
                break
            batch = todo[start:start + bundled.BATCH]
            got = bundled.passages([text for _, text in batch])
            # Half the bytes, and a cosine off by less than 0.001: the ranking is the same.
            rows.update((d, np.frombuffer(got[text], dtype=np.float32).astype(np.float16).tobytes())
                        for d, text in batch)
            progress.advanced(len(batch))
        index.keep_vectors(model, rows)
        embedded += len(rows)
        if stop():
            break
    return embedded, index.unembedded_count(model)
