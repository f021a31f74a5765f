"""The desk the person's assistant reads at (docs/spec.md §9.5): large batches, each note once, newest first, a lease
that keeps its day, no note that blocks the loop, and what will not be kept said before."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import hylo, one_line
from proc_helpers import memory_texts
from vault_helpers import opened

from hylo_memory.decay import Dimension, Evidence
from hylo_memory.errors import InputError
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.reading.apply import apply_evidence
from hylo_memory.pipeline.operations.reading.handed import Handed
from hylo_memory.pipeline.operations.reading.lease import notes_to_read, propose
from hylo_memory.pipeline.state.leases import reader_name
from hylo_memory.pipeline.state.ledger import Ledger

TODAY = dt.date(2026, 11, 30)
WORDS = ("tea", "river", "garden", "bicycle", "violin", "lisbon", "pottery", "chess", "sourdough", "kayak")


def note(vault: Path, name: str, text: str) -> Path:
    path = vault / "_shorts" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def diary(vault: Path, notes: int, chars: int = 900) -> Path:
    """`notes` daily notes of about `chars` characters each, one a day back from TODAY."""
    for n in range(notes):
        day = TODAY - dt.timedelta(days=n)
        topic = WORDS[n % len(WORDS)]
        line = f"Spent the morning on {topic} again, number {n}, and wrote down what went well and what did not. "
        note(vault, f"{day}-day-{n}.md", (line * (chars // len(line) + 1))[:chars] + "\n")
    return vault


def scripted(handed: Handed) -> dict[str, Any]:
    """A scripted reader: one fact a note, in the note's own topic."""
    if handed.kind == "review":
        return {"same": [], "contradicts": []}
    if handed.kind != "extract":
        return {"preferences": []}
    return {"evidence": [{"dimension": "preferences", "text": f"Enjoys {topic(s.path)} mornings",
                          "source": s.id, "restates": None} for s in handed.sources]}


def topic(path: str) -> str:
    """The topic `diary` wrote the note on."""
    number = path.rsplit("-day-", 1)[-1].removesuffix(".md")
    return WORDS[int(number) % len(WORDS)] if number.isdigit() else "writing"


def loop(vault: Path, config: Config, max_chars: int | None = None) -> list[Handed]:
    batches = []
    while (handed := notes_to_read(opened(vault, config), "tester", TODAY, max_chars)).status == "batch":
        batches.append(handed)
        propose(opened(vault, config), handed.lease or "", scripted(handed))
    return batches


def test_a_batch_holds_notes_up_to_max_chars(tmp_path: Path) -> None:
    vault = diary(tmp_path / "v", 30, chars=900)
    handed = notes_to_read(opened(vault, Config(vault=str(vault))), "tester", TODAY, max_chars=5_000)
    assert len(handed.sources) == 5 and sum(s.chars for s in handed.sources) <= 5_000


def test_the_default_batch_is_assistant_batch_chars(tmp_path: Path) -> None:
    vault = diary(tmp_path / "v", 60, chars=900)
    handed = notes_to_read(opened(vault, Config(vault=str(vault))), "tester", TODAY)
    assert len(handed.sources) == 40_000 // 901 and handed.remaining == 60 - len(handed.sources)


def test_a_note_longer_than_a_batch_comes_alone_and_whole(tmp_path: Path) -> None:
    vault = diary(tmp_path / "v", 3, chars=900)
    note(vault, f"{TODAY}-long.md", "A long day at the pottery studio. " * 100)
    handed = notes_to_read(opened(vault, Config(vault=str(vault))), "tester", TODAY, max_chars=1_000)
    assert [s.path for s in handed.sources] == [f"_shorts/{TODAY}-long.md"]
    assert handed.request is not None and handed.request.count("A long day at the pottery studio.") == 100


def test_newest_notes_are_handed_out_first(tmp_path: Path) -> None:
    vault = diary(tmp_path / "v", 20, chars=900)
    batches = loop(vault, Config(vault=str(vault)), max_chars=2_000)
    dates = [s.date for b in batches for s in b.sources]
    assert dates == sorted(dates, reverse=True) and dates[0] == TODAY


def test_reading_newest_first_keeps_the_memory_reading_oldest_first_keeps(tmp_path: Path) -> None:
    vault = diary(tmp_path / "v", 40, chars=900)
    config = Config(vault=str(vault), assistant_batch_chars=3_000)
    batches, given = [], []
    while (handed := notes_to_read(opened(vault, config), "tester", TODAY)).status == "batch":
        answer = scripted(handed)
        by_id = {s.id: s for s in handed.sources}
        if handed.kind != "extract":
            propose(opened(vault, config), handed.lease or "", answer)
            continue
        given.append([Evidence(dimension=Dimension.preferences, text=e["text"], source=by_id[e["source"]].path,
                               date=by_id[e["source"]].date) for e in answer.get("evidence", [])])
        batches.append(propose(opened(vault, config), handed.lease or "", answer))
    oldest_first = diary(tmp_path / "o", 40, chars=900)
    for evidence in reversed(given):  # the same batches, each its own run, read the other way round
        apply_evidence(opened(oldest_first, Config(vault=str(oldest_first))), evidence, TODAY)
    assert len(given) > 5
    assert items(vault) == items(oldest_first)


def items(vault: Path) -> dict[str, set[str]]:
    """Each memory file's item lines, in whatever order they were added."""
    return {name: set((text or "").splitlines()) for name, text in memory_texts(vault / "_memory").items()}


def test_each_notes_text_is_in_the_json_once(tmp_path: Path) -> None:
    vault = diary(tmp_path / "v", 5)
    note(vault, f"{TODAY}-unique.md", "Bought a tandem kayak with Ines, named it Gaivota.\n")
    done = hylo("pending", "--vault", vault, "--today", str(TODAY), "--json")
    assert done.exit_code == 0, done.stderr
    assert done.stdout.count("named it Gaivota") == 1


def test_brief_json_leaves_out_the_instructions_and_the_schema(tmp_path: Path) -> None:
    vault = diary(tmp_path / "v", 5)
    batch = json.loads(hylo("pending", "--vault", vault, "--today", str(TODAY), "--json", "--brief").stdout)
    assert "instructions" not in batch and "answer_schema" not in batch and batch["request"]


def test_pending_max_chars_sizes_the_batch(tmp_path: Path) -> None:
    vault = diary(tmp_path / "v", 10, chars=900)
    batch = json.loads(hylo("pending", "--vault", vault, "--today", str(TODAY), "--json", "--max-chars", "2000").stdout)
    assert len(batch["sources"]) == 2


def test_a_whole_loop_hands_the_reader_at_most_1_3_times_the_notes(tmp_path: Path) -> None:
    vault = diary(tmp_path / "v", 90, chars=1_200)
    config = Config(vault=str(vault))
    notes = sum(len(p.read_text(encoding="utf-8")) for p in (vault / "_shorts").iterdir())
    handed_chars, first = 0, True
    while (handed := notes_to_read(opened(vault, config), "tester", TODAY)).status == "batch":
        handed_chars += len(handed.to_text("propose_memories", instructions=first))
        first = False
        propose(opened(vault, config), handed.lease or "", scripted(handed))
    assert handed_chars <= 1.3 * notes, handed_chars / notes


def test_apply_lease_without_today_runs_on_the_leases_day(tmp_path: Path) -> None:
    vault = diary(tmp_path / "v", 3)
    answer = tmp_path / "answer.json"
    batch = json.loads(hylo("pending", "--vault", vault, "--today", "2026-11-30", "--json").stdout)
    answer.write_text(json.dumps({"evidence": [{"dimension": "state", "text": "Tired after the kayak trip",
                                                "source": batch["sources"][0]["id"], "restates": None}]}))
    done = hylo("apply", "--vault", vault, "--lease", batch["lease"], "--evidence", answer, "--json")
    assert done.exit_code == 0, done.stderr
    assert "last:2026-11-30" in (vault / "_memory" / "_state.md").read_text(encoding="utf-8")
    assert json.loads(done.stdout)["summary"]["counts"]["faded"] == 0


def test_apply_lease_with_another_today_is_refused_in_one_line(tmp_path: Path) -> None:
    vault = diary(tmp_path / "v", 3)
    answer = tmp_path / "answer.json"
    answer.write_text('{"evidence": []}')
    batch = json.loads(hylo("pending", "--vault", vault, "--today", "2026-11-30", "--json").stdout)
    done = hylo("apply", "--vault", vault, "--today", "2026-12-06", "--lease", batch["lease"], "--evidence", answer)
    assert done.exit_code != 0
    assert "was handed out for 2026-11-30, not 2026-12-06" in one_line(done.stderr)


def test_a_batch_says_per_dimension_before_which_day_evidence_is_not_kept(tmp_path: Path) -> None:
    vault = diary(tmp_path / "v", 3)
    handed = notes_to_read(opened(vault, Config(vault=str(vault))), "tester", TODAY)
    assert handed.keeps_from[Dimension.state] == TODAY - dt.timedelta(days=14)
    assert handed.keeps_from[Dimension.identity] == TODAY - dt.timedelta(days=730)
    assert "state 2026-11-16" in handed.to_text("propose_memories") and "state 2026-11-16" in handed.to_text(
        "propose_memories", instructions=False)


@pytest.mark.parametrize(("name", "text", "reason"), [
    ("clipping", "url:: https://example.com/rust\nauthor:: Ferris\n\nA long article about borrow checkers.\n",
     "joins the reading pool"),
    ("highlights", "---\ntags: [readwise]\nauthor: Someone Else\nsource: https://example.com/b\n---\n"
                   "> Highlight: the map is not the territory.\n", "highlights"),
    ("empty", "", "empty"),
    ("blank", "---\ntitle: nothing yet\n---\n\n   \n", "empty"),
    ("oversized", "Too much to read. " * 200, "larger than"),
])
def test_a_note_that_is_not_handed_out_is_passed_over_with_its_reason_and_the_loop_ends(
        tmp_path: Path, name: str, text: str, reason: str) -> None:
    vault = diary(tmp_path / "v", 2)
    note(vault, f"{TODAY}-{name}.md", text)
    config = Config(vault=str(vault), max_note_bytes=2_000)
    passed: dict[str, str] = {}
    for _ in range(10):  # the loop ends well before
        handed = notes_to_read(opened(vault, config), "tester", TODAY)
        passed |= {p.path: p.reason for p in handed.passed_over}
        if handed.status != "batch":
            break
        propose(opened(vault, config), handed.lease or "", scripted(handed))
    assert handed.status == "done"
    assert reason in passed[f"_shorts/{TODAY}-{name}.md"]


def test_an_ai_chat_hands_out_the_persons_own_turns_only(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    note(vault, f"{TODAY}-chat.md", "---\ntitle: ChatGPT conversation\n---\n## User\nHow long do I proof sourdough?\n"
                                    "## ChatGPT\nAbout four hours at room temperature, longer in a cold kitchen.\n")
    handed = notes_to_read(opened(vault, Config(vault=str(vault))), "tester", TODAY)
    assert "proof sourdough" in (handed.request or "") and "four hours" not in (handed.request or "")


def test_an_answer_whose_entries_are_all_dropped_leaves_the_lease_open_and_its_notes_unread(tmp_path: Path) -> None:
    vault = diary(tmp_path / "v", 3)
    config = Config(vault=str(vault))
    handed = notes_to_read(opened(vault, config), "tester", TODAY)
    stale = {"evidence": [{"dimension": "state", "text": "Tired", "source": "S999", "restates": None},
                          {"dimension": "hobbies", "text": "Likes kayaks", "source": "S1", "restates": None}]}
    with pytest.raises(InputError, match="no entry of the answer could be kept") as refused:
        propose(opened(vault, config), handed.lease or "", stale)
    assert "\n" not in str(refused.value)
    with Ledger.for_memory_dir(vault / "_memory", readonly=True) as ledger:
        assert all(ledger.extracted_by(s.path) is None for s in handed.sources)
    propose(opened(vault, config), handed.lease or "", {"evidence": []})  # the lease still holds; empty: nothing found


def test_a_readers_name_is_cleaned_of_control_characters() -> None:
    assert reader_name("evil\x1b[2J\x1b]0;pwned\x07", "x") == "evil [2J ]0;pwned"
    assert reader_name("\x00\x1b\u202e", "command line") == "command line"


def test_an_old_vault_is_explained_with_its_newest_notes_date_and_the_command_that_reads_it(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    for n in range(5):
        note(vault, f"2025-08-{10 + n}-old.md", f"Went kayaking on the river, trip {n}.\n")
    done = hylo("pending", "--vault", vault, "--today", str(TODAY))
    assert done.exit_code == 0, done.stderr
    assert "the newest is dated 2025-08-14" in done.stdout and "--today 2025-08-14" in done.stdout
    batch = json.loads(hylo("pending", "--vault", vault, "--today", str(TODAY), "--json").stdout)
    assert batch["status"] == "done" and "2025-08-14" in batch["old_vault"]


def test_after_a_run_that_read_nothing_the_old_notes_are_named_and_reached_with_since(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    for n in range(5):
        note(vault, f"2025-08-{10 + n}-old.md", f"Went kayaking on the river, trip {n}.\n")
    config = Config(vault=str(vault))
    assert hylo("refresh", "--vault", vault, "--today", str(TODAY), "--extractor", "offline").exit_code == 0
    handed = notes_to_read(opened(vault, config), "tester", TODAY)
    assert handed.old_vault and "pending" in handed.old_vault
    assert "--today 2025-08-14 --since 2025-05-17" in handed.old_vault
    old = notes_to_read(opened(vault, config), "tester", dt.date(2025, 8, 14), since=dt.date(2025, 5, 17))
    assert len(old.sources) == 5 and old.today == dt.date(2025, 8, 14)


def test_a_day_with_nothing_to_read_still_decays_the_memory_as_a_night_would(tmp_path: Path) -> None:
    vault = diary(tmp_path / "v", 3)
    config = Config(vault=str(vault))
    handed = notes_to_read(opened(vault, config), "tester", TODAY)
    propose(opened(vault, config), handed.lease or "", {"evidence": [
        {"dimension": "state", "text": "Tired after the kayak trip", "source": handed.sources[0].id, "restates": None}]})
    while (handed := notes_to_read(opened(vault, config), "tester", TODAY)).status == "batch":
        propose(opened(vault, config), handed.lease or "", scripted(handed))
    later = notes_to_read(opened(vault, config), "tester", TODAY + dt.timedelta(days=10))
    assert later.status == "done" and later.decay and "faded 1" in later.decay
    state = (vault / "_memory" / "_state.md").read_text(encoding="utf-8")
    assert state.index("## Fading") < state.index("Tired after the kayak trip")
    again = notes_to_read(opened(vault, config), "tester", TODAY + dt.timedelta(days=10))
    assert again.status == "done" and again.decay is None  # once a day


def test_an_undated_page_read_today_does_not_hide_the_old_dated_notes(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    for n in range(5):
        note(vault, f"2025-08-{10 + n}-old.md", f"Went kayaking on the river, trip {n}.\n")
    index = note(vault, "Daily notes index.md", "Every daily note, by month.\n")  # dated by its mtime: today
    noon = dt.datetime.combine(TODAY, dt.time(12)).timestamp()
    os.utime(index, (noon, noon))
    config = Config(vault=str(vault))
    read = []
    while (handed := notes_to_read(opened(vault, config), "tester", TODAY)).status == "batch":
        read += [s.path for s in handed.sources]
        propose(opened(vault, config), handed.lease or "", {"evidence": []})
    assert read == ["_shorts/Daily notes index.md"]
    assert handed.old_vault and "--today 2025-08-14 --since" in handed.old_vault


def test_after_a_back_dated_batch_apply_names_the_next_pending_with_its_day(tmp_path: Path) -> None:
    vault = diary(tmp_path / "v", 3)
    answer = tmp_path / "answer.json"
    answer.write_text('{"evidence": []}')
    batch = json.loads(hylo("pending", "--vault", vault, "--today", str(TODAY), "--json").stdout)
    done = hylo("apply", "--vault", vault, "--lease", batch["lease"], "--evidence", answer)
    assert f"hylo-memory pending --today {TODAY}`" in done.stdout
