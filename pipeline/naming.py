"""How a door names what its reader does next (docs/development.md: the names of commands and tools live in the
doors). An operation whose text must name the next step takes a `Naming` from the door it answers through; the
command line and the MCP server each make their own (cli/options.py, mcp/calls.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Naming:
    """`next_batch`: how the reader asks for the next batch of notes; `answer`: how it answers a batch;
    `forget` and `unforget`: the words that, followed by an item's text, forget it or let it be kept again."""

    next_batch: str
    answer: str
    forget: str
    unforget: str
