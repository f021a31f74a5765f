"""The rules over the whole memory: every file, with or without evidence."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence

from pydantic import BaseModel

from hylo_memory.domain.dimensions import Dimension
from hylo_memory.domain.evidence import Evidence
from hylo_memory.domain.items import MemoryFile

from .forgetting import Tombstone
from .rules import DEFAULT_THRESHOLD, FileChanges, StatedConflict, apply_rules
from .stated import Stated


class FileUpdate(BaseModel):
    """One memory file before and after the rules, and whether it must be written."""

    dimension: Dimension
    before: MemoryFile | None
    after: MemoryFile
    changes: FileChanges

    @property
    def write(self) -> bool:
        """Only changed files are written; a file with no items is never created."""
        if self.before is None:
            return bool(self.after.items)
        return self.after != self.before


def plan_updates(
    files: dict[Dimension, MemoryFile | None],
    evidence: Iterable[Evidence],
    today: dt.date,
    threshold: float = DEFAULT_THRESHOLD,
    forgotten: Iterable[Tombstone] = (),
    known: Mapping[Dimension, Collection[tuple[str, str]]] | None = None,
    stated: Sequence[str] = (),
) -> list[FileUpdate]:
    """Apply rules A–H to every dimension's file, in the order of `Dimension` (see `apply_rules`).

    `stated`: the statements of the person's own `_me.md` (decay/stated.py); evidence saying the opposite of one
    is not applied, and is reported with the statement it contradicts (docs/spec.md §2.1)."""
    by_dimension: dict[Dimension, list[Evidence]] = defaultdict(list)
    against: dict[Dimension, list[StatedConflict]] = defaultdict(list)
    own = Stated(list(stated)) if stated else None
    # Oldest first, whatever order the sources were read in (newest first, docs/spec.md §9.5): a new item takes
    # the wording it was first written in, and one run gives the same files in any reading order.
    for ev in sorted(evidence, key=lambda ev: ev.date or today):
        line = own.contradicted_by(ev.text) if own is not None else None
        if line is not None:
            against[ev.dimension].append(StatedConflict(line=line, evidence=ev.text, source=ev.source))
            continue
        by_dimension[ev.dimension].append(ev)
    stones: dict[Dimension, list[Tombstone]] = defaultdict(list)
    for stone in forgotten:
        stones[stone.dimension].append(stone)
    updates = []
    for dimension in Dimension:
        before = files.get(dimension)
        after, changes = apply_rules(before or MemoryFile.new(dimension), by_dimension[dimension], today, threshold,
                                     forgotten=stones[dimension], known=(known or {}).get(dimension, frozenset()))
        changes.stated = against[dimension]
        updates.append(FileUpdate(dimension=dimension, before=before, after=after, changes=changes))
    return updates
