"""`hylo-memory schedule`: refresh on a cron schedule until SIGTERM or SIGINT.

The pure parts (the trigger, the next and previous fire times, whether to catch up at
start) take `now` and are tested with freezegun; `run_schedule` is the long-running loop.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import re
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from filelock import FileLock, Timeout

from hylo_memory.decay.files.store import atomic_write, writable
from hylo_memory.errors import ConfigError, HyloMemoryError
from hylo_memory.pipeline import clock
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.naming import Naming
from hylo_memory.pipeline.operations.after_write import after_write
from hylo_memory.pipeline.operations.opening import open_memory
from hylo_memory.pipeline.operations.schedule_found import SCHEDULE_FILE, SCHEDULE_LOCK
from hylo_memory.pipeline.run.summary import RunSummary
from hylo_memory.pipeline.state.ledger import STATE_DIR

if TYPE_CHECKING:
    from hylo_memory.pipeline.state.opened import Opened

LOG = logging.getLogger("hylo_memory.schedule")
WAKE_SECONDS = 60.0  # re-check the clock this often: timers do not count time spent suspended
_LONGEST_LOOKBACK = dt.timedelta(days=366 * 8)  # covers "0 0 29 2 *" (leap days)
_CRON_DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat", "sun"]  # cron numbers 0–7
_DAY_PART = re.compile(r"^(?P<range>\*|\d+(?:-\d+)?)(?:/(?P<step>\d+))?$")


def parse_cron(expr: str, timezone: str | None) -> CronTrigger:
    """A standard 5-field crontab expression as a trigger in the given time zone.
    One difference from cron remains: a restricted day of month and weekday must both match."""
    fields = expr.split()
    if len(fields) != 5:
        raise ConfigError(f"schedule {expr!r}: a cron expression has 5 fields (minute hour day month weekday), "
                          f"not {len(fields)}")
    try:
        fields[4] = _weekdays(fields[4])
        trigger = CronTrigger.from_crontab(" ".join(fields), timezone=clock.zone(timezone))
    except ValueError as exc:
        raise ConfigError(f"schedule {expr!r}: {exc}") from None
    if next_fire_time(trigger) is None:  # "0 3 31 2 *": a schedule that would wait forever
        raise ConfigError(f"schedule {expr!r} never fires (no such date)")
    return trigger


def _weekdays(field: str) -> str:
    # APScheduler 3 numbers weekdays from Monday = 0; cron from Sunday = 0 (7 too).
    # Numbers are spelled as names, which both read the same way.
    parts = []
    for part in field.lower().split(","):
        match = _DAY_PART.match(part)
        if match is None or (match["range"] == "*" and not match["step"]):
            parts.append(part)  # "*", names and anything odd: APScheduler judges them
            continue
        first, _, last = match["range"].partition("-")
        low, high = (0, 6) if first == "*" else (int(first), int(last or first))
        if match["step"] and not last and first != "*":
            high = 7  # "n/step" means from n to the end
        if not 0 <= low <= high <= 7:
            raise ValueError(f"weekday {part!r} is out of range (0–7, Sunday = 0 or 7)")
        days = range(low, high + 1, int(match["step"] or 1))
        parts += [_CRON_DAYS[d] for d in days]
    return ",".join(dict.fromkeys(parts))


def next_fire_time(trigger: CronTrigger, now: dt.datetime | None = None) -> dt.datetime | None:
    """The first scheduled time after `now` (default: the real now)."""
    now = now or clock.now()
    found: dt.datetime | None = trigger.get_next_fire_time(None, now + dt.timedelta(microseconds=1))
    return found


def previous_fire_time(trigger: CronTrigger, now: dt.datetime | None = None) -> dt.datetime | None:
    """The last scheduled time at or before `now`; None if there was none in eight years."""
    now = now or clock.now()
    lookback = dt.timedelta(minutes=1)
    while lookback <= _LONGEST_LOOKBACK:
        # APScheduler 3 only looks forward: step back until a fire time falls before now.
        found: dt.datetime | None = trigger.get_next_fire_time(None, now - lookback)
        if found is not None and found <= now:
            while True:
                later = trigger.get_next_fire_time(None, found + dt.timedelta(seconds=1))
                if later is None or later > now:
                    return found
                found = later
        lookback *= 2
    return None


def should_catch_up(trigger: CronTrigger, last_success: dt.datetime | None, now: dt.datetime | None = None) -> bool:
    """Run at once when no run succeeded since the most recent scheduled time (or ever)."""
    if last_success is None:
        return True
    previous = previous_fire_time(trigger, now)
    return previous is not None and last_success < previous


def last_success(memory: Opened) -> dt.datetime | None:
    """When the last run that did not fail ended, read without writing anything."""
    return memory.copy.last_success_at()


def run_line(summary: RunSummary) -> str:
    """The one log line a scheduled run leaves: status and counts."""
    s, c = summary.sources, summary.counts
    if summary.status == "submitted":  # nothing read yet: what the batch holds, for the next run to apply
        sent = "; ".join(f"batch {b.id or '(creation not confirmed)'}: {b.sources} note(s) in {b.requests} "
                         f"request(s)" for b in summary.batches if b.state == "submitted")
        return (f"refresh submitted: {summary.mode} run over {summary.window_days} days to {summary.today}; {sent}; "
                f"waiting {summary.waiting}")
    changed = ", ".join(summary.changed_files) or "none"
    return (f"refresh {summary.status}: {summary.mode} run over {summary.window_days} days to {summary.today}; "
            f"sources {s.shorts} shorts, {s.knowledge} knowledge, {s.extra} extra; "
            f"added {c.added}, refreshed {c.refreshed}, faded {c.faded}, deleted {c.deleted}, expired {c.expired}; "
            f"waiting {summary.waiting}; changed {changed}")


def run_schedule(
    vault: Path,
    config: Config,
    cron: str | None,
    naming: Naming,
    stream: TextIO = sys.stderr,
) -> int:
    """Refresh `vault` on the schedule until SIGTERM/SIGINT; 0 when stopped so. `naming`: the command line's words,
    for the hints of its runs."""
    expr = config.schedule if cron is None else cron  # an empty --cron is a mistake, not the default
    trigger = parse_cron(expr, config.timezone)
    _log_to(stream)
    runner = _Runner(vault, config, naming)
    now = clock.now(config.timezone)
    with open_memory(vault, config, naming) as memory:  # the schedule's own; each night's run opens its memory
        last, folder = last_success(memory), memory.folder
    catch_up = should_catch_up(trigger, last, now)

    scheduler = BackgroundScheduler(
        timezone=trigger.timezone,
        # A machine asleep through several fire times runs once when it wakes, however late.
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None},
    )
    first = {"next_run_time": now} if catch_up else {}
    scheduler.add_job(runner.run, trigger, id="refresh", name="scheduled refresh", **first)

    stop = threading.Event()
    previous_handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}

    def on_signal(signum: int, _frame: object) -> None:
        if stop.is_set():
            # Second signal: leave now. Safe at any moment: an unfinished run's
            # journal is replayed, or its sources extracted again, by the next one.
            LOG.info("stopped, abandoning the running refresh; the next run completes it")
            logging.shutdown()
            os._exit(0)
        stop.set()

    for sig in previous_handlers:
        signal.signal(sig, on_signal)
    try:
        with _announced(folder / STATE_DIR, expr, str(trigger.timezone)):
            _serve(scheduler, trigger, runner, stop, vault, expr, catch_up, now)
    finally:
        for sig, handler in previous_handlers.items():
            signal.signal(sig, handler)
    return 0


def _serve(scheduler: BackgroundScheduler, trigger: CronTrigger, runner: _Runner, stop: threading.Event,
           vault: Path, expr: str, catch_up: bool, now: dt.datetime) -> None:
    """Run the scheduler until `stop` is set, then let a running refresh finish."""
    scheduler.start()
    when = "now (catching up: no successful run since the last scheduled time)" if catch_up else \
        _fmt(next_fire_time(trigger, now))
    LOG.info("scheduling refreshes of %s at %r (%s); next run %s", vault, expr, trigger.timezone, when)
    while not stop.wait(WAKE_SECONDS):
        scheduler.wakeup()
    if runner.running.is_set():
        LOG.info("stopping after the running refresh finishes (signal again to abandon it safely)")
    scheduler.shutdown(wait=True)
    LOG.info("stopped")


@contextmanager
def _announced(state_dir: Path, expr: str, zone: str) -> Iterator[None]:
    """Hold the schedule lock while running, its expression beside it, so `status` names this schedule."""
    with writable(state_dir.parent):
        state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    lock = FileLock(str(state_dir / SCHEDULE_LOCK), mode=0o600, preserve_lock_file=True, fallback_to_soft=False)
    try:
        lock.acquire(timeout=0)
    except Timeout:  # a second schedule on one vault: each run still waits for the other's (the run lock)
        LOG.warning("another schedule is already running on this vault")
        yield
        return
    try:
        atomic_write(state_dir / SCHEDULE_FILE, json.dumps({"cron": expr, "timezone": zone}).encode())
        yield
    finally:
        lock.release()


class _Runner:
    """The scheduled job: one refresh, one log line, never an exception into the scheduler."""

    def __init__(self, vault: Path, config: Config, naming: Naming):
        self.vault = vault
        self.config = config
        self.naming = naming
        self.running = threading.Event()

    def run(self) -> None:
        self.running.set()
        try:
            if self._refresh():
                self._after_write()
        finally:
            self.running.clear()

    def _refresh(self) -> bool:
        try:
            today = clock.today(self.config.timezone)
            # The run loads with the first night, not with `status` (which reads the schedule from here).
            from hylo_memory.pipeline.operations.refresh import refresh_memory
            from hylo_memory.pipeline.run.options import RunOptions

            # The last `refresh --intro` is the run's; a batch run submits, and every run collects first.
            # On the scheduler's thread, for this night.
            with open_memory(self.vault, self.config, self.naming) as memory:
                summary, _ = refresh_memory(memory, RunOptions(today), batch=self.config.batch, readers=False)
            LOG.info(run_line(summary))
            from hylo_memory.pipeline.scopes import each_scope

            for name, scope in each_scope(self.config):  # then each scope's memory (docs/spec.md §1.1)
                with open_memory(self.vault, scope, self.naming) as memory:
                    done, _ = refresh_memory(memory, RunOptions(today), batch=self.config.batch)
                LOG.info("scope %s: %s", name, run_line(done))
            return True
        except HyloMemoryError as exc:
            LOG.error("refresh failed: %s", exc)
        except Exception as exc:  # noqa: BLE001 - the schedule outlives one bad night; the next run retries
            LOG.error("refresh failed: unexpected %s: %s", type(exc).__name__, exc)
        return False

    def _after_write(self) -> None:
        try:
            with open_memory(self.vault, self.config, self.naming) as memory:  # the morning's first reader is quick
                after_write(memory.store, self.config, None)
        except Exception as exc:  # noqa: BLE001 - a cache: the run it follows stands
            LOG.warning("the read memo was not kept: unexpected %s: %s", type(exc).__name__, exc)


def _log_to(stream: TextIO) -> None:
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(asctime)s hylo-memory: %(message)s", "%Y-%m-%dT%H:%M:%S%z"))
    for name, level in (("hylo_memory", logging.INFO), ("apscheduler", logging.WARNING)):
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.setLevel(level)
        logger.propagate = False


def _fmt(when: dt.datetime | None) -> str:
    return when.isoformat(timespec="minutes") if when else "never"
