"""Hylo's MCP tools through the official SDK's streamable-HTTP client (docs/spec.md §10).

One session a `with`: the key from `HYLO_API_KEY` as a bearer token (never printed, never
stored), every wait bounded by `timeout`, every result checked against §10's table. Anything
else — unreachable, a refused key, a missing tool, a tool's error, a malformed result — is one
`HyloError` line naming the tool and what was wrong.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from contextlib import ExitStack, asynccontextmanager
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from hylo_memory.errors import HyloMemoryError

KEY_VARIABLE = "HYLO_API_KEY"
TOOLS = ("short_list", "knowledge_list", "knowledge_read", "list", "read", "create", "delete")
M = TypeVar("M", bound=BaseModel)


class HyloError(HyloMemoryError):
    """Hylo could not be used: one line, and nothing written; a run that meets it has failed (exit 2)."""

    exit_code = 2

    def __init__(self, message: str, said: str | None = None):
        super().__init__(message)
        self.said = said  # Hylo's own error text, when a tool answered with one (an `isError` result)


class ShortEntry(BaseModel):
    content: str
    created_at: str
    daily_path: str


class Shorts(BaseModel):
    entries: list[ShortEntry]


class NoteInfo(BaseModel):
    """A note as Hylo's `list` and `knowledge_list` show it: `size` and `updated_at` are for a person to
    read (Hylo's `FormatSize` and `FormatTime`: "1.2 KB", a local time to the second), never compared."""

    path: str
    name: str = ""  # the base name with its extension: "april.md"
    dir: str = ""
    size: str | int | None = None
    updated_at: str | None = None
    indexed: bool | None = None
    kind: str | None = None


class Notes(BaseModel):
    notes: list[NoteInfo]


class Note(BaseModel):
    path: str
    content: str


class Created(BaseModel):
    path: str
    lines: int | None = None


class Hylo:
    """A session with one Hylo: `with Hylo(url, timeout) as hylo: hylo.read("/_memory/_goals.md")`.

    `calls` counts the tool calls made, for the run's figures.
    """

    def __init__(self, url: str, timeout: float = 30.0):
        self.url, self.timeout = url, timeout
        self.calls = 0
        self._refused: int | None = None  # 401/403: the SDK turns it into a bare "error response"; kept here
        self._names: dict[str, str] = {}  # Hylo's tool name → the name the server gives it (maybe prefixed)
        self._stack = ExitStack()

    def __enter__(self) -> Hylo:
        from anyio.from_thread import start_blocking_portal

        key = os.environ.get(KEY_VARIABLE, "").strip()
        if not key:
            raise HyloError(f"{self.url}: no Hylo key: set {KEY_VARIABLE}")
        try:
            self._portal = self._stack.enter_context(start_blocking_portal())
            self._session = self._stack.enter_context(self._portal.wrap_async_context_manager(self._connect(key)))
        except BaseException as exc:
            self._stack.close()
            if isinstance(exc, HyloError):
                raise
            raise HyloError(f"{self.url}: {self._problem(exc)}") from None
        return self

    def _problem(self, exc: BaseException) -> str:
        if self._refused:
            return f"Hylo refused the key ({self._refused}): check {KEY_VARIABLE}"
        return _connection_problem(exc)

    def __exit__(self, *exc_info: object) -> None:
        try:
            self._stack.close()
        except Exception:  # noqa: BLE001 - closing a session Hylo already dropped: the work is done or reported
            pass

    @asynccontextmanager
    async def _connect(self, key: str) -> AsyncIterator[Any]:
        import anyio
        import httpx2
        from mcp import ClientSession
        from mcp.client.streamable_http import streamable_http_client

        async def seen(response: httpx2.Response) -> None:
            if response.status_code in (401, 403):
                self._refused = response.status_code

        timeout = httpx2.Timeout(self.timeout)
        # Both of Hylo's key headers (its auth middleware takes either), and no Origin: Hylo refuses a foreign one.
        headers = {"Authorization": f"Bearer {key}", "X-Hylo-API-Key": key}
        async with httpx2.AsyncClient(headers=headers, timeout=timeout,
                                      event_hooks={"response": [seen]}) as http:
            async with streamable_http_client(self.url, http_client=http) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=self.timeout) as session:
                    with anyio.fail_after(self.timeout):
                        await session.initialize()
                        tools = (await session.list_tools()).tools
                    self._names = _tool_names([t.name for t in tools])
                    yield session

    def _call(self, tool: str, arguments: dict[str, Any]) -> Any:
        """The JSON a tool answers: its structured content, or the same JSON as its text."""
        name = self._names.get(tool)
        if name is None:
            raise HyloError(f"{self.url}: Hylo has no tool {tool!r} (is this Hylo's MCP endpoint?)")
        self.calls += 1
        try:
            result = self._portal.call(self._session.call_tool, name, arguments)
        except HyloError:
            raise
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise HyloError(f"{self.url}: {tool}: {self._problem(exc)}") from None
        text = " ".join(getattr(block, "text", "") for block in result.content).strip()
        if result.is_error:
            message = " ".join(text.split()).removeprefix(f"Error executing tool {name}: ")
            raise HyloError(f"{self.url}: {tool} failed: {message or 'no message'}", said=message)
        if result.structured_content is not None:
            return result.structured_content
        try:
            return json.loads(text)
        except ValueError:
            raise HyloError(f"{self.url}: {tool}: the result is not JSON") from None

    def _checked(self, tool: str, arguments: dict[str, Any], model: type[M]) -> M:
        value = self._call(tool, arguments)
        try:
            return model.model_validate(value)
        except ValidationError as exc:
            error = exc.errors()[0]
            field = ".".join(str(p) for p in error["loc"]) or "the result"
            what = "missing" if error["type"] == "missing" else error["msg"].lower()
            raise HyloError(f"{self.url}: {tool}: the result's field {field!r} is {what} "
                            "(not what Hylo's short_list/list/read answer)") from None

    # ---- the tools (docs/spec.md §10) ----

    def short_list(self, start: str, end: str, limit: int, folder: str) -> list[ShortEntry]:
        return self._checked("short_list", {"start": start, "end": end, "limit": limit, "dir": folder},
                             Shorts).entries

    def knowledge_list(self, path: str | None, start: str, end: str, limit: int) -> list[NoteInfo]:
        """Units updated in [start, end). With `path`, the notes directly in that folder (not below it);
        without, the whole vault's."""
        arguments = _given({"path": path, "start": start, "end": end, "limit": limit})
        return self._checked("knowledge_list", arguments, Notes).notes

    def list(self, path: str | None, start: str | None = None, end: str | None = None, limit: int = 0,
             kind: str | None = None) -> list[NoteInfo]:
        """Notes, newest first; `path` as for `knowledge_list`; `kind` one of raw, short, knowledge, index."""
        arguments = _given({"path": path, "start": start, "end": end, "limit": limit, "kind": kind})
        return self._checked("list", arguments, Notes).notes

    def knowledge_read(self, path: str) -> Note:
        return self._checked("knowledge_read", {"path": path}, Note)

    def read(self, path: str) -> Note:
        return self._checked("read", {"path": path}, Note)

    def delete(self, path: str) -> None:
        """Only to take back a memory file a failed command created (docs/spec.md §10)."""
        self._call("delete", {"path": path})

    def create(self, path: str, content: str) -> Created:
        return self._checked("create", {"path": path, "content": content, "force": True}, Created)


def _given(arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments given a value: Hylo's tools take an omitted one as "none" (`omitempty`)."""
    return {k: v for k, v in arguments.items() if v not in (None, "")}


def is_missing(exc: HyloError) -> bool:
    """Whether Hylo's error says the note or folder is not there: its server's 404 (`stat "/a.md": HTTP 404: …`,
    `list "/_memory": HTTP 404: …`) or a bare name that resolves to none (`no note found: "a.md"`)."""
    said = exc.said or ""  # a tool's own answer only: an endpoint that answers 404 is a wrong URL, not a missing note
    return "HTTP 404" in said or said.startswith("no note found") or "not found" in said.lower()


def _tool_names(offered: list[str]) -> dict[str, str]:
    """Each of Hylo's tools by the name the server offers it under: itself, or with a prefix
    (`mcp__hylo__short_list`, `hylo_short_list`); the bare name wins over a prefixed one."""
    names: dict[str, str] = {}
    for tool in TOOLS:
        if tool in offered:
            names[tool] = tool
            continue
        prefixed = sorted(n for n in offered if n.endswith(tool) and len(n) > len(tool)
                          and not n[:-len(tool)].endswith("knowledge_"))  # `…knowledge_read` is not `read`
        if prefixed:
            names[tool] = prefixed[0]
    return names


def _connection_problem(exc: BaseException) -> str:
    """What went wrong reaching Hylo, in a few words: a refused key names HYLO_API_KEY."""
    for inner in _leaves(exc):
        status = getattr(getattr(inner, "response", None), "status_code", None)
        if status in (401, 403):
            return f"Hylo refused the key ({status}): check {KEY_VARIABLE}"
        if status is not None:
            return f"Hylo answered HTTP {status}"
        name = type(inner).__name__
        if "Timeout" in name or isinstance(inner, TimeoutError) or "timed out" in str(inner).lower():
            return "Hylo did not answer in time (timed out)"
        if "Connect" in name or isinstance(inner, ConnectionError):
            return "Hylo cannot be reached (is it running, and is the URL right?)"
    leaf = _leaves(exc)[0]
    return " ".join(str(leaf).split()) or type(leaf).__name__


def _leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions an exception group holds (the SDK's task groups wrap them), or the exception itself."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    found = [exc]
    if exc.__cause__ is not None:
        found += _leaves(exc.__cause__)
    return found
