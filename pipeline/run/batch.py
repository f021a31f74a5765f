"""Runs through a provider's batch endpoint (docs/spec.md §4.9): submitted one night, collected and applied the next.

A batch run builds the direct path's requests, records them in the ledger as a lease of kind
`batch` holding their sources (so no other run reads them), uploads them, and ends `submitted`.
The lease is recorded before the upload and tagged on the batch, so a run killed in between is
found again by the tag. Every later run first collects the finished batches, oldest first: their
answers are read as direct answers are, and applied as one run over exactly the batch's sources,
which closes the lease in the transaction that marks them read (a run killed before it collects
again). A batch past its window and a day is given up: cancelled if it can be, its sources wait.
"""

from __future__ import annotations

import datetime as dt
import logging
import time

from hylo_memory.domain.sources import Perspective
from hylo_memory.domain.usage import Usage
from hylo_memory.errors import InputError
from hylo_memory.extractors.base import Candidate
from hylo_memory.extractors.llm.agent import Answered
from hylo_memory.extractors.llm.batch_api import (
    WINDOW_SECONDS,
    Answers,
    BatchEndpoints,
    BatchGone,
    BatchRequest,
    BatchState,
    CreationUnknown,
    CreationUnreadable,
    answers,
    read_results,
    under_lease,
    within_ceiling,
)
from hylo_memory.extractors.llm.llm import LLMExtractor
from hylo_memory.extractors.llm.llm_errors import LLMError, RequestFailed
from hylo_memory.extractors.synthesis import cluster_units, pool_unit
from hylo_memory.pipeline.run.collect import Selection, plan
from hylo_memory.pipeline.run.options import RunOptions
from hylo_memory.pipeline.run.refresh import keep_summary, refresh
from hylo_memory.pipeline.run.summary import BatchReport, BatchStateName, RunSummary, SourceCounts
from hylo_memory.pipeline.state.leases import Lease, Leases, new_token
from hylo_memory.pipeline.state.ledger import STATE_DIR, Counts, Ledger
from hylo_memory.pipeline.state.locking import RUN_LOCK, hold
from hylo_memory.pipeline.state.opened import Opened
from hylo_memory.pipeline.state.writing import running

LOG = logging.getLogger(__name__)
GIVE_UP = WINDOW_SECONDS + 24 * 3600.0  # a batch older than its window and a day: its sources wait


def submit(memory: Opened, extractor: LLMExtractor, today: dt.date, intro: str | None,
           endpoints: BatchEndpoints) -> RunSummary | None:
    """Send this run's window as one batch and end `submitted`; None when there is nothing to send.
    Raises LLMError when the server takes no batch (the caller asks directly instead)."""
    vault, store, config = memory.vault, memory.store, memory.config
    with running(memory) as ledger:
        files = store.read_all()
        planned = plan(vault, config, ledger, files, today, intro, Selection(cap=config.per_run_cap))
        sources = planned.collected.sources
        personal = [s for s in sources if s.perspective is not Perspective.external]
        external = [s for s in sources if s.perspective in (Perspective.external, Perspective.mixed)]
        clusters = cluster_units([pool_unit(s) for s in external],
                                 ledger.pool(since=today - dt.timedelta(days=config.pool_days)))
        existing = [Candidate(dimension=d, text=i.text) for d, f in files.items() if f for i in f.items]
        built = extractor.batch_requests(personal, planned.profile, existing, clusters) if sources else []
        requests = within_ceiling(built, extractor.config.run_token_ceiling)
        if not requests:
            return None
        token = new_token()
        requests = under_lease(requests, token)
        # Past the token ceiling: those requests' sources are not held; they wait for the next run.
        cut = {p for r in built[len(requests):] for p in r.paths()}
        held = [s for s in sources if s.path not in cut]
        leases, now = Leases(ledger), time.time()
        lease = Lease(token=token, kind="batch", client="batch", created_at=now, expires_at=now + GIVE_UP,
                      window_start=planned.window.start, sources={s.path: s.content_hash for s in held},
                      request={"extractor": extractor.name, "requests": [r.model_dump(mode="json")
                                                                         for r in requests]})
        leases.add(lease)  # before the upload: a run killed after it is found again by the batch's tag
        try:
            state = endpoints.submit(requests, lease.token)
            leases.set_request(lease.token, {**lease.request, "batch_id": state.id})
        except CreationUnknown as exc:  # the batch may exist: the lease holds its notes until the next run knows
            LOG.warning("%s: the next run looks for the batch", exc.reason)
            state = BatchState(id="", status="creation not confirmed", created_at=now)
        except CreationUnreadable as exc:
            state = _orphaned(endpoints, leases, lease, exc)  # raises (asked directly) once no batch is left
        except LLMError:
            leases.drop(lease.token)
            raise
        window = planned.window
        run_id = ledger.start_run(today, window.mode, window.start, window.days)
        waiting = planned.collected.waiting + len(cut)
        ledger.finish_run(run_id, "submitted", waiting, Counts().model_dump(), Usage())
    summary = RunSummary(
        mode=window.mode, window_days=window.days, window_start=window.start, today=today, extractor=extractor.name,
        status="submitted", sources=SourceCounts.of([]), already_extracted=planned.collected.already_extracted,
        waiting=waiting, skipped=planned.collected.skipped, future=planned.collected.future,
        batches=[_report(lease, state.id, "submitted", state.status)])
    keep_summary(store, run_id, summary)
    return summary


def _orphaned(endpoints: BatchEndpoints, leases: Leases, lease: Lease, exc: CreationUnreadable) -> BatchState:
    """A creation answered in words no one can read: a batch may have been made all the same. It is looked for by
    its tag and cancelled, and the lease dropped, so the run asks directly without paying twice (as it does when
    none is found): raises the LLMError that says so. A batch that cannot be looked for, or cancelled, or that
    finished first, is kept: the lease holds its notes, and a later run adopts or collects it as any other."""
    try:
        found = endpoints.find(lease.token)
    except LLMError as failed:
        LOG.warning("%s, and %s: the next run looks for the batch", exc.reason, failed.reason)
        return BatchState(id="", status="creation not confirmed", created_at=lease.created_at)
    if found is None:
        leases.drop(lease.token)
        raise exc
    try:
        state = endpoints.cancel(found.id)
    except LLMError as failed:
        LOG.warning("%s, and %s: batch %s is kept", exc.reason, failed.reason, found.id)
        state = found
    if state is found or state.status == "completed":  # not cancelled, or answered already (and paid for)
        if state is not found:
            LOG.warning("%s; batch %s, made all the same, had finished: the next run applies it", exc.reason, found.id)
        leases.set_request(lease.token, {**lease.request, "batch_id": found.id})
        return state
    leases.drop(lease.token)
    raise CreationUnreadable(f"{exc.reason}; batch {found.id}, made all the same, was cancelled")


def collect(memory: Opened, today: dt.date, endpoints: BatchEndpoints) -> list[BatchReport]:
    """Apply every finished batch, oldest first; name those still in flight; give up those too old."""
    pending = Leases(memory.ledger).batches()
    reports = []
    for lease in pending:
        reports.append(_collect_one(memory, today, endpoints, lease))
    return reports


def _collect_one(memory: Opened, today: dt.date, endpoints: BatchEndpoints, lease: Lease) -> BatchReport:
    batch_id = str(lease.request.get("batch_id") or "")
    try:
        if not batch_id:
            return _unrecorded(memory, today, endpoints, lease)
        state = endpoints.retrieve(batch_id, lease.token)
        if not state.finished:  # a finished batch is applied whatever its age: it is paid for
            if time.time() >= lease.expires_at:
                return _give_up(memory, today, endpoints, lease, batch_id)
            return _report(lease, batch_id, "in progress", state.status)
        # Only the ids the batch's own request map holds: `L-…-r1` since they carry the lease, and a bare `r1` only
        # for a batch an earlier version sent, whose map holds it. Any other line is passed over, never applied.
        found = answers(endpoints.content(state.output_file_id), endpoints.content(state.error_file_id),
                        {r["custom_id"] for r in lease.request["requests"]})
    except BatchGone as exc:
        _drop(memory.ledger, lease, today, exc.reason)
        LOG.warning("%s: its %d note(s) wait for the next run", exc.reason, len(lease.sources))
        return _report(lease, batch_id, "given up", f"{exc.reason}: its notes wait")
    except LLMError as exc:
        if time.time() >= lease.expires_at:  # a batch no server will tell of: given up in the end
            return _give_up(memory, today, endpoints, lease, batch_id)
        LOG.warning("%s; asked again by the next run", exc.reason)
        return _report(lease, batch_id, "unreachable", exc.reason)
    return _apply(memory, today, endpoints, lease, batch_id, state, found)


def _apply(memory: Opened, today: dt.date, endpoints: BatchEndpoints, lease: Lease, batch_id: str,
           state: BatchState, found: Answers) -> BatchReport:
    requests = [BatchRequest.model_validate(r) for r in lease.request["requests"]]
    if found.unreadable:
        LOG.warning("batch %s: %d line(s) of its output answer none of its requests: passed over", batch_id,
                    found.unreadable)
    extraction = read_results(requests, found, state.status, endpoints.settings.max_evidence_per_source,
                              endpoints.secret)
    clusters = {n: c for r in requests for n, c in r.clusters.items()}
    extractor = Answered(str(lease.request.get("extractor") or "batch"), extraction, clusters)
    try:
        summary, _ = refresh(memory, extractor, RunOptions(today, only=lease))
    except InputError:  # another run applied it meanwhile
        return _report(lease, batch_id, "collected", "applied by another run")
    report = _report(lease, batch_id, "collected", state.status)
    report.read = summary.sources.shorts + summary.sources.knowledge + summary.sources.extra
    report.failed = len(set(extraction.failed))
    report.counts, report.changed_files = summary.counts, summary.changed_files
    report.usage, report.cost = summary.usage, summary.cost  # priced at the batch's discount: its requests are batched
    return report


def _unrecorded(memory: Opened, today: dt.date, endpoints: BatchEndpoints, lease: Lease) -> BatchReport:
    """A batch recorded but not known to be created: its run was killed between the two, or the server's word on
    the creation was lost. Under the run lock no run is between them, so the server's word is final: adopted if
    it has a batch with the tag, else forgotten (its notes wait, and this run's own window reads them)."""
    ledger = memory.ledger
    with hold(memory.folder / STATE_DIR, RUN_LOCK, memory.config.lock_timeout, "a refresh is running"):
        now = Leases(ledger).get(lease.token)  # as it is now, not as it was read before the lock
        if now is None or now.answered:
            return _report(lease, "", "collected", "applied by another run")
        if now.request.get("batch_id"):
            request = now.request
        else:
            state = endpoints.find(lease.token)
            if state is None:
                _drop(ledger, lease, today, "its run ended before creating it")
                return _report(lease, "", "not created", "its run ended before creating it: its notes wait")
            request = {**lease.request, "batch_id": state.id}
            Leases(ledger).set_request(lease.token, request)
    return _collect_one(memory, today, endpoints, lease.model_copy(update={"request": request}))


def _give_up(memory: Opened, today: dt.date, endpoints: BatchEndpoints, lease: Lease, batch_id: str) -> BatchReport:
    if batch_id:
        try:
            endpoints.cancel(batch_id)
        except RequestFailed:
            pass  # finished, or gone: either way nothing of it will be applied
    _drop(memory.ledger, lease, today, "older than its window and a day")
    LOG.warning("batch %s given up: older than its %d-hour window and a day; its %d note(s) wait",
                batch_id or lease.token, int(WINDOW_SECONDS // 3600), len(lease.sources))
    return _report(lease, batch_id, "given up", "older than its window and a day: its notes wait")


def _drop(ledger: Ledger, lease: Lease, today: dt.date, why: str) -> None:
    """The batch's notes no one's again, and a run recorded that left them waiting: the next window reaches back
    to them, however many complete runs passed while the batch held them."""
    with ledger.transaction():
        Leases(ledger).drop(lease.token, within=True)
        days = max(1, (today - lease.window_start).days + 1)
        run_id = ledger.start_run(today, "incremental", min(lease.window_start, today), days)
        ledger.finish_run(run_id, "partial", len(lease.sources), Counts().model_dump(), Usage())
    LOG.info("batch %s dropped: %s", lease.token, why)


def _report(lease: Lease, batch_id: str, state: BatchStateName, said: str) -> BatchReport:
    return BatchReport.of(lease, batch_id, state, said)
