"""The archive's index (docs/spec.md §9.7): the notes' passages, their words and their vectors.

One SQLite file beside the ledger (`.state/archive.sqlite`, 0600 from its first byte), in WAL mode, so a search
reads while a refresh writes. A note's passages are replaced in one transaction with their postings (BM25's,
by term: decay/recall/recall.py's analysis, kept so a search scores without reading every passage), so a search
finds each note whole, old or new. A vector is kept by its passage text's digest: an edit embeds again only
the paragraphs it changed, and a rebuild none. It is a cache of the notes: a damaged file is started over.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from hylo_memory.decay.recall.recall import analyse
from hylo_memory.pipeline.notes.passages import ArchivedNote, Stamp, passages
from hylo_memory.pipeline.state.names import ARCHIVE_FILE, STATE_DIR

# The cut into passages and the words' analysis: a file of another format has every note read again.
FORMAT = "2"  # 2: concept terms (decay/recall/concepts.py)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS notes (path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL,
                                  hash TEXT NOT NULL, skipped TEXT);
CREATE TABLE IF NOT EXISTS passages (id INTEGER PRIMARY KEY, path TEXT NOT NULL, at INTEGER NOT NULL,
                                     date TEXT NOT NULL, whose TEXT NOT NULL, text TEXT NOT NULL,
                                     length INTEGER NOT NULL, digest BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS passages_path ON passages (path);
CREATE INDEX IF NOT EXISTS passages_digest ON passages (digest);
CREATE TABLE IF NOT EXISTS terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS postings (term INTEGER NOT NULL, passage INTEGER NOT NULL, tf INTEGER NOT NULL,
                                     PRIMARY KEY (term, passage)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS vectors (digest BLOB PRIMARY KEY, vector BLOB NOT NULL) WITHOUT ROWID;
"""


class Found(NamedTuple):
    """A passage as a search shows it."""

    id: int
    path: str
    at: int  # its place in its note
    date: str  # ISO
    whose: str
    text: str


def digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()[:16]


def counts(text: str) -> tuple[dict[str, int], int]:
    """A passage's terms with their counts, and its length, as decay.recall.BM25 counts them."""
    found = analyse(text)
    tally: dict[str, int] = {}
    for term in found.terms:
        tally[term] = tally.get(term, 0) + 1
    for char in found.unigrams:
        tally.setdefault(char, 1)
    return tally, len(found.terms)


def archive_path(memory_dir: Path) -> Path:
    return memory_dir / STATE_DIR / ARCHIVE_FILE


class ArchiveIndex:
    """The index, opened: `writing` to change it, `reading` to search it."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db
        self._ids: dict[str, int] = {}  # term → id, as met

    # ---- opening ----

    @classmethod
    @contextmanager
    def writing(cls, memory_dir: Path) -> Iterator[ArchiveIndex]:
        """The index to change, created when missing; started over when damaged or of another format."""
        path = archive_path(memory_dir)
        try:
            db = _open(path)
        except sqlite3.DatabaseError:  # not a database any more: a cache, so started over
            for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
                stale.unlink(missing_ok=True)
            db = _open(path)
        try:
            index = cls(db)
            if index.meta("format") != FORMAT:
                index._clear()
            yield index
        finally:
            db.close()

    @classmethod
    @contextmanager
    def reading(cls, memory_dir: Path) -> Iterator[ArchiveIndex | None]:
        """The index to search, as one snapshot (a refresh writing meanwhile changes nothing it reads); None when
        there is none yet (sqlite3.Error when it cannot be read)."""
        path = archive_path(memory_dir)
        if not path.exists():
            yield None
            return
        db = sqlite3.connect(str(path), timeout=10, isolation_level=None)
        try:
            db.execute("BEGIN")  # WAL: every read below sees the index as of its first
            index = cls(db)
            yield index if index.meta("format") == FORMAT else None
        finally:
            db.close()  # a read transaction ends with its connection

    def version(self) -> str:
        """Which index, and which of its writes, it is as read: what a kept matrix of its vectors is of."""
        return f"{self.meta('instance')}:{self.meta('generation') or 0}"

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _clear(self) -> None:
        with self._transaction():
            for table in ("notes", "passages", "postings", "terms"):
                self.db.execute(f"DELETE FROM {table}")  # noqa: S608 - the tables' own names
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('format', ?)", (FORMAT,))
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('instance', ?)", (uuid.uuid4().hex,))

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write, counted in `generation`: a kept matrix of the vectors (archive_matrix.py) is of one `version`."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
            self.db.execute("INSERT OR IGNORE INTO meta VALUES ('generation', '0')")
            self.db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # ---- the notes ----

    def stamps(self) -> dict[str, Stamp]:
        """Each indexed note's stamp, as it was when read."""
        return {path: Stamp(mtime, size) for path, mtime, size in self.db.execute(
            "SELECT path, mtime_ns, size FROM notes")}

    def replace(self, notes: Sequence[ArchivedNote]) -> int:
        """Each note's passages replaced by its new ones, in one transaction; the passages written."""
        written = 0
        with self._transaction():
            for note in notes:
                self._remove(note.path)
                cut = [(part, text) for part in note.parts for text in passages(part.text)]
                for at, (part, text) in enumerate(cut):
                    self._insert(note.path, at, part.date.isoformat(), part.whose.value, text)
                written += len(cut)
                self.db.execute("INSERT OR REPLACE INTO notes VALUES (?, ?, ?, ?, ?)",
                                (note.path, *note.stamp, note.content_hash, note.skipped))
        return written

    def drop(self, paths: Iterable[str]) -> None:
        """Notes no longer in the vault: gone, with their passages."""
        with self._transaction():
            for path in paths:
                self._remove(path)

    def stale(self) -> None:
        """Every note to be read again (a rebuild): each keeps its passages until it is."""
        with self._transaction():
            self.db.execute("UPDATE notes SET mtime_ns = -1, size = -1")

    def tidy(self) -> None:
        """Drop the vectors and terms no passage uses any more."""
        with self._transaction():
            self.db.execute("DELETE FROM vectors WHERE digest NOT IN (SELECT digest FROM passages)")
            self.db.execute("DELETE FROM terms WHERE id NOT IN (SELECT DISTINCT term FROM postings)")
        self._ids.clear()

    def _remove(self, path: str) -> None:
        for passage, text in self.db.execute("SELECT id, text FROM passages WHERE path = ?", (path,)).fetchall():
            tally, _ = counts(text)
            ids = self._term_ids(tally, create=False)
            self.db.executemany("DELETE FROM postings WHERE term = ? AND passage = ?",
                                [(ids[t], passage) for t in tally if t in ids])
        self.db.execute("DELETE FROM passages WHERE path = ?", (path,))
        self.db.execute("DELETE FROM notes WHERE path = ?", (path,))

    def _insert(self, path: str, at: int, date: str, whose: str, text: str) -> None:
        tally, length = counts(text)
        cursor = self.db.execute("INSERT INTO passages (path, at, date, whose, text, length, digest) "
                                 "VALUES (?, ?, ?, ?, ?, ?, ?)", (path, at, date, whose, text, length, digest(text)))
        passage = cursor.lastrowid
        ids = self._term_ids(tally, create=True)
        self.db.executemany("INSERT INTO postings VALUES (?, ?, ?)", [(ids[t], passage, n) for t, n in tally.items()])

    def _term_ids(self, terms: Iterable[str], create: bool) -> dict[str, int]:
        """The ids of `terms`, each looked up once an index; with `create`, the missing ones made."""
        for term in terms:
            if term in self._ids:
                continue
            row = self.db.execute("SELECT id FROM terms WHERE term = ?", (term,)).fetchone()
            if row is None and create:
                row = (self.db.execute("INSERT INTO terms (term) VALUES (?)", (term,)).lastrowid,)
            if row is not None:
                self._ids[term] = int(row[0])
        return {t: self._ids[t] for t in terms if t in self._ids}

    # ---- the vectors ----

    def unembedded(self, model: str, limit: int) -> list[tuple[bytes, str]]:
        """Up to `limit` passages with no vector from `model`, newest first: (digest, text)."""
        if self.meta("model") != model:
            return [(bytes(d), t) for d, t in self.db.execute(
                "SELECT digest, text FROM passages GROUP BY digest ORDER BY max(date) DESC LIMIT ?", (limit,))]
        return [(bytes(d), t) for d, t in self.db.execute(
            "SELECT p.digest, p.text FROM passages p WHERE NOT EXISTS "
            "(SELECT 1 FROM vectors v WHERE v.digest = p.digest) GROUP BY p.digest ORDER BY max(p.date) DESC "
            "LIMIT ?", (limit,))]

    def unembedded_count(self, model: str) -> int:
        """How many passages have no vector from `model`."""
        if self.meta("model") != model:
            return int(self.db.execute("SELECT count(*) FROM passages").fetchone()[0])
        return int(self.db.execute("SELECT count(*) FROM passages p WHERE NOT EXISTS "
                                   "(SELECT 1 FROM vectors v WHERE v.digest = p.digest)").fetchone()[0])

    def keep_vectors(self, model: str, rows: dict[bytes, bytes]) -> None:
        """Keep `rows` (digest → vector) from `model`; another model's are dropped first."""
        with self._transaction():
            if self.meta("model") != model:
                self.db.execute("DELETE FROM vectors")
                self.db.execute("INSERT OR REPLACE INTO meta VALUES ('model', ?)", (model,))
            self.db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", rows.items())

    def vectors(self, model: str) -> tuple[list[int], list[bytes]]:
        """Each passage that has a vector from `model`, by id, and the vector."""
        if self.meta("model") != model:
            return [], []
        ids: list[int] = []
        rows: list[bytes] = []
        for passage, vector in self.db.execute(
                "SELECT p.id, v.vector FROM passages p JOIN vectors v ON v.digest = p.digest ORDER BY p.id"):
            ids.append(passage)
            rows.append(vector)
        return ids, rows

    # ---- searching ----

    def size(self) -> tuple[int, int]:
        """How many passages, and their lengths' sum."""
        count, total = self.db.execute("SELECT count(*), total(length) FROM passages").fetchone()
        return int(count), int(total)

    def postings(self, terms: Sequence[str]) -> dict[str, list[tuple[int, int, int]]]:
        """For each of `terms` the index holds: (passage, count, the passage's length) of each passage holding it."""
        found: dict[str, list[tuple[int, int, int]]] = {}
        for term in terms:
            row = self.db.execute("SELECT id FROM terms WHERE term = ?", (term,)).fetchone()
            if row is None:
                continue
            held = self.db.execute("SELECT o.passage, o.tf, p.length FROM postings o JOIN passages p "
                                   "ON p.id = o.passage WHERE o.term = ?", (row[0],)).fetchall()
            if held:
                found[term] = held
        return found

    def found(self, ids: Sequence[int]) -> dict[int, Found]:
        """The passages `ids`."""
        rows: dict[int, Found] = {}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start:start + 500])
            marks = ",".join("?" * len(chunk))
            for row in self.db.execute(f"SELECT id, path, at, date, whose, text FROM passages "  # noqa: S608
                                       f"WHERE id IN ({marks})", chunk):
                rows[row[0]] = Found(*row)
        return rows


def _open(path: Path) -> sqlite3.Connection:
    """The file, private before SQLite writes a byte, in WAL mode, its schema made."""
    if not path.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    db = sqlite3.connect(str(path), timeout=30, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")  # a cache: a power cut may lose its last batch, never its sense
        db.execute("PRAGMA cache_size = -65536")  # 64 MB: the postings' pages stay at hand while a big vault is read
        db.executescript(_SCHEMA)
    except BaseException:
        db.close()
        raise
    return db
