"""The pairs of items a reader has judged (docs/spec.md §3.1), so a review never asks about the same two again.

A pair is kept by its dimension and its two items' normalised texts, whatever the verdict: `same`,
`contradicts`, or neither (left out of the answer), refused ones too. A change of either wording makes
it a pair not yet judged. An undone review leaves its pairs judged: the reader would only say it again.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from hylo_memory.decay import Dimension
from hylo_memory.pipeline.state.changes import key
from hylo_memory.pipeline.state.leases import close
from hylo_memory.pipeline.state.ledger import Ledger, guarded

Pair = tuple[Dimension, str, str]  # dimension, and the two items' texts


def pair_key(pair: Pair) -> tuple[str, str, str]:
    """How the ledger names a pair: its dimension and the two normalised texts, in order."""
    dimension, a, b = pair
    first, second = sorted((key(a), key(b)))
    return dimension.value, first, second


@guarded
def judged(ledger: Ledger) -> set[tuple[str, str, str]]:
    """Every pair judged, as `pair_key` names it."""
    rows = ledger.db.execute("SELECT dimension, first, second FROM judged_pairs")
    return {(r["dimension"], r["first"], r["second"]) for r in rows}


@guarded
def record_judged(ledger: Ledger, pairs: Iterable[Pair], today: dt.date, lease: str | None = None) -> None:
    """Keep these pairs as judged on `today`; and close the review's `lease`, in the same transaction."""
    with ledger.transaction():
        ledger.db.executemany("INSERT INTO judged_pairs VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                              [(*pair_key(p), today.isoformat()) for p in pairs])
        if lease is not None:
            close(ledger, lease)


@guarded
def live_review(ledger: Ledger, now: float) -> float | None:
    """When the first live review lease (handed out, unanswered) expires; None when there is none."""
    row = ledger.db.execute("SELECT min(expires_at) AS until FROM leases WHERE kind = 'review' AND answered = 0 "
                            "AND expires_at > ?", (now,)).fetchone()
    return None if row is None or row["until"] is None else float(row["until"])
