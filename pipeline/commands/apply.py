"""`hylo-memory apply`: evidence from a file through the rules on every memory file, with no LLM."""

from __future__ import annotations

import datetime as dt

from hylo_memory.decay import Dimension, Evidence, FileUpdate, plan_updates, render
from hylo_memory.decay.store import MemoryStore

from ..config import Config
from ..state.changes import change_of
from ..state.journal import Journal, commit_planned
from ..state.ledger import Ledger
from ..state.trust import tombstones
from ..state.writing import writing


def apply_evidence(
    store: MemoryStore,
    evidence: list[Evidence],
    today: dt.date,
    config: Config,
    dry_run: bool = False,
    detail: str = "",
) -> list[FileUpdate]:
    """Rules A–H on every memory file with this evidence; write the changed files (`detail`: the evidence file)."""
    if dry_run:
        with Ledger.for_memory_dir(store.folder, readonly=True) as ledger:
            return plan_updates(store.read_all(), evidence, today, config.similarity_threshold,
                                forgotten=tombstones(ledger))
    with writing(store, config.lock_timeout), Ledger.for_memory_dir(store.folder) as ledger:
        def plan() -> tuple[Journal | None, list[FileUpdate]]:
            files = store.read_all()  # refuses a hand-broken file before anything is written
            updates = plan_updates(files, evidence, today, config.similarity_threshold, forgotten=tombstones(ledger))
            changed: dict[Dimension, str | None] = {u.dimension: render(u.after) for u in updates if u.write}
            if not changed:
                return None, updates
            # Several files change together or not at all, even if the process dies midway.
            return Journal(files=changed, change=change_of("apply", updates, today, detail)), updates

        return commit_planned(store, ledger, plan)
