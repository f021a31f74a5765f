"""What the model may answer, and pure functions from a raw reply to checked results.

The model proposes; these functions decide. A reply that is not the JSON asked for
raises `InvalidReply` (worth one repair attempt); a single bad entry in a good reply
is dropped and counted, never fatal.
"""

from __future__ import annotations

import json
import re
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, Field, ValidationError

from hylo_memory.decay import Dimension
from hylo_memory.domain.items import MAX_ITEM_TEXT
from hylo_memory.errors import validation_line

from ..base import EXAMPLE_CHARS, EXAMPLES
from .llm_errors import InvalidReply

E = TypeVar("E", bound=BaseModel)
M = TypeVar("M", bound=BaseModel)


class EvidenceEntry(BaseModel):
    dimension: Dimension
    text: str = Field(description="the fact about the author, one short line, third person without a subject")
    source: str = Field(description="the id of the source it comes from, e.g. S2")
    restates: int | None = Field(description="the number of the existing item it restates, or null")
    # A default, so a reply without it (an older prompt's, or json_object mode) still parses.
    supersedes: int | None = Field(default=None,
                                   description="the number of the existing item this newer fact replaces, or null")


class ExtractionReply(BaseModel):
    evidence: list[EvidenceEntry]


class PreferenceEntry(BaseModel):
    cluster: int = Field(description="the cluster number")
    text: str = Field(description="the author's underlying orientation, worded as a trait")


class SynthesisReply(BaseModel):
    preferences: list[PreferenceEntry]


class ClassifyReply(BaseModel):
    dimension: Dimension
    text: str = Field(description="the fact, tidied, in the person's own words")
    pinned: bool = Field(description="true for a standing fact or preference, false for current work or moods")
    supersedes: int | None = Field(default=None,
                                   description="the number of the existing item this newer fact replaces, or null")


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema in the form OpenAI's strict structured outputs accept."""
    schema = model.model_json_schema()

    def tighten(node: Any) -> None:
        if isinstance(node, dict):
            node.pop("title", None)
            node.pop("default", None)
            if node.get("type") == "object" and "properties" in node:
                node["required"] = list(node["properties"])
                node["additionalProperties"] = False
            for value in node.values():
                tighten(value)
        elif isinstance(node, list):
            for value in node:
                tighten(value)

    tighten(schema)
    return schema


def parse_json(raw: str | None) -> Any:
    """The JSON in a reply: as is, or inside a fence, or from the first { to the last }."""
    if not raw or not raw.strip():
        raise InvalidReply("the reply was empty", raw=raw or "")
    text = raw.strip()
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    candidates = [text]
    if fenced:
        candidates.append(fenced.group(1))
    if "{" in text and "}" in text:
        candidates.append(text[text.index("{") : text.rindex("}") + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except (ValueError, RecursionError):  # bad JSON, nested past the parser's depth, a number past its digits
            continue
    raise InvalidReply("the reply is not valid JSON", raw=raw)


class Entries(BaseModel, Generic[E]):
    """A reply's entries: the valid ones, how many were not, and how many were past the reply's limit."""

    valid: list[E]
    invalid: int = 0
    over_limit: int = 0
    # A few wordings of each, for the summary: a count alone does not say what the model proposed.
    invalid_examples: list[str] = []
    over_limit_examples: list[str] = []
    unknown_dimension: list[str] = []  # wordings of entries valid but for a dimension that is none of the six


def parse_entries(raw: str | None, key: str, entry_model: type[E], limit: int) -> Entries[E]:
    """The entries under `key`, each validated alone; only the first `limit` are read at all."""
    data = parse_json(raw)
    if not isinstance(data, dict) or not isinstance(data.get(key), list):
        raise InvalidReply(f'the reply must be a JSON object with a "{key}" list', raw=raw or "")
    items: list[Any] = data[key]
    result = Entries[E](valid=[], over_limit=max(0, len(items) - limit),
                        over_limit_examples=[wording(item) for item in items[limit:limit + EXAMPLES]])
    for item in items[:limit]:
        try:
            result.valid.append(entry_model.model_validate(item))
        except ValidationError as exc:
            if any(e["loc"][:1] == ("dimension",) for e in exc.errors()):
                result.unknown_dimension.append(wording(item))  # a seventh dimension: said as such
                continue
            result.invalid += 1
            if len(result.invalid_examples) < EXAMPLES:
                result.invalid_examples.append(wording(item))
    return result


def wording(item: Any) -> str:
    """What an entry proposed, for the summary: its `text` when it has one, else the entry as JSON, cut short."""
    text = item.get("text") if isinstance(item, dict) else None
    if isinstance(text, str) and text.strip():
        return text[: EXAMPLE_CHARS * 2]  # cut again, its spaces folded, by `Extraction.drop`
    return json.dumps(item, ensure_ascii=False, default=str)[:EXAMPLE_CHARS]


def parse_object(raw: str | None, model: type[M]) -> M:
    """A whole reply as one object (the `remember` classification)."""
    data = parse_json(raw)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InvalidReply(validation_line(exc), raw=raw or "") from None


def clean_text(text: str) -> str | None:
    """One tidy line, or None when empty or too long to be an item."""
    text = " ".join(text.replace("`", "'").split()).strip(" -•*")
    if not text or len(text) > MAX_ITEM_TEXT:
        return None
    return text
