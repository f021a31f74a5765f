"""A full disk (issue 9, point 5): one line saying "disk full" with the path, nothing half-written, nothing lost."""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from proc_helpers import HYLO, cli_env, memory_texts
from vault_helpers import short

from hylo_memory.errors import LedgerError
from hylo_memory.pipeline.state.ledger import Ledger

pytestmark = pytest.mark.slow  # real processes (docs/development.md: the tiers)

TODAY = "2026-11-30"
DAY = dt.date(2026, 11, 30)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 256 KB tmpfs (root can mount one here); skipped where the machine does not allow it."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path, leave: int) -> Path:
    """Fill `disk` but for about `leave` bytes."""
    filler = disk / "filler"
    free = shutil.disk_usage(disk).free
    with filler.open("wb") as handle:
        try:
            handle.write(b"\0" * max(free - leave, 0))
        except OSError:
            pass
    return filler


def notes(vault: Path) -> None:
    """Thirty short notes, each with a preference and where the person lives."""
    for i in range(30):
        short(vault, f"2026-11-{1 + i % 28:02d}", f"I love topic number {i}. I live in Lisbon.", slug=f"n{i}")


def test_a_refresh_on_a_full_disk_says_disk_full_in_one_line_and_half_writes_nothing(small_disk: Path,
                                                                                       tmp_path: Path) -> None:
    vault = small_disk / "vault"
    notes(vault)
    env = cli_env(tmp_path / "home")
    first = subprocess.run([HYLO, "refresh", "--vault", str(vault), "--today", "2026-11-29"], env=env,
                           capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    before = memory_texts(vault / "_memory")
    short(vault, "2026-11-30", "I moved to Porto. I love sailing.", slug="new")
    filler = fill(small_disk, leave=2_000)

    full = subprocess.run([HYLO, "refresh", "--vault", str(vault), "--today", TODAY], env=env,
                          capture_output=True, text=True)
    assert full.returncode == 1
    print(full.stderr, end="")  # for the record: the one line a person sees
    assert full.stderr.count("\n") == 1 and "disk full" in full.stderr and str(small_disk) in full.stderr
    assert "Traceback" not in full.stderr and "move it aside" not in full.stderr
    assert memory_texts(vault / "_memory") == before  # nothing half-written

    filler.unlink()  # space again: the next run does the work, nothing was lost
    again = subprocess.run([HYLO, "refresh", "--vault", str(vault), "--today", TODAY], env=env,
                           capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert "Loves sailing" in (vault / "_memory" / "_preferences.md").read_text()


def test_a_first_refresh_that_fails_on_a_full_disk_leaves_no_memory_file_and_no_archive(small_disk: Path,
                                                                                          tmp_path: Path) -> None:
    env = cli_env(tmp_path / "home")
    notes(small_disk / "trial")  # what a first run of these notes leaves on this disk, measured
    empty = shutil.disk_usage(small_disk).used
    assert subprocess.run([HYLO, "refresh", "--vault", str(small_disk / "trial"), "--today", TODAY], env=env,
                          capture_output=True).returncode == 0
    needed = shutil.disk_usage(small_disk).used - empty
    shutil.rmtree(small_disk / "trial")
    vault = small_disk / "vault"
    notes(vault)
    fill(small_disk, leave=needed)  # room for all it leaves, not for the journals it holds meanwhile

    full = subprocess.run([HYLO, "refresh", "--vault", str(vault), "--today", TODAY], env=env,
                          capture_output=True, text=True)
    assert full.returncode == 1 and "disk full" in full.stderr
    assert sorted(p.name for p in (vault / "_memory").iterdir()) == [".state"]  # no memory file, no .archive/


def test_a_ledger_that_cannot_grow_says_disk_full_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    with Ledger(path) as ledger:
        pages = ledger.db.execute("PRAGMA page_count").fetchone()[0]
        ledger.db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own SQLITE_FULL, as on a full disk
        run_id = ledger.start_run(DAY, "first", DAY, 1)
        rows = [(f"_shorts/{i:05d}-{'x' * 200}.md", "h" * 64) for i in range(2000)]
        with pytest.raises(LedgerError) as refused:
            with ledger.transaction():
                ledger.record_sources(run_id, DAY, rows)
    assert str(refused.value) == f"{path}: disk full; the ledger is unchanged — free some space and run again"
    with Ledger(path) as ledger:
        assert ledger.extracted_hash(rows[0][0]) is None  # rolled back whole


def test_a_remember_on_a_full_disk_names_the_file_it_could_not_write(small_disk: Path, tmp_path: Path) -> None:
    vault = small_disk / "vault"
    short(vault, "2026-11-28", "I live in Lisbon.", slug="home")
    env = cli_env(tmp_path / "home")
    assert subprocess.run([HYLO, "refresh", "--vault", str(vault), "--today", "2026-11-29"], env=env,
                          capture_output=True).returncode == 0
    before = memory_texts(vault / "_memory")
    filler = fill(small_disk, leave=0)

    full = subprocess.run([HYLO, "remember", "I'm vegetarian", "--vault", str(vault), "--today", TODAY], env=env,
                          capture_output=True, text=True)
    assert full.returncode == 1
    print(full.stderr, end="")  # for the record: the one line a person sees
    line = full.stderr.removeprefix("hylo-memory: ")
    assert full.stderr.count("\n") == 1 and line.startswith(str(vault / "_memory")) and "disk full" in line
    assert memory_texts(vault / "_memory") == before

    filler.unlink()
    again = subprocess.run([HYLO, "remember", "I'm vegetarian", "--vault", str(vault), "--today", TODAY], env=env,
                           capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert "Is vegetarian" in (vault / "_memory" / "_preferences.md").read_text()
