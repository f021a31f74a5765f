"""The files in cron/ call a command the real CLI accepts, at the default schedule's time."""

from __future__ import annotations

import plistlib
import shlex
import shutil
import subprocess
from pathlib import Path

import click
import pytest
from cli_helpers import hylo
from proc_helpers import HYLO, ROOT, copy_example_vault

from hylo_memory.pipeline.cli.group import cli
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.schedule import parse_cron

CRON = ROOT / "cron"
HOME = "/home/someone"
DEFAULT_SCHEDULE = Config.model_fields["schedule"].default  # "0 3 * * *"


def crontab_entry() -> tuple[str, list[str]]:
    """The one job line: its schedule and its command's words, up to the redirections."""
    lines = [line for line in (CRON / "crontab").read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    assert len(lines) == 1
    fields = lines[0].split(None, 5)
    words = shlex.split(fields[5].replace("$HOME", HOME))
    command = []
    for word in words:
        if word.startswith((">", "2>", "<", "|")):
            break
        command.append(word)
    return " ".join(fields[:5]), command


def unit_file(name: str) -> dict[str, dict[str, str]]:
    """A systemd unit's sections and keys (a key given twice keeps the last, as none is here)."""
    sections: dict[str, dict[str, str]] = {}
    current: dict[str, str] = {}
    for line in (CRON / name).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        current[key.strip()] = value.strip()
    return sections


def systemd_command() -> list[str]:
    exec_start = unit_file("hylo-memory.service")["Service"]["ExecStart"]
    return shlex.split(exec_start.replace("%h", HOME))


def launchd_job() -> dict:
    with (CRON / "com.hylo.memory.plist").open("rb") as handle:
        return plistlib.load(handle)


COMMANDS = {
    "crontab": lambda: crontab_entry()[1],
    "systemd": systemd_command,
    "launchd": lambda: launchd_job()["ProgramArguments"],
}


@pytest.mark.parametrize("name", COMMANDS)
def test_each_file_calls_hylo_memory_refresh_with_a_vault(name: str) -> None:
    program, *args = COMMANDS[name]()
    assert Path(program).name == "hylo-memory"
    assert Path(program).is_absolute()  # cron and launchd start jobs with a bare PATH
    name, params = parse(args)
    assert name == "refresh"
    assert params["vault"].is_absolute()
    assert not params["dry_run"] and params["today"] is None  # a real run, dated by the clock


def parse(args: list[str]) -> tuple[str, dict]:
    """The command and its parameters as click parses them, without running anything."""
    name, *rest = args
    command = cli.get_command(click.Context(cli), name)  # loaded on demand: the group names its commands lazily
    assert command is not None
    with command.make_context(name, rest) as context:
        return name, context.params


@pytest.mark.parametrize("name", COMMANDS)
def test_each_command_runs_against_a_real_vault(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, *args = COMMANDS[name]()
    vault = copy_example_vault(tmp_path / "vault")
    args[args.index("--vault") + 1] = str(vault)
    monkeypatch.setenv("HYLO_MEMORY_EXTRACTOR", "offline")
    result = hylo(*args)
    assert result.exit_code == 0, result.stderr
    assert (vault / "_memory" / ".state" / "ledger.db").exists()


def test_all_three_run_at_the_default_schedule() -> None:
    schedule, _ = crontab_entry()
    assert schedule == DEFAULT_SCHEDULE
    parse_cron(schedule, None)
    assert unit_file("hylo-memory.timer")["Timer"]["OnCalendar"] == "*-*-* 03:00:00"
    assert launchd_job()["StartCalendarInterval"] == {"Hour": 3, "Minute": 0}


def test_the_systemd_pair_catches_up_missed_nights() -> None:
    timer = unit_file("hylo-memory.timer")
    service = unit_file("hylo-memory.service")
    assert timer["Timer"]["Persistent"] == "true"
    assert timer["Timer"]["Unit"] == "hylo-memory.service"
    assert timer["Install"]["WantedBy"] == "timers.target"
    assert service["Service"]["Type"] == "oneshot"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
@pytest.mark.slow
def test_systemd_accepts_the_units(tmp_path: Path) -> None:
    # The service names a program that must exist for `verify`: point it at this one.
    service = (CRON / "hylo-memory.service").read_text(encoding="utf-8")
    (tmp_path / "hylo-memory.service").write_text(service.replace("%h/.local/bin/hylo-memory", HYLO))
    shutil.copy(CRON / "hylo-memory.timer", tmp_path)
    result = subprocess.run(["systemd-analyze", "verify", "hylo-memory.timer", "hylo-memory.service"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=60)
    if "Failed to initialize manager" in result.stderr:
        pytest.skip("systemd-analyze cannot run here")
    assert (result.returncode, result.stderr.strip()) == (0, "")


def test_the_launchd_label_matches_its_file_name() -> None:
    assert launchd_job()["Label"] + ".plist" == "com.hylo.memory.plist"


def test_the_operations_guide_has_a_section_for_each_file() -> None:
    guide = (CRON.parent / "docs" / "operations.md").read_text(encoding="utf-8")
    for heading in ("## cron", "## systemd", "## launchd", "## The built-in scheduler", "## Logs",
                    "how it keeps your memory safe"):
        assert heading in guide
    for name in ("crontab", "hylo-memory.service", "hylo-memory.timer", "com.hylo.memory.plist"):
        assert name in guide
