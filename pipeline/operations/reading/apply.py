"""`hylo-memory apply`: evidence from a file through the rules on every memory file, with no LLM."""

from __future__ import annotations

import datetime as dt
from typing import NamedTuple

from hylo_memory.decay import Dimension, Evidence, FileUpdate, plan_updates, render
from hylo_memory.decay.files.store import MemoryStore
from hylo_memory.decay.sightings import Gated
from hylo_memory.decay.stated import contradicting
from hylo_memory.errors import MemoryFileError
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.after_write import after_write
from hylo_memory.pipeline.run.summary import (
    Deleted,
    RunSummary,
    candidate_counts,
    file_reports,
    total_counts,
    trust_lists,
)
from hylo_memory.pipeline.state.candidates import Restore, Waiting, hold_back
from hylo_memory.pipeline.state.changes import Actors, Origin, change_of
from hylo_memory.pipeline.state.journal import Journal, commit_planned
from hylo_memory.pipeline.state.ledger import Ledger
from hylo_memory.pipeline.state.me_file import persons_folder, read_me
from hylo_memory.pipeline.state.opened import Opened
from hylo_memory.pipeline.state.trust import tombstones
from hylo_memory.pipeline.state.writing import writing

APPLY_ACTOR = "apply"  # who proposed an evidence file's facts: a script or an assistant, never taken for the person


class Applied(NamedTuple):
    """What the rules did to each file planned, and the hand-broken files left as they are (none of the
    evidence lands in them), each refusal naming its file and line."""

    updates: list[FileUpdate]
    left_out: list[MemoryFileError]
    gated: Gated | None = None  # the evidence the rules applied, and the candidates (docs/spec.md §3.2)
    waiting: Waiting | None = None
    restore: Restore | None = None


def apply_evidence(memory: Opened, evidence: list[Evidence], today: dt.date, dry_run: bool = False,
                   detail: str = "") -> Applied:
    """Rules A–H on every memory file with this evidence; write the changed files (`detail`: the evidence file),
    then the after-write step."""
    store, config = memory.store, memory.config
    if dry_run:
        return _plan(store, evidence, today, config, memory.copy)
    with writing(store, config.lock_timeout):
        ledger = memory.ledger

        def plan() -> tuple[Journal | None, Applied]:
            applied = _plan(store, evidence, today, config, ledger)
            changed: dict[Dimension, str | None] = {u.dimension: render(u.after) for u in applied.updates if u.write}
            if not changed and not applied.waiting:
                return None, applied
            actors = Actors(actor=APPLY_ACTOR, sightings=applied.gated.actors if applied.gated else {})
            change = change_of("apply", applied.updates, today, detail, Origin(actors=actors),
                               candidates=applied.restore) if changed else None
            # Several files change together or not at all, even if the process dies midway.
            return Journal(files=changed, change=change, candidates=applied.waiting or None), applied

        done = commit_planned(store, ledger, plan)
    after_write(store, config)
    return done


def summary_of(applied: Applied, today: dt.date, dry_run: bool = False) -> RunSummary:
    """What an apply did, in the run summary's shape (`apply --json`): it reads no notes, so its window is its day
    and its sources none; a hand-broken file left as it is is one of its failures."""
    reports = file_reports(applied.updates)
    return RunSummary(
        mode="incremental", window_days=0, window_start=today, today=today, extractor="apply",
        changed_files=[r.file for r in reports if r.written], counts=total_counts(reports),
        deleted=[Deleted(file=r.file, text=t) for r in reports for t in r.changes.deleted], **trust_lists(reports),
        dry_run=dry_run, failures=[f"left as it is, it cannot be read: {refused}" for refused in applied.left_out],
        files=reports, candidates=candidate_counts(applied.gated, 1) if applied.gated else None)


def _plan(store: MemoryStore, evidence: list[Evidence], today: dt.date, config: Config, ledger: Ledger) -> Applied:
    """The rules on every file that can be read. A file the evidence lands in must be (else the whole apply is
    refused, naming each such file); a hand-broken other is left out, never written (docs/spec.md §7): its
    decay only waits, as rules D and E count from its items' dates, not from the last command."""
    files, refused = store.read_writing({e.dimension for e in evidence})
    stated = read_me(persons_folder(store.folder, config.memory_dir, config.person_memory_dir),
                     config.me_max_bytes).statements  # the person's own file wins (§2.1)
    stones = tombstones(ledger)
    refused_by_me, evidence = contradicting(evidence, stated)  # never a candidate: refused and named (§2.1)
    gated, waiting, restore = hold_back(ledger, files, evidence, today, config, APPLY_ACTOR, stones)
    updates = plan_updates(files, refused_by_me + gated.evidence, today, config.similarity_threshold,
                           forgotten=stones, stated=stated)
    return Applied([u for u in updates if u.dimension not in refused], list(refused.values()), gated, waiting,
                   restore)
