"""The words every part of the memory model shares, free of the models themselves: the dimensions, the two
section headings, one line of clean text, and what ranking reads of an item and a file.

Kept apart from `model` (pydantic) so that ranking, and the command line's quick answers of `recall` and
`context` (pipeline/cli/quick.py), import no model library at all."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from enum import Enum
from typing import Protocol


class Dimension(str, Enum):
    identity = "identity"
    preferences = "preferences"
    goals = "goals"
    beliefs = "beliefs"
    people = "people"
    state = "state"

    @property
    def filename(self) -> str:
        return f"_{self.value}.md"

    @property
    def default_window(self) -> int:
        """The decay window in days that a newly created file starts with."""
        return DEFAULT_WINDOWS[self]

    @property
    def pinned_by_default(self) -> bool:
        """Standing facts are pinned by `remember`; current work and moods fade."""
        return self not in (Dimension.goals, Dimension.state)


DEFAULT_WINDOWS: dict[Dimension, int] = {
    Dimension.identity: 365,
    Dimension.preferences: 90,
    Dimension.goals: 30,
    Dimension.beliefs: 90,
    Dimension.people: 90,
    Dimension.state: 7,
}

DIMENSION_NAMES = ", ".join(d.value for d in Dimension)

ACTIVE = "Active"
FADING = "Fading"

# ANSI CSI sequences (ESC [ … or the one-byte C1 CSI), then any other C0/C1 control character.
_CSI = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")


def clean_text(text: str) -> str:
    """One line of plain text: escape sequences and control characters out, white space folded."""
    return " ".join(_CONTROL.sub("", _CSI.sub("", text)).split())


class Fact(Protocol):
    """What ranking reads of an item (`model.Item` is one)."""

    @property
    def text(self) -> str: ...

    @property
    def last(self) -> dt.date | None: ...

    @property
    def seen(self) -> int: ...

    @property
    def pinned(self) -> bool: ...


class Facts(Protocol):
    """What ranking reads of a memory file (`model.MemoryFile` is one): its window and its Active items."""

    @property
    def decay_window(self) -> int: ...

    @property
    def active(self) -> Sequence[Fact]: ...
