"""Notes read as plain text by several processes when a run has much to read: a first run over a big vault.

`note_text.read_note` is pure and CPU-bound (markdown-it is Python): a first run over 9 MB of Obsidian
markup spends most of its time there. A run reads its notes itself until it has spent START_SECONDS on
them; then a pool of worker processes starts in the background (forked where that is safe, else
spawned: see `_start_method`), and once its workers have started, each batch goes to them. A
pool that cannot start, or breaks (a worker killed), is given up and the run reads the rest itself:
the text is the same either way, only sooner.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent import futures
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Protocol

from hylo_memory.pipeline.notes.text import NoteText, read_note

START_SECONDS = 0.25  # read alone up to here: a pool's start (~0.1 s of a core a worker) is worth it past it
MAX_WORKERS = 4  # a first run's reading, not the machine's every core
CHUNK_CHARS = 64_000  # what a worker is sent at once: ~20 ms of parsing
PARENT_CHECK = 0.2  # seconds between a worker's looks at whether the run is still there


class Pending(Protocol):
    """A batch being read: its notes' texts, in order, when asked."""

    def result(self) -> list[NoteText]: ...


class _Done:
    def __init__(self, texts: list[NoteText]) -> None:
        self.texts = texts

    def result(self) -> list[NoteText]:
        return self.texts


class _Reading:
    def __init__(self, reader: NoteReader, bodies: Sequence[str], chunks: list[Future[list[NoteText]]]) -> None:
        self.reader, self.bodies, self.chunks = reader, bodies, chunks

    def result(self) -> list[NoteText]:
        try:
            return [text for chunk in self.chunks for text in chunk.result()]
        except Exception:  # noqa: BLE001 - a pool broken or shut: read here, where a fault of our own shows as it is
            self.reader.pooled -= len(self.bodies)
            self.reader.give_up()
            return read_notes(self.bodies)


def read_notes(bodies: Sequence[str]) -> list[NoteText]:
    """What a worker does with a chunk (and the run itself with a batch)."""
    return [read_note(body) for body in bodies]


def _chunks(bodies: Sequence[str]) -> list[Sequence[str]]:
    """`bodies` in runs of at least CHUNK_CHARS: one message a chunk, not one a note (most notes are short)."""
    chunks, start, size = [], 0, 0
    for end, body in enumerate(bodies, start=1):
        size += len(body)
        if size >= CHUNK_CHARS:
            chunks.append(bodies[start:end])
            start, size = end, 0
    if start < len(bodies):
        chunks.append(bodies[start:])
    return chunks


def default_workers() -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return min(MAX_WORKERS, cores)


class NoteReader:
    """Reads note bodies as plain text (`read_note`): here, or by a pool of `workers` processes once reading them
    here has taken `start_seconds`."""

    def __init__(self, workers: int | None = None, start_seconds: float = START_SECONDS, wait: bool = False,
                 start_method: str | None = None) -> None:
        self.workers = default_workers() if workers is None else workers
        self.start_seconds = start_seconds
        self.start_method = start_method  # None: as `_start_method` chooses when the pool starts
        self.method: str | None = None  # how the pool's workers were started, once they were
        self.wait = wait  # for the workers to start, rather than read here meanwhile (the tests' certainty)
        self.seconds = 0.0  # spent reading here
        self.pooled = 0  # notes sent to the pool
        self.pool: ProcessPoolExecutor | None = None
        self._started: list[Future[list[NoteText]]] = []
        self._given_up = False

    def __enter__(self) -> NoteReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self, bodies: Sequence[str]) -> Pending:
        """Begin reading `bodies`; the texts come from the result's `result()`."""
        pool = self._ready_pool()
        if pool is None:
            started = time.perf_counter()
            texts = read_notes(bodies)
            self.seconds += time.perf_counter() - started
            return _Done(texts)
        try:
            with _interrupts_held():  # a submit may start a worker
                reading = _Reading(self, bodies, [pool.submit(read_notes, chunk) for chunk in _chunks(bodies)])
            self.pooled += len(bodies)
            return reading
        except Exception:  # noqa: BLE001 - as in _Reading.result
            self.give_up()
            return _Done(read_notes(bodies))

    def _ready_pool(self) -> ProcessPoolExecutor | None:
        """The pool once its workers have started; started here once the run has read enough alone."""
        if self._given_up or self.workers < 2:
            return None
        if self.pool is None:
            if self.seconds < self.start_seconds:
                return None
            try:
                self.method = self.start_method or _start_method()
                self.pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context(self.method),
                                                initializer=_worker_start, initargs=(os.getpid(),))
                with _interrupts_held():
                    self._started = [self.pool.submit(read_notes, [""]) for _ in range(self.workers)]
            except Exception:  # noqa: BLE001 - no processes to be had here (a sandbox, a limit): read alone
                self.give_up()
                return None
        if self.wait:
            futures.wait(self._started)
        if not all(future.done() for future in self._started):
            return None  # still starting: this batch is read here meanwhile
        if any(future.exception() is not None for future in self._started):
            self.give_up()
            return None
        return self.pool

    def give_up(self) -> None:
        self._given_up = True
        self.close()

    def close(self) -> None:
        pool, self.pool = self.pool, None
        if pool is not None:
            # A pool that read nothing is not waited for: its workers may still be starting (spawned, importing).
            pool.shutdown(wait=self.pooled > 0, cancel_futures=True)


def _start_method() -> str:
    """`fork` where it is safe (Linux, no other thread running): instant, and no module imported again. Else
    `spawn`, a fresh interpreter each, which imports the main module as `__mp_main__` (ours are guarded)."""
    return "fork" if sys.platform == "linux" and threading.active_count() == 1 else "spawn"


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """SIGINT held back while workers start: a worker begins with it held, so a Ctrl-C during its start (a spawned
    worker imports for a while) is no traceback of its own. The run itself gets the Ctrl-C just after."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _worker_start(parent: int) -> None:
    # Ctrl-C reaches every process of the terminal's group: the run stops and says so, its workers quietly.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    # The run's stdout is never a worker's to write: an MCP server speaks its protocol there.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    threading.Thread(target=_outlive_no_parent, args=(parent,), daemon=True).start()


def _outlive_no_parent(parent: int) -> None:
    """End the worker once the run is gone (killed, or left by `os._exit`): a worker waits on its queue forever
    otherwise, holding the dead run's stdout and stderr open for whoever reads them."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK)
    os._exit(0)
