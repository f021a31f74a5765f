"""`hylo-memory apply`: evidence from a file through the rules on every memory file, with no LLM."""

from __future__ import annotations

import datetime as dt

from hylo_memory.decay import Evidence, FileUpdate, plan_updates, render
from hylo_memory.decay.store import MemoryStore

from ..config import Config
from ..state.journal import Journal, commit
from ..state.writing import writing


def apply_evidence(
    store: MemoryStore,
    evidence: list[Evidence],
    today: dt.date,
    config: Config,
    dry_run: bool = False,
) -> list[FileUpdate]:
    """Rules A–G on every memory file with this evidence; write the changed files."""
    if dry_run:
        return plan_updates(store.read_all(), evidence, today, config.similarity_threshold)
    with writing(store, config.lock_timeout):
        files = store.read_all()  # refuses a hand-broken file before anything is written
        updates = plan_updates(files, evidence, today, config.similarity_threshold)
        changed = {u.dimension: render(u.after) for u in updates if u.write}
        if changed:
            # Several files change together or not at all, even if the process dies midway.
            commit(store, Journal(files=changed))
    return updates
