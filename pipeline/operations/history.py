"""`history` and `undo` (docs/spec.md §8): every change to the memory files, and taking one back."""

from __future__ import annotations

import difflib
import json

from hylo_memory.decay import Dimension
from hylo_memory.decay.files.store import MemoryStore
from hylo_memory.errors import InputError
from hylo_memory.pipeline import clock
from hylo_memory.pipeline.operations.after_write import after_write
from hylo_memory.pipeline.operations.items import Report
from hylo_memory.pipeline.state.changes import ChangeRecord
from hylo_memory.pipeline.state.journal import Journal, commit_planned
from hylo_memory.pipeline.state.ledger import Ledger
from hylo_memory.pipeline.state.opened import Opened
from hylo_memory.pipeline.state.trust import (
    KEEP_CHANGES,
    MAX_HISTORY,
    ChangeInfo,
    change,
    change_files,
    changes,
    latest_undoable,
    take_back,
)
from hylo_memory.pipeline.state.writing import settle, writing


class History(Report):
    """The changes, newest first."""

    changes: list[ChangeInfo]

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json")["changes"], ensure_ascii=False)

    def to_text(self) -> str:
        if not self.changes:
            return "No changes yet.\n"
        return "".join(describe(c) + "\n" for c in self.changes)


def describe(info: ChangeInfo) -> str:
    """One change on one line: number, time, command, what, files, counts, whether it was undone."""
    counts = ", ".join(f"{k} {v}" for k, v in info.counts.items())
    names = {d.value: d.filename for d in Dimension}  # a name this version does not know is shown as it is
    files = ", ".join(names.get(f, f) for f in info.files) or "no file"
    undone = f"  [undone by #{info.undone_by}]" if info.undone_by else ""
    detail = f"  {info.detail}" if info.detail else ""
    what = f"{files}; {counts}" if counts else files
    return f"#{info.id}  {info.at.replace('T', ' ')[:16]} UTC  {info.command}{detail}  ({what}){undone}"


def history(memory: Opened, limit: int = 20) -> History:
    settle(memory.store, memory.config.lock_timeout)  # a change a crash interrupted is finished, and listed
    return History(changes=changes(memory.copy, limit))


class UndoReport(Report):
    """What `undo` reverted (or, with --dry-run, would)."""

    undone: ChangeInfo
    dry_run: bool
    diff: str

    def to_text(self) -> str:
        verb = "Would undo" if self.dry_run else "Undid"
        return f"{verb} {describe(self.undone)}\n" + (self.diff if self.dry_run else "")


def undo(memory: Opened, number: int | None = None, dry_run: bool = False) -> UndoReport:
    """Revert change `number` (default: the latest not yet undone) if its files still hold what it wrote."""
    store, config = memory.store, memory.config
    if dry_run:  # like `refresh --dry-run`, it writes nothing of its own
        settle(store, config.lock_timeout)
        target, files = _target(store, memory.copy, number)
        return UndoReport(undone=target, dry_run=True, diff=_diff(store, files))
    with writing(store, config.lock_timeout):
        ledger = memory.ledger

        def plan() -> tuple[Journal, tuple[ChangeInfo, Files]]:
            target, files = _target(store, ledger, number)  # saved by the person meanwhile: refused, named
            record = ChangeRecord(command="undo", today=clock.today(config.timezone),
                                  detail=f"#{target.id} {target.command}", undoes=target.id,
                                  counts={"files": len(files)})
            return Journal(files={d: before for d, (before, _) in files.items()}, change=record), (target, files)

        target, files = commit_planned(store, ledger, plan)
        report = UndoReport(undone=target, dry_run=False, diff=_diff(store, files))
    after_write(store, config)
    return report


def _target(store: MemoryStore, ledger: Ledger, number: int | None) -> tuple[ChangeInfo, Files]:
    target = latest_undoable(ledger) if number is None else change(ledger, number)
    if target is None:
        raise InputError("undo: nothing to undo" if number is None else f"undo: there is no change #{number}")
    return target, _revertible(store, ledger, target)


Files = dict[Dimension, tuple[str | None, str | None]]  # each file a change wrote: (before, after)


def _revertible(store: MemoryStore, ledger: Ledger, target: ChangeInfo) -> Files:
    """The change's files, when every one still holds exactly what it wrote; else a one-line refusal."""
    if target.command == "undo":
        raise InputError(f"undo: change #{target.id} is itself an undo; run the command it undid again instead")
    if target.undone_by is not None:
        raise InputError(f"undo: change #{target.id} was already undone by #{target.undone_by}")
    take_back(ledger, target.id)  # a record this version cannot read refuses here, before anything is written
    files = change_files(ledger, target.id)
    if len(files) != len(target.files):
        raise InputError(f"undo: change #{target.id} is too old to undo (the files of the last {KEEP_CHANGES} "
                         "changes are kept)")
    for dimension, (_, after) in files.items():
        now = store.read_bytes(dimension)
        if now != (None if after is None else after.encode("utf-8")):
            later = [c.id for c in changes(ledger, MAX_HISTORY) if c.id > target.id and c.undone_by is None
                     and c.command != "undo" and dimension.value in c.files]
            how = (f"undo the later change{'s' if len(later) > 1 else ''} to it first ("
                   + ", ".join(f"#{n}" for n in sorted(later)) + ")") if later else \
                "it was edited outside hylo-memory since, and undoing would lose that edit; undo it by hand"
            raise InputError(f"undo: {store.path(dimension)} changed since change #{target.id}; nothing was undone "
                             f"({how})")
    return files


def _diff(store: MemoryStore, files: Files) -> str:
    """The unified diff from what the change wrote back to what was there before it."""
    out: list[str] = []
    for dimension, (before, after) in sorted(files.items(), key=lambda f: list(Dimension).index(f[0])):
        name = str(store.path(dimension))
        out += difflib.unified_diff((after or "").splitlines(keepends=True), (before or "").splitlines(keepends=True),
                                    fromfile=name if after is not None else "/dev/null",
                                    tofile=name if before is not None else "/dev/null")
    return "".join(out)
