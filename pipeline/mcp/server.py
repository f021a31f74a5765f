"""The MCP server (docs/spec.md §9): the command line's functions as tools and the memory files as resources.

Every tool calls the same function its command calls, on a worker thread, so it takes the same
locks and writes through the same journal; a failure is the command line's one line.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError, UnexpectedToolError
from mcp.server.mcpserver.resources import FunctionResource
from mcp_types import CallToolResult, InputRequiredResult
from pydantic import ValidationError
from starlette.types import ASGIApp

from hylo_memory.decay import Dimension
from hylo_memory.errors import HyloMemoryError, reason, validation_line
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.mcp import guard, wording
from hylo_memory.pipeline.mcp.backfill import Backfill
from hylo_memory.pipeline.mcp.calls import NAMING, Failure, Memory, failure
from hylo_memory.pipeline.mcp.tools import register
from hylo_memory.pipeline.operations.serving.context import build_context
from hylo_memory.pipeline.operations.serving.memory_file import memory_file_text
from hylo_memory.pipeline.version import PROG

LOG = logging.getLogger(__name__)
T = TypeVar("T")


class HyloServer(MCPServer[Any]):
    """The SDK's server, with every failed call one line an assistant can read and act on."""

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> CallToolResult | InputRequiredResult:
        tools = {tool.name: tool for tool in await self.list_tools()}
        if name not in tools:
            raise ToolError(f"{PROG}: no tool {name!r} (tools: {', '.join(tools)})")
        known_arguments = tools[name].input_schema.get("properties", {})
        unknown = sorted(set(arguments) - set(known_arguments))
        if unknown:  # the SDK would ignore a misspelt argument; the person's intent would be lost silently
            expected = ", ".join(known_arguments) or "none"
            raise ToolError(f"{PROG}: {name}: unknown argument {unknown[0]!r} (arguments: {expected})")
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:
            LOG.error("tool %s failed unexpectedly", name, exc_info=exc)
            raise ToolError(f"{PROG}: {name}: internal error (the server's log on stderr has the details)") from exc
        except ToolError as exc:
            raise ToolError(_one_line(name, exc)) from exc


def _one_line(name: str, exc: ToolError) -> str:
    """The line for a failed call: the command's own line, or what is wrong with an argument."""
    cause = exc.__cause__
    if isinstance(cause, Failure):
        return str(cause)
    if isinstance(cause, ValidationError):
        error = cause.errors()[0]
        if error["type"] == "missing":
            return f"{PROG}: {name}: missing argument {'.'.join(str(p) for p in error['loc'])!r}"
        return f"{PROG}: {name}: {validation_line(cause)}"
    return " ".join(str(exc).split())


def build_server(memory: Memory, backfill: Backfill | None = None) -> HyloServer:
    """The server with its tools and resources, ready to run on any transport; `backfill` embeds behind its answers
    (whoever runs the server stops it)."""

    server = HyloServer(name=PROG, title="hylo-memory", version=version("hylo-memory"),
                        instructions=wording.INSTRUCTIONS)
    register(server, memory, backfill or Backfill(memory))
    for dimension in Dimension:
        server.add_resource(FunctionResource.from_function(
            _file_reader(memory, dimension), uri=f"memory://{dimension.value}", name=dimension.value,
            title=f"{dimension.value} ({dimension.filename})", mime_type="text/markdown",
            description=wording.RESOURCE_FILE.format(dimension=dimension.value)))
    server.add_resource(FunctionResource.from_function(
        _context_reader(memory), uri="memory://context", name="context", title="the memory as context",
        mime_type="text/markdown", description=wording.RESOURCE_CONTEXT))
    return server


def _file_reader(memory: Memory, dimension: Dimension) -> Callable[[], str]:
    def read() -> str:
        try:
            with memory.opened() as opened:  # its store alone: no ledger
                return memory_file_text(opened, dimension)
        except (HyloMemoryError, OSError) as exc:
            raise ResourceError(f"{PROG}: {reason(exc)}") from exc
    read.__name__ = f"read_{dimension.value}"
    return read


def _context_reader(memory: Memory) -> Callable[[], str]:
    def read_context() -> str:
        try:
            with memory.opened() as opened:
                return build_context(opened, memory.today(), NAMING).to_text()
        except (HyloMemoryError, OSError) as exc:  # a hand-broken file, say: the read fails with its line
            raise ResourceError(str(failure(exc))) from exc
    return read_context


def serve(memory: Memory, http: tuple[str, int] | None = None) -> None:
    """Serve until the client goes away (stdio) or the process is stopped (HTTP on a loopback address)."""
    backfill = Backfill(memory)
    try:
        if http is None:
            anyio.run(build_server(memory, backfill).run_stdio_async)
            return
        import uvicorn  # the SDK's own HTTP server, loaded only for --http

        host, port = http
        # log_config=None: uvicorn's lines go to the root logger (stderr), not its default access log on stdout.
        config = uvicorn.Config(http_app(memory, host, port, backfill), host=host, port=port, log_config=None,
                                log_level="info")
        anyio.run(uvicorn.Server(config).serve)
    finally:  # the embedding behind the answers stops with the server (after its batch: what it embedded is kept)
        backfill.stop()


def http_app(memory: Memory, host: str, port: int, backfill: Backfill | None = None) -> ASGIApp:
    """The server as streamable HTTP at /mcp, for pages of its own address or an allowed origin, and for
    clients that send no Origin; with `mcp_token` set, only for requests that carry it (pipeline/mcp/guard.py)."""
    config = memory.config
    security = guard.origins(port, config.mcp_allow_origins)
    app = build_server(memory, backfill).streamable_http_app(host=host, transport_security=security)
    return guard.Guard(app, security, None if config.mcp_token is None else config.mcp_token.get_secret_value())


def serve_vault(vault: Path, config: Config, today: dt.date | None, http: tuple[str, int] | None) -> None:
    """The program's `mcp` command (hylo_memory/console.py plugs it into the command line): serve this vault."""
    if config.ranks_by_bundled_model():  # loaded while the client starts its session, not in its first recall
        from hylo_memory.extractors import bundled

        bundled.load_in_background()
    serve(Memory(vault, config, today), http)
