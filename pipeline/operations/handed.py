"""What `notes_to_read` and `propose_memories` answer (docs/spec.md §9.5), as text for the assistant and as JSON."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, Literal

from pydantic import BaseModel

from hylo_memory.extractors.agent import Handout
from hylo_memory.pipeline.run.summary import RunSummary
from hylo_memory.pipeline.state.leases import Lease

ANSWER_TOOL = "propose_memories"


class HandedSource(BaseModel):
    id: str
    path: str
    kind: str
    perspective: str | None
    date: dt.date
    title: str | None = None
    text: str


class HandedTheme(BaseModel):
    number: int
    tags: list[str]
    titles: list[str]
    kept_as: str | None = None  # the wording the theme has in memory already


class Handed(BaseModel):
    """A batch under a lease; or `wait` (every unread source is leased to another) or `done` (none unread)."""

    status: Literal["batch", "wait", "done"]
    lease: str | None = None
    kind: Literal["extract", "synthesis"] | None = None
    expires_at: dt.datetime | None = None
    remaining: int = 0  # unread sources after this batch
    wait_seconds: int | None = None
    in_batch: int = 0  # done: unread sources a provider's batch holds (docs/spec.md §4.9)
    instructions: str | None = None
    request: str | None = None  # the profile, the numbered existing items and the sources (or themes) by id
    answer_schema: dict[str, Any] | None = None
    sources: list[HandedSource] = []
    themes: list[HandedTheme] = []

    @classmethod
    def of(cls, lease: Lease, handout: Handout, remaining: int) -> Handed:
        sources = [HandedSource(id=sid, path=s.path, kind=s.kind.value, date=s.date, title=s.title, text=s.text,
                                perspective=s.perspective.value if s.perspective else None)
                   for sid, s in handout.sources()]
        themes = [HandedTheme(number=n, tags=c.tags, titles=c.titles, kept_as=c.trait)
                  for n, c in handout.clusters.items()]
        return cls(status="batch", lease=lease.token, kind=handout.kind, remaining=remaining, themes=themes,
                   expires_at=dt.datetime.fromtimestamp(lease.expires_at, dt.UTC),
                   instructions=handout.instructions, request=handout.request, answer_schema=handout.answer_schema,
                   sources=sources)

    def to_json(self) -> str:
        return self.model_dump_json(exclude_none=True)

    def to_text(self, answer_with: str = ANSWER_TOOL, instructions: bool = True) -> str:
        """The batch as the assistant reads it: what to do first, then the model's own prompt, then the schema;
        without `instructions`, the request alone (the assistant has the rest from an earlier batch)."""
        if self.status == "done" and self.in_batch:
            return (f"Nothing to hand out: the {self.in_batch} unread note(s) are in a batch sent to the model's "
                    "provider; the next refresh applies its answers.\n")
        if self.status == "done":
            return "Nothing to read: every note in the window is read. The memory is up to date.\n"
        if self.status == "wait":
            return (f"Nothing to hand out now: the unread notes are leased to another reader. Ask again in "
                    f"{self.wait_seconds} seconds, or stop here.\n")
        key = "evidence" if self.kind == "extract" else "preferences"
        expires = self.expires_at.strftime("%Y-%m-%d %H:%M UTC") if self.expires_at else ""
        # Short: every batch carries it, beside the model's own prompt.
        if not instructions:
            return (f"Lease {self.lease} ({self.kind}), answer by {expires}; {self.remaining} source(s) remain after "
                    f"it. Read it by the instructions and answer with the schema of the first batch.\n\n"
                    f"## Request\n\n{self.request}\n")
        return (
            f"Lease {self.lease} ({self.kind}), answer by {expires}; {self.remaining} source(s) remain after it. "
            f"Answer with {answer_with}: this lease and {{\"{key}\": [...]}} as the schema below says.\n\n"
            f"## Instructions\n\n{self.instructions}\n\n## Request\n\n{self.request}\n\n"
            f"## Schema\n\n{json.dumps(self.answer_schema, separators=(',', ':'))}\n"
        )


class Proposed(BaseModel):
    """An answer kept: the run it made, and how many unread sources remain."""

    summary: RunSummary
    remaining: int

    def to_text(self, next_with: str = "notes_to_read") -> str:
        more = (f"{self.remaining} source(s) remain: ask for the next batch with {next_with}."
                if self.remaining else "Nothing remains: the memory is up to date.")
        return f"{self.summary.to_text()}\n{more}\n"

    def to_json(self) -> str:
        return json.dumps({"remaining": self.remaining, "summary": json.loads(self.summary.to_json())})
