"""Dates in the person's zone, notes dated after today, and back-fills (issue 17, point 5)."""

from __future__ import annotations

import datetime as dt
import json
import os
import time
import zoneinfo
from collections.abc import Iterator
from pathlib import Path

import pytest
from freezegun import freeze_time
from vault_helpers import MEMORY, short, texts, write_note

from hylo_memory.decay import Dimension
from hylo_memory.pipeline.cli.group import main
from hylo_memory.pipeline.run.window import Window
from hylo_memory.pipeline.state.ledger import Ledger
from hylo_memory.pipeline.vaults import Skipped
from hylo_memory.pipeline.vaults.folder import FolderVault, ReadingOptions

SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")


@pytest.fixture
def utc_machine(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A machine whose own clock is UTC; the person lives in Shanghai (config `timezone`)."""
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("HYLO_MEMORY_TIMEZONE", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def saved_at(path: Path, when: dt.datetime) -> Path:
    os.utime(path, (when.timestamp(), when.timestamp()))
    return path


def shanghai(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=SHANGHAI)


def refresh_json(vault: Path, capsys: pytest.CaptureFixture[str], today: str, *extra: str) -> dict:
    assert main(["refresh", "--vault", str(vault), "--today", today, "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def sources(vault: Path, start: str, today: str) -> dict[str, dt.date]:
    window = Window(mode="incremental", start=dt.date.fromisoformat(start), today=dt.date.fromisoformat(today))
    found = FolderVault(vault, [], MEMORY, 1_000_000, reading=ReadingOptions(zone=SHANGHAI)).sources(window)
    return {s.path: s.date for s in found if not isinstance(s, Skipped)}


# Dates from the clock

def test_a_note_saved_at_half_past_seven_in_shanghai_is_dated_that_day_on_a_utc_machine(
        utc_machine: None, tmp_path: Path, capsys) -> None:
    note = write_note(tmp_path, "_shorts/lunch.md", "I love dim sum.")
    saved_at(note, shanghai("2026-03-29T07:30"))  # 23:30 UTC on 03-28
    refresh_json(tmp_path, capsys, "2026-03-29")
    assert "`last:2026-03-29 seen:1`" in (tmp_path / MEMORY / "_preferences.md").read_text()


def test_the_window_begins_at_midnight_in_the_persons_zone(utc_machine: None, tmp_path: Path) -> None:
    saved_at(write_note(tmp_path, "_shorts/after.md", "I love tea."), shanghai("2026-03-29T00:30"))
    saved_at(write_note(tmp_path, "_shorts/before.md", "I love coffee."), shanghai("2026-03-28T23:30"))
    assert sources(tmp_path, "2026-03-29", "2026-03-30") == {"_shorts/after.md": dt.date(2026, 3, 29)}


def test_remember_keeps_a_fact_on_the_persons_date_not_the_machines(utc_machine: None, tmp_path: Path,
                                                                    capsys) -> None:
    with freeze_time("2026-03-28T23:30:00Z"):
        assert main(["remember", "I'm vegetarian", "--vault", str(tmp_path)]) == 0
    assert "`last:2026-03-29 seen:1 pinned`" in (tmp_path / MEMORY / "_preferences.md").read_text()


# Notes dated after today

def plan_note(vault: Path) -> Path:
    """A note written on 11-30 about 12-05: dated by its frontmatter, its file older than later windows."""
    note = write_note(vault, "_shorts/plan.md", "I love sailing.", date="2026-12-05")
    saved_at(note, dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC))
    return note


def test_a_note_dated_after_today_is_named_as_future_and_not_applied(tmp_path: Path, capsys) -> None:
    plan_note(tmp_path)
    summary = refresh_json(tmp_path, capsys, "2026-11-30")
    assert summary["future"] == [{"path": "_shorts/plan.md", "date": "2026-12-05"}]
    assert summary["sources"]["shorts"] == 0 and texts(tmp_path, Dimension.preferences) == set()
    with Ledger.for_memory_dir(tmp_path / MEMORY) as ledger:
        assert ledger.extracted_hash("_shorts/plan.md") is None


def test_the_text_summary_names_a_note_waiting_for_its_day(tmp_path: Path, capsys) -> None:
    plan_note(tmp_path)
    assert main(["refresh", "--vault", str(tmp_path), "--today", "2026-11-30"]) == 0
    assert ("Dated after 2026-11-30, waiting for their day (not read until then): _shorts/plan.md (2026-12-05)"
            in capsys.readouterr().out)


def test_a_waiting_note_is_applied_on_its_day_though_its_file_is_older_than_the_window(tmp_path: Path,
                                                                                         capsys) -> None:
    plan_note(tmp_path)
    refresh_json(tmp_path, capsys, "2026-11-30")
    assert refresh_json(tmp_path, capsys, "2026-12-01")["future"] == [{"path": "_shorts/plan.md",
                                                                       "date": "2026-12-05"}]
    summary = refresh_json(tmp_path, capsys, "2026-12-05")  # its window starts 12-01: the file is older
    assert summary["future"] == [] and summary["sources"]["shorts"] == 1
    assert "`last:2026-12-05 seen:1`" in (tmp_path / MEMORY / "_preferences.md").read_text()


def test_a_note_named_for_a_later_day_in_an_old_folder_is_named_as_future(tmp_path: Path, capsys) -> None:
    short(tmp_path, "2026-11-01", "I live in Lisbon.", slug="home")
    short(tmp_path, "2026-12-24", "I love the Christmas market.", slug="market")
    folder = tmp_path / "_shorts"
    saved_at(folder, dt.datetime(2026, 11, 1, 12, tzinfo=dt.UTC))  # nothing added to it since the window began
    refresh_json(tmp_path, capsys, "2026-11-01")
    summary = refresh_json(tmp_path, capsys, "2026-11-30")
    assert summary["future"] == [{"path": "_shorts/2026-12-24-market.md", "date": "2026-12-24"}]


# Back-fills

def test_a_today_before_the_last_complete_run_says_it_is_a_back_fill(tmp_path: Path, capsys) -> None:
    short(tmp_path, "2026-11-29", "I live in Lisbon.", slug="home")
    refresh_json(tmp_path, capsys, "2026-11-30")
    assert main(["refresh", "--vault", str(tmp_path), "--today", "2026-11-01", "--json"]) == 0
    assert capsys.readouterr().err == ("hylo-memory: --today 2026-11-01 is before the last complete run "
                                       "(2026-11-30): a back-fill\n")


def test_a_today_after_the_last_complete_run_says_nothing_of_it(tmp_path: Path, capsys) -> None:
    short(tmp_path, "2026-11-29", "I live in Lisbon.", slug="home")
    refresh_json(tmp_path, capsys, "2026-11-30")
    assert main(["refresh", "--vault", str(tmp_path), "--today", "2026-12-01", "--json"]) == 0
    assert capsys.readouterr().err == ""
