"""The extractor interface: sources in, evidence out (the sources, the evidence and the usage are the domain's)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Literal, Protocol

from pydantic import BaseModel, Field

from hylo_memory.domain.dimensions import Dimension
from hylo_memory.domain.evidence import Evidence
from hylo_memory.domain.items import MemoryFile
from hylo_memory.domain.sources import Source, SourceFailure
from hylo_memory.domain.usage import Usage


class AuthorProfile(BaseModel):
    """Who the author is, as a lens for extraction and for judging perspectives."""

    name: str | None = None
    aliases: list[str] = []
    projects: list[str] = []
    roles: list[str] = []
    people: list[str] = []
    intro: str | None = None
    me: str | None = None  # the person's own `_me.md`, whole: what every reader is told about them (docs/spec.md §2.1)
    note_folders: list[str] = ["_shorts"]  # where the author writes their own notes


class Candidate(BaseModel):
    """An existing memory item an extractor may say a piece of evidence restates."""

    dimension: Dimension
    text: str


class Cluster(BaseModel):
    """A theme shared by two or more external (or mixed) units, one at least new in this run."""

    tags: list[str]
    titles: list[str]
    sources: list[str]  # the new units' paths: only they are evidence in this run
    earlier: list[str] = []  # units of earlier runs in the same theme (counted when they were new)
    trait: str | None = None  # the wording the theme already has in memory, to be kept
    date: dt.date  # the newest unit's date


class Dropped(BaseModel):
    """Evidence proposed and not kept, for one reason: how often, and a few of its wordings."""

    reason: str
    count: int = 0
    examples: list[str] = []  # at most EXAMPLES, each cut to EXAMPLE_CHARS


EXAMPLES, EXAMPLE_CHARS = 3, 80
MAX_LISTED, LISTED_CHARS = 20, 120  # dropped entries named one by one in a summary, each cut to LISTED_CHARS


class DroppedEntry(BaseModel):
    """One proposal not kept, and why: a summary names each of the first MAX_LISTED (docs/spec.md §4.8)."""

    text: str
    reason: str


class Extraction(BaseModel):
    """What an extractor returns: evidence, and which sources it could not extract."""

    evidence: list[Evidence] = []
    failed: list[str] = []  # paths of sources to leave unextracted for the next run
    failures: list[str] = []  # one line per failed batch, for the summary
    why_failed: dict[str, SourceFailure] = {}  # the failed sources that were sent, path → why (not those unsent)
    dropped: list[Dropped] = []  # evidence proposed but not kept, by reason
    listed: list[DroppedEntry] = []  # the first MAX_LISTED of them, one by one
    # Evidence kept whose `restates` or `supersedes` was not followed: counted apart, for it was not dropped.
    unlinked: list[Dropped] = []
    usage: Usage = Field(default_factory=Usage)

    @property
    def dropped_count(self) -> int:
        return sum(d.count for d in self.dropped)

    def drop(self, reason: str, *texts: str | None, count: int | None = None) -> None:
        """Count proposals dropped for `reason` (`count`, else one a wording), keeping a few of their wordings:
        the summary shows what was dropped, whatever the reason, never only how many."""
        count = len(texts) if count is None else count
        if count <= 0:
            return
        examples = [" ".join(text.split())[:EXAMPLE_CHARS] for text in texts[:EXAMPLES] if text]
        self._add(Dropped(reason=reason, count=count, examples=examples))
        room = MAX_LISTED - len(self.listed)
        # A new list, never appended to: a copy of this extraction (`model_copy`) shares it.
        self.listed = self.listed + [DroppedEntry(text=_cut(text), reason=reason) for text in texts if text][:room]

    def unlink(self, reason: str, text: str) -> None:
        """Count evidence kept whose link to an item (`restates`, `supersedes`) was not followed, and why."""
        self._add(Dropped(reason=reason, count=1, examples=[" ".join(text.split())[:EXAMPLE_CHARS]]), "unlinked")

    def _add(self, dropped: Dropped, kind: Literal["dropped", "unlinked"] = "dropped") -> None:
        groups: list[Dropped] = getattr(self, kind)
        group = next((d for d in groups if d.reason == dropped.reason), None)
        if group is None:
            setattr(self, kind, [*groups, dropped.model_copy(update={"examples": dropped.examples[:EXAMPLES]})])
            return
        group.count += dropped.count
        group.examples = (group.examples + dropped.examples)[:EXAMPLES]

    def merge(self, part: Extraction) -> None:
        """Add another extraction's results to this one."""
        self.evidence += part.evidence
        self.failed += [p for p in part.failed if p not in self.failed]
        self.failures += part.failures
        self.why_failed = {**self.why_failed, **part.why_failed}
        for group in part.dropped:
            self._add(group)
        for group in part.unlinked:
            self._add(group, "unlinked")
        self.listed = (self.listed + part.listed)[:MAX_LISTED]
        self.usage.add(part.usage)


def _cut(text: str) -> str:
    """An entry's wording on one line, cut to LISTED_CHARS with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= LISTED_CHARS else text[: LISTED_CHARS - 1] + "…"


class Decision(BaseModel):
    """Where a stated fact goes, in which words, and whether it is pinned."""

    dimension: Dimension
    text: str
    pinned: bool
    reason: str = ""  # how the decision was made, shown to the person
    supersedes: str | None = None  # the text of an Active item of `dimension` this fact replaces (rule H)


# Told, as soon as they are done, of the sources extracted whole and the evidence from them (so an
# interrupted run loses nothing already paid for).
Progress = Callable[[list[str], list[Evidence]], None]


class Extractor(Protocol):
    """Turns sources into evidence. Implementations: offline (rules) and openai (LLM)."""

    name: str

    def extract(self, sources: list[Source], profile: AuthorProfile, existing: list[Candidate],
                progress: Progress | None = None) -> Extraction:
        """Evidence from these sources; a source listed in `failed` is retried next run."""
        ...

    def synthesise(self, clusters: list[Cluster], profile: AuthorProfile) -> Extraction:
        """One preference per cluster, worded as a trait; one piece of evidence per unit."""
        ...

    def classify(self, text: str, dimension: Dimension | None, pinned: bool | None, *,
                 memory: dict[Dimension, MemoryFile | None] | None = None) -> Decision:
        """Dimension, wording and pinning for a fact stated with `remember`; with `memory`, what it supersedes."""
        ...
