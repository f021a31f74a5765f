"""`hylo-memory why TEXT`: the item, how it was first added, and every source that supports it (docs/spec.md §8)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from pydantic import BaseModel

from hylo_memory.decay import Dimension
from hylo_memory.decay.files.lines import item_line
from hylo_memory.decay.stated import Stated
from hylo_memory.errors import InputError
from hylo_memory.pipeline.operations.items import Report, found_and_unread
from hylo_memory.pipeline.state.me_file import ME_FILE, read_me
from hylo_memory.pipeline.state.trust import Support, support
from hylo_memory.pipeline.state.writing import settle

if TYPE_CHECKING:
    from hylo_memory.pipeline.state.opened import Opened

NO_SOURCES = "no recorded sources (kept before hylo-memory recorded provenance)"


class Sighting(BaseModel):
    """One source that supports the item."""

    date: dt.date
    source: str
    wording: str
    command: str  # refresh, remember, apply
    detail: str
    via: str | None = None  # "synthesis": one unit of a theme the preference was drawn from
    actor: str | None = None  # who proposed it: "you", the model, `assistant (<client>)`, "offline" (§3.2)
    approved: str | None = None  # who let it into the file: "you" (remember, promote), else its actor


class Replacement(BaseModel):
    """Rule H faded the item: what replaced it, and when."""

    by: str
    on: dt.date


class Explanation(Report):
    """Why an item is in the memory."""

    file: str
    dimension: Dimension | None  # None: a fact only the person's `_me.md` holds
    section: str
    line: str
    text: str
    first: str  # when and how it was first added, in words
    adopted: bool  # written by hand, then adopted by a run
    approved_by: list[str] = []  # who let it into the file (docs/spec.md §3.2): "you", or the loop's actors
    superseded_by: list[Replacement] = []
    sources: list[Sighting] = []  # newest first
    refused: list[str] = []  # memory files that could not be searched, one line each (as `recall` names them)
    stated: str | None = None  # the statement of the person's `_me.md` that holds it (docs/spec.md §2.1)

    def to_text(self) -> str:
        if self.dimension is None:  # no item: the person's own file holds it
            return f"{ME_FILE}: {self.line}\nStated by you in {ME_FILE} (your own file; no command writes it)\n" \
                + "".join(f"Not searched: {line}\n" for line in self.refused)
        lines = [f"{self.file} ({self.section}): {self.line}", f"First: {self.first}"]
        if self.stated is not None:
            lines.append(f"Stated by you in {ME_FILE}: {self.stated}")
        lines += [f"Superseded on {r.on} by: {r.by}" for r in self.superseded_by]
        if self.sources:
            lines.append("Sources, newest first:")
            lines += [f"  {s.date}  {s.source}  \"{s.wording}\"" + _how(s) for s in self.sources]
        elif not self.adopted:
            lines.append(f"Sources: {NO_SOURCES}")
        lines += [f"Not searched: {line}" for line in self.refused]
        return "\n".join(lines) + "\n"


def explain(memory: Opened, text: str, dimension: Dimension | None = None) -> Explanation:
    """The item `text` names and its provenance; an `InputError` naming the closest items when none. Reads the
    ledger's copy: no ledger is made where there is none."""
    store, config = memory.store, memory.config
    settle(store, config.lock_timeout)
    own = Stated(read_me(store.folder, config.me_max_bytes).statements)
    try:
        found, refused = found_and_unread("why", store, text, config.similarity_threshold, dimension, any_words=True)
    except InputError:
        held = own.holding(text)
        if held is None:
            raise
        return Explanation(file=ME_FILE, dimension=None, section="written by you", line=held, text=held,
                           first=f"stated by you in {ME_FILE}", adopted=False, stated=held)
    records = support(memory.copy, found.dimension, found.item.text)
    return Explanation(
        file=found.dimension.filename, dimension=found.dimension, section=found.section,
        line=item_line(found.item), text=found.item.text, first=_first(records),
        adopted=any(r.row.kind == "adopted" for r in records),
        approved_by=list(dict.fromkeys(r.row.approved for r in records if r.row.approved)),
        superseded_by=[Replacement(by=r.row.wording, on=r.day) for r in records if r.row.kind == "superseded"],
        sources=[_sighting(r) for r in sorted((r for r in records if r.row.kind in ("added", "refreshed")),
                                              key=lambda r: (r.row.source_date or r.day, r.change_id), reverse=True)],
        refused=[str(exc) for exc in refused], stated=own.holding(found.item.text) or own.holding(text),
    )


def _sighting(record: Support) -> Sighting:
    row = record.row
    return Sighting(date=row.source_date or record.day, source=row.source, wording=row.wording,
                    command=record.command, detail=record.detail, via=row.via, actor=row.actor,
                    approved=row.approved)


def _how(sighting: Sighting) -> str:
    if sighting.via == "synthesis":
        how = "  (synthesis: a theme this unit shares with others)"
    else:
        how = f"  (via {sighting.command} {sighting.detail})" if sighting.command == "apply" else ""
    if sighting.actor is None:
        return how
    by = f"by {sighting.actor}"
    if sighting.approved and sighting.approved != sighting.actor:
        by += f", approved by {sighting.approved}"
    return f"{how}  [{by}]"


def _first(records: list[Support]) -> str:
    for record in records:  # oldest first
        row = record.row
        if row.kind == "adopted":
            return f"written by hand, adopted on {record.day} by {record.command}"
        if row.kind == "added":
            how = {"refresh": f"by refresh ({record.detail}) from {row.source}",
                   "promote": "by promote",
                   "remember": f'by remember ("{record.detail}")',
                   "apply": f"by apply {record.detail} from {row.source}"}.get(record.command, record.command)
            return f"added on {record.day} {how}" + _approval(records, record)
    return NO_SOURCES if not records else "added before hylo-memory recorded provenance"


def _approval(records: list[Support], first: Support) -> str:
    """Who let the item in when it was added (docs/spec.md §3.2): the person, or the loop after its sightings."""
    added = [r.row for r in records if r.change_id == first.change_id and r.row.kind == "added"]
    approved = list(dict.fromkeys(row.approved for row in added if row.approved))
    if not approved:
        return ""  # recorded before actors were
    sources = {row.source for row in added if row.via == "sightings"}
    if not sources:
        return ", approved by you" if approved == ["you"] else f", proposed by {', '.join(approved)}"
    seen = f"{len(sources)} sighting" + ("s" if len(sources) != 1 else "")
    proposed = list(dict.fromkeys(row.actor for row in added if row.via == "sightings" and row.actor))
    if "you" in approved:  # `promote`, or a `remember` that took a waiting candidate with it
        return f", approved by you after {seen} (proposed by {', '.join(proposed)})"
    return f", promoted after {seen}, approved by {', '.join(approved)} (not by you)"
