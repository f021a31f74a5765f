"""Undo at its edges: an older run taken back, a record that cannot be read, names this version does not know."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cli_helpers import hylo, one_line
from trust_helpers import ago, ok, refresh
from vault_helpers import MEMORY, memory_file, short, texts

from hylo_memory.decay import Dimension


@contextmanager
def ledger(vault: Path) -> Iterator[sqlite3.Connection]:
    """The ledger's database, committed and closed at the end (sqlite3's own `with` only commits)."""
    db = sqlite3.connect(vault / MEMORY / ".state" / "ledger.db")
    try:
        with db:
            yield db
    finally:
        db.close()


def test_undoing_an_older_run_makes_the_next_run_read_its_notes_again(tmp_path: Path) -> None:
    short(tmp_path, ago(60), "I love green tea.", slug="a")
    ok(refresh(tmp_path, today=ago(59)))
    short(tmp_path, ago(51), "I live in Porto.", slug="b")
    ok(refresh(tmp_path, today=ago(50)))
    ok(hylo("undo", "1", "--vault", str(tmp_path)))
    assert "Loves green tea" not in texts(tmp_path, Dimension.preferences)
    ok(refresh(tmp_path, today=ago(49)))
    assert "Loves green tea" in texts(tmp_path, Dimension.preferences)


def test_a_take_back_record_that_cannot_be_read_refuses_the_undo_and_writes_nothing(tmp_path: Path) -> None:
    short(tmp_path, ago(2), "I love green tea.")
    ok(refresh(tmp_path, today=ago(1)))
    before = (tmp_path / MEMORY / "_preferences.md").read_bytes()
    with ledger(tmp_path) as db:
        db.execute("UPDATE changes SET tombstones = '[1, 2]'")
    result = hylo("undo", "--vault", str(tmp_path))
    assert result.exit_code == 1 and "cannot be read" in one_line(result.stderr)
    assert (tmp_path / MEMORY / "_preferences.md").read_bytes() == before
    assert not (tmp_path / MEMORY / ".state" / "journal.json").exists()


def test_history_shows_a_file_name_this_version_does_not_know_as_it_is(tmp_path: Path) -> None:
    short(tmp_path, ago(2), "I love green tea.")
    ok(refresh(tmp_path, today=ago(1)))
    with ledger(tmp_path) as db:
        db.execute("""UPDATE changes SET files = '["health"]'""")
    assert "(health;" in ok(hylo("history", "--vault", str(tmp_path))).stdout


def test_remember_is_not_refused_for_a_broken_file_it_does_not_write(tmp_path: Path) -> None:
    memory_file(tmp_path, Dimension.state, "## Active\n- Tired `last:someday seen:1`\n")
    result = hylo("remember", "I'm vegetarian", "--vault", str(tmp_path), "--dimension", "preferences")
    assert result.exit_code == 0, result.output
    assert texts(tmp_path, Dimension.preferences)


def test_undo_is_not_refused_for_a_broken_file_the_change_did_not_write(tmp_path: Path) -> None:
    ok(hylo("remember", "I'm vegetarian", "--vault", str(tmp_path), "--dimension", "preferences"))
    broken = memory_file(tmp_path, Dimension.state, "## Active\n- Tired `last:someday seen:1`\n")
    text = broken.read_bytes()
    ok(hylo("undo", "--vault", str(tmp_path)))
    assert texts(tmp_path, Dimension.preferences) == set() and broken.read_bytes() == text


def test_forget_of_a_line_written_twice_in_one_file_takes_the_first(tmp_path: Path) -> None:
    memory_file(tmp_path, Dimension.preferences,
                "## Active\n- Loves tea `last:2026-11-01 seen:1`\n- Loves tea `last:2026-11-02 seen:1`\n\n## Fading\n")
    ok(hylo("forget", "Loves tea", "--vault", str(tmp_path), "--today", "2026-11-30"))
    assert (tmp_path / MEMORY / "_preferences.md").read_text(encoding="utf-8").count("Loves tea") == 1
