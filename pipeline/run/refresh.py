"""One refresh run, start to finish (docs/spec.md §4)."""

from __future__ import annotations

import datetime as dt
import difflib
import logging
import time
from collections.abc import Collection
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from hylo_memory.decay import Dimension, Evidence, FileUpdate, MemoryFile, plan_updates, render
from hylo_memory.decay.files.store import MemoryStore, atomic_write
from hylo_memory.decay.soft_cap import over_cap
from hylo_memory.decay.stated import contradicting
from hylo_memory.domain.sources import Source
from hylo_memory.extractors.base import Extraction, Extractor
from hylo_memory.extractors.llm.costs import cost_of
from hylo_memory.pipeline import clock
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.naming import Naming
from hylo_memory.pipeline.run.collect import Plan, Reread, Selection, plan
from hylo_memory.pipeline.run.extraction import Extracted, extract_all
from hylo_memory.pipeline.run.hints import layout_hints, old_vault_hint
from hylo_memory.pipeline.run.options import RunOptions
from hylo_memory.pipeline.run.progress import Silent
from hylo_memory.pipeline.run.summary import (
    Deleted,
    RunSummary,
    SourceCounts,
    candidate_counts,
    file_reports,
    others_words,
    total_counts,
    trust_lists,
)
from hylo_memory.pipeline.state.candidates import hold_back, sighting_hashes
from hylo_memory.pipeline.state.changes import Actors, Origin, change_of
from hylo_memory.pipeline.state.failing import Failed, Failing
from hylo_memory.pipeline.state.journal import RUNS_DIR, Journal, RunEnd, commit_planned
from hylo_memory.pipeline.state.leases import Lease, Leases
from hylo_memory.pipeline.state.ledger import STATE_DIR, Ledger
from hylo_memory.pipeline.state.me_file import read_me
from hylo_memory.pipeline.state.opened import Opened
from hylo_memory.pipeline.state.trust import known, tombstones
from hylo_memory.pipeline.state.writing import running, writing

LOG = logging.getLogger(__name__)


def refresh(memory: Opened, extractor: Extractor, options: RunOptions) -> tuple[RunSummary, list[FileUpdate]]:
    """Collect, extract, apply the rules, write, record; return the summary and the updates."""
    vault, store, config = memory.vault, memory.store, memory.config
    if options.dry_run:
        # A dry run writes nothing at all, not even a lock or the ledger: it works on the ledger's copy.
        return _run(_Setting(vault, store, memory.copy, config, extractor, options, memory.naming))
    with running(memory) as ledger:
        return _run(_Setting(vault, store, ledger, config, extractor, options, memory.naming))


@dataclass(frozen=True)
class _Setting:
    """What one run works with, from start to finish."""

    vault: Path
    store: MemoryStore
    ledger: Ledger
    config: Config
    extractor: Extractor
    options: RunOptions
    naming: Naming  # the words of the door that opened the memory, for the hints


@dataclass(frozen=True)
class _Read:
    """What a run read and extracted, before it plans its writes."""

    run_id: int
    lease: Lease | None
    planned: Plan
    hashes: dict[str, str]  # path → content hash of each source read
    kept: dict[str, list[Evidence]]  # an interrupted run's evidence, used again
    outcome: Extracted
    extracted: list[Source]  # the sources extracted whole
    failing: Failing
    hints: list[str]  # the old vault's, and the person's own file's problem
    stated: list[str]  # what the person's own file states (§2.1)


def _run(setting: _Setting) -> tuple[RunSummary, list[FileUpdate]]:
    read = _read(setting)
    dry_run = setting.options.dry_run
    # Read again under the lock: a `remember` (or an `apply` a crash interrupted, which
    # `writing` finishes first) may have written while we extracted; a person's save while
    # it commits has it planned again on their text.
    with nullcontext() if dry_run else writing(setting.store, setting.config.lock_timeout, run_lock_held=True):
        summary, updates = commit_planned(setting.store, setting.ledger, lambda: _plan_writes(setting, read))
    if not dry_run:
        keep_summary(setting.store, read.run_id, summary)
    return summary, updates


def _read(setting: _Setting) -> _Read:
    """Plan the run, then extract its sources (docs/spec.md §4.3–4.5)."""
    vault, ledger, config, options = setting.vault, setting.ledger, setting.config, setting.options
    today, dry_run, lease = options.today, options.dry_run, options.only
    if lease is not None and not dry_run:  # asked again now the run lock is held: one answer a lease, in time
        lease = Leases(ledger).usable(lease.token, time.time())
    files = setting.store.read_all()  # a hand-broken file stops the run here, before any work
    _say_if_back_fill(ledger, today, config)
    progress = options.progress or Silent()
    progress.reading()
    failing = Failing(ledger)
    planned = _plan(setting, files, failing, lease)
    window, collected = planned.window, planned.collected
    run_id = ledger.start_run(today, window.mode, window.start, window.days)
    if not dry_run:  # before any evidence is applied: a crash later still leaves them to be opened
        ledger.record_future((f.path, f.date) for f in collected.future)
    hashes = {s.path: s.content_hash for s in collected.sources}
    # An interrupted run's batches, already paid for; a lease's answer is in hand, and is neither kept nor
    # replaced by what another run kept.
    kept = {} if lease else ledger.kept_evidence(hashes)
    progress.extracting(len(collected.sources) - len(kept))

    def keep(paths: list[str], evidence: list[Evidence]) -> None:
        ledger.keep_evidence({p: hashes[p] for p in paths}, evidence)
        progress.extracted(len(paths))

    earlier_pool = ledger.pool(since=today - dt.timedelta(days=config.pool_days))
    outcome = extract_all(setting.extractor, collected.sources, planned.profile, files, earlier_pool,
                          config.max_evidence_per_source, kept, None if lease else keep)
    extraction = outcome.extraction
    extracted = [s for s in collected.sources if s.path not in extraction.failed]
    if not dry_run:  # counted before the summary, which names what is stuck now
        _note_failures(failing, collected.sources, extraction, kept, today, config)
    # A window holding no note, in a vault that has some: the newest one's date and how to read up to it. After
    # this run, complete, the next is not a first run.
    empty = collected.empty() and lease is None
    old_vault = old_vault_hint(vault, config, ledger, window, setting.naming, first=None if dry_run else False) \
        if empty else None
    me = read_me(vault / config.person_memory_dir, config.me_max_bytes)  # the person's own file holds (§2.1)
    return _Read(run_id=run_id, lease=lease, planned=planned, hashes=hashes, kept=kept, outcome=outcome,
                 extracted=extracted, failing=failing, stated=me.statements,
                 hints=([old_vault] if old_vault else []) + ([me.problem] if me.problem else []))


def _plan(setting: _Setting, files: dict[Dimension, MemoryFile | None], failing: Failing,
          lease: Lease | None) -> Plan:
    """The run's window, profile and sources: a lease's alone, or the window's within the cap."""
    config, options = setting.config, setting.options
    reach = failing.retry() if options.retry_stuck else None  # a dry run's ledger is a copy: nothing is changed
    if lease is not None:
        reach = min(reach or lease.window_start, lease.window_start)
    reread = Reread(extractor=setting.extractor.name, since=options.since) if options.reextract else None
    selection = Selection(cap=None if lease else config.per_run_cap, reread=reread, reach=reach,
                          only=lease.sources if lease else None)
    return plan(setting.vault, config, setting.ledger, files, options.today, options.intro, selection)


def _plan_writes(setting: _Setting, read: _Read) -> tuple[Journal | None, tuple[RunSummary, list[FileUpdate]]]:
    """The updates the evidence makes to the memory as it is now, the run's summary, and the journal that
    writes them (none for a dry run)."""
    store, ledger, config, extractor = setting.store, setting.ledger, setting.config, setting.extractor
    today, lease = setting.options.today, read.lease
    files = store.read_all()
    stones = tombstones(ledger)
    # A new fact seen fewer than `min_sightings` times waits as a candidate, not in its file (docs/spec.md §3.2).
    refused_by_me, evidence = contradicting(read.outcome.extraction.evidence, read.stated)  # refused, named (§2.1)
    gated, waiting, restore = hold_back(ledger, files, evidence, today, config, extractor.name, stones, read.hashes)
    updates = plan_updates(files, refused_by_me + gated.evidence, today, config.similarity_threshold,
                           forgotten=stones, known=known(ledger, read.hashes), stated=read.stated)
    summary = _summary(read.planned, extractor.name, read.outcome.extraction, read.extracted, updates,
                       setting.options.dry_run)
    summary.candidates = candidate_counts(gated, config.min_sightings)
    summary.soft_cap = over_cap({u.dimension: u.after for u in updates}, config.soft_cap)
    summary.resumed = len(read.kept)
    summary.stuck = read.failing.stuck()
    summary.hints = layout_hints(setting.vault, config, setting.naming) + read.hints
    summary.cost = cost_of(summary.usage, config.prices())
    if setting.options.dry_run:
        return None, (summary, updates)
    written = {u.dimension: render(u.after) for u in updates if u.write}
    window = read.planned.window
    detail = f"run {read.run_id}, {window.mode}" + (f", read by {extractor.name}" if lease else "")
    journal = Journal(
        files=written,
        sources=[(s.path, s.content_hash) for s in read.extracted],
        pool=read.outcome.pool,
        run=RunEnd(run_id=read.run_id, today=today, status=summary.status, waiting=summary.waiting,
                   counts=summary.counts, usage=summary.usage, extractor=extractor.name),
        # A run that wrote nothing is no change to take back: `history` lists what changed files.
        change=change_of("refresh", updates, today, detail, Origin(
            {**sighting_hashes(gated), **read.hashes}, read.outcome.synthesised,
            Actors(actor=extractor.name, sightings=gated.actors)), read.run_id, restore)
        if written else None,
        lease=lease.token if lease else None,
        candidates=waiting or None,
    )
    return journal, (summary, updates)


def keep_summary(store: MemoryStore, run_id: int, summary: RunSummary) -> None:
    """Each run's summary, kept in `.state/runs/` (docs/spec.md §4.8): `status` reads why a run was not ok."""
    atomic_write(store.folder / STATE_DIR / RUNS_DIR / f"{run_id:06d}.json", summary.model_dump_json(indent=2).encode())


def _note_failures(failing: Failing, sources: list[Source], extraction: Extraction, kept: Collection[str],
                   today: dt.date, config: Config) -> None:
    """Count this run's failed sources (docs/spec.md §4.5): those that fail `stuck_after` runs in a row are stuck."""
    by_path = {s.path: s for s in sources}
    failed = [Failed(path=p, hash=by_path[p].content_hash, date=by_path[p].date, why=why)
              for p, why in extraction.why_failed.items() if p in by_path]
    read = [s.path for s in sources if s.path not in extraction.failed]
    answered = any(p not in kept for p in read)  # the server answered this run: a failure is not its outage
    for stuck in failing.note_run(failed, read, answered, today, config.stuck_after):
        LOG.warning("%s set aside as stuck after %d failed runs: %s", stuck.path, stuck.runs, stuck.reason)


def _say_if_back_fill(ledger: Ledger, today: dt.date, config: Config) -> None:
    """One line when the run's date is before the last complete run's: allowed (a back-fill uses it), but
    an item it refreshes keeps its later `last`, and a mistyped --today should not pass unseen."""
    last = ledger.last_complete()
    if last is None or today >= last:
        return
    day = f"--today {today}" if today != clock.today(config.timezone) else f"today ({today})"
    LOG.warning("%s is before the last complete run (%s): a back-fill", day, last)


def _summary(
    planned: Plan,
    extractor: str,
    extraction: Extraction,
    extracted: list[Source],
    updates: list[FileUpdate],
    dry_run: bool,
) -> RunSummary:
    window, collected = planned.window, planned.collected
    reports = file_reports(updates)
    failed = len(collected.sources) - len(extracted)
    if failed and not extracted:
        status = "failed"
    elif failed:
        status = "partial"
    else:
        status = "ok"
    return RunSummary(
        mode=window.mode,
        window_days=window.days,
        window_start=window.start,
        today=window.today,
        extractor=extractor,
        sources=SourceCounts.of(extracted),
        changed_files=[r.file for r in reports if r.written],
        counts=total_counts(reports),
        deleted=[Deleted(file=r.file, text=t) for r in reports for t in r.changes.deleted],
        **trust_lists(reports),
        reextracted=collected.reextracted,
        skipped=collected.skipped,
        undated=collected.undated,
        plain_text=collected.plain_text,
        future=collected.future,
        others_words=others_words(extracted),
        status=status,
        dry_run=dry_run,
        already_extracted=collected.already_extracted,
        waiting=collected.waiting + failed,
        failures=extraction.failures,
        dropped_evidence=extraction.dropped_count,
        dropped=extraction.dropped,
        dropped_entries=extraction.listed,
        unlinked=extraction.unlinked,
        usage=extraction.usage,
        files=reports,
    )


def diff(updates: list[FileUpdate], store: MemoryStore) -> str:
    """A unified diff per memory file that would change (for `--dry-run`)."""
    out: list[str] = []
    for u in updates:
        if not u.write:
            continue
        path = store.path(u.dimension)
        before = path.read_text(encoding="utf-8").splitlines(keepends=True) if u.before else []
        name = str(path)
        out += difflib.unified_diff(before, render(u.after).splitlines(keepends=True),
                                    fromfile=name if u.before else "/dev/null", tofile=name)
    return "".join(out)
