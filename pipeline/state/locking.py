"""Locks that keep two processes from interleaving their writes to one vault.

`filelock` takes an OS lock (flock) on a file in the state folder; the kernel drops it
when its process dies, so a lock left by a killed process is recovered without a human.
"""

from __future__ import annotations

import fcntl
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from hylo_memory.decay.files.store import writable
from hylo_memory.errors import LockTimeout

LOG = logging.getLogger(__name__)
MEMORY_LOCK = "memory.lock"  # held while memory files and the ledger are read for writing and written
RUN_LOCK = "run.lock"  # held for a whole refresh, so two refreshes never extract the same sources
PATIENCE = 1.0  # seconds of silent waiting before saying why we wait
DEFAULT_TIMEOUT = 600.0  # the config's `lock_timeout` default, for callers without a config


@contextmanager
def hold(state_dir: Path, name: str, timeout: float, what: str) -> Iterator[None]:
    """Hold the named lock; wait for it (saying so after a second) up to `timeout` seconds."""
    # The memory folder too is created private: parents=True alone would use the umask.
    with writable(state_dir.parent):
        state_dir.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        state_dir.mkdir(mode=0o700, exist_ok=True)
    lock = FileLock(str(state_dir / name), mode=0o600, preserve_lock_file=True,
                    fallback_to_soft=False)
    try:
        with writable(state_dir):
            lock.acquire(timeout=min(PATIENCE, timeout))
    except Timeout:
        if timeout <= PATIENCE:
            raise LockTimeout(f"{state_dir.parent}: another hylo-memory process is using this vault ({what})") from None
        LOG.warning("waiting for another hylo-memory process on %s (%s)…", state_dir.parent, what)
        try:
            lock.acquire(timeout=timeout - PATIENCE)
        except Timeout:
            raise LockTimeout(
                f"{state_dir.parent}: another hylo-memory process kept this vault busy for {timeout:.0f} s ({what})"
            ) from None
    try:
        yield
    finally:
        lock.release()


def is_held(state_dir: Path, name: str) -> bool:
    """Whether some process holds the named lock now; creates and writes nothing (for `status`)."""
    try:
        fd = os.open(state_dir / name, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        # A shared probe, released at once: a writer waiting for the lock just polls again.
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing the descriptor drops the probe's lock
    return False
