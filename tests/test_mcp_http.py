"""Who may call `mcp --http` (docs/spec.md §9.3; issue 38, 12g): a page of another origin — even
http://localhost:3000 — is refused (403); the server's own address and port, an `--allow-origin`, and
a client that sends no Origin are served; with a token set, a request without it is refused (401).

Through real HTTP on 127.0.0.1: the server's own app under uvicorn in a thread (the SDK's client and
raw requests against it), and the real `hylo-memory mcp --http` process for the command line's way in.
"""

from __future__ import annotations

import datetime as dt
import logging
import signal
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
import uvicorn
from cli_helpers import hylo, one_line
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_helpers import ok
from proc_helpers import Lines, cli_env

from hylo_memory.errors import ConfigError
from hylo_memory.pipeline.config import Config, load_config
from hylo_memory.pipeline.mcp.calls import Memory
from hylo_memory.pipeline.mcp.server import http_app

TODAY = dt.date(2026, 12, 2)
TOKEN = "s3cret-token-for-the-tests"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
JSON_RPC = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@contextmanager
def serving(vault: Path, **settings: Any) -> Iterator[int]:
    """The server's HTTP app for `vault` on a free port of 127.0.0.1, in a thread; yields the port."""
    vault.mkdir(parents=True, exist_ok=True)
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    port = int(listening.getsockname()[1])
    app = http_app(Memory(vault, Config(bundled_embeddings=False, **settings), TODAY), "127.0.0.1", port)
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        listening.close()


def initialize(port: int, **headers: str) -> httpx2.Response:
    """A raw `initialize` request, as a page's script (or any client) would send it."""
    return httpx2.post(f"http://127.0.0.1:{port}/mcp", json=INITIALIZE, headers={**JSON_RPC, **headers}, timeout=30)


def remember_through_the_sdk(port: int, text: str, headers: dict[str, str] | None = None) -> str:
    """`remember` through the SDK's streamable-HTTP client (which sends no Origin); the line it answered."""
    async def session() -> str:
        with anyio.fail_after(60):
            async with httpx2.AsyncClient(headers=headers or {}, timeout=60) as http:
                async with streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http) as (read, write):
                    async with ClientSession(read, write) as client:
                        await client.initialize()
                        return ok(await client.call_tool("remember", {"text": text, "dimension": "preferences"}))
    return anyio.run(session)


def preferences(vault: Path) -> str:
    path = vault / "_memory" / "_preferences.md"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_a_page_on_another_port_of_localhost_is_refused(tmp_path: Path) -> None:
    with serving(tmp_path / "vault") as port:
        refused = initialize(port, Origin="http://localhost:3000")
    assert refused.status_code == 403


def test_a_refused_page_opens_no_session(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    opened = "Created new transport"  # the SDK's line for each session it opens
    with caplog.at_level(logging.INFO, logger="mcp.server.streamable_http_manager"), serving(tmp_path / "vault") as port:
        initialize(port, Origin="http://localhost:3000")
        refused = sum(opened in r.getMessage() for r in caplog.records)
        initialize(port)
        served = sum(opened in r.getMessage() for r in caplog.records) - refused
    assert (refused, served) == (0, 1)  # else a page could use up the server's sessions


def test_pages_of_its_own_address_and_port_are_served(tmp_path: Path) -> None:
    with serving(tmp_path / "vault") as port:
        answers = {origin: initialize(port, Origin=origin).status_code
                   for origin in (f"http://127.0.0.1:{port}", f"http://localhost:{port}", f"http://[::1]:{port}")}
    assert set(answers.values()) == {200}, answers


def test_a_client_that_sends_no_origin_is_served(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    with serving(vault) as port:
        line = remember_through_the_sdk(port, "Loves modal jazz")
    assert line.startswith('Kept "Loves modal jazz"') and "Loves modal jazz" in preferences(vault)


def test_an_allowed_origin_is_served_and_any_other_still_refused(tmp_path: Path) -> None:
    with serving(tmp_path / "vault", mcp_allow_origins=["https://App.example.com/"]) as port:
        allowed = initialize(port, Origin="https://app.example.com")
        other = initialize(port, Origin="https://example.com")
    assert (allowed.status_code, other.status_code) == (200, 403)


def test_a_request_for_another_host_is_refused(tmp_path: Path) -> None:
    with serving(tmp_path / "vault") as port:
        rebound = initialize(port, Host=f"attacker.example:{port}")  # a DNS-rebinding page
    assert rebound.status_code == 421


def test_with_a_token_a_request_without_it_or_with_another_is_refused(tmp_path: Path) -> None:
    with serving(tmp_path / "vault", mcp_token=TOKEN) as port:
        missing = initialize(port)
        wrong = initialize(port, Authorization="Bearer not-the-token-at-all")
        right = initialize(port, Authorization=f"Bearer {TOKEN}")
    assert (missing.status_code, wrong.status_code, right.status_code) == (401, 401, 200)
    assert missing.headers["WWW-Authenticate"] == "Bearer" and TOKEN not in missing.text


def test_with_a_token_the_sdk_client_that_carries_it_is_served(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    with serving(vault, mcp_token=TOKEN) as port:
        line = remember_through_the_sdk(port, "Loves modal jazz", {"Authorization": f"Bearer {TOKEN}"})
    assert "Loves modal jazz" in line and "Loves modal jazz" in preferences(vault)


def test_with_a_token_a_page_of_another_origin_is_refused_even_with_the_token(tmp_path: Path) -> None:
    with serving(tmp_path / "vault", mcp_token=TOKEN) as port:
        refused = initialize(port, Origin="http://localhost:3000", Authorization=f"Bearer {TOKEN}")
    assert refused.status_code == 403


@pytest.mark.parametrize("setting", ["mcp_token", "mcp_allow_origins"])
def test_who_may_call_is_not_read_from_a_vaults_own_file(tmp_path: Path, setting: str) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    value = f'"{TOKEN}"' if setting == "mcp_token" else '["https://app.example.com"]'
    (vault / ".hylo-memory.toml").write_text(f"{setting} = {value}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=f"'{setting}' is not read from a vault's own file"):
        load_config(vault=str(vault))


def test_a_short_token_is_refused_in_one_line_that_does_not_repeat_it(tmp_path: Path) -> None:
    done = hylo("mcp", "--vault", tmp_path, "--http", "127.0.0.1:8765", "--token", "hunter2")
    assert done.exit_code == 2
    assert one_line(done.stderr).startswith("hylo-memory mcp: Invalid value for '--token': must be at least 16")
    assert "hunter2" not in done.stderr


def test_an_allow_origin_that_is_no_origin_is_refused_in_one_line(tmp_path: Path) -> None:
    done = hylo("mcp", "--vault", tmp_path, "--http", "127.0.0.1:8765", "--allow-origin", "localhost:3000/app")
    assert done.exit_code == 2 and "is not a web origin like https://app.example.com" in one_line(done.stderr)


@pytest.mark.parametrize("option", [("--token", TOKEN), ("--allow-origin", "https://app.example.com")])
def test_the_http_options_without_http_are_a_usage_mistake(tmp_path: Path, option: tuple[str, str]) -> None:
    done = hylo("mcp", "--vault", tmp_path, *option)
    assert done.exit_code == 2 and f"{option[0]} is for --http" in one_line(done.stderr)


@pytest.mark.slow  # the real process
def test_the_command_asks_for_the_token_it_was_given_in_the_environment(tmp_path: Path, processes) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    serving_process = processes.start(["mcp", "--vault", str(vault), "--today", "2026-12-02", "--http",
                                       f"127.0.0.1:{port}", "--allow-origin", "https://app.example.com"],
                                      cli_env(tmp_path / "home", HYLO_MEMORY_MCP_TOKEN=TOKEN))
    log = Lines(serving_process.stderr)
    log.wait_for(f"running on http://127.0.0.1:{port}", timeout=60)
    assert initialize(port).status_code == 401
    assert initialize(port, Origin="http://localhost:3000", Authorization=f"Bearer {TOKEN}").status_code == 403
    assert initialize(port, Origin="https://app.example.com", Authorization=f"Bearer {TOKEN}").status_code == 200
    line = remember_through_the_sdk(port, "Loves modal jazz", {"Authorization": f"Bearer {TOKEN}"})
    assert "Loves modal jazz" in line and "Loves modal jazz" in preferences(vault)
    serving_process.send_signal(signal.SIGINT)
    assert serving_process.wait(timeout=30) == 130
    assert TOKEN not in "".join(log.rest())
