"""A person saving a memory file by hand while hylo-memory writes it (issue 17.1): their edit is never lost.

A command writes a file only if it still holds what the command read; else it plans again on
the person's text, or refuses in one line. The race itself: the person's editor takes no lock;
it reads the file, adds a bullet and writes it back in place (truncate, write: as Obsidian and
most editors save), in another process, while a thread runs `remember` after `remember` and
another refresh after refresh on the same file. Every bullet the editor wrote must be in the
file at the end (adopted as an item).
"""

from __future__ import annotations

import datetime as dt
import os
import random
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from vault_helpers import memory_file, opened, short

from hylo_memory.decay import Dimension
from hylo_memory.decay.files.store import ARCHIVE_DIR, MemoryStore, digest
from hylo_memory.errors import FileChanged
from hylo_memory.extractors.offline.offline import OfflineExtractor
from hylo_memory.pipeline.cli.options import NAMING
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.opening import open_memory
from hylo_memory.pipeline.operations.remember import remember_text
from hylo_memory.pipeline.run.options import RunOptions
from hylo_memory.pipeline.run.refresh import refresh
from hylo_memory.pipeline.state.ledger import Ledger
from hylo_memory.pipeline.state.trust import changes

TODAY = dt.date(2026, 11, 30)
PEOPLE = "## Active\n- Ines — sister `last:2026-11-01 seen:1`\n"
SECONDS = 3.0  # the editor's burst of saves; the writers stop when it does

# The editor: every 20–120 ms (the trial's person saved every 400 ms), one new bullet saved in
# place, without our lock; it prints each bullet once saved.
EDITOR = """
import random, sys, time
from pathlib import Path
path, seconds, rng = Path(sys.argv[1]), float(sys.argv[2]), random.Random(int(sys.argv[3]))
syllables = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
end = time.monotonic() + seconds
while time.monotonic() < end:
    bullet = " ".join("".join(rng.choice(syllables) for _ in range(4)).capitalize() for _ in range(3))
    try:
        head, active, rest = path.read_text(encoding="utf-8").partition("## Active\\n")
    except FileNotFoundError:  # a write has it moved aside for an instant (decay/files/aside.py)
        continue
    if active:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(head + active + f"- {bullet}\\n" + rest)
        print(bullet, flush=True)
    time.sleep(rng.uniform(0.02, 0.12))
"""


def names(rng: random.Random) -> str:
    return "".join(rng.choice("bdfgklmnprstvz") + rng.choice("aeiou") for _ in range(3)).capitalize()


def keep_remembering(vault: Path, config: Config, editing: subprocess.Popen[str], tally: dict[str, int]) -> None:
    rng = random.Random(1)
    while editing.poll() is None:
        try:  # opened on this thread, as a door opens it: a memory's ledger serves the thread that opened it
            with open_memory(vault, config, NAMING) as memory:
                remember_text(memory, f"{names(rng)} {names(rng)} — colleague", NAMING, Dimension.people, today=TODAY)
            tally["remembered"] += 1
        except FileChanged:
            tally["refused"] += 1  # refused in one line (the file kept changing): allowed, never a loss


def keep_refreshing(vault: Path, config: Config, editing: subprocess.Popen[str], tally: dict[str, int]) -> None:
    rng = random.Random(2)
    while editing.poll() is None:
        short(vault, TODAY, f"Had lunch with my friend {names(rng)} today.", slug=f"lunch-{tally['refreshed']}")
        try:
            with open_memory(vault, config, NAMING) as memory:
                refresh(memory, OfflineExtractor(), RunOptions(TODAY))
            tally["refreshed"] += 1
        except FileChanged:
            tally["refused"] += 1


@pytest.mark.slow
def test_every_bullet_saved_by_hand_during_remembers_and_refreshes_is_in_the_file(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    people = memory_file(vault, Dimension.people, PEOPLE)
    config = Config(bundled_embeddings=False)  # as many writes as can be in the time: none spent embedding for readers
    with Ledger.for_memory_dir(vault / "_memory"):
        pass  # created before the threads, which would race to create it
    editing = subprocess.Popen([sys.executable, "-c", EDITOR, str(people), str(SECONDS), "17"],
                               stdout=subprocess.PIPE, text=True)
    tally = {"remembered": 0, "refreshed": 0, "refused": 0}
    failed: list[Exception] = []

    def writer(work: Callable[[Path, Config, subprocess.Popen[str], dict[str, int]], None]) -> None:
        try:
            work(vault, config, editing, tally)
        except Exception as exc:  # noqa: BLE001 — anything but a one-line refusal fails the test
            failed.append(exc)

    writers = [threading.Thread(target=writer, args=(work,)) for work in (keep_remembering, keep_refreshing)]
    for thread in writers:
        thread.start()
    saved = editing.communicate(timeout=SECONDS + 30)[0].splitlines()
    for thread in writers:
        thread.join(timeout=60)
    print(f"\n{len(saved)} hand saves during {tally}")
    text = people.read_text(encoding="utf-8")
    assert failed == []
    assert tally["remembered"] >= 10 and tally["refreshed"] >= 1 and len(saved) >= 20
    archived = " ".join(p.read_text(encoding="utf-8") for p in (vault / "_memory" / ".archive").iterdir())
    lost = {bullet: "only in .archive/" if bullet in archived else "nowhere" for bullet in saved if bullet not in text}
    assert lost == {}


def hand_save(path: Path, bullet: str) -> None:
    """A bullet added as an editor saves: in place, without our lock."""
    head, active, rest = path.read_text(encoding="utf-8").partition("## Active\n")
    path.write_text(head + active + f"- {bullet}\n" + rest, encoding="utf-8")


def saving_after_each_read(monkeypatch: pytest.MonkeyPatch, path: Path, times: int) -> list[str]:
    """The person saves the file right after each of the command's first `times` reads of it."""
    real, saved = MemoryStore.read_bytes, []

    def read_then_save(self: MemoryStore, dimension: Dimension) -> bytes | None:
        data = real(self, dimension)
        if self.target(dimension) == path and len(saved) < times:
            saved.append(f"Knows Bruno{'o' * len(saved)} from the climbing gym")
            hand_save(path, saved[-1])
        return data
    monkeypatch.setattr(MemoryStore, "read_bytes", read_then_save)
    return saved


def test_a_write_over_a_file_saved_since_it_was_read_is_refused_and_the_save_kept(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "_memory")
    path = store.path(Dimension.people)
    store.write_text(Dimension.people, PEOPLE)
    read = store.read_bytes(Dimension.people)
    hand_save(path, "Knows Bruno from the climbing gym")
    with pytest.raises(FileChanged) as refused:
        store.replace(Dimension.people, b"## Active\n", digest(read))
    assert refused.value.path == str(path)
    assert "Knows Bruno from the climbing gym" in path.read_text(encoding="utf-8")
    assert not (tmp_path / "_memory" / ARCHIVE_DIR).exists()  # no version was replaced


def test_a_save_into_the_file_as_it_is_replaced_is_put_back_in_place(tmp_path: Path, monkeypatch) -> None:
    store = MemoryStore(tmp_path / "_memory")
    path = store.path(Dimension.people)
    store.write_text(Dimension.people, PEOPLE)
    read = store.read_bytes(Dimension.people)
    real_rename, real_link, editor = os.rename, os.link, []

    def opened_before_the_move(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        if Path(src) == path and not editor:
            editor.append(open(path, "r+", encoding="utf-8"))  # noqa: SIM115 — written once the write is in place
        real_rename(src, dst)

    def written_after_the_new_file_is_in_place(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        real_link(src, dst)
        if Path(dst) == path and editor and not editor[0].closed:
            with editor[0] as handle:
                handle.write(PEOPLE + "- Knows Bruno from the climbing gym\n")
    monkeypatch.setattr(os, "rename", opened_before_the_move)
    monkeypatch.setattr(os, "link", written_after_the_new_file_is_in_place)
    with pytest.raises(FileChanged):
        store.replace(Dimension.people, b"## Active\n", digest(read))
    assert path.read_text(encoding="utf-8") == PEOPLE + "- Knows Bruno from the climbing gym\n"
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".aside")]


def test_remember_plans_again_on_a_file_saved_after_it_read_it(tmp_path: Path, monkeypatch) -> None:
    vault = tmp_path / "vault"
    people = memory_file(vault, Dimension.people, PEOPLE)
    saved = saving_after_each_read(monkeypatch, people, times=1)
    remember_text(opened(vault, Config()), "Ana — colleague", NAMING, Dimension.people, today=TODAY)
    text = people.read_text(encoding="utf-8")
    assert saved[0] in text and "Ana — colleague" in text


def test_a_command_refuses_in_one_line_naming_the_file_a_person_keeps_saving(tmp_path: Path, monkeypatch) -> None:
    vault = tmp_path / "vault"
    people = memory_file(vault, Dimension.people, PEOPLE)
    saved = saving_after_each_read(monkeypatch, people, times=100)
    with pytest.raises(FileChanged) as refused:
        remember_text(opened(vault, Config()), "Ana — colleague", NAMING, Dimension.people, today=TODAY)
    assert str(refused.value).startswith(f"{people}: was saved while hylo-memory was writing it (3 times)")
    assert "\n" not in str(refused.value)
    text = people.read_text(encoding="utf-8")
    assert all(bullet in text for bullet in saved) and "Ana — colleague" not in text
    assert not (vault / "_memory" / ".state" / "journal.json").exists()
    with Ledger.for_memory_dir(vault / "_memory", readonly=True) as ledger:
        assert changes(ledger) == []
