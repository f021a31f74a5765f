"""`candidates`, `promote`, `reject` (docs/spec.md §3.2): the facts waiting for another sighting, and the person's
word on one of them."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, Field

from hylo_memory.decay import Dimension, FileUpdate, MemoryFile, Tombstone, apply_rules, render
from hylo_memory.decay.files.lines import item_line
from hylo_memory.decay.find import CLOSEST, by_words, closest, find_items
from hylo_memory.decay.sightings import Candidate, Sighting, as_files, window_of
from hylo_memory.domain.items import MAX_ITEM_TEXT
from hylo_memory.errors import InputError
from hylo_memory.pipeline import clock
from hylo_memory.pipeline.naming import Naming, Step
from hylo_memory.pipeline.operations.after_write import after_write
from hylo_memory.pipeline.operations.items import Report
from hylo_memory.pipeline.state.candidates import Waiting, candidates, restore_of, taken
from hylo_memory.pipeline.state.changes import ChangeRecord, Origin, change_of
from hylo_memory.pipeline.state.journal import Journal, commit_planned
from hylo_memory.pipeline.state.opened import Opened
from hylo_memory.pipeline.state.trust import tombstones
from hylo_memory.pipeline.state.writing import settle, writing


class Waits(BaseModel):
    """One candidate as `candidates` lists it."""

    text: str
    dimension: Dimension
    sightings: int  # distinct sources
    first: dt.date
    last: dt.date
    expires_after: dt.date  # its first sighting plus its file's window: not seen enough by then, it is dropped
    sources: list[Sighting]  # newest first, each with its date, wording and the actor who read it there


class CandidateList(Report):
    """`candidates`: what waits, the oldest first sighting first."""

    min_sightings: int
    candidates: list[Waits]
    promote_with: str = Field(default="", exclude=True)  # how the door's reader writes one now
    reject_with: str = Field(default="", exclude=True)  # and drops one for good

    def to_text(self) -> str:
        if not self.candidates:
            return (f"No candidates waiting (min_sightings = {self.min_sightings}"
                    + (": one mention makes an item" if self.min_sightings <= 1 else "") + ").\n")
        lines = [f"{len(self.candidates)} waiting for another sighting (min_sightings = {self.min_sightings}); "
                 f"{self.promote_with} writes one now, {self.reject_with} drops one for good:"]
        for c in self.candidates:
            seen = f"{c.sightings} sighting" + ("s" if c.sightings != 1 else "")
            lines.append(f"  {c.dimension.value}: \"{c.text}\"  {seen}, first {c.first}, last {c.last}, "
                         f"expires after {c.expires_after}; from "
                         + ", ".join(f"{s.source} ({s.date}, {s.actor})" for s in c.sources))
        return "\n".join(lines) + "\n"


class Decided(Report):
    """What `promote` or `reject` did, in one line."""

    command: str
    text: str
    dimension: Dimension
    sightings: int
    kept: str | None = None  # promote: the item's line as written
    unforget_with: str = Field(default="", exclude=True)  # reject: how the door's reader lets it be kept again

    def to_text(self) -> str:
        seen = f"{self.sightings} sighting" + ("s" if self.sightings != 1 else "")
        if self.command == "promote":
            return f'Promoted "{self.text}" to {self.dimension.filename} ({seen}, approved by you): {self.kept}\n'
        return (f'Rejected "{self.text}" ({self.dimension.value}, {seen}): dropped, and it will not wait or be kept '
                f'again ({self.unforget_with} to allow it)\n')


def waiting(memory: Opened, naming: Naming) -> CandidateList:
    """Every candidate, with when it expires; how to promote or reject one in the words of the door's `naming`."""
    store, config = memory.store, memory.config
    settle(store, config.lock_timeout)
    files = store.read_each()[0]
    found = candidates(memory.copy)
    return CandidateList(min_sightings=config.min_sightings, promote_with=naming.say(Step.PROMOTE, "TEXT"),
                         reject_with=naming.say(Step.REJECT, "TEXT"), candidates=[
        Waits(text=c.text, dimension=c.dimension, sightings=len(c.sources), first=c.first, last=c.last,
              expires_after=c.first + dt.timedelta(days=window_of(files, c.dimension)),
              sources=sorted(c.sightings, key=lambda s: s.date, reverse=True))
        for c in found])


def promote(memory: Opened, text: str, naming: Naming, dimension: Dimension | None = None,
            today: dt.date | None = None) -> Decided:
    """Write the candidate `text` names into its file now, by the person's word: its sightings summed (`naming`:
    the door's words, for a refusal)."""
    store, config = memory.store, memory.config
    day = today or clock.today(config.timezone)
    with writing(store, config.lock_timeout):
        ledger = memory.ledger

        def plan() -> tuple[Journal, tuple[Candidate, FileUpdate]]:
            before = candidates(ledger)
            candidate = the_candidate("promote", before, text, config.similarity_threshold, dimension, naming)
            held = store.read(candidate.dimension)  # a hand-broken file refuses here, in one line
            delta, took = taken(before, candidate)
            after, changes = apply_rules(held or MemoryFile.new(candidate.dimension), took.evidence, day,
                                         config.similarity_threshold, decay=False, forgotten=tombstones(ledger))
            update = FileUpdate(dimension=candidate.dimension, before=held, after=after, changes=changes)
            change = change_of("promote", [update], day, candidate.text, Origin(took.hashes, actors=took.actors),
                               candidates=took.restore)
            files: dict[Dimension, str | None] = {candidate.dimension: render(after)} if update.write else {}
            return Journal(files=files, change=change, candidates=delta), (candidate, update)

        candidate, update = commit_planned(store, ledger, plan)
    after_write(store, config)
    line = next((i for i in update.after.items if i.text in update.changes.added + update.changes.refreshed), None)
    return Decided(command="promote", text=candidate.text, dimension=candidate.dimension,
                   sightings=len(candidate.sources), kept=item_line(line) if line else None)


def reject(memory: Opened, text: str, naming: Naming, dimension: Dimension | None = None,
           today: dt.date | None = None) -> Decided:
    """Drop the candidate `text` names for good: a tombstone keeps it from waiting or being kept again (§8.4); its
    line says how to undo that in the words of the door's `naming`."""
    store, config = memory.store, memory.config
    day = today or clock.today(config.timezone)
    with writing(store, config.lock_timeout):
        ledger = memory.ledger

        def plan() -> tuple[Journal, Candidate]:
            before = candidates(ledger)
            candidate = the_candidate("reject", before, text, config.similarity_threshold, dimension, naming)
            delta = Waiting(dropped=[(candidate.dimension, candidate.key)])
            stone = Tombstone(dimension=candidate.dimension, text=candidate.text, forgotten_on=day)
            change = ChangeRecord(command="reject", today=day, detail=candidate.text, counts={"rejected": 1},
                                  buried=[stone], candidates=restore_of(before, delta))
            return Journal(change=change, candidates=delta), candidate

        candidate = commit_planned(store, ledger, plan)
    after_write(store, config)
    return Decided(command="reject", text=candidate.text, dimension=candidate.dimension,
                   sightings=len(candidate.sources), unforget_with=naming.say(Step.UNFORGET, text=candidate.text))


def the_candidate(command: str, waiting: list[Candidate], text: str, threshold: float,
                  dimension: Dimension | None, naming: Naming) -> Candidate:
    """The one candidate `text` names, as `forget` and `why` name an item (its wording, else every word of it);
    else an `InputError` in one line listing the choices or the closest (the list named in `naming`'s words)."""
    text = " ".join(text.split())
    if not text or len(text) > MAX_ITEM_TEXT:
        raise InputError(f"{command}: name the candidate (its text, at most {MAX_ITEM_TEXT} characters, as "
                         f"{naming.say(Step.CANDIDATES)} lists it)")
    files = as_files(waiting)
    by_key = {(c.dimension, c.text): c for c in waiting}
    found = find_items(text, files, threshold, dimension) or by_words(text, files, dimension)
    if len(found) == 1:
        return by_key[(found[0].dimension, found[0].item.text)]
    where = ", ".join(f'"{f.item.text}" ({f.dimension.value})' for f in found[:CLOSEST])
    more = f" and {len(found) - CLOSEST} more" if len(found) > CLOSEST else ""
    if found:
        raise InputError(f"{command}: {text!r} names {len(found)} candidates: {where}{more}; give more of its words"
                         + ("" if dimension else " or add --dimension"))
    near = closest(text, files, dimension)
    hint = ("; closest: " + ", ".join(f'"{f.item.text}" ({f.dimension.value})' for f in near)) if near else \
        "; no candidate is waiting"
    raise InputError(f"{command}: no candidate matches {text!r}{hint}")
