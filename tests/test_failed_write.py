"""A command that fails to write leaves nothing behind (issue 17.2): no change, no provenance, no
journal a later command would carry out; readers work on a memory folder they cannot write.

Two ways of making the memory folder refuse writes, said plainly:
- in-process, moving a memory file aside (a write's first step) is made to raise EPERM (a fault injected in the
  file system call, as a read-only folder would refuse it);
- for real, the folder is chmod 0500 and the command runs as a user that chmod binds: ourselves
  when not root, else `nobody` through `setpriv` (root ignores permissions); skipped without it.
"""

from __future__ import annotations

import datetime as dt
import errno
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import hylo, one_line
from proc_helpers import HYLO, cli_env
from vault_helpers import memory_file, opened, short

from hylo_memory.decay import Dimension, Evidence
from hylo_memory.decay.files.store import ARCHIVE_DIR
from hylo_memory.errors import LedgerError, StorageError
from hylo_memory.pipeline.cli.options import NAMING
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.reading.apply import apply_evidence
from hylo_memory.pipeline.operations.remember import remember_text
from hylo_memory.pipeline.state import journal as journal_module
from hylo_memory.pipeline.state.journal import Journal
from hylo_memory.pipeline.state.ledger import Ledger
from hylo_memory.pipeline.state.trust import changes

pytestmark = pytest.mark.slow  # real processes (docs/development.md: the tiers)

DAY = dt.date(2026, 11, 30)
PREFERENCES = "## Active\n- Likes tea `last:2026-11-01 seen:1`\n\n## Fading\n"
NOBODY = 65534


def seeded(root: Path) -> Path:
    vault = root / "vault"
    memory_file(vault, Dimension.preferences, PREFERENCES)
    return vault


def memory(vault: Path) -> dict[str, bytes]:
    """The memory folder's files (not its state or archive), by name."""
    return {p.name: p.read_bytes() for p in (vault / "_memory").iterdir() if p.is_file()}


def recorded(vault: Path) -> int:
    with Ledger.for_memory_dir(vault / "_memory", readonly=True) as ledger:
        return len(changes(ledger, 1000))


def refuse_writes_into(folder: Path, monkeypatch: pytest.MonkeyPatch, only: int | None = None) -> None:
    """Moving a file of `folder` aside (how each write onto a memory file begins, decay/files/aside.py) fails with
    EPERM, as a read-only folder refuses it (every time, or only the `only`-th time)."""
    real, calls = os.rename, [0]

    def rename(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        if Path(src).parent == folder:
            calls[0] += 1
            if only is None or calls[0] == only:
                raise PermissionError(errno.EPERM, "Operation not permitted", str(src))
        real(src, dst)

    monkeypatch.setattr(os, "rename", rename)


def test_a_remember_the_folder_refuses_names_the_folder_and_records_nothing(tmp_path, monkeypatch) -> None:
    vault = seeded(tmp_path)
    before = memory(vault)
    refuse_writes_into(vault / "_memory", monkeypatch)
    with pytest.raises(StorageError) as refused:
        remember_text(opened(vault, Config()), "Is vegetarian", NAMING, Dimension.preferences)
    assert str(refused.value) == f"{vault / '_memory'} is not writable: check its permissions"
    assert memory(vault) == before
    assert not (vault / "_memory" / ".state" / "journal.json").exists()
    assert recorded(vault) == 0


def test_a_remember_that_failed_is_not_carried_out_by_a_later_command(tmp_path, monkeypatch) -> None:
    vault = seeded(tmp_path)
    with monkeypatch.context() as patch:
        refuse_writes_into(vault / "_memory", patch)
        with pytest.raises(StorageError):
            remember_text(opened(vault, Config()), "Is vegetarian", NAMING, Dimension.preferences)
    line = remember_text(opened(vault, Config()), "Is vegetarian", NAMING, Dimension.preferences)  # the person's retry
    assert "seen 1" in line and recorded(vault) == 1


def test_an_apply_whose_second_file_fails_puts_the_first_back(tmp_path, monkeypatch) -> None:
    vault = seeded(tmp_path)
    memory_file(vault, Dimension.identity, "## Active\n- Lives in Porto `last:2026-11-01 seen:1`\n\n## Fading\n")
    before = memory(vault)
    evidence = [Evidence(dimension=d, text=t, source="e") for d, t in
                ((Dimension.identity, "Works as a nurse"), (Dimension.preferences, "Loves modal jazz"))]
    refuse_writes_into(vault / "_memory", monkeypatch, only=2)  # identity written, then preferences refused
    with pytest.raises(StorageError):
        apply_evidence(opened(vault, Config()), evidence, DAY)
    assert memory(vault) == before
    assert not (vault / "_memory" / ".state" / "journal.json").exists() and recorded(vault) == 0


def test_an_apply_whose_second_file_fails_leaves_no_archived_version(tmp_path, monkeypatch) -> None:
    vault = seeded(tmp_path)
    memory_file(vault, Dimension.identity, "## Active\n- Lives in Porto `last:2026-11-01 seen:1`\n\n## Fading\n")
    evidence = [Evidence(dimension=d, text=t, source="e") for d, t in
                ((Dimension.identity, "Works as a nurse"), (Dimension.preferences, "Loves modal jazz"))]
    refuse_writes_into(vault / "_memory", monkeypatch, only=2)
    with pytest.raises(StorageError):
        apply_evidence(opened(vault, Config()), evidence, DAY)
    assert not (vault / "_memory" / ARCHIVE_DIR).exists()  # the files hold what they held: no version was replaced


def refuse_creating_in(folder: Path, monkeypatch: pytest.MonkeyPatch, only: int) -> None:
    """The `only`-th new file linked into `folder` (how a memory file is created) fails as on a full disk."""
    real, calls = os.link, [0]

    def link(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        if Path(dst).parent == folder:
            calls[0] += 1
            if calls[0] == only:
                raise OSError(errno.ENOSPC, "No space left on device", str(dst))
        real(src, dst)

    monkeypatch.setattr(os, "link", link)


def test_a_first_refresh_that_fails_on_a_full_disk_leaves_no_memory_file_and_no_archive(tmp_path, monkeypatch) -> None:
    vault = tmp_path / "vault"
    short(vault, "2026-11-29", "I love green tea. I live in Lisbon.")
    refuse_creating_in(vault / "_memory", monkeypatch, only=2)  # _identity.md created, _preferences.md not
    result = hylo("refresh", "--vault", vault, "--today", "2026-11-30")
    assert result.exit_code == 1 and "disk full" in one_line(result.stderr)
    assert sorted(p.name for p in (vault / "_memory").iterdir()) == [".state"]


def test_a_ledger_that_refuses_the_change_has_its_files_put_back(tmp_path, monkeypatch) -> None:
    vault = seeded(tmp_path)
    before = memory(vault)

    def refused(*args: object) -> None:
        raise LedgerError("ledger.db: the ledger failed: database is locked")
    monkeypatch.setattr(journal_module, "record_change", refused)
    with pytest.raises(LedgerError):
        remember_text(opened(vault, Config()), "Is vegetarian", NAMING, Dimension.preferences)
    assert memory(vault) == before
    assert not (vault / "_memory" / ".state" / "journal.json").exists()


# For real: a memory folder chmod 0500, and a command run by a user that chmod binds.


@pytest.fixture
def person(tmp_path: Path) -> Iterator[tuple[Path, list[str]]]:
    """A folder for the test's vault, and the command prefix that runs hylo-memory as a person
    whom permissions bind (outside tmp_path, which root keeps private, when that is `nobody`)."""
    if os.geteuid() != 0:
        yield tmp_path, []
        return
    if shutil.which("setpriv") is None:
        pytest.skip("running as root, which ignores chmod, and no setpriv to run as another user")
    root = Path(tempfile.mkdtemp(prefix="hylo-failed-write-"))
    root.chmod(0o755)
    os.chown(root, NOBODY, NOBODY)
    try:
        yield root, ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    finally:
        for path in [root, *root.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(root)


def as_person(person: tuple[Path, list[str]], *args: str) -> subprocess.CompletedProcess[str]:
    root, prefix = person
    env = cli_env(root / "home")
    return subprocess.run([*prefix, HYLO, *args], env=env, capture_output=True, text=True, timeout=60)


def owned(person: tuple[Path, list[str]]) -> Path:
    """The seeded vault, owned by the person, its state folder and ledger made by a first command."""
    root, prefix = person
    vault = seeded(root)
    (root / "home").mkdir(exist_ok=True)
    if prefix:
        for path in [root / "home", vault, *vault.rglob("*")]:
            os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
    first = as_person(person, "remember", "Likes tea", "--vault", str(vault), "--dimension", "preferences")
    assert first.returncode == 0, first.stderr
    return vault


def test_remember_on_a_folder_it_cannot_write_fails_in_one_line_naming_it(person) -> None:
    vault = owned(person)
    before, changes_before = memory(vault), recorded(vault)
    (vault / "_memory").chmod(0o500)  # its .state/ stays writable: the journal can be written, the file not
    done = as_person(person, "remember", "Is vegetarian", "--vault", str(vault), "--dimension", "preferences")
    assert done.returncode == 1
    assert done.stderr == f"hylo-memory: {vault / '_memory'} is not writable: check its permissions\n"
    assert memory(vault) == before
    assert not (vault / "_memory" / ".state" / "journal.json").exists()
    assert recorded(vault) == changes_before


def test_a_writer_that_cannot_make_its_state_folder_names_the_memory_folder(person) -> None:
    root, prefix = person
    vault = seeded(root)
    if prefix:
        for path in [vault, *vault.rglob("*")]:
            os.chown(path, NOBODY, NOBODY)
    (vault / "_memory").chmod(0o500)
    done = as_person(person, "remember", "Is vegetarian", "--vault", str(vault), "--dimension", "preferences")
    assert done.returncode == 1
    assert done.stderr == f"hylo-memory: {vault / '_memory'} is not writable: check its permissions\n"
    assert not (vault / "_memory" / ".state").exists()


def pending(vault: Path) -> None:
    """A journal as a command killed after writing it leaves, waiting to be finished."""
    path = vault / "_memory" / Dimension.preferences.filename
    current = path.read_bytes()
    journal = Journal(files={Dimension.preferences: current.decode() + "- Is vegetarian\n"},
                      before={Dimension.preferences: hashlib.sha256(current).hexdigest()})
    state = vault / "_memory" / ".state"
    (state / "journal.json").write_text(journal.model_dump_json(), encoding="utf-8")
    os.chown(state / "journal.json", state.stat().st_uid, state.stat().st_gid)


@pytest.mark.parametrize("reader", [["context"], ["recall", "tea"], ["why", "Likes tea"], ["history"],
                                    ["forget", "--list"]], ids=lambda r: r[0])
def test_a_reader_reads_a_folder_it_cannot_write_and_says_once_what_waits(person, reader) -> None:
    vault = owned(person)
    pending(vault)
    (vault / "_memory").chmod(0o500)
    done = as_person(person, *reader, "--vault", str(vault))
    assert done.returncode == 0, done.stderr
    print(done.stderr, end="")  # for the record: the one line a person sees
    assert done.stderr.count("\n") == 1
    assert "a change interrupted earlier could not be finished" in done.stderr
    assert f"{vault / '_memory'} is not writable" in done.stderr
    assert (vault / "_memory" / ".state" / "journal.json").exists()  # still waiting, for a command that can
