"""What the MCP server and its tools share: the memory served, and a command's function run as a tool call."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import anyio.to_thread
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent

from hylo_memory.errors import HyloMemoryError, reason
from hylo_memory.pipeline import clock
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.naming import Naming, Step
from hylo_memory.pipeline.version import PROG

if TYPE_CHECKING:
    from hylo_memory.pipeline.state.opened import Opened

T = TypeVar("T")
# The steps a text advises, as the server names them: the reading loop's two tools (pipeline/mcp/reading.py), and
# the tools of tools.py for the steps they take; the rest (no tool lets a forgotten fact be kept again, or embeds the
# items) are the command line's.
NAMING = Naming(next_batch="notes_to_read", answer="propose_memories",
                commands={step: f"{PROG} {step.name.lower()}" for step in Step},
                tools={Step.CONTEXT: "context", Step.REMEMBER: "remember", Step.STATUS: "status",
                       Step.REFRESH: "refresh", Step.FORGET: "forget"})


@dataclass(frozen=True)
class Memory:
    """What the server serves: the checked vault, its configuration, and `--today` when given."""

    vault: Path
    config: Config
    fixed_today: dt.date | None = None

    def today(self) -> dt.date:
        # Asked at each call: a server runs for days, and its today must not stay the day it started.
        return self.fixed_today or clock.today(self.config.timezone)

    def opened(self, config: Config | None = None) -> Opened:
        """The memory a call works on, opened for it (`config`: a scope's): open it on the worker that uses it, in a
        `with` — its ledger's connection serves that thread alone."""
        from hylo_memory.pipeline.operations.opening import open_memory

        return open_memory(self.vault, config or self.config, NAMING)


class Failure(ToolError):
    """A command's expected failure, as the one line the command line prints."""


def failure(exc: HyloMemoryError | OSError) -> Failure:
    return Failure(f"{PROG}: {reason(exc)}")


async def blocking(function: Callable[[], T]) -> T:
    """Run a command's function on a worker thread (it may wait for a lock or a model); failures as one line."""
    try:
        # Not abandoned on cancel: a write under way finishes, whatever the client does meanwhile.
        return await anyio.to_thread.run_sync(function)
    except (HyloMemoryError, OSError) as exc:
        raise failure(exc) from exc


def result(text: str, data: str | None = None, error: bool = False, key: str = "items") -> CallToolResult:
    """A tool's result: the text the command prints, and its `--json` as structured content."""
    structured: Any = None
    if data is not None:
        structured = json.loads(data)
        if not isinstance(structured, dict):  # before protocol 2026-07-28, structured content is an object
            structured = {key: structured}
    return CallToolResult(content=[TextContent(text=text)], structured_content=structured, is_error=error)
