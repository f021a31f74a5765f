"""`hylo-memory context`: the memory as one markdown block for an assistant's prompt (docs/spec.md §9).

The block is the memory's alone: the same memory files and the same today give the same bytes.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, NamedTuple

from pydantic_core import to_json

from hylo_memory.decay.recall.ranking import MAX_BUDGET, MIN_BUDGET, Block, BlockRequest, build_block
from hylo_memory.decay.soft_cap import OverCap, over_cap
from hylo_memory.errors import InputError
from hylo_memory.extractors.llm.tokens import estimate_tokens
from hylo_memory.pipeline.naming import Naming, Step
from hylo_memory.pipeline.operations.serving.answers import DEFAULT_BUDGET as DEFAULT_BUDGET
from hylo_memory.pipeline.operations.serving.answers import check_query, waiting_line
from hylo_memory.pipeline.operations.serving.archive_search import notes_section
from hylo_memory.pipeline.operations.serving.meaning import Cosines, cosines, item_texts
from hylo_memory.pipeline.operations.serving.recall import read_memory
from hylo_memory.pipeline.state.me_file import read_me

if TYPE_CHECKING:
    from hylo_memory.pipeline.state.opened import Opened


class ContextResult(NamedTuple):
    """The block, with the items chosen for it and their scores, and the files that could not be read."""

    block: Block
    refused: list[str]  # one line each: the block holds the other files' items
    fallback: str | None = None  # why a query was matched by BM25 alone, when embeddings were meant to rank it
    waiting: int = 0  # items not embedded yet, matched to the query by their words alone
    soft_cap: list[OverCap] = []  # noqa: RUF012 - a NamedTuple's default, never changed: files past the soft cap

    def to_text(self) -> str:
        """The markdown block, as the command line prints it."""
        return self.block.text

    def to_json(self) -> str:
        """The block's fields, its items' and `refused`, as one JSON object."""
        fields = self.block._asdict() | {"items": [c._asdict() for c in self.block.items], "refused": self.refused,
                                         "fallback": self.fallback, "waiting": self.waiting,
                                         "soft_cap": [o.model_dump() for o in self.soft_cap]}
        return to_json(fields).decode()


def build_context(memory: Opened, today: dt.date, naming: Naming, budget: int | None = None,
                  query: str | None = None, embed_seconds: float | None = None,
                  title: str | None = None) -> ContextResult:
    """The vault's memory as a block of at most `budget` estimated tokens, items relevant to `query` first (items
    not embedded yet embedded for `embed_seconds` at most, default `interactive_embedding_seconds`); `title`: its
    first line instead of the person's name (a scope's). Its notes advise steps in the words of the door's
    `naming`."""
    budget = DEFAULT_BUDGET if budget is None else budget
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise InputError(f"the budget must be {MIN_BUDGET:,} to {MAX_BUDGET:,} tokens, not {budget:,}")
    query = check_query(query) if query is not None and query.strip() else None
    config = memory.config
    read = read_memory(memory)
    refused = read.refused
    # A file left out is named, so neither the assistant nor the person takes the rest for the whole memory.
    notes = [f"_Left out, it cannot be read: {exc}. Fix it to bring its items back._" for exc in refused]
    if sum(estimate_tokens(n) for n in notes) > budget // 2:  # long paths, a small budget: one short line
        notes = [f"_Left out: {len(refused)} memory file(s) cannot be read; {naming.say(Step.STATUS)} names them._"]
    # A name is an identity fact; until the identity file holds one, the name a `refresh --intro` gave.
    meaning = Cosines(None)
    if query is not None:  # every item's text, Active and Fading, as recall embeds them: one cache for both
        seconds = config.interactive_embedding_seconds if embed_seconds is None else embed_seconds
        meaning = cosines(read.store.folder, config, query, item_texts(read.files), seconds)
    if meaning.waiting:
        notes.append(f"_{waiting_line(meaning.waiting, naming)}_")
    # The person's own file first, whole (docs/spec.md §2.1); a file past the soft cap said at the end (§2.2).
    me = read_me(read.store.folder, config.me_max_bytes)
    notes += [f"_{me.problem}_"] if me.problem else []
    over = over_cap(read.files, config.soft_cap)
    notes += [f"_{o.line()}_" for o in over]
    name = read.name
    if me.text:  # its name is the person's own word for it
        from hylo_memory.pipeline.run.profile import build_profile  # as read_store does: only when needed

        name = build_profile(None, None, None, me=me.text).name or name
    request = BlockRequest(today, budget, estimate_tokens, name, query, notes, cosines=meaning.by_text,
                           floor=meaning.floor, answer_floor=meaning.answer_floor, title=title, me=me.text)
    block = build_block(read.files, request)
    if query is not None and not any(c.relevance is not None for c in block.items):  # the memory has no answer:
        archived = notes_section(read.store.folder, config, query, budget // 3)  # the notes may (docs/spec.md §9.7)
        if archived is not None:
            block = build_block(read.files, request._replace(notes=[*notes, archived]))
    return ContextResult(block, [str(e) for e in refused], meaning.fallback, meaning.waiting, over)
