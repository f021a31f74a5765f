"""The memory model's rules: A–H, matching and merging, tombstones, over the domain's files. Pure but for `store`.

The names are loaded on first use (PEP 562): a reader that needs `Dimension` or `parse` does not pay
for the rules, the matcher and the stemmer, which `recall` and `context` never run."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hylo_memory.domain.dimensions import DEFAULT_WINDOWS, Dimension
    from hylo_memory.domain.evidence import Evidence
    from hylo_memory.domain.items import Item, MemoryFile

    from .engine import FileUpdate, plan_updates
    from .files.format import parse, render
    from .forgetting import Tombstone
    from .rules import DEFAULT_THRESHOLD, FileChanges, apply_rules

# Each name's module; the domain's (hylo_memory.domain) are re-exported, for `from hylo_memory.decay import Dimension`
# is how most of the package names them.
_DOMAIN = "hylo_memory.domain"
_HOME = {
    "FileUpdate": ".engine", "plan_updates": ".engine", "Tombstone": ".forgetting", "parse": ".files.format",
    "render": ".files.format", "DEFAULT_WINDOWS": f"{_DOMAIN}.dimensions", "Dimension": f"{_DOMAIN}.dimensions",
    "Evidence": f"{_DOMAIN}.evidence", "Item": f"{_DOMAIN}.items", "MemoryFile": f"{_DOMAIN}.items",
    "DEFAULT_THRESHOLD": ".rules", "FileChanges": ".rules", "apply_rules": ".rules",
}

__all__ = [
    "DEFAULT_THRESHOLD", "DEFAULT_WINDOWS", "Dimension", "Evidence", "FileChanges", "FileUpdate",
    "Item", "MemoryFile", "Tombstone", "apply_rules", "parse",
    "plan_updates", "render",
]


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME[name], __name__), name)
    globals()[name] = value  # once: the next lookup is a plain global
    return value
