"""A memory file's YAML frontmatter: read its two keys, write it back as the person wrote it."""

from __future__ import annotations

import datetime as dt
import re

import yaml

from hylo_memory.domain.items import MemoryFile
from hylo_memory.errors import MemoryFileError

from .safe_yaml import UnsafeYAML, load_bounded

_WINDOW = re.compile(r"^\s*(?P<n>\d+)\s*(?P<unit>[dw]?)\s*$")
MAX_WINDOW_DAYS = 36_500  # a hundred years
_OWN_KEYS = ("decay_window", "last_updated")
_OWN_KEY = re.compile(rf"^(?P<key>{'|'.join(_OWN_KEYS)})\s*:")


class Frontmatter:
    """What the frontmatter says: the window, the last update and the other lines."""

    def __init__(self) -> None:
        self.window: int | None = None
        self.last_updated: dt.date | None = None
        self.extra: list[str] = []


def split_frontmatter(lines: list[str], path: str) -> tuple[list[tuple[int, str]], int]:
    """The frontmatter's inner lines with their line numbers, and the index of the body's first line."""
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


def parse_frontmatter(front: list[tuple[int, str]], path: str) -> Frontmatter:
    result = Frontmatter()
    if not front:
        return result
    try:
        data = load_bounded("\n".join(line for _, line in front))
    except UnsafeYAML as exc:
        raise MemoryFileError(path, front[0][0], f"frontmatter {exc}") from None
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
        value = _as_date(data["last_updated"])
        if value is None:
            raise MemoryFileError(path, line_of.get("last_updated"), "last_updated is not a YYYY-MM-DD date")
        result.last_updated = value
    result.extra = [line for _, line in front if not _OWN_KEY.match(line)]
    return result


def _as_date(value: object) -> dt.date | None:
    if isinstance(value, str):
        try:
            value = dt.date.fromisoformat(value)
        except ValueError:
            return None
    if not isinstance(value, dt.date) or isinstance(value, dt.datetime):
        return None
    return value


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
    if days > MAX_WINDOW_DAYS:  # two windows back from any day must stay inside the calendar
        raise MemoryFileError(path, line, f"decay_window {value!r} is more than {MAX_WINDOW_DAYS:,} days")
    return days


def canonical_frontmatter(memory: MemoryFile) -> list[str]:
    """The frontmatter exactly as docs/spec.md §2 writes it, delimiters included."""
    out = ["---", f"decay_window: {memory.decay_window}d"]
    if memory.last_updated is not None:
        out.append(f"last_updated: {memory.last_updated.isoformat()}")
    return [*out, *memory.extra_frontmatter, "---"]


def render_frontmatter(memory: MemoryFile) -> list[str]:
    """The frontmatter as written, with only a key whose value changed rewritten (or added)."""
    written = memory.frontmatter
    if written is None:
        return canonical_frontmatter(memory)
    updated = memory.last_updated
    wanted = {"decay_window": f"decay_window: {memory.decay_window}d",
              "last_updated": None if updated is None else f"last_updated: {updated.isoformat()}"}
    out: list[str] = []
    seen: set[str] = set()
    for line in written:
        own = _OWN_KEY.match(line)
        if own is None:
            out.append(line)
            continue
        key = own.group("key")
        seen.add(key)
        if _value_of(line) == (memory.decay_window if key == "decay_window" else memory.last_updated):
            out.append(line)  # "2w", a comment after the value, quotes: kept while the value holds
        elif wanted[key] is not None:
            out.append(wanted[key] or "")
    if memory.decay_window == memory.dimension.default_window:
        seen.add("decay_window")  # a file that never said its window keeps not saying it
    for key in _OWN_KEYS:
        new = wanted[key]
        if key not in seen and new is not None:
            out.insert(_after_window(out), new)
    return out


def _value_of(line: str) -> object:
    """The value one `key: value` line gives its own key, read as parsing reads it."""
    try:
        data = yaml.safe_load(line)
    except (yaml.YAMLError, ValueError):
        return None
    if not isinstance(data, dict) or len(data) != 1:
        return None
    key, value = next(iter(data.items()))
    if key == "decay_window":
        match = _WINDOW.match(str(value)) if not isinstance(value, bool) else None
        return int(match.group("n")) * (7 if match.group("unit") == "w" else 1) if match else None
    return _as_date(value)


def _after_window(out: list[str]) -> int:
    """Where a missing key goes: after the decay_window line, else before the closing `---`."""
    for i, line in enumerate(out):
        if line.startswith("decay_window"):
            return i + 1
    return max(len(out) - 1, 1)
