"""`hylo-memory history` and `hylo-memory undo` (docs/spec.md §8 History, Undo), end to end on small vaults."""

from __future__ import annotations

import datetime as dt
import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import hylo, one_line
from click.testing import Result
from proc_helpers import cli_env, memory_texts
from trust_helpers import (
    TODAY,
    ago,
    apply,
    fact,
    forget,
    ledger_rows,
    ok,
    refresh,
    refresh_json,
    remember,
)
from vault_helpers import MEMORY, identity, items, memory_file, short, snapshot, texts, unit

from hylo_memory.decay import Dimension

NEXT_DAY = TODAY + dt.timedelta(days=1)


def history(vault: Path, *args: str) -> Result:
    return hylo("history", "--vault", vault, *args)


def history_json(vault: Path, *args: str) -> list[dict]:
    return json.loads(ok(history(vault, "--json", *args)).stdout)


def undo(vault: Path, *args: str) -> Result:
    return hylo("undo", *args, "--vault", vault)


def memory(vault: Path) -> dict[str, str | None]:
    return memory_texts(vault / MEMORY)


def three_changes(vault: Path) -> None:
    """#1 apply, #2 remember, #3 forget."""
    ok(apply(vault, fact("preferences", "Loves modal jazz"), fact("identity", "Lives in Lisbon")))
    ok(remember(vault, "I'm vegetarian"))
    ok(forget(vault, "Lives in Lisbon"))


# A vault whose refresh does a bit of everything: items reinforced, added, faded and deleted,
# a hand-written bullet adopted, files created, an external theme synthesised.

SEEDED_PREFERENCES = f"""---
decay_window: 90d
last_updated: {ago(40)}
---
<!-- my own note: keep this -->
## Active
- Loves long walks `last:{ago(40)} seen:2`
- Uses neovim `last:{ago(100)} seen:4`
- Likes tea in the afternoon

## Fading
- Enjoys sailing `last:{ago(200)} seen:2`
"""


def busy_vault(vault: Path) -> None:
    identity(vault, "Name is Maya Okafor", last=str(ago(30)))
    (vault / MEMORY / "_preferences.md").write_text(SEEDED_PREFERENCES, encoding="utf-8")
    short(vault, ago(1), "I love long walks. My sister Ines called. I want to run a half marathon.", slug="walks")
    short(vault, TODAY, "I'm so stressed about the deadline.", slug="mood")
    for slug, tags in (("sourdough-a", ["baking", "bread"]), ("sourdough-b", ["baking", "bread"])):
        unit(vault, slug, "Someone else's work.", ago(1), title=slug.title(), tags=tags, perspective="external")


# history


def test_history_lists_changes_newest_first(tmp_path: Path) -> None:
    three_changes(tmp_path)
    lines = ok(history(tmp_path)).stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["#3", "#2", "#1"]
    assert [line.split()[4] for line in lines] == ["forget", "remember", "apply"]


def test_a_history_line_names_the_files_and_the_counts(tmp_path: Path) -> None:
    three_changes(tmp_path)
    first = ok(history(tmp_path)).stdout.splitlines()[-1]
    assert first.endswith("(_identity.md, _preferences.md; added 2)")


def test_history_json_is_one_object_per_change_newest_first(tmp_path: Path) -> None:
    three_changes(tmp_path)
    found = history_json(tmp_path)
    assert [(c["id"], c["command"], c["files"]) for c in found] == [
        (3, "forget", ["identity"]), (2, "remember", ["preferences"]), (1, "apply", ["identity", "preferences"])]
    assert found[0]["counts"] == {"forgotten": 1} and found[2]["counts"] == {"added": 2}
    assert {c["today"] for c in found} == {str(TODAY)}
    assert all(c["undone_by"] is None and c["undoes"] is None for c in found)


def test_history_limit_keeps_the_newest(tmp_path: Path) -> None:
    three_changes(tmp_path)
    assert [c["id"] for c in history_json(tmp_path, "--limit", "2")] == [3, 2]
    assert len(ok(history(tmp_path, "--limit", "1")).stdout.splitlines()) == 1


def test_history_of_a_vault_with_no_changes_says_so(tmp_path: Path) -> None:
    assert ok(history(tmp_path)).stdout == "No changes yet.\n"
    assert history_json(tmp_path) == []


def test_a_refresh_records_one_change_with_its_run(tmp_path: Path) -> None:
    busy_vault(tmp_path)
    ok(refresh(tmp_path))
    (change,) = history_json(tmp_path)
    assert (change["command"], change["run_id"], change["detail"]) == ("refresh", 1, "run 1, incremental")
    assert change["files"] == ["preferences", "goals", "people", "state"]


def test_a_refresh_that_changes_no_file_is_no_change(tmp_path: Path) -> None:
    busy_vault(tmp_path)
    ok(refresh(tmp_path))
    ok(refresh(tmp_path))
    assert len(history_json(tmp_path)) == 1


# undo after each command


def test_undo_after_a_refresh_restores_every_memory_file_byte_for_byte(tmp_path: Path) -> None:
    busy_vault(tmp_path)
    before = memory(tmp_path)
    ok(refresh(tmp_path))
    assert memory(tmp_path) != before
    ok(undo(tmp_path))
    assert memory(tmp_path) == before


def test_undo_after_a_refresh_removes_the_files_it_created(tmp_path: Path) -> None:
    busy_vault(tmp_path)
    ok(refresh(tmp_path))
    assert (tmp_path / MEMORY / "_people.md").exists()
    ok(undo(tmp_path))
    assert [name for name, text in memory(tmp_path).items() if text is not None] == ["_identity.md", "_preferences.md"]


def test_the_refresh_after_an_undone_one_gives_exactly_its_result(tmp_path: Path) -> None:
    busy_vault(tmp_path)
    summary = refresh_json(tmp_path)
    result = memory(tmp_path)
    ok(undo(tmp_path))
    assert refresh_json(tmp_path) == summary
    assert memory(tmp_path) == result


def test_undoing_a_refresh_forgets_its_sources_were_extracted(tmp_path: Path) -> None:
    busy_vault(tmp_path)
    ok(refresh(tmp_path))
    ok(undo(tmp_path))
    assert ledger_rows(tmp_path, "SELECT count(*) FROM sources") == [(0,)]
    status = json.loads(ok(hylo("status", "--vault", tmp_path, "--today", TODAY.isoformat(), "--json")).stdout)
    assert status["waiting"]["total"] == 4


def test_undoing_a_refresh_drops_its_provenance(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves long walks", source="podcast notes", date=ago(3))))
    short(tmp_path, ago(1), "I love long walks.")
    ok(refresh(tmp_path))
    sources = lambda: [s["source"] for s in json.loads(ok(hylo("why", "Loves long walks", "--vault", tmp_path,  # noqa: E731
                                                              "--json")).stdout)["sources"]]
    assert sources() == [f"_shorts/{ago(1)}-note.md", "podcast notes"]
    ok(undo(tmp_path))
    assert sources() == ["podcast notes"]


def test_undoing_the_first_run_makes_the_next_refresh_a_first_run_again(tmp_path: Path) -> None:
    short(tmp_path, ago(60), "My name is Maya Okafor. I live in Lisbon.", slug="intro")
    short(tmp_path, ago(1), "I love long walks.")
    first = refresh_json(tmp_path)
    ok(undo(tmp_path))
    again = refresh_json(tmp_path, today=NEXT_DAY)
    assert (first["mode"], again["mode"], again["window_days"], again["sources"]["shorts"]) == ("first", "first", 90, 2)


def test_undoing_a_first_run_that_found_no_identity_makes_the_next_a_first_run_again(tmp_path: Path) -> None:
    short(tmp_path, ago(60), "I love long walks.", slug="old")
    ok(refresh(tmp_path))
    ok(undo(tmp_path))
    again = refresh_json(tmp_path, today=NEXT_DAY)
    assert (again["mode"], again["sources"]["shorts"]) == ("first", 1)


def test_undo_after_a_remember_takes_the_fact_back(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves modal jazz")))
    before = memory(tmp_path)
    ok(remember(tmp_path, "I'm vegetarian"))
    ok(undo(tmp_path))
    assert memory(tmp_path) == before


def test_undo_after_a_forget_brings_the_item_back(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("identity", "Lives in Lisbon", date=ago(5)), fact("identity", "Works as a nurse")))
    before = memory(tmp_path)
    ok(forget(tmp_path, "Lives in Lisbon"))
    ok(undo(tmp_path))
    assert memory(tmp_path) == before


def test_undo_after_a_forget_removes_the_tombstone(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("identity", "Lives in Lisbon")))
    ok(forget(tmp_path, "Lives in Lisbon"))
    ok(undo(tmp_path))
    assert ok(hylo("forget", "--list", "--vault", tmp_path)).stdout == "Nothing forgotten.\n"
    ok(apply(tmp_path, fact("identity", "Lives in Lisbon", source="_shorts/later.md")))
    assert items(tmp_path, Dimension.identity)["Lives in Lisbon"][1] == 2  # evidence of it counts again


def test_undo_after_an_apply_restores_every_file_it_wrote(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves modal jazz", date=ago(10))))
    before = memory(tmp_path)
    ok(apply(tmp_path, fact("preferences", "Loves modal jazz"), fact("goals", "Ship the beta")))
    ok(undo(tmp_path))
    assert memory(tmp_path) == before


def test_undo_says_what_it_undid_in_one_line(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves modal jazz")))
    out = one_line(ok(undo(tmp_path)).stdout)
    assert out.startswith("Undid #1 ") and " apply " in out


def test_undo_n_reverts_an_earlier_change_whose_files_no_later_change_touched(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves modal jazz"), name="one.jsonl"))
    ok(remember(tmp_path, "Ship the beta", "--dimension", "goals"))
    ok(undo(tmp_path, "1"))
    assert (texts(tmp_path, Dimension.preferences), texts(tmp_path, Dimension.goals)) == (set(), {"Ship the beta"})


# Repeated undo, and what it refuses


def test_repeated_undo_steps_further_back(tmp_path: Path) -> None:
    states = [memory(tmp_path)]
    for text in ("Loves modal jazz", "Loves cold brew", "Loves long walks"):
        ok(apply(tmp_path, fact("preferences", text)))
        states.append(memory(tmp_path))
    for expected in reversed(states[:-1]):
        ok(undo(tmp_path))
        assert memory(tmp_path) == expected


def test_undo_with_nothing_left_to_undo_is_one_line_and_exit_1(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves modal jazz")))
    ok(undo(tmp_path))
    result = undo(tmp_path)
    assert result.exit_code == 1
    assert "nothing to undo" in one_line(result.stderr)


def test_undo_n_refuses_when_a_file_changed_since_naming_it_and_writes_nothing(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves modal jazz"), fact("identity", "Lives in Lisbon")))
    ok(remember(tmp_path, "I'm vegetarian"))  # the preferences file changes again
    before = snapshot(tmp_path / MEMORY)
    result = undo(tmp_path, "1")
    assert result.exit_code == 1
    line = one_line(result.stderr)
    assert str(tmp_path / MEMORY / "_preferences.md") in line and "changed since change #1" in line
    assert "undo the later change to it first (#2)" in line and "_identity.md" not in line
    assert snapshot(tmp_path / MEMORY) == before


def test_undo_refuses_when_the_person_edited_the_file_since(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves modal jazz")))
    path = tmp_path / MEMORY / "_preferences.md"
    edited = path.read_text(encoding="utf-8").replace("## Fading", "- Loves tea\n\n## Fading")
    path.write_text(edited, encoding="utf-8")
    result = undo(tmp_path)
    assert result.exit_code == 1 and "_preferences.md changed since" in one_line(result.stderr)
    assert "edited outside hylo-memory since" in one_line(result.stderr)
    assert path.read_text(encoding="utf-8") == edited
    assert [c["command"] for c in history_json(tmp_path)] == ["apply"]


def test_undo_of_an_undo_is_refused(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves modal jazz")))
    ok(undo(tmp_path))
    before = snapshot(tmp_path / MEMORY)
    result = undo(tmp_path, "2")
    assert result.exit_code == 1
    assert "itself an undo" in one_line(result.stderr)
    assert snapshot(tmp_path / MEMORY) == before


def test_undo_of_a_change_already_undone_is_refused(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves modal jazz")))
    ok(undo(tmp_path))
    result = undo(tmp_path, "1")
    assert result.exit_code == 1 and "already undone by #2" in one_line(result.stderr)


def test_undo_of_a_change_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves modal jazz")))
    result = undo(tmp_path, "7")
    assert result.exit_code == 1 and "no change #7" in one_line(result.stderr)


# --dry-run


def test_undo_dry_run_prints_the_diff(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves modal jazz", date=ago(10))))
    ok(apply(tmp_path, fact("preferences", "Loves cold brew")))
    out = ok(undo(tmp_path, "--dry-run")).stdout
    path = tmp_path / MEMORY / "_preferences.md"
    assert out.startswith("Would undo #2 ")
    assert f"--- {path}\n+++ {path}\n" in out
    assert "\n-- Loves cold brew `last:" in out
    assert f"\n-last_updated: {TODAY}\n+last_updated: {TODAY}\n" not in out  # only what differs


def test_undo_dry_run_of_a_change_that_created_a_file_shows_it_removed(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves modal jazz")))
    out = ok(undo(tmp_path, "--dry-run")).stdout
    assert f"--- {tmp_path / MEMORY / '_preferences.md'}\n+++ /dev/null\n" in out


def test_undo_dry_run_writes_nothing_not_even_the_ledger(tmp_path: Path) -> None:
    busy_vault(tmp_path)
    ok(refresh(tmp_path))
    before = snapshot(tmp_path / MEMORY)
    ok(undo(tmp_path, "--dry-run"))
    assert snapshot(tmp_path / MEMORY) == before
    assert [c["command"] for c in history_json(tmp_path)] == ["refresh"]


# An undo is a change


def test_undo_appears_in_the_history_and_marks_what_it_undid(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves modal jazz")))
    ok(undo(tmp_path))
    latest, undone = history_json(tmp_path)
    assert (latest["command"], latest["undoes"], latest["detail"], latest["files"]) == (
        "undo", 1, "#1 apply", ["preferences"])
    assert undone["undone_by"] == latest["id"]
    assert ok(history(tmp_path)).stdout.splitlines()[1].endswith("[undone by #2]")


def test_undo_is_recorded_once_and_then_the_earlier_change_is_next(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves modal jazz")))
    ok(apply(tmp_path, fact("goals", "Ship the beta")))
    ok(undo(tmp_path))
    assert "Undid #1 " in ok(undo(tmp_path)).stdout
    assert [(c["command"], c["undoes"]) for c in history_json(tmp_path)] == [
        ("undo", 1), ("undo", 2), ("apply", None), ("apply", None)]


# Killed in the middle of an undo: a real process, SIGKILLed by itself at a chosen point
# between its journal and its end; the next command finishes the undo.

KILLER = """
import os, signal, sys
from hylo_memory.decay.files.store import MemoryStore
from hylo_memory.pipeline.state import journal

def die():
    os.kill(os.getpid(), signal.SIGKILL)

point = os.environ["KILL_AT"]
if point == "after the journal":
    journal._apply = lambda *a, **k: die()
elif point == "after the first file":
    for name in ("replace",):  # every write and removal of a memory file
        def patched(self, *a, _original=getattr(MemoryStore, name), **k):
            _original(self, *a, **k)
            die()
        setattr(MemoryStore, name, patched)
elif point == "inside the ledger transaction":
    journal.record_change = lambda *a, **k: die()
elif point == "before removing the journal":
    original = journal._apply
    def apply_then_die(*a, **k):
        original(*a, **k)
        die()
    journal._apply = apply_then_die

from hylo_memory.pipeline.cli.group import main
sys.exit(main(sys.argv[1:]))
"""

KILL_POINTS = ["after the journal", "after the first file", "inside the ledger transaction",
               "before removing the journal"]


def undo_reference(root: Path) -> tuple[dict, dict]:
    """A busy vault's memory after a refresh, and after that refresh undone and a `remember`."""
    busy_vault(root)
    ok(refresh(root))
    refreshed = memory(root)
    ok(undo(root))
    ok(remember(root, "I'm vegetarian"))
    return refreshed, memory(root)


@pytest.mark.parametrize("point", KILL_POINTS)
@pytest.mark.slow
def test_an_undo_killed_midway_leaves_whole_files_and_the_next_command_finishes_it(tmp_path: Path, point: str) -> None:
    refreshed, reference = undo_reference(tmp_path / "reference")
    vault = tmp_path / "vault"
    busy_vault(vault)
    before_refresh = memory(vault)
    ok(refresh(vault))
    env = {**cli_env(tmp_path / "home"), "KILL_AT": point}
    killed = subprocess.run([sys.executable, "-c", KILLER, "undo", "--vault", str(vault)], env=env,
                            capture_output=True, text=True, timeout=60)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert (vault / MEMORY / ".state" / "journal.json").exists()
    for name, text in memory(vault).items():  # each file whole: as the refresh left it, or as the undo leaves it
        assert text in (refreshed[name], before_refresh[name]), name
    if point == "after the first file":  # truly midway: one file reverted, the others not yet
        assert memory(vault) not in (refreshed, before_refresh)

    ok(remember(vault, "I'm vegetarian"))
    assert memory(vault) == reference
    assert not (vault / MEMORY / ".state" / "journal.json").exists()
    assert [(c["command"], c["undoes"], c["undone_by"]) for c in history_json(vault)] == [
        ("remember", None, None), ("undo", 1, None), ("refresh", None, 2)]
    assert ledger_rows(vault, "SELECT count(*) FROM sources") == [(0,)]  # the refresh's sources: unread again


@pytest.mark.slow
def test_an_undo_killed_after_its_journal_is_finished_by_the_next_refresh_which_reads_the_notes_again(
        tmp_path: Path) -> None:
    busy_vault(tmp_path)
    summary = refresh_json(tmp_path)
    result = memory(tmp_path)
    env = {**cli_env(tmp_path / "home"), "KILL_AT": "after the first file"}
    killed = subprocess.run([sys.executable, "-c", KILLER, "undo", "--vault", str(tmp_path)], env=env,
                            capture_output=True, text=True, timeout=60)
    assert killed.returncode == -signal.SIGKILL
    assert refresh_json(tmp_path) == summary
    assert memory(tmp_path) == result
    assert [c["command"] for c in history_json(tmp_path)] == ["refresh", "undo", "refresh"]


def test_a_hand_written_memory_file_is_not_in_the_history_until_a_command_changes_it(tmp_path: Path) -> None:
    memory_file(tmp_path, Dimension.identity, f"## Active\n- Lives in Lisbon `last:{ago(3)} seen:1`\n\n## Fading\n")
    assert history_json(tmp_path) == []
    result = undo(tmp_path)
    assert result.exit_code == 1 and "nothing to undo" in one_line(result.stderr)


def test_undo_after_an_unforget_brings_the_tombstone_back(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("identity", "Lives in Lisbon"), fact("identity", "Works as a nurse")))
    ok(forget(tmp_path, "Lives in Lisbon"))
    ok(hylo("unforget", "Lives in Lisbon", "--vault", tmp_path))
    ok(undo(tmp_path))
    assert ok(hylo("forget", "--list", "--vault", tmp_path)).stdout == f"{TODAY}  identity: Lives in Lisbon\n"


def test_undo_json_is_one_object_naming_the_change_undone(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves modal jazz")))
    report = json.loads(ok(undo(tmp_path, "--json")).stdout)
    assert (report["undone"]["id"], report["undone"]["command"], report["dry_run"]) == (1, "apply", False)


def test_the_last_hundred_changes_can_be_undone(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("identity", "Lives in Lisbon")))
    for n in range(100):
        ok(remember(tmp_path, f"Likes the number {n}", "--dimension", "preferences"))
    ok(undo(tmp_path, "1"))
    assert texts(tmp_path, Dimension.identity) == set()
    assert len(history_json(tmp_path, "--limit", "200")) == 102


def test_the_refresh_after_an_undone_one_reads_an_edited_note_again(tmp_path: Path) -> None:
    note = short(tmp_path, ago(2), "I love long walks.")
    ok(refresh(tmp_path, today=ago(2)))
    note.write_text("I love long walks. I live in Porto.\n", encoding="utf-8")
    summary = refresh_json(tmp_path)
    result = memory(tmp_path)
    ok(undo(tmp_path))
    assert refresh_json(tmp_path) == summary
    assert memory(tmp_path) == result


def test_an_undone_refresh_leaves_no_unit_in_the_external_pool_for_later_themes(tmp_path: Path) -> None:
    read = unit(tmp_path, "sourdough-a", "Someone else's work.", ago(3), title="Sourdough A", tags=["baking", "bread"],
                perspective="external")
    short(tmp_path, ago(3), "I love long walks.")
    ok(refresh(tmp_path, today=ago(2)))
    ok(undo(tmp_path))
    read.unlink()  # the unit only the undone run read is gone: no theme of two units is left
    unit(tmp_path, "sourdough-b", "Someone else's work.", ago(1), title="Sourdough B", tags=["baking", "bread"],
         perspective="external")
    ok(refresh(tmp_path))
    assert texts(tmp_path, Dimension.preferences) == {"Loves long walks"}


def interrupted_remember(vault: Path) -> Path:
    """The journal a `remember` killed after writing it leaves: its file and its change, not yet applied."""
    from hylo_memory.pipeline.state.changes import ChangeRecord, Provenance
    from hylo_memory.pipeline.state.journal import Journal

    text = "---\ndecay_window: 90d\n---\n## Active\n- Loves green tea `last:2026-11-30 seen:1 pinned`\n\n## Fading\n"
    stated = Provenance(dimension=Dimension.preferences, item="Loves green tea", wording="Loves green tea",
                        source="remember", source_date=TODAY, kind="added")
    change = ChangeRecord(command="remember", today=TODAY, detail="Loves green tea", provenance=[stated])
    journal = vault / MEMORY / ".state" / "journal.json"
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.write_text(Journal(files={Dimension.preferences: text}, change=change).model_dump_json(), encoding="utf-8")
    return journal


@pytest.mark.parametrize("reader", [("history",), ("why", "Loves green tea"), ("forget", "--list")])
def test_a_reader_finishes_an_interrupted_change_before_it_reads(tmp_path: Path, reader: tuple[str, ...]) -> None:
    journal = interrupted_remember(tmp_path)
    ok(hylo(*reader, "--vault", str(tmp_path)))
    assert not journal.exists() and texts(tmp_path, Dimension.preferences) == {"Loves green tea"}
    assert [c["command"] for c in history_json(tmp_path)] == ["remember"]
    assert 'by remember ("Loves green tea")' in ok(hylo("why", "Loves green tea", "--vault", str(tmp_path))).stdout
