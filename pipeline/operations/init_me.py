"""`init` offers to start the person's own file, `_me.md`, from a short template (docs/spec.md §2.1).

It is the only write `_me.md` ever gets from hylo-memory, and only where there is none: the template is linked
into place, which never replaces a file, so one written meanwhile (by the person, or another `init`) stays.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from hylo_memory.decay.files.store import fsync_dir, temp_file, writable
from hylo_memory.pipeline.state.me_file import me_path
from hylo_memory.templates import render

if TYPE_CHECKING:
    from hylo_memory.pipeline.state.opened import Opened


class MeStart(NamedTuple):
    """Where `_me.md` is, and whether `init` started it now (False: one was there, left as it is)."""

    path: Path
    started: bool


def me_file_of(memory: Opened) -> Path:
    """The vault's `_me.md`, in its memory folder (checked to be inside the vault when the memory was opened)."""
    return me_path(memory.folder)


def me_exists(memory: Opened) -> bool:
    return os.path.lexists(me_file_of(memory))


def start_me(memory: Opened) -> MeStart:
    """`_me.md` from the template, written only when there is none (a link never replaces a file)."""
    path = me_file_of(memory)
    if os.path.lexists(path):
        return MeStart(path, started=False)
    with writable(path.parent):
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = temp_file(path, render("me.md.j2").encode("utf-8"))
        try:
            os.link(tmp, path)  # never over a file: FileExistsError when one appeared meanwhile
        except FileExistsError:
            return MeStart(path, started=False)
        finally:
            tmp.unlink(missing_ok=True)
        fsync_dir(path.parent)
    return MeStart(path, started=True)
