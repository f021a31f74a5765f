"""Parse a memory file into a `MemoryFile` and render it back, byte for byte."""

from __future__ import annotations

import datetime as dt
import gc
import re
from collections.abc import Iterator
from contextlib import contextmanager

import yaml

from hylo_memory.errors import MemoryFileError

from .model import ACTIVE, FADING, Dimension, Entry, Item, MemoryFile, RawLine, Section

_BULLET = re.compile(r"^\s*[-*+]\s+(?P<body>.*?)\s*$")
# The metadata span: the last backtick span of a bullet, when it starts with `last:`.
_META_SPAN = re.compile(r"^(?P<text>.*?)\s*`(?P<meta>\s*last:[^`]*)`$")
_META = re.compile(
    r"^\s*last:\s*(?P<last>\S+)\s+seen:\s*(?P<seen>\S+?)(?P<pinned>\s+pinned)?\s*$"
)
_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_COUNT = re.compile(r"[0-9]+")
# The span of a canonical item line, as `render` writes it: the fast path of `_parse_line`.
_CANONICAL_META = re.compile(r"last:(?P<last>[0-9]{4}-[0-9]{2}-[0-9]{2}) seen:(?P<seen>[0-9]+)(?P<pinned> pinned)?")
_HEADING = re.compile(r"^##\s+(?P<title>.+?)\s*#*\s*$")
_WINDOW = re.compile(r"^\s*(?P<n>\d+)\s*(?P<unit>[dw]?)\s*$")
_OWN_KEYS = ("decay_window", "last_updated")


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


def _parse(text: str, dimension: Dimension, path: str) -> MemoryFile:
    lines = text.splitlines()
    front, body_start = _split_frontmatter(lines, path)
    meta = _parse_frontmatter(front, path)
    memory = MemoryFile(
        dimension=dimension,
        decay_window=meta.window or dimension.default_window,
        last_updated=meta.last_updated,
        extra_frontmatter=meta.extra,
    )
    current: Section | None = None
    unheaded: list[Item] = []
    for number, line in enumerate(lines[body_start:], start=body_start + 1):
        heading = _HEADING.match(line) if line.startswith("##") else None
        if heading:
            title = heading.group("title")
            known = {ACTIVE.lower(): ACTIVE, FADING.lower(): FADING}.get(title.lower())
            current = Section(heading=known or line)
            memory.sections.append(current)
            continue
        entry = _parse_line(line, path, number, owned=current is None or _owned(current))
        if current is None:
            if isinstance(entry, Item):
                unheaded.append(entry)
            else:
                memory.preamble.append(entry)
        else:
            current.entries.append(entry)
    # Canonical files always carry both sections, in this order; bullets written
    # above the first heading are the person's items and join Active.
    memory.section(ACTIVE).entries[:0] = unheaded
    memory.section(FADING)
    return memory


def _owned(section: Section) -> bool:
    return section.heading in (ACTIVE, FADING)


class _Frontmatter:
    def __init__(self) -> None:
        self.window: int | None = None
        self.last_updated: dt.date | None = None
        self.extra: list[str] = []


def _split_frontmatter(lines: list[str], path: str) -> tuple[list[tuple[int, str]], int]:
    if not lines or lines[0].strip() != "---":
        return [], 0
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            return [(n + 1, lines[n]) for n in range(1, end)], end + 1
    raise MemoryFileError(path, 1, "frontmatter opened with '---' is never closed")


def yaml_error_line(exc: yaml.YAMLError, first_line: int) -> int | None:
    """The file's line a YAML error points at, given the file line YAML's text starts on."""
    mark = getattr(exc, "problem_mark", None)
    return first_line + mark.line if mark is not None else None


def _parse_frontmatter(front: list[tuple[int, str]], path: str) -> _Frontmatter:
    result = _Frontmatter()
    if not front:
        return result
    try:
        data = yaml.safe_load("\n".join(line for _, line in front))
    except yaml.YAMLError as exc:
        raise MemoryFileError(path, yaml_error_line(exc, front[0][0]) or 1, "frontmatter is not valid YAML") from None
    except ValueError as exc:
        # PyYAML builds a date for anything shaped like one and lets `2026-13-45` raise ValueError.
        raise MemoryFileError(path, _line_of_bad_value(front), f"frontmatter is not valid YAML: {exc}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise MemoryFileError(path, front[0][0], "frontmatter is not a mapping")
    line_of = {line.split(":", 1)[0].strip(): n for n, line in front}
    if "decay_window" in data:
        result.window = _parse_window(data["decay_window"], path, line_of.get("decay_window"))
    if data.get("last_updated") is not None:
        value = data["last_updated"]
        if isinstance(value, str):
            try:
                value = dt.date.fromisoformat(value)
            except ValueError:
                value = None
        if not isinstance(value, dt.date) or isinstance(value, dt.datetime):
            raise MemoryFileError(path, line_of.get("last_updated"), "last_updated is not a YYYY-MM-DD date")
        result.last_updated = value
    own_key = re.compile(rf"^({'|'.join(_OWN_KEYS)})\s*:")
    result.extra = [line for _, line in front if not own_key.match(line)]
    return result


def _line_of_bad_value(front: list[tuple[int, str]]) -> int:
    """The first frontmatter line whose own value PyYAML cannot build."""
    for number, line in front:
        try:
            yaml.safe_load(line)
        except ValueError:
            return number
        except yaml.YAMLError:
            continue
    return front[0][0]


def _parse_window(value: object, path: str, line: int | None) -> int:
    match = _WINDOW.match(str(value)) if not isinstance(value, bool) else None
    days = int(match.group("n")) * (7 if match.group("unit") == "w" else 1) if match else 0
    if days < 1:
        raise MemoryFileError(path, line, f"decay_window {value!r} is not a number of days like 90d")
    return days


def _parse_line(line: str, path: str, number: int, owned: bool) -> Entry:
    if owned:
        item = _canonical_item(line)
        if item is not None:
            return item
    bullet = _BULLET.match(line) if owned else None
    if not bullet or not bullet.group("body"):
        return RawLine(text=line)
    body = bullet.group("body")
    span = _META_SPAN.match(body)
    if not span:
        # A hand-written bullet: adopted as an item. Its date is set when the rules run.
        return Item(text=body, last=dt.date.min, seen=1)
    meta = _META.match(span.group("meta"))
    if not meta:
        raise MemoryFileError(path, number, f"item metadata `{span.group('meta')}` is not `last:YYYY-MM-DD seen:N`")
    try:
        # fromisoformat alone would also take 20261130 and 2026-W48-1.
        if not _ISO_DATE.fullmatch(meta.group("last")):
            raise ValueError
        last = dt.date.fromisoformat(meta.group("last"))
    except ValueError:
        raise MemoryFileError(path, number,
                              f"item date {meta.group('last')!r} is not a valid YYYY-MM-DD date") from None
    seen = meta.group("seen")
    # ASCII digits only: str.isdigit() also takes "²", which int() refuses.
    if not _COUNT.fullmatch(seen) or int(seen) < 1:
        raise MemoryFileError(path, number, f"item seen:{seen} is not a positive whole number")
    text = span.group("text")
    if not text:
        raise MemoryFileError(path, number, "item has metadata but no text")
    return Item(text=text, last=last, seen=int(seen), pinned=bool(meta.group("pinned")))


def _canonical_item(line: str) -> Item | None:
    """The item of a line exactly as `render` writes it, or None to take the general path.

    Only a line the general path would read the same way is taken here, so the two never
    disagree; anything unusual (other bullets, spacing, an invalid date or count) falls through.
    """
    if not line.startswith("- ") or not line.endswith("`") or len(line) < 4 or line[2].isspace():
        return None
    opening = line.rfind("`", 0, -1)
    if opening < 2:
        return None
    meta = _CANONICAL_META.fullmatch(line, opening + 1, len(line) - 1)
    text = line[2:opening].rstrip()
    if meta is None or not text:
        return None
    seen = int(meta.group("seen"))
    if seen < 1:
        return None
    try:
        last = dt.date.fromisoformat(meta.group("last"))
    except ValueError:
        return None
    return Item(text=text, last=last, seen=seen, pinned=meta.group("pinned") is not None)


def is_adopted(item: Item) -> bool:
    """A hand-written bullet not yet given metadata (see `parse`)."""
    return item.last == dt.date.min


def render(memory: MemoryFile) -> str:
    """The file's text in the exact SPEC §2 format."""
    out = ["---", f"decay_window: {memory.decay_window}d"]
    if memory.last_updated is not None:
        out.append(f"last_updated: {memory.last_updated.isoformat()}")
    out += memory.extra_frontmatter
    out.append("---")
    out += [raw.text for raw in memory.preamble]
    for section in memory.sections:
        out.append(f"## {section.heading}" if _owned(section) else section.heading)
        out += [_render_entry(e) for e in section.entries]
    return "\n".join(out) + "\n"


def _render_entry(entry: Entry) -> str:
    if isinstance(entry, RawLine):
        return entry.text
    pinned = " pinned" if entry.pinned else ""
    return f"- {entry.text} `last:{entry.last.isoformat()} seen:{entry.seen}{pinned}`"
