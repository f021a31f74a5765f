"""The memory folder on disk (docs/spec.md §2, §7): whole-or-nothing writes, mode 0600, prior versions archived."""

from __future__ import annotations

import datetime as dt
import os
import stat
from pathlib import Path

import pytest
from engine_helpers import item_line, memory_text, write_memory
from freezegun import freeze_time

from hylo_memory.decay import Dimension, parse
from hylo_memory.decay.files import store as store_module
from hylo_memory.decay.files.store import ARCHIVE_DIR, MemoryStore, atomic_write, resolved
from hylo_memory.errors import MemoryFileError

DAY = dt.date(2026, 11, 30)


def version(n: int) -> str:
    """The text of a distinct preferences file, numbered."""
    return memory_text(active=[item_line(f"Fact number {n}", DAY, seen=n)], last_updated=DAY)


def write_version(store: MemoryStore, n: int) -> Path:
    return store.write(parse(version(n), Dimension.preferences))


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.name.endswith((".tmp", ".aside")))


def test_reading_a_missing_file_gives_none(tmp_path: Path) -> None:
    assert MemoryStore(tmp_path / "_memory").read(Dimension.goals) is None


def test_a_written_file_reads_back_as_the_same_memory(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "_memory")
    memory = parse(version(1), Dimension.preferences)
    store.write(memory)
    assert store.read(Dimension.preferences) == memory
    assert (tmp_path / "_memory" / "_preferences.md").read_text(encoding="utf-8") == version(1)


def test_memory_files_are_written_with_mode_0600(tmp_path: Path) -> None:
    old_umask = os.umask(0o022)
    try:
        path = write_version(MemoryStore(tmp_path / "_memory"), 1)
    finally:
        os.umask(old_umask)
    assert mode(path) == 0o600


def test_a_file_the_person_left_readable_by_others_is_rewritten_0600(tmp_path: Path) -> None:
    path = write_memory(tmp_path / "_memory", Dimension.preferences, version(1))
    path.chmod(0o644)
    write_version(MemoryStore(tmp_path / "_memory"), 2)
    assert mode(path) == 0o600


def test_when_the_new_file_cannot_take_the_name_the_old_file_is_intact_and_nothing_is_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = MemoryStore(tmp_path / "_memory")
    path = write_version(store, 1)
    real_link = os.link

    def link_failing_on_the_memory_file(src: str | Path, dst: str | Path) -> None:
        if Path(dst) == path and Path(src).name.endswith(".tmp"):  # the new version, not the old put back
            raise OSError("disk full")
        real_link(src, dst)

    monkeypatch.setattr(os, "link", link_failing_on_the_memory_file)
    with pytest.raises(OSError, match="disk full"):
        write_version(store, 2)
    assert path.read_text(encoding="utf-8") == version(1)
    assert leftovers(tmp_path) == []
    assert not (tmp_path / "_memory" / ARCHIVE_DIR).exists()  # no version was replaced


def test_atomic_write_leaves_the_old_bytes_when_interrupted_before_the_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "file.md"
    path.write_bytes(b"old")

    def interrupted(src: str | Path, dst: str | Path) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(path, b"new")
    assert path.read_bytes() == b"old"
    assert leftovers(tmp_path) == []


def test_a_first_write_archives_nothing(tmp_path: Path) -> None:
    write_version(MemoryStore(tmp_path / "_memory"), 1)
    assert not (tmp_path / "_memory" / ARCHIVE_DIR).exists()


def test_the_version_a_write_replaces_is_kept_in_the_archive(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "_memory")
    write_version(store, 1)
    write_version(store, 2)
    archived = list((tmp_path / "_memory" / ARCHIVE_DIR).iterdir())
    assert [p.read_text(encoding="utf-8") for p in archived] == [version(1)]
    assert archived[0].name.startswith("_preferences.md.")
    assert mode(archived[0]) == 0o600


def archived_texts(tmp_path: Path) -> list[str]:
    archived = sorted((tmp_path / "_memory" / ARCHIVE_DIR).iterdir(), key=lambda p: p.name)
    return [p.read_text(encoding="utf-8") for p in archived]


def test_versions_older_than_a_day_beyond_the_newest_archive_keep_are_removed(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "_memory", archive_keep=3)
    with freeze_time("2026-11-28 12:00:00", tick=True):
        for n in range(1, 7):
            write_version(store, n)
    with freeze_time("2026-11-30 12:00:00"):
        write_version(store, 7)
    assert archived_texts(tmp_path) == [version(4), version(5), version(6)]
    assert store.path(Dimension.preferences).read_text(encoding="utf-8") == version(7)


def test_every_version_of_the_last_day_is_kept_however_many_writes_came_after(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "_memory", archive_keep=3)
    for n in range(1, 31):  # a burst of writes, as thirty remembers in a second
        write_version(store, n)
    assert archived_texts(tmp_path) == [version(n) for n in range(1, 30)]


def test_the_days_versions_are_kept_only_while_they_fit_in_the_archives_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "ARCHIVE_BYTES", 5 * len(version(1).encode()))
    store = MemoryStore(tmp_path / "_memory", archive_keep=3)
    for n in range(1, 11):
        write_version(store, n)
    assert archived_texts(tmp_path) == [version(n) for n in range(5, 10)]


def test_versions_archived_within_one_clock_tick_are_all_kept(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "_memory")
    with freeze_time("2026-11-30 12:00:00"):
        for n in range(1, 4):
            write_version(store, n)
    archived = sorted((tmp_path / "_memory" / ARCHIVE_DIR).iterdir(), key=lambda p: p.name)
    assert [p.read_text(encoding="utf-8") for p in archived] == [version(1), version(2)]


def test_pruning_one_files_archive_leaves_the_other_files_versions(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "_memory", archive_keep=1)
    goals = parse(memory_text(active=[item_line("Ship the beta", DAY)], window=30), Dimension.goals)
    with freeze_time("2026-11-28 12:00:00", tick=True):
        store.write(goals)
        store.write(goals)
        for n in range(1, 4):
            write_version(store, n)
    with freeze_time("2026-11-30 12:00:00"):
        write_version(store, 4)
    names = sorted(p.name.rsplit(".", 1)[0] for p in (tmp_path / "_memory" / ARCHIVE_DIR).iterdir())
    assert names == ["_goals.md", "_preferences.md"]


# A failed command's write put back (docs/spec.md §7): it leaves nothing in the archive.


def written_then_put_back(store: MemoryStore, before: bytes | None) -> None:
    """A command's write of version 9 over `before` (None: no file yet), then undone as a failed command's is."""
    store.replace(Dimension.preferences, version(9).encode(), store_module.digest(before), prune=False)
    store.put_back(Dimension.preferences, before, store_module.digest(version(9).encode()))


def test_a_created_file_put_back_leaves_no_file_and_no_archive(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "_memory")
    written_then_put_back(store, None)
    assert not store.path(Dimension.preferences).exists()
    assert not (tmp_path / "_memory" / ARCHIVE_DIR).exists()


def test_a_replaced_file_put_back_holds_its_old_bytes_and_the_archive_is_as_it_was(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "_memory")
    write_version(store, 1)
    write_version(store, 2)
    written_then_put_back(store, version(2).encode())
    assert store.path(Dimension.preferences).read_text(encoding="utf-8") == version(2)
    assert archived_texts(tmp_path) == [version(1)]


def test_a_failed_commands_write_costs_the_archive_no_old_version(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "_memory", archive_keep=2)
    with freeze_time("2026-11-28 12:00:00", tick=True):
        for n in range(1, 4):
            write_version(store, n)
    with freeze_time("2026-11-30 12:00:00", tick=True):
        written_then_put_back(store, version(3).encode())
    assert archived_texts(tmp_path) == [version(1), version(2)]


def test_a_file_that_is_not_utf8_is_refused_with_path_and_line(tmp_path: Path) -> None:
    path = tmp_path / "_memory" / "_people.md"
    path.parent.mkdir()
    path.write_bytes(b"---\ndecay_window: 90d\n---\n## Active\n- Ana \xff\n")
    with pytest.raises(MemoryFileError) as refused:
        MemoryStore(tmp_path / "_memory").read(Dimension.people)
    assert (refused.value.path, refused.value.line) == (str(path), 5)


def test_read_all_refuses_when_any_file_is_hand_broken(tmp_path: Path) -> None:
    write_memory(tmp_path / "_memory", Dimension.preferences, version(1))
    broken = write_memory(tmp_path / "_memory", Dimension.state,
                          memory_text(active=["- Tired `last:2026-11-30 seen:x`"], window=7))
    with pytest.raises(MemoryFileError) as refused:
        MemoryStore(tmp_path / "_memory").read_all()
    assert (refused.value.path, refused.value.line) == (str(broken), 5)


def test_read_all_gives_every_dimension_none_when_its_file_is_missing(tmp_path: Path) -> None:
    write_memory(tmp_path / "_memory", Dimension.preferences, version(1))
    files = MemoryStore(tmp_path / "_memory").read_all()
    assert [d for d, memory in files.items() if memory is None] == [d for d in Dimension if d != Dimension.preferences]


def test_a_memory_file_starting_with_a_byte_order_mark_keeps_its_window(tmp_path: Path) -> None:
    path = tmp_path / "_state.md"
    path.write_bytes(b"\xef\xbb\xbf---\ndecay_window: 7d\n---\n## Active\n- Tired `last:2026-11-01 seen:1`\n")
    memory = MemoryStore(tmp_path).read(Dimension.state)
    assert memory.decay_window == 7 and [i.text for i in memory.items] == ["Tired"]


def test_a_symlink_loop_resolves_to_nothing_and_a_missing_or_plain_path_to_itself(tmp_path: Path) -> None:
    # Python 3.13's lenient resolve() returns a path for a loop, where 3.11 and 3.12 raised.
    (tmp_path / "loop").symlink_to("loop")
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    (tmp_path / "plain.md").write_text("x", encoding="utf-8")
    (tmp_path / "link.md").symlink_to("plain.md")
    root = tmp_path.resolve()
    assert resolved(tmp_path / "loop") is None and resolved(tmp_path / "a") is None
    assert resolved(tmp_path / "a" / "inside") is None
    assert resolved(tmp_path / "link.md") == root / "plain.md"
    assert resolved(tmp_path / "missing" / "x.md") == root / "missing" / "x.md"
