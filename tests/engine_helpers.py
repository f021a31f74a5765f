"""Helpers for the memory-engine tests: canonical memory files, evidence, one run of the rules.

Files on disk (writing one, a folder's snapshot) are `vault_helpers`' work; `write_memory` is built on it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from freezegun import freeze_time
from vault_helpers import write_file

from hylo_memory.decay import Dimension, Evidence, FileChanges, Item, MemoryFile, apply_rules, parse, render
from hylo_memory.domain.dimensions import ACTIVE, FADING

FROZEN_DAY = "2026-11-30"


@pytest.fixture
def today() -> Iterator[dt.date]:
    """The run's date: the clock frozen at 2026-11-30 for the whole test, read as a run reads it."""
    with freeze_time(FROZEN_DAY):
        yield dt.date.today()


def ago(today: dt.date, days: int) -> dt.date:
    return today - dt.timedelta(days=days)


def item_line(text: str, last: dt.date, seen: int = 1, pinned: bool = False) -> str:
    """One item bullet exactly as docs/spec.md §2 writes it."""
    return f"- {text} `last:{last.isoformat()} seen:{seen}{' pinned' if pinned else ''}`"


def memory_text(
    active: list[str] | tuple[str, ...] = (),
    fading: list[str] | tuple[str, ...] = (),
    window: int = 90,
    last_updated: dt.date | None = None,
) -> str:
    """A canonical memory file (docs/spec.md §2) with these item lines."""
    lines = ["---", f"decay_window: {window}d"]
    if last_updated is not None:
        lines.append(f"last_updated: {last_updated.isoformat()}")
    lines += ["---", "## Active", *active, "", "## Fading", *fading]
    return "\n".join(lines) + "\n"


def ev(
    text: str,
    source: str = "_shorts/note-1.md",
    date: dt.date | None = None,
    dimension: Dimension = Dimension.preferences,
    matches: str | None = None,
    pinned: bool = False,
) -> Evidence:
    return Evidence(dimension=dimension, text=text, source=source, date=date, matches=matches, pinned=pinned)


def run(
    text: str | MemoryFile,
    evidence: list[Evidence] | tuple[Evidence, ...],
    today: dt.date,
    dimension: Dimension = Dimension.preferences,
    threshold: float = 90.0,
) -> tuple[MemoryFile, FileChanges]:
    """Rules A–G once over a file given as text (parsed) or as a model."""
    memory = parse(text, dimension) if isinstance(text, str) else text
    return apply_rules(memory, list(evidence), today, threshold)


def rerun(memory: MemoryFile, today: dt.date, evidence: tuple[Evidence, ...] = ()) -> tuple[MemoryFile, FileChanges]:
    """The next run on a file as it was written: rendered, read back, ruled on again."""
    return run(render(memory), evidence, today, memory.dimension)


def section_of(memory: MemoryFile, text: str) -> tuple[str, Item] | None:
    """Where the item with exactly this text is, and the item; None when it is gone."""
    for heading, items in ((ACTIVE, memory.active), (FADING, memory.fading)):
        for item in items:
            if item.text == text:
                return heading, item
    return None


def write_memory(memory_dir: Path, dimension: Dimension, text: str) -> Path:
    """Write a memory file's text into the memory folder (created if need be); return its path."""
    return write_file(memory_dir, dimension.filename, text)
