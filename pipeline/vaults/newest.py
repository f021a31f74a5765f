"""The newest note of a folder vault, found without reading the vault: what a window holding no note is told."""

from __future__ import annotations

import datetime as dt
import os
import posixpath
from dataclasses import dataclass

from hylo_memory.pipeline.notes.dates import EARLIEST, name_day

from .folder import FolderVault, Listed
from .protocol import Skipped

NEWEST_OPENED = 200  # notes opened at most to read the dates they give: a vault of 10,000 is walked, not read


@dataclass
class _Days:
    """Every date up to `today` (a `Span`): the walk lists every note, its name or mtime permitting."""

    start: dt.date
    today: dt.date

    def contains(self, day: dt.date) -> bool:
        return self.start <= day <= self.today


def newest_note(folder: FolderVault, before: dt.date, opened: int = NEWEST_OPENED) -> dt.date | None:
    """The date of the newest note dated on or before `before`, as a run dates it (frontmatter, name; its mtime
    only where no note dates itself).

    The notes are listed by name and mtime alone, never opened; then opened newest guess first — the
    date in a note's name, else its mtime's, taken as the latest its date can be (a note is written
    before it is last saved) — until no guess left can beat the newest date read, or `opened` notes
    have been read. Where the guesses cannot rank them (a copied vault: every mtime the copy's), the
    answer is the newest of the `opened` notes read.
    """
    guesses: list[tuple[dt.date, Listed]] = []
    for found in folder.listed(_Days(EARLIEST, before)):
        if isinstance(found, Skipped):
            continue
        guess = name_day(posixpath.basename(found.rel)) or _mtime_day(found.path, folder.zone)
        if guess is not None:
            guesses.append((guess, found))
    guesses.sort(key=lambda g: g[0], reverse=True)
    newest: dt.date | None = None
    dated: dt.date | None = None  # the newest a note dates itself (its name, its frontmatter)
    for guess, note in guesses[:opened]:
        if dated is not None and guess < dated:
            break  # no note left can be dated later than the one found
        for day, own in folder.dates(note):
            if day <= before and (newest is None or day > newest):
                newest = day
            if own and day <= before and (dated is None or day > dated):
                dated = day
    # A note dated only by its mtime (an index page, a freshly copied vault) says little of when the person last
    # wrote: the newest note that dates itself does, where there is one.
    return dated or newest


def _mtime_day(path: str, zone: dt.tzinfo) -> dt.date | None:
    try:
        return dt.datetime.fromtimestamp(os.stat(path).st_mtime, zone).date()
    except (OSError, OverflowError, ValueError):
        return None  # a note the run would name as unreadable: it dates nothing
