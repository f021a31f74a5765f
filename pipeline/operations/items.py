"""What the trust commands share: naming one item the person means, in one line when they cannot."""

from __future__ import annotations

import json

from pydantic import BaseModel

from hylo_memory.decay import Dimension
from hylo_memory.decay.files.store import MemoryStore
from hylo_memory.decay.find import CLOSEST, Found, by_words, closest, find_items
from hylo_memory.domain.items import MAX_ITEM_TEXT
from hylo_memory.errors import InputError, MemoryFileError


class Report(BaseModel):
    """A trust command's result: `to_text()` is what it prints, `to_json()` what `--json` prints."""

    def to_text(self) -> str:
        raise NotImplementedError

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json"), ensure_ascii=False)  # a person's words, not escapes


def the_item(command: str, store: MemoryStore, text: str, threshold: float, dimension: Dimension | None) -> Found:
    """The one item `text` names in the files that can be read, or an `InputError` naming the closest items,
    the files to choose from, or the file that could not be read (one broken file hides only its own items)."""
    return found_and_unread(command, store, text, threshold, dimension)[0]


def found_and_unread(command: str, store: MemoryStore, text: str, threshold: float, dimension: Dimension | None,
                     any_words: bool = False) -> tuple[Found, list[MemoryFileError]]:
    """`the_item`, and the refusal of every file it could not search (of `dimension` only, when given): a
    reader names them, as the item found may not be the only one the person meant (docs/spec.md §7).
    `any_words` (a reader's, never a writer's): with no match, the one item holding every word of `text`."""
    files, refused = store.read_each()
    refused = [exc for exc in refused if dimension is None or exc.path == str(store.path(dimension))]
    text = " ".join(text.split())
    if not text:
        raise InputError(f"{command}: name the item (its text, as in the memory file)")
    if len(text) > MAX_ITEM_TEXT:
        raise InputError(f"{command}: an item is at most {MAX_ITEM_TEXT} characters; this text has {len(text)}")
    found = find_items(text, files, threshold, dimension)
    if len(found) == 1:
        return found[0], refused
    if found:
        where = ", ".join(f'"{f.item.text}" ({f.dimension.value})' for f in found)
        raise InputError(f"{command}: {text!r} names items in several files: {where}; add --dimension")
    holding = by_words(text, files, dimension) if any_words else []
    if len(holding) == 1:
        return holding[0], refused
    where = ", ".join(f'"{f.item.text}" ({f.dimension.value})' for f in holding[:CLOSEST])
    more = f" and {len(holding) - CLOSEST} more" if len(holding) > CLOSEST else ""
    unread = "".join(f"; not searched: {exc}" for exc in refused)
    if holding:
        raise InputError(f"{command}: {len(holding)} items hold every word of {text!r}: {where}{more}; "
                         f"give more of its words{unread}")
    near = closest(text, files, dimension)
    empty = "; the memory has no items yet" if dimension is None else f"; {dimension.filename} has no items"
    hint = ("; closest: " + ", ".join(f'"{f.item.text}" ({f.dimension.value})' for f in near)) if near else empty
    raise InputError(f"{command}: no item matches {text!r}{hint}{unread}")
