"""A vault whose notes are all older than the window (docs/spec.md §4.1): the newest note's date, and the command
that reads the window before it, in `refresh` and `status`."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from cli_helpers import hylo
from vault_helpers import day, short, write_note

TODAY = "2026-12-06"  # fifteen months after the vault's newest note
NEWEST = "2025-09-06"
READS_UP_TO_IT = f"`hylo-memory refresh --vault {{vault}} --today {NEWEST}"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """Three notes of summer 2025, named and saved on their days."""
    for date, body in (("2025-08-01", "I love green tea."), ("2025-08-20", "I live in Porto."),
                       (NEWEST, "I want to learn the cello.")):
        short(tmp_path, date, body, slug=date)
    return tmp_path


def refresh(vault: Path, *args: str) -> str:
    result = hylo("refresh", "--vault", vault, "--today", TODAY, "--extractor", "offline", *args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def command_in(text: str) -> list[str]:
    """The arguments of the `hylo-memory refresh …` a hint names."""
    found = re.search(r"`(hylo-memory refresh [^`]*)`", text)
    assert found is not None, text
    return shlex.split(found.group(1))[1:]


def test_refresh_names_the_newest_note_and_the_window_it_looked_in(vault: Path) -> None:
    out = refresh(vault)
    assert f"Hint: no note is dated in the window (2026-09-08 to {TODAY}); the newest is dated {NEWEST}: " in out


def test_after_a_complete_run_the_hint_names_the_command_that_reaches_back_before_the_newest_note(vault: Path) -> None:
    out = refresh(vault)  # a complete run: the next one is incremental, so --today alone would read two days
    assert f"{READS_UP_TO_IT.format(vault=vault)} --reextract --since 2025-06-09` reads the 90 days up to it" in out


def test_the_command_the_refresh_hint_names_reads_the_old_notes(vault: Path) -> None:
    result = hylo(*command_in(refresh(vault)), "--extractor", "offline")
    assert "Sources extracted: 3 short notes" in result.stdout
    assert "Mode: incremental run, 90-day window from 2025-06-09" in result.stdout


def test_the_hint_goes_to_stderr_and_into_the_json_summary(vault: Path) -> None:
    result = hylo("refresh", "--vault", vault, "--today", TODAY, "--extractor", "offline", "--json")
    hints = json.loads(result.stdout)["hints"]
    assert len(hints) == 1 and f"the newest is dated {NEWEST}" in hints[0]
    assert f"hylo-memory: hint: {hints[0]}\n" in result.stderr


def test_before_any_run_the_hint_names_a_first_run_on_the_newest_notes_day(vault: Path) -> None:
    out = refresh(vault, "--dry-run")
    assert f"{READS_UP_TO_IT.format(vault=vault)}` reads the 90 days up to it" in out
    result = hylo(*command_in(out), "--extractor", "offline")
    assert "Mode: first run, 90-day window from 2025-06-09" in result.stdout
    assert "Sources extracted: 3 short notes" in result.stdout


def test_status_names_the_newest_note_and_the_command(vault: Path) -> None:
    result = hylo("status", "--vault", vault, "--today", TODAY)
    assert result.exit_code == 0, result.stderr
    assert (f"Hint: no note is dated in the window (2026-09-08 to {TODAY}); the newest is dated {NEWEST}: "
            f"{READS_UP_TO_IT.format(vault=vault)}` reads the 90 days up to it\n") in result.stdout


def test_status_json_carries_the_hint(vault: Path) -> None:
    hints = json.loads(hylo("status", "--vault", vault, "--today", TODAY, "--json").stdout)["hints"]
    assert len(hints) == 1 and f"--today {NEWEST}" in hints[0]


def test_no_hint_when_a_note_is_in_the_window(vault: Path) -> None:
    short(vault, "2026-12-05", "I feel rested.", slug="today")
    assert "Hint:" not in refresh(vault)
    assert "Hint:" not in hylo("status", "--vault", vault, "--today", TODAY).stdout


def test_no_hint_when_the_window_notes_were_read_already(vault: Path) -> None:
    short(vault, "2026-12-05", "I feel rested.", slug="today")
    refresh(vault)
    assert "Hint:" not in refresh(vault)


def test_no_hint_for_a_vault_with_no_note(tmp_path: Path) -> None:
    (tmp_path / "_shorts").mkdir()
    assert "Hint:" not in refresh(tmp_path)


def test_a_copied_vault_is_dated_by_its_notes_frontmatter_not_the_copys_mtimes(tmp_path: Path) -> None:
    for n, created in enumerate(("2025-07-01", NEWEST, "2025-08-15")):  # names without dates, saved today
        write_note(tmp_path, f"_shorts/note-{n}.md", "I love green tea.", mtime=day(TODAY), created=created)
    assert f"the newest is dated {NEWEST}: " in refresh(tmp_path)
