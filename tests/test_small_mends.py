"""Small cases from trying the product as a hostile user (issue 9, point 13), each one line and nothing lost."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import hylo, one_line
from vault_helpers import short


def test_a_schedule_that_never_fires_is_refused(tmp_path: Path) -> None:
    result = hylo("schedule", "--vault", tmp_path, "--cron", "0 3 31 2 *")
    assert result.exit_code == 2 and "never fires" in one_line(result.stderr)


def test_an_empty_cron_is_refused_not_replaced_by_the_default(tmp_path: Path) -> None:
    result = hylo("schedule", "--vault", tmp_path, "--cron", "")
    assert result.exit_code == 2 and "5 fields" in one_line(result.stderr)


def test_remember_of_only_punctuation_says_why_and_keeps_nothing(tmp_path: Path) -> None:
    result = hylo("remember", "---", "--vault", tmp_path)
    assert result.exit_code == 1 and "no letters or digits" in one_line(result.stderr)
    assert not (tmp_path / "_memory").exists()


def test_remember_takes_a_fact_that_starts_with_a_dash(tmp_path: Path) -> None:
    result = hylo("remember", "-- always answer in English", "--vault", tmp_path, "--dimension", "preferences")
    assert result.exit_code == 0, result.stderr
    assert "always answer in English" in (tmp_path / "_memory" / "_preferences.md").read_text()


def test_dry_run_prints_the_summary_header_before_the_diff(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-29", "I live in Lisbon.")
    out = hylo("refresh", "--vault", tmp_path, "--today", "2026-11-30", "--dry-run").stdout
    assert out.startswith("hylo-memory refresh 2026-11-30 (dry run: nothing written)\n")
    assert out.index("Status: ok") < out.index("+++ ")


def test_a_failing_json_refresh_still_prints_one_json_object(tmp_path: Path) -> None:
    result = hylo("refresh", "--vault", tmp_path / "nope", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == {"error": f"{tmp_path / 'nope'}: vault not found", "status": "failed"}
    one_line(result.stderr)


def test_a_failing_json_status_still_prints_one_json_object(tmp_path: Path) -> None:
    (tmp_path / "_memory").mkdir()
    (tmp_path / "_memory" / "_state.md").write_text("x")
    result = hylo("status", "--vault", tmp_path / "nope", "--json")
    assert json.loads(result.stdout)["status"] == "failed"


def test_a_date_at_the_calendars_end_is_refused_in_one_line(tmp_path: Path) -> None:
    result = hylo("refresh", "--vault", tmp_path, "--today", "0001-01-01")
    assert result.exit_code == 2 and "out of range" in one_line(result.stderr)
