"""Record one fact the person states: `hylo-memory remember "I'm vegetarian"`."""

from __future__ import annotations

import datetime as dt
import re

from hylo_memory.decay import Dimension, Evidence, FileUpdate, apply_rules, render
from hylo_memory.decay.forgetting import screen
from hylo_memory.domain.dimensions import clean_text
from hylo_memory.domain.items import MAX_ITEM_TEXT, MemoryFile
from hylo_memory.errors import InputError
from hylo_memory.extractors.base import Decision
from hylo_memory.extractors.choice import make_extractor
from hylo_memory.extractors.offline.offline import OfflineExtractor
from hylo_memory.pipeline import clock
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.naming import Naming, Step
from hylo_memory.pipeline.operations.after_write import after_write
from hylo_memory.pipeline.state.candidates import taken_with
from hylo_memory.pipeline.state.changes import Origin, change_of
from hylo_memory.pipeline.state.journal import Journal, commit_planned
from hylo_memory.pipeline.state.opened import Opened
from hylo_memory.pipeline.state.trust import tombstones
from hylo_memory.pipeline.state.writing import writing

REMEMBER_SOURCE = "remember"

# The request around a fact ("remember that …", "请记住…"): the person's words are the fact, not the asking.
_REQUEST = re.compile(
    r"^\s*(?:(?:please|pls|hey|ok|okay)[\s,]+)?(?:can you |could you |would you )?"
    # a colon needs no space after it ("remember:I'm vegetarian"); a comma or dash does ("note-taking" is a fact)
    r"(?:remember|note|keep in mind|don't forget|do not forget)(?: (?:that|this))?(?:\s*[:：]\s*|\s*[,-]?\s+)"
    r"|^\s*(?:请你?|麻烦你?)?(?:帮我)?(?:记住|记得|记一下|请记住)(?:一下)?[:：,，]?\s*",
    re.IGNORECASE,
)


def the_fact(text: str) -> str:
    """The fact in a `remember` request, without the asking: "remember that I'm vegetarian" → "I'm vegetarian"."""
    # A space after it, so a request with nothing after the asking ("remember that") is all asking.
    return _REQUEST.sub("", text + " ", count=1).strip()


def decide(text: str, dimension: Dimension | None, pin: bool | None, config: Config,
           memory: dict[Dimension, MemoryFile | None] | None = None) -> Decision:
    """Where the fact goes and whether it is pinned: as told, else as the extractor judges
    (shown `memory`, it may also name the item the fact replaces)."""
    said = clean_text(text)  # as every item is kept: escape sequences and control characters out
    text = the_fact(said)
    if not text:
        raise InputError("remember: the fact is empty" + (f" ({said!r} is only the asking)" if said else ""))
    if not any(ch.isalnum() for ch in text):
        raise InputError(f"remember: {text!r} is not a fact: it has no letters or digits")
    if len(text) > MAX_ITEM_TEXT:
        raise InputError(f"remember: a fact is one line of at most {MAX_ITEM_TEXT} characters; "
                         f"this one has {len(text)}")
    if dimension is not None and (pin is not None or not config.uses_llm):
        # Told where it goes, no model is asked; the patterns still word it as a note's would be
        # ("I love green tea" → "Loves green tea"), so the same fact in a note refreshes it.
        return OfflineExtractor().classify(text, dimension, pin, memory=memory)
    return make_extractor(config.llm()).classify(text, dimension, pin, memory=memory)


def remember(memory: Opened, decision: Decision, naming: Naming, today: dt.date,
             stated: str | None = None) -> tuple[FileUpdate, str]:
    """Apply the rules to the one file with this fact; return the update and a one-line report (its advice in
    the words of the door's `naming`).

    `stated` is the fact in the person's words, cleaned (`the_fact`): a forgotten fact is refused in them too,
    however the model words it."""
    store, threshold = memory.store, memory.config.similarity_threshold
    evidence = Evidence(dimension=decision.dimension, text=decision.text, source=REMEMBER_SOURCE,
                        pinned=decision.pinned, date=today, supersedes=decision.supersedes)
    # Read and write under the memory lock: a refresh committing meanwhile is waited for, never overwritten.
    with writing(store, memory.config.lock_timeout):
        ledger = memory.ledger

        def plan() -> tuple[Journal | None, FileUpdate]:
            before = store.read(decision.dimension)
            stones = tombstones(ledger)
            # The person's word never waits; a candidate it names comes with it, its sightings summed (§3.2).
            waiting, sightings = taken_with(ledger, evidence, threshold)
            after, changes = apply_rules(before or MemoryFile.new(decision.dimension), [evidence, *sightings.evidence],
                                         today, threshold, decay=False, forgotten=stones)
            in_their_words = [evidence.model_copy(update={"text": stated})] if stated else []
            if changes.forgotten or screen(in_their_words, stones, threshold)[1]:
                raise InputError(f'remember: "{decision.text}" is a fact you asked to forget; '
                                 f"{naming.say(Step.UNFORGET, text=decision.text)} lets it be kept again")
            update = FileUpdate(dimension=decision.dimension, before=before, after=after, changes=changes)
            if not update.write:
                return None, update
            change = change_of("remember", [update], today, decision.text,
                               Origin(sightings.hashes, actors=sightings.actors), candidates=sightings.restore)
            return Journal(files={decision.dimension: render(after)}, change=change, candidates=waiting), update

        update = commit_planned(store, ledger, plan)  # planned again on a file the person saved meanwhile
    after, changes = update.after, update.changes
    kept = next(i for i in after.items if i.text in changes.added + changes.refreshed)
    verb = "Kept" if changes.added else "Refreshed"
    pin = "pinned" if kept.pinned else "not pinned, it will fade"
    note = f"; {decision.reason}" if decision.reason else ""
    note += "".join(f'; merged as the same fact: "{m.kept}" ← "{m.dropped}"' for m in changes.merged + changes.joined)
    note += "".join(f'; it replaces "{s.text}" (now fading)' for s in changes.superseded)
    note += "".join(f'; it contradicts pinned "{c.pinned}", kept as it is: '
                    f'forget it with {naming.say(Step.FORGET, text=c.pinned, dimension=decision.dimension.value)} '
                    f'if it no longer holds'
                    for c in changes.conflicts)
    return update, f'{verb} "{kept.text}" in {store.path(decision.dimension).name} (seen {kept.seen}, {pin}){note}'


def remember_text(memory: Opened, text: str, naming: Naming, dimension: Dimension | None = None,
                  pin: bool | None = None, today: dt.date | None = None) -> str:
    """`remember` whole, as the command line and the MCP server call it: the one line it prints."""
    store, config = memory.store, memory.config
    # The classifier sees what can be read: a broken other file is no reason to refuse this fact.
    decision = decide(text, dimension, pin, config, memory=store.read_each()[0])
    day = today or clock.today(config.timezone)
    _, line = remember(memory, decision, naming, day, stated=the_fact(clean_text(text)))
    after_write(store, config)
    return line
