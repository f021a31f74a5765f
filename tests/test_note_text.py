"""A note read as text, not markup (docs/spec.md §1 "Text, not markup"): pipeline/notes/text.py."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import examples

from hylo_memory.extractors.offline.patterns import statements
from hylo_memory.pipeline.notes.text import link_title, note_text, parsed_text

# What no clean text may hold: the markup the model once copied into memory items.
MARKUP = ("[[", "]]", "**", "%%", "<!--", "-->", "`", "://", "<%", "%>")


def clean(markdown: str) -> str:
    text = note_text(markdown)
    for mark in MARKUP:
        assert mark not in text, (mark, text)
    return text


@pytest.mark.parametrize("markdown, text", [
    ("Loves [[Kyoto]]", "Loves Kyoto"),
    ("Went to [[Kyoto Trip|the old capital]] again", "Went to the old capital again"),
    ("See [[Notes/Travel/Kyoto.md]]", "See Kyoto"),
    ("See [[Kyoto#Temples|temples]] and [[Kyoto#Food]]", "See temples and Kyoto"),
    ("| [[Kyoto\\|old capital]] | x |\n| --- | --- |", "old capital; x"),
    ("Loves **matcha** lattes and *quiet* __mornings__", "Loves matcha lattes and quiet mornings"),
    ("I use `uv` for Python", "I use uv for Python"),
    ("Read [the guide](https://example.com/guide) twice", "Read the guide twice"),
    ("Bare https://example.com/x and www.example.org and <https://a.b/c> links", "Bare and and links"),
    ("Trip #travel/japan with #deep-work", "Trip travel japan with deep work"),
    ("Not a tag: C#, #1984, issue#3", "Not a tag: C#, #1984, issue#3"),
    ("A claim[^1].\n\n[^1]: Said by me.", "A claim.\n\nSaid by me."),
    ("A picture ![[photo.png]] and ![a cat](cat.png) here", "A picture and here"),
    ("I ~~hate~~ love ==bright== rooms", "I love bright rooms"),
    ("Plain <span class='x'>inline</span> html &amp; entities", "Plain inline html & entities"),
    ("Seen %% not this %% and this", "Seen and this"),
    ("Made <% tp.file.creation_date() %> today", "Made today"),
    ("Count `= this.file.name` here", "Count here"),
])
def test_markup_is_reduced_to_its_text(markdown: str, text: str) -> None:
    assert clean(markdown) == text


@pytest.mark.parametrize("markdown", [
    "```mermaid\ngraph TD\n  A[I feel anxious] --> B[I love queues]\n  %% a mermaid comment\n```",
    "```python\n# I love Python\nprint('I feel great')\n```",
    "~~~\nI love tildes\n~~~",
    "    I love indented code",
    "<!-- I love hidden comments -->",
    "<!-- Loves hidden comments\n\nacross paragraphs -->",
    "%%\nI love secret block comments\n\nover two paragraphs\n%%",
    "%% I love one-line block comments %%",
    "%% an unclosed comment hides the rest\n\nI love the rest",
    "<script>I love scripts</script>",
    "```dataview\nTABLE file.mtime FROM #daily\n```",
    "#daily #log #work/hylo",
    "- [x] I want to finish the old thing\n  - I want to sub-task of a done one",
    "- [X] I want to finish it\n- [-] I want to do the cancelled thing",
])
def test_nothing_is_read_from_code_comments_and_finished_tasks(markdown: str) -> None:
    assert clean(markdown) == ""


def test_open_tasks_keep_their_text_as_list_lines() -> None:
    markdown = "- [ ] I want to run a marathon\n- [x] I want to buy shoes\n- [/] I want to learn Go\n- a plain item"
    assert clean(markdown) == "- I want to run a marathon\n- I want to learn Go\n- a plain item"


def test_structure_survives_as_lines_and_paragraphs() -> None:
    markdown = (
        "# Morning\n"
        "I love long walks.\nI feel calm\n\n"
        "## Plans\n"
        "- I want to visit [[Kyoto]]\n"
        "  - nested idea\n"
        "1. first\n"
        "2. second\n\n"
        "Last line."
    )
    assert clean(markdown) == (
        "Morning\n\nI love long walks.\nI feel calm\n\nPlans\n\n"
        "- I want to visit Kyoto\n  - nested idea\n\n- first\n- second\n\nLast line."
    )


def test_block_quotes_and_callouts_stay_quoted_so_they_are_not_the_authors_words() -> None:
    text = clean("> I love what she said\n\n> [!quote] Seneca\n> I feel we suffer more in imagination")
    assert text == "> I love what she said\n\n> Seneca\n> I feel we suffer more in imagination"
    assert statements(text) == []


def test_html_blocks_read_as_their_text() -> None:
    assert clean("<div>I love <b>html</b> blocks<!-- not this --></div>") == "I love html blocks"
    assert clean("<details><summary>Notes</summary>\nI love details\n</details>") == "Notes\nI love details"


def test_chinese_and_english_notes_pass_through() -> None:
    assert clean("我喜欢在**京都**喝抹茶。今天很开心。[[京都]]") == "我喜欢在京都喝抹茶。今天很开心。京都"


def test_a_whole_file_with_frontmatter_reads_as_its_body() -> None:
    assert clean("---\ncreated: 2026-11-01\ntags: [a]\n---\nI love tea") == "I love tea"


def test_first_person_patterns_read_the_clean_text() -> None:
    markdown = (
        "Loves nothing here.\n"
        "I love **matcha** lattes. I love [[Kyoto]]\n"
        "<!-- I love hidden comments -->\n\n"
        "```mermaid\ngraph TD\n  I feel anxious\n```\n"
        "- [x] I want to finish the old report\n"
        "- [ ] I want to run a marathon\n"
    )
    found = [text for _, text in statements(note_text(markdown))]
    assert "Loves matcha lattes" in found and "Loves Kyoto" in found
    assert any("marathon" in t for t in found)
    assert not any("report" in t or "anxious" in t.lower() or "comment" in t for t in found)
    for text in found:
        assert not any(mark in text for mark in MARKUP), text


@pytest.mark.parametrize("target, title", [
    ("Kyoto", "Kyoto"), ("Notes/Kyoto.md", "Kyoto"), ("Kyoto#History", "Kyoto"), ("#History", "History"),
    ("Kyoto#^block1", "Kyoto"), ("_shorts/2026-10-01-a", "2026-10-01-a"),
])
def test_link_titles(target: str, title: str) -> None:
    assert link_title(target) == title


@pytest.mark.parametrize("hostile", ["[[" * 20_000, "![[" * 10_000, "<%" * 20_000, "%%" * 20_000,
                                     "==a " * 10_000, "#a " * 10_000, "> " * 10_000 + "x",
                                     "".join("  " * i + "- x\n" for i in range(1000))])
def test_hostile_markup_costs_linear_time(hostile: str) -> None:
    started = time.perf_counter()
    note_text(hostile)
    assert time.perf_counter() - started < 5


# The fast path for prose gives exactly what the parser gives

PROSE = st.lists(st.sampled_from(list("abcXYZ 019.,;:?'\"()-/—\n\r\x0b\x0c\u2028\u3000我喜欢茶。") + ["  ", "\n\n", "    ", "I love "]),
                 max_size=80).map("".join)


@settings(max_examples=examples(400), deadline=None)
@given(PROSE)
def test_a_note_of_plain_prose_reads_as_the_parser_reads_it(text: str) -> None:
    assert note_text(text) == parsed_text(text)
