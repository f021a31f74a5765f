"""A fake Hylo over a small vault in Hylo's format, and hylo-memory's commands run against its URL, in-process."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

from cli_helpers import hylo
from click.testing import Result

from hylo_memory.pipeline.notes.hylo_daily import render_daily
from hylo_memory.testing.fake_hylo import FakeHylo

TODAY = dt.date(2026, 11, 30)


def daily(root: Path, day: dt.date, *items: tuple[str, str], zone: dt.tzinfo = dt.UTC) -> Path:
    """Hylo's daily aggregation file for `day`, its entries (HH:MM:SS, or a whole YYYY-MM-DD HH:MM:SS, and
    text) oldest first; last modified as Hylo leaves it, at its last entry's time (Hylo lists by it)."""
    path = root / "_shorts" / f"{day.isoformat()}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_daily(day, items), encoding="utf-8")
    last = items[-1][0] if items else "00:00:00"
    stamp = dt.datetime.fromisoformat(last if len(last) > 8 else f"{day.isoformat()} {last}").replace(tzinfo=zone)
    os.utime(path, (stamp.timestamp(), stamp.timestamp()))
    return path


def two_days(root: Path) -> None:
    """Two days of Hylo shorts: one entry three days ago, two yesterday."""
    daily(root, TODAY - dt.timedelta(days=3), ("08:00:00", "My name is Maya Okafor. I live in Lisbon."))
    daily(root, TODAY - dt.timedelta(days=1), ("09:30:00", "I love long walks by the river."),
          ("18:00:00", "I believe tests are specifications."))


def run(fake: FakeHylo, *args: str, today: dt.date = TODAY) -> Result:
    """`hylo-memory ARGS --vault URL --today TODAY` (the offline extractor for the commands that extract)."""
    extra = ["--extractor", "offline"] if args[0] in ("refresh", "remember") and "--extractor" not in args else []
    dated = ["--today", today.isoformat()] if args[0] not in ("why", "history", "undo", "unforget") else []
    return hylo(*args, "--vault", fake.url, *dated, *extra)
