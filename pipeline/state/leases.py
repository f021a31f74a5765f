"""Leases (docs/spec.md §9.5): a batch of sources handed to the person's assistant, theirs until it answers.

A lease holds its sources by path and content hash; while it lives, no other batch holds them. An
answer made in time is read by what the lease recorded of the request, and the lease is closed in the
transaction that marks its sources read. A lease never answered expires: its sources wait for the
next batch, nothing marked read. Leases are kept a day past their expiry, so a late or second answer
is told so, rather than that its lease is unknown.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import secrets
import unicodedata
from contextlib import nullcontext
from typing import Any, Literal

from pydantic import BaseModel

from hylo_memory.errors import LeaseRefused
from hylo_memory.pipeline.state.ledger import Ledger, guarded

TOKEN = re.compile(r"L-[A-Za-z0-9_-]{16}")
KEPT_EXPIRED = 24 * 3600.0  # seconds an expired lease is remembered, to name a late answer
# batch: a provider's batch holds them (run/batch.py); review: pairs of items to judge, no source (docs/spec.md §3.1)
LeaseKind = Literal["extract", "synthesis", "batch", "review"]


class Lease(BaseModel):
    token: str
    kind: LeaseKind
    client: str
    created_at: float  # seconds since the epoch
    expires_at: float
    window_start: dt.date  # the window the sources were found in: the answer's run reaches back to it
    sources: dict[str, str]  # path → content hash
    request: dict[str, Any]  # what the assistant was shown, to read its answer by (extractors/llm/agent.py)
    answered: bool = False
    last_id: int = 0  # the number of its last source id
    today: dt.date | None = None  # the day it was handed out for: its answer is applied on that day
    vault: str = ""  # the vault it was handed out for, as the command named it

    def day(self, asked: dt.date | None) -> dt.date | None:
        """The day the answer is applied on: the lease's own; a different day asked for is refused in one line."""
        if self.today is None:  # handed out by an earlier version, which kept no day
            return asked
        if asked is not None and asked != self.today:
            raise LeaseRefused(f"lease {self.token} was handed out for {self.today}, not {asked}: answer it without "
                             f"--today, or with --today {self.today}")
        return self.today

    def expired(self, now: float) -> bool:
        return now >= self.expires_at


MAX_READER_NAME = 80  # a reader's name is its own to give: bounded, one line, before the ledger keeps it


def reader_name(name: str | None, default: str) -> str:
    """A reader's name as the ledger keeps it: one line of at most MAX_READER_NAME printable characters. A name
    is the client's to give: an escape sequence in it would reach the terminal of whoever runs `why`."""
    printable = "".join(c if unicodedata.category(c)[0] != "C" else " " for c in str(name or ""))
    return " ".join(printable.split())[:MAX_READER_NAME] or default


def new_token() -> str:
    return "L-" + secrets.token_urlsafe(12)  # 16 characters: TOKEN


def close(ledger: Ledger, token: str) -> None:
    """The lease answered, inside the transaction that marks its sources read (journal.py): a crash leaves both
    or neither."""
    ledger.db.execute("DELETE FROM leased_sources WHERE token = ?", (token,))
    ledger.db.execute("UPDATE leases SET answered = 1 WHERE token = ?", (token,))


class Leases:
    """The ledger's leases."""

    def __init__(self, ledger: Ledger):
        self.ledger, self.db, self.path = ledger, ledger.db, ledger.path  # path: for `guarded`'s one line

    @guarded
    def add(self, lease: Lease) -> None:
        with self.ledger.transaction():
            self.db.execute("INSERT INTO leases (token, kind, client, created_at, expires_at, window_start, request, "
                            "answered, last_id, today, vault) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)",
                            (lease.token, lease.kind, lease.client, lease.created_at, lease.expires_at,
                             lease.window_start.isoformat(), json.dumps(lease.request), lease.last_id,
                             lease.today.isoformat() if lease.today else None, lease.vault))
            self.db.executemany("INSERT INTO leased_sources VALUES (?, ?, ?)",
                                [(lease.token, path, h) for path, h in lease.sources.items()])

    @guarded
    def first_id(self) -> int:
        """The number the next lease's source ids start from (S37 after a lease of S1 to S36): an id from another
        lease is then an unknown id, never another lease's source taken for one of this one."""
        row = self.db.execute("SELECT coalesce(max(last_id), 0) AS n FROM leases").fetchone()
        return int(row["n"]) + 1

    @guarded
    def get(self, token: str) -> Lease | None:
        row = self.db.execute("SELECT * FROM leases WHERE token = ?", (token,)).fetchone()
        if row is None:
            return None
        sources = {r["path"]: r["hash"] for r in
                   self.db.execute("SELECT path, hash FROM leased_sources WHERE token = ? ORDER BY path", (token,))}
        return Lease(token=row["token"], kind=row["kind"], client=row["client"], created_at=row["created_at"],
                     expires_at=row["expires_at"], window_start=dt.date.fromisoformat(row["window_start"]),
                     sources=sources, request=json.loads(row["request"]), answered=bool(row["answered"]),
                     last_id=row["last_id"], vault=row["vault"],
                     today=dt.date.fromisoformat(row["today"]) if row["today"] else None)

    def usable(self, token: str, now: float) -> Lease:
        """The lease `token` names, if an answer to it can still be kept; else the one line why not."""
        if not TOKEN.fullmatch(token):
            raise LeaseRefused(f"{token[:40]!r} is not a lease token (L- and 16 letters, digits, - or _)")
        lease = self.get(token)
        if lease is None:
            raise LeaseRefused(f"lease {token} is unknown (or more than a day old)")
        if lease.answered:
            raise LeaseRefused(f"lease {token} was answered already")
        if lease.expired(now) and lease.kind != "batch":  # a batch finished late is still paid for: applied
            when = dt.datetime.fromtimestamp(lease.expires_at, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
            raise LeaseRefused(f"lease {token} expired at {when}: its notes wait for the next batch")
        return lease

    @guarded
    def held(self, now: float, batch: bool = False) -> dict[str, float]:
        """Each path a live lease holds, with when its lease expires: an assistant's leases, or (`batch`) the
        provider's batches (their sources submitted, neither read nor waiting)."""
        rows = self.db.execute("SELECT s.path, l.expires_at FROM leased_sources s JOIN leases l USING (token) "
                               f"WHERE l.expires_at > ? AND l.kind {'=' if batch else '!='} 'batch'", (now,))
        return {r["path"]: r["expires_at"] for r in rows}

    @guarded
    def batches(self) -> list[Lease]:
        """The provider's batches not yet applied, oldest first (given up or not)."""
        rows = self.db.execute("SELECT token FROM leases WHERE kind = 'batch' AND answered = 0 "
                               "ORDER BY created_at, token").fetchall()
        return [lease for r in rows if (lease := self.get(r["token"])) is not None]

    @guarded
    def set_request(self, token: str, request: dict[str, Any]) -> None:
        with self.ledger.transaction():
            self.db.execute("UPDATE leases SET request = ? WHERE token = ?", (json.dumps(request), token))

    @guarded
    def drop(self, token: str, within: bool = False) -> None:
        """A lease whose sources are no one's again: they wait (a batch never created, or given up). `within`: in
        the caller's transaction."""
        with nullcontext() if within else self.ledger.transaction():
            self.db.execute("DELETE FROM leased_sources WHERE token = ?", (token,))
            self.db.execute("DELETE FROM leases WHERE token = ?", (token,))

    @guarded
    def forget_old(self, now: float) -> None:
        """Leases expired more than a day ago, answered or not: no answer to them is still coming."""
        # A batch's lease is dropped by the run that gives it up, not here: that run says so.
        old = [(r["token"],) for r in self.db.execute("SELECT token FROM leases WHERE expires_at < ? "
                                                      "AND (kind != 'batch' OR answered = 1)", (now - KEPT_EXPIRED,))]
        if old:
            with self.ledger.transaction():
                self.db.executemany("DELETE FROM leased_sources WHERE token = ?", old)
                self.db.executemany("DELETE FROM leases WHERE token = ?", old)
