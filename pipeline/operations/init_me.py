"""`init` offers to start the person's own file, `_me.md`, from a short template (docs/spec.md §2.1).

It is the only write `_me.md` ever gets from hylo-memory, and only where there is none: the template is linked
into place, which never replaces a file, so one written meanwhile (by the person, or another `init`) stays.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from hylo_memory.decay.files.store import fsync_dir, temp_file, writable
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.state.me_file import me_path
from hylo_memory.pipeline.state.writing import open_store
from hylo_memory.templates import render


class MeStart(NamedTuple):
    """Where `_me.md` is, and whether `init` started it now (False: one was there, left as it is)."""

    path: Path
    started: bool


def me_file_of(vault: Path, config: Config) -> Path:
    """The vault's `_me.md`, in its memory folder (checked to be inside the vault)."""
    return me_path(open_store(vault, config).folder)


def me_exists(vault: Path, config: Config) -> bool:
    return os.path.lexists(me_file_of(vault, config))


def start_me(vault: Path, config: Config) -> MeStart:
    """`_me.md` from the template, written only when there is none (a link never replaces a file)."""
    path = me_file_of(vault, config)
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
