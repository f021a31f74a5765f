"""The context block (docs/spec.md §9): Active items scored by recency and how often they were seen, the
lowest-scored left out first under a token budget. Pure: today and the token estimate are passed in.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from hylo_memory.domain.dimensions import Dimension, Fact, Facts, clean_text, sections_of

from .recall import BM25, Analyse, analyse, relevance

RECENCY_WEIGHT = 0.6  # recency counts more than familiarity: a fact seen often long ago may no longer hold
MIN_BUDGET = 100  # tokens: the heading and the left-out line always fit in it (a name is cut to NAME_CHARS)
MAX_BUDGET = 1_000_000  # tokens: the largest context windows; more is a typo
NAME_CHARS = 60
NOTHING = "_Nothing is known about the user yet._"

Estimate = Callable[[str], int]


def score(item: Fact, window: int, today: dt.date) -> float:
    """How much an Active item is worth keeping, in [0, 1]: recency within the file's window, and `seen`.

    A bullet not yet given metadata counts as seen today, once: that is what adopting it will record.
    """
    age = max(0, (today - (item.last or today)).days)
    recency = max(0.0, 1 - age / window)
    familiarity = item.seen / (item.seen + 2)  # 1 → 0.33, 4 → 0.67, 10 → 0.83: more sightings, less gain
    return round(RECENCY_WEIGHT * recency + (1 - RECENCY_WEIGHT) * familiarity, 6)


# Named tuples, not models: the block is built where no model library is loaded (pipeline/cli/quick.py).
class Chosen(NamedTuple):
    """An item of the block, with what placed it there."""

    dimension: Dimension
    text: str
    pinned: bool
    seen: int
    last: dt.date | None
    score: float
    relevance: float | None = None  # its BM25 score for the query, or the fused one; None when it does not match


class Block(NamedTuple):
    """The context block: its text and the items in it, with the budget it was cut to."""

    name: str | None
    query: str | None
    budget: int
    tokens: int  # the estimate of `text`
    left_out: int  # Active items that did not fit
    items: list[Chosen]
    text: str
    me: str | None = None  # the person's own `_me.md`, whole, first (docs/spec.md §2.1)


def _priority(chosen: Chosen, position: int) -> tuple[float, int, float, int, int, int, int]:
    # Relevant to the query first (most relevant first), then pinned, then the score; then more seen,
    # more recent, the block's order of dimensions and the file's own order, so ties never depend on luck.
    last = chosen.last.toordinal() if chosen.last else 0
    return (-(chosen.relevance or 0.0), -chosen.pinned, -chosen.score, -chosen.seen, -last,
            chosen.dimension.place, position)


def heading(name: str | None) -> str:
    """The block's first line: the person's name when known."""
    name = clean_text(name or "")
    if len(name) > NAME_CHARS:
        name = name[: NAME_CHARS - 1] + "…"
    return f"# About {name}" if name else "# About the user"


def unmatched_line(query: str) -> str:
    """The line under the heading when no item answers the query (the block then follows as without one)."""
    shown = query if len(query) <= NAME_CHARS else query[: NAME_CHARS - 1] + "…"
    return f"_No item answers {shown!r}: the whole memory follows, as without a query._"


def left_out_line(count: int, budget: int) -> str:
    return f"_{count:,} more item{'s' if count != 1 else ''} left out to fit the budget of {budget:,} tokens._"


ME_HEADING = "## About me (written by you)"


def me_section(me: str) -> str:
    """The person's own `_me.md`, whole, under its heading: first in the block, before any item. A code fence it
    leaves open is closed after it, so the items that follow are not read as code."""
    text = me.strip()
    fences = sum(1 for line in text.splitlines() if line.lstrip().startswith(("```", "~~~")))
    return f"{ME_HEADING}\n\n{text}" + ("\n```" if fences % 2 else "")


def me_over_line(tokens: int, budget: int) -> str:
    """Said when `_me.md` alone takes the budget: it is given whole, never cut, and the items get none."""
    return (f"_About me (_me.md) is about {tokens:,} tokens, more than the budget of {budget:,}: it is given whole, "
            f"and no room is left for the items._")


class BlockRequest(NamedTuple):
    """What a context block is asked for, beside the memory it is built from (docs/spec.md §9).

    `estimate`: a text's tokens; each line's estimate is added up, so the estimate of the whole (never more than
    their sum) is within `budget` too. `cosines`: each Active item's cosine with the query by its text, to rank by
    BM25 and meaning fused, as recall does (decay/recall/recall.py); an item that matches no term and whose cosine stays
    under `floor` is not relevant, and one with no cosine (not embedded yet) is ranked by its words alone. When no
    item answers the query (recall's `answers`, with `answer_floor`), none is relevant and a line under the heading
    says so. `notes` end the block (a file that could not be read), within the budget like the rest. `title`: the
    block's first line instead of the person's name (a scope's memory names its scope). `me`: the person's own
    `_me.md`, given whole under its heading before any item; the items get what budget it leaves, maybe none, and
    when it alone is over the budget one line says so.
    """

    today: dt.date
    budget: int
    estimate: Estimate
    name: str | None = None
    query: str | None = None
    notes: Sequence[str] = ()
    analysed: Analyse = analyse
    cosines: Mapping[str, float] | None = None
    floor: float = 0.0
    answer_floor: float | None = None
    title: str | None = None
    me: str | None = None


def build_block(files: Mapping[Dimension, Facts | None], request: BlockRequest) -> Block:
    """The Active items of `files` as one markdown block whose estimated tokens stay within the request's budget."""
    budget, estimate, query, me = request.budget, request.estimate, request.query, request.me
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise ValueError(f"the budget must be {MIN_BUDGET:,} to {MAX_BUDGET:,} tokens, not {budget:,}")
    sections = sections_of(files)  # the order and titles of the block are the table's (names.Dimension)
    candidates = _candidates(files, sections, request)
    top = request.title or heading(request.name)
    if query is not None and candidates and all(c.relevance is None for c in candidates):
        top += "\n\n" + unmatched_line(query)  # said, so no item is taken for an answer
    used = estimate(top + "\n") + estimate("\n") + sum(estimate(n + "\n") + estimate("\n") for n in request.notes)
    own = me_section(me) if me and me.strip() else None
    if own is not None:
        used += estimate(own + "\n") + estimate("\n")
        if used > budget:
            own += "\n\n" + me_over_line(estimate(own), budget)
    chosen = _fit(candidates, used, request)
    left_out = len(candidates) - len(chosen)
    picked = [candidates[i] for d in sections for i in chosen if candidates[i].dimension == d]  # as printed
    parts = [top] + ([own] if own is not None else [])
    for dimension in sections:
        lines = [f"- {c.text}" for c in picked if c.dimension == dimension]
        if lines:
            parts.append("\n".join([f"## {dimension.heading}", *lines]))
    if left_out:
        parts.append(left_out_line(left_out, budget))
    elif not candidates and own is None:  # `_me.md` alone is something known
        parts.append(NOTHING)
    parts += request.notes
    text = "\n\n".join(parts) + "\n"
    return Block(name=request.name, query=query, budget=budget, tokens=estimate(text), left_out=left_out,
                 items=picked, text=text, me=me.strip() if own is not None and me else None)


def _candidates(files: Mapping[Dimension, Facts | None], sections: Sequence[Dimension],
                request: BlockRequest) -> list[Chosen]:
    """Every Active item, in the block's order, with its score and its relevance to the query."""
    candidates: list[Chosen] = []
    for dimension in sections:
        memory = files.get(dimension)
        if memory is None:
            continue
        for item in memory.active:
            text = clean_text(item.text)
            if text:
                candidates.append(Chosen(dimension=dimension, text=text, pinned=item.pinned, seen=item.seen,
                                         last=item.last, score=score(item, memory.decay_window, request.today)))
    if request.query is not None and candidates:
        texts = [c.text for c in candidates]
        cosines = request.cosines
        found = relevance(BM25(texts, request.analysed), request.query, [c.dimension for c in candidates],
                          None if cosines is None else [cosines.get(t) for t in texts], request.floor,
                          request.answer_floor)
        for index, value in found.scores.items():
            candidates[index] = candidates[index]._replace(relevance=round(value, 6))
    return candidates


def _fit(candidates: list[Chosen], used: int, request: BlockRequest) -> list[int]:
    """The candidates taken, first in priority first, while they fit in what the budget leaves after `used`."""
    budget, estimate = request.budget, request.estimate
    order = sorted(range(len(candidates)), key=lambda i: _priority(candidates[i], i))
    chosen: list[int] = []
    opened: set[Dimension] = set()
    for k, index in enumerate(order):
        candidate = candidates[index]
        cost = estimate(f"- {candidate.text}\n")
        if candidate.dimension not in opened:
            cost += estimate(f"## {candidate.dimension.heading}\n") + estimate("\n")
        remaining = len(order) - k - 1  # left out if this is the last to fit: its line must fit as well
        reserve = estimate(left_out_line(remaining, budget) + "\n") if remaining else 0
        if used + cost + reserve > budget:
            break  # the lowest-scored go first: nothing after an item that does not fit is taken
        used += cost
        chosen.append(index)
        opened.add(candidate.dimension)
    return chosen
