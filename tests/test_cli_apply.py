"""`hylo-memory apply` and `hylo-memory remember` (docs/spec.md §5, §6, §7), run in-process through
click's `CliRunner`, plus the installed console script once as a subprocess."""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
from pathlib import Path

import pytest
from cli_helpers import hylo, one_line
from click.testing import Result
from engine_helpers import item_line, memory_text, write_memory
from freezegun import freeze_time
from proc_helpers import cli_env, memory_texts, run
from vault_helpers import MEMORY, parse_memory, snapshot

from hylo_memory.decay import Dimension, MemoryFile

TODAY = dt.date(2026, 11, 30)
SIX = ["identity", "preferences", "goals", "beliefs", "people", "state"]


def ago(days: int) -> dt.date:
    return TODAY - dt.timedelta(days=days)


def evidence_file(folder: Path, *lines: dict | str, name: str = "evidence.jsonl") -> Path:
    """A JSONL evidence file: dicts are dumped as JSON, strings written as they are."""
    path = folder / name
    path.write_text("".join((json.dumps(line) if isinstance(line, dict) else line) + "\n" for line in lines),
                    encoding="utf-8")
    return path


def fact(dimension: str, text: str, source: str = "_shorts/2026-11-29.md", **more: object) -> dict:
    return {"dimension": dimension, "text": text, "source": source, **more}


def apply(vault: Path, evidence: Path, today: dt.date | None = TODAY) -> Result:
    return hylo("apply", "--vault", vault, "--evidence", evidence, *(["--today", today.isoformat()] if today else []))


def remember(vault: Path, text: str, *options: str) -> Result:
    return hylo("remember", text, "--vault", vault, "--today", TODAY.isoformat(), *options)


def memory_of(vault: Path, dimension: Dimension) -> MemoryFile:
    return parse_memory(vault / MEMORY / dimension.filename, dimension)


def written(vault: Path) -> list[str]:
    """The memory files that exist in the vault, in docs/spec.md order."""
    return [name for name, text in memory_texts(vault / MEMORY).items() if text is not None]


def age_files(folder: Path) -> None:
    """Date every file back a day, so a rewrite would certainly change its mtime."""
    for path in folder.rglob("*"):
        if path.is_file():
            stamp = path.stat().st_mtime - 86400
            os.utime(path, (stamp, stamp))


# apply: success


def test_apply_writes_new_facts_and_prints_what_changed(tmp_path: Path) -> None:
    evidence = evidence_file(tmp_path, fact("preferences", "Vegetarian"), fact("state", "Tired after the launch"))
    result = apply(tmp_path, evidence)
    assert result.exit_code == 0
    out = result.stdout
    assert "_preferences.md (new)\n  + Vegetarian\n" in out
    assert "_state.md (new)\n  + Tired after the launch\n" in out
    assert out.endswith("added 2, refreshed 0, faded 0, deleted 0\n")
    assert (tmp_path / MEMORY / "_preferences.md").read_text(encoding="utf-8") == memory_text(
        active=[item_line("Vegetarian", TODAY)], last_updated=TODAY
    )


def test_apply_uses_the_source_date_given_with_the_evidence(tmp_path: Path) -> None:
    evidence = evidence_file(tmp_path, fact("goals", "Ship the beta", date=ago(3).isoformat()))
    assert apply(tmp_path, evidence).exit_code == 0
    assert memory_of(tmp_path, Dimension.goals).active[0].last == ago(3)


def test_apply_names_each_deleted_item(tmp_path: Path) -> None:
    write_memory(tmp_path / MEMORY, Dimension.state, memory_text(
        active=[item_line("Calm", ago(1))], fading=[item_line("Dreading the tax deadline", ago(15))], window=7))
    result = apply(tmp_path, evidence_file(tmp_path))
    assert result.exit_code == 0
    out = result.stdout
    assert "_state.md\n" in out
    assert "  - deleted: Dreading the tax deadline\n" in out
    assert out.endswith("deleted 1\n")


def test_apply_runs_decay_on_every_file_even_without_evidence(tmp_path: Path) -> None:
    write_memory(tmp_path / MEMORY, Dimension.goals, memory_text(active=[item_line("Ship the beta", ago(31))], window=30))
    assert apply(tmp_path, evidence_file(tmp_path)).exit_code == 0
    assert [i.text for i in memory_of(tmp_path, Dimension.goals).fading] == ["Ship the beta"]


def test_without_today_apply_uses_the_real_date(tmp_path: Path) -> None:
    evidence = evidence_file(tmp_path, fact("preferences", "Vegetarian"))
    with freeze_time("2026-11-30 12:00:00"):
        assert apply(tmp_path, evidence, today=None).exit_code == 0
        real_today = dt.date.today()
    assert memory_of(tmp_path, Dimension.preferences).active[0].last == real_today


def test_memory_files_written_by_apply_have_mode_0600(tmp_path: Path) -> None:
    assert apply(tmp_path, evidence_file(tmp_path, fact("people", "Ana, my sister"))).exit_code == 0
    assert stat.S_IMODE((tmp_path / MEMORY / "_people.md").stat().st_mode) == 0o600


def test_a_memory_file_that_would_have_no_items_is_not_created(tmp_path: Path) -> None:
    assert apply(tmp_path, evidence_file(tmp_path, fact("preferences", "Vegetarian"))).exit_code == 0
    assert written(tmp_path) == ["_preferences.md"]


def test_new_files_get_the_default_decay_windows(tmp_path: Path) -> None:
    windows = {"identity": 365, "preferences": 90, "goals": 30, "beliefs": 90, "people": 90, "state": 7}
    assert apply(tmp_path, evidence_file(tmp_path, *(fact(d, f"Something about {d}") for d in SIX))).exit_code == 0
    for name, days in windows.items():
        text = (tmp_path / MEMORY / f"_{name}.md").read_text(encoding="utf-8")
        assert text.startswith(f"---\ndecay_window: {days}d\nlast_updated: {TODAY}\n---\n"), name


def test_only_changed_files_are_written(tmp_path: Path) -> None:
    write_memory(tmp_path / MEMORY, Dimension.identity, memory_text(active=[item_line("Lives in Lisbon", ago(3))],
                                                                    window=365, last_updated=ago(3)))
    write_memory(tmp_path / MEMORY, Dimension.preferences, memory_text(active=[item_line("Vegetarian", ago(3))],
                                                                       last_updated=ago(3)))
    age_files(tmp_path / MEMORY)
    identity_before = snapshot(tmp_path / MEMORY)["_identity.md"]
    assert apply(tmp_path, evidence_file(tmp_path, fact("preferences", "Vegetarian"))).exit_code == 0
    after = snapshot(tmp_path / MEMORY)
    assert after["_identity.md"] == identity_before
    assert memory_of(tmp_path, Dimension.preferences).active[0].seen == 2
    assert [name.rsplit(".", 1)[0] for name in after if name.startswith(".archive/")] == [".archive/_preferences.md"]


def test_a_second_apply_the_same_day_without_evidence_writes_nothing(tmp_path: Path) -> None:
    first = evidence_file(tmp_path, fact("preferences", "Vegetarian"), fact("goals", "Ship the beta", date=ago(40).isoformat()),
                          fact("state", "Tired", date=ago(2).isoformat()))
    assert apply(tmp_path, first).exit_code == 0
    age_files(tmp_path / MEMORY)
    before = {k: v for k, v in snapshot(tmp_path / MEMORY).items() if not k.startswith(".state/")}
    second = apply(tmp_path, evidence_file(tmp_path, name="empty.jsonl"))
    assert second.exit_code == 0
    assert {k: v for k, v in snapshot(tmp_path / MEMORY).items() if not k.startswith(".state/")} == before
    assert second.stdout.startswith("No memory file changed.\n")


def test_last_updated_changes_only_when_the_files_content_changes(tmp_path: Path) -> None:
    write_memory(tmp_path / MEMORY, Dimension.preferences, memory_text(active=[item_line("Vegetarian", ago(10))],
                                                                       last_updated=ago(10)))
    assert apply(tmp_path, evidence_file(tmp_path, fact("goals", "Ship the beta"))).exit_code == 0
    assert memory_of(tmp_path, Dimension.preferences).last_updated == ago(10)
    assert apply(tmp_path, evidence_file(tmp_path, fact("preferences", "Vegetarian"))).exit_code == 0
    assert memory_of(tmp_path, Dimension.preferences).last_updated == TODAY


# apply --json: the run summary's shape


def test_apply_json_prints_the_summary_as_one_json_object_shaped_as_a_runs(tmp_path: Path) -> None:
    result = hylo("apply", "--vault", tmp_path, "--evidence", evidence_file(tmp_path, fact("preferences", "Vegetarian")),
                  "--today", TODAY.isoformat(), "--json")
    assert result.exit_code == 0
    summary = json.loads(result.stdout)
    refreshed = json.loads(hylo("refresh", "--vault", tmp_path, "--extractor", "offline", "--json").stdout)
    assert set(summary) == set(refreshed)
    assert (summary["extractor"], summary["today"], summary["changed_files"], summary["counts"]["added"]) == (
        "apply", TODAY.isoformat(), ["_preferences.md"], 1)


def test_apply_json_names_each_deleted_item(tmp_path: Path) -> None:
    write_memory(tmp_path / MEMORY, Dimension.state, memory_text(fading=[item_line("Dreading the tax", ago(15))],
                                                                 window=7))
    result = hylo("apply", "--vault", tmp_path, "--evidence", evidence_file(tmp_path), "--today", TODAY.isoformat(),
                  "--json")
    assert json.loads(result.stdout)["deleted"] == [{"file": "_state.md", "text": "Dreading the tax"}]


def test_apply_json_dry_run_is_one_json_object_and_writes_nothing(tmp_path: Path) -> None:
    result = hylo("apply", "--vault", tmp_path, "--evidence", evidence_file(tmp_path, fact("goals", "Ship the beta")),
                  "--dry-run", "--json")
    summary = json.loads(result.stdout)
    assert summary["dry_run"] is True and summary["changed_files"] == ["_goals.md"]
    assert written(tmp_path) == []


def test_apply_json_names_a_hand_broken_file_left_as_it_is_among_its_failures(tmp_path: Path) -> None:
    broken = write_memory(tmp_path / MEMORY, Dimension.preferences, BROKEN_TEA)
    result = hylo("apply", "--vault", tmp_path, "--evidence", evidence_file(tmp_path, fact("goals", "Ship the beta")),
                  "--json")
    assert result.exit_code == 0
    [failure] = json.loads(result.stdout)["failures"]
    assert failure.startswith(f"left as it is, it cannot be read: {broken}:6: ")


def test_apply_json_refusing_a_bad_file_prints_an_error_object(tmp_path: Path) -> None:
    evidence = evidence_file(tmp_path, fact("hobbies", "Chess"))
    result = hylo("apply", "--vault", tmp_path, "--evidence", evidence, "--json")
    assert result.exit_code == 1
    failed = json.loads(result.stdout)
    assert failed["status"] == "failed" and f"{evidence}:1" in failed["error"]
    one_line(result.stderr)


# apply: a bad evidence file is refused whole


@pytest.mark.parametrize(
    ("bad_line", "reason"),
    [
        ('{"dimension": "preferences", "text": "Tea", ', "not valid JSON"),
        (fact("hobbies", "Chess"), "unknown dimension 'hobbies'"),
        ({"dimension": "preferences", "text": "Tea"}, "missing field 'source'"),
        ({"text": "Tea", "source": "_shorts/a.md"}, "missing field 'dimension'"),
        ({"dimension": "preferences", "source": "_shorts/a.md"}, "missing field 'text'"),
        ('["preferences", "Tea"]', "expected a JSON object"),
        (fact("preferences", "Tea", date="2026-13-45"), "date"),
    ],
    ids=["bad-json", "unknown-dimension", "no-source", "no-dimension", "no-text", "not-an-object", "bad-date"],
)
def test_a_bad_evidence_line_refuses_the_whole_file_naming_file_and_line(
    tmp_path: Path, bad_line: dict | str, reason: str
) -> None:
    write_memory(tmp_path / MEMORY, Dimension.preferences, memory_text(active=[item_line("Vegetarian", ago(10))],
                                                                       last_updated=ago(10)))
    before = snapshot(tmp_path / MEMORY)
    evidence = evidence_file(tmp_path, fact("preferences", "Vegetarian"), fact("goals", "Ship the beta"), bad_line)
    result = apply(tmp_path, evidence)
    assert result.exit_code == 1
    err = one_line(result.stderr)
    assert err.startswith(f"hylo-memory: {evidence}:3: ")
    assert reason in err
    assert snapshot(tmp_path / MEMORY) == before


def test_a_missing_evidence_file_is_a_one_line_error(tmp_path: Path) -> None:
    result = apply(tmp_path, tmp_path / "nowhere.jsonl")
    assert result.exit_code == 1
    assert "nowhere.jsonl" in one_line(result.stderr)
    assert not (tmp_path / MEMORY).exists()


def test_a_missing_vault_is_a_one_line_error(tmp_path: Path) -> None:
    result = apply(tmp_path / "no-vault", evidence_file(tmp_path, fact("preferences", "Vegetarian")))
    assert result.exit_code == 1
    assert "no-vault" in one_line(result.stderr)


# apply: a hand-broken memory file is refused, never overwritten


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("---\ndecay_window: 90d\nlast_updated: [2026\n---\n## Active\n- Vegetarian `last:2026-11-01 seen:1`\n", 3),
        (memory_text(active=[item_line("Vegetarian", ago(10)), "- Tea `last:2026-13-45 seen:1`"]), 6),
        (memory_text(active=["- Tea `last:2026-11-01 seen:x`"]), 5),
        (memory_text(fading=["- Tea `last:2026-11-01 seen:0`"]), 7),
    ],
    ids=["bad-yaml", "impossible-date", "seen-not-a-number", "seen-zero"],
)
def test_a_hand_broken_memory_file_is_refused_with_path_and_line_and_nothing_is_written(
    tmp_path: Path, text: str, line: int
) -> None:
    broken = write_memory(tmp_path / MEMORY, Dimension.preferences, text)
    write_memory(tmp_path / MEMORY, Dimension.goals, memory_text(active=[item_line("Ship the beta", ago(45))], window=30))
    before = {k: v for k, v in snapshot(tmp_path / MEMORY).items() if not k.startswith(".state/")}
    evidence = evidence_file(tmp_path, *(fact(d, f"Something about {d}") for d in SIX))
    result = apply(tmp_path, evidence)
    assert result.exit_code == 1
    err = one_line(result.stderr)
    assert err.startswith(f"hylo-memory: {broken}:{line}: ")
    assert {k: v for k, v in snapshot(tmp_path / MEMORY).items() if not k.startswith(".state/")} == before


# apply: only the files its evidence lands in must be readable (docs/spec.md §7)

BROKEN_TEA = memory_text(active=[item_line("Vegetarian", ago(10)), "- Tea `last:2026-13-45 seen:1`"])  # line 6


def test_apply_beside_a_hand_broken_file_writes_its_evidence_and_leaves_that_file_byte_for_byte(tmp_path: Path) -> None:
    broken = write_memory(tmp_path / MEMORY, Dimension.preferences, BROKEN_TEA)
    before = broken.read_bytes()
    result = apply(tmp_path, evidence_file(tmp_path, fact("goals", "Ship the beta")))
    assert result.exit_code == 0, result.stderr
    assert [i.text for i in memory_of(tmp_path, Dimension.goals).active] == ["Ship the beta"]
    assert broken.read_bytes() == before


def test_apply_names_the_hand_broken_file_it_left_as_it_is_with_its_line(tmp_path: Path) -> None:
    broken = write_memory(tmp_path / MEMORY, Dimension.preferences, BROKEN_TEA)
    result = apply(tmp_path, evidence_file(tmp_path, fact("goals", "Ship the beta")))
    assert one_line(result.stderr).startswith(f"hylo-memory: left as it is, it cannot be read: {broken}:6: ")


def test_apply_beside_a_hand_broken_file_still_fades_what_the_files_it_can_read_hold(tmp_path: Path) -> None:
    write_memory(tmp_path / MEMORY, Dimension.preferences, BROKEN_TEA)
    write_memory(tmp_path / MEMORY, Dimension.goals, memory_text(active=[item_line("Ship the beta", ago(45))], window=30))
    assert apply(tmp_path, evidence_file(tmp_path, fact("state", "Tired after the launch"))).exit_code == 0
    assert [i.text for i in memory_of(tmp_path, Dimension.goals).fading] == ["Ship the beta"]


def test_apply_whose_evidence_lands_in_a_hand_broken_file_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    broken = write_memory(tmp_path / MEMORY, Dimension.preferences, BROKEN_TEA)
    evidence = evidence_file(tmp_path, fact("goals", "Ship the beta"), fact("preferences", "Loves green tea"))
    result = apply(tmp_path, evidence)
    assert result.exit_code == 1
    assert one_line(result.stderr).startswith(f"hylo-memory: {broken}:6: ")
    assert written(tmp_path) == ["_preferences.md"] and broken.read_text(encoding="utf-8") == BROKEN_TEA


def test_apply_refused_names_every_hand_broken_file_its_evidence_lands_in_on_its_one_line(tmp_path: Path) -> None:
    tea = write_memory(tmp_path / MEMORY, Dimension.preferences, BROKEN_TEA)
    tired = write_memory(tmp_path / MEMORY, Dimension.state, memory_text(active=["- Tired `last:2026-11-01 seen:x`"]))
    evidence = evidence_file(tmp_path, fact("preferences", "Loves green tea"), fact("state", "Tired after the launch"))
    err = one_line(apply(tmp_path, evidence).stderr)
    assert err.startswith(f"hylo-memory: {tea}:6: ") and f"; also {tired}:5: " in err


# remember


def test_remember_without_a_dimension_is_filed_by_keywords_offline_and_says_so(tmp_path: Path) -> None:
    result = remember(tmp_path, "I'm so tired this week")
    assert result.exit_code == 0
    out = one_line(result.stdout)
    assert "_state.md" in out and "offline" in out and "not pinned" in out


def test_remember_without_a_dimension_pins_a_standing_fact_offline(tmp_path: Path) -> None:
    result = remember(tmp_path, "I live in Lisbon")
    assert result.exit_code == 0
    out = one_line(result.stdout)
    assert "_identity.md" in out and "(seen 1, pinned)" in out


@pytest.mark.parametrize(("dimension", "pinned"), [
    ("identity", True), ("preferences", True), ("beliefs", True), ("people", True), ("goals", False), ("state", False),
])
def test_remember_pins_standing_facts_by_default_but_not_goals_or_state(
    tmp_path: Path, dimension: str, pinned: bool
) -> None:
    assert remember(tmp_path, "A fact stated outright", "--dimension", dimension).exit_code == 0
    [item] = memory_of(tmp_path, Dimension(dimension)).active
    assert (item.text, item.last, item.seen, item.pinned) == ("A fact stated outright", TODAY, 1, pinned)


def test_remember_pin_pins_a_goal(tmp_path: Path) -> None:
    assert remember(tmp_path, "Run a marathon", "--dimension", "goals", "--pin").exit_code == 0
    assert memory_of(tmp_path, Dimension.goals).active[0].pinned


def test_remember_no_pin_leaves_a_preference_unpinned(tmp_path: Path) -> None:
    assert remember(tmp_path, "Trying oat milk", "--dimension", "preferences", "--no-pin").exit_code == 0
    assert not memory_of(tmp_path, Dimension.preferences).active[0].pinned


def test_remember_no_pin_does_not_unpin_a_pinned_fact(tmp_path: Path) -> None:
    write_memory(tmp_path / MEMORY, Dimension.preferences, memory_text(active=[item_line("Vegetarian", ago(400), pinned=True)]))
    assert remember(tmp_path, "Vegetarian", "--dimension", "preferences", "--no-pin").exit_code == 0
    [item] = memory_of(tmp_path, Dimension.preferences).active
    assert (item.last, item.seen, item.pinned) == (TODAY, 2, True)


def test_remember_refreshes_a_fact_already_kept(tmp_path: Path) -> None:
    write_memory(tmp_path / MEMORY, Dimension.goals, memory_text(fading=[item_line("Ship the beta", ago(45), seen=2)], window=30))
    assert remember(tmp_path, "ship the beta.", "--dimension", "goals").exit_code == 0
    goals = memory_of(tmp_path, Dimension.goals)
    assert [(i.text, i.last, i.seen) for i in goals.active] == [("Ship the beta", TODAY, 3)]
    assert goals.fading == []


def test_remember_prints_one_line_saying_what_was_kept_and_where(tmp_path: Path) -> None:
    result = remember(tmp_path, "Always answer in English", "--dimension", "preferences")
    assert result.exit_code == 0
    out = result.stdout
    assert out.count("\n") == 1
    assert "Always answer in English" in out and "_preferences.md" in out


def test_an_unknown_dimension_on_the_command_line_is_a_one_line_error(tmp_path: Path) -> None:
    result = remember(tmp_path, "Chess", "--dimension", "hobbies")
    assert result.exit_code == 2
    one_line(result.stderr)


# The installed console script, as a process


@pytest.mark.slow
def test_the_installed_console_script_applies_evidence(tmp_path: Path) -> None:
    evidence = evidence_file(tmp_path, fact("preferences", "Vegetarian"))
    done = run(["apply", "--vault", str(tmp_path), "--evidence", str(evidence), "--today", TODAY.isoformat()],
               cli_env(tmp_path / "home"))
    assert (done.returncode, done.stderr) == (0, "")
    assert "+ Vegetarian" in done.stdout
    assert memory_of(tmp_path, Dimension.preferences).active[0].text == "Vegetarian"


@pytest.mark.slow
def test_the_installed_console_script_refuses_a_bad_file_with_one_line_and_a_nonzero_exit(tmp_path: Path) -> None:
    evidence = evidence_file(tmp_path, fact("preferences", "Vegetarian"), "not json")
    done = run(["apply", "--vault", str(tmp_path), "--evidence", str(evidence), "--today", TODAY.isoformat()],
               cli_env(tmp_path / "home"))
    assert done.returncode != 0
    assert one_line(done.stderr).startswith(f"hylo-memory: {evidence}:2: ")
    assert not (tmp_path / MEMORY).exists()


def test_an_unknown_field_in_an_evidence_line_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "ev.jsonl"
    path.write_text('{"dimension": "preferences", "text": "Tea", "source": "a.md", "matchs": "Coffee"}\n')
    result = hylo("apply", "--vault", tmp_path, "--evidence", path)
    assert result.exit_code != 0
    err = one_line(result.stderr)
    assert "ev.jsonl:1" in err and "'matchs'" in err
    assert written(tmp_path) == []


def test_an_evidence_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "ev.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"dimension": "preferences", "text": "Tea", "source": "a.md"}\n')
    result = hylo("apply", "--vault", tmp_path, "--evidence", path)
    assert result.exit_code == 0
    assert "+ Tea" in result.stdout


def test_remember_touches_only_the_fact_it_records(tmp_path: Path) -> None:
    old = (TODAY - dt.timedelta(days=172)).isoformat()
    write_memory(tmp_path / MEMORY, Dimension.goals,
                 f"---\ndecay_window: 30d\n---\n## Active\n- Old project `last:{old} seen:1`\n\n## Fading\n")
    assert remember(tmp_path, "Ship the beta", "--dimension", "goals").exit_code == 0
    goals = memory_of(tmp_path, Dimension.goals)
    assert [i.text for i in goals.active] == ["Old project", "Ship the beta"]


def test_a_pinned_field_that_is_not_true_or_false_refuses_the_file(tmp_path: Path) -> None:
    evidence = tmp_path / "e.jsonl"
    evidence.write_text('{"dimension": "preferences", "text": "Loves tea", "source": "chat", "pinned": "yes"}\n',
                        encoding="utf-8")
    result = hylo("apply", "--vault", str(tmp_path), "--evidence", str(evidence))
    assert result.exit_code == 1 and f"{evidence}:1:" in result.stderr and "pinned" in result.stderr
