"""The line a refresh that was not `ok` ends with, on the command line's stderr and in the MCP tool's error alike."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hylo_memory.pipeline.version import PROG

if TYPE_CHECKING:  # the run's models load with the run, not with this module
    from hylo_memory.pipeline.run.summary import RunSummary


def not_ok_line(summary: RunSummary) -> str | None:
    """`hylo-memory: run partial: 3 source(s) wait for the next run (first failure)`; None for an `ok` or a
    `submitted` run."""
    if summary.status in ("ok", "submitted"):  # submitted: the batch holds the notes, none waits
        return None
    reason = f" ({summary.failures[0]})" if summary.failures else ""
    return f"{PROG}: run {summary.status}: {summary.waiting} source(s) wait for the next run{reason}"
