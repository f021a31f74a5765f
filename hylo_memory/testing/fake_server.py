"""The fake OpenAI server's HTTP plumbing: a real server, so the real ``openai`` client (httpx) is what is tested.

Stdlib ``ThreadingHTTPServer`` on 127.0.0.1, an ephemeral port, one thread per connection, HTTP/1.1 keep-alive
as a real API server keeps it, chunked request bodies read. What a request is answered is not its business: it
hands each one to ``LocalServer._exchange`` (``FakeOpenAI`` says what to answer) and writes back what it gets.

Tests stop servers whose clients timed out, so ``close`` must not wait for them: it wakes the requests waiting
in ``_wait`` (latency, delays; they give up with ``Stopped`` and their connection is dropped unanswered),
unblocks idle keep-alive readers and joins every thread with a bound.
"""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

__all__ = ["LocalServer", "Stopped"]


class Stopped(Exception):
    """The server stopped while a request was waiting."""


class LocalServer:
    """A server on 127.0.0.1 that runs in a thread, from ``start`` (or ``with``) to ``close``."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def _exchange(self, method: str, path: str, headers: dict[str, str], body: Any,
                  raw_body: bytes) -> tuple[int, dict[str, str], bytes]:
        """The status, headers and payload to answer a request with (called from the connection's thread);
        may raise ``Stopped``."""
        raise NotImplementedError

    def _wait(self, seconds: float) -> None:
        """Sleep ``seconds``, or raise ``Stopped`` as soon as the server stops."""
        if seconds and seconds > 0 and self._stop.wait(seconds):
            raise Stopped
        if self._stop.is_set():
            raise Stopped

    # -- lifecycle --------------------------------------------------------- #

    def start(self) -> Self:
        if self._server is not None:
            raise RuntimeError(f"{type(self).__name__} already started")
        self._stop.clear()
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-openai-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def close(self) -> None:
        server, thread = self._server, self._thread
        if server is None:
            return
        self._stop.set()  # wake requests sleeping in latency / delay
        server.shutdown()  # stop accepting
        if thread is not None:
            thread.join()
        with server.conn_lock:
            connections = list(server.connections)
            threads = list(server.handler_threads)
        for conn in connections:  # unblock idle keep-alive readers
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for t in threads:
            t.join(timeout=5)
        server.server_close()
        self._server = self._thread = None

    stop = close

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- addresses --------------------------------------------------------- #

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError(f"{type(self).__name__} is not running")
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # we join them ourselves, with a bound
    block_on_close = False
    allow_reuse_address = False

    def __init__(self, owner: LocalServer) -> None:
        self.owner = owner
        self.conn_lock = threading.Lock()
        self.connections: set[socket.socket] = set()
        self.handler_threads: set[threading.Thread] = set()
        super().__init__(("127.0.0.1", 0), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:  # one thread per connection
        with self.conn_lock:
            self.connections.add(request)
            self.handler_threads = {t for t in self.handler_threads if t.is_alive()}
            t = threading.Thread(
                target=self.process_request_thread,
                args=(request, client_address),
                name=f"fake-openai-conn-{client_address[1]}",
                daemon=True,
            )
            self.handler_threads.add(t)
        t.start()

    def shutdown_request(self, request: Any) -> None:
        with self.conn_lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients hanging up (timeouts, teardown) are expected; stay quiet.
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like a real API server
    server_version = "FakeOpenAI/1.0"
    timeout = 60  # idle keep-alive connections give up eventually
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence stderr
        pass

    def do_GET(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    def do_PUT(self) -> None:
        self._dispatch()

    def do_DELETE(self) -> None:
        self._dispatch()

    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _dispatch(self) -> None:
        raw_body = self._read_body()
        try:
            body = json.loads(raw_body) if raw_body else None
        except ValueError:
            body = None
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            status, answer_headers, payload = self.server.owner._exchange(
                self.command, self.path.split("?", 1)[0], headers, body, raw_body)
        except Stopped:
            self.close_connection = True
            return
        self.send_response(status)
        for name, value in answer_headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()
