"""The console script. `hylo-memory --version` is answered before the command line is imported (a script
that checks the version pays for no more than Python's own start), and so are `recall` and `context` when
the quick path can answer them (pipeline/cli/quick.py); everything else is the click group.

It is also where the two doors meet: the command line's `mcp` command starts the MCP door's server,
plugged in here, so neither door imports the other (docs/development.md)."""

from __future__ import annotations

import os
import sys
from typing import Any


def main() -> None:
    if sys.argv[1:] == ["--version"]:
        from hylo_memory.pipeline.version import version_line

        sys.stdout.write(version_line() + "\n")
        return
    if sys.argv[1:2] in (["recall"], ["context"]):
        from hylo_memory.pipeline.cli.quick import answer

        if answer(sys.argv[1:]):  # from the memos, when they hold the memory as it is (docs/spec.md §9)
            return
    # pydantic looks for plugins by reading every installed package's metadata on its first model: a
    # command line has none to load, and the look costs each command more than its own work.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from hylo_memory.pipeline.cli.group import cli

    cli.plug("mcp", _serve_mcp)
    cli()


def _serve_mcp(*args: Any) -> None:
    from hylo_memory.pipeline.mcp.server import serve_vault  # the SDK loads only for this command

    serve_vault(*args)
