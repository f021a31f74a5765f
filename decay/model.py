"""The words of the memory model: dimensions, items, evidence and memory files."""

from __future__ import annotations

import datetime as dt
from enum import Enum

from pydantic import BaseModel, ConfigDict, Field, field_validator


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
MAX_ITEM_TEXT = 300  # characters: an item is one line, not a paragraph (a stated fact and a model's wording alike)


class Item(BaseModel):
    """One bullet of a memory file: a remembered fact with its metadata."""

    model_config = ConfigDict(frozen=True)

    text: str
    last: dt.date
    seen: int = Field(ge=1)
    pinned: bool = False


class RawLine(BaseModel):
    """A line hylo-memory does not own (a comment, a heading, prose): kept as written."""

    model_config = ConfigDict(frozen=True)

    text: str


Entry = Item | RawLine


class Section(BaseModel):
    """A `## ` heading and the lines under it, in file order."""

    heading: str
    entries: list[Entry] = []


class MemoryFile(BaseModel):
    """One dimension's memory file, parsed; rendering it gives the file back."""

    dimension: Dimension
    decay_window: int = Field(ge=1)
    last_updated: dt.date | None = None
    # Frontmatter lines other than decay_window/last_updated, kept verbatim.
    extra_frontmatter: list[str] = []
    preamble: list[RawLine] = []
    sections: list[Section] = []

    @classmethod
    def new(cls, dimension: Dimension) -> MemoryFile:
        return cls(
            dimension=dimension,
            decay_window=dimension.default_window,
            sections=[Section(heading=ACTIVE, entries=[RawLine(text="")]), Section(heading=FADING)],
        )

    def section(self, heading: str) -> Section:
        """The Active or Fading section, created (in canonical order) when missing."""
        for s in self.sections:
            if s.heading == heading:
                return s
        created = Section(heading=heading)
        if heading == ACTIVE:
            self.sections.insert(0, created)
            created.entries.append(RawLine(text=""))
        else:
            if self.sections and not _ends_blank(self.sections[-1]):
                self.sections[-1].entries.append(RawLine(text=""))
            self.sections.append(created)
        return created

    @property
    def active(self) -> list[Item]:
        return self._items_under(ACTIVE)

    @property
    def fading(self) -> list[Item]:
        return self._items_under(FADING)

    def _items_under(self, heading: str) -> list[Item]:
        # Reading never adds a section: only `section()`, which writers call, does.
        return [e for s in self.sections if s.heading == heading for e in s.entries if isinstance(e, Item)]

    @property
    def items(self) -> list[Item]:
        return self.active + self.fading


def _ends_blank(section: Section) -> bool:
    return bool(section.entries) and isinstance(section.entries[-1], RawLine) and not section.entries[-1].text.strip()


ACTIVE = "Active"
FADING = "Fading"


class Evidence(BaseModel):
    """A proposal from an extractor: this dimension holds this fact, seen in this source."""

    model_config = ConfigDict(frozen=True)

    dimension: Dimension
    text: str = Field(min_length=1)
    source: str = Field(min_length=1)
    matches: str | None = None
    pinned: bool = False
    date: dt.date | None = None

    @field_validator("text", "source")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("must not be blank")
        return value
