"""Notes read by worker processes read exactly as notes read by the run itself; a pool that breaks costs nothing
but time (pipeline/note_reading.py)."""

from __future__ import annotations

import datetime as dt
import multiprocessing
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from hylo_memory.pipeline.note_reading import NoteReader, read_notes
from hylo_memory.pipeline.vault import FolderVault, Skipped

WIDE = type("Wide", (), {"start": dt.date(2000, 1, 1), "today": dt.date(2030, 1, 1),
                         "contains": lambda self, day: True})()

NOTES = [
    "I love green tea. [[Lisbon|my city]] and #tags, **bold**, ==highlight==.\n",
    "> [!quote] Someone\n> I hate mornings.\n\nMy sister Ana lives in Porto.\n",
    "| a | b |\n| --- | --- |\n| [[x\\|y]] | 2 |\n\n- [x] done task\n- [ ] I want to run a marathon\n",
    "我喜欢喝茶。[[杭州]]很美。%% 注释 %%\n\n```python\nx = 1  # [[not a link\n```\n",
    "[[未完成 [[链接 [[项目管理\n" * 200,  # unclosed links
    "Just prose, nothing more.\n",
]


def make_vault(root: Path, copies: int) -> Path:
    folder = root / "_shorts"
    folder.mkdir(parents=True)
    for n in range(copies):
        for k, body in enumerate(NOTES):
            (folder / f"2026-11-{1 + n % 28:02d}-{n}-{k}.md").write_text(f"---\ncreated: 2026-11-01\n---\n{body}",
                                                                      encoding="utf-8")
    (folder / "2026-11-02-binary.md").write_bytes(b"\x00\x01binary")
    return root


# How the workers start here: `spawn` (a fresh interpreter) — the test runner's threads rule out `fork`, which a
# single-threaded process uses (tested in one below).
METHODS = ["spawn"]


def read(vault: Path, reader: NoteReader) -> list:
    return list(FolderVault(vault, [], "_memory", 1_000_000, note_reader=lambda: reader).sources(WIDE))


@pytest.mark.parametrize("method", METHODS)
def test_the_notes_the_pool_reads_are_the_notes_read_alone(tmp_path: Path, method: str) -> None:
    vault = make_vault(tmp_path / "vault", copies=100)  # ~600 KB of notes: two batches
    pooled = NoteReader(workers=2, start_seconds=0, wait=True, start_method=method)
    assert read(vault, pooled) == read(vault, NoteReader(workers=1))
    assert pooled.pooled > 0
    assert pooled.pool is None  # shut when the reading ended


def test_skipped_notes_keep_their_place_among_the_sources(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "vault", copies=10)
    found = read(vault, NoteReader(workers=2, start_seconds=0, wait=True))
    skipped = [s for s in found if isinstance(s, Skipped)]
    assert [s.path for s in skipped] == ["_shorts/2026-11-02-binary.md"]
    assert len(found) == 10 * len(NOTES) + 1


@pytest.mark.parametrize("method", METHODS)
def test_a_pool_whose_workers_die_is_given_up_and_the_notes_still_read(method: str) -> None:
    bodies = NOTES * 5
    with NoteReader(workers=2, start_seconds=0, wait=True, start_method=method) as reader:
        assert reader.start(["a"]).result() == read_notes(["a"])
        assert reader.pool is not None
        for child in multiprocessing.active_children():
            os.kill(child.pid, signal.SIGKILL)
        assert reader.start(bodies).result() == read_notes(bodies)
        assert reader.pool is None
        assert reader.start(bodies).result() == read_notes(bodies)  # and read here from then on


def test_a_run_that_reads_little_starts_no_pool() -> None:
    with NoteReader(workers=2) as reader:
        reader.start(NOTES).result()
        assert reader.pool is None and reader.pooled == 0


FORKED = """
import sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from test_note_reading import NOTES, make_vault, read
from hylo_memory.pipeline import note_reading
vault = make_vault(Path(sys.argv[2]), copies=100)
pooled = note_reading.NoteReader(workers=2, start_seconds=0, wait=True)
same = read(vault, pooled) == read(vault, note_reading.NoteReader(workers=1))
print(note_reading._start_method(), same, pooled.pooled > 0)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_a_process_with_no_other_thread_forks_its_workers_and_reads_the_same(tmp_path: Path) -> None:
    ran = subprocess.run([sys.executable, "-c", FORKED, str(Path(__file__).parent), str(tmp_path / "vault")],
                         capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["fork", "True", "True"]
    assert ran.stderr == ""

