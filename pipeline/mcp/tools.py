"""The MCP server's tools: typed, bounded arguments, each calling the function its command calls.

One method a tool, on `Tools` (the memory it serves); `register` adds them all with their descriptions.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import BeforeValidator, Field, StrictBool

from hylo_memory.decay import Dimension
from hylo_memory.decay.recall.ranking import MAX_BUDGET, MIN_BUDGET
from hylo_memory.domain.dimensions import DIMENSION_NAMES
from hylo_memory.domain.items import MAX_ITEM_TEXT
from hylo_memory.pipeline.mcp import wording
from hylo_memory.pipeline.mcp.backfill import Backfill
from hylo_memory.pipeline.mcp.calls import NAMING, Memory, blocking, result
from hylo_memory.pipeline.mcp.progress import ProgressNotices
from hylo_memory.pipeline.mcp.reading import client_name, register_reading
from hylo_memory.pipeline.mcp.sampling import offers_sampling, sampling_extractor
from hylo_memory.pipeline.operations.outcome import not_ok_line
from hylo_memory.pipeline.operations.serving.archive_search import NotesResult, recall_notes
from hylo_memory.pipeline.operations.serving.context import DEFAULT_BUDGET, ContextResult, build_context
from hylo_memory.pipeline.operations.serving.recall import MAX_QUERY_CHARS, RecallResult
from hylo_memory.pipeline.operations.serving.recall import recall as ranked
from hylo_memory.pipeline.operations.serving.why import Explanation, explain
from hylo_memory.pipeline.scopes import NAME_CHARS, scope_config, scoped

if TYPE_CHECKING:  # the run, the extractors and the status load with the first call that needs them
    from hylo_memory.extractors.base import Extractor
    from hylo_memory.pipeline.config import Config
    from hylo_memory.pipeline.operations.forget import ForgetReport
    from hylo_memory.pipeline.operations.history import History
    from hylo_memory.pipeline.operations.refresh import Refreshed
    from hylo_memory.pipeline.operations.scoped import ScopedContext
    from hylo_memory.pipeline.operations.serving.status import Status

# The limits the commands themselves enforce, so a schema never advertises what the call then refuses.
MAX_TEXT = MAX_ITEM_TEXT  # `remember`: a fact is one item's line (domain/items.py)
MAX_INTRO = 4_000  # `refresh --intro` (pipeline/run/profile.py's MAX_INTRO; checked equal by the tests)
# Narrower than the command line's on purpose: more would crowd the assistant's own context.
MAX_RECALLED = 100  # items a recall returns (the command's --limit goes to 1,000)
MAX_CHANGES = 100  # changes a history lists (docs/spec.md §8: as many as are surely kept)


def _dimension(value: Any) -> Any:
    # As on the command line: "Preferences" and " people " name a dimension too.
    return value.strip().lower() if isinstance(value, str) else value


Text = Annotated[str, Field(max_length=MAX_TEXT)]
Query = Annotated[str, Field(max_length=MAX_QUERY_CHARS)]
DimensionArgument = Annotated[Dimension | None, BeforeValidator(_dimension), Field(
    description=f"one of {DIMENSION_NAMES}; leave it out to let the memory choose")]
Narrowing = Annotated[Dimension | None, BeforeValidator(_dimension), Field(
    description=f"look in this file only: one of {DIMENSION_NAMES}")]
ItemText = Annotated[str, Field(max_length=MAX_ITEM_TEXT, description="the item's wording, or close to it")]
Pin = Annotated[StrictBool | None, Field(  # "yes" is not true: a wrong type is refused, not guessed
    description="true: a standing fact that never fades; false: it may fade; leave it out to let the memory decide")]
ScopeName = Annotated[str | None, Field(max_length=NAME_CHARS, description=(
    "a scope's memory (a project's folder with a memory of its own, as the vault's .hylo-memory.toml names it); "
    "leave it out for the person's"))]
Intro = Annotated[str | None, Field(
    max_length=MAX_INTRO, description="a self-introduction: name, role, projects (optional; kept for later runs)")]


def _annotations(title: str, read_only: bool, destructive: bool = False, idempotent: bool = False) -> ToolAnnotations:
    # Closed world: every tool works on this person's memory alone.
    if read_only:
        return ToolAnnotations(title=title, read_only_hint=True, open_world_hint=False)
    return ToolAnnotations(title=title, read_only_hint=False, destructive_hint=destructive,
                           idempotent_hint=idempotent, open_world_hint=False)


class Tools:
    """Every tool, as a method serving one memory; `backfill` embeds what a recall or a context found waiting."""

    def __init__(self, memory: Memory, backfill: Backfill):
        self.memory, self.backfill = memory, backfill
        self.vault, self.config = memory.vault, memory.config

    async def remember(
        self,
        text: Annotated[Text, Field(description="the statement, in the person's words, e.g. \"I'm vegetarian\" "
                                                f"(at most {MAX_TEXT} characters)")],
        dimension: DimensionArgument = None,
        pin: Pin = None,
    ) -> CallToolResult:
        def record() -> str:
            from hylo_memory.pipeline.operations.remember import (
                remember_text,  # the extractors load on the worker with a first fact, not at start
            )

            with self.memory.opened() as memory:
                return remember_text(memory, text, NAMING, dimension, pin, self.memory.fixed_today)

        return result(await blocking(record))

    async def recall(
        self,
        query: Annotated[Query, Field(description="words to look for, e.g. \"sister\", \"vegetarian\", \"running\"")],
        limit: Annotated[int, Field(ge=1, le=MAX_RECALLED, description="the most items returned")] = 10,
        notes: Annotated[StrictBool, Field(description="search the person's notes themselves (passages, each with "
                                                       "its note's path and date), not the memory")] = False,
        scope: ScopeName = None,
    ) -> CallToolResult:
        if notes:
            def searching() -> NotesResult:
                with self.memory.opened(scoped(self.config, scope)) as memory:
                    return recall_notes(memory, query, NAMING, limit)

            passages = await blocking(searching)
            return result(passages.to_text(NAMING), passages.to_json())
        # No embedding before the answer (0 s): items not embedded yet are matched by their words, then embedded.
        def ranking() -> RecallResult:
            with self.memory.opened(scoped(self.config, scope)) as memory:
                return ranked(memory, query, limit, self.memory.fixed_today, 0)

        found = await blocking(ranking)
        if found.waiting and scope is None:  # the backfill embeds the person's; a refresh embeds a scope's
            self.backfill.wake()
        return result(found.to_text(NAMING), found.to_json())

    async def context(
        self,
        budget: Annotated[int, Field(ge=MIN_BUDGET, le=MAX_BUDGET,
                                     description="the most tokens the block may take; the lowest-scored items "
                                                 "are left out first")] = DEFAULT_BUDGET,
        query: Annotated[Query | None, Field(description="put the items about this first (optional)")] = None,
        scope: Annotated[str | None, Field(max_length=NAME_CHARS, description=(
            "also a scope's memory, after the person's, under a heading naming it (a project's folder with a memory "
            "of its own, as the vault's .hylo-memory.toml names it)"))] = None,
    ) -> CallToolResult:
        if scope is not None:  # the person's memory, then the scope's (docs/spec.md §1.1)
            from hylo_memory.pipeline.operations.scoped import scoped_context

            def both_blocks() -> ScopedContext:
                with self.memory.opened() as person, self.memory.opened(scope_config(self.config, scope)) as own:
                    return scoped_context(person, own, scope, self.memory.today(), NAMING, budget, query, 0)

            both = await blocking(both_blocks)
            return result(both.to_text(), both.to_json())

        def one_block() -> ContextResult:
            with self.memory.opened() as memory:
                return build_context(memory, self.memory.today(), NAMING, budget, query, 0)

        block = await blocking(one_block)
        if block.waiting:
            self.backfill.wake()
        return result(block.to_text(), block.to_json())

    async def refresh(
        self,
        context: Context[Any, Any],
        dry_run: Annotated[StrictBool, Field(description="show what would change; write nothing")] = False,
        intro: Intro = None,
    ) -> CallToolResult:
        progress = ProgressNotices(context)
        day = self.memory.today()
        lent = None  # no model configured: the client's own, when it offers it (docs/spec.md §9.5)
        if not self.config.uses_llm and offers_sampling(context):
            lent = sampling_extractor(context, self.config, client_name(context))
        text, data, lines = await blocking(lambda: self._refresh(day, dry_run, intro, progress, lent))
        if lines:  # the command line's exit 2 and its line: notes were left for the next run
            return result("\n".join(lines) + f"\n\n{text}", data, error=True)
        return result(text, data)

    def _refresh(self, day: dt.date, dry_run: bool, intro: str | None, progress: ProgressNotices,
                 lent: Extractor | None) -> tuple[str, str, list[str]]:
        """The person's run then each scope's (docs/spec.md §1.1): their summaries' text, their JSON, and the line of
        each run that was not ok."""
        # The run loads with the first refresh, on its worker thread: the server starts (and answers a first
        # recall) without it, and no call waits on the event loop while it loads.
        from hylo_memory.pipeline.operations.refresh import refresh_memory, refresh_running
        from hylo_memory.pipeline.operations.scoped import refresh_scopes, scopes_text, with_scopes
        from hylo_memory.pipeline.run.options import RunOptions

        def run(on: Config, given: RunOptions) -> Refreshed:
            with self.memory.opened(on) as memory:  # the person's, or a scope's with its own configuration
                return refresh_memory(memory, given, fallback=lent)

        with self.memory.opened() as memory:
            if refresh_running(memory):  # a notice only: the lock decides
                progress.waiting()
        options = RunOptions(today=day, dry_run=dry_run, intro=intro, progress=progress)
        summary, changes = run(self.config, options)
        scopes = refresh_scopes(self.vault, self.config, lambda on: run(on, replace(options, intro=None)))
        text = summary.to_text(NAMING)
        if changes is not None:  # after the summary, as the command line prints it
            text += "\n" + changes
        text += scopes_text(scopes, NAMING)
        progress.finished()
        lines = [line for line in [not_ok_line(summary)] if line is not None]
        lines += [line for line in (run.not_ok() for run in scopes) if line is not None]
        return text, with_scopes(summary.to_json(), scopes), lines

    async def status(self, scope: ScopeName = None) -> CallToolResult:
        def gathered() -> Status:
            from hylo_memory.pipeline.operations.serving.status import (
                gather,  # with the run's modules: loaded on the worker when first asked
            )

            with self.memory.opened(scoped(self.config, scope)) as memory:
                return gather(memory, NAMING, self.memory.fixed_today)

        report = await blocking(gathered)
        return result(report.to_text(NAMING), report.model_dump_json())

    async def why(self, text: ItemText, dimension: Narrowing = None, scope: ScopeName = None) -> CallToolResult:
        def explaining() -> Explanation:
            with self.memory.opened(scoped(self.config, scope)) as memory:
                return explain(memory, text, dimension)

        explanation = await blocking(explaining)
        return result(explanation.to_text(), explanation.to_json())

    async def forget(self, text: ItemText, dimension: Narrowing = None, scope: ScopeName = None) -> CallToolResult:
        def forgetting() -> ForgetReport:
            from hylo_memory.pipeline.operations.forget import forget as forget_item  # a writer's: not at the start

            with self.memory.opened(scoped(self.config, scope)) as memory:
                return forget_item(memory, text, NAMING, dimension, self.memory.fixed_today)

        report = await blocking(forgetting)
        return result(report.to_text(), report.to_json())

    async def history(
        self,
        limit: Annotated[int, Field(ge=1, le=MAX_CHANGES, description="how many changes, newest first")] = 20,
    ) -> CallToolResult:
        def listing() -> History:
            from hylo_memory.pipeline.operations.history import history as changes

            with self.memory.opened() as memory:
                return changes(memory, limit)

        listed = await blocking(listing)
        return result(listed.to_text(), listed.to_json(), key="changes")


# Each tool: its description, and its hints (title; read-only, or writing and how).
TOOLS: dict[str, tuple[str, ToolAnnotations]] = {
    "remember": (wording.REMEMBER, _annotations("Remember a fact", read_only=False)),
    "recall": (wording.RECALL, _annotations("Recall from memory", read_only=True)),
    "context": (wording.CONTEXT, _annotations("Memory as context", read_only=True)),
    "refresh": (wording.REFRESH, _annotations("Refresh the memory from notes", read_only=False)),
    "status": (wording.STATUS, _annotations("Memory status", read_only=True)),
    "why": (wording.WHY, _annotations("Why is this in memory", read_only=True)),
    "forget": (wording.FORGET, _annotations("Forget an item", read_only=False, destructive=True, idempotent=True)),
    "history": (wording.HISTORY, _annotations("Memory history", read_only=True)),
}


def register(server: MCPServer[Any], memory: Memory, backfill: Backfill) -> None:
    """Add every tool to `server`, serving `memory`."""
    tools = Tools(memory, backfill)
    for name, (description, hints) in TOOLS.items():
        method: Callable[..., Any] = getattr(tools, name)
        server.add_tool(method, name=name, description=description, annotations=hints)
    register_reading(server, memory, _annotations)
