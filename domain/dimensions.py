"""The words every part of the memory model shares, free of the models themselves: the dimensions, the two
section headings, one line of clean text, and what ranking reads of an item and a file.

Kept apart from `items` and `evidence` (pydantic) so that ranking, and the command line's quick answers of `recall`
and `context` (pipeline/cli/quick.py), import no model library at all."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from enum import Enum
from typing import Protocol, TypeVar


class Row(str, Enum):
    """A dimension and everything decided about it: a row of the one table, `Dimension`.

    Every list of the dimensions derives from that table — the memory files, their default windows, the context
    block's sections, the prompts' lists, the reply schemas, the options' help — so a dimension added to it is
    everywhere at once, and one left out of it is nowhere."""

    _value_: str
    default_window: int  # the decay window in days that a newly created file starts with
    pinned_by_default: bool  # standing facts are pinned by `remember`; current work and moods fade
    place: int  # its section's place in the context block
    extract_hint: str  # what it holds, as the extraction prompt tells the model (templates/extract_instructions.j2)
    classify_hint: str  # what it holds, as `remember`'s classification prompt tells it (classify_instructions.j2)

    # Defaults only so that a type checker takes `Dimension("goals")` (a look-up by name) for a call: a row gives
    # every column, or the table does not load.
    def __new__(cls, value: str, window: int = 0, pinned: bool = False, place: int = -1, extract_hint: str = "",
                classify_hint: str = "") -> Row:
        if window < 1 or place < 0 or not extract_hint or not classify_hint:
            raise TypeError(f"the dimension {value!r} needs every column of the table")
        member = str.__new__(cls, value)
        member._value_ = value
        member.default_window = window
        member.pinned_by_default = pinned
        member.place = place
        member.extract_hint = extract_hint
        member.classify_hint = classify_hint
        return member

    @property
    def filename(self) -> str:
        return f"_{self.value}.md"

    @property
    def heading(self) -> str:
        """Its section's title in the context block."""
        return self._value_.capitalize()


class Dimension(Row):
    """The dimensions: the one table (docs/spec.md §2). The context block orders them by `place`: who the person
    is and who is around them, then how they think, then now."""

    # name, default window (days), pinned by default, place in context, then its two descriptions in the prompts
    identity = ("identity", 365, True, 0, "stable facts: name, job title, employer, location, family, languages.",
                "stable facts: name, job, location, family, languages")
    preferences = ("preferences", 90, True, 2, "likes, dislikes, tools of choice, tastes held as the author's own.",
                   'likes, dislikes, tools, tastes, standing instructions such as "always answer in English"')
    goals = ("goals", 30, False, 4, "active projects, ambitions, what they work toward.",
             "active projects and ambitions")
    beliefs = ("beliefs", 90, True, 3, "worldview, recurring opinions, values they endorse.", "worldview, values")
    people = ("people", 90, True, 1,
              'named people and their relationship to the author, as "Name — relationship".',
              "named individuals and their relationship to the person")
    state = ("state", 7, False, 5, "near-term mood, struggles, what is top of mind.",
             "near-term mood, current struggles, what is top of mind")


R = TypeVar("R", bound=Row)


def names_of(table: Iterable[Row]) -> str:
    """The dimensions' names as a sentence lists them: "identity, preferences, …"."""
    return ", ".join(d.value for d in table)


def windows_of(table: Iterable[R]) -> dict[R, int]:
    """Each dimension's default decay window, in days."""
    return {d: d.default_window for d in table}


def sections_of(table: Iterable[R]) -> tuple[R, ...]:
    """The dimensions in the context block's order."""
    return tuple(sorted(table, key=lambda d: d.place))


DEFAULT_WINDOWS: dict[Dimension, int] = windows_of(Dimension)
DIMENSION_NAMES = names_of(Dimension)

ACTIVE = "Active"
FADING = "Fading"

# ANSI CSI sequences (ESC [ … or the one-byte C1 CSI), then any other C0/C1 control character.
_CSI = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")


def clean_text(text: str) -> str:
    """One line of plain text: escape sequences and control characters out, white space folded."""
    return " ".join(_CONTROL.sub("", _CSI.sub("", text)).split())


class Fact(Protocol):
    """What ranking reads of an item (`items.Item` is one)."""

    @property
    def text(self) -> str: ...

    @property
    def last(self) -> dt.date | None: ...

    @property
    def seen(self) -> int: ...

    @property
    def pinned(self) -> bool: ...


class Facts(Protocol):
    """What ranking reads of a memory file (`items.MemoryFile` is one): its window and its Active items."""

    @property
    def decay_window(self) -> int: ...

    @property
    def active(self) -> Sequence[Fact]: ...
