"""How one refresh runs (docs/spec.md §4): the options a door was given, in one value it passes through the
operation to the run."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hylo_memory.pipeline.run.progress import RunProgress
    from hylo_memory.pipeline.state.leases import Lease


@dataclass(frozen=True)
class RunOptions:
    """One run's options: its date, and how it reads and writes.

    `intro`: a self-introduction (kept for later runs, not by a dry run); `reextract` reads again the sources in
    the window (or since `since`) another extractor read; `retry_stuck` tries the stuck sources again; `only`: an
    assistant's lease, whose sources alone are extracted (the others in the window wait) and which is closed in
    the same commit."""

    today: dt.date
    dry_run: bool = False
    intro: str | None = None
    progress: RunProgress | None = None
    reextract: bool = False
    since: dt.date | None = None
    retry_stuck: bool = False
    only: Lease | None = None
