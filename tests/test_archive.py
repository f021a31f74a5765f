"""The notes as the archive (docs/spec.md §9.7): `recall --notes` searches every note the vault reads, passage by
passage, with each passage's note and date and whose words it is; the index is kept by every refresh and rebuilt
by `index`; `context --query` falls back to it when the memory has no answer."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sqlite3
from pathlib import Path

import pytest
from cli_helpers import hylo
from vault_helpers import memory_body, memory_file, short, write_note

from hylo_memory.decay import Dimension
from hylo_memory.extractors import bundled
from hylo_memory.pipeline.cli.quick import answer
from hylo_memory.pipeline.notes.passages import MAX_CHARS, passages
from hylo_memory.pipeline.operations.serving import archive
from hylo_memory.pipeline.state import archive_matrix
from hylo_memory.pipeline.state.archive import ArchiveIndex
from hylo_memory.pipeline.state.archive_matrix import matrix_path

TODAY = "2026-12-01"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    short(root, "2021-03-14", "Ana took me climbing at the bouldering gym after work. My hands are shredded.",
          slug="gym")
    short(root, "2023-06-02", "Climbing again at the crag with the club; my forearms gave out early.", slug="crag")
    short(root, "2024-05-20", "First outdoor climbing trip of the year, sunny and dry.", slug="trip")
    short(root, "2026-11-28", "Baked sourdough bread for the neighbours.", slug="bread")
    return root


def refresh(vault: Path) -> None:
    done = hylo("refresh", "--vault", vault, "--today", TODAY, "--extractor", "offline", "--quiet")
    assert done.exit_code in (0, 2), done.stderr


def notes(vault: Path, query: str, *args: str) -> list[dict]:
    done = hylo("recall", query, "--notes", "--json", "--vault", vault, *args)
    assert done.exit_code == 0, done.stderr
    return json.loads(done.stdout)["passages"]


def paths(vault: Path, query: str) -> list[str]:
    return [p["path"] for p in notes(vault, query)]


def test_recall_notes_answers_with_passages_each_with_its_note_and_date(vault: Path) -> None:
    refresh(vault)
    [found] = notes(vault, "sourdough")
    assert (found["path"], found["date"], found["whose"]) == ("_shorts/2026-11-28-bread.md", "2026-11-28", "own")
    assert found["text"] == "Baked sourdough bread for the neighbours."
    text = hylo("recall", "sourdough", "--notes", "--vault", vault).stdout
    assert text.splitlines()[:2] == ["1. 2026-11-28  _shorts/2026-11-28-bread.md",
                                     "   Baked sourdough bread for the neighbours."]


def test_when_did_i_first_go_climbing_brings_the_oldest_climbing_note_first(vault: Path) -> None:
    refresh(vault)
    found = notes(vault, "when did I first go climbing?")
    # The 2024 note says "first … climbing" word for word; the 2021 one is the first time: the date decides.
    assert [(p["date"], p["path"]) for p in found] == [("2021-03-14", "_shorts/2021-03-14-gym.md"),
                                                      ("2023-06-02", "_shorts/2023-06-02-crag.md"),
                                                      ("2024-05-20", "_shorts/2024-05-20-trip.md")]
    assert notes(vault, "when did I last go climbing?")[0]["date"] == "2024-05-20"
    assert notes(vault, "first climbing trip")[0]["date"] == "2024-05-20"  # no question of when: by the words


def test_before_any_refresh_the_notes_are_not_indexed_and_it_says_so(vault: Path) -> None:
    done = hylo("recall", "climbing", "--notes", "--vault", vault)
    assert done.exit_code == 0
    assert "not indexed yet" in done.stdout and "hylo-memory refresh" in done.stdout


def test_a_new_note_appears_after_the_next_refresh(vault: Path) -> None:
    refresh(vault)
    assert paths(vault, "kayak") == []
    short(vault, "2026-11-30", "Rented a kayak on the lake.", slug="kayak")
    refresh(vault)
    assert paths(vault, "kayak") == ["_shorts/2026-11-30-kayak.md"]


def test_an_edited_note_has_its_passages_replaced(vault: Path) -> None:
    refresh(vault)
    note = vault / "_shorts/2026-11-28-bread.md"
    note.write_text("Baked a lemon tart for the neighbours.\n", encoding="utf-8")
    refresh(vault)
    assert paths(vault, "sourdough") == []
    [found] = notes(vault, "lemon tart")
    assert found["text"] == "Baked a lemon tart for the neighbours." and found["date"] == "2026-11-28"


def test_a_note_removed_from_the_vault_is_gone_from_the_index(vault: Path) -> None:
    refresh(vault)
    (vault / "_shorts/2026-11-28-bread.md").unlink()
    refresh(vault)
    assert paths(vault, "sourdough") == []
    with sqlite3.connect(vault / "_memory/.state/archive.sqlite") as db:
        assert db.execute("SELECT count(*) FROM passages WHERE path LIKE '%bread%'").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM notes WHERE path LIKE '%bread%'").fetchone() == (0,)


def test_a_refresh_reads_a_bounded_number_of_notes_newest_first(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "NOTES_PER_REFRESH", 2)
    refresh(vault)
    assert paths(vault, "sourdough") == ["_shorts/2026-11-28-bread.md"]  # the newest first
    assert paths(vault, "bouldering") == []
    refresh(vault)
    assert paths(vault, "bouldering") == ["_shorts/2021-03-14-gym.md"]  # the next refresh reads on


def test_index_reads_every_note_again_as_one_of_its_steps(vault: Path) -> None:
    refresh(vault)
    # An edit the stamp does not show (same size, the old mtime put back, as a sync tool may): a refresh
    # passes over it, a rebuild reads it.
    note = vault / "_shorts/2026-11-28-bread.md"
    stat = note.stat()
    note.write_text("Baked pumpernik bread for the neighbours.\n", encoding="utf-8")  # as many bytes
    assert note.stat().st_size == stat.st_size
    os.utime(note, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    refresh(vault)
    assert paths(vault, "pumpernik") == []
    done = hylo("index", "--vault", vault, "--json")
    assert done.exit_code == 0, done.stderr
    step = json.loads(done.stdout)["steps"][-1]
    assert (step["step"], step["made"], step["total"], step["failed"]) == ("notes", 4, 4, False)
    assert step["line"].startswith("Indexed 4 note(s) for `recall --notes`: 4 passage(s)")
    assert paths(vault, "pumpernik") == ["_shorts/2026-11-28-bread.md"]
    assert paths(vault, "sourdough") == []


def test_a_damaged_index_is_started_over_by_the_next_refresh(vault: Path) -> None:
    refresh(vault)
    index = vault / "_memory/.state/archive.sqlite"
    for name in ("archive.sqlite-wal", "archive.sqlite-shm"):
        (index.parent / name).unlink(missing_ok=True)
    index.write_bytes(b"not a database at all" * 100)
    done = hylo("recall", "bread", "--notes", "--vault", vault)
    assert done.exit_code == 1 and "hylo-memory index" in done.stderr and done.stderr.count("\n") == 1
    refresh(vault)
    assert paths(vault, "sourdough") == ["_shorts/2026-11-28-bread.md"]


def test_whose_words_stay_marked_a_clipping_and_an_ai_chats_turns(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    write_note(root, "Clippings/tips.md", "Ten tips for better climbing footwork.", source="https://example.com/t",
               author="Someone Else")
    write_note(root, "_shorts/chat.md", "## User\nHow should I tape my fingers for climbing?\n\n"
               "## ChatGPT\nWrap an H-tape around the joint before climbing.", source="chatgpt", created="2026-11-02")
    hylo("refresh", "--vault", root, "--today", TODAY, "--extractor", "offline", "--quiet")
    config = root / ".hylo-memory.toml"
    config.write_text('extra_scan_paths = ["Clippings"]\n', encoding="utf-8")
    hylo("refresh", "--vault", root, "--today", TODAY, "--extractor", "offline", "--quiet")
    found = {p["text"]: p for p in notes(root, "climbing")}
    assert found["Ten tips for better climbing footwork."]["whose"] == "clipping"
    assert found["How should I tape my fingers for climbing?"]["whose"] == "ai_chat"
    assert found["Wrap an H-tape around the joint before climbing."]["whose"] == "ai"
    text = hylo("recall", "climbing", "--notes", "--vault", root).stdout
    assert "Clippings/tips.md  (a web clipping: someone else's words)" in text
    assert "_shorts/chat.md  (an AI chat: the AI's words)" in text
    assert "_shorts/chat.md  (an AI chat: your turn)" in text


def test_a_secret_in_a_note_never_reaches_the_index(vault: Path) -> None:
    short(vault, "2026-11-29", "The wifi at the cabin: password = hunter2-Zebra-77\nGreat view of the lake.",
          slug="cabin")
    refresh(vault)
    [found] = notes(vault, "cabin wifi")
    assert "[secret]" in found["text"] and "hunter2" not in found["text"]
    state = vault / "_memory/.state"
    for file in state.glob("archive.sqlite*"):
        assert b"hunter2" not in file.read_bytes(), file.name
    assert notes(vault, "hunter2") == []


def test_a_hylo_daily_file_is_an_entry_a_passage_each_with_its_date(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    body = ("###### Short Note: 2026-11-02 08:15:00\n\nMorning swim at the lido.\n\n---\n\n"
            "###### Short Note: 2026-11-02 21:40:00\n\nFinished the novel about the lighthouse keeper.\n")
    write_note(root, "_shorts/2026-11-02.md", body, kind="short", date="2026-11-02")
    hylo("refresh", "--vault", root, "--today", TODAY, "--extractor", "offline", "--quiet")
    [swim] = notes(root, "swim")
    [novel] = notes(root, "lighthouse")
    assert swim["text"] == "Morning swim at the lido." and novel["text"].startswith("Finished the novel")
    assert swim["date"] == novel["date"] == "2026-11-02"


def test_context_query_falls_back_to_the_notes_when_no_item_answers(vault: Path) -> None:
    memory_file(vault, Dimension.preferences, memory_body("Loves green tea | 2026-11-20 | 2"))
    refresh(vault)
    block = hylo("context", "--query", "sourdough bread", "--vault", vault, "--today", TODAY).stdout
    assert "## From your notes" in block
    assert "- 2026-11-28, _shorts/2026-11-28-bread.md: Baked sourdough bread for the neighbours." in block
    answered = hylo("context", "--query", "green tea", "--vault", vault, "--today", TODAY).stdout
    assert "Loves green tea" in answered and "From your notes" not in answered


def test_a_passage_is_a_paragraph_of_bounded_length() -> None:
    long = " ".join(f"Sentence number {n} is about the weather." for n in range(60))
    cut = passages(f"# Kyoto\n\nWe stayed near the river.\n\n{long}")
    assert cut[0] == "# Kyoto\n\nWe stayed near the river."  # short paragraphs join the next
    assert all(len(p) <= MAX_CHARS for p in cut) and len(cut) > 2
    assert " ".join(cut[1:]) == long  # cut at sentence ends, nothing lost
    assert all(len(p) <= MAX_CHARS for p in passages("字" * 3000))


def test_with_the_bundled_model_a_refresh_embeds_the_passages_and_recall_ranks_by_meaning(
        vault: Path, bundled_model: None) -> None:
    refresh(vault)
    done = hylo("recall", "which sport on rock walls?", "--notes", "--json", "--vault", vault)
    found = json.loads(done.stdout)
    assert (found["ranking"], found["unembedded"]) == ("bm25+embeddings", 0)
    # No word in common: the climbing notes by meaning, the bread one not at all.
    assert found["passages"] and all("climbing" in p["text"].lower() for p in found["passages"])
    assert all(p["similarity"] > 0.79 and p["bm25"] == 0 for p in found["passages"])


def test_the_quick_path_leaves_a_query_no_item_answers_to_the_full_command(vault: Path) -> None:
    memory_file(vault, Dimension.preferences, memory_body("Loves green tea | 2026-11-20 | 2"))
    refresh(vault)
    for query, quick in (("sourdough bread", False), ("green tea", True)):
        asked = ["context", "--query", query, "--vault", str(vault), "--today", TODAY]
        full = hylo(*asked).stdout
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            answered = answer(asked)
        assert answered is quick, query
        assert out.getvalue() == (full if quick else "")


def test_a_search_never_reads_a_kept_matrix_of_vectors_older_than_the_index(vault: Path, bundled_model: None) -> None:
    refresh(vault)
    memory = vault / "_memory"
    assert matrix_path(memory).exists()
    with ArchiveIndex.writing(memory) as index:  # a write the matrix has not followed (a refresh stopped short)
        index.drop(["_shorts/2026-11-28-bread.md"])
    found = json.loads(hylo("recall", "bread for the neighbours", "--notes", "--json", "--vault", vault).stdout)
    assert found["ranking"] == "bm25+embeddings"
    assert "_shorts/2026-11-28-bread.md" not in {p["path"] for p in found["passages"]}
    with ArchiveIndex.reading(memory) as index:
        assert index is not None
        kept = archive_matrix.load(index, memory, bundled.cache_key())
        assert sorted(kept.ids.tolist()) == index.vectors(bundled.cache_key())[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_pipe_named_like_a_note_is_passed_over_and_the_rest_indexed(vault: Path) -> None:
    os.mkfifo(vault / "_shorts" / "2026-11-29-pipe.md")  # opening it to read would block for ever
    refresh(vault)
    assert paths(vault, "sourdough") == ["_shorts/2026-11-28-bread.md"]
    with sqlite3.connect(vault / "_memory/.state/archive.sqlite") as db:
        [(skipped,)] = db.execute("SELECT skipped FROM notes WHERE path = '_shorts/2026-11-29-pipe.md'")
    assert "not a regular file" in skipped
