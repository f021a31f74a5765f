"""A fake Hylo: the MCP tools hylo-memory calls (docs/spec.md §10), answering as Hylo's source does.

Each behaviour follows a file of Hylo's Go source (`skoowoo/hylo`, module github.com/hardhacker/hylo),
named where it is built, so a test can cite it:

- `internal/mcp/server.go`: stateless streamable HTTP answering in JSON; every result is structured
  content plus the same JSON as text; a Go error is an `isError` result carrying its text; a request
  with a foreign `Origin` is refused 403 (`http.NewCrossOriginProtection`).
- `internal/server/middleware/auth.go`: the key in `X-Hylo-API-Key`, else `Authorization: Bearer …`;
  without it, or with another, `401 Unauthorized` (loopback is not exempt).
- `internal/notes/list.go`: a listing's `size` and `updated_at` are for display (`util.FormatSize`,
  `util.FormatTime`: "1.2 KB", "2026-11-28 10:15:02" in the server's zone); `name` is the base file
  name; a `path` lists the notes directly in that folder, none below it; `kind` is "raw" when unset.
- `internal/notes/read.go`, `write.go`, `notes.go` and the server's handlers: the error texts.
- `internal/storage/vault.go`: the daily files (`ParseShortEntries`, `ListShortEntries`): `created_at`
  at the header's local time in the server's zone; `start`/`end` are UTC midnights.

    with FakeHylo(folder) as hylo:
        env = {"HYLO_API_KEY": hylo.key}; url = hylo.url
"""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, InputRequiredResult, TextContent

from . import fake_hylo_vault as vault
from .fake_hylo_vault import HyloFailure

KEY = "hylo_5f0c1e9d2b7a" + "0" * 48  # Hylo's shape ("hylo_" + 64 hex); unique, so a test can see it never leaks
TOOLS = ("short_list", "knowledge_list", "knowledge_read", "list", "read", "create", "delete")
CROSS_ORIGIN = ("cross-origin request detected, and/or browser is out of date: Sec-Fetch-Site is missing, "
                "and Origin does not match Host")


class FakeHylo:
    """A running fake Hylo over `root` (a folder in Hylo's format); `prefix` names its tools `prefix + name`.

    `zone` is the server's local zone (Go's `time.Local`): its daily headers' times and its listings
    are in it. Faults on demand: a revoked key (`refuse_key`), slow replies (`delay`), a tool's error
    (`errors`), a tool missing (`missing`), a malformed result (`malformed`), an edit made as a tool is
    called (`on_call`, `before_create`). Every call is recorded in `calls`, every request's headers in
    `headers`."""

    def __init__(self, root: Path, key: str = KEY, prefix: str = "", zone: dt.tzinfo = dt.UTC):
        self.root, self.key, self.prefix, self.zone = Path(root), key, prefix, zone
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.headers: list[dict[str, str]] = []
        self.refuse_key = False  # every key refused, as a Hylo whose key was changed
        self.delay = 0.0  # seconds before each tool replies
        self.errors: dict[str, str] = {}  # tool → the message it fails with
        self.missing: set[str] = set()  # tools the server does not offer
        self.malformed: dict[str, Any] = {}  # tool → the JSON it answers instead of its result
        self.on_call: Any = None  # called with (tool, arguments) as a tool is called: a test's edit meanwhile
        self.before_create: Any = None  # called with (path, content) before a create writes
        self._lock = threading.Lock()

    # ---- running ----

    def __enter__(self) -> FakeHylo:
        import uvicorn

        app = _Guard(_build(self).streamable_http_app(host="127.0.0.1", stateless_http=True, json_response=True),
                     self)
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_config=None, log_level="warning", lifespan="on")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        for _ in range(400):
            if self._server.started:
                break
            threading.Event().wait(0.025)
        else:
            raise RuntimeError("the fake Hylo did not start")
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.should_exit = True
        self._thread.join(10)

    @property
    def port(self) -> int:
        return int(self._server.servers[0].sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def count(self, tool: str | None = None) -> int:
        """Tool calls so far (of one tool, or all)."""
        with self._lock:
            return sum(1 for name, _ in self.calls if tool is None or name == tool)

    # ---- the tools, as Hylo answers them ----

    def list(self, path: str | None, kind: str | None, start: str | None, end: str | None, latest: int | None,
             limit: int, knowledge: bool = False) -> dict[str, Any]:
        kinds = vault.kinds_for(kind, knowledge)
        after, before = vault.bounds(start, end, latest)
        notes = vault.notes(self.root, path or None, kinds, after, before, self.zone)
        return {"notes": notes[:limit] if limit else notes}

    def read(self, path: str, knowledge: bool = False) -> dict[str, Any]:
        file, shown = vault.resolve(self.root, path, knowledge)
        return {"path": shown, "content": file.read_text(encoding="utf-8")}

    def create(self, path: str, content: str, force: bool) -> dict[str, Any]:
        vault.check_markdown_path(path)
        if not force:
            vault.check_no_conflict(self.root, path)
        if "\x00" in content:
            raise HyloFailure("content appears to be binary — only text can be stored as markdown")
        if self.before_create is not None:
            self.before_create(path, content)
        vault.write(self.root, path, content)
        return {"path": path, "lines": vault.count_lines(content)}

    def short_list(self, folder: str | None, start: str | None, end: str | None, latest: int | None,
                   limit: int) -> dict[str, Any]:
        after, before = vault.bounds(start, end, latest)
        return {"entries": vault.shorts(self.root, folder or "_shorts", after, before, limit, self.zone)}


class _Guard:
    """Hylo's handlers in front of the SDK's app: the key (auth.go), then the Origin (server.go)."""

    def __init__(self, app: Any, hylo: FakeHylo):
        self.app, self.hylo = app, hylo

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
            with self.hylo._lock:
                self.hylo.headers.append(headers)
            token = headers.get("x-hylo-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
            if self.hylo.refuse_key or token != self.hylo.key:
                await _plain(send, 401, "Unauthorized")
                return
            origin, host = headers.get("origin"), headers.get("host", "")
            if scope.get("method") not in ("GET", "HEAD", "OPTIONS") and origin \
                    and origin.split("://", 1)[-1] != host:
                await _plain(send, 403, CROSS_ORIGIN)
                return
        await self.app(scope, receive, send)


async def _plain(send: Any, status: int, message: str) -> None:
    """Go's `http.Error`: plain text, a newline after it."""
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
    await send({"type": "http.response.body", "body": f"{message}\n".encode()})


class _Server(MCPServer[Any]):
    """The SDK's server with Hylo's error results, and the fake's faults."""

    hylo: FakeHylo

    async def list_tools(self) -> Any:
        return [t for t in await super().list_tools() if t.name.removeprefix(self.hylo.prefix) not in self.hylo.missing]

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> CallToolResult | InputRequiredResult:
        hylo, bare = self.hylo, name.removeprefix(self.hylo.prefix)
        with hylo._lock:
            hylo.calls.append((bare, dict(arguments)))
        if hylo.on_call is not None:
            hylo.on_call(bare, dict(arguments))
        if hylo.delay:
            await anyio.sleep(hylo.delay)
        if bare in hylo.missing:
            return _error(f'unknown tool "{name}"')
        if bare in hylo.errors:
            return _error(hylo.errors[bare])
        if bare in hylo.malformed:
            return _result(hylo.malformed[bare])
        try:
            return _result(_answer(hylo, bare, arguments))
        except HyloFailure as exc:
            return _error(str(exc))


def _answer(hylo: FakeHylo, tool: str, a: dict[str, Any]) -> dict[str, Any]:
    """A tool's result (internal/mcp/notes.go, knowledge.go, tags_shorts.go); `omitempty` arguments unset."""
    if tool in ("list", "knowledge_list"):
        return hylo.list(a.get("path"), a.get("kind"), a.get("start"), a.get("end"), a.get("latest"),
                         int(a.get("limit") or 0), knowledge=tool == "knowledge_list")
    if tool in ("read", "knowledge_read"):
        return hylo.read(str(a.get("path", "")), knowledge=tool == "knowledge_read")
    if tool == "create":
        return hylo.create(str(a.get("path", "")), str(a.get("content", "")), bool(a.get("force")))
    if tool == "delete":
        return vault.delete(hylo.root, str(a.get("path", "")))
    if tool == "short_list":
        return hylo.short_list(a.get("dir"), a.get("start"), a.get("end"), a.get("latest"), int(a.get("limit") or 0))
    raise HyloFailure(f'unknown tool "{tool}"')


def _build(hylo: FakeHylo) -> _Server:
    """The tools with Hylo's names and arguments (their schemas); `_Server.call_tool` answers them."""
    server = _Server(name="hylo", log_level="WARNING")
    server.hylo = hylo
    p = hylo.prefix

    def listing(path: str = "", limit: int = 0, start: str = "", end: str = "", latest: int = 0,
                kind: str = "") -> dict[str, Any]:
        return {}

    def reading(path: str) -> dict[str, Any]:
        return {}

    def creating(path: str, content: str, force: bool = False) -> dict[str, Any]:
        return {}

    def shorts(limit: int = 0, start: str = "", end: str = "", latest: int = 0, dir: str = "") -> dict[str, Any]:  # noqa: A002
        return {}

    for name, shape, what in (("list", listing, "List notes, most recently updated first."),
                              ("knowledge_list", listing, "List knowledge notes and index notes."),
                              ("read", reading, "Read a note's full content."),
                              ("knowledge_read", reading, "Read a knowledge note's full content."),
                              ("create", creating, "Create a note. Fails if the path or a same-named note "
                                                   "exists unless force is set."),
                              ("delete", reading, "Permanently delete a note."),
                              ("short_list", shorts, "List individual short note entries, newest first.")):
        server.add_tool(shape, name=f"{p}{name}", description=what)
    return server


def _result(value: Any) -> CallToolResult:
    """A result as Hylo's addTool gives it: the JSON as structured content and as its text."""
    import json

    structured = value if isinstance(value, dict) else None
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(value))], structured_content=structured)


def _error(message: str) -> CallToolResult:
    """A Go error as the go-sdk returns it: an `isError` result whose text is `err.Error()`."""
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)
