"""The ledger's trust records (docs/spec.md §8): changes with their files, provenance, merges and tombstones."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections import defaultdict
from collections.abc import Iterable

from pydantic import BaseModel

from hylo_memory.decay import Dimension, Tombstone
from hylo_memory.pipeline.state.candidates import Restore, restore
from hylo_memory.pipeline.state.changes import ChangeRecord, Provenance, SourceRow, key
from hylo_memory.pipeline.state.ledger import Ledger, guarded, stamp

KEEP_CHANGES = 200  # changes whose files' content is kept for `undo` (docs/spec.md: at least the last 100)
MAX_HISTORY = 10_000


class ChangeInfo(BaseModel):
    """One change as `history` shows it."""

    id: int
    at: str
    today: dt.date | None
    command: str
    detail: str
    counts: dict[str, int]
    files: list[str]
    run_id: int | None
    undoes: int | None
    undone_by: int | None


class Support(BaseModel):
    """One recorded piece of provenance of an item, with the change that applied it."""

    change_id: int
    day: dt.date  # the date of the change that recorded it
    command: str
    detail: str
    row: Provenance


class TakeBack(BaseModel):
    """What undoing a change reverses in the ledger beyond its own rows (the `tombstones` column)."""

    buried: list[Tombstone] = []
    raised: list[Tombstone] = []
    sources: list[SourceRow] = []  # the earlier records of the sources a refresh read again
    candidates: Restore = Restore()  # the candidates as they were before (docs/spec.md §3.2)


@guarded
def has_change(ledger: Ledger, token: str) -> bool:
    return ledger.db.execute("SELECT 1 FROM changes WHERE token = ?", (token,)).fetchone() is not None


@guarded
def record_change(ledger: Ledger, change: ChangeRecord, after: dict[Dimension, str | None]) -> int:
    """Record a change (call inside the command's transaction); an undo also takes back what it reverts."""
    db = ledger.db
    files = [d.value for d in Dimension if d in after]
    stones = TakeBack(buried=change.buried, raised=change.raised, sources=change.replaced_sources,
                      candidates=change.candidates)
    cursor = db.execute(
        "INSERT INTO changes (token, at, today, command, detail, counts, files, tombstones, run_id, undoes) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (change.token, stamp(), change.today.isoformat() if change.today else None, change.command, change.detail,
         json.dumps(change.counts), json.dumps(files), stones.model_dump_json(), change.run_id, change.undoes))
    change_id = cursor.lastrowid
    assert change_id is not None
    db.executemany("INSERT INTO change_files VALUES (?, ?, ?, ?)",
                   [(change_id, d.value, change.before.get(d), text) for d, text in after.items()])
    db.executemany("INSERT INTO provenance (change_id, dimension, item, wording, source, source_date, content_hash, "
                   "kind, via, actor, approved) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   [(change_id, p.dimension.value, key(p.item), p.wording, p.source,
                     p.source_date.isoformat() if p.source_date else None, p.content_hash, p.kind, p.via,
                     p.actor, p.approved)
                    for p in change.provenance])
    db.executemany("INSERT INTO aliases VALUES (?, ?, ?, ?)",
                   [(change_id, a.dimension.value, key(a.dropped), key(a.kept)) for a in change.aliases
                    if key(a.dropped) != key(a.kept)])
    _bury(db, change.buried, change_id)
    _raise(db, change.raised)
    if change.undoes is not None:
        _take_back(ledger, change.undoes, change_id)
    # Old changes keep their record; only the content an undo would need is let go.
    db.execute("DELETE FROM change_files WHERE change_id <= ?", (change_id - KEEP_CHANGES,))
    return change_id


def _bury(db: sqlite3.Connection, stones: Iterable[Tombstone], change_id: int | None) -> None:
    db.executemany("INSERT INTO tombstones VALUES (?, ?, ?, ?) ON CONFLICT(dimension, text) DO UPDATE SET "
                   "forgotten_on = excluded.forgotten_on, change_id = excluded.change_id",
                   [(t.dimension.value, t.text, t.forgotten_on.isoformat(), change_id) for t in stones])


def _raise(db: sqlite3.Connection, stones: Iterable[Tombstone]) -> None:
    db.executemany("DELETE FROM tombstones WHERE dimension = ? AND text = ?",
                   [(t.dimension.value, t.text) for t in stones])


@guarded
def take_back(ledger: Ledger, change_id: int) -> TakeBack:
    """The change's take-back record; a record this version cannot read is one `LedgerError` line.

    `undo` reads it before it writes anything, so a bad record refuses the undo instead of
    failing in the middle of it."""
    row = ledger.db.execute("SELECT tombstones FROM changes WHERE id = ?", (change_id,)).fetchone()
    return TakeBack.model_validate_json(row["tombstones"]) if row else TakeBack()


def _take_back(ledger: Ledger, change_id: int, undo_id: int) -> None:
    """What undoing `change_id` means in the ledger: its provenance and merges gone, its tombstones
    reversed, and for a refresh its sources unextracted and its run no longer counted."""
    db = ledger.db
    record = take_back(ledger, change_id)
    row = db.execute("SELECT run_id FROM changes WHERE id = ?", (change_id,)).fetchone()
    db.execute("UPDATE changes SET undone_by = ? WHERE id = ?", (undo_id, change_id))
    db.execute("DELETE FROM provenance WHERE change_id = ?", (change_id,))
    db.execute("DELETE FROM aliases WHERE change_id = ?", (change_id,))
    _raise(db, record.buried)
    _bury(db, record.raised, None)
    restore(ledger, record.candidates)
    if row and row["run_id"] is not None:
        earlier = record.sources
        # The external units only this run read leave the pool: no later theme counts them.
        read = [r["path"] for r in db.execute("SELECT path FROM sources WHERE run_id = ?", (row["run_id"],))]
        db.executemany("DELETE FROM pool_units WHERE path = ?", [(p,) for p in set(read) - {r.path for r in earlier}])
        db.execute("DELETE FROM sources WHERE run_id = ?", (row["run_id"],))
        db.execute("UPDATE runs SET status = 'undone' WHERE id = ?", (row["run_id"],))
        # A source an earlier run had read (another extractor's reading, an older version) is as
        # that run left it: the next refresh reads it again only if it would have without this one.
        db.executemany("INSERT INTO sources SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM runs WHERE id = ? AND "
                       "status != 'undone') ON CONFLICT(path) DO NOTHING",
                       [(r.path, r.hash, r.run_id, r.extracted_on, r.extractor, r.run_id) for r in earlier])


def _date(text: str | None) -> dt.date | None:
    return dt.date.fromisoformat(text) if text else None


def _info(row: sqlite3.Row) -> ChangeInfo:
    return ChangeInfo(id=row["id"], at=row["at"], today=_date(row["today"]), command=row["command"],
                      detail=row["detail"], counts=json.loads(row["counts"]), files=json.loads(row["files"]),
                      run_id=row["run_id"], undoes=row["undoes"], undone_by=row["undone_by"])


@guarded
def changes(ledger: Ledger, limit: int = 20) -> list[ChangeInfo]:
    rows = ledger.db.execute("SELECT * FROM changes ORDER BY id DESC LIMIT ?", (min(limit, MAX_HISTORY),))
    return [_info(r) for r in rows]


@guarded
def change(ledger: Ledger, change_id: int) -> ChangeInfo | None:
    row = ledger.db.execute("SELECT * FROM changes WHERE id = ?", (change_id,)).fetchone()
    return _info(row) if row else None


@guarded
def latest_undoable(ledger: Ledger) -> ChangeInfo | None:
    """The latest change not yet undone that is not itself an undo."""
    row = ledger.db.execute("SELECT * FROM changes WHERE undone_by IS NULL AND command != 'undo' "
                            "ORDER BY id DESC LIMIT 1").fetchone()
    return _info(row) if row else None


@guarded
def change_files(ledger: Ledger, change_id: int) -> dict[Dimension, tuple[str | None, str | None]]:
    """Each file the change wrote: (before, after) text, None where the file did not exist."""
    rows = ledger.db.execute("SELECT * FROM change_files WHERE change_id = ?", (change_id,))
    return {Dimension(r["dimension"]): (r["before"], r["after"]) for r in rows}


@guarded
def tombstones(ledger: Ledger) -> list[Tombstone]:
    rows = ledger.db.execute("SELECT * FROM tombstones ORDER BY forgotten_on, dimension, text")
    return [Tombstone(dimension=Dimension(r["dimension"]), text=r["text"],
                      forgotten_on=dt.date.fromisoformat(r["forgotten_on"])) for r in rows]


@guarded
def support(ledger: Ledger, dimension: Dimension, item: str) -> list[Support]:
    """Everything recorded of the item (and of items merged into it, however long ago), oldest first (within a
    change, by its sources' dates: a run reads newest first);
    since it was last forgotten, if it was: what a fact forgotten and kept again had before is not its own."""
    rows = ledger.db.execute(
        "WITH RECURSIVE names(item) AS (SELECT ? UNION SELECT a.dropped FROM aliases a JOIN names n "
        "ON a.kept = n.item WHERE a.dimension = ?) "
        "SELECT p.*, coalesce(c.today, substr(c.at, 1, 10)) AS day, c.command, c.detail "
        "FROM provenance p JOIN changes c ON c.id = p.change_id "
        "WHERE p.dimension = ? AND p.item IN (SELECT item FROM names) ORDER BY p.change_id, p.source_date, p.rowid",
        (key(item), dimension.value, dimension.value)).fetchall()
    kinds = [r["kind"] for r in rows]
    if "forgotten" in kinds:
        rows = rows[len(kinds) - kinds[::-1].index("forgotten"):]
    return [Support(change_id=r["change_id"], day=dt.date.fromisoformat(r["day"]), command=r["command"],
                    detail=r["detail"],
                    row=Provenance(dimension=dimension, item=r["item"], wording=r["wording"], source=r["source"],
                                   source_date=dt.date.fromisoformat(r["source_date"]) if r["source_date"] else None,
                                   content_hash=r["content_hash"], kind=r["kind"], via=r["via"],
                                   actor=r["actor"], approved=r["approved"]))
            for r in rows]


@guarded
def recorded_sources(ledger: Ledger, paths: Iterable[str]) -> list[SourceRow]:
    """The ledger's records of these sources, as they are now (before a run records them again)."""
    rows = (ledger.db.execute("SELECT * FROM sources WHERE path = ?", (path,)).fetchone() for path in set(paths))
    return [SourceRow(path=r["path"], hash=r["hash"], run_id=r["run_id"], extracted_on=r["extracted_on"],
                      extractor=r["extractor"]) for r in rows if r is not None]


@guarded
def known(ledger: Ledger, paths: Iterable[str]) -> dict[Dimension, set[tuple[str, str]]]:
    """(source, item key) pairs the notes at `paths` already support, each item under its name now."""
    found: dict[Dimension, set[tuple[str, str]]] = defaultdict(set)
    forward: dict[tuple[str, str], str] = {(r["dimension"], r["dropped"]): r["kept"]
                                           for r in ledger.db.execute("SELECT * FROM aliases ORDER BY rowid")}
    for path in set(paths):
        for row in ledger.db.execute("SELECT dimension, item FROM provenance WHERE source = ? AND content_hash "
                                     "IS NOT NULL", (path,)):
            name, seen = row["item"], set()
            while (row["dimension"], name) in forward and name not in seen:
                seen.add(name)
                name = forward[(row["dimension"], name)]
            found[Dimension(row["dimension"])].add((path, name))
    return found
