"""Evidence: what an extractor proposes, and every other path to the memory files (apply's file, `remember`)."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator
from pydantic_core import PydanticCustomError

from .dimensions import Dimension, clean_text
from .items import MAX_ITEM_TEXT


class Evidence(BaseModel):
    """A proposal from an extractor: this dimension holds this fact, seen in this source."""

    model_config = ConfigDict(frozen=True)

    dimension: Dimension
    text: str = Field(min_length=1)
    source: str = Field(min_length=1)
    matches: str | None = None  # the text of an existing item it restates
    supersedes: str | None = None  # the text of an existing item it replaces (rule H)
    pinned: StrictBool = False  # true or false: an evidence file's "yes" is refused, not guessed
    date: dt.date | None = None

    @field_validator("text")
    @classmethod
    def _one_clean_line(cls, value: str) -> str:
        # Every path (apply's file, remember, the extractors) builds Evidence: one cleaning, one cap.
        value = clean_text(value)
        if not value:
            raise ValueError("must not be blank")
        if len(value) > MAX_ITEM_TEXT:
            raise PydanticCustomError("item_too_long", "an item is one line of at most {limit} characters; "
                                      "this one has {length}", {"limit": MAX_ITEM_TEXT, "length": len(value)})
        return value

    @field_validator("source")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("must not be blank")
        return value

    @field_validator("matches", "supersedes")
    @classmethod
    def _clean_matches(cls, value: str | None) -> str | None:
        return None if value is None else clean_text(value) or None
