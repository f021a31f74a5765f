"""A real `hylo-memory mcp` process driven by the SDK's own client (`ClientSession` over `stdio_client`).

The client runs on an event loop in a blocking portal's thread, so tests stay synchronous and can
run command-line processes beside a call in flight. Every wait is bounded.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future
from contextlib import ExitStack, asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

from anyio.from_thread import start_blocking_portal
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp_types import (
    CallToolResult,
    Implementation,
    InitializeResult,
    Resource,
    TextContent,
    TextResourceContents,
    Tool,
)
from proc_helpers import HYLO

from hylo_memory.testing import FakeOpenAI, answer
from hylo_memory.testing.fake_replies import Body, HandlerResult, error

TIMEOUT = 60.0  # seconds for any one request: a broken server fails the test instead of hanging it


class McpServer:
    """``with McpServer(args, env, log) as server:`` a running server; ``server.call(tool, {...})`` a result."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path, client: str | None = None,
                 sampling: Any = None):
        self.args, self.env, self.log, self.client, self.sampling = args, env, log, client, sampling
        self._stack = ExitStack()
        self.initialized: InitializeResult | None = None
        self.stream_errors: list[Exception] = []  # lines on the server's stdout that are not protocol

    def __enter__(self) -> McpServer:
        try:
            self.portal = self._stack.enter_context(start_blocking_portal())
            errlog = self._stack.enter_context(self.log.open("w", encoding="utf-8"))
            self.session: ClientSession = self._stack.enter_context(
                self.portal.wrap_async_context_manager(self._connect(errlog)))
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stack.close()  # closes stdin, waits for the server to exit (the SDK bounds it), stops the loop

    @asynccontextmanager
    async def _connect(self, errlog: Any) -> AsyncIterator[ClientSession]:
        params = StdioServerParameters(command=HYLO, args=self.args, env=self.env)
        async with stdio_client(params, errlog=errlog) as (read, write):
            info = Implementation(name=self.client, version="1.0") if self.client else None
            async with ClientSession(read, write, read_timeout_seconds=TIMEOUT, message_handler=self._message,
                                     client_info=info, sampling_callback=self.sampling) as session:
                self.initialized = await session.initialize()
                yield session

    async def _message(self, message: Any) -> None:
        if isinstance(message, Exception):
            self.stream_errors.append(message)

    def call(self, tool: str, arguments: dict[str, Any] | None = None,
             progress: Callable[[float, float | None, str | None], Any] | None = None) -> CallToolResult:
        return self.call_soon(tool, arguments, progress).result(TIMEOUT)

    def call_soon(self, tool: str, arguments: dict[str, Any] | None = None,
                  progress: Callable[[float, float | None, str | None], Any] | None = None) -> Future[CallToolResult]:
        """Send the call and return at once; the future holds its result."""
        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            if progress is not None:
                progress(done, total, message)

        return self.portal.start_task_soon(partial(self.session.call_tool, tool, arguments or {},
                                                   progress_callback=on_progress))

    def tools(self) -> dict[str, Tool]:
        return {t.name: t for t in self.portal.call(self.session.list_tools).tools}

    def resources(self) -> dict[str, Resource]:
        return {str(r.uri): r for r in self.portal.call(self.session.list_resources).resources}

    def read(self, uri: str) -> TextResourceContents:
        contents = self.portal.call(self.session.read_resource, uri).contents
        assert len(contents) == 1 and isinstance(contents[0], TextResourceContents), contents
        return contents[0]


def text(result: CallToolResult) -> str:
    """A result's text, all of it."""
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


def ok(result: CallToolResult) -> str:
    assert not result.is_error, text(result)
    return text(result)


def failed(result: CallToolResult) -> str:
    """The one line of a failed call."""
    assert result.is_error, text(result)
    line = text(result)
    assert "\n" not in line, line
    return line


class SwitchableModel:
    """The fake OpenAI server as the LLM: a careful model's answers; refusals while `failing` is set;
    after `pause()`, each request waits (bounded) until `resume()`, and `wait_for_request()` returns once one is in."""

    def __init__(self) -> None:
        self.failing = threading.Event()
        self.paused = threading.Event()
        self.arrived = threading.Event()
        self.release = threading.Event()
        self.fake = FakeOpenAI(handler=self._answer)

    def _answer(self, body: Body) -> HandlerResult:
        if self.paused.is_set():
            self.arrived.set()
            self.release.wait(TIMEOUT)
        if self.failing.is_set():
            return error(401, "Incorrect API key provided")  # not retried: the failure arrives at once
        return answer(body)

    def pause(self) -> None:
        self.release.clear()
        self.arrived.clear()
        self.paused.set()

    def wait_for_request(self, timeout: float = 30) -> None:
        assert self.arrived.wait(timeout), f"no chat request within {timeout} s"

    def resume(self) -> None:
        """Every request answered at once again, the held ones first."""
        self.paused.clear()
        self.release.set()

    def env(self, base: dict[str, str]) -> dict[str, str]:
        return {**base, "HYLO_MEMORY_EXTRACTOR": "openai", "OPENAI_BASE_URL": self.fake.base_url,
                "OPENAI_API_KEY": "test", "HYLO_MEMORY_RETRY_BACKOFF": "0.01"}

    def __enter__(self) -> SwitchableModel:
        self.fake.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release.set()  # no handler thread left waiting: close() joins them
        self.fake.close()
