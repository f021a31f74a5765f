"""The one seam for "now" and for the zone "today" is decided in."""

from __future__ import annotations

import datetime as dt
import zoneinfo

from tzlocal import get_localzone


def zone(timezone: str | None = None) -> dt.tzinfo:
    """The configured time zone, or the machine's local one."""
    return zoneinfo.ZoneInfo(timezone) if timezone else get_localzone()


def now(timezone: str | None = None) -> dt.datetime:
    return dt.datetime.now(dt.UTC).astimezone(zone(timezone))


def today(timezone: str | None = None) -> dt.date:
    return now(timezone).date()
