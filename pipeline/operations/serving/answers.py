"""What `recall` and `context` answer with, shared by their full path and their quick one (quick.py): the
limits, the query as searched, and the text of recall's answer. No model library: the quick path loads this."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Protocol

from hylo_memory.domain.dimensions import Dimension, clean_text
from hylo_memory.errors import InputError
from hylo_memory.pipeline.naming import Naming, Step

MAX_QUERY_CHARS = 1000
MAX_LIMIT = 1000
DEFAULT_LIMIT = 10
DEFAULT_BUDGET = 1500  # tokens of a context block


class Ranked(Protocol):
    """What recall's text shows of a ranked item (recall.Found is one)."""

    @property
    def rank(self) -> int: ...

    @property
    def dimension(self) -> Dimension: ...

    @property
    def text(self) -> str: ...

    @property
    def fading(self) -> bool: ...

    @property
    def pinned(self) -> bool: ...

    @property
    def seen(self) -> int: ...

    @property
    def last(self) -> dt.date | None: ...


def check_query(query: str) -> str:
    """The query as searched: one line, not blank, at most MAX_QUERY_CHARS characters (else a one-line error)."""
    cleaned = clean_text(query)
    if not cleaned:
        raise InputError("the query is blank: give the words to look for")
    if len(cleaned) > MAX_QUERY_CHARS:
        raise InputError(f"the query has {len(cleaned):,} characters; at most {MAX_QUERY_CHARS:,}")
    return cleaned


def recall_text(items: Sequence[Ranked], query: str, embeddings: bool, fallback: str | None,
                refused: Sequence[str], naming: Naming, waiting: int = 0, empty: bool = False) -> str:
    """One line an item, best first; a line saying the ranking fell back, when it did, and one saying how many items
    wait to be embedded, when some do; the steps it advises in the words of the door's `naming`. `empty`: the memory
    holds no item yet (none kept, none unreadable): what to do first, not how to ask."""
    lines = []
    for found in items:
        marks = [found.dimension.value, *(["Fading"] if found.fading else []), f"seen {found.seen}",
                 *([f"last {found.last}"] if found.last else []), *(["pinned"] if found.pinned else [])]
        lines.append(f"{found.rank}. {found.text}  ({', '.join(marks)})")
    if not items and empty:
        lines.append(f"No item matches {query!r}: the memory holds no item yet. Read your notes first with "
                     f"{naming.say(Step.REFRESH)}, or keep a fact with {naming.say(Step.REMEMBER)}.")
    elif not items and waiting and not embeddings:  # the model is there: the items wait for it (the next line)
        lines.append(f"No item matches {query!r} by its words.")
    elif not items:
        lines.append(f"No item matches {query!r}. {what_to_try(embeddings, naming)}")
    if fallback:
        lines.append(f"Ranked by BM25 alone: embeddings unavailable ({fallback}).")
    if waiting:
        lines.append(waiting_line(waiting, naming))
    lines += [f"Not searched: {line}" for line in refused]
    return "\n".join(lines) + "\n"


def waiting_line(waiting: int, naming: Naming) -> str:
    """The line of a recall or a context whose memory holds items not embedded yet (docs/spec.md §9.2)."""
    index = naming.say(Step.INDEX)
    if waiting == 1:
        return f"1 item waits to be embedded and was matched by its words alone: {index} embeds it."
    return f"{waiting:,} items wait to be embedded and were matched by their words alone: {index} embeds them."


def what_to_try(by_meaning: bool, naming: Naming) -> str:
    """What to do when no item matches the query: by its words, or (`by_meaning`) by its meaning either."""
    context, remember = naming.say(Step.CONTEXT), naming.say(Step.REMEMBER)
    if by_meaning:
        return (f"Nothing kept says it in other words either: try {context} for the whole memory, "
                f"or remember it with {remember}.")
    tries = ["other words, the ones the fact would use (\"vegetarian\" rather than \"diet\")",
             f"{context} for the whole memory",
             "an `embedding_model` setting (or `bundled_embeddings`, where it is off) to match by meaning"]
    return f"Recall matches words, not meanings: try {', '.join(tries[:-1])}, or {tries[-1]}."
