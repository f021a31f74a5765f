"""What `notes_to_read` and `propose_memories` answer (docs/spec.md §9.5), as text for the assistant and as JSON."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, Literal

from pydantic import BaseModel

from hylo_memory.decay import Dimension
from hylo_memory.extractors.llm.agent import Handout
from hylo_memory.extractors.llm.review import ANSWER_SHAPE, ReviewHandout
from hylo_memory.pipeline.naming import Naming
from hylo_memory.pipeline.run.summary import RunSummary
from hylo_memory.pipeline.state.leases import Lease


class HandedSource(BaseModel):
    """A source of the batch; its text is in the request once, under its id."""

    id: str
    path: str
    kind: str
    perspective: str | None
    date: dt.date
    title: str | None = None
    chars: int


SAID_IN_REQUEST = {"kind", "perspective", "title", "chars"}  # a source's, in its request's <source> line
MAX_PASSED_OVER = 50


class PassedOver(BaseModel):
    """A note in the window not handed out, and why: the loop never waits on it (docs/spec.md §9.5)."""

    path: str
    reason: str


class HandedTheme(BaseModel):
    number: int
    tags: list[str]
    titles: list[str]
    kept_as: str | None = None  # the wording the theme has in memory already


class HandedItem(BaseModel):
    """An item of a review batch (docs/spec.md §3.1), by its number in the batch."""

    number: int
    dimension: Dimension
    text: str
    last: dt.date


class Handed(BaseModel):
    """A batch under a lease; or `wait` (every unread source is leased to another) or `done` (none unread)."""

    status: Literal["batch", "wait", "done"]
    lease: str | None = None
    kind: Literal["extract", "synthesis", "review"] | None = None
    expires_at: dt.datetime | None = None
    remaining: int = 0  # unread sources after this batch
    wait_seconds: int | None = None
    in_batch: int | None = None  # done: unread sources a provider's batch holds (docs/spec.md §4.9)
    instructions: str | None = None
    request: str | None = None  # the profile, the numbered existing items and the sources (or themes) by id
    answer_schema: dict[str, Any] | None = None
    sources: list[HandedSource] = []
    themes: list[HandedTheme] = []
    today: dt.date | None = None  # the day the lease's answer is applied on
    keeps_from: dict[Dimension, dt.date] = {}  # evidence dated before these days is not kept (expired, §3)
    passed_over: list[PassedOver] = []
    decay: str | None = None  # done: the summary of the day's decay, when it faded or deleted an item
    old_vault: str | None = None  # done, with no note dated in the window: the newest note's date and what reads it
    items: list[HandedItem] = []  # review: the items, by number
    pairs: list[tuple[int, int]] = []  # review: the pairs that look alike

    @classmethod
    def of_review(cls, lease: Lease, handout: ReviewHandout) -> Handed:
        """A review batch: pairs of items to judge, once no note is left to hand out (docs/spec.md §3.1)."""
        items = [HandedItem(number=i.number, dimension=i.dimension, text=i.text, last=i.last) for i in handout.items]
        return cls(status="batch", lease=lease.token, kind="review", remaining=handout.left, today=lease.today,
                   expires_at=dt.datetime.fromtimestamp(lease.expires_at, dt.UTC), instructions=handout.instructions,
                   request=handout.request, answer_schema=handout.answer_schema, items=items, pairs=handout.pairs)

    @classmethod
    def of(cls, lease: Lease, handout: Handout, remaining: int, keeps_from: dict[Dimension, dt.date],
           passed_over: list[PassedOver]) -> Handed:
        sources = [HandedSource(id=sid, path=s.path, kind=s.kind.value, date=s.date, title=s.title,
                                chars=len(s.text), perspective=s.perspective.value if s.perspective else None)
                   for sid, s in handout.sources()]
        themes = [HandedTheme(number=n, tags=c.tags, titles=c.titles, kept_as=c.trait)
                  for n, c in handout.clusters.items()]
        return cls(status="batch", lease=lease.token, kind=handout.kind, remaining=remaining, themes=themes,
                   expires_at=dt.datetime.fromtimestamp(lease.expires_at, dt.UTC),
                   instructions=handout.instructions, request=handout.request, answer_schema=handout.answer_schema,
                   sources=sources, today=lease.today, keeps_from=keeps_from if handout.kind == "extract" else {},
                   passed_over=passed_over)

    def to_json(self, instructions: bool = True) -> str:
        """The batch as one JSON object; without `instructions`, less what an earlier batch gave already."""
        leave_out: dict[str, Any] = {"sources": {"__all__": SAID_IN_REQUEST}}
        if not instructions and self.kind != "review":  # a review's instructions are its own: always given
            leave_out |= {"instructions": True, "answer_schema": True}
        return self.model_dump_json(exclude_none=True, exclude=leave_out)

    def structured(self) -> str:
        """What a script needs beside the batch's text (the MCP result's structured content): not the text again."""
        return self.model_dump_json(exclude_none=True, exclude={"instructions": True, "request": True,
                                                                "answer_schema": True,
                                                                "sources": {"__all__": SAID_IN_REQUEST}})

    def to_text(self, answer_with: str, instructions: bool = True) -> str:
        """The batch as the assistant reads it: what to do first, then the model's own prompt (its instructions end
        with the answer's shape); without `instructions`, the request alone (the reader has the rest already).
        `answer_with`: how the door it goes out through is answered (its tool, or its command)."""
        decay = f"\nThe day's decay, applied as a nightly run would:\n{self.decay}" if self.decay else ""
        return self._status_text(answer_with, instructions) + self._passed_text() + decay

    def _status_text(self, answer_with: str, instructions: bool) -> str:
        if self.status == "done" and self.in_batch:
            return (f"Nothing to hand out: the {self.in_batch} unread note(s) are in a batch sent to the model's "
                    "provider; the next refresh applies its answers.\n")
        if self.status == "done" and self.old_vault:
            return f"Nothing to read: {self.old_vault}.\n"
        if self.status == "done":
            return "Nothing to read: every note in the window is read. The memory is up to date.\n"
        if self.status == "wait" and self.kind == "review":
            return (f"Nothing to hand out now: a review of the memory is leased to another reader. Ask again in "
                    f"{self.wait_seconds} seconds, or stop here.\n")
        if self.status == "wait":
            return (f"Nothing to hand out now: the unread notes are leased to another reader. Ask again in "
                    f"{self.wait_seconds} seconds, or stop here.\n")
        answer = {"extract": '{"evidence": [...]}', "synthesis": '{"preferences": [...]}'}.get(self.kind or "",
                                                                                            ANSWER_SHAPE)
        expires = self.expires_at.strftime("%Y-%m-%d %H:%M UTC") if self.expires_at else ""
        head = (f"Lease {self.lease} ({self.kind}, for {self.today}), answer by {expires}; {self.remaining} "
                f"{'pair(s) to review' if self.kind == 'review' else 'source(s)'} remain after it.")
        # Short: every batch carries it, beside the model's own prompt. A review's are its own: always given.
        if not instructions and self.kind != "review":
            return (f"{head} Read it by the instructions of the first batch and answer as they say.\n"
                    f"{self._keeps_text()}\n## Request\n\n{self.request}\n")
        # The instructions end with the answer's shape: the JSON schema (in `--json`, and the tool's) is not
        # handed twice in words an able reader already has.
        return (
            f"{head} Answer with {answer_with}: this lease and {answer}, shaped as the instructions end by saying.\n"
            f"{self._keeps_text()}\n## Instructions\n\n{self.instructions}\n\n## Request\n\n{self.request}\n"
        )

    def _keeps_text(self) -> str:
        if not self.keeps_from:
            return ""
        days = ", ".join(f"{d.value} {day}" for d, day in self.keeps_from.items())
        return f"Evidence dated before these days is not kept (twice each file's window): {days}.\n"

    def _passed_text(self) -> str:
        if not self.passed_over:
            return ""
        lines = [f"- {p.path}: {p.reason}" for p in self.passed_over]
        return "\nNot handed out (nothing to wait for):\n" + "\n".join(lines) + "\n"


class Proposed(BaseModel):
    """An answer kept: the run it made, and how many unread sources remain."""

    summary: RunSummary
    remaining: int

    @property
    def day(self) -> dt.date:
        """The lease's day, which the run was on."""
        return self.summary.today

    def to_text(self, naming: Naming, next_with: str | None = None) -> str:
        """In the words of the door it goes out through (`naming`); `next_with`: how that door is asked for the next
        batch, when not as `naming` says it."""
        next_with = next_with or naming.next_batch
        more = (f"{self.remaining} source(s) remain: ask for the next batch with {next_with}."
                if self.remaining else f"No note remains to read: ask {next_with} once more, until it says there "
                "is nothing to read (a review of the memory's alike items may come first).")
        return f"{self.summary.to_text(naming)}\n{more}\n"

    def to_json(self) -> str:
        return json.dumps({"remaining": self.remaining, "summary": json.loads(self.summary.to_json())})
