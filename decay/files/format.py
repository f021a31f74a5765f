"""Parse a memory file into a `MemoryFile` and render it back, byte for byte.

What the person wrote is kept as written: line endings, a byte-order mark, the frontmatter,
headings, bullet markers, fenced code (never read for sections or items) and the indented
lines under an item, which belong to it. Only what the rules change is rewritten.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator
from contextlib import contextmanager

from hylo_memory.domain.dimensions import ACTIVE, FADING, Dimension
from hylo_memory.domain.items import Entry, Item, MemoryFile, RawLine, Section
from hylo_memory.errors import MemoryFileError

from .frontmatter import canonical_frontmatter, parse_frontmatter, render_frontmatter, split_frontmatter
from .frontmatter import yaml_error_line as yaml_error_line
from .lines import canonical_item, fence_closes, fence_opened, is_child, item_line, parse_item

_HEADING = re.compile(r"^##\s+(?P<title>.+?)\s*#*\s*$")
_BOM = "\ufeff"
_INDENT = (" ", "\t")
_OWNED = (ACTIVE, FADING)


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a file's items are built or ruled on.

    Those steps allocate an object or more per item and create no reference cycles; with
    the collector running, its full passes over every live object took about a third of
    the time at 100,000 items. Reference counting still frees everything as usual.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def parse(text: str, dimension: Dimension, path: str = "") -> MemoryFile:
    """Parse a memory file; raise `MemoryFileError` (path and line) where it is hand-broken."""
    with gc_paused():
        return _parse(text, dimension, path or dimension.filename)


def split_lines(text: str) -> tuple[list[str], str, bool]:
    """The lines without their endings, the file's line ending, and whether the last line had one.

    The ending is the first line's; in a file that mixes them, every line is written with it.
    """
    lines = text.split("\n")
    final_newline = lines[-1] == ""
    if final_newline:
        lines.pop()
    ended = lines if final_newline else lines[:-1]
    if not ended or not ended[0].endswith("\r"):
        return lines, "\n", final_newline
    stripped = [line[:-1] if line.endswith("\r") else line for line in ended]
    return stripped + lines[len(ended):], "\r\n", final_newline


def _parse(text: str, dimension: Dimension, path: str) -> MemoryFile:
    bom = text.startswith(_BOM)
    lines, newline, final_newline = split_lines(text[1:] if bom else text)
    front, body_start = split_frontmatter(lines, path)
    meta = parse_frontmatter(front, path)
    memory = MemoryFile(
        dimension=dimension,
        decay_window=meta.window or dimension.default_window,
        last_updated=meta.last_updated,
        extra_frontmatter=meta.extra,
        newline=newline,
        bom=bom,
        final_newline=final_newline,
    )
    if body_start and lines[:body_start] != canonical_frontmatter(memory):
        memory.frontmatter = lines[:body_start]
    _Body(memory, path).read(lines, body_start)
    return memory


class _Body:
    """The lines after the frontmatter, read into sections, items and the person's own lines."""

    def __init__(self, memory: MemoryFile, path: str):
        self.memory, self.path = memory, path
        self.current: Section | None = None
        self.unheaded: list[Entry] = []  # bullets above the first heading: the person's items, for Active
        self.fence: str | None = None
        self.fence_line = 0
        self.fence_in_children = False
        self.owner: tuple[list[Entry], int] | None = None  # the item the next indented lines join
        self.children: list[str] = []

    def read(self, lines: list[str], start: int) -> None:
        for number, line in enumerate(lines[start:], start=start + 1):
            # The hot path, a canonical item line in Active or Fading, without the general one's calls.
            current = self.current
            if self.fence is None and current is not None and current.heading in _OWNED and line.startswith("- "):
                item = canonical_item(line)
                if item is not None:
                    if self.owner is not None:
                        self._close_item()
                    entries = current.entries
                    self.owner = (entries, len(entries))
                    entries.append(item)
                    continue
            self._line(line, number)
        if self.fence is not None:
            # Whatever followed would be inside the code block: the file is refused, not guessed at.
            raise MemoryFileError(self.path, self.fence_line, "code fence opened here is never closed")
        self._close_item()
        # Canonical files always carry both sections, in this order.
        self.memory.section(ACTIVE).entries[:0] = self.unheaded
        self.memory.section(FADING)

    def _line(self, line: str, number: int) -> None:
        if self.fence is not None:
            # Fenced code is the person's text: kept byte for byte, never read for headings or items.
            if self.fence_in_children:
                self.children.append(line)
            else:
                self._raw(line)
            if fence_closes(line, self.fence):
                self.fence = None
            return
        if self.owner is not None:
            if line[:1] in _INDENT and is_child(line):
                self.children.append(line)
                self._open_fence(line, number, in_children=True)
                return
            self._close_item()
        heading = _HEADING.match(line) if line.startswith("##") else None
        if heading:
            title = heading.group("title")
            known = {ACTIVE.lower(): ACTIVE, FADING.lower(): FADING}.get(title.lower())
            written = line if known and line != f"## {known}" else None
            self.current = Section(heading=known or line, line=written)
            self.memory.sections.append(self.current)
            return
        if self._open_fence(line, number, in_children=False):
            self._raw(line)
            return
        owned = self.current is None or self.current.heading in (ACTIVE, FADING)
        item = parse_item(line, self.path, number) if owned else None
        if not owned and self.current is not None and "`last:" in line:
            self._misplaced(line, number, self.current.heading)
        if item is None:
            self._raw(line)
        elif self.current is None:
            self.owner = (self.unheaded, len(self.unheaded))
            self.unheaded.append(item)
        else:
            self.owner = (self.current.entries, len(self.current.entries))
            self.current.entries.append(item)

    def _misplaced(self, line: str, number: int, heading: str) -> None:
        """An item under another heading ("## Active items") would vanish from every reader: refused instead."""
        item = parse_item(line, self.path, number)
        if item is not None and item.last is not None:
            raise MemoryFileError(self.path, number, f"an item (with its `last:` span) under {heading.strip()!r}: "
                                                     f"items go under '## {ACTIVE}' or '## {FADING}'")

    def _open_fence(self, line: str, number: int, in_children: bool) -> bool:
        if "```" not in line and "~~~" not in line:
            return False  # the common case, found without a regular expression
        fence = fence_opened(line)
        if fence is not None:
            self.fence, self.fence_line, self.fence_in_children = fence, number, in_children
        return fence is not None

    def _raw(self, line: str) -> None:
        if self.current is None:
            self.memory.preamble.append(RawLine(text=line))
        else:
            self.current.entries.append(RawLine(text=line))

    def _close_item(self) -> None:
        """Give the last item the indented lines read under it."""
        if self.owner is not None and self.children:
            entries, at = self.owner
            item = entries[at]
            assert isinstance(item, Item)
            entries[at] = item.model_copy(update={"children": (*item.children, *self.children)})
        self.owner, self.children = None, []


def render(memory: MemoryFile) -> str:
    """The file's text: docs/spec.md §2's format, in the person's own style where they wrote it."""
    out = render_frontmatter(memory)
    out += [raw.text for raw in memory.preamble]
    for section in memory.sections:
        if section.line is not None:
            out.append(section.line)
        else:
            out.append(f"## {section.heading}" if section.heading in (ACTIVE, FADING) else section.heading)
        for entry in section.entries:
            if isinstance(entry, RawLine):
                out.append(entry.text)
            elif entry.layout is None and entry.last is not None and not entry.children:
                # The common case, inline: an item in the canonical style (see `item_line`).
                pinned = " pinned" if entry.pinned else ""
                out.append(f"- {entry.text} `last:{entry.last.isoformat()} seen:{entry.seen}{pinned}`{entry.note}")
            else:
                out.append(item_line(entry))
                out += entry.children
    newline = memory.newline
    text = newline.join(out) + (newline if memory.final_newline else "")
    return _BOM + text if memory.bom else text
