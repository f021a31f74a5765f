"""The soft cap (docs/spec.md §2.2): a memory file holding more Active items than `soft_cap` is said to be past it.

Nothing is ever deleted for it: the run summary, `status` and `context` name the file, its Active count and the
cap, and suggest `forget` or a shorter window. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from hylo_memory.domain.dimensions import Dimension
from hylo_memory.domain.items import MemoryFile

DEFAULT_SOFT_CAP = 150


class OverCap(BaseModel):
    """A memory file past its soft cap."""

    file: str
    active: int
    cap: int

    def line(self) -> str:
        """One line: the file, its Active count, the cap, and what to do."""
        return (f"Soft cap: {self.file} holds {self.active:,} Active items, past the soft cap of {self.cap:,}: "
                f"`forget` what no longer holds, or shorten its decay_window (nothing is deleted for it)")


def over_cap(files: Mapping[Dimension, MemoryFile | None], cap: int) -> list[OverCap]:
    """The files holding more than `cap` Active items, in the order of `Dimension`."""
    found = []
    for dimension in Dimension:
        memory = files.get(dimension)
        active = len(memory.active) if memory is not None else 0
        if active > cap:
            found.append(OverCap(file=dimension.filename, active=active, cap=cap))
    return found
