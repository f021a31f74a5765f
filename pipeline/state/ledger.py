"""The ledger: which sources were extracted (by content hash) and every run (SQLite).

Schema changes are migrations applied once each, by name, in order.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import os
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal, ParamSpec, TypeVar

from pydantic import BaseModel, TypeAdapter

from hylo_memory.decay import Evidence, FileChanges
from hylo_memory.domain.sources import PoolUnit
from hylo_memory.domain.usage import Usage
from hylo_memory.errors import LedgerError
from hylo_memory.pipeline.state.migrations import MIGRATIONS
from hylo_memory.pipeline.state.names import STATE_DIR as STATE_DIR  # re-exported: where the ledger and its kin live

P = ParamSpec("P")
R = TypeVar("R")

KEPT_DAYS = 90  # how long an interrupted run's kept evidence waits for its note to be read again
LEDGER_FILE = "ledger.db"

RunStatus = Literal["ok", "partial", "failed", "submitted"]


class Counts(BaseModel):
    """What a run (or a command) did to the memory files, in numbers."""

    added: int = 0
    refreshed: int = 0
    faded: int = 0
    deleted: int = 0
    expired: int = 0
    merged: int = 0
    adopted: int = 0
    superseded: int = 0
    forgotten: int = 0

    @classmethod
    def of(cls, changes: Iterable[FileChanges]) -> Counts:
        """The counts of what the rules did to these files."""
        counts = cls()
        for c in changes:
            counts.added += len(c.added)
            counts.refreshed += len(c.refreshed)
            counts.faded += len(c.faded)
            counts.deleted += len(c.deleted)
            counts.expired += c.expired
            counts.merged += len(c.merged) + len(c.joined)
            counts.adopted += len(c.adopted)
            counts.superseded += len(c.superseded)
            counts.forgotten += len(c.forgotten)
        return counts

    def nonzero(self) -> dict[str, int]:
        """Those that are not zero: what a change records in the history."""
        return {k: v for k, v in self.model_dump().items() if v}


def ledger_error(path: Path | None, exc: sqlite3.Error) -> LedgerError:
    """A SQLite failure as one line naming the ledger; a full disk says so, and nothing advises losing data."""
    where = path or "the ledger"
    if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL:
        return LedgerError(f"{where}: disk full; the ledger is unchanged — free some space and run again")
    if isinstance(exc, sqlite3.DatabaseError) and "not a database" in str(exc):
        return LedgerError(f"{where}: the ledger is damaged ({exc}); it was left as it is — restore it from a "
                           "backup (moving it aside would make the next run read every note again)")
    return LedgerError(f"{where}: the ledger failed: {exc}")


def guarded(method: Callable[P, R]) -> Callable[P, R]:
    """A ledger method whose SQLite errors become one `LedgerError` line naming the file."""

    @functools.wraps(method)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except sqlite3.Error as exc:
            raise ledger_error(getattr(args[0], "path", None), exc) from None
        except ValueError as exc:  # a record this version cannot read (bad JSON, a field out of bounds)
            raise LedgerError(f"{getattr(args[0], 'path', None) or 'the ledger'}: holds a record that cannot "
                              f"be read ({str(exc).splitlines()[0]}); it was left as it is") from None

    return guarded


class RunRecord(BaseModel):
    id: int
    started_at: str
    ended_at: str | None
    today: dt.date
    mode: str
    window_start: dt.date
    window_days: int
    status: str
    waiting: int
    counts: dict[str, int]
    requests: int
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0
    batched: int = 0


ASSISTANT = "assistant ("  # how a source the person's assistant read names its reader: `assistant (claude-code)`


def read_by_assistant(reader: str | None) -> bool:
    """Whether the person's assistant read it: never read again by `--reextract`, nor counted as "by another"."""
    return bool(reader) and str(reader).startswith(ASSISTANT)
_OTHERS = f"({{column}} IS NULL OR {{column}} != ?) AND coalesce({{column}}, '') NOT LIKE '{ASSISTANT}%'"


class Ledger:
    """One vault's ledger; `None` path gives an in-memory one (a dry run writes nothing)."""

    def __init__(self, path: Path | None):
        self.path = path
        try:
            self.db = sqlite3.connect(str(path) if path else ":memory:", isolation_level=None, timeout=30)
        except sqlite3.Error as exc:
            raise ledger_error(path, exc) from None
        try:
            self.db.row_factory = sqlite3.Row
            self._migrate()
        except BaseException as exc:  # a ledger refused is closed, not left to the collector
            self.db.close()
            if isinstance(exc, sqlite3.Error):
                raise ledger_error(path, exc) from None
            raise

    @classmethod
    def for_memory_dir(cls, memory_dir: Path, readonly: bool = False) -> Ledger:
        path = memory_dir / STATE_DIR / LEDGER_FILE
        if readonly:
            return cls.snapshot(path)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not path.exists():  # private from its first byte, like every file hylo-memory writes
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        return cls(path)

    @classmethod
    def snapshot(cls, path: Path) -> Ledger:
        """An in-memory copy of the ledger at `path` (empty if none): reads, never writes it."""
        ledger = cls(None)
        if path.exists():
            # as_uri() percent-encodes the path: a vault named "notes #1" stays one path.
            try:
                source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
                try:
                    source.backup(ledger.db)
                    ledger._migrate()
                finally:
                    source.close()
            except BaseException as exc:
                ledger.close()
                if isinstance(exc, sqlite3.Error):
                    raise ledger_error(path, exc) from None
                raise
        return ledger

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _migrate(self) -> None:
        self.db.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
        if self._applied() >= {name for name, _ in MIGRATIONS}:
            return
        # One transaction for all that are missing: a new ledger commits (and syncs) once, not once a migration.
        with self.transaction():
            # Asked again under the write lock: two commands opening a new ledger at once (an assistant's
            # remember and the nightly run) would otherwise both apply them ("table … already exists").
            done = self._applied()
            for name, migrate in MIGRATIONS:
                if name not in done:
                    migrate(self.db)
                    self.db.execute("INSERT INTO migrations VALUES (?, ?)", (name, stamp()))

    def _applied(self) -> set[str]:
        return {row["name"] for row in self.db.execute("SELECT name FROM migrations")}

    def transaction(self) -> _Transaction:
        return _Transaction(self.db, self.path)

    # Sources

    @guarded
    def extracted_hash(self, path: str) -> str | None:
        row = self.db.execute("SELECT hash FROM sources WHERE path = ?", (path,)).fetchone()
        return row["hash"] if row else None

    @guarded
    def extracted_by(self, path: str) -> str | None:
        """The extractor that read the source at `path` ("" when the ledger predates the record)."""
        row = self.db.execute("SELECT extractor FROM sources WHERE path = ?", (path,)).fetchone()
        return None if row is None else row["extractor"] or ""

    @guarded
    def read_by_others_since(self, extractor: str) -> dt.date | None:
        """The earliest window start of the runs whose sources another extractor than `extractor` read:
        `refresh --reextract --since` that date reads them all again."""
        row = self.db.execute("SELECT min(r.window_start) AS start FROM sources s JOIN runs r ON r.id = s.run_id "
                              f"WHERE {_OTHERS.format(column='s.extractor')}", (extractor,)).fetchone()
        return dt.date.fromisoformat(row["start"]) if row and row["start"] else None

    @guarded
    def read_by_others(self, extractor: str) -> int:
        """How many sources were read by another extractor than `extractor` (or by one not recorded); not those
        the person's assistant read (docs/spec.md §9.5): reading them again with the configured one is no gain."""
        row = self.db.execute(f"SELECT count(*) AS n FROM sources WHERE {_OTHERS.format(column='extractor')}",
                              (extractor,)).fetchone()
        return int(row["n"])

    @guarded
    def covered(self, day: dt.date) -> bool:
        """Whether a complete run's window held `day`: the notes of that day were read then."""
        return self.db.execute("SELECT 1 FROM runs WHERE status = 'ok' AND window_start <= ? AND today >= ? LIMIT 1",
                               (day.isoformat(), day.isoformat())).fetchone() is not None

    @guarded
    def is_extracted(self, path: str, content_hash: str) -> bool:
        """Whether this very content was extracted before: here, or under a path it was moved from."""
        if self.extracted_hash(path) == content_hash:
            return True
        return self.db.execute("SELECT 1 FROM sources WHERE hash = ? LIMIT 1", (content_hash,)).fetchone() is not None

    @guarded
    def record_sources(self, run_id: int, today: dt.date, sources: Iterable[tuple[str, str]],
                       extractor: str | None = None) -> None:
        """Mark sources extracted (and applied) by `extractor`: their kept evidence is spent."""
        rows = list(sources)
        self.db.executemany(
            "INSERT INTO sources VALUES (?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET "
            "hash = excluded.hash, run_id = excluded.run_id, extracted_on = excluded.extracted_on, "
            "extractor = excluded.extractor",
            [(path, h, run_id, today.isoformat(), extractor) for path, h in rows],
        )
        self.db.executemany("DELETE FROM kept_evidence WHERE path = ? OR hash = ?", rows)

    @guarded
    def future(self) -> list[str]:
        """The sources the last run found dated after its day: each is opened by later runs until it is read."""
        return [row["path"] for row in self.db.execute("SELECT path FROM future_sources ORDER BY path")]

    @guarded
    def record_future(self, sources: Iterable[tuple[str, dt.date]]) -> None:
        """The sources (path, date) this run found dated after its day, in place of the last run's."""
        with self.transaction():
            self.db.execute("DELETE FROM future_sources")
            self.db.executemany("INSERT OR REPLACE INTO future_sources VALUES (?, ?)",
                                [(path, day.isoformat()) for path, day in sources])

    # Evidence kept from an unfinished run

    @guarded
    def keep_evidence(self, sources: dict[str, str], evidence: list[Evidence]) -> None:
        """Keep, at once, the evidence of these sources (path → content hash) extracted whole."""
        with self.transaction():
            # Rows of notes deleted or moved since their run was interrupted would otherwise stay for ever.
            self.db.execute("DELETE FROM kept_evidence WHERE kept_at < ?", (stamp(ago=KEPT_DAYS),))
            self.db.executemany(
                "INSERT INTO kept_evidence VALUES (?, ?, ?, ?) ON CONFLICT(path, hash) DO UPDATE SET "
                "evidence = excluded.evidence, kept_at = excluded.kept_at",
                [(path, h, _evidence_json([e for e in evidence if e.source == path]), stamp())
                 for path, h in sources.items()],
            )

    @guarded
    def kept_evidence(self, sources: dict[str, str]) -> dict[str, list[Evidence]]:
        """The kept evidence of those of these sources (path → content hash) extracted, unchanged, before."""
        kept = {}
        for path, content_hash in sources.items():
            row = self.db.execute("SELECT evidence FROM kept_evidence WHERE path = ? AND hash = ?",
                                  (path, content_hash)).fetchone()
            if row is None:
                continue
            try:
                kept[path] = _EVIDENCE.validate_json(row["evidence"])
            except ValueError:  # a row this version cannot read: the source is simply extracted again
                self.db.execute("DELETE FROM kept_evidence WHERE path = ?", (path,))
        return kept

    # The external pool

    @guarded
    def pool(self, since: dt.date) -> list[PoolUnit]:
        """Units of the external pool dated `since` or later."""
        rows = self.db.execute("SELECT * FROM pool_units WHERE date >= ? ORDER BY path", (since.isoformat(),))
        return [PoolUnit(path=r["path"], title=r["title"], tags=json.loads(r["tags"]),
                         date=dt.date.fromisoformat(r["date"]), trait=r["trait"]) for r in rows]

    @guarded
    def record_pool(self, units: Iterable[PoolUnit]) -> None:
        self.db.executemany(
            "INSERT INTO pool_units VALUES (?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET title = excluded.title, "
            "tags = excluded.tags, date = excluded.date, trait = coalesce(excluded.trait, pool_units.trait)",
            [(u.path, u.title, json.dumps(u.tags), u.date.isoformat(), u.trait) for u in units],
        )

    # Runs

    @guarded
    def start_run(self, today: dt.date, mode: str, window_start: dt.date, window_days: int) -> int:
        cursor = self.db.execute(
            "INSERT INTO runs (started_at, today, mode, window_start, window_days, status) "
            "VALUES (?, ?, ?, ?, ?, 'running')",
            (stamp(), today.isoformat(), mode, window_start.isoformat(), window_days),
        )
        assert cursor.lastrowid is not None  # an INSERT always has one
        return cursor.lastrowid

    @guarded
    def finish_run(self, run_id: int, status: str, waiting: int, counts: dict[str, int], usage: Usage) -> None:
        self.db.execute(
            "UPDATE runs SET ended_at = ?, status = ?, waiting = ?, counts = ?, requests = ?, "
            "prompt_tokens = ?, completion_tokens = ?, cached_tokens = ?, batched = ? WHERE id = ?",
            (stamp(), status, waiting, json.dumps(counts), usage.requests, usage.prompt_tokens,
             usage.completion_tokens, usage.cached_tokens, usage.batched, run_id),
        )

    @guarded
    def run_status(self, run_id: int) -> str | None:
        row = self.db.execute("SELECT status FROM runs WHERE id = ?", (run_id,)).fetchone()
        return row["status"] if row else None

    @guarded
    def last_complete(self) -> dt.date | None:
        """The date of the last run that extracted everything in its window."""
        row = self.db.execute(
            "SELECT max(today) AS day FROM runs WHERE status = 'ok' AND waiting = 0"
        ).fetchone()
        return dt.date.fromisoformat(row["day"]) if row and row["day"] else None

    @guarded
    def reach_back(self) -> dt.date | None:
        """How far back the next incremental window must reach, so no waiting source is lost.

        To the last complete run — or further, to the window start of any later run that
        left sources waiting (a per-run cap, an LLM failure, a crash): those sources are
        in no complete run's window, and a 2-day window would never see them again.
        """
        complete = self.last_complete()
        row = self.db.execute(
            "SELECT min(window_start) AS start FROM runs WHERE NOT (status = 'ok' AND waiting = 0) "
            "AND status != 'undone' AND today >= ?",
            ((complete or dt.date.min).isoformat(),),
        ).fetchone()
        waiting_since = dt.date.fromisoformat(row["start"]) if row and row["start"] else None
        # An undone run's sources are unread again: reach back to its window until a complete run
        # started after the undo has covered it (it may be older than the last complete run).
        row = self.db.execute(
            "SELECT min(r.window_start) AS start FROM runs r JOIN changes c ON c.run_id = r.id "
            "JOIN changes u ON u.id = c.undone_by WHERE r.status = 'undone' AND NOT EXISTS ("
            "SELECT 1 FROM runs k WHERE k.status = 'ok' AND k.waiting = 0 AND k.window_start <= r.window_start "
            "AND k.started_at >= u.at)").fetchone()
        undone_since = dt.date.fromisoformat(row["start"]) if row and row["start"] else None
        # A provider's batch not applied yet: its notes are read by no run meanwhile (docs/spec.md §4.9).
        row = self.db.execute("SELECT min(window_start) AS start FROM leases WHERE kind = 'batch' AND answered = 0"
                              ).fetchone()
        batched_since = dt.date.fromisoformat(row["start"]) if row and row["start"] else None
        return min((d for d in (complete, waiting_since, undone_since, batched_since) if d is not None), default=None)

    @guarded
    def last_success_at(self) -> dt.datetime | None:
        """When the last run that did not fail ended (for the scheduler's catch-up)."""
        row = self.db.execute(
            "SELECT max(ended_at) AS at FROM runs WHERE status IN ('ok', 'partial', 'submitted')"
        ).fetchone()
        return dt.datetime.fromisoformat(row["at"]) if row and row["at"] else None

    @guarded
    def usage_since(self, day: dt.date, batched: bool | None = None) -> tuple[int, Usage]:
        """The runs dated `day` or later, and what their model requests spent together; `batched`: only the runs
        whose requests went through a batch (True), or only the others (False)."""
        which = "" if batched is None else "AND batched > 0" if batched else "AND batched = 0"
        row = self.db.execute(
            "SELECT count(*) AS runs, coalesce(sum(requests), 0) AS requests, coalesce(sum(prompt_tokens), 0) AS p, "
            "coalesce(sum(completion_tokens), 0) AS c, coalesce(sum(cached_tokens), 0) AS k, "
            f"coalesce(sum(batched), 0) AS b FROM runs WHERE today >= ? {which}", (day.isoformat(),)).fetchone()
        return int(row["runs"]), Usage(requests=row["requests"], prompt_tokens=row["p"], completion_tokens=row["c"],
                                       cached_tokens=row["k"], batched=row["b"])

    @guarded
    def recent_runs(self, limit: int = 5) -> list[RunRecord]:
        rows = self.db.execute("SELECT * FROM runs ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [RunRecord(**{**dict(row), "counts": json.loads(row["counts"])}) for row in rows]


class _Transaction:
    """BEGIN IMMEDIATE … COMMIT, rolled back on any exception."""

    def __init__(self, db: sqlite3.Connection, path: Path | None):
        self.db, self.path = db, path

    def __enter__(self) -> sqlite3.Connection:
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise ledger_error(self.path, exc) from None
        return self.db

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: Any) -> None:
        try:
            if exc_type is None:
                self.db.execute("COMMIT")
            elif self.db.in_transaction:  # SQLite may have rolled back already (a full disk does)
                self.db.execute("ROLLBACK")
        except sqlite3.Error as error:
            raise ledger_error(self.path, error) from None
        if isinstance(exc, sqlite3.Error):
            raise ledger_error(self.path, exc) from None


_EVIDENCE = TypeAdapter(list[Evidence])


def _evidence_json(evidence: list[Evidence]) -> str:
    return _EVIDENCE.dump_json(evidence).decode()


def stamp(ago: int = 0) -> str:
    """Now (or `ago` days before), in UTC, as the ledger writes times."""
    return (dt.datetime.now(dt.UTC) - dt.timedelta(days=ago)).isoformat(timespec="seconds")
