"""The ledger (docs/spec.md §4.4): each source is extracted once; an edited one again; runs are recorded."""

from __future__ import annotations

import datetime as dt
import sqlite3
import stat
import threading
from pathlib import Path

import pytest
from cli_helpers import hylo, one_line
from vault_helpers import MEMORY, day, items, run, short, snapshot

from hylo_memory.decay import Dimension
from hylo_memory.domain.usage import Usage
from hylo_memory.pipeline.state import ledger as ledger_module
from hylo_memory.pipeline.state.ledger import Ledger

TODAY = day("2026-11-30")


def memory_snapshot(vault: Path) -> dict[str, tuple[bytes, int]]:
    """The memory files and their archive: what a run that changes nothing must leave alone."""
    return {k: v for k, v in snapshot(vault / MEMORY).items() if not k.startswith(".state/")}


def ledger_path(vault: Path) -> Path:
    return vault / MEMORY / ".state" / "ledger.db"


def test_same_day_second_run_extracts_nothing(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-29", "I live in Porto. I love long walks.")
    run(tmp_path, TODAY)
    summary = run(tmp_path, TODAY)
    assert (summary.sources.shorts, summary.already_extracted, summary.changed_files) == (0, 1, [])


def test_same_day_second_run_leaves_memory_files_bytes_and_mtimes_as_they_were(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-29", "I live in Porto. I love long walks. I feel tired.")
    short(tmp_path, "2026-10-01", "My sister Ana visited. I believe small teams ship faster.", slug="ana")
    run(tmp_path, TODAY)
    before = memory_snapshot(tmp_path)
    run(tmp_path, TODAY)
    assert memory_snapshot(tmp_path) == before


def test_second_run_does_not_count_a_note_twice(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-29", "I live in Porto.")
    run(tmp_path, TODAY)
    run(tmp_path, TODAY + dt.timedelta(days=1))
    assert items(tmp_path, Dimension.identity)["Lives in Porto"][1] == 1


def test_edited_note_is_extracted_again(tmp_path: Path) -> None:
    note = short(tmp_path, "2026-11-29", "I live in Porto.")
    run(tmp_path, TODAY)
    note.write_text(note.read_text(encoding="utf-8") + "I love long walks.\n", encoding="utf-8")
    summary = run(tmp_path, TODAY)
    assert (summary.sources.shorts, items(tmp_path, Dimension.preferences)["Loves long walks"][:2]) == (1, ("Active", 1))


def test_edited_note_does_not_count_its_unchanged_facts_again(tmp_path: Path) -> None:
    # Issue 11: the edited note is read again (docs/spec.md §4.4), but re-reading a note is not a new
    # sighting of what its provenance already records.
    note = short(tmp_path, "2026-11-29", "I live in Porto.")
    run(tmp_path, TODAY)
    note.write_text(note.read_text(encoding="utf-8") + "I love long walks.\n", encoding="utf-8")
    run(tmp_path, TODAY)
    assert items(tmp_path, Dimension.identity)["Lives in Porto"][1] == 1


def test_note_written_two_days_after_a_run_is_picked_up_by_a_run_a_week_later(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-29", "I live in Porto.")
    run(tmp_path, TODAY)
    short(tmp_path, TODAY + dt.timedelta(days=2), "I love long walks.", slug="later")
    summary = run(tmp_path, TODAY + dt.timedelta(days=9))
    assert (summary.sources.shorts, "Loves long walks" in items(tmp_path, Dimension.preferences)) == (1, True)


def test_touching_a_note_without_changing_it_does_not_extract_it_again(tmp_path: Path) -> None:
    note = short(tmp_path, "2026-11-29", "I live in Porto.")
    run(tmp_path, TODAY)
    note.touch()
    assert run(tmp_path, TODAY).sources.shorts == 0


def test_a_dry_run_does_not_mark_sources_extracted(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-29", "I live in Porto.")
    run(tmp_path, TODAY, dry_run=True)
    assert run(tmp_path, TODAY).sources.shorts == 1


def test_ledger_records_each_extracted_source_with_its_content_hash(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-29", "I live in Porto.")
    run(tmp_path, TODAY)
    with Ledger(ledger_path(tmp_path)) as ledger:
        assert ledger.extracted_hash("_shorts/2026-11-29-note.md") is not None


def test_a_vault_that_yields_no_identity_fact_is_not_read_as_new_every_night(tmp_path: Path) -> None:
    short(tmp_path, "2026-10-01", "Weather was grey.")
    run(tmp_path, TODAY)
    assert run(tmp_path, TODAY + dt.timedelta(days=1)).mode == "incremental"


def test_ledger_records_every_run(tmp_path: Path) -> None:
    run(tmp_path, TODAY)
    run(tmp_path, TODAY + dt.timedelta(days=1))
    with Ledger(ledger_path(tmp_path)) as ledger:
        runs = ledger.recent_runs()
    assert [(r.today, r.mode, r.status) for r in runs] == [
        (TODAY + dt.timedelta(days=1), "incremental", "ok"), (TODAY, "first", "ok"),
    ]


def test_last_complete_run_is_the_latest_ok_run_with_nothing_waiting(tmp_path: Path) -> None:
    with Ledger(tmp_path / "ledger.db") as ledger:
        done = ledger.start_run(day("2026-11-20"), "first", day("2026-08-23"), 90)
        ledger.finish_run(done, "ok", 0, {}, Usage())
        capped = ledger.start_run(day("2026-11-25"), "incremental", day("2026-11-20"), 6)
        ledger.finish_run(capped, "ok", 3, {}, Usage())
        assert ledger.last_complete() == day("2026-11-20")


def record(ledger: Ledger, today: str, window_start: str, status: str = "ok", waiting: int = 0) -> None:
    run_id = ledger.start_run(day(today), "incremental", day(window_start), 2)
    if status != "running":
        ledger.finish_run(run_id, status, waiting, {}, Usage())


def test_reach_back_is_the_last_complete_run(tmp_path: Path) -> None:
    with Ledger(tmp_path / "ledger.db") as ledger:
        record(ledger, "2026-11-20", "2026-11-19")
        record(ledger, "2026-11-25", "2026-11-20")
        assert ledger.reach_back() == day("2026-11-25")


def test_reach_back_goes_to_the_window_of_a_later_run_that_left_sources_waiting(tmp_path: Path) -> None:
    with Ledger(tmp_path / "ledger.db") as ledger:
        record(ledger, "2026-11-20", "2026-11-19")
        record(ledger, "2026-11-25", "2026-11-20", waiting=3)
        assert ledger.reach_back() == day("2026-11-20")


@pytest.mark.parametrize("status", ["partial", "failed", "running"])
def test_reach_back_goes_to_the_window_of_a_run_that_did_not_extract_everything(tmp_path: Path, status: str) -> None:
    with Ledger(tmp_path / "ledger.db") as ledger:
        record(ledger, "2026-11-25", "2026-11-24")
        record(ledger, "2026-11-28", "2026-11-18", status=status)
        assert ledger.reach_back() == day("2026-11-18")


def test_reach_back_without_a_complete_run_goes_to_the_first_waiting_run(tmp_path: Path) -> None:
    with Ledger(tmp_path / "ledger.db") as ledger:
        record(ledger, "2026-11-20", "2026-08-23", waiting=40)
        record(ledger, "2026-11-21", "2026-08-23", waiting=20)
        assert ledger.reach_back() == day("2026-08-23")


def test_reach_back_ignores_waiting_runs_before_the_last_complete_run(tmp_path: Path) -> None:
    with Ledger(tmp_path / "ledger.db") as ledger:
        record(ledger, "2026-11-20", "2026-11-10", waiting=4)
        record(ledger, "2026-11-25", "2026-11-10")
        assert ledger.reach_back() == day("2026-11-25")


def test_reach_back_of_an_empty_ledger_is_none(tmp_path: Path) -> None:
    with Ledger(tmp_path / "ledger.db") as ledger:
        assert ledger.reach_back() is None


def test_ledger_file_is_private(tmp_path: Path) -> None:
    run(tmp_path, TODAY)
    assert stat.S_IMODE(ledger_path(tmp_path).stat().st_mode) == 0o600


def test_migrations_are_applied_once_each_by_name(tmp_path: Path) -> None:
    Ledger(tmp_path / "ledger.db").close()
    Ledger(tmp_path / "ledger.db").close()
    db = sqlite3.connect(tmp_path / "ledger.db")
    names = [row[0] for row in db.execute("SELECT name FROM migrations")]
    db.close()
    assert names == [name for name, _ in ledger_module.MIGRATIONS]


def test_a_new_migration_is_applied_to_an_existing_ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    Ledger(tmp_path / "ledger.db").close()
    added = ("m999_test_column", lambda db: db.execute("ALTER TABLE runs ADD COLUMN note TEXT"))
    monkeypatch.setattr(ledger_module, "MIGRATIONS", [*ledger_module.MIGRATIONS, added])
    with Ledger(tmp_path / "ledger.db") as ledger:
        columns = {row["name"] for row in ledger.db.execute("PRAGMA table_info(runs)")}
        applied = [row["name"] for row in ledger.db.execute("SELECT name FROM migrations")]
    assert ("note" in columns, applied[-1]) == (True, "m999_test_column")


def test_snapshot_of_a_ledger_never_writes_it(tmp_path: Path) -> None:
    with Ledger(tmp_path / "ledger.db") as ledger:
        ledger.record_sources(ledger.start_run(TODAY, "first", TODAY, 1), TODAY, [("_shorts/a.md", "abc")])
    before = (tmp_path / "ledger.db").read_bytes()
    with Ledger.snapshot(tmp_path / "ledger.db") as copy:
        copy.record_sources(copy.start_run(TODAY, "first", TODAY, 1), TODAY, [("_shorts/b.md", "def")])
        assert copy.is_extracted("_shorts/a.md", "abc")
    assert (tmp_path / "ledger.db").read_bytes() == before


def test_a_moved_note_with_the_same_content_is_not_counted_again(tmp_path: Path) -> None:
    note = short(tmp_path, "2026-11-28", "I live in Lisbon.", slug="home")
    run(tmp_path, "2026-11-28")
    moved = tmp_path / "_shorts" / "2026-11-28-moved-home.md"
    note.rename(moved)
    summary = run(tmp_path, "2026-11-29")
    assert summary.sources.shorts == 0 and summary.already_extracted == 1
    assert items(tmp_path, Dimension.identity)["Lives in Lisbon"][1] == 1


def test_a_corrupt_ledger_is_a_one_line_error_naming_it(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-28", "I live in Lisbon.")
    run(tmp_path, "2026-11-28")
    (tmp_path / MEMORY / ".state" / "ledger.db").write_bytes(b"this is not a database" * 100)
    result = hylo("refresh", "--vault", tmp_path, "--today", "2026-11-29")
    assert result.exit_code == 1
    assert "ledger.db" in one_line(result.stderr)


def test_two_commands_opening_a_new_ledger_at_once_both_succeed(tmp_path: Path) -> None:
    start, failures = threading.Barrier(8), []

    def open_it() -> None:
        start.wait()
        try:
            Ledger.for_memory_dir(tmp_path / "_memory").close()
        except Exception as exc:  # noqa: BLE001 - the test reports whatever a racing opener raised
            failures.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
