"""Items and memory files: a remembered fact with its metadata, and one dimension's file of them, parsed."""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .dimensions import ACTIVE, FADING, Dimension

MAX_ITEM_TEXT = 300  # characters: an item is one line, not a paragraph (a stated fact and a model's wording alike)


class Layout(BaseModel):
    """How the person wrote an item's line, so an unchanged item is written back as it was."""

    model_config = ConfigDict(frozen=True)

    head: str = "- "  # indentation, bullet marker and the space after it
    gap: str = " "  # between the text and the metadata span
    line: str | None = None  # the line as read, written back while the item is unchanged
    key: tuple[Any, ...] | None = None  # the item as read from `line`


class Item(BaseModel):
    """One bullet of a memory file: a remembered fact with its metadata.

    Equality is the fact's (text, metadata, note, nested lines), never its `layout`.
    """

    model_config = ConfigDict(frozen=True)

    text: str
    last: dt.date | None  # None: a hand-written bullet not yet given metadata (it is adopted)
    seen: int = Field(ge=1)
    pinned: bool = False
    note: str = ""  # what the person wrote after the metadata span, kept with the item
    children: tuple[str, ...] = ()  # the indented lines under the item, as written: they move with it
    layout: Layout | None = Field(default=None, repr=False)

    def key(self) -> tuple[Any, ...]:
        return self.text, self.last, self.seen, self.pinned, self.note, self.children

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Item):
            return NotImplemented
        return self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())


class RawLine(BaseModel):
    """A line hylo-memory does not own (a comment, a heading, prose): kept as written."""

    model_config = ConfigDict(frozen=True)

    text: str


Entry = Item | RawLine


class Section(BaseModel):
    """A `## ` heading and the lines under it, in file order."""

    heading: str
    entries: list[Entry] = []
    line: str | None = None  # an Active or Fading heading as written, when not exactly `## Active`


class MemoryFile(BaseModel):
    """One dimension's memory file, parsed; rendering it gives the file back."""

    dimension: Dimension
    decay_window: int = Field(ge=1)
    last_updated: dt.date | None = None
    # Frontmatter lines other than decay_window/last_updated, kept verbatim.
    extra_frontmatter: list[str] = []
    preamble: list[RawLine] = []
    sections: list[Section] = []
    # The frontmatter's lines as written (delimiters included) when they are not exactly what
    # `render` would write; None for a canonical file or one without frontmatter.
    frontmatter: list[str] | None = None
    newline: str = "\n"  # the file's line ending, "\n" or "\r\n"
    bom: bool = False  # the file began with a byte-order mark
    final_newline: bool = True  # the last line ended with a line ending

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
