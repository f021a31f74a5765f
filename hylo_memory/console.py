"""The console script. `hylo-memory --version` is answered before the command line is imported (a script
that checks the version pays for no more than Python's own start), and so are `recall` and `context` when
the quick path can answer them (pipeline/commands/quick.py); everything else is the click group."""

from __future__ import annotations

import os
import sys


def main() -> None:
    if sys.argv[1:] == ["--version"]:
        from hylo_memory.pipeline.commands.version import version_line

        sys.stdout.write(version_line() + "\n")
        return
    if sys.argv[1:2] in (["recall"], ["context"]):
        from hylo_memory.pipeline.commands.quick import answer

        if answer(sys.argv[1:]):  # from the memos, when they hold the memory as it is (docs/spec.md §9)
            return
    # pydantic looks for plugins by reading every installed package's metadata on its first model: a
    # command line has none to load, and the look costs each command more than its own work.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from hylo_memory.pipeline.commands.cli import cli

    cli()
