"""The memory model: memory files, rules A–H, matching and merging, tombstones. Pure but for `store`."""

from .engine import FileUpdate, plan_updates
from .forgetting import Tombstone
from .format import parse, render
from .model import DEFAULT_WINDOWS, Dimension, Evidence, Item, MemoryFile
from .rules import DEFAULT_THRESHOLD, FileChanges, apply_rules

__all__ = [
    "DEFAULT_THRESHOLD", "DEFAULT_WINDOWS", "Dimension", "Evidence", "FileChanges", "FileUpdate",
    "Item", "MemoryFile", "Tombstone", "apply_rules", "parse",
    "plan_updates", "render",
]
