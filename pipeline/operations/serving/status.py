"""`hylo-memory status`: recent runs, the next scheduled run, memory files, sources waiting.

Reads only: the ledger through a read-only snapshot, locks probed without taking them.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING

from apscheduler.triggers.cron import CronTrigger
from pydantic import BaseModel

from hylo_memory.decay import Dimension, MemoryFile, apply_rules
from hylo_memory.decay.files.store import MemoryStore
from hylo_memory.decay.soft_cap import OverCap, over_cap
from hylo_memory.domain.usage import Usage
from hylo_memory.errors import HyloMemoryError, LedgerError
from hylo_memory.extractors.choice import extractor_name
from hylo_memory.extractors.llm.costs import Cost, cost_of, total
from hylo_memory.pipeline import clock
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.naming import Naming, Step
from hylo_memory.pipeline.operations.schedule import next_fire_time, parse_cron, previous_fire_time, should_catch_up
from hylo_memory.pipeline.operations.schedule_found import Found, home, installed, read_crontab
from hylo_memory.pipeline.operations.schedule_found import running as running_schedule
from hylo_memory.pipeline.operations.serving.status_runs import LastRun, last_run
from hylo_memory.pipeline.run.collect import plan
from hylo_memory.pipeline.run.hints import old_vault_hint
from hylo_memory.pipeline.run.summary import BatchReport, SourceCounts
from hylo_memory.pipeline.state.journal import journal_path
from hylo_memory.pipeline.state.leases import Leases
from hylo_memory.pipeline.state.ledger import STATE_DIR, Counts, Ledger, RunRecord
from hylo_memory.pipeline.state.locking import RUN_LOCK, is_held
from hylo_memory.pipeline.state.me_file import read_me
from hylo_memory.templates import render

if TYPE_CHECKING:
    from hylo_memory.pipeline.state.opened import Opened

RECENT_RUNS = 5


class RunLine(BaseModel):
    id: int
    started_at: dt.datetime
    ended_at: dt.datetime | None
    today: dt.date
    mode: str
    window_days: int
    status: str  # ok / partial / failed / running / interrupted (killed before it finished)
    waiting: int
    counts: Counts
    usage: Usage = Usage()  # what its model requests spent
    cost: Cost | None = None  # with prices set


class Costs(BaseModel):
    """`status --costs`: what the runs of the last `days` days spent (docs/spec.md §4.8)."""

    days: int
    runs: int
    usage: Usage
    cost: Cost | None = None
    priced: bool = False  # prices are set (no cost: no request to price)


class FileLine(BaseModel):
    file: str
    exists: bool
    active: int = 0
    fading: int = 0
    pinned: int = 0
    decay_window: int | None = None
    last_updated: dt.date | None = None
    error: str | None = None  # a hand-broken file: refused by every run until fixed
    will_fade: list[str] = []  # what the next run moves to Fading if nothing new is seen
    will_delete: list[str] = []  # and what it deletes (rule E)


class Waiting(SourceCounts):
    """In-window sources the next refresh would extract (none of them extracted yet)."""

    mode: str
    window_start: dt.date
    window_days: int
    total: int = 0
    skipped: int = 0  # unreadable notes, named in the next run's summary


class Schedule(BaseModel):
    source: str = "the `schedule` setting"  # where it is set: the setting, a crontab line, a timer, `schedule`
    cron: str | None  # None: set up with no time we can read (a crontab "@reboot", a systemd calendar)
    timezone: str
    next_run: dt.datetime | None = None
    previous_run: dt.datetime | None = None
    overdue: bool = False  # no successful run since `previous_run`: `schedule` would run at once
    error: str | None = None


class Status(BaseModel):
    vault: str
    memory_dir: str
    today: dt.date
    refresh_running: bool
    interrupted_writes: bool  # a journal a killed command left; the next command finishes it
    last_success: dt.datetime | None
    runs: list[RunLine]
    last_run: LastRun | None = None  # why the newest finished run was not ok, and what it set aside
    schedule: Schedule | None  # the first of `schedules`: None when nothing schedules this vault
    schedules: list[Schedule] = []
    files: list[FileLine]
    waiting: Waiting | None
    extractor: str = ""  # the configured one
    read_by_others: int | None = None  # sources another extractor read: `refresh --reextract` reads them again
    read_by_others_since: dt.date | None = None  # `--since` this date reaches them all
    problems: list[str] = []
    costs: Costs | None = None  # asked for with `--costs`
    batches: list[BatchReport] = []  # the provider's batches not applied yet, as the ledger has them
    hints: list[str] = []  # no note in the next run's window, but older ones: the newest's date, how to read it
    soft_cap: list[OverCap] = []  # files past the soft cap (docs/spec.md §2.2): said, nothing deleted

    def to_text(self, naming: Naming) -> str:
        """The status as the person reads it; the steps it advises in the words of the door's `naming`."""
        return render("status.txt.j2", status=self, now=dt.datetime.now(dt.UTC), say=naming.say,
                      command=naming.command, Step=Step)


def gather(memory: Opened, naming: Naming, today: dt.date | None = None, now: dt.datetime | None = None,
           costs: bool = False) -> Status:
    """Everything `status` shows, read without writing a byte (the ledger through the memory's read-only copy);
    with `costs`, what the last 30 days spent; a running schedule named in the words of the door's `naming`."""
    vault, config, store = memory.vault, memory.config, memory.store
    now = now or clock.now(config.timezone)
    state = store.folder / STATE_DIR
    schedules = [_schedule(found, config, now) for found in found_schedules(vault, config, state, naming)]
    upcoming = sorted(s.next_run for s, _ in schedules if s.next_run)
    # What the next run will fade and delete: a run on `--today` when given, else at the next scheduled time.
    ahead = today or (upcoming[0].date() if upcoming else now.date())
    today = today or now.date()
    running = is_held(state, RUN_LOCK)
    problems: list[str] = []
    parsed: dict[Dimension, MemoryFile | None] = {}
    files = [_file_line(store.path(d), d, store, parsed, ahead, config.similarity_threshold) for d in Dimension]
    if (me := read_me(store.folder, config.me_max_bytes)).problem:  # the person's own file, left out (§2.1)
        problems.append(me.problem)
    try:
        ledger = memory.copy
        records = ledger.recent_runs(RECENT_RUNS)
        runs = _runs(records, running, config)
        last = ledger.last_success_at()
        waiting, hint = _waiting(vault, config, ledger, parsed, today, naming)
        others: int | None = ledger.read_by_others(extractor_name(config.llm()))
        others_since = ledger.read_by_others_since(extractor_name(config.llm())) if others else None
        spent = _costs(ledger, today, config) if costs else None
        in_flight = [BatchReport.in_flight(lease) for lease in Leases(ledger).batches()]
    except LedgerError as exc:
        problems.append(f"the ledger cannot be read now ({exc}); a run may be writing it")
        runs, last, waiting, others, others_since, records, spent, hint = [], None, None, None, None, [], None, None
        in_flight = []
    for schedule, trigger in schedules:
        if trigger is not None:
            schedule.overdue = should_catch_up(trigger, last, now)  # what `schedule` would do if started now
    listed = [s for s, _ in schedules]
    return Status(
        vault=str(vault), memory_dir=str(store.folder), today=today, refresh_running=running,
        interrupted_writes=journal_path(store).exists(), last_success=_local(last, config),
        runs=runs, last_run=last_run(state, records, config), schedule=listed[0] if listed else None,
        schedules=listed, files=files, waiting=waiting, problems=problems,
        extractor=extractor_name(config.llm()), read_by_others=others, read_by_others_since=others_since,
        costs=spent, batches=in_flight, hints=[hint] if hint else [], soft_cap=over_cap(parsed, config.soft_cap),
    )


def _costs(ledger: Ledger, today: dt.date, config: Config) -> Costs:
    since = today - dt.timedelta(days=COST_DAYS - 1)
    # Each run's requests are all batched or all direct: the two kinds are priced apart, then added.
    parts = [ledger.usage_since(since, batched) for batched in (False, True)]
    usage = Usage()
    for _, part in parts:
        usage.add(part)
    cost = total(cost_of(part, config.prices()) for _, part in parts)
    return Costs(days=COST_DAYS, runs=sum(runs for runs, _ in parts), usage=usage, cost=cost,
                 priced=config.prices() is not None)


def _file_line(path: Path, dimension: Dimension, store: MemoryStore, parsed: dict[Dimension, MemoryFile | None],
               next_run: dt.date, threshold: float) -> FileLine:
    try:
        memory = store.read(dimension)
    except HyloMemoryError as exc:
        parsed[dimension] = None
        return FileLine(file=path.name, exists=True, error=str(exc))
    parsed[dimension] = memory
    if memory is None:
        return FileLine(file=path.name, exists=False)
    _, ahead = apply_rules(memory, [], next_run, threshold)  # rules D and E as the next run would apply them
    return FileLine(
        file=path.name, exists=True, active=len(memory.active), fading=len(memory.fading),
        pinned=sum(i.pinned for i in memory.items), decay_window=memory.decay_window,
        last_updated=memory.last_updated, will_fade=ahead.faded, will_delete=ahead.deleted,
    )


COST_DAYS = 30


def _runs(records: list[RunRecord], running: bool, config: Config) -> list[RunLine]:
    lines = []
    for n, r in enumerate(records):
        status = r.status
        # Only the newest run can still be going, and only while someone holds the run lock.
        if status == "running" and (n > 0 or not running):
            status = "interrupted"
        lines.append(RunLine(
            id=r.id, started_at=_local(dt.datetime.fromisoformat(r.started_at), config),
            ended_at=_local(dt.datetime.fromisoformat(r.ended_at), config) if r.ended_at else None,
            today=r.today, mode=r.mode, window_days=r.window_days, status=status, waiting=r.waiting,
            counts=Counts(**{k: v for k, v in r.counts.items() if k in Counts.model_fields}),
            usage=(usage := Usage(requests=r.requests, prompt_tokens=r.prompt_tokens,
                                  completion_tokens=r.completion_tokens, cached_tokens=r.cached_tokens,
                                  batched=r.batched)),
            cost=cost_of(usage, config.prices()),
        ))
    return lines


def _waiting(vault: Path, config: Config, ledger: Ledger, parsed: dict[Dimension, MemoryFile | None],
             today: dt.date, naming: Naming) -> tuple[Waiting, str | None]:
    """What the next refresh would read, with the same window and "already extracted?" test; and, when its window
    holds no note but the vault has older ones, the hint that says how to read them."""
    planned = plan(vault, config, ledger, parsed, today)
    window, collected = planned.window, planned.collected
    hint = old_vault_hint(vault, config, ledger, window, naming) if collected.empty() else None
    return Waiting(
        **SourceCounts.of(collected.sources).model_dump(), mode=window.mode, window_start=window.start,
        window_days=window.days, total=len(collected.sources), skipped=len(collected.skipped),
    ), hint


def found_schedules(vault: Path, config: Config, state: Path, naming: Naming) -> list[Found]:
    """What schedules this vault: a running `schedule` (as `naming` says it), an installed crontab line, timer or
    agent, the setting."""
    found = [f for f in [running_schedule(state, naming.say(Step.SCHEDULE))] if f is not None]
    found += installed(vault, home(), read_crontab())
    if "schedule" in config.model_fields_set:  # set in a file or HYLO_MEMORY_SCHEDULE, not the default alone
        found.append(Found("the `schedule` setting", config.schedule, local_time=False))
    return found


def _schedule(found: Found, config: Config, now: dt.datetime) -> tuple[Schedule, CronTrigger | None]:
    """A schedule's next and previous runs, and its trigger (None, and the error, when it has none)."""
    zone = None if found.local_time else config.timezone
    schedule = Schedule(source=found.source, cron=found.cron, timezone=zone or "local time")
    if found.cron is None:
        return schedule, None
    try:
        trigger = parse_cron(found.cron, zone)
    except HyloMemoryError as exc:
        schedule.error = str(exc)
        return schedule, None
    schedule.next_run = next_fire_time(trigger, now)
    schedule.previous_run = previous_fire_time(trigger, now)
    return schedule, trigger


def _local(when: dt.datetime | None, config: Config) -> dt.datetime | None:
    """A ledger time (UTC) in the configured zone, as the person reads their clock."""
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return when.astimezone(clock.zone(config.timezone))
