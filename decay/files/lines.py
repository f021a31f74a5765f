"""One line of a memory file's body: an item bullet read and written back, a code fence found."""

from __future__ import annotations

import datetime as dt
import re

from hylo_memory.domain.dimensions import clean_text
from hylo_memory.domain.items import MAX_ITEM_TEXT, Item, Layout
from hylo_memory.errors import MemoryFileError

# Indentation, marker and the white space after it; the body without trailing white space.
_BULLET = re.compile(r"^(?P<head>[ \t]*[-*+]\s+)(?P<body>.*?)\s*$")
# The metadata span ending the bullet: its last backtick span, when it starts with `last:`.
_SPAN_AT_END = re.compile(r"^(?P<text>.*?)(?P<gap>\s*)`(?P<meta>\s*last:[^`]*)`$")
# A span followed by the person's own words: taken for metadata only when it reads as metadata.
_SPAN_THEN_NOTE = re.compile(r"^(?P<text>.*)`(?P<meta>\s*last:\s*\S+\s+seen:[^`]*)`(?P<note>.+)$")
_META = re.compile(
    r"^\s*last:\s*(?P<last>\S+)\s+seen:\s*(?P<seen>\S+?)(?P<pinned>\s+pinned)?\s*$"
)
_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_COUNT = re.compile(r"[0-9]+")
# The span of a canonical item line, as `render` writes it: the fast path of `parse_item`.
_CANONICAL_META = re.compile(r"last:(?P<last>[0-9]{4}-[0-9]{2}-[0-9]{2}) seen:(?P<seen>[0-9]+)(?P<pinned> pinned)?")
_FENCE_OPEN = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_FENCE_CLOSE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})\s*$")


def fence_opened(line: str) -> str | None:
    """The fence (``` or ~~~, three or more) this line opens, or None."""
    match = _FENCE_OPEN.match(line)
    if match is None:
        return None
    fence = match.group("fence")
    if fence[0] == "`" and "`" in match.group("info"):
        return None  # a backtick fence's info string has no backtick: "```a``` b" is inline code
    return fence


def fence_closes(line: str, fence: str) -> bool:
    """Whether `line` closes a code block opened with `fence` (same character, at least as long)."""
    match = _FENCE_CLOSE.match(line)
    return match is not None and match.group("fence")[0] == fence[0] and len(match.group("fence")) >= len(fence)


def is_child(line: str) -> bool:
    """An indented, non-blank line: under an item, it belongs to the item."""
    return line[:1] in (" ", "\t") and not line.isspace()


def parse_item(line: str, path: str, number: int) -> Item | None:
    """The item on this line of an Active or Fading section, or None when it is not a bullet item."""
    item = canonical_item(line)
    if item is not None:
        return item
    bullet = _BULLET.match(line)
    if not bullet or not any(ch.isalnum() for ch in bullet.group("body")):
        return None  # not a bullet, or a rule like "- - -": the person's line, kept as written
    head, body = bullet.group("head"), bullet.group("body")
    span = _SPAN_AT_END.match(body) or _SPAN_THEN_NOTE.match(body)
    if not span:
        # A hand-written bullet: adopted as an item, dated when the rules run. Too long to be one
        # item, it stays the person's line rather than be cut.
        text = clean_text(body)
        if not text or len(text) > MAX_ITEM_TEXT:
            return None
        return _with_layout(Item(text=text, last=None, seen=1), head, " ", line)
    last, seen, pinned = _metadata(span.group("meta"), path, number)
    found = span.groupdict()
    written = span.group("text") + (found.get("gap") or "")
    text = written.rstrip()
    if not text:
        raise MemoryFileError(path, number, "item has metadata but no text")
    item = Item(text=text, last=last, seen=seen, pinned=pinned, note=found.get("note") or "")
    return _with_layout(item, head, written[len(text):] or " ", line)


def _with_layout(item: Item, head: str, gap: str, line: str) -> Item:
    return item.model_copy(update={"layout": Layout(head=head, gap=gap, line=line, key=line_key(item))})


def _metadata(meta: str, path: str, number: int) -> tuple[dt.date, int, bool]:
    found = _META.match(meta)
    if not found:
        raise MemoryFileError(path, number, f"item metadata `{meta}` is not `last:YYYY-MM-DD seen:N`")
    try:
        # fromisoformat alone would also take 20261130 and 2026-W48-1.
        if not _ISO_DATE.fullmatch(found.group("last")):
            raise ValueError
        last = dt.date.fromisoformat(found.group("last"))
    except ValueError:
        raise MemoryFileError(path, number,
                              f"item date {found.group('last')!r} is not a valid YYYY-MM-DD date") from None
    seen = found.group("seen")
    # ASCII digits only: str.isdigit() also takes "²", which int() refuses.
    if not _COUNT.fullmatch(seen) or int(seen) < 1:
        raise MemoryFileError(path, number, f"item seen:{seen} is not a positive whole number")
    return last, int(seen), bool(found.group("pinned"))


def canonical_item(line: str) -> Item | None:
    """The item of a line exactly as `render` writes it, or None to take the general path.

    Only a line that `render` gives back byte for byte is taken here (so it needs no layout),
    and the general path reads it the same way; anything unusual falls through.
    """
    if not line.startswith("- ") or not line.endswith("`") or len(line) < 4 or line[2].isspace():
        return None
    opening = line.rfind("`", 0, -1)
    if opening < 4 or line[opening - 1] != " " or line[opening - 2].isspace():
        return None
    meta = _CANONICAL_META.fullmatch(line, opening + 1, len(line) - 1)
    if meta is None:
        return None
    seen = int(meta.group("seen"))
    if seen < 1 or meta.group("seen")[0] == "0":
        return None  # "seen:03" reads as 3 but would be written back as "seen:3"
    try:
        last = dt.date.fromisoformat(meta.group("last"))
    except ValueError:
        return None
    return Item(text=line[2:opening - 1], last=last, seen=seen, pinned=meta.group("pinned") is not None)


def line_key(item: Item) -> tuple[object, ...]:
    """What an item's own line says (its nested lines aside)."""
    return item.text, item.last, item.seen, item.pinned, item.note


def item_line(item: Item) -> str:
    """The item's line: as the person wrote it while unchanged, else rebuilt in their style."""
    layout = item.layout
    if layout is None:
        head, gap = "- ", " "
    elif layout.line is not None and layout.key == line_key(item):
        return layout.line
    else:
        head, gap = layout.head, layout.gap
    if item.last is None:
        return f"{head}{item.text}"
    pinned = " pinned" if item.pinned else ""
    return f"{head}{item.text}{gap}`last:{item.last.isoformat()} seen:{item.seen}{pinned}`{item.note}"
