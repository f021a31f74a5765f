"""Replacing a file a person's editor may save at any moment, without a lock: by moving it aside.

A rename over the name would overwrite, unseen, a save by rename (an editor's temp file renamed
onto the name) landing between the writer's compare and its rename. So the writer renames the
file to a private name beside it (".NAME.XXXX.aside") — from then on that file is its alone —
compares what it moved, and gives its own file the name only if nothing appeared there meanwhile:
a hard link is atomic and never overwrites. A writer killed in between can leave the moved file
as the only copy of its version: `asides_of` finds it, for recovery to put back or archive.
"""

from __future__ import annotations

import errno
import os
import secrets
import time
from pathlib import Path

ASIDE_SUFFIX = ".aside"
SETTLE_SECONDS, SETTLE_TRIES = 0.05, 40  # how long a person's save into a replaced file is waited for to end
NO_HARD_LINKS = {errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS}


def move_aside(target: Path) -> Path | None:
    """Rename the file at `target` to a fresh private name beside it, where no one else writes; None: no file."""
    aside = target.with_name(f".{target.name}.{secrets.token_hex(8)}{ASIDE_SUFFIX}")
    while os.path.lexists(aside):  # 64 random bits: in practice never taken
        aside = target.with_name(f".{target.name}.{secrets.token_hex(8)}{ASIDE_SUFFIX}")
    try:
        os.rename(target, aside)
    except FileNotFoundError:
        return None
    return aside


def link_in(target: Path, path: Path) -> None:
    """Give the file at `path` the name `target`, unless something has appeared at that name: then
    FileExistsError, and what is there is left alone. `path` may lose its own name (the caller removes it)."""
    try:
        os.link(path, target)
    except OSError as exc:
        if exc.errno not in NO_HARD_LINKS:
            raise
        # No hard links here (some network and FUSE file systems): a rename, once the name is seen free.
        # A save landing between the two is the one thing such a file system leaves unguarded.
        if os.path.lexists(target):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(target)) from None
        os.rename(path, target)


def asides_of(target: Path) -> list[Path]:
    """The files moved aside from `target` and still there (a write under way, or one a kill interrupted),
    earliest moved first."""
    prefix = f".{target.name}."
    try:
        names = [n for n in os.listdir(target.parent) if n.startswith(prefix) and n.endswith(ASIDE_SUFFIX)]
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = []
    for name in names:
        try:
            found.append((os.lstat(target.parent / name).st_ctime_ns, target.parent / name))
        except FileNotFoundError:
            continue
    return [path for _, path in sorted(found)]


def read_fd(fd: int) -> bytes:
    """The whole of an open file, from its start, as it is now."""
    chunks, offset = [], 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


class Replaced:
    """The file a write replaces, open: what it held when checked, the private name it was moved aside
    to, where it is archived and whether that is the file itself (a hard link) or a copy."""

    def __init__(self, fd: int, data: bytes, aside: Path):
        self.fd, self.data, self.aside = fd, data, aside
        self.archived: Path | None = None
        self.linked = False

    def saved_into(self) -> bool:
        """Whether a person wrote into it since it was checked (their editor had it open)."""
        return read_fd(self.fd) != self.data

    def settled(self) -> bytes:
        """What it holds once a save into it, maybe still under way, has ended (for a copy: waited for)."""
        now = read_fd(self.fd)
        for _ in range(SETTLE_TRIES):
            time.sleep(SETTLE_SECONDS)
            if (again := read_fd(self.fd)) == now:
                break
            now = again
        return now
