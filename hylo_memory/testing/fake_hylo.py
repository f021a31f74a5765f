"""A fake Hylo: its MCP server's six tools (docs/spec.md §10) over a folder in Hylo's format, made with the SDK.

Streamable HTTP on 127.0.0.1, a bearer key checked on every request, the tools with Hylo's own
argument names and result shapes, so `create` writes files a test can read. Faults on demand:
a refused key (`refuse_key`), slow replies (`delay`), a tool's error (`errors`), a tool missing
(`missing`), a malformed result (`malformed`). Every call is recorded in `calls`.

    with FakeHylo(folder) as hylo:
        env = {"HYLO_API_KEY": hylo.key}; url = hylo.url
"""

from __future__ import annotations

import datetime as dt
import json
import threading
from pathlib import Path
from typing import Any

import anyio
import frontmatter
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, InputRequiredResult, TextContent

from hylo_memory.pipeline.hylo_shorts import entries, is_daily

KEY = "hylo-test-key-5f0c1e9d2b7a"  # long and unique: a test can see it is never printed nor stored
TOOLS = ("short_list", "knowledge_list", "knowledge_read", "list", "read", "create")


class FakeHylo:
    """A running fake Hylo over `root` (a folder in Hylo's format); `prefix` names its tools `prefix + name`."""

    def __init__(self, root: Path, key: str = KEY, prefix: str = "", zone: dt.tzinfo = dt.UTC):
        self.root, self.key, self.prefix, self.zone = Path(root), key, prefix, zone
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.refuse_key = False  # every request answered 403, as a Hylo whose key was revoked
        self.delay = 0.0  # seconds before each tool replies
        self.errors: dict[str, str] = {}  # tool → the message it fails with
        self.missing: set[str] = set()  # tools the server does not offer
        self.malformed: dict[str, Any] = {}  # tool → the JSON it answers instead of its result
        self.before_create: Any = None  # called with (path, content) before a create writes: a test's edit
        self._lock = threading.Lock()

    # ---- running ----

    def __enter__(self) -> FakeHylo:
        import uvicorn

        app = _Guard(_build(self).streamable_http_app(host="127.0.0.1", stateless_http=True), self)
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

    # ---- the vault ----

    def file(self, path: str) -> Path:
        """The file a vault-absolute path names, kept inside the folder."""
        rel = path.strip().lstrip("/")
        target = (self.root / rel).resolve()
        if not target.is_relative_to(self.root.resolve()) or not rel:
            raise ToolError(f"invalid path: {path}")
        return target

    def vault_path(self, file: Path) -> str:
        return "/" + file.resolve().relative_to(self.root.resolve()).as_posix()

    def notes(self, folder: str, kind: str | None, start: str | None, end: str | None, latest: int | None,
              limit: int) -> list[dict[str, Any]]:
        top = self.file(folder) if folder.strip("/") else self.root.resolve()
        found = []
        for file in sorted(top.rglob("*.md")) if top.is_dir() else []:
            if any(p.startswith(".") for p in file.relative_to(self.root.resolve()).parts):
                continue
            its_kind = _kind(file)
            stat = file.stat()
            updated = dt.datetime.fromtimestamp(stat.st_mtime, self.zone)
            if (kind and its_kind != kind) or not _in_range(updated.date(), start, end, latest, self.zone):
                continue
            path = self.vault_path(file)
            found.append({"path": path, "name": file.name, "dir": path.rsplit("/", 1)[0] or "/",
                          "size": stat.st_size, "updated_at": updated.isoformat(), "kind": its_kind})
        found.sort(key=lambda n: str(n["updated_at"]), reverse=True)
        return found[:limit] if limit else found

    def shorts(self, folder: str, start: str | None, end: str | None, latest: int | None,
               limit: int) -> list[dict[str, Any]]:
        top = self.file(folder)
        found = []
        for file in sorted(top.glob("*.md")) if top.is_dir() else []:
            post = frontmatter.loads(file.read_text(encoding="utf-8"))
            if not is_daily(post.metadata):
                continue
            for entry in entries(post.content):
                if _in_range(entry.day, start, end, latest, self.zone):
                    stamp = dt.datetime.combine(entry.day, dt.time.fromisoformat(entry.time), self.zone)
                    found.append({"content": entry.text, "created_at": stamp.isoformat(),
                                  "daily_path": self.vault_path(file)})
        found.sort(key=lambda e: e["created_at"], reverse=True)
        return found[:limit] if limit else found

    def find(self, path: str) -> Path:
        """A note by vault-absolute path, or by bare file name (as Hylo's `read` takes it)."""
        if "/" not in path.strip("/") and not path.startswith("/"):
            named = [f for f in sorted(self.root.rglob(path if path.endswith(".md") else f"{path}.md"))]
            if len(named) == 1:
                return named[0]
        file = self.file(path)
        if not file.is_file():
            raise ToolError(f"note not found: {path}")
        return file

    def create(self, path: str, content: str, force: bool) -> dict[str, Any]:
        file = self.file(path)
        if not force:
            if file.exists():
                raise ToolError(f"note already exists: {path} (use force to overwrite)")
            same = [f for f in self.root.rglob(file.name) if f.is_file()]
            if same:
                raise ToolError(f"a note named {file.name} already exists: {self.vault_path(same[0])}")
        if self.before_create is not None:
            self.before_create(path, content)
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(content, encoding="utf-8")
        return {"path": self.vault_path(file), "lines": content.count("\n") + (0 if content.endswith("\n") else 1)}


class _Guard:
    """The bearer-key check in front of the SDK's app: 401 without the key, 403 when it is refused."""

    def __init__(self, app: Any, hylo: FakeHylo):
        self.app, self.hylo = app, hylo

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            given = headers.get(b"authorization", b"").decode("latin-1")
            status = 403 if self.hylo.refuse_key else (401 if given != f"Bearer {self.hylo.key}" else 0)
            if status:
                body = json.dumps({"error": "unauthorized" if status == 401 else "forbidden"}).encode()
                await send({"type": "http.response.start", "status": status,
                            "headers": [(b"content-type", b"application/json")]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


class _Server(MCPServer[Any]):
    """The SDK's server with the fake's faults: tools hidden, made slow, failing, or answering nonsense."""

    hylo: FakeHylo

    async def list_tools(self) -> Any:
        return [t for t in await super().list_tools() if t.name.removeprefix(self.hylo.prefix) not in self.hylo.missing]

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> CallToolResult | InputRequiredResult:
        hylo, bare = self.hylo, name.removeprefix(self.hylo.prefix)
        with hylo._lock:
            hylo.calls.append((bare, dict(arguments)))
        if hylo.delay:
            await anyio.sleep(hylo.delay)
        if bare in hylo.missing:
            raise ToolError(f"Unknown tool: {name}")
        if bare in hylo.errors:
            raise ToolError(hylo.errors[bare])
        if bare in hylo.malformed:
            return _result(hylo.malformed[bare])
        return await super().call_tool(name, arguments, context)


def _build(hylo: FakeHylo) -> _Server:
    server = _Server(name="hylo", log_level="WARNING")
    server.hylo = hylo
    p = hylo.prefix

    @server.tool(name=f"{p}short_list", description="List short notes, newest first.")
    def short_list(limit: int = 0, start: str | None = None, end: str | None = None, latest: int | None = None,
                   dir: str = "_shorts") -> CallToolResult:  # noqa: A002 - Hylo's own argument name
        _no_latest_with_range(latest, start, end)
        return _result({"entries": hylo.shorts(dir, start, end, latest, limit)})

    @server.tool(name=f"{p}knowledge_list", description="List knowledge notes, newest first.")
    def knowledge_list(path: str = "/_knowledge", limit: int = 0, start: str | None = None, end: str | None = None,
                       latest: int | None = None, kind: str | None = None) -> CallToolResult:
        _no_latest_with_range(latest, start, end)
        if kind not in (None, "knowledge", "index"):
            raise ToolError(f"invalid kind: {kind}")
        return _result({"notes": hylo.notes(path, kind, start, end, latest, limit)})

    @server.tool(name=f"{p}knowledge_read", description="Read a knowledge note.")
    def knowledge_read(path: str) -> CallToolResult:
        file = hylo.find(path)
        return _result({"path": hylo.vault_path(file), "content": file.read_text(encoding="utf-8")})

    @server.tool(name=f"{p}list", description="List notes in a folder, newest first.")
    def list_(path: str = "/", limit: int = 0, start: str | None = None, end: str | None = None,
              latest: int | None = None, kind: str | None = None) -> CallToolResult:
        _no_latest_with_range(latest, start, end)
        return _result({"notes": hylo.notes(path, kind, start, end, latest, limit)})

    @server.tool(name=f"{p}read", description="Read a note by path or file name.")
    def read(path: str) -> CallToolResult:
        file = hylo.find(path)
        return _result({"path": hylo.vault_path(file), "content": file.read_text(encoding="utf-8")})

    @server.tool(name=f"{p}create", description="Create a note; force overwrites.")
    def create(path: str, content: str, force: bool = False) -> CallToolResult:
        return _result(hylo.create(path, content, force))

    del list_  # registered under its name; the function itself is not needed
    return server


def _result(value: Any) -> CallToolResult:
    """A result as Hylo gives it: the JSON as structured content and as its text."""
    text = json.dumps(value)
    structured = value if isinstance(value, dict) else None
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


def _no_latest_with_range(latest: int | None, start: str | None, end: str | None) -> None:
    if latest is not None and (start or end):
        raise ToolError("latest cannot be combined with start/end")


def _in_range(day: dt.date, start: str | None, end: str | None, latest: int | None, zone: dt.tzinfo) -> bool:
    try:
        if start and day < dt.date.fromisoformat(start):
            return False
        if end and day >= dt.date.fromisoformat(end):
            return False
    except ValueError as exc:
        raise ToolError(f"invalid date: {exc}") from None
    if latest is not None:
        return day > dt.datetime.now(zone).date() - dt.timedelta(days=latest)
    return True


def _kind(file: Path) -> str:
    try:
        meta = frontmatter.loads(file.read_text(encoding="utf-8")).metadata
    except Exception:  # noqa: BLE001 - a hand-broken note is a raw one, as a listing shows it
        return "raw"
    kind = meta.get("kind")
    return kind if kind in ("short", "knowledge", "index") else "raw"
