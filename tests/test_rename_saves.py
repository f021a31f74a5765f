"""A person's editor saving a memory file by rename while hylo-memory writes it (issue 38, 12f).

Many editors save by writing a temp file and renaming it onto the name. Such a save landing
between a writer's compare and its replace must never be overwritten unseen: every bullet the
editor ever saved is in the file at the end, or in `.archive/` (a version a later save replaced).
Here the editor is a thread renaming in a tight loop while `remember`s and refreshes write the
same file, round after round (docs/spec.md §7).
"""

from __future__ import annotations

import datetime as dt
import os
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from vault_helpers import memory_file, opened, short

from hylo_memory.decay import Dimension
from hylo_memory.decay.files import store as store_module
from hylo_memory.decay.files.aside import move_aside
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

TODAY = dt.date(2026, 11, 30)
PEOPLE = "## Active\n- Ines — sister `last:2026-11-01 seen:1`\n"
ROUNDS, SECONDS = 4, 2.0  # each round: the editor saves for SECONDS; the writers stop when it does
PAUSE = (0.0, 0.03)  # seconds between two saves: as long as a write takes from its compare to its replace


def name(rng: random.Random) -> str:
    return " ".join("".join(rng.choice("bdfgklmnprstvz") + rng.choice("aeiou") for _ in range(3)).capitalize()
                    for _ in range(2))


def save_by_rename(path: Path, bullet: str, n: int) -> bool:
    """One save as such an editor makes it: the file read, a bullet added, written to a temp file renamed onto the
    name. False when there was no file to read (a writer had it moved aside for an instant)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    head, active, rest = text.partition("## Active\n")
    tmp = path.with_name(f"editor-{n}.tmp")
    tmp.write_text(head + active + f"- {bullet}\n" + rest, encoding="utf-8")
    os.rename(tmp, path)
    return True


def keep_saving(path: Path, seed: int, saved: list[str]) -> None:
    rng, end = random.Random(seed), time.monotonic() + SECONDS
    while time.monotonic() < end:
        bullet = f"Knows {name(rng)} from the climbing gym"
        if save_by_rename(path, bullet, len(saved)):
            saved.append(bullet)
        time.sleep(rng.uniform(*PAUSE))


def keep_remembering(vault: Path, config: Config, saving: threading.Thread, seed: int) -> None:
    rng = random.Random(seed)
    while saving.is_alive():
        try:
            with open_memory(vault, config, NAMING) as memory:  # on this thread: its ledger serves the thread that opened it
                remember_text(memory, f"{name(rng)} — colleague", NAMING, Dimension.people, today=TODAY)
        except FileChanged:
            pass  # refused in one line (the file kept changing): allowed, never a loss


def keep_refreshing(vault: Path, config: Config, saving: threading.Thread, seed: int) -> None:
    rng = random.Random(seed)
    n = 0
    while saving.is_alive():
        n += 1
        short(vault, TODAY, f"Had lunch with my friend {name(rng)} today.", slug=f"lunch-{seed}-{n}")
        try:
            with open_memory(vault, config, NAMING) as memory:
                refresh(memory, OfflineExtractor(), RunOptions(TODAY))
        except FileChanged:
            pass


def one_round(vault: Path, seed: int) -> dict[str, str]:
    """The editor's saves against two remembering threads and a refreshing one; each bullet it saved that is not
    in the file at the end, and whether it is in `.archive/`."""
    people = vault / "_memory" / "_people.md"
    config = Config(bundled_embeddings=False)
    saved: list[str] = []
    saving = threading.Thread(target=keep_saving, args=(people, seed, saved))
    failed: list[Exception] = []

    def writer(work: Callable[[Path, Config, threading.Thread, int], None], n: int) -> None:
        try:
            work(vault, config, saving, seed * 10 + n)
        except Exception as exc:  # noqa: BLE001 — anything but a one-line refusal fails the test
            failed.append(exc)

    writers = [threading.Thread(target=writer, args=(work, n))
               for n, work in enumerate((keep_remembering, keep_remembering, keep_refreshing))]
    saving.start()
    for thread in writers:
        thread.start()
    saving.join(timeout=120)
    for thread in writers:
        thread.join(timeout=120)
    print(f"\n{len(saved)} saves")
    assert failed == [] and len(saved) >= 20
    text = people.read_text(encoding="utf-8")
    archived = " ".join(p.read_text(encoding="utf-8") for p in (vault / "_memory" / ".archive").iterdir())
    return {bullet: "only in .archive/" if bullet in archived else "nowhere" for bullet in saved if bullet not in text}


@pytest.mark.slow  # seconds of racing threads, round after round
def test_every_bullet_saved_by_rename_during_writes_is_in_the_file_or_the_archive(tmp_path: Path) -> None:
    for seed in range(1, ROUNDS + 1):
        vault = tmp_path / f"round-{seed}"
        memory_file(vault, Dimension.people, PEOPLE)
        with Ledger.for_memory_dir(vault / "_memory"):
            pass  # created before the threads, which would race to create it
        lost = {bullet: where for bullet, where in one_round(vault, seed).items() if where == "nowhere"}
        assert lost == {}, f"round {seed}"


# The exact interleaving, made to happen: the person's save lands between the writer's compare and
# its replace (just before the new version is given the name), or a kill stops the writer there.

SAVED = "- Knows Bruno from the climbing gym\n"
REMEMBERED = "Ana Bel — colleague"


class Died(BaseException):
    """The process "dies" here: no handler of ours runs."""


def people_vault(root: Path) -> Path:
    vault = root / "vault"
    memory_file(vault, Dimension.people, PEOPLE)
    return vault


def archived(memory: Path) -> list[str]:
    """The texts of `.archive/`, oldest first."""
    return [p.read_text(encoding="utf-8") for p in sorted((memory / ARCHIVE_DIR).glob("*"), key=lambda p: p.name)]


def moved_aside(memory: Path) -> list[Path]:
    return sorted(memory.glob(".*.aside"))


def saving_before_the_replace(monkeypatch: pytest.MonkeyPatch, path: Path, times: int = 1) -> None:
    """The person's editor, which opened `path` now, saves it with a bullet added, by rename, right before the
    writer gives its new version the name."""
    real, saves, opened = store_module.link_in, [0], path.read_text(encoding="utf-8")

    def save_then_link(target: Path, tmp: Path) -> None:
        if target == path and saves[0] < times:
            saves[0] += 1
            tmp_save = path.with_name("editor.tmp")
            tmp_save.write_text(opened + SAVED, encoding="utf-8")
            os.rename(tmp_save, path)
        real(target, tmp)
    monkeypatch.setattr(store_module, "link_in", save_then_link)


def test_a_save_by_rename_between_the_compare_and_the_replace_stands(tmp_path: Path, monkeypatch) -> None:
    store = MemoryStore(tmp_path / "_memory")
    path = store.path(Dimension.people)
    store.write_text(Dimension.people, PEOPLE)
    read = store.read_bytes(Dimension.people)
    saving_before_the_replace(monkeypatch, path)
    with pytest.raises(FileChanged):
        store.replace(Dimension.people, b"## Active\n", digest(read))
    assert path.read_text(encoding="utf-8") == PEOPLE + SAVED
    assert archived(store.folder) == [PEOPLE]  # the version their save replaced
    assert moved_aside(store.folder) == []


def test_a_removal_leaves_a_file_saved_by_rename_after_its_compare(tmp_path: Path, monkeypatch) -> None:
    store = MemoryStore(tmp_path / "_memory")
    path = store.path(Dimension.people)
    store.write_text(Dimension.people, PEOPLE)
    read = store.read_bytes(Dimension.people)
    real = store_module.read_fd

    def read_then_save(fd: int) -> bytes:
        data = real(fd)
        if not path.exists():  # the compare's read, the file moved aside
            path.write_text(PEOPLE + SAVED, encoding="utf-8")
        return data
    monkeypatch.setattr(store_module, "read_fd", read_then_save)
    with pytest.raises(FileChanged):
        store.replace(Dimension.people, None, digest(read))
    assert path.read_text(encoding="utf-8") == PEOPLE + SAVED
    assert archived(store.folder) == [PEOPLE] and moved_aside(store.folder) == []


def test_remember_plans_again_on_a_save_by_rename_that_landed_before_its_replace(tmp_path: Path,
                                                                               monkeypatch) -> None:
    vault = people_vault(tmp_path)
    people = vault / "_memory" / "_people.md"
    before = people.read_text(encoding="utf-8")
    saving_before_the_replace(monkeypatch, people)
    remember_text(opened(vault, Config(bundled_embeddings=False)), REMEMBERED, NAMING, Dimension.people, today=TODAY)
    text = people.read_text(encoding="utf-8")
    assert "Knows Bruno from the climbing gym" in text and REMEMBERED in text
    assert archived(vault / "_memory") == [before, before + SAVED]  # each version replaced, once


def test_a_reader_during_a_write_reads_the_file_the_write_moved_aside(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "_memory")
    store.write_text(Dimension.people, PEOPLE)
    move_aside(store.path(Dimension.people))  # the instant between the compare and the replace
    assert store.read_bytes(Dimension.people) == PEOPLE.encode()


def killed_right_after_moving_the_file_aside(monkeypatch: pytest.MonkeyPatch) -> None:
    def move_then_die(target: Path) -> Path | None:
        move_aside(target)
        raise Died
    monkeypatch.setattr(store_module, "move_aside", move_then_die)


def killed_once_the_new_version_has_the_name(monkeypatch: pytest.MonkeyPatch) -> None:
    def dead(*args: object) -> None:
        raise Died  # the version moved aside is not archived yet
    monkeypatch.setattr(MemoryStore, "_keep", dead)


def killed_once_the_old_version_is_archived(monkeypatch: pytest.MonkeyPatch) -> None:
    def dead(*args: object) -> bool:
        raise Died  # archived (a hard link), its private name not yet removed
    monkeypatch.setattr(store_module.Replaced, "saved_into", dead)


KILLS = [killed_right_after_moving_the_file_aside, killed_once_the_new_version_has_the_name,
         killed_once_the_old_version_is_archived]


@pytest.mark.parametrize("kill", KILLS, ids=lambda k: k.__name__)
def test_a_remember_killed_mid_write_is_finished_by_the_next_as_a_clean_run_would(tmp_path: Path, monkeypatch,
                                                                                 kill: Callable[..., None]) -> None:
    config = Config(bundled_embeddings=False)
    clean = people_vault(tmp_path / "clean")
    for text in (REMEMBERED, "Rui Sol — neighbour"):
        remember_text(opened(clean, config), text, NAMING, Dimension.people, today=TODAY)
    vault = people_vault(tmp_path / "killed")
    memory = vault / "_memory"
    before = (memory / "_people.md").read_text(encoding="utf-8")
    with monkeypatch.context() as patch:
        kill(patch)
        with pytest.raises(Died):
            remember_text(opened(vault, config), REMEMBERED, NAMING, Dimension.people, today=TODAY)
    (aside,) = moved_aside(memory)
    assert aside.read_text(encoding="utf-8") == before  # maybe its only copy
    remember_text(opened(vault, config), "Rui Sol — neighbour", NAMING, Dimension.people, today=TODAY)
    assert (memory / "_people.md").read_text() == (clean / "_memory" / "_people.md").read_text()
    assert archived(memory) == archived(clean / "_memory") and moved_aside(memory) == []


def test_a_file_a_killed_write_moved_aside_goes_to_the_archive_when_a_save_took_the_name(tmp_path: Path) -> None:
    vault = people_vault(tmp_path)
    people = vault / "_memory" / "_people.md"
    before = people.read_text(encoding="utf-8")
    move_aside(people)
    people.write_text(before + SAVED, encoding="utf-8")  # the person saved while the file was aside
    remember_text(opened(vault, Config(bundled_embeddings=False)), REMEMBERED, NAMING, Dimension.people, today=TODAY)
    assert archived(vault / "_memory") == [before, before + SAVED] and moved_aside(vault / "_memory") == []
    assert "Knows Bruno from the climbing gym" in people.read_text(encoding="utf-8")
