"""`hylo-memory mcp`: the memory served over the Model Context Protocol (docs/spec.md §9), registered by `group`.

The command line knows no server: it parses the command's options, opens the vault, and hands them to
the server the program plugged in (hylo_memory/console.py plugs the MCP door's). So neither door
imports the other, and each can be read, tested and replaced alone."""

from __future__ import annotations

import datetime as dt
import logging
import sys
from pathlib import Path
from typing import Any

import click

from hylo_memory.errors import ConfigError
from hylo_memory.pipeline.cli.options import PROG, options, setup

LOOPBACK = ("127.0.0.1", "localhost", "::1")


class LoopbackAddress(click.ParamType):  # type: ignore[type-arg]  # generic only from click 8.2 on
    """HOST:PORT on this machine's loopback interface: the memory is never served to the network."""

    name = "127.0.0.1:PORT"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> tuple[str, int]:
        if isinstance(value, tuple):
            return value
        host, colon, port = str(value).rpartition(":")
        host = host.removeprefix("[").removesuffix("]")
        if not colon or not port.isdigit() or not 1 <= int(port) <= 65_535:
            self.fail(f"{value!r} is not HOST:PORT (e.g. 127.0.0.1:8765)", param, ctx)
        if host not in LOOPBACK:
            self.fail(f"{host!r} is not a loopback address: the memory is served to this machine only "
                      f"(127.0.0.1, localhost or [::1])", param, ctx)
        return host, int(port)


class WebOrigin(click.ParamType):  # type: ignore[type-arg]  # generic only from click 8.2 on
    """A web page's origin, `scheme://host[:port]`, as a browser sends it."""

    name = "ORIGIN"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from hylo_memory.pipeline.config import web_origin

        try:
            return web_origin(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


class Token(click.ParamType):  # type: ignore[type-arg]
    """A bearer token; what is wrong with one is said without it."""

    name = "TOKEN"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from hylo_memory.pipeline.config import token_problem

        if problem := token_problem(str(value)):
            self.fail(problem, param, ctx)
        return str(value)


def _log_to_stderr() -> None:
    """Every log line on stderr, once: stdout carries the protocol alone."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"{PROG}: mcp: %(levelname)s: %(name)s: %(message)s"))
    # Set before the SDK's server is made, so its own logging setup (a root handler of its choosing) does nothing.
    logging.basicConfig(level=logging.WARNING, handlers=[handler])  # not a line per HTTP request to the LLM
    for name in ("mcp", "uvicorn"):  # but each failed tool call, and where an HTTP server listens
        logging.getLogger(name).setLevel(logging.INFO)
    logging.getLogger("hylo_memory").propagate = False  # it has its own `hylo-memory: …` handler already


@click.command("mcp", help="serve the memory to assistants over the Model Context Protocol (stdio)")
@options(extractor=True)
@click.option("--http", type=LoopbackAddress(),
              help="serve streamable HTTP at this loopback address (e.g. 127.0.0.1:8765, path /mcp) instead of stdio")
@click.option("--allow-origin", "allow_origins", type=WebOrigin(), multiple=True,
              help="with --http: pages of this web origin may call it too (e.g. https://app.example.com; repeatable); "
                   "pages of any origin but its own address are refused (403), clients that send none are served")
@click.option("--token", type=Token(),
              help="with --http: every request must carry `Authorization: Bearer TOKEN` (else 401); the setting "
                   "`mcp_token` (HYLO_MEMORY_MCP_TOKEN) keeps it out of the process list")
@click.pass_context
def mcp_command(ctx: click.Context, vault: Path | None, config_file: Path | None, today: dt.date | None,
                extractor: str | None, http: tuple[str, int] | None, allow_origins: tuple[str, ...],
                token: str | None) -> int:
    if http is None and (allow_origins or token):
        raise click.UsageError(f"{'--token' if token else '--allow-origin'} is for --http: stdio has no web pages "
                               "and no one else to keep out", ctx)
    server = getattr(ctx.find_root().command, "servers", {}).get("mcp")
    if server is None:
        raise ConfigError("this program has no MCP server plugged in: run the `hylo-memory` command")
    # A bad vault fails here, before serving.
    config, vault = setup(ctx, config_file, vault, extractor, mcp_token=token,
                          mcp_allow_origins=list(allow_origins) or None)
    _log_to_stderr()
    server(vault, config, today, http)
    return 0


COMMANDS: list[click.Command] = [mcp_command]
