"""`status` tells the whole story (issue 18, point 3): why the last run failed, grouped, with the server and
model named; the sources set aside as stuck; and a schedule only where one was set up."""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import socket
import stat
import subprocess
from pathlib import Path

import pytest
from cli_helpers import hylo
from freezegun import freeze_time
from proc_helpers import Lines, cli_env, generate_notes
from vault_helpers import opened

from hylo_memory.domain.usage import Usage
from hylo_memory.pipeline.cli.options import NAMING
from hylo_memory.pipeline.config import load_config
from hylo_memory.pipeline.operations.schedule_found import installed
from hylo_memory.pipeline.operations.serving.status import gather
from hylo_memory.pipeline.operations.serving.status_runs import grouped
from hylo_memory.pipeline.state.ledger import Ledger
from hylo_memory.pipeline.state.writing import open_store

CRON = Path(__file__).resolve().parents[1] / "cron"
TODAY = dt.date(2026, 12, 2)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    path = tmp_path / "vault"
    generate_notes(path, 6, TODAY)
    return path


@pytest.fixture
def no_crontab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `crontab` command on PATH that has no crontab for this user (exit 1), as on a fresh account."""
    return fake_crontab(tmp_path, monkeypatch, None)


def fake_crontab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table: str | None) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    script = folder / "crontab"
    body = "echo 'no crontab for you' >&2; exit 1" if table is None else f"cat <<'EOF'\n{table}EOF"
    script.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return script


def status_text(vault: Path) -> str:
    result = hylo("status", "--vault", vault, "--today", TODAY.isoformat())
    assert result.exit_code == 0, result.stderr
    return result.stdout


def status_json(vault: Path) -> dict:
    result = hylo("status", "--vault", vault, "--today", TODAY.isoformat(), "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


# The schedule, only where one exists

def test_with_nothing_scheduled_status_names_no_next_run(vault: Path, no_crontab: Path) -> None:
    text = status_text(vault)
    assert "Next scheduled run" not in text
    assert "Schedule: none (no crontab line, systemd timer or launchd agent" in text
    assert status_json(vault)["schedule"] is None


def test_a_schedule_setting_is_a_schedule(vault: Path, no_crontab: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYLO_MEMORY_SCHEDULE", "15 2 * * *")
    data = status_json(vault)
    assert (data["schedule"]["cron"], data["schedule"]["source"]) == ("15 2 * * *", "the `schedule` setting")
    assert '("15 2 * * *", local time; the `schedule` setting)' in status_text(vault)


@pytest.mark.slow
def test_a_crontab_line_for_this_vault_is_the_schedule(vault: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    fake_crontab(tmp_path, monkeypatch, f"MAILTO=me\n# nightly\n30 4 * * * /opt/bin/hylo-memory refresh --vault "
                                        f"{vault} >> /tmp/hylo.log 2>&1\n")
    data = status_json(vault)
    assert data["schedule"]["cron"] == "30 4 * * *" and data["schedule"]["source"].startswith("crontab line '30 4")
    assert "Next scheduled run: " in status_text(vault)


def test_a_crontab_line_for_another_vault_is_not(vault: Path, tmp_path: Path) -> None:
    table = f"0 3 * * * hylo-memory refresh --vault {tmp_path / 'other'}\n0 1 * * * backup.sh {vault}\n"
    assert installed(vault, tmp_path, table) == []


def test_the_cron_folders_systemd_timer_installed_is_the_schedule(vault: Path, no_crontab: Path) -> None:
    home = Path(os.environ["HOME"])
    user = home / ".config" / "systemd" / "user"
    user.mkdir(parents=True)
    service = (CRON / "hylo-memory.service").read_text(encoding="utf-8")
    (user / "hylo-memory.service").write_text(service.replace("%h/notes", str(vault)), encoding="utf-8")
    (user / "hylo-memory.timer").write_text((CRON / "hylo-memory.timer").read_text(encoding="utf-8"), encoding="utf-8")
    schedule = status_json(vault)["schedule"]
    assert schedule["cron"] == "0 3 * * *" and schedule["timezone"] == "local time"
    assert schedule["source"] == f"systemd timer {user / 'hylo-memory.timer'} (OnCalendar=*-*-* 03:00:00)"


def test_the_cron_folders_launchd_agent_installed_is_the_schedule(vault: Path, no_crontab: Path) -> None:
    home = Path(os.environ["HOME"])
    agents = home / "Library" / "LaunchAgents"
    agents.mkdir(parents=True)
    plist = (CRON / "com.hylo.memory.plist").read_text(encoding="utf-8").replace("/Users/you/notes", str(vault))
    (agents / "com.hylo.memory.plist").write_text(plist, encoding="utf-8")
    schedule = status_json(vault)["schedule"]
    assert schedule["cron"] == "0 3 * * *" and schedule["source"].startswith("launchd agent ")


@pytest.mark.slow
def test_a_running_schedule_is_named_by_status(processes, vault: Path, tmp_path: Path) -> None:
    env = cli_env(tmp_path / "home")
    process = processes.start(["schedule", "--vault", str(vault), "--cron", "45 5 * * *"], env,
                              stderr=subprocess.PIPE)
    Lines(process.stderr).wait_for("scheduling refreshes")
    schedule = gather(opened(vault, load_config()), NAMING).schedule
    assert schedule is not None and (schedule.source, schedule.cron) == ("`hylo-memory schedule` running", "45 5 * * *")
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    assert gather(opened(vault, load_config()), NAMING).schedule is None  # stopped: nothing schedules the vault now


# Why the last run failed

def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_failed_run_says_why_with_the_server_and_model(vault: Path, no_crontab: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    base_url = f"http://127.0.0.1:{closed_port()}/v1"
    for name, value in {"OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "sk-test", "HYLO_MEMORY_MODEL": "smollm2",
                        "HYLO_MEMORY_RETRIES": "0"}.items():
        monkeypatch.setenv(name, value)
    assert hylo("refresh", "--vault", vault, "--today", TODAY.isoformat(), "--quiet").exit_code == 2
    text = status_text(vault)
    assert f"Last run #1 failed: 6 sources wait for the next run (server {base_url}, model smollm2)" in text
    assert f"  cannot connect to the server at {base_url}: " in text
    last = status_json(vault)["last_run"]
    assert last["model"] == "smollm2" and sum(f["sources"] for f in last["failures"]) == 6


def test_failures_are_grouped_by_reason_without_their_attempt_counts() -> None:
    groups = grouped(["batch of 3 source(s) from _shorts/a.md: HTTP 400: context too long (after 1 attempt)",
                      "batch of 2 source(s) from _shorts/b.md: HTTP 400: context too long (after 1 attempt)",
                      "batch of 1 source(s) from _shorts/c.md: the server did not answer in time (after 4 attempts)"],
                     "http://localhost:8080/v1")
    assert [(g.reason, g.times, g.sources) for g in groups] == [
        ("HTTP 400: context too long", 2, 5), ("the server did not answer in time", 1, 1)]


def last_summary(vault: Path, status: str, **extra: object) -> None:
    """A finished run in the ledger, and its summary as a run writes it."""
    store = open_store(vault, load_config())
    with Ledger.for_memory_dir(store.folder) as ledger:
        run = ledger.start_run(TODAY, "first", TODAY - dt.timedelta(days=89), 90)
        ledger.finish_run(run, status, 2, {}, Usage())
    runs = store.folder / ".state" / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    (runs / f"{run:06d}.json").write_text(json.dumps({"extractor": "openai (tiny)", "failures": [], **extra}))


def test_stuck_sources_are_named_with_their_reason(vault: Path, no_crontab: Path) -> None:
    last_summary(vault, "ok", stuck=[{"path": "_shorts/huge.md", "reason": "HTTP 400: too long", "runs": 3}])
    text = status_text(vault)
    assert "Stuck sources, set aside until `hylo-memory refresh --retry-stuck`" in text
    assert "  _shorts/huge.md (failed 3 runs in a row): HTTP 400: too long" in text


def test_a_summary_without_stuck_sources_shows_no_stuck_section(vault: Path, no_crontab: Path) -> None:
    last_summary(vault, "ok")
    text = status_text(vault)
    assert "Stuck" not in text and "Last run #" not in text


@freeze_time("2026-12-02 09:00:00+00:00")
def test_an_unreadable_summary_still_gives_the_status(vault: Path, no_crontab: Path) -> None:
    last_summary(vault, "partial", stuck="not a list")
    (vault / "_memory" / ".state" / "runs" / "000001.json").write_text("{not json")
    assert "Last run #1 partial: 2 sources wait for the next run\n" in status_text(vault)
