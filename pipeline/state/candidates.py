"""The candidates of docs/spec.md §3.2 as the ledger keeps them: facts waiting for their next sighting.

A command that changes them carries a `Waiting` delta in its journal, applied in the same transaction as the
rest of its record (journal.py), so a crash leaves both or neither and a replay applies it once more, to the same
end. The change `history` records carries the rows as they were (`TakeBack`), so `undo` puts them back.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping

from pydantic import BaseModel

from hylo_memory.decay import Dimension, Evidence, MemoryFile, Tombstone
from hylo_memory.decay.sightings import Candidate, Gated, Sighting, gate, matching
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.state.ledger import Ledger, guarded

PERSON = "you"  # the actor of the person's own word: `remember`, `promote`; never a loop's
MAX_CANDIDATES = 10_000  # kept at once: the oldest past it are let go (a person's memory holds far fewer facts)


class Actors(BaseModel):
    """Who proposed a change's evidence and who let it in (docs/spec.md §3.2): `actor` for all of it but the
    promoted candidates' sightings, each under its own (`sightings`, by source and wording); `approved`, when set,
    for every row (the person's `promote`), else each row's own actor."""

    actor: str | None = None
    sightings: dict[tuple[str, str], str] = {}
    approved: str | None = None


class Waiting(BaseModel):
    """What one command does to the candidates: rows put (new or seen again) and keys dropped."""

    put: list[Candidate] = []
    dropped: list[tuple[Dimension, str]] = []  # (dimension, key): promoted, expired, rejected, let go

    def __bool__(self) -> bool:
        return bool(self.put or self.dropped)


class Restore(BaseModel):
    """What undoing a change does to the candidates: the keys it put removed, the rows as they were put back."""

    remove: list[tuple[Dimension, str]] = []
    rows: list[Candidate] = []


@guarded
def candidates(ledger: Ledger) -> list[Candidate]:
    """Every candidate, the oldest first sighting first."""
    rows = ledger.db.execute("SELECT * FROM candidates ORDER BY first_seen, dimension, key")
    return [_candidate(r["dimension"], r["text"], r["sightings"]) for r in rows]


def _candidate(dimension: str, text: str, sightings: str) -> Candidate:
    return Candidate(dimension=Dimension(dimension), text=text,
                     sightings=[Sighting.model_validate(s) for s in json.loads(sightings)])


def write(ledger: Ledger, waiting: Waiting) -> None:
    """Apply the delta (inside the command's transaction): drops first, so a candidate started again keeps its row."""
    db = ledger.db
    db.executemany("DELETE FROM candidates WHERE dimension = ? AND key = ?", [(d.value, k) for d, k in waiting.dropped])
    db.executemany("INSERT OR REPLACE INTO candidates VALUES (?, ?, ?, ?, ?, ?)", [_row(c) for c in waiting.put])


def restore(ledger: Ledger, record: Restore) -> None:
    """Undo a change's delta (inside the undo's transaction)."""
    write(ledger, Waiting(put=record.rows, dropped=record.remove))


def _row(c: Candidate) -> tuple[str, str, str, str, str, str]:
    sightings = json.dumps([s.model_dump(mode="json") for s in c.sightings], ensure_ascii=False)
    return c.dimension.value, c.key, c.text, c.first.isoformat(), c.last.isoformat(), sightings


def restore_of(before: Iterable[Candidate], waiting: Waiting) -> Restore:
    """How to undo `waiting`, given the candidates before it."""
    touched = {(c.dimension, c.key) for c in waiting.put} | set(waiting.dropped)
    return Restore(remove=[(c.dimension, c.key) for c in waiting.put],
                   rows=[c for c in before if (c.dimension, c.key) in touched])


def sighting_hashes(gated: Gated) -> dict[str, str]:
    """The content hashes of the promoted candidates' sightings, by source."""
    return {s.source: s.content_hash for c in gated.promoted for s in c.sightings if s.content_hash}


def delta(gated: Gated, before: list[Candidate]) -> Waiting:
    """The ledger's delta for what the gate did, the oldest let go past MAX_CANDIDATES."""
    dropped = [(c.dimension, c.key) for c in gated.promoted + gated.expired]
    put_keys = {(c.dimension, c.key) for c in gated.put}
    over = gated.waiting - MAX_CANDIDATES
    if over > 0:
        gated.waiting = MAX_CANDIDATES
        gone = set(dropped)
        left = [c for c in before if (c.dimension, c.key) not in gone and (c.dimension, c.key) not in put_keys]
        dropped += [(c.dimension, c.key) for c in left[:over]]
    return Waiting(put=gated.put, dropped=dropped)


def hold_back(ledger: Ledger, files: Mapping[Dimension, MemoryFile | None], evidence: Iterable[Evidence],
              today: dt.date, config: Config, actor: str, forgotten: Iterable[Tombstone],
              hashes: Mapping[str, str] | None = None) -> tuple[Gated, Waiting, Restore]:
    """The gate (decay/sightings.py) over the ledger's candidates: what the rules apply, the delta, its undoing.
    `hashes`: this run's notes' content hashes, kept with their sightings (provenance names them, §4.4)."""
    before = candidates(ledger)
    gated = gate(files, evidence, before, today, config.min_sightings, actor, config.similarity_threshold,
                 forgotten=forgotten)
    for sighting in (s for c in gated.put + gated.promoted for s in c.sightings):
        if sighting.content_hash is None and hashes and sighting.source in hashes:
            sighting.content_hash = hashes[sighting.source]
    waiting = delta(gated, before)
    return gated, waiting, restore_of(before, waiting)


class Taken(BaseModel):
    """A candidate a command of the person takes into its file: its sightings as evidence, with who proposed each."""

    evidence: list[Evidence] = []
    hashes: dict[str, str] = {}
    actors: Actors = Actors(actor=PERSON, approved=PERSON)
    restore: Restore = Restore()


def taken(before: list[Candidate], candidate: Candidate | None) -> tuple[Waiting | None, Taken]:
    """The delta and the evidence of taking `candidate` (None: nothing waits) into its file by the person's word."""
    if candidate is None:
        return None, Taken()
    waiting = Waiting(dropped=[(candidate.dimension, candidate.key)])
    return waiting, Taken(evidence=candidate.evidence(),
                          hashes={s.source: s.content_hash for s in candidate.sightings if s.content_hash},
                          actors=Actors(actor=PERSON, sightings={(s.source, s.text): s.actor
                                                                 for s in candidate.sightings}, approved=PERSON),
                          restore=restore_of(before, waiting))


def taken_with(ledger: Ledger, evidence: Evidence, threshold: float) -> tuple[Waiting | None, Taken]:
    """`remember`: the candidate its fact names, taken with it (docs/spec.md §3.2), if one waits."""
    before = candidates(ledger)
    return taken(before, matching(before, evidence.dimension, evidence.text, threshold))
