"""A review of the memory (docs/spec.md §3.1): pairs of items that may be one fact in other words, or opposites,
found by words and by the bundled model, judged by a reader, and kept as one change.

The person's assistant is handed a review batch under a lease once no note is left to hand out
(`notes_to_read`, `pending`; docs/spec.md §9.5); a configured model reviews after a run, within its
token ceiling (docs/spec.md §4.6). Either way the pairs judged are kept in the ledger and never asked again.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from pydantic import BaseModel, ValidationError

from hylo_memory.decay import Dimension, FileUpdate, Item, MemoryFile, render
from hylo_memory.decay.alike import COSINE_FLOOR, alike_pairs
from hylo_memory.decay.review import Refused, apply_review, other_people
from hylo_memory.domain.usage import Usage
from hylo_memory.errors import InputError, LeaseRefused
from hylo_memory.extractors.llm.costs import Prices, cost_of, total
from hylo_memory.extractors.llm.llm_errors import InvalidReply
from hylo_memory.extractors.llm.review import Judgement, Refusal, ReviewHandout, ReviewItem, read_review, review_handout
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.naming import Naming
from hylo_memory.pipeline.operations.reading.handed import Handed
from hylo_memory.pipeline.operations.serving.meaning import close_items
from hylo_memory.pipeline.run.summary import (
    Conflicted,
    Merged,
    RunSummary,
    Superseded,
    file_reports,
    render_changes,
    total_counts,
)
from hylo_memory.pipeline.state.changes import change_of
from hylo_memory.pipeline.state.journal import Journal, commit_planned
from hylo_memory.pipeline.state.leases import Lease, Leases
from hylo_memory.pipeline.state.ledger import Counts, Ledger
from hylo_memory.pipeline.state.opened import Opened
from hylo_memory.pipeline.state.reviews import judged, live_review, pair_key, record_judged
from hylo_memory.pipeline.state.writing import writing

if TYPE_CHECKING:
    from hylo_memory.extractors.base import Extractor

LOG = logging.getLogger(__name__)
MAX_ITEMS = 40  # items a review batch shows
MAX_PAIRS = 60  # pairs a review batch asks about


class Candidates(NamedTuple):
    """The pairs a batch asks about, most alike first, and how many more wait for a later batch."""

    pairs: list[tuple[ReviewItem, ReviewItem]]
    left: int


def find_pairs(memory_dir: Path, config: Config, files: dict[Dimension, MemoryFile | None],
               done: set[tuple[str, str, str]], today: dt.date) -> Candidates:
    """The pairs of items not judged yet (`done`), each within one file, alike by words or meaning; as many of the
    most alike as MAX_ITEMS and MAX_PAIRS allow."""
    ranked: list[tuple[float, ReviewItem, ReviewItem]] = []
    for dimension, memory in files.items():
        if memory is None:
            continue
        shown = [_shown(dimension, item, today, fading=False) for item in memory.active]
        shown += [_shown(dimension, item, today, fading=True) for item in memory.fading]
        texts = [s.text for s in shown]
        for alike in alike_pairs(texts, close_items(memory_dir, config, texts, COSINE_FLOOR)):
            a, b = shown[alike.first], shown[alike.second]
            if a.text != b.text and pair_key((dimension, a.text, b.text)) not in done \
                    and not other_people(dimension, a.text, b.text):
                ranked.append((alike.score, a, b))
    ranked.sort(key=lambda r: -r[0])
    chosen: list[tuple[ReviewItem, ReviewItem]] = []
    items: set[tuple[Dimension, str]] = set()
    for _, a, b in ranked:
        new = {(a.dimension, a.text), (b.dimension, b.text)} - items
        if len(chosen) < MAX_PAIRS and len(items) + len(new) <= MAX_ITEMS:
            items |= new
            chosen.append((a, b))
    return Candidates(chosen, len(ranked) - len(chosen))


def _shown(dimension: Dimension, item: Item, today: dt.date, fading: bool) -> ReviewItem:
    return ReviewItem(dimension=dimension, text=item.text, last=item.last or today, fading=fading)


def hand_out_review(config: Config, ledger: Ledger, files: dict[Dimension, MemoryFile | None], base: Lease,
                    memory_dir: Path, today: dt.date) -> Handed | None:
    """A review batch under a lease like `base` (its reader, expiry and day), once no note is left to hand out;
    `wait` while another review is leased; None when no pair is left to judge."""
    now = time.time()
    until = live_review(ledger, now)
    if until is not None:
        return Handed(status="wait", kind="review", wait_seconds=max(1, int(until - now) + 1))
    found = find_pairs(memory_dir, config, files, judged(ledger), today)
    if not found.pairs:
        return None
    handout = review_handout(found.pairs, found.left)
    lease = base.model_copy(update={"kind": "review", "sources": {}, "request": handout.model_dump(mode="json"),
                                    "last_id": 0})
    Leases(ledger).add(lease)
    return Handed.of_review(lease, handout)


class Reviewed(BaseModel):
    """What a review did: the files it changed, the pairs refused, and what is left to review."""

    reader: str
    judged: int = 0  # pairs judged (shown, or named by the answer)
    updates: list[FileUpdate] = []
    refused: list[Refusal] = []
    remaining: int = 0  # pairs alike, not judged yet, when the batch was made
    not_asked: str | None = None  # the model was not asked, or did not answer: why
    usage: Usage = Usage()
    day: dt.date | None = None  # a reader's review: the day of its lease

    def counts(self) -> Counts:
        return total_counts(file_reports(self.updates))

    def line(self) -> str:
        """One line for a run's summary."""
        if self.not_asked:
            return f"not done: {self.not_asked}"
        c = self.counts()
        refused = f", {len(self.refused)} refused" if self.refused else ""
        return (f"{self.reader} judged {self.judged} pair(s) of items alike: merged {c.merged}, superseded "
                f"{c.superseded}{refused}")

    def to_text(self, naming: Naming, next_with: str | None = None) -> str:
        """In the words of the door it goes out through (`naming`); `next_with`: how that door is asked for the next
        batch, when not as `naming` says it."""
        next_with = next_with or naming.next_batch
        lines = [f"Review: {self.line()}", render_changes(self.updates, naming).rstrip("\n")]
        lines += [f"Refused: {r.verdict} {r.entry}: {r.reason}" for r in self.refused]
        lines.append(f"{self.remaining} pair(s) of items remain to review: ask for the next batch with {next_with}."
                     if self.remaining else "Nothing remains: the memory is up to date.")
        return "\n".join(lines) + "\n"

    def to_json(self) -> str:
        reports = file_reports(self.updates)
        return json.dumps({
            "reader": self.reader, "judged": self.judged, "remaining": self.remaining, "not_asked": self.not_asked,
            "counts": self.counts().model_dump(), "changed_files": [r.file for r in reports if r.written],
            "merged": [m.model_dump() for m in _merged(self.updates)],
            "superseded": [dict(file=u.dimension.filename, **s.model_dump()) for u in self.updates
                           for s in u.changes.superseded],
            "conflicts": [dict(file=u.dimension.filename, **c.model_dump()) for u in self.updates
                          for c in u.changes.conflicts],
            "refused": [r.model_dump() for r in self.refused],
        })


def _merged(updates: list[FileUpdate]) -> list[Merged]:
    return [Merged(file=u.dimension.filename, kept=m.kept, dropped=m.dropped) for u in updates
            for m in u.changes.merged]


def answer_review(memory: Opened, lease: Lease, answer: object, today: dt.date, reader: str) -> Reviewed:
    """Keep the assistant's answer to a review lease: read pair by pair, applied as one change, the lease closed."""
    try:
        handout = ReviewHandout.model_validate(lease.request)
    except ValidationError:  # kept by another version of hylo-memory
        raise LeaseRefused(f"lease {lease.token} was handed out by another version") from None
    try:
        judgement = read_review(handout, answer)
    except InvalidReply as exc:
        raise InputError(f"lease {lease.token}: the answer is not the JSON asked for ({exc.reason}); nothing was "
                         "kept, the lease still holds: answer again") from None
    return keep_review(memory, judgement, today, reader, lease.token).model_copy(
        update={"remaining": handout.left})


def keep_review(memory: Opened, judgement: Judgement, today: dt.date, reader: str,
                lease: str | None = None) -> Reviewed:
    """Apply a judgement to the memory files as one change (`review`, by `reader`), and keep its pairs as judged;
    `lease`, the review's, is asked for again under the memory lock and closed with them."""
    store, config = memory.store, memory.config
    dimensions = {j.dimension for j in judgement.same + judgement.contradicts}
    with writing(store, config.lock_timeout):
        ledger = memory.ledger

        def plan() -> tuple[Journal | None, tuple[list[FileUpdate], list[Refused]]]:
            if lease is not None:  # one answer a lease, in time
                Leases(ledger).usable(lease, time.time())
            files, _ = store.read_writing(dimensions)
            updates, refused = _apply(files, judgement, today, reader, dimensions)
            written: dict[Dimension, str | None] = {u.dimension: render(u.after) for u in updates if u.write}
            if not written:
                return None, (updates, refused)
            return Journal(files=written, change=change_of("review", updates, today, f"by {reader}")), \
                (updates, refused)

        updates, refused = commit_planned(store, ledger, plan)
        record_judged(ledger, judgement.judged, today, lease)
    numbers = {(j.verdict, j.first, j.second): list(j.numbers) for j in judgement.same + judgement.contradicts}
    late = [Refusal(verdict=r.verdict, entry=json.dumps(numbers.get((r.verdict, r.first, r.second))), reason=r.reason)
            for r in refused]
    return Reviewed(reader=reader, judged=len(judgement.judged), updates=updates, refused=judgement.refused + late)


def _apply(files: dict[Dimension, MemoryFile | None], judgement: Judgement, today: dt.date, reader: str,
           dimensions: set[Dimension]) -> tuple[list[FileUpdate], list[Refused]]:
    updates: list[FileUpdate] = []
    refused: list[Refused] = []
    for dimension in Dimension:
        if dimension not in dimensions:
            continue
        before = files.get(dimension) or MemoryFile.new(dimension)
        same = [(j.first, j.second) for j in judgement.same if j.dimension is dimension]
        contradicts = [(j.first, j.second) for j in judgement.contradicts if j.dimension is dimension]
        after, changes, no = apply_review(before, same, contradicts, today, f"review by {reader}")
        updates.append(FileUpdate(dimension=dimension, before=files.get(dimension), after=after, changes=changes))
        refused += no
    return updates, refused


def review_by_model(memory: Opened, extractor: Extractor, today: dt.date) -> Reviewed | None:
    """The configured model's review after a run (docs/spec.md §4.6): one batch, within the run's token ceiling;
    None when it is no model's, or no pair is left to judge."""
    from hylo_memory.extractors.llm.llm import LLMExtractor  # loaded already: the run's extractor is one
    from hylo_memory.extractors.llm.llm_errors import LLMError

    if not isinstance(extractor, LLMExtractor):
        return None
    store, config = memory.store, memory.config
    found = find_pairs(store.folder, config, store.read_each()[0], judged(memory.ledger), today)
    if not found.pairs:
        return None
    if extractor.gave_up:
        return Reviewed(reader=extractor.name, not_asked="the server failed the run's last batches")
    before = extractor.usage.model_copy()
    try:
        judgement = extractor.review(review_handout(found.pairs, found.left))
    except LLMError as exc:
        return Reviewed(reader=extractor.name, not_asked=exc.reason, usage=extractor.usage - before)
    reviewed = keep_review(memory, judgement, today, extractor.name)
    return reviewed.model_copy(update={"remaining": found.left, "usage": extractor.usage - before})


def fold(summary: RunSummary, reviewed: Reviewed, prices: Prices | None) -> None:
    """The model's review in its run's summary: its merges, supersessions and conflicts with the run's, file by
    file; its tokens and their cost; and its line."""
    reports = {r.file: r for r in summary.files}
    for report in file_reports(reviewed.updates):
        kept = reports.get(report.file)
        if kept is None:
            summary.files.append(report)
            continue
        kept.written = kept.written or report.written
        kept.changes.merged += report.changes.merged
        kept.changes.superseded += report.changes.superseded
        kept.changes.conflicts += report.changes.conflicts
    summary.changed_files = list(dict.fromkeys(summary.changed_files + [r.file for r in summary.files if r.written]))
    summary.counts = total_counts(summary.files)
    summary.merged += _merged(reviewed.updates)
    summary.superseded += [Superseded(file=u.dimension.filename, **s.model_dump()) for u in reviewed.updates
                           for s in u.changes.superseded]
    summary.conflicts += [Conflicted(file=u.dimension.filename, **c.model_dump()) for u in reviewed.updates
                          for c in u.changes.conflicts]
    summary.usage.add(reviewed.usage)
    summary.cost = total([summary.cost, cost_of(reviewed.usage, prices)])
    summary.review = reviewed.line()
