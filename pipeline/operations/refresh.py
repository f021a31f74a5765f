"""`refresh` (docs/spec.md §4): one run with the configured extractor, as both doors start it.

The intro given is kept for later runs (not by a dry run); a run that wrote keeps the read memo, so
the next `recall` or `context` answers at once."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import NamedTuple

from hylo_memory.extractors.base import Extractor
from hylo_memory.extractors.choice import make_extractor
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.recall import keep_for_readers
from hylo_memory.pipeline.run.profile import intro_for_run
from hylo_memory.pipeline.run.progress import RunProgress
from hylo_memory.pipeline.run.refresh import diff, refresh
from hylo_memory.pipeline.run.summary import RunSummary
from hylo_memory.pipeline.state.writing import open_store


class Refreshed(NamedTuple):
    summary: RunSummary
    diff: str | None  # a dry run's: what it would change, a diff per file


def refresh_memory(vault: Path, config: Config, day: dt.date, dry_run: bool = False, intro: str | None = None,
                   progress: RunProgress | None = None, reextract: bool = False, since: dt.date | None = None,
                   retry_stuck: bool = False, fallback: Extractor | None = None) -> Refreshed:
    """Run once over the vault's window with the configured extractor (docs/spec.md §4); with no model configured,
    `fallback` when given (the assistant's model, lent over MCP) rather than the offline patterns."""
    intro = intro_for_run(open_store(vault, config), intro, dry_run)
    extractor = fallback if fallback is not None and not config.uses_llm else make_extractor(config.llm())
    summary, updates = refresh(vault, config, extractor, day, dry_run, intro, progress,
                               reextract=reextract, since=since, retry_stuck=retry_stuck)
    if dry_run:
        return Refreshed(summary, diff(updates, open_store(vault, config)))
    keep_for_readers(vault, config)  # the person's shell hooks and assistants read the memory next
    return Refreshed(summary, None)
