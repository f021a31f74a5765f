"""The ledger's schema: migrations, applied once each, by name, in order (never edited once released)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable


def _m001_initial(db: sqlite3.Connection) -> None:
    db.execute(
        """CREATE TABLE sources (
            path TEXT PRIMARY KEY,
            hash TEXT NOT NULL,
            run_id INTEGER NOT NULL,
            extracted_on TEXT NOT NULL
        )"""
    )
    db.execute(
        """CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            started_at TEXT NOT NULL,
            ended_at TEXT,
            today TEXT NOT NULL,
            mode TEXT NOT NULL,
            window_start TEXT NOT NULL,
            window_days INTEGER NOT NULL,
            status TEXT NOT NULL,
            waiting INTEGER NOT NULL DEFAULT 0,
            counts TEXT NOT NULL DEFAULT '{}',
            requests INTEGER NOT NULL DEFAULT 0,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0
        )"""
    )


def _m002_hash_index(db: sqlite3.Connection) -> None:
    # A note moved or renamed keeps its content: it is found by hash, not counted again.
    db.execute("CREATE INDEX sources_hash ON sources (hash)")


def _m003_external_pool(db: sqlite3.Connection) -> None:
    # External units read on different nights must still meet in one theme.
    db.execute(
        """CREATE TABLE pool_units (
            path TEXT PRIMARY KEY,
            title TEXT NOT NULL,
            tags TEXT NOT NULL,
            date TEXT NOT NULL,
            trait TEXT
        )"""
    )


def _m004_kept_evidence(db: sqlite3.Connection) -> None:
    # A batch's evidence is kept the moment it arrives: a run interrupted after paying for it
    # does not pay again. Deleted when the run that applies it records its sources.
    db.execute(
        """CREATE TABLE kept_evidence (
            path TEXT NOT NULL,
            hash TEXT NOT NULL,
            evidence TEXT NOT NULL,
            kept_at TEXT NOT NULL,
            PRIMARY KEY (path, hash)
        )"""
    )


def _m005_changes(db: sqlite3.Connection) -> None:
    # docs/spec.md §8: every change with its files before and after, the evidence it applied, the
    # merges it made (so an item's sources follow it), and the tombstones of forgotten facts.
    db.execute(
        """CREATE TABLE changes (
            id INTEGER PRIMARY KEY,
            token TEXT NOT NULL UNIQUE,
            at TEXT NOT NULL,
            today TEXT,
            command TEXT NOT NULL,
            detail TEXT NOT NULL DEFAULT '',
            counts TEXT NOT NULL DEFAULT '{}',
            files TEXT NOT NULL DEFAULT '[]',
            tombstones TEXT NOT NULL DEFAULT '{}',
            run_id INTEGER,
            undoes INTEGER,
            undone_by INTEGER
        )"""
    )
    db.execute(
        """CREATE TABLE change_files (
            change_id INTEGER NOT NULL,
            dimension TEXT NOT NULL,
            before TEXT,
            after TEXT,
            PRIMARY KEY (change_id, dimension)
        )"""
    )
    db.execute(
        """CREATE TABLE provenance (
            change_id INTEGER NOT NULL,
            dimension TEXT NOT NULL,
            item TEXT NOT NULL,
            wording TEXT NOT NULL,
            source TEXT NOT NULL,
            source_date TEXT,
            content_hash TEXT,
            kind TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX provenance_item ON provenance (dimension, item)")
    db.execute("CREATE INDEX provenance_source ON provenance (source)")
    db.execute("CREATE TABLE aliases (change_id INTEGER NOT NULL, dimension TEXT NOT NULL, dropped TEXT NOT NULL, "
               "kept TEXT NOT NULL)")
    db.execute("CREATE TABLE tombstones (dimension TEXT NOT NULL, text TEXT NOT NULL, forgotten_on TEXT NOT NULL, "
               "change_id INTEGER, PRIMARY KEY (dimension, text))")


def _m006_source_extractor(db: sqlite3.Connection) -> None:
    # Which extractor (and model) read each source: a better one configured later reads them again.
    db.execute("ALTER TABLE sources ADD COLUMN extractor TEXT")


def _m007_provenance_via(db: sqlite3.Connection) -> None:
    # How a piece of evidence came: `synthesis` for a theme's preference drawn from several units.
    db.execute("ALTER TABLE provenance ADD COLUMN via TEXT")


def _m008_future_sources(db: sqlite3.Connection) -> None:
    # Notes dated after their run's day wait for it: later runs open them whatever their mtime.
    db.execute("CREATE TABLE future_sources (path TEXT PRIMARY KEY, date TEXT NOT NULL)")


def _m009_failing_sources(db: sqlite3.Connection) -> None:
    # A source the model fails on, run after run: counted, then set aside as stuck so it holds back no other.
    db.execute(
        """CREATE TABLE failing_sources (
            path TEXT PRIMARY KEY,
            hash TEXT NOT NULL,
            date TEXT NOT NULL,
            reason TEXT NOT NULL,
            runs INTEGER NOT NULL,
            first_failed TEXT NOT NULL,
            stuck INTEGER NOT NULL DEFAULT 0
        )"""
    )


def _m010_leases(db: sqlite3.Connection) -> None:
    # The person's assistant reads a batch under a lease (docs/spec.md §9.5): its sources are no one else's until
    # it answers or the lease expires. `request` holds what it was shown, to read its answer by.
    db.execute(
        """CREATE TABLE leases (
            token TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            client TEXT NOT NULL,
            created_at REAL NOT NULL,
            expires_at REAL NOT NULL,
            window_start TEXT NOT NULL,
            request TEXT NOT NULL,
            answered INTEGER NOT NULL DEFAULT 0,
            last_id INTEGER NOT NULL DEFAULT 0
        )"""
    )
    db.execute(
        """CREATE TABLE leased_sources (
            token TEXT NOT NULL,
            path TEXT NOT NULL,
            hash TEXT NOT NULL,
            PRIMARY KEY (token, path)
        )"""
    )


def _m011_cached_tokens(db: sqlite3.Connection) -> None:
    # The prompt tokens a provider's cache served: billed for less, and shown (docs/spec.md §4.8).
    db.execute("ALTER TABLE runs ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0")


def _m012_batched_requests(db: sqlite3.Connection) -> None:
    # The requests answered through a provider's batch endpoint, billed at its discount (docs/spec.md §4.9).
    db.execute("ALTER TABLE runs ADD COLUMN batched INTEGER NOT NULL DEFAULT 0")


def _m013_lease_day(db: sqlite3.Connection) -> None:
    # A lease keeps the day and the vault it was handed out for (docs/spec.md §9.5): its answer is applied on that
    # day, in that vault, whatever day or door the answer comes back through.
    db.execute("ALTER TABLE leases ADD COLUMN today TEXT")
    db.execute("ALTER TABLE leases ADD COLUMN vault TEXT NOT NULL DEFAULT ''")


def _m014_judged_pairs(db: sqlite3.Connection) -> None:
    # Pairs of items a reader judged the same fact, opposites, or neither (docs/spec.md §3.1): never asked again.
    db.execute(
        """CREATE TABLE judged_pairs (
            dimension TEXT NOT NULL,
            first TEXT NOT NULL,
            second TEXT NOT NULL,
            judged_on TEXT NOT NULL,
            PRIMARY KEY (dimension, first, second)
        )"""
    )


def _m015_candidates(db: sqlite3.Connection) -> None:
    # Promotion after sightings (docs/spec.md §3.2): a fact seen fewer than `min_sightings` times waits here, with
    # its sightings (JSON: wording, source, date, actor), not in its file. And every piece of provenance names its
    # actor (who proposed it: `you`, the model, the assistant, `offline`) and who let it into the file.
    db.execute(
        """CREATE TABLE candidates (
            dimension TEXT NOT NULL,
            key TEXT NOT NULL,
            text TEXT NOT NULL,
            first_seen TEXT NOT NULL,
            last_seen TEXT NOT NULL,
            sightings TEXT NOT NULL,
            PRIMARY KEY (dimension, key)
        )"""
    )
    db.execute("ALTER TABLE provenance ADD COLUMN actor TEXT")
    db.execute("ALTER TABLE provenance ADD COLUMN approved TEXT")


MIGRATIONS: list[tuple[str, Callable[[sqlite3.Connection], None]]] = [
    ("m001_initial", _m001_initial),
    ("m002_hash_index", _m002_hash_index),
    ("m003_external_pool", _m003_external_pool),
    ("m004_kept_evidence", _m004_kept_evidence),
    ("m005_changes", _m005_changes),
    ("m006_source_extractor", _m006_source_extractor),
    ("m007_provenance_via", _m007_provenance_via),
    ("m008_future_sources", _m008_future_sources),
    ("m009_failing_sources", _m009_failing_sources),
    ("m010_leases", _m010_leases),
    ("m011_cached_tokens", _m011_cached_tokens),
    ("m012_batched_requests", _m012_batched_requests),
    ("m013_lease_day", _m013_lease_day),
    ("m014_judged_pairs", _m014_judged_pairs),
    ("m015_candidates", _m015_candidates),
]
