"""Crash safety: a run killed at any moment leaves whole files, and the next command ends
exactly where an uninterrupted run would have (no source counted twice, none lost)."""

from __future__ import annotations

import datetime as dt
import random
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from proc_helpers import HYLO, MEMORY_FILES, cli_env, copy_example_vault, generate_notes, memory_texts, run
from vault_helpers import opened

from hylo_memory.decay import Dimension, parse
from hylo_memory.decay.files.store import MemoryStore
from hylo_memory.extractors.base import Decision
from hylo_memory.extractors.offline.offline import OfflineExtractor
from hylo_memory.pipeline.cli.options import NAMING
from hylo_memory.pipeline.config import load_config
from hylo_memory.pipeline.operations.reading.apply import apply_evidence
from hylo_memory.pipeline.operations.reading.evidence_file import read_evidence
from hylo_memory.pipeline.operations.remember import remember
from hylo_memory.pipeline.operations.serving.status import gather
from hylo_memory.pipeline.run import refresh as refresh_module
from hylo_memory.pipeline.run.options import RunOptions
from hylo_memory.pipeline.state import journal as journal_module
from hylo_memory.pipeline.state.journal import journal_path
from hylo_memory.pipeline.state.ledger import Ledger
from hylo_memory.pipeline.state.writing import open_store

pytestmark = pytest.mark.slow  # real processes (docs/development.md: the tiers)

TODAY = dt.date(2026, 12, 2)

# Memory as it stands before the run: items to reinforce, merge, fade and delete, a pinned
# one, a hand-written bullet to adopt, a comment to keep. Nothing is more than two windows
# old while Active, so a second run on the same day changes nothing (docs/spec.md §3).
SEED = {
    "_preferences.md": """---
decay_window: 90d
last_updated: 2026-10-01
---
<!-- my own note: keep this -->
## Active
- Loves modal jazz `last:2026-09-20 seen:2`
- Is vegetarian `last:2026-06-01 seen:1 pinned`
- Uses neovim `last:2026-10-01 seen:4`
- Likes tea in the afternoon

## Fading
- Enjoys sailing `last:2026-03-01 seen:2`
""",
    "_state.md": """---
decay_window: 7d
last_updated: 2026-11-25
---
## Active
- Feeling nervous about the offsite `last:2026-11-22 seen:1`
""",
}


def seed(memory: Path) -> None:
    memory.mkdir(parents=True, exist_ok=True)
    for name, text in SEED.items():
        (memory / name).write_text(text, encoding="utf-8")


def ledger_sources(memory: Path) -> list[tuple[str, str]]:
    db = sqlite3.connect(memory / ".state" / "ledger.db")
    try:
        return sorted(db.execute("SELECT path, hash FROM sources").fetchall())
    finally:
        db.close()


def leftovers(memory: Path) -> list[str]:
    return sorted(p.name for p in memory.rglob("*.tmp")) + (["journal.json"] if (memory / ".state/journal.json").exists() else [])


# Killed with SIGKILL at random moments: pure timing, no hook in the code.

NOTES = 400  # enough for the kills to land in every phase of the run; more notes prove nothing more
SPREAD_KILLS = 14  # spread over the whole run, startup to exit
COMMIT_KILLS = 6  # fired when the journal appears, 0–8 ms later: inside the ~10 ms commit


def test_sigkill_at_random_moments_then_refresh_reaches_the_uninterrupted_state(tmp_path: Path) -> None:
    began = time.monotonic()
    vault = tmp_path / "vault"
    generate_notes(vault, NOTES, TODAY)
    base_env = cli_env(tmp_path / "home")
    args = ["refresh", "--vault", str(vault), "--today", TODAY.isoformat()]

    def env(name: str) -> dict[str, str]:
        # One vault, one memory folder per trial: the notes are read, never written.
        return {**base_env, "HYLO_MEMORY_MEMORY_DIR": name}

    seed(vault / "_memory_ref")
    started = time.monotonic()
    assert run(args, env("_memory_ref")).returncode == 0
    duration = time.monotonic() - started
    reference = memory_texts(vault / "_memory_ref")
    reference_sources = ledger_sources(vault / "_memory_ref")
    assert len(reference_sources) > NOTES * 0.9
    # A second run the same day changes nothing, so a kill that lands after the run
    # finished must also end in the reference state.
    assert run(args, env("_memory_ref")).returncode == 0
    assert memory_texts(vault / "_memory_ref") == reference

    rng = random.Random(20261202)
    points = [("spread", duration * (i + rng.random()) / SPREAD_KILLS) for i in range(SPREAD_KILLS)]
    points += [("commit", rng.uniform(0, 0.008)) for _ in range(COMMIT_KILLS)]
    outcomes = {"before the journal": 0, "during the commit": 0, "after the run ended": 0}
    for n, (kind, delay) in enumerate(points):
        name = f"_memory_{n}"
        memory = vault / name
        seed(memory)
        journal = memory / ".state" / "journal.json"
        process = subprocess.Popen([HYLO, *args], env=env(name), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if kind == "spread":
            time.sleep(delay)
        else:
            while not journal.exists() and process.poll() is None:
                pass  # spin: the commit lasts a few milliseconds
            time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        code = process.wait()
        if code == 0:
            outcomes["after the run ended"] += 1
        else:
            assert code == -signal.SIGKILL
            outcomes["during the commit" if journal.exists() else "before the journal"] += 1

        # Every memory file is whole: as it was before the run, or as the run leaves it.
        for file, text in memory_texts(memory).items():
            assert text in (SEED.get(file), reference[file]), f"kill point {n}: {file} is neither before nor after"

        again = run(args, env(name))
        assert again.returncode == 0, again.stderr
        assert memory_texts(memory) == reference, f"kill point {n} ({kind}, {delay:.3f} s)"
        assert ledger_sources(memory) == reference_sources
        assert leftovers(memory) == []

    elapsed = time.monotonic() - began
    print(f"\n{len(points)} kill points over a {duration:.2f} s run of {NOTES} notes: {outcomes}; {elapsed:.1f} s in all")
    assert outcomes["before the journal"] >= SPREAD_KILLS // 2


# Deterministic deaths at each step of the commit (an exception stands for the kill:
# the locks are released and an open SQLite transaction rolled back, as the kernel and
# SQLite's own journal would do).


class Died(BaseException):
    """The process "dies" here."""


@pytest.fixture
def config(isolated_env):
    return load_config()


def fresh_vault(root: Path) -> Path:
    vault = copy_example_vault(root)
    seed(vault / "_memory")
    return vault


def do_refresh(vault: Path, config) -> None:
    refresh_module.refresh(opened(vault, config), OfflineExtractor(), RunOptions(TODAY))


def do_remember(vault: Path, config) -> None:
    decision = Decision(dimension=Dimension.preferences, text="Always answer in English", pinned=True)
    remember(opened(vault, config), decision, NAMING, TODAY)


def die_before_the_journal(monkeypatch: pytest.MonkeyPatch) -> None:
    def dead(*args, **kwargs):
        raise Died
    monkeypatch.setattr(journal_module, "commit", dead)


def die_after_the_journal(monkeypatch: pytest.MonkeyPatch) -> None:
    def dead(*args, **kwargs):
        raise Died
    monkeypatch.setattr(journal_module, "_apply", dead)


def die_after_the_first_file(monkeypatch: pytest.MonkeyPatch) -> None:
    original = MemoryStore.replace

    def write_then_die(self, *args, **kwargs):
        original(self, *args, **kwargs)
        raise Died
    monkeypatch.setattr(MemoryStore, "replace", write_then_die)


def die_inside_the_ledger_transaction(monkeypatch: pytest.MonkeyPatch) -> None:
    def dead(*args, **kwargs):
        raise Died  # after record_sources, in the same transaction
    monkeypatch.setattr(Ledger, "finish_run", dead)


def die_before_removing_the_journal(monkeypatch: pytest.MonkeyPatch) -> None:
    original = journal_module._apply

    def apply_then_die(*args, **kwargs):
        original(*args, **kwargs)
        raise Died
    monkeypatch.setattr(journal_module, "_apply", apply_then_die)


DEATHS = [die_before_the_journal, die_after_the_journal, die_after_the_first_file,
          die_inside_the_ledger_transaction, die_before_removing_the_journal]


@pytest.fixture
def reference(tmp_path: Path, config) -> dict[str, dict]:
    """Memory and ledger after an uninterrupted refresh, and after it and a `remember`."""
    vault = fresh_vault(tmp_path / "reference")
    do_refresh(vault, config)
    after_refresh = memory_texts(vault / "_memory")
    sources = ledger_sources(vault / "_memory")
    do_remember(vault, config)
    return {"refresh": after_refresh, "sources": sources, "remember": memory_texts(vault / "_memory")}


@pytest.mark.parametrize("death", DEATHS, ids=lambda d: d.__name__)
def test_refresh_dies_then_the_next_refresh_finishes_it(tmp_path, config, reference, death, monkeypatch, caplog):
    vault = fresh_vault(tmp_path / "vault")
    memory = vault / "_memory"
    with monkeypatch.context() as patch:
        death(patch)
        with pytest.raises(Died):
            do_refresh(vault, config)
    journaled = death is not die_before_the_journal
    assert journal_path(open_store(vault, config)).exists() == journaled
    for file, text in memory_texts(memory).items():
        assert text in (SEED.get(file), reference["refresh"][file])
        if text is not None:
            parse(text, Dimension(file[1:-3]), file)  # whole and valid

    do_refresh(vault, config)
    assert memory_texts(memory) == reference["refresh"]
    assert ledger_sources(memory) == reference["sources"]
    assert leftovers(memory) == []
    said = [r.getMessage() for r in caplog.records if r.name == "hylo_memory.pipeline.state.journal"]
    assert any("interrupted earlier" in line for line in said) == journaled
    runs = gather(opened(vault, config), NAMING, TODAY).runs
    # Replayed, the dead run is complete; otherwise it shows as interrupted and the next did its work.
    assert [r.status for r in runs] == (["ok", "ok"] if journaled else ["ok", "interrupted"])


@pytest.mark.parametrize("death", DEATHS[1:], ids=lambda d: d.__name__)
def test_refresh_dies_then_a_remember_replays_it_first(tmp_path, config, reference, death, monkeypatch):
    vault = fresh_vault(tmp_path / "vault")
    with monkeypatch.context() as patch:
        death(patch)
        with pytest.raises(Died):
            do_refresh(vault, config)
    do_remember(vault, config)
    assert memory_texts(vault / "_memory") == reference["remember"]
    assert ledger_sources(vault / "_memory") == reference["sources"]
    do_refresh(vault, config)  # nothing left to extract: no source counted twice
    assert memory_texts(vault / "_memory") == reference["remember"]


EVIDENCE = "\n".join([
    '{"dimension": "identity", "text": "Lives in Lisbon", "source": "e1", "date": "2026-11-30"}',
    '{"dimension": "preferences", "text": "Loves modal jazz", "source": "e2", "date": "2026-12-01"}',
    '{"dimension": "people", "text": "Ines — sister", "source": "e3", "date": "2026-12-01"}',
]) + "\n"


def test_apply_dies_after_one_of_three_files_then_the_next_command_finishes_it(tmp_path, config, monkeypatch):
    (tmp_path / "evidence.jsonl").write_text(EVIDENCE, encoding="utf-8")
    evidence = read_evidence(tmp_path / "evidence.jsonl")
    expected_vault = fresh_vault(tmp_path / "expected")
    apply_evidence(opened(expected_vault, config), evidence, TODAY)
    do_remember(expected_vault, config)

    vault = fresh_vault(tmp_path / "vault")
    with monkeypatch.context() as patch:
        die_after_the_first_file(patch)
        with pytest.raises(Died):
            apply_evidence(opened(vault, config), evidence, TODAY)
    written = memory_texts(vault / "_memory")
    assert written["_identity.md"] is not None and written["_people.md"] is None  # one file of three
    do_remember(vault, config)
    assert memory_texts(vault / "_memory") == memory_texts(expected_vault / "_memory")


def test_recovery_sweeps_temp_files_a_killed_writer_left_and_nothing_else(tmp_path, config):
    vault = fresh_vault(tmp_path / "vault")
    memory = vault / "_memory"
    (memory / ".state" / "runs").mkdir(parents=True)
    (memory / ".archive").mkdir()
    junk = [memory / "._preferences.md.k2j3h4.tmp", memory / ".archive" / "._state.md.17.q1.tmp",
            memory / ".state" / ".journal.json.x8f.tmp"]
    summary = memory / ".state" / "runs" / ".000001.json.z9.tmp"  # written under the run lock only
    mine = [memory / "my-draft.tmp", memory / ".state" / "runs.tmp"]
    for path in junk + mine + [summary]:
        path.write_text("partial", encoding="utf-8")
    do_remember(vault, config)
    assert [p.exists() for p in junk] == [False] * 3
    assert summary.exists()  # a refresh may be writing it: only the run lock's holder sweeps runs/
    do_refresh(vault, config)
    assert not summary.exists()
    assert [p.exists() for p in mine] == [True, True]


def test_an_unreadable_journal_is_set_aside_in_one_line_and_the_writer_goes_on(tmp_path, config, caplog):
    vault = fresh_vault(tmp_path / "vault")
    path = journal_path(open_store(vault, config))
    path.parent.mkdir(parents=True)
    path.write_text("{not json", encoding="utf-8")
    do_remember(vault, config)
    assert "Always answer in English" in memory_texts(vault / "_memory")["_preferences.md"]
    (aside,) = path.parent.glob("journal.json.broken-*")
    assert aside.read_text(encoding="utf-8") == "{not json" and not path.exists()  # kept, renamed
    (line,) = [r.getMessage() for r in caplog.records if "set aside" in r.getMessage()]
    assert "\n" not in line and str(path) in line and aside.name in line and "may be read again" in line


def test_every_memory_file_name_is_covered() -> None:
    assert MEMORY_FILES == [d.filename for d in Dimension]


def test_an_apply_interrupted_while_a_refresh_extracts_is_finished_not_overwritten(tmp_path, config, monkeypatch):
    facts = (("identity", "Collects antique maps"), ("preferences", "Drinks only green tea"),
             ("people", "Zé — upstairs neighbour"))
    (tmp_path / "evidence.jsonl").write_text("".join(
        f'{{"dimension": "{d}", "text": "{t}", "source": "e{i}", "date": "2026-12-01"}}\n'
        for i, (d, t) in enumerate(facts)), encoding="utf-8")
    evidence = read_evidence(tmp_path / "evidence.jsonl")
    vault = fresh_vault(tmp_path / "vault")

    class ApplyDiesMidway(OfflineExtractor):
        """While the refresh extracts (holding no memory lock), an `apply` dies after one file."""

        def extract(self, *args, **kwargs):
            with monkeypatch.context() as patch:
                die_after_the_first_file(patch)
                with pytest.raises(Died):
                    apply_evidence(opened(vault, config), evidence, TODAY)
            return super().extract(*args, **kwargs)

    refresh_module.refresh(opened(vault, config), ApplyDiesMidway(), RunOptions(TODAY))
    store = open_store(vault, config)
    assert not journal_path(store).exists()
    for dimension, text in facts:
        assert text in {i.text for i in store.read(Dimension(dimension)).items}, dimension
