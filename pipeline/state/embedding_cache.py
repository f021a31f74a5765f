"""Recall's embedding cache: one vector per (model, item text), so each item is embedded once.

A SQLite file beside the ledger (`.state/embeddings.sqlite`, 0600 from its first byte): each write is one
transaction, so a crash leaves the cache as it was before or after, never half-written. It holds the
vectors of the memory's current items only: texts no longer in the memory, and other models, are dropped
when new vectors are kept.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from array import array
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from hylo_memory.pipeline.state.names import STATE_DIR

CACHE_FILE = "embeddings.sqlite"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """The vectors kept for one memory folder."""

    def __init__(self, path: Path):
        self.path = path

    @classmethod
    def for_memory_dir(cls, memory_dir: Path) -> EmbeddingCache:
        return cls(memory_dir / STATE_DIR / CACHE_FILE)

    def _connect(self, create: bool) -> sqlite3.Connection | None:
        if not self.path.exists():
            if not create:
                return None
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))  # private before SQLite writes a byte
        db = sqlite3.connect(str(self.path), timeout=5, isolation_level=None)
        try:
            db.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, digest TEXT NOT NULL, "
                       "vector BLOB NOT NULL, PRIMARY KEY (model, digest))")
        except BaseException:  # closed, not left to the collector
            db.close()
            raise
        return db

    def get(self, model: str, texts: Collection[str]) -> dict[str, list[float]]:
        """The kept vectors of those of `texts` that have one for `model`."""
        found: dict[str, list[float]] = {}
        for text, row in self.rows(model, texts).items():
            vector = array("f")
            vector.frombytes(row)
            found[text] = vector.tolist()
        return found

    def rows(self, model: str, texts: Collection[str]) -> dict[str, bytes]:
        """The kept vectors of those of `texts` that have one for `model`, as their 32-bit floats' bytes."""
        db = self._connect(create=False)
        if db is None:
            return {}
        try:
            wanted = {_digest(t): t for t in texts}
            return {wanted[digest]: bytes(blob)
                    for digest, blob in db.execute("SELECT digest, vector FROM vectors WHERE model = ?", (model,))
                    if digest in wanted and len(blob) % 4 == 0}
        finally:
            db.close()

    def put(self, model: str, vectors: Mapping[str, Sequence[float]], current: Collection[str]) -> None:
        """Keep `vectors` for `model`; drop every vector of another model, or of a text not in `current`."""
        self.put_rows(model, {t: array("f", v).tobytes() for t, v in vectors.items()}, current)

    def put_rows(self, model: str, rows: Mapping[str, bytes], current: Collection[str]) -> None:
        """`put`, given each vector as its 32-bit floats' bytes."""
        if not rows:
            return
        db = self._connect(create=True)
        assert db is not None
        try:
            with db:  # one transaction: commits at the end, rolls back on any error
                db.execute("BEGIN IMMEDIATE")
                db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                               [(model, _digest(t), row) for t, row in rows.items()])
                db.execute("DELETE FROM vectors WHERE model != ?", (model,))
                db.execute("CREATE TEMP TABLE current (digest TEXT PRIMARY KEY)")
                db.executemany("INSERT OR IGNORE INTO current VALUES (?)", [(_digest(t),) for t in current])
                db.execute("DELETE FROM vectors WHERE digest NOT IN (SELECT digest FROM current)")
        finally:
            db.close()

    def drop(self, model: str, texts: Collection[str]) -> None:
        """Forget the vectors of `texts` for `model`."""
        db = self._connect(create=False)
        if db is None:
            return
        try:
            with db:  # one transaction, not one a row
                db.execute("BEGIN IMMEDIATE")
                db.executemany("DELETE FROM vectors WHERE model = ? AND digest = ?",
                               [(model, _digest(t)) for t in texts])
        finally:
            db.close()
