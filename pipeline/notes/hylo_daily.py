"""Hylo's daily aggregation files (docs/spec.md §10): `_shorts/YYYY-MM-DD.md`, `kind: short`, one entry a short note.

An entry is headed `###### Short Note: YYYY-MM-DD HH:MM:SS` (local time) and entries are
separated by a `---` line; neither is the person's words, so neither is read. Each entry
is its own source, so a short Hylo appends at noon makes only that entry new.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable

from pydantic import BaseModel

KIND = "short"
_HEADER = re.compile(r"^#{6}\s+Short Note:\s*(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})\s*$")
_SEPARATOR = re.compile(r"^\s*---\s*$")


class Entry(BaseModel):
    """One short note of a daily file: its time as its header gives it, and its text (header and separators out)."""

    day: dt.date
    time: str  # HH:MM:SS, as written: with the daily path, the entry's identity
    text: str

    def source_id(self, daily_path: str, taken: set[str]) -> str:
        """`_shorts/2026-11-28.md#10:15:02`; a second entry of the same second gets `#10:15:02~2`, and so on."""
        base = f"{daily_path}#{self.time}"
        ident, n = base, 1
        while ident in taken:
            n += 1
            ident = f"{base}~{n}"
        taken.add(ident)
        return ident


def is_daily(meta: dict[str, object]) -> bool:
    """Whether a `_shorts` note's frontmatter says it is a daily aggregation file (without it: one note, §1)."""
    kind = meta.get("kind")
    return isinstance(kind, str) and kind.strip().lower() == KIND


def entries(body: str) -> list[Entry]:
    """The entries of a daily file's body (frontmatter removed), oldest first as written.

    Text before the first header is no entry's: Hylo writes none, and what a person put
    there is not dated by any header, so it is not read as a short.
    """
    found: list[Entry] = []
    current: tuple[dt.date, str] | None = None
    lines: list[str] = []
    for line in body.splitlines():
        header = _HEADER.match(line.strip())
        if header and (day := _day(header.group(1))) is not None:
            _close(found, current, lines)
            current, lines = (day, header.group(2)), []
        elif current is not None:
            lines.append(line)
    _close(found, current, lines)
    return found


def render_daily(day: dt.date, items: Iterable[tuple[str, str]]) -> str:
    """A daily file as Hylo writes it, from (time, text) pairs oldest first: the time `HH:MM:SS` on `day`,
    or a whole `YYYY-MM-DD HH:MM:SS` (an entry written after midnight into the day before's file)."""
    blocks = [f"###### Short Note: {_stamped(day, time)}\n\n{_sanitized(text)}\n" for time, text in items]
    return f"---\nkind: {KIND}\ndate: {day.isoformat()}\n---\n\n" + "\n---\n\n".join(blocks)


def _stamped(day: dt.date, time: str) -> str:
    return time if len(time) > len("HH:MM:SS") else f"{day.isoformat()} {time}"


def _sanitized(text: str) -> str:
    """As Hylo stores an entry: a line that is only `---` becomes blank, so it cannot end the entry."""
    return "\n".join("" if _SEPARATOR.match(line) else line for line in text.strip().splitlines())


def _close(found: list[Entry], current: tuple[dt.date, str] | None, lines: list[str]) -> None:
    if current is None:
        return
    while lines and (not lines[-1].strip() or _SEPARATOR.match(lines[-1])):
        lines.pop()  # the separator before the next entry, and the blank lines around it
    text = "\n".join(lines).strip()
    if text:
        found.append(Entry(day=current[0], time=current[1], text=text))


def _day(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None
