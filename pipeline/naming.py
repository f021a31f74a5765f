"""How a door names what its reader does next (docs/development.md: the names of commands and tools live in the
doors). A text that advises a step names it by its `Step`, and says it with the `Naming` of the door it answers
through; the command line and the MCP server each make their own (cli/options.py, mcp/calls.py)."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum, auto


class Step(Enum):
    """A step the memory's texts advise its reader to take."""

    INDEX = auto()  # embed the items (and index the notes) now
    REFRESH = auto()  # read the notes written since the last run
    CONTEXT = auto()  # the whole memory, as one block
    REMEMBER = auto()  # record one stated fact
    STATUS = auto()  # what is wrong, and what waits
    FORGET = auto()  # remove an item for good
    UNFORGET = auto()  # let a forgotten item be kept again
    CANDIDATES = auto()  # the facts waiting for a second sighting
    PROMOTE = auto()  # write a waiting fact now
    REJECT = auto()  # drop a waiting fact for good
    INIT = auto()  # choose which folders to read
    PENDING = auto()  # the next batch of notes, for the assistant to read
    SCHEDULE = auto()  # keep the memory fresh on a schedule
    SKILL = auto()  # install the reader's skill


@dataclass(frozen=True)
class Naming:
    """`next_batch`: how the reader asks for the next batch of notes; `answer`: how it answers a batch;
    `commands`: the command line's words for every step; `tools`: the steps the door's reader takes with a tool of
    its own, by the tool's name (an MCP server's), said instead of the command."""

    next_batch: str
    answer: str
    commands: Mapping[Step, str]
    tools: Mapping[Step, str] = field(default_factory=dict)

    def say(self, step: Step, *placeholders: str, **values: str) -> str:
        """The step as this door's reader takes it, its `values` quoted as that door reads them: "`hylo-memory forget
        'Is vegan' --dimension preferences`" (`text` is the command's argument, the rest its flags), or "the `forget`
        tool with {"text": "Is vegan", "dimension": "preferences"}" where the door has a tool for it. `placeholders`
        ("TEXT") are said as they are."""
        if step in self.tools:
            given = [*placeholders, *([json.dumps(values, ensure_ascii=False)] if values else [])]
            return f"the `{self.tools[step]}` tool" + (f" with {' '.join(given)}" if given else "")
        text = [shlex.quote(values.pop("text"))] if "text" in values else []
        flags = [f"--{name} {shlex.quote(value)}" for name, value in values.items()]
        return self.command(step, *placeholders, *text, *flags)

    def command(self, step: Step, *args: str) -> str:
        """The step as the command line takes it, whatever the door: for a flag no tool takes (`--retry-stuck`)."""
        return f"`{' '.join([self.commands[step], *args])}`"
