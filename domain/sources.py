"""Sources: a note or knowledge unit read from the vault, the external pool's units, and why a source came back
unread. What the vault reads, the run extracts from and the ledger keeps."""

from __future__ import annotations

import datetime as dt
from enum import Enum

from pydantic import BaseModel

from .dimensions import Dimension


class SourceKind(str, Enum):
    short = "short"
    knowledge = "knowledge"
    extra = "extra"


class Perspective(str, Enum):
    own = "own"
    external = "external"
    mixed = "mixed"


class Source(BaseModel):
    """One note or knowledge unit, read from the vault and dated."""

    path: str  # vault-relative, with forward slashes: the source's identity everywhere
    kind: SourceKind
    date: dt.date
    text: str  # the body as plain text: frontmatter and markup removed (pipeline/notes/text.py)
    content_hash: str
    title: str | None = None
    tags: list[str] = []
    perspective: Perspective | None = None  # a unit's own; judged by the pipeline when missing
    source_notes: list[str] = []
    undated: bool = False  # its frontmatter date could not be read, or it is dated by its mtime (docs/spec.md §1)
    others_words: str | None = None  # why some or all of it is someone else's words (whose.py, docs/spec.md §1)
    plain_text: bool = False  # read without the parser: its markup was over the budget (pipeline/notes/text.py)
    alone: bool = False  # failed on an earlier run: sent in a request of its own, so it fails no other source
    stance: bool = False  # the own-stance section of someone else's unit: the author's opinion (docs/spec.md §10)

    @property
    def dimensions(self) -> frozenset[Dimension]:
        """What may be extracted from it directly (docs/spec.md §4.5); external units only join the pool."""
        if self.perspective is Perspective.external:
            return frozenset()
        if self.stance:
            return frozenset({Dimension.beliefs})
        return frozenset(Dimension)


class PoolUnit(BaseModel):
    """An external (or mixed) unit in the external pool, kept across runs by the ledger."""

    path: str
    title: str
    tags: list[str]
    date: dt.date
    trait: str | None = None  # the preference its cluster was worded as, once it had one


class SourceFailure(BaseModel):
    """Why a source sent to the model came back unread."""

    reason: str
    # The source's own doing, as far as can be told: the model answered but not usably, or the source is too
    # long for the context even in pieces. A server that is down or slow is not the source's fault.
    own: bool
