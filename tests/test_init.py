"""`hylo-memory init` (docs/spec.md §1, "Layouts as people have them"): it looks at a vault, proposes which of
its folders to read, and writes `.hylo-memory.toml` after asking — or with `--yes` — never replacing a
different one without `--force`."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from cli_helpers import hylo, one_line
from click.testing import CliRunner, Result
from vault_helpers import day, write_file, write_note

from hylo_memory.pipeline.cli.group import PROG, cli
from hylo_memory.pipeline.config import load_config
from hylo_memory.pipeline.operations.init import SAMPLE_NOTES, propose, survey

TODAY = "2026-11-30"


def answering(answer: str, *args: str | Path) -> Result:
    """`hylo-memory ARGS…` with `answer` on stdin, for the question `init` asks."""
    return CliRunner().invoke(cli, [str(a) for a in args], input=answer, prog_name=PROG, catch_exceptions=False)


@pytest.fixture
def obsidian(tmp_path: Path) -> Path:
    """An Obsidian vault: daily notes in `Daily/` (its `.obsidian/daily-notes.json` says so), a Zettelkasten,
    a projects folder, templates and attachments."""
    vault = tmp_path / "vault"
    write_file(vault, ".obsidian/daily-notes.json", json.dumps({"folder": "Daily", "format": "YYYY-MM-DD"}))
    write_file(vault, ".obsidian/templates.json", json.dumps({"folder": "Templates"}))
    for date in ("2026-11-01", "2026-11-20", "2026-11-28"):
        write_note(vault, f"Daily/{date}.md", "I live in Porto.", mtime=day(date))
    write_note(vault, "Zettelkasten/tests.md", "Tests are specifications.", mtime=day("2026-11-10"),
               title="Tests", tags=["testing"], created="2026-11-10")
    write_note(vault, "Projects/hylo.md", "The plan for Hylo.", mtime=day("2026-10-03"))
    write_note(vault, "Templates/daily.md", "<% tp.date.now() %>", mtime=day("2026-01-01"))
    write_file(vault, "attachments/photo.png", b"\x89PNG")
    return vault


def vault_file(vault: Path) -> Path:
    return vault / ".hylo-memory.toml"


# What init proposes


def test_init_proposes_obsidians_daily_notes_folder_as_short_notes(obsidian: Path) -> None:
    assert propose(survey(obsidian, "_memory")).shorts_paths == ["Daily"]


def test_init_proposes_a_folder_named_like_a_knowledge_base_as_knowledge(obsidian: Path) -> None:
    assert propose(survey(obsidian, "_memory")).knowledge_paths == ["Zettelkasten"]


def test_init_proposes_a_folder_whose_notes_carry_source_notes_as_knowledge(tmp_path: Path) -> None:
    write_note(tmp_path, "Reading/talk.md", "Notes on a talk.", source_notes=["[[2026-11-01]]"])
    assert propose(survey(tmp_path, "_memory")).knowledge_paths == ["Reading"]


def test_init_proposes_a_folder_named_like_a_journal_as_short_notes(tmp_path: Path) -> None:
    write_note(tmp_path, "10 Journal/2026-11-01.md", "A day.")
    assert propose(survey(tmp_path, "_memory")).shorts_paths == ["10 Journal"]


def test_init_proposes_other_folders_of_notes_as_extra_scan_paths_but_not_templates_or_attachments(
    obsidian: Path,
) -> None:
    assert propose(survey(obsidian, "_memory")).extra_scan_paths == ["Projects"]


def test_init_proposes_the_whole_vault_for_a_vault_of_notes_at_its_top_level(tmp_path: Path) -> None:
    write_note(tmp_path, "inbox.md", "A thought.")
    assert propose(survey(tmp_path, "_memory")).shorts_paths == ["."]


# Folders of someone else's words by another name (docs/spec.md §1 "Whose words", "`init`")

TOPICS = ["plan a trip to Japan", "fix a bike chain", "bake sourdough", "learn Rust", "cook rice", "write a CV",
          "sleep better", "run faster", "move abroad", "start a garden", "train a puppy", "read more"]


def chatgpt_export(vault: Path, topic: str, number: int, folder: str = "ChatGPT") -> Path:
    """One conversation as a browser exporter writes ChatGPT's: its source URL, a title, the turns under
    `#### You:` and `#### ChatGPT:`."""
    body = (f"# {topic.capitalize()}\n\n#### You:\nHow do I {topic}?\n\n#### ChatGPT:\n"
            f"Here are a few ways to {topic}:\n\n1. Start small.\n2. Keep at it.\n")
    return write_note(vault, f"{folder}/{topic}.md", body, title=topic.capitalize(),
                      source=f"https://chatgpt.com/c/6742a1b0-{number:04d}-8000-a1b2-c3d4e5f6a7b8",
                      create_time="2026-11-01 09:30:00")


def web_clipping(vault: Path, folder: str, number: int) -> Path:
    """An article as Obsidian's Web Clipper saves it: source URL, author, `clippings` tag."""
    return write_note(vault, f"{folder}/article {number}.md", "Cities are for walking, the author argues.",
                      title=f"Article {number}", source=f"https://example.com/articles/{number}",
                      author=["[[Jane Doe]]"], published="2026-10-01", created="2026-11-20", tags=["clippings"])


@pytest.fixture
def chats(tmp_path: Path) -> Path:
    """A vault of the person's projects beside a `ChatGPT/` folder of nine exported chats and one note of theirs."""
    for number, topic in enumerate(TOPICS[:9]):
        chatgpt_export(tmp_path, topic, number)
    write_note(tmp_path, "ChatGPT/what I asked about.md", "I asked about moving abroad.")
    write_note(tmp_path, "Projects/hylo.md", "The plan for Hylo.")
    return tmp_path


def test_init_does_not_propose_a_folder_of_exported_chats(chats: Path) -> None:
    proposal = propose(survey(chats, "_memory"))
    assert (proposal.shorts_paths, proposal.knowledge_paths, proposal.extra_scan_paths) == ([], [], ["Projects"])


def test_init_says_why_a_folder_of_exported_chats_is_not_proposed(chats: Path) -> None:
    out = answering("n\n", "init", "--vault", chats).stdout
    assert "  — not proposed: 9 of 10 notes are AI chats\n" in out
    assert next(line for line in out.splitlines() if "AI chats" in line).lstrip().startswith("ChatGPT/")


def test_init_does_not_propose_a_folder_of_web_clippings_and_says_why(tmp_path: Path) -> None:
    for number in range(3):
        web_clipping(tmp_path, "Reading", number)
    write_note(tmp_path, "Projects/hylo.md", "The plan for Hylo.")
    out = answering("n\n", "init", "--vault", tmp_path).stdout
    assert propose(survey(tmp_path, "_memory")).knowledge_paths == []  # their tags alone would make them knowledge
    assert "Reading/" in out and "— not proposed: 3 of 3 notes are web clippings\n" in out


def test_init_still_proposes_a_folder_of_the_persons_notes_with_one_chat_in_it(tmp_path: Path) -> None:
    for name in ("hylo", "garden", "taxes"):
        write_note(tmp_path, f"Projects/{name}.md", f"My plan for {name}.")
    chatgpt_export(tmp_path, "plan a trip to Japan", 1, folder="Projects")
    assert propose(survey(tmp_path, "_memory")).extra_scan_paths == ["Projects"]


def test_init_names_each_kind_in_a_folder_mostly_of_chats_and_clippings(tmp_path: Path) -> None:
    for number, topic in enumerate(TOPICS[:3]):
        chatgpt_export(tmp_path, topic, number, folder="Inbox")
    web_clipping(tmp_path, "Inbox", 1)
    write_note(tmp_path, "Inbox/idea.md", "An idea of mine.")
    reason = propose(survey(tmp_path, "_memory")).reasons["Inbox"]
    assert reason == "not proposed: 4 of 5 notes are not your own writing (3 AI chats, 1 web clipping)"


def test_init_judges_a_folder_by_a_sample_of_its_notes_and_says_so(tmp_path: Path) -> None:
    for number in range(SAMPLE_NOTES + 5):
        chatgpt_export(tmp_path, f"{TOPICS[number % len(TOPICS)]} {number}", number)
    reason = propose(survey(tmp_path, "_memory")).reasons["ChatGPT"]
    assert reason == f"not proposed: {SAMPLE_NOTES} of {SAMPLE_NOTES} notes looked at are AI chats"


def test_init_does_not_propose_a_flat_vault_of_exported_chats(tmp_path: Path) -> None:
    for number, topic in enumerate(TOPICS[:3]):
        chatgpt_export(tmp_path, topic, number, folder=".")
    proposal = propose(survey(tmp_path, "_memory"))
    assert (proposal.shorts_paths, proposal.reasons["."]) == ([], "not proposed: 3 of 3 notes are AI chats")


def test_init_counts_notes_and_dates_them_from_their_names(obsidian: Path) -> None:
    daily = next(f for f in survey(obsidian, "_memory").folders if f.path == "Daily")
    assert (daily.notes, daily.first, daily.last) == (3, day("2026-11-01"), day("2026-11-28"))


def test_init_stops_counting_at_its_limit_and_says_so(obsidian: Path) -> None:
    found = survey(obsidian, "_memory", limit=2)
    assert (found.stopped, found.files_seen) == (True, 2)


def test_init_shows_the_folders_it_found_and_obsidians_daily_notes_setting(obsidian: Path) -> None:
    out = answering("n\n", "init", "--vault", obsidian).stdout
    assert "Daily/" in out and "3 notes  2026-11-01 … 2026-11-28" in out
    assert "Obsidian daily notes: folder Daily/, format YYYY-MM-DD (.obsidian/daily-notes.json)" in out


# Writing the file


def test_init_yes_writes_a_config_that_makes_refresh_read_the_daily_notes(obsidian: Path) -> None:
    assert hylo("init", "--vault", obsidian, "--yes").exit_code == 0
    result = hylo("refresh", "--vault", obsidian, "--today", TODAY, "--extractor", "offline", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["sources"] == {"shorts": 3, "knowledge": 1, "extra": 1}


def test_init_yes_prints_what_it_wrote(obsidian: Path) -> None:
    result = hylo("init", "--vault", obsidian, "--yes")
    assert f"Wrote {vault_file(obsidian)}" in result.stdout
    assert vault_file(obsidian).read_text(encoding="utf-8") in result.stdout


def test_init_writes_the_file_readable_by_its_owner_only(obsidian: Path) -> None:
    hylo("init", "--vault", obsidian, "--yes")
    assert stat.S_IMODE(vault_file(obsidian).stat().st_mode) == 0o600


def test_the_file_init_writes_is_one_the_configuration_reads(obsidian: Path) -> None:
    hylo("init", "--vault", obsidian, "--yes")
    config = load_config(vault=str(obsidian))
    assert (config.shorts_paths, config.knowledge_paths, config.extra_scan_paths) == (
        ["Daily"], ["Zettelkasten"], ["Projects"])


def test_init_asks_before_writing_and_writes_on_yes(obsidian: Path) -> None:
    result = answering("y\n", "init", "--vault", obsidian)
    assert (result.exit_code, f"Write {vault_file(obsidian)}? [y/N]" in result.stdout) == (0, True)
    assert vault_file(obsidian).is_file()


def test_init_writes_nothing_when_the_answer_is_no(obsidian: Path) -> None:
    result = answering("n\n", "init", "--vault", obsidian)
    assert (result.exit_code, "Nothing written." in result.stdout, vault_file(obsidian).exists()) == (0, True, False)


def test_init_with_no_one_to_answer_writes_nothing_and_says_so_in_one_line(obsidian: Path) -> None:
    result = answering("", "init", "--vault", obsidian)
    assert result.exit_code == 1 and "--yes" in one_line(result.stderr)
    assert not vault_file(obsidian).exists()


def test_init_run_again_on_its_own_file_writes_nothing(obsidian: Path) -> None:
    hylo("init", "--vault", obsidian, "--yes")
    result = hylo("init", "--vault", obsidian, "--yes")
    assert (result.exit_code, "already says this: nothing written" in result.stdout) == (0, True)


def test_init_yes_refuses_to_replace_a_different_file_and_shows_the_diff(obsidian: Path) -> None:
    vault_file(obsidian).write_text('shorts_paths = ["Projects"]\n', encoding="utf-8")
    result = hylo("init", "--vault", obsidian, "--yes")
    assert result.exit_code == 1 and "--force" in one_line(result.stderr)
    assert '-shorts_paths = ["Projects"]' in result.stdout and '+shorts_paths = ["Daily"]' in result.stdout
    assert vault_file(obsidian).read_text(encoding="utf-8") == 'shorts_paths = ["Projects"]\n'


def test_init_yes_force_replaces_a_different_file_keeping_its_other_settings(obsidian: Path) -> None:
    vault_file(obsidian).write_text('shorts_paths = ["Projects"]\nfirst_run_days = 30\n', encoding="utf-8")
    assert hylo("init", "--vault", obsidian, "--yes", "--force").exit_code == 0
    config = load_config(vault=str(obsidian))
    assert (config.shorts_paths, config.first_run_days) == (["Daily"], 30)


def test_init_asks_before_replacing_a_different_file_and_keeps_it_on_no(obsidian: Path) -> None:
    vault_file(obsidian).write_text('shorts_paths = ["Projects"]\n', encoding="utf-8")
    result = answering("n\n", "init", "--vault", obsidian)
    assert f"Replace {vault_file(obsidian)}? [y/N]" in result.stdout
    assert vault_file(obsidian).read_text(encoding="utf-8") == 'shorts_paths = ["Projects"]\n'


def test_init_finds_the_vault_through_hylo_memory_vault(obsidian: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYLO_MEMORY_VAULT", str(obsidian))
    assert (hylo("init", "--yes").exit_code, vault_file(obsidian).is_file()) == (0, True)


# The hint a vault with none of the configured folders gets


def test_a_vault_with_none_of_the_configured_folders_gets_a_hint_naming_init(obsidian: Path) -> None:
    result = hylo("refresh", "--vault", obsidian, "--today", TODAY, "--extractor", "offline")
    hint = (f"no _shorts/ or _knowledge/ folder in this vault: run `hylo-memory init --vault {obsidian}` "
            "to choose which folders to read")
    assert result.exit_code == 0
    assert f"Hint: {hint}\n" in result.stdout and result.stderr == f"hylo-memory: hint: {hint}\n"


def test_the_hint_is_in_the_json_summary_too(obsidian: Path) -> None:
    result = hylo("refresh", "--vault", obsidian, "--today", TODAY, "--extractor", "offline", "--json")
    assert json.loads(result.stdout)["hints"] == [
        f"no _shorts/ or _knowledge/ folder in this vault: run `hylo-memory init --vault {obsidian}` "
        "to choose which folders to read"]


def test_a_vault_with_one_of_the_configured_folders_gets_no_hint(tmp_path: Path) -> None:
    (tmp_path / "_knowledge").mkdir()
    result = hylo("refresh", "--vault", tmp_path, "--today", TODAY, "--extractor", "offline", "--json")
    assert (json.loads(result.stdout)["hints"], result.stderr) == ([], "")


def test_after_init_the_vault_gets_no_hint(obsidian: Path) -> None:
    hylo("init", "--vault", obsidian, "--yes")
    result = hylo("refresh", "--vault", obsidian, "--today", TODAY, "--extractor", "offline", "--json")
    assert json.loads(result.stdout)["hints"] == []
