"""`hylo-memory schedule`: the cron trigger and catch-up logic (freezegun), the job, and the
real process stopping cleanly on SIGTERM / SIGINT."""

from __future__ import annotations

import datetime as dt
import logging
import signal
from pathlib import Path

import pytest
from freezegun import freeze_time
from proc_helpers import Lines, cli_env, copy_example_vault, generate_notes, run
from tzlocal import get_localzone
from vault_helpers import opened

from hylo_memory.errors import ConfigError
from hylo_memory.pipeline.cli.options import NAMING
from hylo_memory.pipeline.clock import zone
from hylo_memory.pipeline.config import load_config
from hylo_memory.pipeline.operations.schedule import (
    _Runner,
    next_fire_time,
    parse_cron,
    previous_fire_time,
    run_line,
    should_catch_up,
)
from hylo_memory.pipeline.operations.serving.status import gather
from hylo_memory.pipeline.run.summary import RunSummary, SourceCounts
from hylo_memory.pipeline.state.ledger import Counts
from hylo_memory.pipeline.state.read_memo import memo_path
from hylo_memory.testing import FakeOpenAI, answer
from hylo_memory.testing.fake_replies import reply

UTC = dt.UTC


def at(text: str, zone_name: str = "UTC") -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=zone(zone_name))


# The trigger

@pytest.mark.parametrize("expr", ["0 3 * *", "0 3 * * * *", "", "61 3 * * *", "0 25 * * *", "0 3 * * 8", "0 3 * * x"])
def test_a_schedule_that_is_not_a_5_field_cron_expression_is_refused(expr: str) -> None:
    with pytest.raises(ConfigError, match="schedule"):
        parse_cron(expr, "UTC")


def test_default_schedule_runs_at_3_am_in_the_configured_zone() -> None:
    trigger = parse_cron("0 3 * * *", "Europe/Lisbon")
    # Lisbon is UTC+1 in summer: 03:00 there is 02:00 UTC.
    assert next_fire_time(trigger, at("2026-07-01 01:30")) == at("2026-07-01 03:00", "Europe/Lisbon")
    assert next_fire_time(trigger, at("2026-07-01 01:30")).astimezone(UTC) == at("2026-07-01 02:00")
    assert next_fire_time(trigger, at("2026-07-01 02:30")) == at("2026-07-02 03:00", "Europe/Lisbon")
    new_york = parse_cron("0 3 * * *", "America/New_York")
    assert next_fire_time(new_york, at("2026-12-02 07:59")).astimezone(UTC) == at("2026-12-02 08:00")


def test_next_fire_time_is_strictly_after_now() -> None:
    trigger = parse_cron("0 3 * * *", "UTC")
    assert next_fire_time(trigger, at("2026-12-02 03:00")) == at("2026-12-03 03:00")
    assert next_fire_time(trigger, at("2026-12-02 02:59:59")) == at("2026-12-02 03:00")


@freeze_time("2026-12-05 12:00:00+00:00")  # a Saturday
def test_next_fire_time_defaults_to_the_real_now() -> None:
    assert next_fire_time(parse_cron("0 3 * * *", "UTC")) == at("2026-12-06 03:00")


@pytest.mark.parametrize("weekday, expected", [
    ("1", "2026-12-07"), ("mon", "2026-12-07"), ("0", "2026-12-06"), ("7", "2026-12-06"),
    ("sun", "2026-12-06"), ("1-5", "2026-12-07"), ("6", "2026-12-12"), ("2,4", "2026-12-08"),
])
def test_weekdays_count_from_sunday_as_in_cron(weekday: str, expected: str) -> None:
    # APScheduler 3 counts Monday as 0; a crontab line must mean what cron means.
    trigger = parse_cron(f"0 3 * * {weekday}", "UTC")
    assert next_fire_time(trigger, at("2026-12-05 12:00")) == at(f"{expected} 03:00")


def test_every_second_weekday_from_sunday() -> None:
    trigger = parse_cron("0 3 * * */2", "UTC")  # Sunday, Tuesday, Thursday, Saturday
    fires, now = [], at("2026-12-05 12:00")
    for _ in range(4):
        now = next_fire_time(trigger, now)
        fires.append(now.strftime("%a"))
    assert fires == ["Sun", "Tue", "Thu", "Sat"]


def test_previous_fire_time() -> None:
    daily = parse_cron("0 3 * * *", "UTC")
    assert previous_fire_time(daily, at("2026-12-02 09:00")) == at("2026-12-02 03:00")
    assert previous_fire_time(daily, at("2026-12-02 02:59")) == at("2026-12-01 03:00")
    assert previous_fire_time(daily, at("2026-12-02 03:00")) == at("2026-12-02 03:00")
    every_minute = parse_cron("* * * * *", "UTC")
    assert previous_fire_time(every_minute, at("2026-12-02 09:00:30")) == at("2026-12-02 09:00")
    weekly = parse_cron("30 9 * * 1", "Europe/Berlin")
    assert previous_fire_time(weekly, at("2026-12-06 12:00")) == at("2026-11-30 09:30", "Europe/Berlin")
    leap_day = parse_cron("0 0 29 2 *", "UTC")
    assert previous_fire_time(leap_day, at("2026-12-02 00:00")) == at("2024-02-29 00:00")


@freeze_time("2026-12-02 09:00:00+00:00")
def test_previous_fire_time_defaults_to_the_real_now() -> None:
    assert previous_fire_time(parse_cron("0 3 * * *", "UTC")) == at("2026-12-02 03:00")


# Catching up at start

@freeze_time("2026-12-02 09:00:00+00:00")
@pytest.mark.parametrize("last_success, catch_up", [
    (None, True),  # never ran
    ("2026-12-01 03:00:05", True),  # asleep at 3 am today: yesterday's run is the last
    ("2026-11-25 03:00:05", True),  # off for a week
    ("2026-12-02 02:59:59", True),  # a manual run just before 3 am does not count for the 3 am run
    ("2026-12-02 03:00:00", False),  # exactly at the scheduled time
    ("2026-12-02 03:00:07", False),  # today's run happened
    ("2026-12-02 08:30:00", False),  # a manual run this morning
])
def test_should_catch_up_when_the_last_success_is_before_the_latest_fire_time(last_success, catch_up) -> None:
    trigger = parse_cron("0 3 * * *", "UTC")
    last = at(last_success) if last_success else None
    assert should_catch_up(trigger, last) is catch_up


@freeze_time("2026-12-02 09:00:00+00:00")
def test_catch_up_compares_instants_across_zones() -> None:
    # 03:00 in Tokyo is 18:00 UTC the day before.
    trigger = parse_cron("0 3 * * *", "Asia/Tokyo")
    assert should_catch_up(trigger, at("2026-12-01 18:30")) is False
    assert should_catch_up(trigger, at("2026-12-01 17:30")) is True


@freeze_time("2026-12-02 09:00:00+00:00")  # a Wednesday
def test_catch_up_for_a_weekly_schedule_looks_back_to_its_last_fire() -> None:
    mondays = parse_cron("0 3 * * 1", "UTC")
    assert should_catch_up(mondays, at("2026-11-30 04:00")) is False  # Monday's run happened
    assert should_catch_up(mondays, at("2026-11-29 04:00")) is True  # Sunday: before Monday's


def test_local_zone_when_none_is_configured() -> None:
    assert zone(None) == get_localzone()
    assert parse_cron("0 3 * * *", None).timezone == get_localzone()


# The job

def summary(**changes) -> RunSummary:
    base = dict(mode="incremental", window_days=2, window_start="2026-12-01", today="2026-12-02", extractor="offline",
                sources=SourceCounts(shorts=3, knowledge=1), changed_files=["_state.md"],
                counts=Counts(added=2, refreshed=1, faded=1))
    return RunSummary(**{**base, **changes})


def test_one_log_line_per_run_with_status_and_counts() -> None:
    line = run_line(summary())
    assert "\n" not in line
    assert line.startswith("refresh ok: incremental run over 2 days to 2026-12-02")
    assert "sources 3 shorts, 1 knowledge, 0 extra" in line
    assert "added 2, refreshed 1, faded 1, deleted 0, expired 0" in line
    assert line.endswith("changed _state.md")
    assert run_line(summary(status="partial", waiting=4, changed_files=[])).startswith("refresh partial")


@pytest.fixture
def config(isolated_env):
    return load_config()


def test_the_job_logs_one_line_and_never_raises(tmp_path: Path, config, caplog) -> None:
    vault = copy_example_vault(tmp_path / "vault")
    runner = _Runner(vault, config, NAMING)
    with caplog.at_level(logging.INFO, logger="hylo_memory.schedule"):
        runner.run()
        (vault / "_memory" / "_state.md").write_text("## Active\n- Tired `last:2026-13-45 seen:1`\n", encoding="utf-8")
        runner.run()  # a hand-broken file fails that run, not the schedule
    lines = [r.getMessage() for r in caplog.records if r.name == "hylo_memory.schedule"]
    assert len(lines) == 2
    assert lines[0].startswith("refresh ok: first run over 90 days")
    assert lines[1].startswith("refresh failed: ") and "_state.md" in lines[1]
    assert not runner.running.is_set()


def test_a_scheduled_run_keeps_the_read_memo_for_the_mornings_first_reader(tmp_path: Path, config) -> None:
    vault = copy_example_vault(tmp_path / "vault")
    _Runner(vault, config, NAMING).run()
    assert memo_path(vault / "_memory").exists()


# The real process

def schedule_args(vault: Path, cron: str = "0 3 * * *") -> list[str]:
    return ["schedule", "--vault", str(vault), "--cron", cron]


def recent_vault(path: Path) -> Path:
    """Notes dated relative to the real today: a scheduled run reads the real clock."""
    generate_notes(path, 60, dt.date.today())
    return path


@pytest.mark.slow
def test_catches_up_at_start_then_stops_on_sigterm_with_exit_code_0(processes, tmp_path: Path) -> None:
    vault = recent_vault(tmp_path / "vault")
    process = processes.start(schedule_args(vault), cli_env(tmp_path / "home"))
    err = Lines(process.stderr)
    assert "next run now (catching up" in err.wait_for("scheduling refreshes")
    err.wait_for("refresh ok: first run")
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    lines = err.rest()
    assert sum("hylo-memory: refresh " in line for line in lines) == 1
    assert lines[-1].rstrip().endswith("hylo-memory: stopped")
    assert (vault / "_memory" / "_identity.md").exists()


@pytest.mark.slow
def test_an_idle_scheduler_stops_on_sigint_with_exit_code_0(processes, tmp_path: Path) -> None:
    vault = recent_vault(tmp_path / "vault")
    env = cli_env(tmp_path / "home")
    assert run(["refresh", "--vault", str(vault)], env).returncode == 0  # ran just now: nothing to catch up
    process = processes.start(schedule_args(vault), env)
    err = Lines(process.stderr)
    line = err.wait_for("scheduling refreshes")
    assert "next run 20" in line and "catching up" not in line
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=30) == 0
    assert not any("hylo-memory: refresh " in line for line in err.rest())


@pytest.fixture
def slow_vault(tmp_path: Path) -> Path:
    """Recent notes, the newest a plain note whose fact the tests look for."""
    vault = recent_vault(tmp_path / "vault")
    yesterday = dt.date.today() - dt.timedelta(days=1)
    (vault / "_shorts" / f"{yesterday.isoformat()}-sourdough.md").write_text(
        "I really love sourdough baking.\n", encoding="utf-8")
    return vault


@pytest.mark.slow
def test_sigterm_during_a_run_lets_it_finish_then_exits_0(processes, slow_vault, paused_model, tmp_path: Path) -> None:
    vault = slow_vault
    process = processes.start(schedule_args(vault), paused_model.env(tmp_path / "home"))
    err = Lines(process.stderr)
    paused_model.wait_for_request()  # the catch-up run is under way, waiting for the model
    process.send_signal(signal.SIGTERM)
    err.wait_for("stopping after the running refresh finishes")
    assert process.poll() is None
    assert not (vault / "_memory" / "_preferences.md").exists()  # the run has not written yet
    paused_model.release.set()
    assert process.wait(timeout=30) == 0
    lines = err.rest()
    assert "hylo-memory: refresh ok: first run" in lines[-2]
    assert lines[-1].rstrip().endswith("hylo-memory: stopped")
    assert "Loves sourdough baking" in (vault / "_memory" / "_preferences.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_second_signal_abandons_the_run_safely(processes, slow_vault, paused_model, tmp_path: Path, config) -> None:
    vault = slow_vault
    env = paused_model.env(tmp_path / "home")
    process = processes.start(schedule_args(vault), env)
    err = Lines(process.stderr)
    paused_model.wait_for_request()
    process.send_signal(signal.SIGTERM)
    err.wait_for("stopping after the running refresh finishes")
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=30) == 0
    assert "abandoning the running refresh" in err.rest()[-1]
    paused_model.release.set()  # too late: nobody is waiting for the answer

    # Abandoned while extracting: the run is recorded as started and never finished, nothing written.
    assert [r.status for r in gather(opened(vault, config), NAMING).runs] == ["interrupted"]
    assert not (vault / "_memory" / "_identity.md").exists()
    again = run(["refresh", "--vault", str(vault), "--json"], env)
    assert again.returncode == 0, again.stderr
    assert '"mode":"first"' in again.stdout  # nothing was written: the next run does it all
    assert "Loves sourdough baking" in (vault / "_memory" / "_preferences.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_scheduled_run_with_the_batch_setting_submits_its_notes_as_one_batch(processes, tmp_path: Path) -> None:
    vault = recent_vault(tmp_path / "vault")
    with FakeOpenAI(handler=lambda body: reply(answer(body)), batch_delay=3600) as fake:
        env = cli_env(tmp_path / "home", HYLO_MEMORY_EXTRACTOR="openai", OPENAI_BASE_URL=fake.base_url,
                      OPENAI_API_KEY="test-key-0123", HYLO_MEMORY_BATCH="true")
        process = processes.start(schedule_args(vault), env)
        err = Lines(process.stderr)
        line = err.wait_for("hylo-memory: refresh submitted: first run")  # the catch-up run
        assert f"batch {fake.batch_ids[0]}: " in line and " note(s) in " in line
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
        assert len(fake.batch_ids) == 1 and not fake.chat_requests
