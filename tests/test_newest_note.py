"""How the newest note of a vault is found (pipeline/vaults/newest.py): by names and mtimes, opening few notes."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from vault_helpers import day, short, write_note

from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.vaults.folder import FolderVault, Listed
from hylo_memory.pipeline.vaults.newest import newest_note

TODAY = "2026-12-06"
NEWEST = "2025-09-06"


def test_the_newest_note_is_found_opening_only_the_notes_whose_names_could_be_newer(tmp_path: Path) -> None:
    for date in ("2025-08-01", "2025-08-20", NEWEST):
        short(tmp_path, date, "I love green tea.", slug=date)
    opened: list[str] = []

    class Counting(FolderVault):
        def dates(self, note: Listed) -> list[dt.date]:
            opened.append(note.rel)
            return super().dates(note)

    config = Config()
    folder = Counting(tmp_path, config.extra_scan_paths, config.memory_dir, config.max_note_bytes)
    assert newest_note(folder, day(TODAY)) == day(NEWEST)
    assert opened == [f"_shorts/{NEWEST}-{NEWEST}.md"]


def test_where_nothing_ranks_the_notes_at_most_the_given_number_is_opened(tmp_path: Path) -> None:
    for n in range(5):  # nothing in their names or mtimes tells them apart
        write_note(tmp_path, f"_shorts/note-{n}.md", "I love green tea.", mtime=day(TODAY), created=f"2025-0{n + 1}-01")
    config = Config()
    folder = FolderVault(tmp_path, config.extra_scan_paths, config.memory_dir, config.max_note_bytes)
    assert newest_note(folder, day(TODAY), opened=2) == day("2025-02-01")  # note-0's and note-1's: the walk's first
    assert newest_note(folder, day(TODAY), opened=5) == day("2025-05-01")


def test_a_note_dated_after_the_day_asked_is_not_the_newest(tmp_path: Path) -> None:
    short(tmp_path, NEWEST, "I love green tea.")
    short(tmp_path, "2027-01-01", "I will love green tea.", slug="later")
    config = Config()
    folder = FolderVault(tmp_path, config.extra_scan_paths, config.memory_dir, config.max_note_bytes)
    assert newest_note(folder, day(TODAY)) == day(NEWEST)


def test_a_vault_with_no_note_has_no_newest(tmp_path: Path) -> None:
    (tmp_path / "_shorts").mkdir()
    config = Config()
    assert newest_note(FolderVault(tmp_path, config.extra_scan_paths, config.memory_dir, config.max_note_bytes),
                       day(TODAY)) is None
