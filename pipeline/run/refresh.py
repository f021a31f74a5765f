"""One refresh run, start to finish (docs/spec.md §4)."""

from __future__ import annotations

import datetime as dt
import difflib
import logging
import time
from collections.abc import Collection
from contextlib import nullcontext
from pathlib import Path

from hylo_memory.decay import Evidence, FileUpdate, plan_updates, render
from hylo_memory.decay.soft_cap import over_cap
from hylo_memory.decay.store import MemoryStore, atomic_write
from hylo_memory.extractors.base import Extraction, Extractor, Source
from hylo_memory.extractors.costs import cost_of
from hylo_memory.pipeline import clock
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.run.collect import Collected, Reread, plan
from hylo_memory.pipeline.run.extraction import extract_all
from hylo_memory.pipeline.run.hints import layout_hints, old_vault_hint
from hylo_memory.pipeline.run.progress import RunProgress, Silent
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
from hylo_memory.pipeline.run.window import Window
from hylo_memory.pipeline.state.candidates import hold_back, sighting_hashes
from hylo_memory.pipeline.state.changes import Actors, change_of
from hylo_memory.pipeline.state.failing import Failed, Failing
from hylo_memory.pipeline.state.journal import RUNS_DIR, Journal, RunEnd, commit_planned
from hylo_memory.pipeline.state.leases import Lease, Leases
from hylo_memory.pipeline.state.ledger import STATE_DIR, Ledger
from hylo_memory.pipeline.state.me_file import read_me
from hylo_memory.pipeline.state.trust import known, tombstones
from hylo_memory.pipeline.state.writing import open_store, running, writing

LOG = logging.getLogger(__name__)


def refresh(
    vault: Path,
    config: Config,
    extractor: Extractor,
    today: dt.date,
    dry_run: bool = False,
    intro: str | None = None,
    progress: RunProgress | None = None,
    reextract: bool = False,
    since: dt.date | None = None,
    retry_stuck: bool = False,
    only: Lease | None = None,
) -> tuple[RunSummary, list[FileUpdate]]:
    """Collect, extract, apply the rules, write, record; return the summary and the updates.

    `reextract` reads again the sources in the window (or since `since`) another extractor read;
    `retry_stuck` tries the stuck sources again; `only`: an assistant's lease, whose sources alone are
    extracted (the others in the window wait) and which is closed in the same commit.
    """
    progress = progress or Silent()
    reread = Reread(extractor=extractor.name, since=since) if reextract else None
    store = open_store(vault, config)
    if dry_run:
        # A dry run writes nothing at all, not even a lock or the ledger.
        with Ledger.for_memory_dir(store.folder, readonly=True) as ledger:
            return _run(vault, store, ledger, config, extractor, today, intro, progress, reread, dry_run=True,
                        retry_stuck=retry_stuck, lease=only)
    with running(store, config.lock_timeout) as ledger:
        return _run(vault, store, ledger, config, extractor, today, intro, progress, reread, dry_run=False,
                    retry_stuck=retry_stuck, lease=only)


def _run(
    vault: Path,
    store: MemoryStore,
    ledger: Ledger,
    config: Config,
    extractor: Extractor,
    today: dt.date,
    intro: str | None,
    progress: RunProgress,
    reread: Reread | None,
    dry_run: bool,
    retry_stuck: bool = False,
    lease: Lease | None = None,
) -> tuple[RunSummary, list[FileUpdate]]:
    if lease is not None and not dry_run:  # asked again now the run lock is held: one answer a lease, in time
        lease = Leases(ledger).usable(lease.token, time.time())
    files = store.read_all()  # a hand-broken file stops the run here, before any work
    _say_if_back_fill(ledger, today, config)
    progress.reading()
    failing = Failing(ledger)
    reach = failing.retry() if retry_stuck else None  # a dry run's ledger is a copy: nothing is changed
    if lease is not None:
        reach = min(reach or lease.window_start, lease.window_start)
    planned = plan(vault, config, ledger, files, today, intro, None if lease else config.per_run_cap, reread, reach,
                   only=lease.sources if lease else None)
    window, profile, collected = planned.window, planned.profile, planned.collected
    run_id = ledger.start_run(today, window.mode, window.start, window.days)
    if not dry_run:  # before any evidence is applied: a crash later still leaves them to be opened
        ledger.record_future((f.path, f.date) for f in collected.future)
    earlier_pool = ledger.pool(since=today - dt.timedelta(days=config.pool_days))
    hashes = {s.path: s.content_hash for s in collected.sources}
    # An interrupted run's batches, already paid for; a lease's answer is in hand, and is neither kept nor
    # replaced by what another run kept.
    kept = {} if lease else ledger.kept_evidence(hashes)
    progress.extracting(len(collected.sources) - len(kept))

    def keep(paths: list[str], evidence: list[Evidence]) -> None:
        ledger.keep_evidence({p: hashes[p] for p in paths}, evidence)
        progress.extracted(len(paths))

    outcome = extract_all(extractor, collected.sources, profile, files, earlier_pool,
                          config.max_evidence_per_source, kept, None if lease else keep)
    extraction = outcome.extraction
    extracted = [s for s in collected.sources if s.path not in extraction.failed]
    if not dry_run:  # counted before the summary, which names what is stuck now
        _note_failures(failing, collected.sources, extraction, kept, today, config)
    # A window holding no note, in a vault that has some: the newest one's date and how to read up to it. After
    # this run, complete, the next is not a first run.
    empty = collected.empty() and lease is None
    old_vault = old_vault_hint(vault, config, ledger, window, first=None if dry_run else False) if empty else None

    me = read_me(vault / config.person_memory_dir, config.me_max_bytes)  # the person's own file holds (§2.1)

    def plan_writes() -> tuple[Journal | None, tuple[RunSummary, list[FileUpdate]]]:
        files = store.read_all()
        stones = tombstones(ledger)
        # A new fact seen fewer than `min_sightings` times waits as a candidate, not in its file (docs/spec.md §3.2).
        gated, waiting, restore = hold_back(ledger, files, extraction.evidence, today, config, extractor.name, stones,
                                            hashes)
        updates = plan_updates(files, gated.evidence, today, config.similarity_threshold,
                               forgotten=stones, known=known(ledger, hashes), stated=me.statements)
        summary = _summary(window, extractor.name, collected, extraction, extracted, updates, dry_run)
        summary.candidates = candidate_counts(gated, config.min_sightings)
        summary.soft_cap = over_cap({u.dimension: u.after for u in updates}, config.soft_cap)
        summary.resumed = len(kept)
        summary.stuck = failing.stuck()
        summary.hints = layout_hints(vault, config) + ([old_vault] if old_vault else []) \
            + ([me.problem] if me.problem else [])
        summary.cost = cost_of(summary.usage, config.prices())
        if dry_run:
            return None, (summary, updates)
        written = {u.dimension: render(u.after) for u in updates if u.write}
        detail = f"run {run_id}, {window.mode}" + (f", read by {extractor.name}" if lease else "")
        journal = Journal(
            files=written,
            sources=[(s.path, s.content_hash) for s in extracted],
            pool=outcome.pool,
            run=RunEnd(run_id=run_id, today=today, status=summary.status, waiting=summary.waiting,
                       counts=summary.counts, usage=summary.usage, extractor=extractor.name),
            # A run that wrote nothing is no change to take back: `history` lists what changed files.
            change=change_of("refresh", updates, today, detail, {**sighting_hashes(gated), **hashes}, run_id,
                             outcome.synthesised, Actors(actor=extractor.name, sightings=gated.actors), restore)
            if written else None,
            lease=lease.token if lease else None,
            candidates=waiting or None,
        )
        return journal, (summary, updates)

    # Read again under the lock: a `remember` (or an `apply` a crash interrupted, which
    # `writing` finishes first) may have written while we extracted; a person's save while
    # it commits has it planned again on their text.
    with nullcontext() if dry_run else writing(store, config.lock_timeout, run_lock_held=True):
        summary, updates = commit_planned(store, ledger, plan_writes)
    if not dry_run:
        keep_summary(store, run_id, summary)
    return summary, updates


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
    window: Window,
    extractor: str,
    collected: Collected,
    extraction: Extraction,
    extracted: list[Source],
    updates: list[FileUpdate],
    dry_run: bool,
) -> RunSummary:
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
