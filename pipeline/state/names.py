"""Where the state lives beside the memory files: names only, so a reader that needs a path
imports no ledger, journal or rules to learn it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hylo_memory.decay.files.store import MemoryStore

STATE_DIR = ".state"
JOURNAL_FILE = "journal.json"
ARCHIVE_FILE = "archive.sqlite"  # the notes as the archive: their passages, words and vectors (docs/spec.md §9.7)
ME_FILE = "_me.md"  # the person's own file in the memory folder: read by every reader, written by none (§2.1)
INTRO_FILE = "intro.txt"  # the last `refresh --intro`: the profile keeps it for later runs, `context` its name


def journal_path(store: MemoryStore) -> Path:
    return store.folder / STATE_DIR / JOURNAL_FILE
