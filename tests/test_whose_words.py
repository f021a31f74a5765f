"""Whose words (docs/spec.md §1): a note is the person's own unless it shows it is not — web clippings,
highlights exports, an AI chat's assistant turns and block quotes are someone else's words, for
every extractor (pipeline/notes/whose.py, read in `FolderVault._read`)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import hylo
from vault_helpers import day, identity, short, texts, unit, write_file, write_note

from hylo_memory.decay import Dimension
from hylo_memory.pipeline.cli.group import main
from hylo_memory.pipeline.notes.whose import judge
from hylo_memory.testing import FakeOpenAI

TODAY = "2026-11-30"
THEIRS = "I live in Berlin. My sister Ana is a doctor."  # someone else's first person
BERLIN, ANA = "Lives in Berlin", "Ana — sister"


def refresh(vault: Path, *extra: str) -> dict[str, Any]:
    """`hylo-memory refresh --json` with the offline extractor; the summary."""
    result = hylo("refresh", "--vault", vault, "--extractor", "offline", "--json", "--today", TODAY, *extra)
    assert result.exit_code == 0, result.stderr
    summary: dict[str, Any] = json.loads(result.stdout)
    return summary


def whole_vault(vault: Path) -> None:
    """The vault's `.hylo-memory.toml` reading every note in it as a short note, as `"."` does."""
    write_file(vault, ".hylo-memory.toml", 'shorts_paths = ["."]\n')


def note(vault: Path, rel: str, body: str = THEIRS, **meta: Any) -> Path:
    return write_note(vault, rel, body, mtime=day("2026-11-20"), **meta)


def kept(vault: Path) -> set[str]:
    return texts(vault, Dimension.identity) | texts(vault, Dimension.people)


# Web clippings


def test_a_note_with_a_source_url_and_another_author_is_a_clipping(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-20", THEIRS, source="https://example.com/essay", author=["[[Jane Doe]]"])
    assert refresh(tmp_path)["others_words"] == {"clipping": 1}
    assert kept(tmp_path) == set()


def test_a_note_with_a_source_url_by_the_person_is_their_own(tmp_path: Path) -> None:
    identity(tmp_path, "Name is Maya Okafor")
    short(tmp_path, "2026-11-29", THEIRS, source="https://maya.blog/moving", author="[[Maya Okafor]]")  # incremental
    refresh(tmp_path)
    assert BERLIN in kept(tmp_path)


def test_a_note_tagged_clippings_is_a_clipping(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-20", THEIRS, tags=["clippings"])
    assert refresh(tmp_path)["others_words"] == {"clipping": 1}
    assert kept(tmp_path) == set()


def test_a_note_in_the_web_clippers_clippings_folder_is_a_clipping(tmp_path: Path) -> None:
    whole_vault(tmp_path)
    note(tmp_path, "Clippings/Why Berlin.md")
    assert refresh(tmp_path)["others_words"] == {"clipping": 1}
    assert kept(tmp_path) == set()


def test_two_clippings_sharing_a_tag_join_the_external_pool(tmp_path: Path) -> None:
    whole_vault(tmp_path)
    note(tmp_path, "Clippings/Raft.md", title="Raft explained", tags=["clippings", "consensus"])
    note(tmp_path, "Clippings/Paxos.md", title="Paxos made simple", tags=["clippings", "consensus"])
    refresh(tmp_path)
    assert texts(tmp_path, Dimension.preferences) == {"Keeps coming back to consensus"}


def test_a_unit_stating_perspective_own_in_a_clippings_folder_is_still_a_clipping(tmp_path: Path) -> None:
    note(tmp_path, "_knowledge/Clippings/berlin.md", title="Berlin", perspective="own", created="2026-11-20")
    refresh(tmp_path)
    assert kept(tmp_path) == set()


def test_a_unit_stating_perspective_own_keeps_it_over_a_source_url(tmp_path: Path) -> None:
    unit(tmp_path, "berlin", THEIRS, "2026-11-20", title="My move", perspective="own", source="https://maya.blog/a")
    refresh(tmp_path)
    assert BERLIN in kept(tmp_path)


# Highlights exports


def test_a_note_in_a_readwise_folder_is_highlights(tmp_path: Path) -> None:
    whole_vault(tmp_path)
    note(tmp_path, "Readwise/Books/Berlin Stories.md")
    assert refresh(tmp_path)["others_words"] == {"highlights": 1}
    assert kept(tmp_path) == set()


def test_a_note_in_a_kindle_folder_anywhere_is_highlights(tmp_path: Path) -> None:
    whole_vault(tmp_path)
    note(tmp_path, "Sources/kindle/Berlin Stories.md")
    assert refresh(tmp_path)["others_words"] == {"highlights": 1}
    assert kept(tmp_path) == set()


def test_a_note_tagged_as_a_highlight_is_highlights(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-20", f"{THEIRS}\n\n#Type/Highlight/Book")
    assert refresh(tmp_path)["others_words"] == {"highlights": 1}
    assert kept(tmp_path) == set()


def test_a_note_of_category_books_is_highlights(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-20", THEIRS, category="books")
    assert refresh(tmp_path)["others_words"] == {"highlights": 1}
    assert kept(tmp_path) == set()


# AI chats: only the person's turns are theirs

CHAT = f"# Moving abroad\n\n## User\nI live in Lisbon.\n\n## ChatGPT\n{THEIRS}\n\n## User\nThanks!\n"


def test_a_chatgpt_export_gives_only_the_persons_turns(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-20", CHAT, source="chatgpt")
    assert refresh(tmp_path)["others_words"] == {"ai_chat": 1}
    assert kept(tmp_path) == {"Lives in Lisbon"}


def test_a_chat_marked_by_role_headings_gives_only_the_persons_turns(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-20", f"## You\nI live in Lisbon.\n\n### Claude\n{THEIRS}\n")
    assert refresh(tmp_path)["others_words"] == {"ai_chat": 1}
    assert kept(tmp_path) == {"Lives in Lisbon"}


def test_a_chat_marked_by_bold_labels_gives_only_the_persons_turns(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-20", f"**Me:** I live in Lisbon.\n\n**Assistant:** {THEIRS}\n")
    refresh(tmp_path)
    assert kept(tmp_path) == {"Lives in Lisbon"}


def test_a_claude_export_with_emoji_roles_and_times_gives_only_the_persons_turns(tmp_path: Path) -> None:
    # As a Claude exporter writes them: `source: claude.ai`, "## 👤 我 · time" and "## 🤖 Claude · time".
    body = ("> [!abstract] 摘要\n> The person asked about moving.\n\n## 👤 我 · 2026-11-20 11:01\n\n我住在上海。\n\n"
            f"## 🤖 Claude · 2026-11-20 11:02\n\n我住在北京。{THEIRS}\n")
    short(tmp_path, "2026-11-20", body, source="claude.ai")
    assert refresh(tmp_path)["others_words"] == {"ai_chat": 1}
    assert kept(tmp_path) == {"住在上海"}


def test_a_chat_whose_roles_are_written_in_chinese_gives_only_the_persons_turns(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-20", f"## 用户\n我住在上海。\n\n## 助手\n我住在北京。{THEIRS}\n")
    refresh(tmp_path)
    assert kept(tmp_path) == {"住在上海"}


def test_a_heading_naming_ai_alone_is_a_topic_not_a_chat(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-20", "## AI\nI live in Berlin.\n")
    assert refresh(tmp_path)["others_words"] == {}
    assert kept(tmp_path) == {BERLIN}


# Quotations inside the person's own notes


def test_a_block_quote_in_an_own_note_is_not_kept(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-20", f"I live in Lisbon.\n\n> {THEIRS}\n")
    assert refresh(tmp_path)["others_words"] == {"quotes": 1}
    assert kept(tmp_path) == {"Lives in Lisbon"}


def test_a_quote_callout_in_an_own_note_is_not_kept(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-20", f"I live in Lisbon.\n\n> [!quote] Jane Doe\n> {THEIRS}\n")
    refresh(tmp_path)
    assert kept(tmp_path) == {"Lives in Lisbon"}


def test_a_note_callout_the_person_wrote_is_kept(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-20", "> [!note] Where I am\n> I live in Lisbon.\n")
    summary = refresh(tmp_path)
    assert kept(tmp_path) == {"Lives in Lisbon"} and summary["others_words"] == {}


# The summary


def test_the_json_summary_counts_others_words_by_reason(tmp_path: Path) -> None:
    whole_vault(tmp_path)
    note(tmp_path, "Clippings/a.md")
    note(tmp_path, "Readwise/b.md")
    note(tmp_path, "Readwise/c.md")
    note(tmp_path, "chat.md", CHAT, source="claude")
    note(tmp_path, "mine.md", f"I love tea.\n\n> {THEIRS}")
    assert refresh(tmp_path)["others_words"] == {"clipping": 1, "highlights": 2, "ai_chat": 1, "quotes": 1}


def test_the_text_summary_says_how_many_notes_were_someone_elses(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-20", THEIRS, tags=["clippings"], slug="a")
    short(tmp_path, "2026-11-21", CHAT, source="chatgpt", slug="b")
    result = hylo("refresh", "--vault", tmp_path, "--extractor", "offline", "--today", TODAY)
    assert "Someone else's words, not read as yours: 1 web clipping, 1 AI chat (your turns only)\n" in result.stdout


# The LLM reads the same text


def test_the_llm_is_not_sent_someone_elses_words_for_the_six_dimensions(
        llm: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    short(tmp_path, "2026-11-20", "Ich wohne in Berlin, schreibt die Autorin.", tags=["clippings"], slug="clip")
    short(tmp_path, "2026-11-21", CHAT.replace(THEIRS, "Meine Schwester Ana ist Ärztin."), source="chatgpt", slug="chat")
    short(tmp_path, "2026-11-22", "I love tea.\n\n> Zitat: Berlin ist arm, aber sexy.", slug="quote")
    assert main(["refresh", "--vault", str(tmp_path), "--today", TODAY, "--json"]) == 0
    sent = "\n".join(m["content"] for r in llm.chat_requests for m in r.body["messages"])
    assert "I live in Lisbon." in sent and "I love tea." in sent
    assert [w for w in ("Ich wohne", "Schwester", "Zitat") if w in sent] == []
    assert json.loads(capsys.readouterr().out)["others_words"] == {"clipping": 1, "ai_chat": 1, "quotes": 1}


# init


def test_init_does_not_propose_clippings_or_readwise_and_says_why(tmp_path: Path) -> None:
    note(tmp_path, "Journal/2026-11-20.md", "I live in Lisbon.")
    note(tmp_path, "Clippings/a.md")
    note(tmp_path, "Readwise/b.md")
    out = hylo("init", "--vault", tmp_path, "--yes").stdout
    settings = (tmp_path / ".hylo-memory.toml").read_text(encoding="utf-8")
    assert "Clippings" not in settings and "Readwise" not in settings
    assert "Clippings/" in out and "web clippings, someone else's words: not proposed as your notes" in out
    assert "highlights, someone else's words: not proposed as your notes" in out


# Bounded


@pytest.mark.parametrize("hostile", ["## User\n" * 100_000, "User:\nAssistant:\n" * 50_000, "#a/" * 200_000,
                                     "## Claude " + "-a" * 200_000, "```\n" * 100_000 + "## User\n## AI\n"])
def test_judging_a_hostile_note_costs_linear_time(hostile: str) -> None:
    meta: dict[str, object] = {"tags": ["x"] * 100_000, "author": "a" * 1_000_000, "source": "https://" + "a" * 10**6}
    start = time.perf_counter()
    judge(meta, "a/" * 1000 + "b.md", hostile)
    assert time.perf_counter() - start < 2
