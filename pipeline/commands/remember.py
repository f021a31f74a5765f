"""Record one fact the person states: `hylo-memory remember "I'm vegetarian"`."""

from __future__ import annotations

import datetime as dt

from hylo_memory.decay import Evidence, FileUpdate, apply_rules
from hylo_memory.decay.model import MemoryFile
from hylo_memory.decay.store import MemoryStore
from hylo_memory.extractors.base import Decision

from .locking import DEFAULT_TIMEOUT
from .memory import writing

REMEMBER_SOURCE = "remember"


def remember(
    store: MemoryStore,
    decision: Decision,
    today: dt.date,
    threshold: float,
    lock_timeout: float = DEFAULT_TIMEOUT,
) -> tuple[FileUpdate, str]:
    """Apply the rules to the one file with this fact; return the update and a one-line report."""
    evidence = Evidence(dimension=decision.dimension, text=decision.text, source=REMEMBER_SOURCE,
                        pinned=decision.pinned, date=today)
    # Read and write under the memory lock: a refresh committing meanwhile is waited for, never overwritten.
    with writing(store, lock_timeout):
        before = store.read(decision.dimension)
        after, changes = apply_rules(before or MemoryFile.new(decision.dimension), [evidence], today, threshold,
                                     decay=False)
        update = FileUpdate(dimension=decision.dimension, before=before, after=after, changes=changes)
        if update.write:
            store.write(after)  # one file: atomic_write alone makes it whole or absent
    kept = next(i for i in after.items if i.text in changes.added + changes.refreshed)
    verb = "Kept" if changes.added else "Refreshed"
    pin = "pinned" if kept.pinned else "not pinned, it will fade"
    note = f"; {decision.reason}" if decision.reason else ""
    return update, f'{verb} "{kept.text}" in {store.path(decision.dimension).name} (seen {kept.seen}, {pin}){note}'
