"""What the run and the state know of a vault (docs/spec.md §1, §10): its notes, and where its memory files live.

Two backends keep these promises. A folder vault is the notes on disk and is its own memory's home. A
Hylo vault, reached by URL, is a local mirror on which every command works as on a folder: its notes
are pulled into the mirror before a run reads them, and its memory files taken from Hylo under the
memory lock, sent to Hylo first in a commit, and pushed back on leaving the lock.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hylo_memory.decay import Dimension
    from hylo_memory.domain.sources import Source
    from hylo_memory.pipeline.notes.passages import ArchivedNote, Stamp


class Span(Protocol):
    """The dates a run reads, inclusive (a run's `Window` is one)."""

    start: dt.date
    today: dt.date

    def contains(self, day: dt.date) -> bool: ...


class Skipped(BaseModel):
    """A note the vault could not read, and why: named in the run summary."""

    path: str
    reason: str


class Vault(Protocol):
    """The notes a run reads."""

    def pull(self, window: Span) -> None:
        """Bring the window's notes to where `sources` reads them (a Hylo vault: into its mirror)."""
        ...

    def sources(self, window: Span) -> Iterator[Source | Skipped]:
        """Every source dated inside the window or after it (a note dated in the future: the run sets it
        aside until its day), in pages as the backend likes; skips named."""
        ...


class NoteArchive(Protocol):
    """Every note the vault reads, whatever its date, as the archive reads it (docs/spec.md §9.7)."""

    def listing(self) -> dict[str, Stamp]:
        """Each note's vault path and stamp, found without opening it."""
        ...

    def read(self, paths: Sequence[str]) -> Iterator[ArchivedNote]:
        """The notes `paths`, in order, as dated parts of text, whose words marked, secrets replaced."""
        ...


class MemoryHome(Protocol):
    """Where the memory files live, when not only in the folder the commands write (docs/spec.md §10)."""

    def take(self) -> None:
        """Under the memory lock, before anything is read: the memory files as their home has them now,
        anything a killed command left unsent sent first."""
        ...

    def send(self, files: Mapping[Dimension, str | None]) -> None:
        """A commit's first step, before any local write: the new files into their home, or nothing sent
        (`FileChanged` when the home changed one meanwhile: the command plans again)."""
        ...

    def push(self) -> None:
        """Leaving the memory lock: what this command changed, unless the home changed it meanwhile."""
        ...


class OwnHome:
    """A folder vault's memory: the files the commands write are the memory itself, so nothing to sync."""

    def take(self) -> None:
        pass

    def send(self, files: Mapping[Dimension, str | None]) -> None:
        pass

    def push(self) -> None:
        pass
