"""`refresh` (docs/spec.md §4): one run with the configured extractor, as both doors start it.

The intro given is kept for later runs (not by a dry run); a run that wrote keeps the read memo, so
the next `recall` or `context` answers at once. A run first collects the provider's finished batches;
a batch run then submits its own window as one (docs/spec.md §4.9)."""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

from hylo_memory.decay import FileUpdate
from hylo_memory.extractors.base import Extractor
from hylo_memory.extractors.choice import make_extractor
from hylo_memory.pipeline import clock
from hylo_memory.pipeline.operations.after_write import after_write
from hylo_memory.pipeline.operations.serving.archive import update_archive
from hylo_memory.pipeline.operations.serving.meaning import Progress
from hylo_memory.pipeline.run.options import RunOptions
from hylo_memory.pipeline.run.profile import intro_for_run
from hylo_memory.pipeline.run.refresh import diff, refresh
from hylo_memory.pipeline.run.summary import BatchReport, RunSummary
from hylo_memory.pipeline.state.leases import Leases
from hylo_memory.pipeline.state.opened import Opened

if TYPE_CHECKING:  # the batch endpoint's client loads with a batch, not with every command (`status`)
    from hylo_memory.extractors.llm.llm import LLMExtractor

LOG = logging.getLogger(__name__)


class Refreshed(NamedTuple):
    summary: RunSummary
    diff: str | None  # a dry run's: what it would change, a diff per file


def refresh_memory(memory: Opened, options: RunOptions, fallback: Extractor | None = None,
                   batch: bool = False, readers: bool = True) -> Refreshed:
    """Run once over the vault's window with the configured extractor (docs/spec.md §4); with no model configured,
    `fallback` when given (the assistant's model, lent over MCP) rather than the offline patterns.

    `batch`: submit the window to the provider's batch endpoint, unless this run reads again, is a dry run, or is
    dated before today (those ask directly). `readers`: keep the read memo and vectors for readers after it. Every
    run that is not a dry one then brings the index of the notes up to date, within bounds (docs/spec.md §9.7)."""
    day, dry_run, progress, config = options.today, options.dry_run, options.progress, memory.config
    options = replace(options, intro=intro_for_run(memory.store, options.intro, dry_run))
    extractor = fallback if fallback is not None and not config.uses_llm else make_extractor(config.llm())
    found = [] if dry_run else collect_batches(memory, day, readers=False)
    submitted = None
    rereads = options.reextract or options.retry_stuck
    if batch and config.uses_llm and not (dry_run or rereads) and day >= clock.today(config.timezone):
        from hylo_memory.extractors.llm.llm import LLMExtractor

        if isinstance(extractor, LLMExtractor):
            submitted = _submit(memory, extractor, day, options.intro)
    updates: list[FileUpdate] = []
    if submitted is not None:
        summary = submitted
    else:
        summary, updates = refresh(memory, extractor, options)
    summary.add_batches(found)
    if dry_run:
        return Refreshed(summary, diff(updates, memory.store))
    if submitted is None and config.uses_llm:  # the model reviews the memory, within the run's ceiling (§3.1)
        from hylo_memory.pipeline.operations.reading.review import fold, review_by_model

        reviewed = review_by_model(memory, extractor, day)
        if reviewed is not None:
            fold(summary, reviewed, config.prices())
    if readers:  # the person's shell hooks and assistants read it next: every item embedded, however long it takes
        after_write(memory.store, config, None, progress if isinstance(progress, Progress) else None)
    update_archive(memory)  # the notes as the archive, brought up to date within bounds (docs/spec.md §9.7)
    return Refreshed(summary, None)


def refresh_running(memory: Opened) -> bool:
    """Whether another refresh holds the vault now (the nightly run, say): a notice only, the run lock decides."""
    from hylo_memory.pipeline.state.locking import RUN_LOCK, is_held
    from hylo_memory.pipeline.state.names import STATE_DIR

    return is_held(memory.folder / STATE_DIR, RUN_LOCK)


def collect_batches(memory: Opened, day: dt.date, readers: bool = True) -> list[BatchReport]:
    """Apply the provider's finished batches (`refresh --collect`, and first in every run); name the others.
    `readers`: the after-write step when one was applied (a run that collects first takes it once, at its end)."""
    settings = memory.config.llm()
    pending = Leases(memory.ledger).batches()
    if not pending:
        return []
    if settings is None:  # their notes are held until then, and each run's window reaches back to them
        LOG.warning("%d batch(es) wait to be collected: collecting asks the model's server, which this run does not "
                    "use (set a key or base_url, and not --extractor offline)", len(pending))
        return []
    from hylo_memory.extractors.llm.batch_api import BatchEndpoints
    from hylo_memory.pipeline.run import batch as batches

    endpoints = BatchEndpoints(settings)
    try:
        reports = batches.collect(memory, day, endpoints)
    finally:
        endpoints.close()
    if readers and any(r.state == "collected" for r in reports):
        after_write(memory.store, memory.config, None)
    return reports


def _submit(memory: Opened, extractor: LLMExtractor, day: dt.date, intro: str | None) -> RunSummary | None:
    from hylo_memory.extractors.llm.batch_api import BatchEndpoints
    from hylo_memory.extractors.llm.llm_errors import LLMError
    from hylo_memory.pipeline.run import batch as batches

    endpoints = BatchEndpoints(extractor.config)
    try:
        return batches.submit(memory, extractor, day, intro, endpoints)
    except LLMError as exc:
        LOG.warning("%s: the requests are sent directly", exc.reason)
        return None
    finally:
        endpoints.close()
