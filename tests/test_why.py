"""`hylo-memory why TEXT` (docs/spec.md §8 Provenance): the item, how it was first added, and every source behind it."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import hylo, one_line
from click.testing import Result
from trust_helpers import TODAY, ago, apply, fact, ok, refresh, remember
from vault_helpers import memory_file, short, texts, unit

from hylo_memory.decay import Dimension

JAZZ = "Loves modal jazz"


def why(vault: Path, text: str, *args: str) -> Result:
    return hylo("why", text, "--vault", vault, *args)


def why_json(vault: Path, text: str, *args: str) -> dict:
    return json.loads(ok(why(vault, text, "--json", *args)).stdout)


def two_notes_on_jazz(vault: Path) -> None:
    """Two notes, ten days apart, each saying the author loves modal jazz; read by one refresh."""
    short(vault, ago(20), "I love modal jazz.", slug="first")
    short(vault, ago(10), "I love modal jazz.", slug="second")
    ok(refresh(vault))


def test_why_prints_the_item_line_first(tmp_path: Path) -> None:
    two_notes_on_jazz(tmp_path)
    out = ok(why(tmp_path, "loves modal jazz")).stdout
    assert out.splitlines()[0] == f"_preferences.md (Active): - {JAZZ} `last:{ago(10)} seen:2`"


def test_why_says_when_and_by_which_command_the_item_was_first_added(tmp_path: Path) -> None:
    two_notes_on_jazz(tmp_path)
    out = ok(why(tmp_path, JAZZ)).stdout
    assert out.splitlines()[1] == (f"First: added on {TODAY} by refresh (run 1, first) from _shorts/{ago(20)}-first.md"
                                   ", proposed by offline")


def test_why_lists_every_source_newest_first_with_date_path_and_wording(tmp_path: Path) -> None:
    two_notes_on_jazz(tmp_path)
    lines = ok(why(tmp_path, JAZZ)).stdout.splitlines()
    assert lines[2:] == [
        "Sources, newest first:",
        f'  {ago(10)}  _shorts/{ago(10)}-second.md  "{JAZZ}"  [by offline]',
        f'  {ago(20)}  _shorts/{ago(20)}-first.md  "{JAZZ}"  [by offline]',
    ]


def test_why_keeps_sources_from_every_change_that_supported_the_item(tmp_path: Path) -> None:
    short(tmp_path, ago(20), "I love modal jazz.", slug="first")
    ok(refresh(tmp_path, today=ago(15)))
    ok(apply(tmp_path, fact("preferences", "Loves modal jazz!", source="podcast notes", date=ago(3))))
    sources = why_json(tmp_path, JAZZ)["sources"]
    assert [(s["date"], s["source"], s["wording"], s["command"]) for s in sources] == [
        (str(ago(3)), "podcast notes", "Loves modal jazz!", "apply"),
        (str(ago(20)), f"_shorts/{ago(20)}-first.md", JAZZ, "refresh"),
    ]


def test_why_finds_the_item_by_a_near_duplicate_of_its_text(tmp_path: Path) -> None:
    two_notes_on_jazz(tmp_path)
    assert why_json(tmp_path, "lovse modal jazz")["text"] == JAZZ


# Through rule F and rule H


def merged_items(vault: Path, monkeypatch) -> None:
    """Two items of one fact kept apart under a strict threshold, then merged by rule F under the default one."""
    monkeypatch.setenv("HYLO_MEMORY_SIMILARITY_THRESHOLD", "99")
    ok(apply(vault, fact("preferences", JAZZ, source="_shorts/a.md", date=ago(30)),
             fact("preferences", "Lovse modal jazz", source="_shorts/b.md", date=ago(25)), today=ago(20)))
    monkeypatch.delenv("HYLO_MEMORY_SIMILARITY_THRESHOLD")
    assert "= merged: Loves modal jazz ← Lovse modal jazz" in ok(apply(vault, today=ago(19))).stdout


def test_a_merged_items_sources_are_the_union_of_both_items_sources(tmp_path: Path, monkeypatch) -> None:
    merged_items(tmp_path, monkeypatch)
    report = why_json(tmp_path, JAZZ)
    assert [(s["source"], s["wording"]) for s in report["sources"]] == [
        ("_shorts/b.md", "Lovse modal jazz"), ("_shorts/a.md", JAZZ)]


def test_sources_after_a_merge_still_follow_the_survivor_when_it_is_seen_again(tmp_path: Path, monkeypatch) -> None:
    merged_items(tmp_path, monkeypatch)
    ok(apply(tmp_path, fact("preferences", JAZZ, source="_shorts/c.md", date=ago(2))))
    assert [s["source"] for s in why_json(tmp_path, JAZZ)["sources"]] == ["_shorts/c.md", "_shorts/b.md", "_shorts/a.md"]


def superseded(vault: Path) -> None:
    ok(apply(vault, fact("preferences", "Loves cold brew", source="_shorts/a.md", date=ago(40)), today=ago(40)))
    ok(apply(vault, fact("preferences", "Dislikes cold brew now", source="_shorts/b.md", date=ago(2),
                         supersedes="Loves cold brew")))


def test_why_of_a_superseded_item_says_what_superseded_it(tmp_path: Path) -> None:
    superseded(tmp_path)
    out = ok(why(tmp_path, "Loves cold brew")).stdout
    assert out.splitlines()[0].startswith("_preferences.md (Fading): - Loves cold brew ")
    assert f"Superseded on {TODAY} by: Dislikes cold brew now\n" in out


def test_a_superseded_item_keeps_its_own_sources(tmp_path: Path) -> None:
    superseded(tmp_path)
    report = why_json(tmp_path, "Loves cold brew")
    assert (report["superseded_by"], [s["source"] for s in report["sources"]]) == (
        [{"by": "Dislikes cold brew now", "on": TODAY.isoformat()}], ["_shorts/a.md"])


def test_the_superseding_item_has_its_own_sources_and_is_superseded_by_nothing(tmp_path: Path) -> None:
    superseded(tmp_path)
    report = why_json(tmp_path, "Dislikes cold brew now")
    assert (report["superseded_by"], [s["source"] for s in report["sources"]]) == ([], ["_shorts/b.md"])


# Narrowing, JSON


def test_dimension_narrows_why_to_one_file(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Running", source="p"), fact("goals", "Running", source="g")))
    report = why_json(tmp_path, "Running", "--dimension", "goals")
    assert (report["file"], [s["source"] for s in report["sources"]]) == ("_goals.md", ["g"])


def test_why_of_text_in_two_files_without_dimension_asks_for_it_in_one_line(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Running", source="p"), fact("goals", "Running", source="g")))
    result = why(tmp_path, "Running")
    assert result.exit_code == 1
    assert "--dimension" in one_line(result.stderr)


def test_why_json_is_one_object_with_the_item_and_its_sources(tmp_path: Path) -> None:
    two_notes_on_jazz(tmp_path)
    report = why_json(tmp_path, JAZZ)
    assert {k: report[k] for k in ("file", "dimension", "section", "text", "adopted", "superseded_by")} == {
        "file": "_preferences.md", "dimension": "preferences", "section": "Active", "text": JAZZ,
        "adopted": False, "superseded_by": []}
    assert report["line"] == f"- {JAZZ} `last:{ago(10)} seen:2`"
    assert report["first"].startswith(f"added on {TODAY} by refresh")
    assert [s["date"] for s in report["sources"]] == [str(ago(10)), str(ago(20))]
    assert set(report["sources"][0]) == {"date", "source", "wording", "command", "detail", "via", "actor",
                                            "approved"}


# Items kept without a source


def test_an_adopted_hand_written_item_says_so(tmp_path: Path) -> None:
    memory_file(tmp_path, Dimension.preferences, "## Active\n- Likes tea in the afternoon\n\n## Fading\n")
    ok(apply(tmp_path, fact("preferences", JAZZ)))
    report = why_json(tmp_path, "Likes tea in the afternoon")
    assert report["adopted"] is True
    assert report["first"] == f"written by hand, adopted on {TODAY} by apply"
    assert report["sources"] == []


def test_an_adopted_item_says_so_in_text_without_claiming_no_sources(tmp_path: Path) -> None:
    memory_file(tmp_path, Dimension.preferences, "## Active\n- Likes tea in the afternoon\n\n## Fading\n")
    ok(apply(tmp_path, fact("preferences", JAZZ)))
    out = ok(why(tmp_path, "Likes tea in the afternoon")).stdout
    assert "written by hand" in out and "no recorded sources" not in out


def test_an_item_from_before_provenance_says_no_recorded_sources(tmp_path: Path) -> None:
    memory_file(tmp_path, Dimension.identity, f"## Active\n- Lives in Lisbon `last:{ago(100)} seen:3`\n\n## Fading\n")
    out = ok(why(tmp_path, "Lives in Lisbon")).stdout
    assert out.splitlines()[0] == f"_identity.md (Active): - Lives in Lisbon `last:{ago(100)} seen:3`"
    assert "no recorded sources" in out
    assert why_json(tmp_path, "Lives in Lisbon")["sources"] == []


def test_an_item_from_before_provenance_says_so_after_later_runs_too(tmp_path: Path) -> None:
    memory_file(tmp_path, Dimension.identity, f"## Active\n- Lives in Lisbon `last:{ago(100)} seen:3`\n\n## Fading\n")
    ok(apply(tmp_path, fact("identity", "Works as a nurse")))
    assert "no recorded sources" in ok(why(tmp_path, "Lives in Lisbon")).stdout


def test_why_writes_nothing(tmp_path: Path) -> None:
    memory_file(tmp_path, Dimension.identity, f"## Active\n- Lives in Lisbon `last:{ago(100)} seen:3`\n\n## Fading\n")
    ok(why(tmp_path, "Lives in Lisbon"))
    assert not (tmp_path / "_memory" / ".state").exists()


# No such item


def test_why_with_no_match_is_one_line_naming_the_closest_items_and_exit_1(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", JAZZ), fact("preferences", "Loves cold brew"),
             fact("identity", "Lives in Lisbon")))
    result = why(tmp_path, "Loves jazz fusion")
    assert result.exit_code == 1 and result.stdout == ""
    line = one_line(result.stderr)
    assert "no item matches 'Loves jazz fusion'" in line
    assert f'closest: "{JAZZ}" (preferences)' in line


def test_why_in_an_empty_memory_says_there_are_no_items(tmp_path: Path) -> None:
    result = why(tmp_path, "Anything")
    assert result.exit_code == 1
    assert "no items" in one_line(result.stderr)


def test_why_json_with_no_match_prints_an_error_object(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", JAZZ)))
    result = why(tmp_path, "Hates everything", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["status"] == "failed"
    one_line(result.stderr)


# remember


def test_a_remembered_item_says_it_came_by_remember(tmp_path: Path) -> None:
    ok(remember(tmp_path, "remember that I'm vegetarian"))
    out = ok(why(tmp_path, "Is vegetarian")).stdout
    assert f'First: added on {TODAY} by remember ("Is vegetarian")' in out
    assert f'  {TODAY}  remember  "Is vegetarian"' in out


def test_the_closest_items_named_are_those_sharing_a_word_first(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves grilled sardines"), fact("people", "Ines — sister")))
    result = why(tmp_path, "Ines aunt")
    assert result.exit_code == 1 and 'closest: "Ines — sister" (people)' in result.stderr


# By its words


def test_why_finds_the_one_item_holding_every_word_of_the_text(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("identity", "Name: Toby Chan"), fact("people", "Ines — sister")))
    assert why_json(tmp_path, "Toby")["text"] == "Name: Toby Chan"


def test_the_words_are_found_folded_and_stemmed(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("people", "Inês — sister, runs marathons"), fact("people", "Toby — colleague")))
    assert why_json(tmp_path, "INES marathon running")["text"] == "Inês — sister, runs marathons"


def test_chinese_words_are_found_by_their_characters(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("identity", "是素食者"), fact("preferences", "喜欢游泳")))
    assert why_json(tmp_path, "素食")["text"] == "是素食者"


def test_an_item_lacking_one_of_the_words_is_not_found_by_them(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("identity", "Name: Toby Chan")))
    result = why(tmp_path, "Toby Lee")
    assert result.exit_code == 1 and "no item matches 'Toby Lee'" in one_line(result.stderr)


def test_a_text_with_a_polarity_never_finds_its_opposite_by_its_words(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Does not love cold jazz")))
    result = why(tmp_path, "Loves jazz")
    assert result.exit_code == 1 and "no item matches 'Loves jazz'" in one_line(result.stderr)


def test_several_items_holding_every_word_are_named_in_one_line(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("identity", "Name: Toby Chan"), fact("people", "Toby — colleague, plays chess"),
             fact("preferences", "Loves modal jazz")))
    result = why(tmp_path, "toby")
    assert result.exit_code == 1 and result.stdout == ""
    line = one_line(result.stderr)
    assert ("2 items hold every word of 'toby': \"Name: Toby Chan\" (identity), "
            "\"Toby — colleague, plays chess\" (people); give more of its words") in line


def test_forget_never_takes_an_item_by_its_words_alone(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("identity", "Name: Toby Chan")))
    result = hylo("forget", "Toby", "--vault", tmp_path)
    assert result.exit_code == 1 and "no item matches 'Toby'" in one_line(result.stderr)
    assert texts(tmp_path, Dimension.identity) == {"Name: Toby Chan"}


def test_a_themes_preference_names_each_unit_as_a_source_by_synthesis(tmp_path: Path) -> None:
    unit(tmp_path, "a", "Notes.", ago(10), title="Sourdough starters", tags=["baking", "bread"], perspective="external")
    unit(tmp_path, "b", "Notes.", ago(9), title="Sourdough hydration", tags=["baking", "bread"], perspective="external")
    ok(refresh(tmp_path))
    trait = next(t for t in texts(tmp_path, Dimension.preferences))
    report = why_json(tmp_path, trait)
    assert [(s["source"], s["via"]) for s in report["sources"]] == [
        ("_knowledge/b.md", "synthesis"), ("_knowledge/a.md", "synthesis")]
    assert "(synthesis: a theme this unit shares with others)" in ok(why(tmp_path, trait)).stdout


def test_why_answers_from_the_files_that_can_be_read_and_names_one_that_cannot(tmp_path: Path) -> None:
    ok(remember(tmp_path, "I love green tea", "--dimension", "preferences"))
    memory_file(tmp_path, Dimension.people, "## Active\n- Ines — sister `last:2026-11-01 seen:x`\n")
    assert ok(why(tmp_path, "Loves green tea")).stdout.startswith("_preferences.md (Active)")
    missing = why(tmp_path, "Ines — sister")
    assert missing.exit_code == 1 and "not searched: " in missing.stderr and "_people.md:6:" in missing.stderr


def test_why_names_every_file_it_could_not_search_on_a_line_of_its_own(tmp_path: Path) -> None:
    ok(remember(tmp_path, "I love green tea", "--dimension", "preferences"))
    people = memory_file(tmp_path, Dimension.people, "## Active\n- Ines — sister `last:2026-11-01 seen:x`\n")
    state = memory_file(tmp_path, Dimension.state, "## Active\n- Tired `last:2026-13-45 seen:1`\n")
    lines = ok(why(tmp_path, "Loves green tea")).stdout.splitlines()
    assert lines[-2].startswith(f"Not searched: {people}:6: ") and lines[-1].startswith(f"Not searched: {state}:6: ")
