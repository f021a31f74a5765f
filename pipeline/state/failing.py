"""Sources the model keeps failing on (docs/spec.md §4.5): counted run by run, then set aside as stuck.

A source counts a failed run when the failure was its own (the model answered, but not usably; too long for
the context even in pieces) or when the same run read others (the server was answering). A run in which
the server answered nothing counts against no source: a night the server was down makes nothing stuck.
A stuck source is not collected again while its content is unchanged; an edit, or `refresh --retry-stuck`,
gives it another chance.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from pydantic import BaseModel

from hylo_memory.domain.sources import SourceFailure
from hylo_memory.pipeline.state.ledger import Ledger, guarded

MAX_REASON = 300


class Failed(BaseModel):
    """One source this run sent and got back unread."""

    path: str
    hash: str
    date: dt.date
    why: SourceFailure


class StuckSource(BaseModel):
    """A source set aside: named in the summary and `status` until it is read or tried again."""

    path: str
    date: dt.date  # the source's own date: `--retry-stuck` reaches back to it
    reason: str
    runs: int
    since: dt.date  # the day of its first failure in a row


class Failing:
    """The ledger's record of failing sources."""

    def __init__(self, ledger: Ledger):
        self.ledger, self.db, self.path = ledger, ledger.db, ledger.path  # path: for `guarded`'s one line

    @guarded
    def note_run(self, failed: Iterable[Failed], read: Iterable[str], answered: bool, today: dt.date,
                 stuck_after: int) -> list[StuckSource]:
        """Count this run's failures (and forget the sources it read); return the sources it made stuck."""
        counted = [f for f in failed if f.why.own or answered]
        with self.ledger.transaction():
            self.db.executemany("DELETE FROM failing_sources WHERE path = ?", [(p,) for p in read])
            for f in counted:
                # A changed note is a new note: its count starts again.
                self.db.execute(
                    "INSERT INTO failing_sources VALUES (?, ?, ?, ?, 1, ?, 0) ON CONFLICT(path) DO UPDATE SET "
                    "runs = CASE WHEN hash = excluded.hash THEN runs + 1 ELSE 1 END, "
                    "first_failed = CASE WHEN hash = excluded.hash THEN first_failed ELSE excluded.first_failed END, "
                    "hash = excluded.hash, date = excluded.date, reason = excluded.reason",
                    (f.path, f.hash, f.date.isoformat(), f.why.reason[:MAX_REASON], today.isoformat()))
            paths = [(f.path,) for f in counted]
            self.db.executemany("UPDATE failing_sources SET stuck = 1 WHERE path = ? AND runs >= ? AND stuck = 0",
                                [(p, stuck_after) for (p,) in paths])
        made = {f.path for f in counted}
        return [s for s in self.stuck() if s.path in made and s.runs == stuck_after] if made else []

    @guarded
    def failing(self) -> set[str]:
        """The sources that failed on their last run, stuck or not."""
        return {r["path"] for r in self.db.execute("SELECT path FROM failing_sources")}

    @guarded
    def stuck(self) -> list[StuckSource]:
        rows = self.db.execute("SELECT * FROM failing_sources WHERE stuck = 1 ORDER BY date, path").fetchall()
        return [StuckSource(path=r["path"], date=dt.date.fromisoformat(r["date"]), reason=r["reason"],
                            runs=r["runs"], since=dt.date.fromisoformat(r["first_failed"])) for r in rows]

    @guarded
    def stuck_hashes(self) -> dict[str, str]:
        """Path → content hash of the stuck sources: one whose content changed is not stuck any more."""
        return {r["path"]: r["hash"] for r in self.db.execute("SELECT path, hash FROM failing_sources WHERE stuck = 1")}

    @guarded
    def retry(self) -> dt.date | None:
        """Give every stuck source another chance (`refresh --retry-stuck`); the earliest of their dates."""
        row = self.db.execute("SELECT min(date) AS earliest FROM failing_sources WHERE stuck = 1").fetchone()
        with self.ledger.transaction():
            # Counted from nothing again: one more failure does not set it aside at once.
            self.db.execute("DELETE FROM failing_sources WHERE stuck = 1")
        return dt.date.fromisoformat(row["earliest"]) if row and row["earliest"] else None
