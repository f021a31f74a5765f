"""The one seam for "now": the run's date in the configured time zone."""

from __future__ import annotations

import datetime as dt
import zoneinfo


def now(timezone: str | None = None) -> dt.datetime:
    zone = zoneinfo.ZoneInfo(timezone) if timezone else None
    return dt.datetime.now(dt.timezone.utc).astimezone(zone)


def today(timezone: str | None = None) -> dt.date:
    return now(timezone).date()
