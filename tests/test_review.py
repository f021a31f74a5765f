"""The reader judges the same fact in other words (docs/spec.md §3.1): once no note is left to hand out, `pending`
hands out a review batch of items alike; `apply --lease` keeps the answer as one change, which `undo` takes back
and `why` tells; the pairs judged are never handed out again."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import hylo, one_line
from engine_helpers import item_line, memory_text

from hylo_memory.decay import Dimension, MemoryFile, parse
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.reading.review import MAX_ITEMS, find_pairs
from hylo_memory.pipeline.state.reviews import pair_key

TODAY = "2026-11-30"
DAY = dt.date.fromisoformat(TODAY)
STUDENT = "Student at the University of Chicago"
SENIOR = "Rising senior at the University of Chicago"
STUDIES = "Studies Economics and Psychology at the University of Chicago"
NURSE = "Works as a nurse at Lisbon General Hospital"
DOCTOR = "Works as a doctor at Lisbon General Hospital"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    (tmp_path / "vault").mkdir()
    return tmp_path / "vault"


def remember(vault: Path, text: str, *extra: str, today: str = TODAY) -> None:
    done = hylo("remember", text, "--vault", vault, "--today", today, "--dimension", "identity", *extra)
    assert done.exit_code == 0, done.stderr


def pending(vault: Path) -> dict[str, Any]:
    done = hylo("pending", "--vault", vault, "--today", TODAY, "--json")
    assert done.exit_code == 0, done.stderr
    handed: dict[str, Any] = json.loads(done.stdout)
    return handed


def number(batch: dict[str, Any], text: str) -> int:
    return next(int(i["number"]) for i in batch["items"] if i["text"] == text)


def apply(vault: Path, tmp_path: Path, batch: dict[str, Any], answer: object, *extra: str) -> Any:
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(answer), encoding="utf-8")
    return hylo("apply", "--vault", vault, "--today", TODAY, "--lease", batch["lease"], "--evidence", path, *extra)


def identity_text(vault: Path) -> str:
    return (vault / "_memory" / "_identity.md").read_text(encoding="utf-8")


def three_wordings(vault: Path) -> None:
    for text in (STUDENT, SENIOR, STUDIES, "Plays the piano"):
        remember(vault, text)


def file_of(dimension: Dimension, *texts: str) -> MemoryFile:
    return parse(memory_text(active=[item_line(t, DAY) for t in texts]), dimension)


# Which pairs a review asks about


def test_pairs_are_found_within_one_dimension_never_across(tmp_path: Path) -> None:
    files: dict[Dimension, MemoryFile | None] = {Dimension.identity: file_of(Dimension.identity, STUDENT, "Owns a dog"),
                                                 Dimension.goals: file_of(Dimension.goals, SENIOR, "Learn to swim")}
    assert find_pairs(tmp_path, Config(), files, set(), DAY).pairs == []
    files[Dimension.identity] = file_of(Dimension.identity, STUDENT, SENIOR, "Owns a dog")
    found = find_pairs(tmp_path, Config(), files, set(), DAY).pairs
    assert [(a.text, b.text, a.dimension) for a, b in found] == [(STUDENT, SENIOR, Dimension.identity)]


def test_a_pair_judged_before_is_not_found_again(tmp_path: Path) -> None:
    files: dict[Dimension, MemoryFile | None] = {Dimension.identity: file_of(Dimension.identity, STUDENT, SENIOR)}
    done = {pair_key((Dimension.identity, SENIOR.upper(), STUDENT + "."))}  # by the normalised texts
    assert find_pairs(tmp_path, Config(), files, done, DAY).pairs == []


def test_a_review_batch_holds_at_most_forty_items_and_counts_the_pairs_left(tmp_path: Path) -> None:
    texts = [f"Studies topic {n} at the University of Chicago" for n in range(60)]
    found = find_pairs(tmp_path, Config(), {Dimension.identity: file_of(Dimension.identity, *texts)}, set(), DAY)
    shown = {t for pair in found.pairs for t in (pair[0].text, pair[1].text)}
    assert len(shown) <= MAX_ITEMS and found.left > 0 and found.pairs


def test_by_meaning_the_bundled_model_finds_a_pair_that_shares_no_word(tmp_path: Path, bundled_model: None) -> None:
    pair = ("Prefers terse, factual answers", "Likes short direct replies")
    files: dict[Dimension, MemoryFile | None] = {Dimension.preferences: file_of(Dimension.preferences, *pair,
                                                                                "Owns a dog")}
    found = find_pairs(tmp_path, Config(bundled_embeddings=True), files, set(), DAY).pairs
    assert [(a.text, b.text) for a, b in found] == [pair]


# The loop on the command line


def test_after_the_notes_pending_hands_out_a_review_batch_of_items_alike(vault: Path) -> None:
    three_wordings(vault)
    batch = pending(vault)
    assert (batch["status"], batch["kind"]) == ("batch", "review")
    assert {(i["dimension"], i["text"]) for i in batch["items"]} == {("identity", t) for t in (STUDENT, SENIOR, STUDIES)}
    assert all(set(i) >= {"number", "dimension", "text"} for i in batch["items"])
    assert [number(batch, STUDENT), number(batch, SENIOR)] in batch["pairs"]
    assert '"same"' in batch["instructions"] and '"contradicts"' in batch["instructions"]


def test_a_brief_review_batch_still_carries_its_own_instructions(vault: Path) -> None:
    three_wordings(vault)
    done = hylo("pending", "--vault", vault, "--today", TODAY, "--json", "--brief")
    assert json.loads(done.stdout)["instructions"].startswith("You keep a person's long-term memory. Below are")


def test_the_review_batch_as_text_says_what_to_answer(vault: Path) -> None:
    three_wordings(vault)
    done = hylo("pending", "--vault", vault, "--today", TODAY)
    assert "(review, for 2026-11-30)" in done.stdout
    assert '{"same": [[n, m], ...], "contradicts": [[newer, older], ...]}' in done.stdout
    assert "## Instructions" in done.stdout and "Pairs that look alike:" in done.stdout


def test_same_merges_the_items_and_the_summary_shows_kept_from_dropped(vault: Path, tmp_path: Path) -> None:
    three_wordings(vault)
    batch = pending(vault)
    done = apply(vault, tmp_path, batch, {"same": [[number(batch, STUDENT), number(batch, SENIOR)],
                                                   [number(batch, STUDENT), number(batch, STUDIES)]]})
    assert done.exit_code == 0, done.stderr
    assert f"= merged: {STUDIES} ← {STUDENT}" in done.stdout and f"= merged: {STUDIES} ← {SENIOR}" in done.stdout
    assert f"- {STUDIES} `last:{TODAY} seen:3 pinned`" in identity_text(vault)
    assert STUDENT not in identity_text(vault) and "Plays the piano" in identity_text(vault)


def test_the_json_answer_names_the_merges_and_what_remains(vault: Path, tmp_path: Path) -> None:
    three_wordings(vault)
    batch = pending(vault)
    done = apply(vault, tmp_path, batch, {"same": [[number(batch, STUDENT), number(batch, SENIOR)]]}, "--json")
    kept = json.loads(done.stdout)
    assert kept["merged"] == [{"file": "_identity.md", "kept": SENIOR, "dropped": STUDENT}]
    assert kept["counts"]["merged"] == 1 and kept["remaining"] == 0 and kept["refused"] == []


def test_pairs_answered_are_not_handed_out_again(vault: Path, tmp_path: Path) -> None:
    three_wordings(vault)
    batch = pending(vault)
    assert apply(vault, tmp_path, batch, {"same": [], "contradicts": []}).exit_code == 0
    assert pending(vault)["status"] == "done"
    remember(vault, "Senior at the University of Chicago")  # a change of the memory: a new pair to judge
    again = pending(vault)
    assert again["kind"] == "review" and "Senior at the University of Chicago" in [i["text"] for i in again["items"]]


def test_undo_takes_the_review_back(vault: Path, tmp_path: Path) -> None:
    three_wordings(vault)
    before = identity_text(vault)
    batch = pending(vault)
    apply(vault, tmp_path, batch, {"same": [[number(batch, STUDENT), number(batch, SENIOR)]]})
    history = hylo("history", "--vault", vault)
    assert "review  by assistant (command line)" in history.stdout
    assert hylo("undo", "--vault", vault).exit_code == 0
    assert identity_text(vault) == before


def test_why_on_the_merged_item_tells_the_dropped_items_sources(vault: Path, tmp_path: Path) -> None:
    three_wordings(vault)
    batch = pending(vault)
    apply(vault, tmp_path, batch, {"same": [[number(batch, STUDENT), number(batch, STUDIES)]]})
    why = hylo("why", STUDIES, "--vault", vault)
    assert f'remember  "{STUDENT}"' in why.stdout and f'remember  "{STUDIES}"' in why.stdout


def test_contradicts_fades_the_older_item(vault: Path, tmp_path: Path) -> None:
    remember(vault, NURSE, "--no-pin", today="2026-06-01")
    remember(vault, DOCTOR, "--no-pin")
    batch = pending(vault)
    done = apply(vault, tmp_path, batch, {"contradicts": [[number(batch, DOCTOR), number(batch, NURSE)]]})
    assert f"> superseded: {NURSE} (by: {DOCTOR})" in done.stdout
    assert identity_text(vault).index("## Fading") < identity_text(vault).index(NURSE)
    assert f"Superseded on {TODAY} by: {DOCTOR}" in hylo("why", NURSE, "--vault", vault).stdout


def test_contradicts_never_moves_a_pinned_item_and_reports_the_conflict(vault: Path, tmp_path: Path) -> None:
    remember(vault, NURSE, "--pin", today="2026-06-01")
    remember(vault, DOCTOR, "--no-pin")
    batch = pending(vault)
    done = apply(vault, tmp_path, batch, {"contradicts": [[number(batch, DOCTOR), number(batch, NURSE)]]})
    assert f'! conflict: pinned "{NURSE}" vs "{DOCTOR}"' in done.stdout
    assert identity_text(vault).index(NURSE) < identity_text(vault).index("## Fading")


def test_entries_that_cannot_stand_are_refused_with_their_reason_and_the_rest_applied(vault: Path,
                                                                                     tmp_path: Path) -> None:
    three_wordings(vault)
    remember(vault, "Doesn't study at the University of Chicago", "--no-pin")
    batch = pending(vault)
    student, senior = number(batch, STUDENT), number(batch, SENIOR)
    negated = number(batch, "Doesn't study at the University of Chicago")
    done = apply(vault, tmp_path, batch, {"same": [[student, senior], [student, 99], [senior, senior],
                                                   [student, negated]]})
    assert done.exit_code == 0, done.stderr
    assert f"= merged: {SENIOR} ← {STUDENT}" in done.stdout
    assert "Refused: same [1, 99]: no item 99 in this batch" in done.stdout.replace(f"[{student}, 99]", "[1, 99]")
    assert f"a pair of item {senior} with itself" in done.stdout
    assert "they differ in polarity" in done.stdout


def test_an_answer_that_is_not_a_review_is_refused_in_one_line_and_the_lease_holds(vault: Path,
                                                                                  tmp_path: Path) -> None:
    three_wordings(vault)
    batch = pending(vault)
    done = apply(vault, tmp_path, batch, {"evidence": [{"text": "x"}]})
    assert done.exit_code == 1 and "the answer is not the JSON asked for" in one_line(done.stderr)
    assert apply(vault, tmp_path, batch, {"same": []}).exit_code == 0


def test_a_review_lease_answered_twice_is_refused(vault: Path, tmp_path: Path) -> None:
    three_wordings(vault)
    batch = pending(vault)
    assert apply(vault, tmp_path, batch, {"same": []}).exit_code == 0
    again = apply(vault, tmp_path, batch, {"same": []})
    assert again.exit_code == 1 and "was answered already" in one_line(again.stderr)


def test_while_a_review_is_leased_another_reader_is_told_to_wait(vault: Path) -> None:
    three_wordings(vault)
    assert pending(vault)["kind"] == "review"
    second = pending(vault)
    assert second["status"] == "wait" and second["wait_seconds"] > 0
