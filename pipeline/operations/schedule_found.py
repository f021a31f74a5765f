"""Where this vault's refreshes are scheduled, if anywhere: what `status` shows (docs/spec.md §6).

A schedule exists only where one was set up: a `hylo-memory schedule` running on the vault, a crontab
line, a systemd user timer or a launchd agent that runs `hylo-memory refresh` on it, or a `schedule`
setting. The default setting alone schedules nothing, so `status` names no next run for it.
"""

from __future__ import annotations

import json
import os
import plistlib
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hylo_memory.pipeline.state.ledger import STATE_DIR
from hylo_memory.pipeline.state.locking import is_held

SCHEDULE_LOCK = "schedule.lock"  # held by a running `hylo-memory schedule` for as long as it runs
SCHEDULE_FILE = "schedule.json"  # its cron expression and zone, beside the lock
CRONTAB_SECONDS = 5.0  # `crontab -l` answers at once; a hung one must not hang `status`
_NICKNAMES = {"@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *", "@weekly": "0 0 * * 0",
              "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *"}
# systemd's OnCalendar forms that are a daily time (the ones cron/ shows): "*-*-* 03:00:00", "daily".
_DAILY = re.compile(r"^(?:\*-\*-\*\s+)?(?P<h>\d{1,2}):(?P<m>\d{2})(?::\d{2})?$")


@dataclass(frozen=True)
class Found:
    """One schedule: where it is set, and its cron expression (None when it has none we can read)."""

    source: str
    cron: str | None
    local_time: bool  # cron, systemd and launchd run on the machine's clock; the setting on the configured zone


def running(state_dir: Path, schedule: str) -> Found | None:
    """The schedule running on this vault, if one is, named as the door says the command, `schedule`."""
    if not is_held(state_dir, SCHEDULE_LOCK):
        return None
    try:
        cron = json.loads((state_dir / SCHEDULE_FILE).read_text(encoding="utf-8")).get("cron")
    except (OSError, ValueError, AttributeError):  # started, its file not written yet (or unreadable)
        cron = None
    return Found(f"{schedule} running", cron if isinstance(cron, str) else None, local_time=False)


def installed(vault: Path, home: Path, crontab: str | None) -> list[Found]:
    """The crontab lines (`crontab` is `crontab -l`'s output), systemd timers and launchd agents for `vault`."""
    found = [Found(f"crontab line {line.strip()!r}", cron, local_time=True)
             for line, cron in _crontab_jobs(crontab or "", vault, home)]
    found += _systemd_timers(vault, home)
    found += _launchd_agents(vault, home)
    return found


def read_crontab() -> str | None:
    """`crontab -l`, or None where there is no crontab (or no `crontab` command)."""
    try:
        done = subprocess.run(["crontab", "-l"], capture_output=True, text=True, timeout=CRONTAB_SECONDS,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def _runs_refresh_on(words: list[str], vault: Path, home: Path) -> bool:
    """Whether a command line runs `hylo-memory refresh` on `vault` (no --vault: the configured one, taken as it)."""
    if not any(Path(w).name == "hylo-memory" for w in words) or "refresh" not in words:
        return False
    for n, word in enumerate(words):
        given = word.removeprefix("--vault=") if word.startswith("--vault=") else (
            words[n + 1] if word == "--vault" and n + 1 < len(words) else None)
        if given is not None:
            return _same_folder(given, vault, home)
    return True


def _same_folder(given: str, vault: Path, home: Path) -> bool:
    text = given.replace("%h", str(home)).replace("${HOME}", str(home)).replace("$HOME", str(home))
    path = Path(str(home) + text[1:] if text.startswith("~") else text)
    try:
        return path.resolve() == vault.resolve()
    except OSError:
        return False


def _crontab_jobs(text: str, vault: Path, home: Path) -> list[tuple[str, str | None]]:
    jobs = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or re.match(r"^\w+=", stripped):
            continue  # a comment, or a variable (MAILTO=, PATH=)
        fields = stripped.split(None, 1 if stripped.startswith("@") else 5)
        expr = _NICKNAMES.get(fields[0]) if stripped.startswith("@") else " ".join(fields[:5])
        command = fields[-1]
        try:
            words = shlex.split(command.split(">")[0])
        except ValueError:
            continue
        if len(fields) >= 2 and _runs_refresh_on(words, vault, home):
            jobs.append((stripped, expr))  # "@reboot": scheduled, with no time to name
    return jobs


def _systemd_timers(vault: Path, home: Path) -> list[Found]:
    folder = home / ".config" / "systemd" / "user"
    found = []
    for service in sorted(folder.glob("*.service")) if folder.is_dir() else []:
        starts = _ini_values(service, "ExecStart")
        if not any(_runs_refresh_on(shlex.split(s.lstrip("-@+!")), vault, home) for s in starts):
            continue
        for timer in sorted(folder.glob("*.timer")):
            units = _ini_values(timer, "Unit") or [f"{timer.stem}.service"]
            if service.name in units:
                calendar = next(iter(_ini_values(timer, "OnCalendar")), "")
                found.append(Found(f"systemd timer {timer} (OnCalendar={calendar})", _daily_cron(calendar),
                                   local_time=True))
    return found


def _ini_values(path: Path, key: str) -> list[str]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    return [line.split("=", 1)[1].strip() for line in lines if line.strip().startswith(f"{key}=")]


def _daily_cron(calendar: str) -> str | None:
    if calendar.strip() == "daily":
        return "0 0 * * *"
    match = _DAILY.match(calendar.strip())
    return f"{int(match['m'])} {int(match['h'])} * * *" if match else None


def _launchd_agents(vault: Path, home: Path) -> list[Found]:
    folder = home / "Library" / "LaunchAgents"
    found = []
    for path in sorted(folder.glob("*.plist")) if folder.is_dir() else []:
        try:
            agent = plistlib.loads(path.read_bytes())
        except (OSError, ValueError, plistlib.InvalidFileException):
            continue
        words = agent.get("ProgramArguments") if isinstance(agent, dict) else None
        if not isinstance(words, list) or not _runs_refresh_on([str(w) for w in words], vault, home):
            continue
        found.append(Found(f"launchd agent {path}", _interval_cron(agent.get("StartCalendarInterval")),
                           local_time=True))
    return found


def _interval_cron(interval: Any) -> str | None:
    """launchd's StartCalendarInterval (a dict, or the first of a list) as a cron expression."""
    if isinstance(interval, list):
        interval = interval[0] if interval else None
    if not isinstance(interval, dict):
        return None
    keys = ("Minute", "Hour", "Day", "Month", "Weekday")
    return " ".join(str(interval[k]) if isinstance(interval.get(k), int) else "*" for k in keys)


def home() -> Path:
    return Path(os.path.expanduser("~"))


def state_dir(memory_folder: Path) -> Path:
    return memory_folder / STATE_DIR
