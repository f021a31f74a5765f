"""`forget`, `unforget`, `forget --list` (docs/spec.md §8): remove an item for good, and keep it from coming back."""

from __future__ import annotations

import datetime as dt

from pydantic import Field

from hylo_memory.decay import Dimension, Tombstone, render
from hylo_memory.decay.find import Found, without
from hylo_memory.decay.match import TextIndex, normalise
from hylo_memory.domain.items import MAX_ITEM_TEXT
from hylo_memory.errors import FileChanged, InputError
from hylo_memory.pipeline import clock
from hylo_memory.pipeline.naming import Naming, Step
from hylo_memory.pipeline.operations.after_write import after_write
from hylo_memory.pipeline.operations.items import Report, the_item
from hylo_memory.pipeline.state.changes import ChangeRecord, Provenance
from hylo_memory.pipeline.state.journal import Journal, commit, commit_planned
from hylo_memory.pipeline.state.opened import Opened
from hylo_memory.pipeline.state.trust import tombstones
from hylo_memory.pipeline.state.writing import settle, writing


class ForgetReport(Report):
    """What `forget` or `unforget` did, in one line."""

    command: str
    file: str
    dimension: Dimension
    text: str
    section: str | None = None  # where the forgotten item was
    unforget_with: str = Field(default="", exclude=True)  # how the door's reader lets it be kept again

    def to_text(self) -> str:
        if self.command == "forget":
            return (f'Forgot "{self.text}" ({self.file}, {self.section}): removed, and evidence of it will not be '
                    f'kept again ({self.unforget_with} to allow it)\n')
        return f'Unforgot "{self.text}" ({self.dimension.value}): evidence of it may be kept again\n'


class Tombstones(Report):
    """`forget --list`: every forgotten fact."""

    tombstones: list[Tombstone]

    def to_text(self) -> str:
        if not self.tombstones:
            return "Nothing forgotten.\n"
        return "".join(f"{t.forgotten_on}  {t.dimension.value}: {t.text}\n" for t in self.tombstones)


def forget(memory: Opened, text: str, naming: Naming, dimension: Dimension | None = None,
           today: dt.date | None = None) -> ForgetReport:
    """Remove the item `text` names from its file (Active or Fading, pinned or not) and keep a tombstone; its line
    says how to undo that in the words of the door's `naming`."""
    store, config = memory.store, memory.config
    day = today or clock.today(config.timezone)
    with writing(store, config.lock_timeout):
        ledger = memory.ledger

        def plan() -> tuple[Journal, Found]:
            # Only the item's own file is written: another that cannot be read is left as it is.
            found = the_item("forget", store, text, config.similarity_threshold, dimension)
            held = store.read(found.dimension)
            if held is None:  # saved away by the person between the two reads: plan again, or refuse
                raise FileChanged(store.path(found.dimension))
            after = without(held, found.item)
            after.last_updated = day
            stone = Tombstone(dimension=found.dimension, text=found.item.text, forgotten_on=day)
            # Its provenance ends here: kept again after `unforget`, the fact starts a new story (`why`).
            end = Provenance(dimension=found.dimension, item=found.item.text, wording=found.item.text,
                             source="forget", kind="forgotten")
            change = ChangeRecord(command="forget", today=day, detail=found.item.text, counts={"forgotten": 1},
                                  buried=[stone], provenance=[end])
            return Journal(files={found.dimension: render(after)}, change=change), found

        found = commit_planned(store, ledger, plan)
    after_write(store, config)
    return ForgetReport(command="forget", file=found.dimension.filename, dimension=found.dimension,
                        text=found.item.text, section=found.section,
                        unforget_with=naming.say(Step.UNFORGET, text=found.item.text))


def unforget(memory: Opened, text: str, dimension: Dimension | None = None) -> ForgetReport:
    """Remove the tombstone `text` names: evidence of that fact may be kept again."""
    store, config = memory.store, memory.config
    with writing(store, config.lock_timeout):
        ledger = memory.ledger
        stone = _the_tombstone(text, tombstones(ledger), config.similarity_threshold, dimension)
        change = ChangeRecord(command="unforget", today=clock.today(config.timezone), detail=stone.text,
                              raised=[stone])
        commit(store, Journal(change=change), ledger)
    after_write(store, config)
    return ForgetReport(command="unforget", file=stone.dimension.filename, dimension=stone.dimension, text=stone.text)


def forgotten(memory: Opened) -> Tombstones:
    """Every tombstone, oldest first."""
    settle(memory.store, memory.config.lock_timeout)
    return Tombstones(tombstones=tombstones(memory.copy))


def _the_tombstone(text: str, stones: list[Tombstone], threshold: float, dimension: Dimension | None) -> Tombstone:
    text = " ".join(text.split())
    if not text or len(text) > MAX_ITEM_TEXT:
        raise InputError(f"unforget: name the forgotten fact (at most {MAX_ITEM_TEXT} characters)")
    mine = [t for t in stones if dimension is None or t.dimension == dimension]
    found = [t for t in mine if normalise(t.text) == normalise(text)]
    if not found:  # the nearest in each dimension, as `forget` finds items
        for d in Dimension:
            index, of_d = TextIndex(threshold), [t for t in mine if t.dimension == d]
            for number, stone in enumerate(of_d):
                index.add(number, stone.text)
            if (hit := index.find(text)) is not None:
                found.append(of_d[hit])
    if len(found) > 1:
        where = ", ".join(f'"{t.text}" ({t.dimension.value})' for t in found)
        raise InputError(f"unforget: {text!r} names forgotten facts in several files: {where}; add --dimension")
    if not found:
        listed = ", ".join(f'"{t.text}" ({t.dimension.value})' for t in mine[:5])
        raise InputError(f"unforget: nothing forgotten matches {text!r}"
                         + (f"; forgotten: {listed}" if listed else "; nothing is forgotten"))
    return found[0]
