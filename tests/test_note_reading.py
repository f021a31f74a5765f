"""Notes read by worker processes read exactly as notes read by the run itself; a pool that breaks costs nothing
but time (pipeline/notes/reading.py)."""

from __future__ import annotations

import datetime as dt
import multiprocessing
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from hylo_memory.pipeline.notes.reading import NoteReader, read_notes
from hylo_memory.pipeline.vaults import Skipped
from hylo_memory.pipeline.vaults.folder import FolderVault, ReadingOptions

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


class CountingReader(NoteReader):
    """A note reader that counts the batches it is given."""

    batches = 0

    def start(self, bodies):  # noqa: ANN001, ANN201
        self.batches += 1
        return super().start(bodies)


def read(vault: Path, reader: NoteReader) -> list:
    return list(FolderVault(vault, [], "_memory", 1_000_000, reading=ReadingOptions(note_reader=lambda: reader)).sources(WIDE))


# Workers are spawned here (a fresh interpreter): the test runner's threads rule out `fork`, which a process
# of one thread uses (tested in one, below).

@pytest.mark.slow
def test_the_notes_the_pool_reads_are_the_notes_read_alone_in_the_same_order(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "vault", copies=200)  # ~780 K characters of notes: two batches
    pooled = CountingReader(workers=2, start_seconds=0, wait=True, start_method="spawn")
    found, alone = read(vault, pooled), read(vault, NoteReader(workers=1))
    assert found == alone
    assert pooled.batches == 2 and pooled.pooled == 200 * len(NOTES)
    assert pooled.pool is None  # shut when the reading ended


@pytest.mark.slow
def test_a_note_that_cannot_be_read_keeps_its_place_among_the_sources(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "vault", copies=200)
    found = read(vault, NoteReader(workers=2, start_seconds=0, wait=True, start_method="spawn"))
    where = [n for n, s in enumerate(found) if isinstance(s, Skipped)]
    assert [found[n].path for n in where] == ["_shorts/2026-11-02-binary.md"]
    assert 0 < where[0] < len(found) - 1
    assert found[where[0] - 1].path < found[where[0]].path < found[where[0] + 1].path  # as the walk met them


@pytest.mark.slow
def test_a_pool_whose_workers_die_is_given_up_and_the_notes_still_read() -> None:
    bodies = NOTES * 5
    with NoteReader(workers=2, start_seconds=0, wait=True, start_method="spawn") as reader:
        assert reader.start(["a"]).result() == read_notes(["a"])
        assert reader.pool is not None
        for child in multiprocessing.active_children():
            os.kill(child.pid, signal.SIGKILL)
        assert reader.start(bodies).result() == read_notes(bodies)
        assert reader.pool is None and reader.pooled == 1  # the notes re-read here are not counted as the pool's
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
from hylo_memory.pipeline.notes import reading as note_reading
vault = make_vault(Path(sys.argv[2]), copies=100)
pooled = note_reading.NoteReader(workers=2, start_seconds=0, wait=True)
same = read(vault, pooled) == read(vault, note_reading.NoteReader(workers=1))
print(pooled.method, same, pooled.pooled > 0)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
@pytest.mark.slow
def test_a_process_with_no_other_thread_forks_its_workers_and_reads_the_same(tmp_path: Path) -> None:
    ran = subprocess.run([sys.executable, "-c", FORKED, str(Path(__file__).parent), str(tmp_path / "vault")],
                         capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["fork", "True", "True"]
    assert ran.stderr == ""

