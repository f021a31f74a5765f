"""The MCP server's tools: typed, bounded arguments, each calling the function its command calls."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Annotated, Any

import anyio.from_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import BeforeValidator, Field, StrictBool

from hylo_memory.decay import Dimension
from hylo_memory.decay.model import DIMENSION_NAMES
from hylo_memory.decay.ranking import MAX_BUDGET, MIN_BUDGET

from . import mcp_text
from .context import DEFAULT_BUDGET, build_context
from .forget import forget as forget_item
from .history import history as changes
from .mcp_calls import Memory, blocking, result
from .options import PROG
from .recall import MAX_QUERY_CHARS
from .recall import recall as ranked
from .why import explain

if TYPE_CHECKING:  # the run, the extractors and the status load with the first call that needs them
    from ..run.summary import RunSummary
    from .status import Status

LOG = logging.getLogger(__name__)

MAX_TEXT = 2_000  # characters of a statement: a fact is one line, a request around it a little more
MAX_INTRO = 4_000
MAX_RECALLED = 100  # items a recall returns: more would crowd the assistant's own context
MAX_CHANGES = 100  # changes a history lists: as many as are surely kept (SPEC §8)


def _dimension(value: Any) -> Any:
    # As on the command line: "Preferences" and " people " name a dimension too.
    return value.strip().lower() if isinstance(value, str) else value


Text = Annotated[str, Field(max_length=MAX_TEXT)]
Query = Annotated[str, Field(max_length=MAX_QUERY_CHARS)]
DimensionArgument = Annotated[Dimension | None, BeforeValidator(_dimension), Field(
    description=f"one of {DIMENSION_NAMES}; leave it out to let the memory choose")]
Narrowing = Annotated[Dimension | None, BeforeValidator(_dimension), Field(
    description=f"look in this file only: one of {DIMENSION_NAMES}")]
ItemText = Annotated[str, Field(max_length=MAX_TEXT, description="the item's wording, or close to it")]


def _annotations(title: str, read_only: bool, destructive: bool = False, idempotent: bool = False) -> ToolAnnotations:
    # Closed world: every tool works on this person's memory alone.
    if read_only:
        return ToolAnnotations(title=title, read_only_hint=True, open_world_hint=False)
    return ToolAnnotations(title=title, read_only_hint=False, destructive_hint=destructive,
                           idempotent_hint=idempotent, open_world_hint=False)


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


def register(server: MCPServer[Any], memory: Memory) -> None:
    """Add every tool to `server`, serving `memory`."""
    vault, config = memory.vault, memory.config

    @server.tool(description=mcp_text.REMEMBER, annotations=_annotations("Remember a fact", read_only=False))
    async def remember(
        text: Annotated[Text, Field(description="the statement, in the person's words, e.g. \"I'm vegetarian\"")],
        dimension: DimensionArgument = None,
        pin: Annotated[StrictBool | None, Field(  # "yes" is not true: a wrong type is refused, not guessed
            description="true: a standing fact that never fades; false: it may fade; leave it out to let the "
                        "memory decide")] = None,
    ) -> CallToolResult:
        def record() -> str:
            from .remember import remember_text  # the extractors load on the worker with a first fact, not at start

            return remember_text(vault, config, text, dimension, pin, memory.fixed_today)

        return result(await blocking(record))

    @server.tool(description=mcp_text.RECALL, annotations=_annotations("Recall from memory", read_only=True))
    async def recall(
        query: Annotated[Query, Field(description="what to look for, e.g. \"sister\", \"diet\", \"running\"")],
        limit: Annotated[int, Field(ge=1, le=MAX_RECALLED, description="the most items returned")] = 10,
    ) -> CallToolResult:
        found = await blocking(lambda: ranked(vault, config, query, limit, memory.fixed_today))
        return result(found.to_text(), found.to_json())

    @server.tool(description=mcp_text.CONTEXT, annotations=_annotations("Memory as context", read_only=True))
    async def context(
        budget: Annotated[int, Field(ge=MIN_BUDGET, le=MAX_BUDGET,
                                     description="the most tokens the block may take; the lowest-scored items "
                                                 "are left out first")] = DEFAULT_BUDGET,
        query: Annotated[Query | None, Field(description="put the items about this first (optional)")] = None,
    ) -> CallToolResult:
        block = await blocking(lambda: build_context(vault, config, memory.today(), budget, query))
        return result(block.to_text(), block.to_json())

    @server.tool(description=mcp_text.REFRESH, annotations=_annotations("Refresh the memory from notes",
                                                                        read_only=False))
    async def refresh(
        context: Context[Any, Any],
        dry_run: Annotated[StrictBool, Field(description="show what would change; write nothing")] = False,
        intro: Annotated[str | None, Field(
            max_length=MAX_INTRO, description="a self-introduction: name, role, projects (optional)")] = None,
    ) -> CallToolResult:
        progress = ProgressNotices(context)
        day = memory.today()

        def run() -> tuple[RunSummary, str]:
            # The run loads with the first refresh, on its worker thread: the server starts (and answers a first
            # recall) without it, and no call waits on the event loop while it loads.
            from hylo_memory.extractors.choice import make_extractor

            from ..run.refresh import diff
            from ..run.refresh import refresh as run_refresh
            from ..state.ledger import STATE_DIR
            from ..state.locking import RUN_LOCK, is_held
            from ..state.writing import open_store

            if is_held(open_store(vault, config).folder / STATE_DIR, RUN_LOCK):  # a notice only: the lock decides
                progress.waiting()
            summary, updates = run_refresh(vault, config, make_extractor(config.llm()), day, dry_run, intro, progress)
            text = summary.to_text()
            if dry_run:  # after the summary, as the command line prints it
                text += "\n" + diff(updates, open_store(vault, config))
            progress.finished()
            return summary, text

        summary, text = await blocking(run)
        if summary.status != "ok":  # the command line's exit 2 and its line: notes were left for the next run
            line = (f"{PROG}: run {summary.status}: {summary.waiting} source(s) wait for the next run"
                    + (f" ({summary.failures[0]})" if summary.failures else ""))
            return result(f"{line}\n\n{text}", summary.to_json(), error=True)
        return result(text, summary.to_json())

    @server.tool(description=mcp_text.STATUS, annotations=_annotations("Memory status", read_only=True))
    async def status() -> CallToolResult:
        def gathered() -> Status:
            from .status import gather  # with the run's modules: loaded on the worker when first asked

            return gather(vault, config, memory.fixed_today)

        report = await blocking(gathered)
        return result(report.to_text(), report.model_dump_json())

    @server.tool(description=mcp_text.WHY, annotations=_annotations("Why is this in memory", read_only=True))
    async def why(text: ItemText, dimension: Narrowing = None) -> CallToolResult:
        explanation = await blocking(lambda: explain(vault, config, text, dimension))
        return result(explanation.to_text(), explanation.to_json())

    @server.tool(description=mcp_text.FORGET, annotations=_annotations("Forget an item", read_only=False,
                                                                      destructive=True, idempotent=True))
    async def forget(text: ItemText, dimension: Narrowing = None) -> CallToolResult:
        report = await blocking(lambda: forget_item(vault, config, text, dimension, memory.fixed_today))
        return result(report.to_text(), report.to_json())

    @server.tool(description=mcp_text.HISTORY, annotations=_annotations("Memory history", read_only=True))
    async def history(
        limit: Annotated[int, Field(ge=1, le=MAX_CHANGES, description="how many changes, newest first")] = 20,
    ) -> CallToolResult:
        listed = await blocking(lambda: changes(vault, config, limit))
        return result(listed.to_text(), listed.to_json(), key="changes")
