"""A review batch (docs/spec.md §3.1): items that may be one fact in other words, or opposites, for a reader to judge
— the person's assistant (`pending`, `notes_to_read`) or the model at night — and its answer, read pair by pair.

Which pairs to ask about is found elsewhere (pipeline/operations/reading/review.py); this words the batch, the same for
either reader, and reads the answer: `{"same": [[n, m], …], "contradicts": [[newer, older], …]}`. An entry that
cannot stand is refused with its reason and the others are kept. Knows no ledger.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from hylo_memory.decay import Dimension
from hylo_memory.decay.review import why_not_same
from hylo_memory.templates import render

from .llm_errors import InvalidReply
from .replies import parse_json, strict_schema

Verdict = Literal["same", "contradicts"]
ANSWER_SHAPE = '{"same": [[n, m], ...], "contradicts": [[newer, older], ...]}'


class ReviewItem(BaseModel):
    """One item as a review shows it."""

    number: int = 0  # given by the batch
    dimension: Dimension
    text: str
    last: dt.date
    fading: bool = False


class ReviewReply(BaseModel):
    same: list[list[int]] = Field(description="pairs [n, m] of items that say one fact in other words")
    contradicts: list[list[int]] = Field(description="pairs [newer, older] of items that cannot both hold now")


class ReviewHandout(BaseModel):
    """One review batch: what to do, the items by number, the pairs that look alike, and the answer's shape."""

    kind: Literal["review"] = "review"
    instructions: str
    request: str
    answer_schema: dict[str, Any]
    items: list[ReviewItem]
    pairs: list[tuple[int, int]]
    left: int = 0  # alike pairs not in this batch: the next one's


class Judged(BaseModel):
    """A pair as the reader judged it, by number and by text: `same`, or `contradicts` (newer first)."""

    verdict: Verdict
    numbers: tuple[int, int]
    dimension: Dimension
    first: str
    second: str


class Refusal(BaseModel):
    """An entry of the answer that cannot stand, as it was given, and why."""

    verdict: Verdict
    entry: str
    reason: str


class Judgement(BaseModel):
    """A review's answer read: the pairs kept, those refused, and every pair judged (the batch's and the answer's)."""

    same: list[Judged] = []
    contradicts: list[Judged] = []
    refused: list[Refusal] = []
    judged: list[tuple[Dimension, str, str]] = []


def review_handout(pairs: Sequence[tuple[ReviewItem, ReviewItem]], left: int = 0) -> ReviewHandout:
    """A batch of these pairs: their items numbered from 1, dimension by dimension."""
    found: dict[tuple[Dimension, str], ReviewItem] = {}
    for pair in pairs:
        for item in pair:
            found.setdefault((item.dimension, item.text), item)
    ordered = sorted(found.values(), key=lambda i: list(Dimension).index(i.dimension))
    items = [item.model_copy(update={"number": n}) for n, item in enumerate(ordered, start=1)]
    number = {(i.dimension, i.text): i.number for i in items}
    numbered = [(number[(a.dimension, a.text)], number[(b.dimension, b.text)]) for a, b in pairs]
    grouped = [(d, [i for i in items if i.dimension is d]) for d in Dimension]
    dimensions = [(d, shown) for d, shown in grouped if shown]
    return ReviewHandout(instructions=render("review_instructions.j2"),
                         request=render("review_request.j2", dimensions=dimensions, pairs=numbered),
                         answer_schema=strict_schema(ReviewReply), items=items, pairs=numbered, left=left)


def review_messages(handout: ReviewHandout) -> list[dict[str, str]]:
    """The model's request for a review batch: the instructions, then the items and pairs."""
    return [{"role": "system", "content": handout.instructions}, {"role": "user", "content": handout.request}]


def read_review(handout: ReviewHandout, answer: Any) -> Judgement:
    """The answer to a review batch, entry by entry: a JSON object, or that JSON as text (an empty list: nothing).
    Raises InvalidReply when it is none of these."""
    data = _object(answer)
    items = {i.number: i for i in handout.items}
    judgement = Judgement(judged=[_key(items[a], items[b]) for a, b in handout.pairs])
    kept: list[Judged] = []
    for verdict in ("same", "contradicts"):
        for entry in data.get(verdict) or []:
            judged, reason = _entry(verdict, entry, items)
            if judged is not None:
                judgement.judged.append(_key(items[judged.numbers[0]], items[judged.numbers[1]]))
            if reason is not None or judged is None:
                judgement.refused.append(Refusal(verdict=verdict, entry=_shown(entry), reason=reason or ""))
            elif judged not in kept:
                kept.append(judged)
    # A pair given both ways is neither: each of its entries is refused.
    ways: dict[frozenset[int], set[Verdict]] = {}
    for judged in kept:
        ways.setdefault(frozenset(judged.numbers), set()).add(judged.verdict)
    for judged in kept:
        if len(ways[frozenset(judged.numbers)]) > 1:
            judgement.refused.append(Refusal(verdict=judged.verdict, entry=_shown(list(judged.numbers)),
                                             reason="the same pair is given as both same and contradicts"))
        else:
            (judgement.same if judged.verdict == "same" else judgement.contradicts).append(judged)
    judgement.judged = list(dict.fromkeys(judgement.judged))
    return judgement


def _object(answer: Any) -> dict[str, Any]:
    """The answer as an object with `same` and `contradicts` lists; InvalidReply when it is not one."""
    if isinstance(answer, str):
        answer = parse_json(answer)
    if answer == []:
        return {}
    if not isinstance(answer, dict):
        raise InvalidReply(f"a review is answered {ANSWER_SHAPE}", raw=json.dumps(answer, default=str)[:4000])
    for key in ("same", "contradicts"):
        if answer.get(key) is not None and not isinstance(answer[key], list):
            raise InvalidReply(f'"{key}" must be a list of pairs of item numbers', raw=json.dumps(answer)[:4000])
    if "same" not in answer and "contradicts" not in answer and any(answer.values()):
        raise InvalidReply(f"a review is answered {ANSWER_SHAPE}", raw=json.dumps(answer)[:4000])
    return answer


def _entry(verdict: Verdict, entry: Any, items: dict[int, ReviewItem]) -> tuple[Judged | None, str | None]:
    """The pair an entry names, if it names two items of the batch (None, and why not, when it does not); and why
    the pair cannot stand as judged, if it cannot."""
    if not (isinstance(entry, list) and len(entry) == 2 and all(type(n) is int for n in entry)):
        return None, "not a pair of two item numbers"
    a, b = entry
    unknown = [n for n in (a, b) if n not in items]
    if unknown:
        return None, f"no item {unknown[0]} in this batch"
    first, second = items[a], items[b]
    if a == b:
        return None, f"a pair of item {a} with itself"
    if first.dimension is not second.dimension:
        return None, (f"item {a} is in {first.dimension.value}, item {b} in {second.dimension.value}: "
                      "a pair is within one dimension")
    judged = Judged(verdict=verdict, numbers=(a, b), dimension=first.dimension, first=first.text, second=second.text)
    return judged, why_not_same(first.text, second.text) if verdict == "same" else None


def _key(a: ReviewItem, b: ReviewItem) -> tuple[Dimension, str, str]:
    first, second = sorted((a.text, b.text))
    return a.dimension, first, second


def _shown(entry: Any) -> str:
    return json.dumps(entry, ensure_ascii=False, default=str)[:80]
