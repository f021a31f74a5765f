"""The run summary: a pydantic model, its JSON form, and its text rendered by jinja2."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from itertools import islice
from typing import Literal

from pydantic import BaseModel

from hylo_memory.decay import Dimension, FileChanges, FileUpdate
from hylo_memory.decay.rules import Conflict, Expiry, StatedConflict, Supersession
from hylo_memory.decay.sightings import Gated
from hylo_memory.decay.soft_cap import OverCap
from hylo_memory.domain.sources import Source, SourceKind
from hylo_memory.domain.usage import Usage
from hylo_memory.extractors.base import Dropped, DroppedEntry
from hylo_memory.extractors.llm.costs import Cost, total
from hylo_memory.pipeline.naming import Naming, Step
from hylo_memory.pipeline.notes.whose import Reason
from hylo_memory.pipeline.run.collect import Future
from hylo_memory.pipeline.run.window import Mode
from hylo_memory.pipeline.state.failing import StuckSource
from hylo_memory.pipeline.state.leases import Lease
from hylo_memory.pipeline.state.ledger import Counts, RunStatus
from hylo_memory.pipeline.vaults import Skipped
from hylo_memory.templates import render


class SourceCounts(BaseModel):
    shorts: int = 0
    knowledge: int = 0
    extra: int = 0

    @classmethod
    def of(cls, sources: list[Source]) -> SourceCounts:
        kinds = [s.kind for s in sources]
        return cls(shorts=kinds.count(SourceKind.short), knowledge=kinds.count(SourceKind.knowledge),
                   extra=kinds.count(SourceKind.extra))


def others_words(sources: list[Source]) -> dict[str, int]:
    """The sources read as someone else's words, in whole or in part, by reason (docs/spec.md §1 "Whose words").

    Four reasons, so a person can tell why a note gave nothing, or less than it holds:
    `clipping` and `highlights` are whole notes read as external; `ai_chat` counts the chats
    of which only the person's turns were read (or none, when no turn of theirs was marked);
    `quotes` counts the person's own notes whose block quotes were left out. Reasons no
    source has are not listed, in this order.
    """
    found = Counter(s.others_words for s in sources if s.others_words)
    return {reason.value: found[reason.value] for reason in Reason if found[reason.value]}


class FileReport(BaseModel):
    """What happened to one memory file."""

    file: str
    created: bool
    written: bool
    changes: FileChanges


class Deleted(BaseModel):
    file: str
    text: str


class Superseded(Supersession):
    """Rule H's fade, with the file it happened in."""

    file: str


class Conflicted(Conflict):
    """Rule H on a pinned item, with the file it is in."""

    file: str


class StatedConflicted(StatedConflict):
    """Evidence the person's `_me.md` says the opposite of, not applied, with the file it was for (§2.1)."""

    file: str


class Expired(Expiry):
    """Evidence not applied because it is older than twice its file's window, with the file and its dimension."""

    file: str
    dimension: Dimension


MAX_EXPIRED = 20  # listed in a summary, text and JSON; `counts.expired` counts them all


class Merged(BaseModel):
    """Two wordings taken as one fact (rule F), with the file: the wording kept, and the one dropped."""

    file: str
    kept: str
    dropped: str


FINISHED_OK = ("completed", "")
BatchStateName = Literal["submitted", "in progress", "collected", "given up", "not created", "unreachable"]


class BatchReport(BaseModel):
    """A provider's batch, as a run found or left it (docs/spec.md §4.9)."""

    id: str  # the provider's batch id; "" for one never created
    sources: int
    requests: int
    submitted_at: dt.datetime
    state: BatchStateName
    said: str = ""  # the server's status, or why the batch could not be asked after
    read: int = 0  # collected: sources read
    failed: int = 0  # collected: sources back to waiting (error file, expired, cancelled)
    counts: Counts | None = None  # collected: what its answers changed
    changed_files: list[str] = []  # collected: the files its run wrote
    usage: Usage = Usage()  # collected: the tokens its answers took
    cost: Cost | None = None  # collected, with prices set: as billed (at the batch's discount), and asked directly

    @classmethod
    def of(cls, lease: Lease, batch_id: str, state: BatchStateName, said: str) -> BatchReport:
        return cls(id=batch_id, sources=len(lease.sources), requests=len(lease.request.get("requests", [])),
                   submitted_at=dt.datetime.fromtimestamp(lease.created_at, dt.UTC), state=state, said=said)

    @classmethod
    def in_flight(cls, lease: Lease) -> BatchReport:
        """A batch as the ledger has it, asking no server (`status`)."""
        batch_id = str(lease.request.get("batch_id") or "")
        return cls.of(lease, batch_id, "submitted", "" if batch_id else "its run was stopped while sending it")

    def age(self, now: dt.datetime) -> str:
        hours = max(0.0, (now - self.submitted_at).total_seconds() / 3600)
        return f"{hours:.1f} h" if hours < 48 else f"{hours / 24:.1f} days"

    def line(self, now: dt.datetime) -> str:
        """`Batch batch_abc: collected, 12 note(s) in 3 request(s), sent 9.5 h ago; 11 read, 1 wait again; …`."""
        what = (f"Batch {self.id or '(never created)'}: {self.state}, {self.sources} note(s) in {self.requests} "
                f"request(s), sent {self.age(now)} ago")
        if self.state != "collected":
            said = self.said if self.said.replace("_", " ") != self.state else ""  # "in_progress" says nothing new
            return f"{what} ({said})" if said else what
        c = self.counts or Counts()
        waits = f", {self.failed} wait again" if self.failed else ""
        changed = f"; changed {', '.join(self.changed_files)}" if self.changed_files else "; no file changed"
        return (f"{what}; {self.read} read{waits}; added {c.added}, refreshed {c.refreshed}, faded {c.faded}, "
                f"deleted {c.deleted}, expired {c.expired}, merged {c.merged}, superseded {c.superseded}{changed}"
                + self._spent() + (f" ({self.said})" if self.said not in FINISHED_OK else ""))

    def _spent(self) -> str:
        """`; 1200 prompt (256 cached) + 90 completion tokens, estimated cost $0.0003`: what its answers took."""
        u = self.usage
        if not u.requests:
            return ""
        cached = f" ({u.cached_tokens} cached)" if u.cached_tokens else ""
        cost = f", {self.cost.line()}" if self.cost else ""
        return f"; {u.prompt_tokens} prompt{cached} + {u.completion_tokens} completion tokens{cost}"


class CandidateCounts(BaseModel):
    """Facts waiting for another sighting (docs/spec.md §3.2): how many wait after the run, and what it did to them."""

    waiting: int = 0
    new: int = 0  # first seen in this run
    seen_again: int = 0  # seen again, still short of `min_sightings`
    promoted: list[str] = []  # written to their files by this run's sightings
    expired: int = 0  # their window passed: dropped, not written


def candidate_counts(gated: Gated, min_sightings: int) -> CandidateCounts | None:
    """The summary's `candidates`; None when no fact ever waits (`min_sightings` 1, none left from before)."""
    if min_sightings <= 1 and not (gated.promoted or gated.expired or gated.waiting):
        return None
    new = sum(1 for c in gated.put if len(c.sightings) == 1)
    return CandidateCounts(waiting=gated.waiting, new=new, seen_again=len(gated.put) - new,
                           promoted=[c.text for c in gated.promoted], expired=len(gated.expired))


class RunSummary(BaseModel):
    """Everything docs/spec.md §4.8 asks a run to report; `--json` prints exactly this."""

    mode: Mode
    window_days: int
    window_start: dt.date
    today: dt.date
    extractor: str
    sources: SourceCounts = SourceCounts()
    changed_files: list[str] = []
    counts: Counts = Counts()
    deleted: list[Deleted] = []
    merged: list[Merged] = []  # every merge, item with item and evidence with an item (docs/spec.md §3)
    superseded: list[Superseded] = []
    conflicts: list[Conflicted] = []
    forgotten: list[Deleted] = []  # evidence a forgotten item's tombstone kept out
    conflicts_with_me: list[StatedConflicted] = []  # evidence `_me.md` says the opposite of: not applied (§2.1)
    soft_cap: list[OverCap] = []  # files past the soft cap after the run (docs/spec.md §2.2): nothing deleted
    expired: list[Expired] = []  # the first MAX_EXPIRED pieces of evidence too old to apply (docs/spec.md §3)
    skipped: list[Skipped] = []
    # Sources whose frontmatter date could not be read, or that had none but their mtime: dated
    # by file name or mtime, so a copied old note may read as current. At most MAX_UNDATED.
    undated: list[str] = []
    future: list[Future] = []  # dated after the run's day: not read until then, named by every run meanwhile
    others_words: dict[str, int] = {}  # sources read as someone else's, by reason: see `others_words`
    # Sources whose markup would have cost too much to parse (pipeline/notes/text.py's budget), read
    # as plain text instead: their facts are read, finer markup may not be dropped. At most MAX_UNDATED.
    plain_text: list[str] = []
    status: RunStatus = "ok"
    dry_run: bool = False
    already_extracted: int = 0
    reextracted: int = 0  # sources another extractor had read, read again (`--reextract`)
    resumed: int = 0  # sources an interrupted run extracted: their kept evidence applied, nothing sent
    waiting: int = 0  # sources in the window left for the next run (cap or failure)
    failures: list[str] = []
    stuck: list[StuckSource] = []  # set aside after failing `stuck_after` runs in a row: no longer waiting
    dropped_evidence: int = 0
    dropped: list[Dropped] = []  # by reason, with a few examples each
    dropped_entries: list[DroppedEntry] = []  # the first MAX_LISTED dropped, each with its reason
    unlinked: list[Dropped] = []  # evidence kept whose `restates` or `supersedes` was not followed, by reason
    usage: Usage = Usage()
    cost: Cost | None = None  # with prices set (docs/spec.md §4.8)
    hints: list[str] = []  # e.g. none of the configured folders is in the vault: run `hylo-memory init`
    files: list[FileReport] = []
    batches: list[BatchReport] = []  # the provider's batches this run submitted, collected, or found in flight
    review: str | None = None  # the model's review of the memory after the run, in a line (docs/spec.md §3.1)
    candidates: CandidateCounts | None = None  # with `min_sightings` above 1 (docs/spec.md §3.2)

    def add_batches(self, found: list[BatchReport]) -> None:
        """The batches collected (or found in flight) before this run's own: listed first, and what their answers
        took counted in its `usage` and `cost`, as they were read by it (docs/spec.md §4.8)."""
        self.batches = found + self.batches
        usage = Usage()
        for part in [self.usage, *(b.usage for b in found)]:
            usage.add(part)
        self.usage, self.cost = usage, total([self.cost, *(b.cost for b in found)])

    def to_json(self) -> str:
        return self.model_dump_json(exclude={"files"})

    def to_text(self, naming: Naming) -> str:
        """The summary as the person reads it; the steps it advises in the words of the door's `naming`."""
        return render("summary.txt.j2", summary=self, now=dt.datetime.now(dt.UTC),
                      **changes_context(self.files, naming))


def file_reports(updates: list[FileUpdate]) -> list[FileReport]:
    return [
        FileReport(file=u.dimension.filename, created=u.before is None, written=u.write, changes=u.changes)
        for u in updates
    ]


def total_counts(reports: list[FileReport]) -> Counts:
    return Counts.of(r.changes for r in reports)


def trust_lists(reports: list[FileReport]) -> dict[str, list[object]]:
    """The merges', rule H's, the tombstones' and the expired evidence's lists of a summary (docs/spec.md §4.8), file
    by file."""
    return {
        "merged": [Merged(file=r.file, kept=m.kept, dropped=m.dropped)
                   for r in reports for m in r.changes.merged + r.changes.joined],
        "superseded": [Superseded(file=r.file, text=s.text, by=s.by) for r in reports for s in r.changes.superseded],
        "conflicts": [Conflicted(file=r.file, **c.model_dump()) for r in reports for c in r.changes.conflicts],
        "forgotten": [Deleted(file=r.file, text=t) for r in reports for t in r.changes.forgotten],
        "conflicts_with_me": [StatedConflicted(file=r.file, **c.model_dump())
                              for r in reports for c in r.changes.stated],
        "expired": [Expired(file=r.file, dimension=r.changes.dimension, **e.model_dump())
                    for r, e in islice(((r, e) for r in reports for e in r.changes.expired_entries), MAX_EXPIRED)],
    }


def changes_context(reports: list[FileReport], naming: Naming) -> dict[str, object]:
    """The changes' lists, and the door's words for the steps they advise."""
    return {"updates": reports, "totals": total_counts(reports), "say": naming.say, "command": naming.command,
            "Step": Step}


def render_changes(updates: list[FileUpdate], naming: Naming) -> str:
    """The per-file change report that `apply` and a review print."""
    return render("changes.txt.j2", **changes_context(file_reports(updates), naming))
