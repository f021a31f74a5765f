"""The dimensions are one table (domain/dimensions.py, `Dimension`; docs/spec.md §2): every list of them derives from it.

A seventh dimension is added to a copy of the table alone (`Row`'s functional form: the same columns, one more
row), and each thing that enumerates the dimensions, given that table, lists it: the names and files, the default
windows, the context block's sections, the prompts, the reply's JSON schema. The real table reaches the same
places by the same functions, so a dimension added to it is everywhere, and never silently missing from one.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import NamedTuple

import pytest
from pydantic import create_model

from hylo_memory.decay.recall.ranking import BlockRequest, build_block
from hylo_memory.domain.dimensions import (
    DEFAULT_WINDOWS,
    DIMENSION_NAMES,
    Dimension,
    Row,
    names_of,
    sections_of,
    windows_of,
)
from hylo_memory.domain.sources import Perspective, Source, SourceKind
from hylo_memory.extractors.llm.replies import ClassifyReply, ExtractionReply, strict_schema
from hylo_memory.extractors.llm.tokens import estimate_tokens
from hylo_memory.templates import render

TODAY = dt.date(2026, 11, 30)
HOBBIES = ("hobbies", 60, True, 6, "pastimes, sports and crafts they take up for their own sake.",
           "pastimes, sports, crafts")


def _row(d: Row) -> tuple[object, ...]:
    return (d.value, d.default_window, d.pinned_by_default, d.place, d.extract_hint, d.classify_hint)


# The table with one more row, and nothing else changed.
Seven = Row("Seven", [(d.name, _row(d)) for d in Dimension] + [("hobbies", HOBBIES)])  # type: ignore[call-overload]


class _Item(NamedTuple):
    text: str
    last: dt.date | None
    seen: int
    pinned: bool


class _File(NamedTuple):
    decay_window: int
    active: list[_Item]


def test_the_seventh_row_is_a_dimension_with_a_name_and_a_file() -> None:
    hobbies = Seven("hobbies")
    assert names_of(Seven) == f"{DIMENSION_NAMES}, hobbies"
    assert hobbies.filename == "_hobbies.md"
    assert hobbies.heading == "Hobbies"
    assert hobbies.pinned_by_default


def test_the_seventh_row_has_its_default_window() -> None:
    assert windows_of(Seven)[Seven("hobbies")] == 60
    assert {d.value: w for d, w in windows_of(Seven).items() if d.value != "hobbies"} == {
        d.value: w for d, w in DEFAULT_WINDOWS.items()}


def test_the_context_block_has_a_section_for_the_seventh_row_in_the_tables_place() -> None:
    files = {d: _File(30, [_Item(f"An item of {d.value}", TODAY, 1, False)]) for d in Seven}
    block = build_block(files, BlockRequest(TODAY, 10_000, estimate_tokens))  # type: ignore[arg-type]
    headings = [line for line in block.text.splitlines() if line.startswith("## ")]
    assert headings == [f"## {d.heading}" for d in sections_of(Seven)]
    assert headings[-1] == "## Hobbies"
    assert "- An item of hobbies" in block.text


def test_the_extraction_prompt_lists_the_seventh_row_with_its_description() -> None:
    prompt = render("extract_instructions.j2", dimensions=tuple(Seven))
    assert "each in one of seven dimensions:" in prompt
    assert f"- hobbies: {HOBBIES[4]}" in prompt
    assert all(f"- {d.value}: {d.extract_hint}" in prompt for d in Dimension)


def test_the_classification_prompt_lists_the_seventh_row_with_its_description() -> None:
    prompt = render("classify_instructions.j2", dimensions=tuple(Seven))
    assert prompt.startswith("You keep a person's long-term memory in seven files: identity (")
    assert f"hobbies ({HOBBIES[5]})." in prompt


def test_the_reply_schema_accepts_the_seventh_row() -> None:
    reply = create_model("Reply", dimension=(Seven, ...))
    assert strict_schema(reply)["$defs"]["Seven"]["enum"] == [*(d.value for d in Dimension), "hobbies"]


@pytest.mark.parametrize("reply", [ExtractionReply, ClassifyReply])
def test_the_real_reply_schemas_list_the_tables_dimensions(reply: type) -> None:
    assert strict_schema(reply)["$defs"]["Dimension"]["enum"] == [d.value for d in Dimension]


def test_the_prompts_and_settings_of_the_real_table_derive_from_it() -> None:
    assert render("extract_instructions.j2").count("\n- ") >= len(Dimension)
    assert f"in {'six' if len(Dimension) == 6 else len(Dimension)} files" in render("classify_instructions.j2")
    assert DIMENSION_NAMES == ", ".join(d.value for d in Dimension)
    assert DEFAULT_WINDOWS == {d: d.default_window for d in Dimension}


def test_a_note_of_the_person_may_give_every_dimension_of_the_table() -> None:
    source = Source(path="a.md", kind=SourceKind.short, date=TODAY, text="x", content_hash="h",
                    perspective=Perspective.own)
    assert source.dimensions == frozenset(Dimension)


def test_the_tables_places_order_every_dimension_once() -> None:
    assert sorted(d.place for d in Dimension) == list(range(len(Dimension)))
    assert sections_of(Dimension)[0] is Dimension.identity and sections_of(Dimension)[-1] is Dimension.state


def test_the_specs_table_is_the_codes() -> None:
    spec = (Path(__file__).resolve().parent.parent / "docs" / "spec.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\w+) \| `(_\w+\.md)` \| (\d+)d \|", spec.split("## 2. Memory files", 1)[1], re.M)
    assert rows == [(d.value, d.filename, str(d.default_window)) for d in Dimension]
