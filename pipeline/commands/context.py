"""`hylo-memory context`: the memory as one markdown block for an assistant's prompt (docs/spec.md §9).

The block is the memory's alone: the same memory files and the same today give the same bytes.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
from pathlib import Path

from pydantic import TypeAdapter

from hylo_memory.decay import Dimension
from hylo_memory.decay.ranking import MAX_BUDGET, MIN_BUDGET, Block, build_block
from hylo_memory.errors import InputError

from ..config import Config
from ..state.writing import open_store, settle
from .recall import check_query

DEFAULT_BUDGET = 1500


@dataclasses.dataclass(slots=True)
class ContextResult(Block):
    """The block, with the items chosen for it and their scores, and the files that could not be read."""

    refused: list[str] = dataclasses.field(default_factory=list)  # one line each: the block holds the others' items

    def to_text(self) -> str:
        """The markdown block, as the command line prints it."""
        return self.text

    def to_json(self) -> str:
        data: bytes = _as_json().dump_json(self)
        return data.decode()


@functools.cache
def _as_json() -> TypeAdapter[ContextResult]:
    return TypeAdapter(ContextResult)


def build_context(vault: Path, config: Config, today: dt.date, budget: int | None = None,
                  query: str | None = None) -> ContextResult:
    """The vault's memory as a block of at most `budget` estimated tokens, items relevant to `query` first."""
    # Here, not above: `recall` and the MCP server load this module, and need neither the profile's patterns
    # (and the note reader they bring) nor the extractors' token estimate.
    from hylo_memory.extractors.batching import estimate_tokens

    from ..run.profile import build_profile, kept_intro

    budget = DEFAULT_BUDGET if budget is None else budget
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise InputError(f"the budget must be {MIN_BUDGET:,} to {MAX_BUDGET:,} tokens, not {budget:,}")
    query = check_query(query) if query is not None and query.strip() else None
    store = open_store(vault, config)
    settle(store, config.lock_timeout)
    files, refused = store.read_each()
    # A file left out is named, so neither the assistant nor the person takes the rest for the whole memory.
    notes = [f"_Left out, it cannot be read: {exc}. Fix it to bring its items back._" for exc in refused]
    if sum(estimate_tokens(n) for n in notes) > budget // 2:  # long paths, a small budget: one short line
        notes = [f"_Left out: {len(refused)} memory file(s) cannot be read; `hylo-memory status` names them._"]
    # A name is an identity fact; until the identity file holds one, the name a `refresh --intro` gave.
    name = build_profile(files[Dimension.identity], None, kept_intro(store)).name
    block = build_block(files, today, budget, estimate_tokens, name, query, notes)
    return ContextResult(**{f.name: getattr(block, f.name) for f in dataclasses.fields(block)},
                         refused=[str(e) for e in refused])
