"""A refresh's progress as MCP progress notifications (docs/spec.md §9)."""

from __future__ import annotations

import logging
from typing import Any

import anyio.from_thread
from mcp.server.mcpserver import Context

LOG = logging.getLogger(__name__)


class ProgressNotices:
    """A refresh's progress as MCP progress notifications, sent from the worker thread the run is on.

    Steps: waiting for a refresh already running (when one is), reading the notes, then one a source;
    the progress only ever grows, as MCP asks.
    """

    def __init__(self, context: Context[Any, Any]):
        self.context = context
        self.sources = 0
        self.done = 0

    def _send(self, progress: float, total: float | None, message: str) -> None:
        try:
            anyio.from_thread.run(self.context.report_progress, progress, total, message)
        except Exception as exc:  # noqa: BLE001 - a notice lost (the client gone) must never stop a run mid-way
            LOG.debug("progress notice not sent: %s", exc)

    def waiting(self) -> None:
        """Another refresh holds the vault (the nightly run, say): this one starts when it ends."""
        self._send(0, None, "waiting for the refresh already running to finish")

    def reading(self) -> None:
        self._send(1, None, "reading the vault's notes")

    def extracting(self, sources: int) -> None:
        self.sources = sources
        self._send(2, sources + 2, f"extracting {sources} source(s)")

    def extracted(self, sources: int) -> None:
        if sources <= 0:
            return
        self.done += sources
        total = max(self.sources, self.done) + 2
        self._send(2 + self.done, total, f"extracted {self.done} of {self.sources} source(s)")

    def finished(self) -> None:
        """The run is over: the last notice shows it whole (an offline run tells of no source on the way)."""
        if self.done < self.sources:
            self.done = self.sources
            self._send(2 + self.done, 2 + self.done, "done")
