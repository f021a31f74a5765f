"""`hylo-memory context`: the memory as one markdown block for an assistant's prompt (SPEC §9).

The block is the memory's alone: the same memory files and the same today give the same bytes.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from hylo_memory.decay import Dimension
from hylo_memory.decay.ranking import MAX_BUDGET, MIN_BUDGET, Block, build_block
from hylo_memory.errors import InputError
from hylo_memory.extractors.batching import estimate_tokens

from ..config import Config
from ..run.profile import build_profile
from ..state.writing import open_store
from .recall import check_query

DEFAULT_BUDGET = 1500


class ContextResult(Block):
    """The block, with the items chosen for it and their scores."""

    def to_text(self) -> str:
        """The markdown block, as the command line prints it."""
        return self.text

    def to_json(self) -> str:
        return self.model_dump_json()


def build_context(vault: Path, config: Config, today: dt.date, budget: int | None = None,
                  query: str | None = None) -> ContextResult:
    """The vault's memory as a block of at most `budget` estimated tokens, items relevant to `query` first."""
    budget = DEFAULT_BUDGET if budget is None else budget
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise InputError(f"the budget must be {MIN_BUDGET:,} to {MAX_BUDGET:,} tokens, not {budget:,}")
    query = check_query(query) if query is not None and query.strip() else None
    files = open_store(vault, config).read_all()
    name = build_profile(files[Dimension.identity], None, None).name  # a name is an identity fact
    block = build_block(files, today, budget, estimate_tokens, name, query)
    return ContextResult(**dict(block))
