"""A Hylo vault by URL (docs/spec.md §10): every command against the fake Hylo through the SDK's real client,
memory files read with `read` and written with `create`, the window read with `short_list` in pages."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from cli_helpers import hylo, one_line
from hylo_helpers import TODAY, daily, run, two_days

from hylo_memory.testing import FakeOpenAI
from hylo_memory.testing.fake_hylo import KEY, FakeHylo

pytestmark = pytest.mark.slow  # an MCP session a command: the fast tier has the format and the mirror

LONG_WALKS = "Loves long walks by the river"


def memory(fake: FakeHylo, name: str) -> str:
    """A memory file as Hylo has it (what `create` wrote into its folder)."""
    return (fake.root / "_memory" / name).read_text(encoding="utf-8")


def refreshed(fake: FakeHylo, *args: str, today: dt.date = TODAY) -> dict:
    result = run(fake, "refresh", "--json", *args, today=today)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_refresh_writes_the_memory_files_into_hylo(fake_hylo: FakeHylo) -> None:
    two_days(fake_hylo.root)
    refreshed(fake_hylo)
    assert LONG_WALKS in memory(fake_hylo, "_preferences.md")


def test_refresh_reads_each_entry_of_hylos_daily_files_as_a_source(fake_hylo: FakeHylo) -> None:
    two_days(fake_hylo.root)
    assert refreshed(fake_hylo)["sources"]["shorts"] == 3


def test_refresh_reads_the_window_with_start_and_end_dates_not_latest(fake_hylo: FakeHylo) -> None:
    two_days(fake_hylo.root)
    refreshed(fake_hylo)
    asked = [args for tool, args in fake_hylo.calls if tool == "short_list"]
    assert asked and all("start" in a and "end" in a and "latest" not in a for a in asked)


def test_a_window_larger_than_one_page_is_read_whole(fake_hylo: FakeHylo, monkeypatch) -> None:
    monkeypatch.setenv("HYLO_MEMORY_HYLO_PAGE", "2")
    for n in range(6):
        daily(fake_hylo.root, TODAY - dt.timedelta(days=n + 1), ("08:00:00", f"I love walk number {n}."))
    daily(fake_hylo.root, TODAY - dt.timedelta(days=10), *[(f"0{h}:00:00", f"I love tea {h}.") for h in range(1, 5)])
    summary = refreshed(fake_hylo)
    asked = [a for tool, a in fake_hylo.calls if tool == "short_list"]
    unbounded = {(a["start"], a["end"]) for a in asked if a["limit"] == 0}  # only a day that fills a page alone
    day = TODAY - dt.timedelta(days=10)
    assert (summary["sources"]["shorts"], {a["limit"] for a in asked}, unbounded) == (
        10, {2, 0}, {(day.isoformat(), (day + dt.timedelta(days=1)).isoformat())})


def test_an_incremental_run_reads_only_the_entry_appended_since(fake_hylo: FakeHylo, llm: FakeOpenAI) -> None:
    two_days(fake_hylo.root)
    daily(fake_hylo.root, TODAY, ("07:00:00", "I drink green tea."))
    refreshed(fake_hylo, "--extractor", "openai")
    llm.reset()
    daily(fake_hylo.root, TODAY, ("07:00:00", "I drink green tea."), ("12:00:00", "I love sardines."))
    summary = refreshed(fake_hylo, "--extractor", "openai")
    sent = [c for r in llm.chat_requests for c in r.prompt.split("<source id=")[1:]]
    assert (summary["sources"]["shorts"], len(sent)) == (1, 1)


def test_the_memory_lives_in_hylo_and_the_state_on_the_machine(fake_hylo: FakeHylo, tmp_path: Path) -> None:
    two_days(fake_hylo.root)
    refreshed(fake_hylo)
    hylo_side = sorted(p.name for p in (fake_hylo.root / "_memory").iterdir())
    assert (hylo_side, (tmp_path / "state" / "_memory" / ".state").is_dir()) == (
        sorted(["_identity.md", "_preferences.md", "_beliefs.md"]), True)


def test_the_key_is_never_printed_nor_stored(fake_hylo: FakeHylo, tmp_path: Path) -> None:
    two_days(fake_hylo.root)
    result = run(fake_hylo, "refresh")
    stored = b"".join(p.read_bytes() for p in (tmp_path / "state").rglob("*") if p.is_file())
    assert (KEY in result.stdout + result.stderr, KEY.encode() in stored) == (False, False)


# Every command on a URL vault


def test_remember_writes_the_fact_into_hylo(fake_hylo: FakeHylo) -> None:
    assert run(fake_hylo, "remember", "I'm vegetarian").exit_code == 0
    assert "Is vegetarian" in memory(fake_hylo, "_preferences.md")


def test_apply_writes_evidence_into_hylo(fake_hylo: FakeHylo, tmp_path: Path) -> None:
    evidence = tmp_path / "e.jsonl"
    evidence.write_text(json.dumps({"dimension": "goals", "text": "Run a half marathon",
                                    "source": "_shorts/2026-11-29.md#09:30:00"}) + "\n")
    assert run(fake_hylo, "apply", "--evidence", str(evidence)).exit_code == 0
    assert "Run a half marathon" in memory(fake_hylo, "_goals.md")


def test_why_names_the_hylo_entry_an_item_came_from(fake_hylo: FakeHylo) -> None:
    two_days(fake_hylo.root)
    refreshed(fake_hylo)
    assert "_shorts/2026-11-29.md#09:30:00" in run(fake_hylo, "why", LONG_WALKS).stdout


def test_undo_restores_the_file_in_hylo(fake_hylo: FakeHylo) -> None:
    run(fake_hylo, "remember", "I'm vegetarian")
    run(fake_hylo, "remember", "I love jazz")
    assert run(fake_hylo, "undo").exit_code == 0
    assert "jazz" not in memory(fake_hylo, "_preferences.md")


def test_history_lists_the_changes_made_to_a_hylo_vault(fake_hylo: FakeHylo) -> None:
    run(fake_hylo, "remember", "I'm vegetarian")
    assert "remember" in run(fake_hylo, "history").stdout


def test_forget_takes_the_item_out_of_hylos_file(fake_hylo: FakeHylo) -> None:
    run(fake_hylo, "remember", "I'm vegetarian")
    run(fake_hylo, "remember", "I love jazz")
    assert run(fake_hylo, "forget", "Loves jazz").exit_code == 0
    assert "jazz" not in memory(fake_hylo, "_preferences.md")


def test_context_shows_the_memory_kept_in_hylo(fake_hylo: FakeHylo) -> None:
    two_days(fake_hylo.root)
    refreshed(fake_hylo)
    assert LONG_WALKS in run(fake_hylo, "context").stdout


def test_recall_finds_an_item_kept_in_hylo(fake_hylo: FakeHylo) -> None:
    two_days(fake_hylo.root)
    refreshed(fake_hylo)
    assert LONG_WALKS in run(fake_hylo, "recall", "walks").stdout


def test_status_reports_the_runs_on_a_hylo_vault(fake_hylo: FakeHylo) -> None:
    two_days(fake_hylo.root)
    refreshed(fake_hylo)
    assert "#1" in run(fake_hylo, "status").stdout


def test_a_memory_file_edited_in_hylo_is_read_by_the_next_command(fake_hylo: FakeHylo) -> None:
    run(fake_hylo, "remember", "I'm vegetarian")
    path = fake_hylo.root / "_memory" / "_preferences.md"
    path.write_text(path.read_text().replace("Is vegetarian", "Is vegan"))
    assert "Is vegan" in run(fake_hylo, "context").stdout


def test_a_file_changed_in_hylo_while_the_run_wrote_is_not_overwritten(fake_hylo: FakeHylo) -> None:
    """As a person's save in a folder: the run plans again on Hylo's new text, which it keeps (docs/spec.md §10)."""
    run(fake_hylo, "remember", "I'm vegetarian")
    two_days(fake_hylo.root)
    beliefs = fake_hylo.root / "_memory" / "_beliefs.md"

    def person_writes(path: str, content: str) -> None:  # as the run sends _preferences.md, before _beliefs.md
        if path.endswith("_preferences.md") and not beliefs.exists():
            beliefs.write_text("## Active\n- Hand-written in Hylo meanwhile\n")

    fake_hylo.before_create = person_writes
    result = run(fake_hylo, "refresh")
    kept = beliefs.read_text()
    assert (result.exit_code, "Hand-written in Hylo meanwhile" in kept, "Believes tests are specifications" in kept) \
        == (0, True, True)


def test_the_next_run_starts_from_the_text_changed_meanwhile(fake_hylo: FakeHylo) -> None:
    test_a_file_changed_in_hylo_while_the_run_wrote_is_not_overwritten(fake_hylo)
    fake_hylo.before_create = None
    run(fake_hylo, "remember", "I believe in small tools")
    assert "Hand-written in Hylo meanwhile" in memory(fake_hylo, "_beliefs.md")


# Failures: one line each, nothing written


def failing(fake: FakeHylo) -> tuple[int, str]:
    """A refresh against a failing Hylo: its exit code and its one line; nothing may have been written."""
    two_days(fake.root)
    result = run(fake, "refresh")
    assert not (fake.root / "_memory").exists()
    return result.exit_code, one_line(result.stderr)


def test_an_unreachable_hylo_fails_the_run_in_one_line_with_exit_2(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HYLO_API_KEY", KEY)
    monkeypatch.setenv("HYLO_MEMORY_STATE_DIR", str(tmp_path / "state"))
    result = hylo("refresh", "--vault", "http://127.0.0.1:9/mcp", "--extractor", "offline")
    assert (result.exit_code, "cannot be reached" in one_line(result.stderr)) == (2, True)


def test_a_refused_key_names_hylo_api_key(fake_hylo: FakeHylo) -> None:
    fake_hylo.refuse_key = True  # Hylo answers 401 Unauthorized (internal/server/middleware/auth.go)
    code, line = failing(fake_hylo)
    assert (code, "refused the key (401): check HYLO_API_KEY" in line) == (2, True)


def test_a_missing_key_names_hylo_api_key(fake_hylo: FakeHylo, monkeypatch) -> None:
    monkeypatch.delenv("HYLO_API_KEY")
    code, line = failing(fake_hylo)
    assert (code, "set HYLO_API_KEY" in line) == (2, True)


def test_a_missing_tool_is_named(fake_hylo: FakeHylo) -> None:
    fake_hylo.missing.add("short_list")
    code, line = failing(fake_hylo)
    assert (code, "has no tool 'short_list'" in line) == (2, True)


def test_a_tool_error_gives_hylos_own_message(fake_hylo: FakeHylo) -> None:
    fake_hylo.errors["short_list"] = "index is rebuilding, try later"
    code, line = failing(fake_hylo)
    assert (code, "short_list failed: index is rebuilding, try later" in line) == (2, True)


def test_a_malformed_result_names_the_tool_and_the_field(fake_hylo: FakeHylo) -> None:
    fake_hylo.malformed["short_list"] = {"items": []}
    code, line = failing(fake_hylo)
    assert (code, "short_list: the result's field 'entries' is missing" in line) == (2, True)


def test_a_hylo_too_slow_to_answer_times_out(fake_hylo: FakeHylo, monkeypatch) -> None:
    monkeypatch.setenv("HYLO_MEMORY_HYLO_TIMEOUT", "0.5")
    fake_hylo.delay = 2.0
    code, line = failing(fake_hylo)
    assert (code, "timed out" in line) == (2, True)
