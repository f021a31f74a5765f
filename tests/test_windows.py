"""Run modes and scan windows (docs/spec.md §4.1): first run over 90 days, incremental over 2 reaching back."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from vault_helpers import day, identity, memory_file, run, short, unit

from hylo_memory.decay import Dimension
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.run.window import choose_window

TODAY = day("2026-11-30")


def days_ago(n: int) -> dt.date:
    return TODAY - dt.timedelta(days=n)


# The window itself


def test_first_window_covers_the_last_90_days_including_today() -> None:
    window = choose_window(TODAY, first=True, reach_back=None, config=Config())
    assert (window.mode, window.start, window.days) == ("first", days_ago(89), 90)


def test_incremental_window_covers_the_last_2_days_including_today() -> None:
    window = choose_window(TODAY, first=False, reach_back=None, config=Config())
    assert (window.mode, window.start, window.days) == ("incremental", days_ago(1), 2)


def test_incremental_window_reaches_back_to_the_last_complete_run() -> None:
    window = choose_window(TODAY, first=False, reach_back=days_ago(7), config=Config())
    assert (window.start, window.days) == (days_ago(7), 8)


def test_incremental_window_is_not_narrowed_by_a_run_yesterday() -> None:
    window = choose_window(TODAY, first=False, reach_back=days_ago(1), config=Config())
    assert window.start == days_ago(1)


def test_first_window_ignores_earlier_runs() -> None:
    window = choose_window(TODAY, first=True, reach_back=days_ago(200), config=Config())
    assert window.start == days_ago(89)


def test_window_lengths_come_from_config() -> None:
    config = Config(first_run_days=30, incremental_days=3)
    first = choose_window(TODAY, first=True, reach_back=None, config=config)
    incremental = choose_window(TODAY, first=False, reach_back=None, config=config)
    assert (first.days, incremental.days) == (30, 3)


def test_window_does_not_contain_days_after_today() -> None:
    window = choose_window(TODAY, first=True, reach_back=None, config=Config())
    assert not window.contains(TODAY + dt.timedelta(days=1))


# Through a run


def test_run_without_identity_file_is_a_first_run_over_90_days(tmp_path: Path) -> None:
    summary = run(tmp_path, TODAY)
    assert (summary.mode, summary.window_days, summary.window_start) == ("first", 90, days_ago(89))


def test_run_with_other_memory_files_but_no_identity_file_is_a_first_run(tmp_path: Path) -> None:
    memory_file(tmp_path, Dimension.preferences, "## Active\n- Likes tea `last:2026-11-01 seen:1`\n")
    assert run(tmp_path, TODAY).mode == "first"


def test_run_with_identity_file_is_incremental_over_2_days(tmp_path: Path) -> None:
    identity(tmp_path)
    summary = run(tmp_path, TODAY)
    assert (summary.mode, summary.window_days, summary.window_start) == ("incremental", 2, days_ago(1))


def test_first_run_reads_a_note_89_days_old(tmp_path: Path) -> None:
    short(tmp_path, days_ago(89), "I live in Porto.")
    assert run(tmp_path, TODAY).sources.shorts == 1


def test_first_run_does_not_read_a_note_90_days_old(tmp_path: Path) -> None:
    short(tmp_path, days_ago(90), "I live in Porto.")
    assert run(tmp_path, TODAY).sources.shorts == 0


def test_incremental_run_reads_yesterday(tmp_path: Path) -> None:
    identity(tmp_path)
    short(tmp_path, days_ago(1), "I live in Porto.")
    assert run(tmp_path, TODAY).sources.shorts == 1


def test_incremental_run_does_not_read_a_note_2_days_old(tmp_path: Path) -> None:
    identity(tmp_path)
    short(tmp_path, days_ago(2), "I live in Porto.")
    assert run(tmp_path, TODAY).sources.shorts == 0


def test_incremental_run_after_a_week_off_reaches_back_to_the_last_run(tmp_path: Path) -> None:
    short(tmp_path, days_ago(10), "I live in Porto.", slug="first")
    run(tmp_path, days_ago(7))
    short(tmp_path, days_ago(5), "I speak English and Portuguese.", slug="while-off")
    summary = run(tmp_path, TODAY)
    assert (summary.mode, summary.window_start, summary.sources.shorts) == ("incremental", days_ago(7), 1)


def test_first_run_does_not_read_notes_dated_after_today(tmp_path: Path) -> None:
    short(tmp_path, TODAY + dt.timedelta(days=1), "I live in Porto.")
    assert run(tmp_path, TODAY).sources.shorts == 0


def test_incremental_run_does_not_read_notes_dated_after_today(tmp_path: Path) -> None:
    identity(tmp_path)
    short(tmp_path, TODAY + dt.timedelta(days=3), "I live in Porto.")
    assert run(tmp_path, TODAY).sources.shorts == 0


def test_note_dated_after_today_is_read_once_its_day_comes(tmp_path: Path) -> None:
    tomorrow = TODAY + dt.timedelta(days=1)
    short(tmp_path, tomorrow, "I live in Porto.")
    run(tmp_path, TODAY)
    assert run(tmp_path, tomorrow).sources.shorts == 1


def test_knowledge_unit_dated_after_today_is_not_read(tmp_path: Path) -> None:
    unit(tmp_path, "later", "I believe tests are specifications.", TODAY + dt.timedelta(days=2), title="Later")
    assert run(tmp_path, TODAY).sources.knowledge == 0
