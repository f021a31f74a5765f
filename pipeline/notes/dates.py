"""Dates as people write them in notes (docs/spec.md §1): YAML dates, ISO, `YYYY/MM/DD`, daily-note links, month names,
and the dates other tools put in file names (Logseq's journals, Zettelkasten ids)."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

# The calendar a note's date (and a run's `--today`) may fall in: windows reach years back from it.
EARLIEST, LATEST = dt.date(1900, 1, 1), dt.date(9000, 12, 31)
# A Zettelkasten id: `YYYYMMDDHHMM` (seconds too), its time checked like its date (docs/spec.md §1).
_ZETTEL_ID = re.compile(r"(\d{4})(\d{2})(\d{2})(?:[01]\d|2[0-3])[0-5]\d(?:[0-5]\d)?(?!\d)", re.ASCII)

_MONTHS = {name: n for n, names in enumerate(
    [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",), ("jun", "june"),
     ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
     ("dec", "december")], start=1) for name in names}
_WEEKDAY = r"(?:(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|rsday|urday)?\.?,?\s+)?"
_DAY = r"(?P<d>\d{1,2})(?:st|nd|rd|th)?"
_AFTER = r"(?:$|[\sT,])"  # a time may follow
# As people write dates: ISO (and YYYY/MM/DD), "Nov 1, 2026", "November 1st 2026", "1 November 2026",
# "Sunday, 1 Nov 2026". Numeric day-month orders ("01.05.2019") are ambiguous and not read.
_WRITTEN_DATES = [re.compile(p, re.IGNORECASE) for p in (
    rf"(?P<y>\d{{4}})-(?P<m>\d{{1,2}})-(?P<d>\d{{1,2}}){_AFTER}",
    rf"(?P<y>\d{{4}})/(?P<m>\d{{1,2}})/(?P<d>\d{{1,2}}){_AFTER}",
    rf"{_WEEKDAY}(?P<mn>[a-z]{{3,9}})\.?\s+{_DAY},?\s+(?P<y>\d{{4}}){_AFTER}",
    rf"{_WEEKDAY}{_DAY}\s+(?:of\s+)?(?P<mn>[a-z]{{3,9}})\.?,?\s+(?P<y>\d{{4}}){_AFTER}",
)]
_DAILY_LINK = re.compile(r"\[\[([^\[\]|#]+)(?:[|#][^\[\]]*)?\]\]")


def as_date(value: object) -> dt.date | None:
    """A date from a note, as people write them, or None when it is not one or is outside EARLIEST..LATEST.

    A YAML date or datetime, or text: ISO, `YYYY/MM/DD`, English month names, or a wiki
    link to a daily note (`"[[2026-11-01]]"`, `"[[Daily/2026-11-01|Sunday]]"`).
    """
    day: dt.date | None = None
    if isinstance(value, dt.datetime):
        day = value.date()
    elif isinstance(value, dt.date):
        day = value
    elif isinstance(value, str):
        day = _written_date(value)
    return day if day is not None and EARLIEST <= day <= LATEST else None


def _written_date(text: str) -> dt.date | None:
    text = text.strip().strip("\"'").strip()[:100]
    link = _DAILY_LINK.fullmatch(text)
    if link:
        text = link.group(1).strip().rsplit("/", 1)[-1].removesuffix(".md")
    for pattern in _WRITTEN_DATES:
        match = pattern.match(text)
        if match is None:
            continue
        fields = match.groupdict()
        month = _MONTHS.get(fields["mn"].lower()) if fields.get("mn") else int(fields["m"])
        try:
            return dt.date(int(fields["y"]), month or 0, int(fields["d"]))
        except ValueError:
            return None
    return None


def name_date(path: Path) -> dt.date | None:
    """The date the file name starts with (`name_day`), or a name that is a date ("Nov 1, 2026.md")."""
    return name_day(path.name) or as_date(path.stem)


def name_day(name: str) -> dt.date | None:
    """The date a file name starts with: `YYYY-MM-DD`, Logseq's `YYYY_MM_DD` or a Zettelkasten id `YYYYMMDDHHMM…`.

    Checked, an impossible one ("2026-02-30", "202609242599") is no date. The vault's walk
    asks it of every note's name, so it stays on slices, with no regex but for an id.
    """
    head = name[:10]
    if not head[:4].isdigit():
        return None
    sep = head[4:5]
    if (sep == "-" or sep == "_") and head[7:8] == sep and head[5:7].isdigit() and head[8:10].isdigit():
        text = head if sep == "-" else head.replace("_", "-")
    else:
        match = _ZETTEL_ID.match(name)
        if match is None:
            return None
        text = f"{match[1]}-{match[2]}-{match[3]}"
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        return None
    return day if EARLIEST <= day <= LATEST else None
