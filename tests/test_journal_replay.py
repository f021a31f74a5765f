"""A journal replayed late never overwrites what the person wrote in the meantime."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

import pytest

from hylo_memory.decay import Dimension
from hylo_memory.decay.files.store import MemoryStore, atomic_write
from hylo_memory.pipeline.state.journal import Journal, journal_path, recover

PLANNED = "## Active\n- Likes tea `last:2026-11-01 seen:1`\n"
BEFORE = "## Active\n- Likes coffee `last:2026-10-01 seen:1`\n"


def interrupted_after_the_journal(tmp_path: Path) -> MemoryStore:
    """A store whose command died after writing its journal, before writing `_preferences.md`."""
    store = MemoryStore(tmp_path / "_memory")
    store.write_text(Dimension.preferences, BEFORE)
    journal = Journal(files={Dimension.preferences: PLANNED},
                      before={Dimension.preferences: hashlib.sha256(BEFORE.encode()).hexdigest()})
    atomic_write(journal_path(store), journal.model_dump_json().encode())
    return store


def test_a_replay_writes_a_file_still_as_the_journal_found_it(tmp_path: Path) -> None:
    store = interrupted_after_the_journal(tmp_path)
    assert recover(store)
    assert store.path(Dimension.preferences).read_text() == PLANNED


def test_a_replay_keeps_a_file_the_person_edited_since_and_says_so(tmp_path: Path,
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    store = interrupted_after_the_journal(tmp_path)
    edited = BEFORE + "- Vegetarian `last:2026-11-02 seen:1 pinned`\n"
    store.path(Dimension.preferences).write_text(edited)
    with caplog.at_level(logging.WARNING):
        assert recover(store)
    assert store.path(Dimension.preferences).read_text() == edited
    assert any("_preferences.md changed since" in r.getMessage() for r in caplog.records)
    assert not journal_path(store).exists()
