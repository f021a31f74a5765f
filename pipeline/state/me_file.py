"""The person's own file, `_me.md` in the memory folder (docs/spec.md §2.1): read, never written.

No command writes it, reformats it or reads it as a memory file; `init` may start it once from a template
(pipeline/operations/init_me.py), and only when there is none. Every reader gets its text whole, or, when it
cannot be used (too large, not UTF-8, not a plain file), one line saying why and nothing of it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import NamedTuple

from hylo_memory.pipeline.notes.secrets import redact
from hylo_memory.pipeline.state.names import ME_FILE as ME_FILE


class MeFile(NamedTuple):
    """What `_me.md` holds: its text whole (None: no file, a blank one, or one that cannot be used) and, when it
    cannot be used, one line saying why."""

    text: str | None = None
    problem: str | None = None

    @property
    def statements(self) -> list[str]:
        """Its sentences, as the rules compare them with evidence (decay/stated.py)."""
        from hylo_memory.decay.stated import statements  # polarity and matching: loaded when compared, not read

        return statements(self.text)


def me_path(memory_dir: Path) -> Path:
    return memory_dir / ME_FILE


def persons_folder(memory_folder: Path, memory_dir: str, person_memory_dir: str) -> Path:
    """The folder of the person's `_me.md`, from a memory folder (`memory_dir` of the vault): the same folder, or for
    a scope's memory, the person's (`person_memory_dir` of the same vault)."""
    if person_memory_dir == memory_dir:
        return memory_folder
    return memory_folder.parents[len(Path(memory_dir).parts) - 1] / person_memory_dir


def read_me(memory_dir: Path, max_bytes: int) -> MeFile:
    """`_me.md` of the memory folder, read at most `max_bytes` (the setting `me_max_bytes`); never raises."""
    path = me_path(memory_dir)
    try:
        info = os.lstat(path)  # a link is not followed: it could lead out of the vault, to a file of secrets
    except FileNotFoundError:
        return MeFile()
    except OSError as exc:
        return MeFile(problem=f"{path}: cannot be read ({exc.strerror or exc}); left out")
    if stat.S_ISLNK(info.st_mode):
        return MeFile(problem=f"{path}: a link; left out (write _me.md itself in the memory folder)")
    if not stat.S_ISREG(info.st_mode):
        return MeFile(problem=f"{path}: not a regular file; left out")
    if info.st_size > max_bytes:
        return MeFile(problem=f"{path} is {info.st_size:,} bytes, over me_max_bytes ({max_bytes:,}); "
                              f"left out until it is shortened")
    try:
        with open(os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)), "rb") as handle:  # nor one put since
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        return MeFile(problem=f"{path}: cannot be read ({exc.strerror or exc}); left out")
    if len(data) > max_bytes:  # grew since it was measured
        return MeFile(problem=f"{path} is over me_max_bytes ({max_bytes:,}); left out until it is shortened")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return MeFile(problem=f"{path}: not UTF-8 text; left out")
    # One that states nothing (blank, or the template untouched: headings and comments) is as none. A password or key
    # in it reaches no reader, as in a note (docs/spec.md §1): every reader gets it as `[secret]`.
    text = redact(text)
    from hylo_memory.decay.stated import statements

    return MeFile(text=text if statements(text) else None)
