"""Run modes and scan windows (docs/spec.md §4.1)."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel

from hylo_memory.pipeline.config import Config

Mode = Literal["first", "incremental"]


class Window(BaseModel):
    """The run's mode and the dates, inclusive, whose sources it reads."""

    mode: Mode
    start: dt.date
    today: dt.date

    @property
    def days(self) -> int:
        return (self.today - self.start).days + 1

    def contains(self, day: dt.date) -> bool:
        return self.start <= day <= self.today


def choose_window(today: dt.date, first: bool, reach_back: dt.date | None, config: Config) -> Window:
    """First run: the last 90 days. Otherwise the last 2 days, reaching back to `reach_back`.

    `reach_back` is the last complete run's date, or earlier when a later run left
    sources waiting (`Ledger.reach_back`).
    """
    if first:
        return Window(mode="first", start=today - dt.timedelta(days=config.first_run_days - 1), today=today)
    start = today - dt.timedelta(days=config.incremental_days - 1)
    if reach_back is not None:
        # A machine that was off for a week loses nothing; the ledger keeps
        # sources the last run already extracted from being counted twice.
        start = min(start, reach_back)
    return Window(mode="incremental", start=start, today=today)
