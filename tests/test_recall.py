"""`hylo-memory recall QUERY` (docs/spec.md §9): BM25 over every item, English stemmed, CJK as bigrams."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from cli_helpers import hylo, one_line
from vault_helpers import memory_body, memory_file, opened, snapshot_but_memo

from hylo_memory.decay import Dimension, Item
from hylo_memory.decay.recall.recall import BM25, Entry, analyse, fuse, query_terms, rank
from hylo_memory.decay.words import is_cjk
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.serving.recall import recall

TODAY = dt.date(2026, 11, 30)



@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    memory_file(root, Dimension.identity, memory_body("Name is Ana Silva | 2026-11-01 | 3 | pinned",
                                                 "是素食者 | 2026-11-20 | 1 | pinned",
                                                 "Lives in Lisbon | 2026-10-01 | 1"))
    memory_file(root, Dimension.preferences, memory_body("Loves to run | 2026-11-28 | 4",
                                                    "Prefers terse answers | 2026-09-15 | 1",
                                                    "Drinks coffee at the café every morning | 2026-11-02 | 2",
                                                    fading=("Enjoys running in the rain | 2026-07-01 | 2",)))
    memory_file(root, Dimension.goals, memory_body("Run a half marathon in spring | 2026-11-25 | 1"))
    memory_file(root, Dimension.state, memory_body("最近压力很大 | 2026-11-29 | 1"))
    return root


def found(vault: Path, query: str, *args: str) -> list[dict]:
    result = hylo("recall", query, "--vault", vault, "--json", *args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)["items"]


def texts(vault: Path, query: str, *args: str) -> list[str]:
    return [i["text"] for i in found(vault, query, *args)]


def test_an_inflected_query_finds_the_item_by_its_stem(vault: Path) -> None:
    assert texts(vault, "running")[0] == "Loves to run"
    assert set(texts(vault, "running")) == {"Loves to run", "Enjoys running in the rain",
                                            "Run a half marathon in spring"}


def test_a_chinese_query_finds_the_chinese_item(vault: Path) -> None:
    assert texts(vault, "素食") == ["是素食者"]
    assert texts(vault, "压力") == ["最近压力很大"]


def test_a_one_character_chinese_query_finds_the_items_holding_it(vault: Path) -> None:
    assert texts(vault, "素") == ["是素食者"]


def test_case_accents_and_full_width_forms_are_one_word(vault: Path) -> None:
    assert texts(vault, "CAFE") == ["Drinks coffee at the café every morning"]
    assert texts(vault, "ｃｏｆｆｅｅ") == ["Drinks coffee at the café every morning"]


def test_mixed_english_and_chinese_text_is_read_word_by_word_and_pair_by_pair() -> None:
    assert analyse("I love 寿司 and RUNNING").terms == ("i", "love", "寿司", "and", "run")
    assert analyse("Python编程很有趣").terms == ("python", "编程", "程很", "很有", "有趣")
    assert analyse("私はコーヒー").terms[:2] == ("私は", "はコ")
    assert analyse("커피를 좋아해요").terms == ("커피", "피를", "좋아", "아해", "해요")
    assert analyse("猫 and 狗").terms == ("猫", "and", "狗", "~cat", "~dog")  # a one-character run is itself


def test_stop_and_question_words_leave_a_query_and_a_query_of_nothing_else_has_no_term() -> None:
    assert query_terms("what do I like to eat") == ["eat"]
    assert query_terms("what do I like?") == ["like"]  # a word that says what is asked, when nothing else is
    assert query_terms("who is she") == []


def test_fading_items_are_included_and_marked(vault: Path) -> None:
    rain = next(i for i in found(vault, "rain"))
    assert rain["text"] == "Enjoys running in the rain" and rain["fading"] is True
    result = hylo("recall", "rain", "--vault", vault)
    assert result.stdout == "1. Enjoys running in the rain  (preferences, Fading, seen 2, last 2026-07-01)\n"


def test_equal_scores_go_pinned_first_then_most_seen_then_most_recent(tmp_path: Path) -> None:
    # One word and one length each: BM25 scores them alike, so only the tie-breaks order them.
    memory_file(tmp_path, Dimension.preferences, memory_body("Likes green tea | 2026-11-01 | 1",
                                                       "Likes black tea | 2026-11-20 | 1",
                                                       "Likes white tea | 2026-10-01 | 5",
                                                       "Likes jasmine tea | 2026-01-01 | 1 | pinned"))
    assert texts(tmp_path, "tea") == ["Likes jasmine tea", "Likes white tea", "Likes black tea", "Likes green tea"]
    scores = {i["score"] for i in found(tmp_path, "tea")}
    assert len(scores) == 1


def test_the_best_match_comes_before_a_pinned_weaker_one(tmp_path: Path) -> None:
    memory_file(tmp_path, Dimension.preferences, memory_body("Likes tea and biscuits with friends on sundays | 2026-01-01 | 1 | pinned",
                                                       "Tea | 2026-11-01 | 1"))
    assert texts(tmp_path, "tea") == ["Tea", "Likes tea and biscuits with friends on sundays"]


def test_limit_caps_the_items(vault: Path) -> None:
    assert len(texts(vault, "run", "--limit", "2")) == 2
    assert texts(vault, "run", "--limit", "2") == texts(vault, "run")[:2]


@pytest.mark.parametrize("limit", ["0", "-1", "1001"])
def test_a_limit_out_of_range_is_a_one_line_usage_error(vault: Path, limit: str) -> None:
    result = hylo("recall", "run", "--vault", vault, "--limit", limit)
    assert result.exit_code == 2 and "--limit" in one_line(result.stderr)


def test_json_gives_each_item_with_its_place_and_scores(vault: Path) -> None:
    result = json.loads(hylo("recall", "run", "--vault", vault, "--json").stdout)
    assert result["query"] == "run" and result["limit"] == 10
    assert result["ranking"] == "bm25" and result["fallback"] is None
    first = result["items"][0]
    assert first == {"rank": 1, "dimension": "preferences", "text": "Loves to run", "fading": False, "pinned": False,
                     "seen": 4, "last": "2026-11-28", "score": first["bm25"], "bm25": first["bm25"],
                     "similarity": None}
    assert [i["rank"] for i in result["items"]] == list(range(1, len(result["items"]) + 1))


def test_text_gives_one_line_an_item(vault: Path) -> None:
    lines = hylo("recall", "lisbon", "--vault", vault).stdout.splitlines()
    assert lines == ["1. Lives in Lisbon  (identity, seen 1, last 2026-10-01)"]


def test_no_match_says_so(vault: Path) -> None:
    result = hylo("recall", "kubernetes", "--vault", vault)
    assert result.exit_code == 0 and result.stdout.startswith("No item matches 'kubernetes'. Recall matches words")


def test_an_empty_memory_matches_nothing(tmp_path: Path) -> None:
    assert recall(opened(tmp_path, Config()), "anything").items == []


@pytest.mark.parametrize("query", ["   ", "x" * 1001])
def test_a_blank_or_huge_query_is_a_usage_mistake_in_one_line(vault: Path, query: str) -> None:
    result = hylo("recall", query, "--vault", vault)
    assert result.exit_code == 2 and "query" in one_line(result.stderr)


def test_recall_writes_nothing_but_its_read_memo_without_embeddings(vault: Path) -> None:
    before = snapshot_but_memo(vault)
    found(vault, "run")
    assert snapshot_but_memo(vault) == before


def test_a_hand_broken_memory_file_is_not_searched_and_is_named(vault: Path) -> None:
    memory_file(vault, Dimension.goals, "## Active\n- Ship it `last:2026-13-45 seen:x`\n")
    result = hylo("recall", "run", "--vault", vault)
    assert result.exit_code == 0 and "Loves to run" in result.stdout.splitlines()[0]
    assert result.stdout.splitlines()[-1].startswith("Not searched: ") and "_goals.md:6:" in result.stdout


def test_every_hand_broken_memory_file_is_named_on_a_line_of_its_own_with_its_line(vault: Path) -> None:
    goals = memory_file(vault, Dimension.goals, "## Active\n- Ship it `last:2026-13-45 seen:1`\n")
    state = memory_file(vault, Dimension.state, "## Active\n- Tired `last:2026-11-01 seen:x`\n")
    unread = [line for line in hylo("recall", "run", "--vault", vault).stdout.splitlines() if "Not searched" in line]
    assert unread == [line for line in unread if line.startswith("Not searched: ")] and len(unread) == 2
    assert f"{goals}:6: " in unread[0] and f"{state}:6: " in unread[1]


def entries(*specs: tuple[str, int, bool]) -> list[Entry]:
    return [Entry(Dimension.preferences, Item(text=t, last=TODAY, seen=seen, pinned=pin), False)
            for t, seen, pin in specs]


def test_fusion_weighs_bm25_over_its_best_and_the_cosine_over_the_memorys_spread() -> None:
    fused = fuse({0: 4.0, 1: 2.0}, [0.80, 0.90, 0.85, 0.70], floor=0.75)
    assert fused == pytest.approx({0: 0.3 + 0.7 * 0.5, 1: 0.15 + 0.7, 2: 0.7 * 0.75})  # 3: no word, under the floor


def test_an_item_not_embedded_yet_is_scored_by_its_words_alone_on_the_same_scale() -> None:
    fused = fuse({0: 4.0, 1: 2.0, 3: 1.0}, [0.80, None, 0.90, None], floor=0.75)
    # 1 and 3 have no cosine: their share of the best BM25, whole; the spread is of the cosines known (0.8 to 0.9).
    assert fused == pytest.approx({0: 0.3, 1: 0.5, 2: 0.7, 3: 0.25})


def test_an_item_not_embedded_yet_and_matching_no_word_is_not_ranked() -> None:
    found = entries(("Is vegetarian", 1, False), ("Loves to run", 1, False))
    hits = rank(found, BM25([e.item.text for e in found]), "running", 10, TODAY, similarities=[None, None])
    assert [(h.at, h.similarity) for h in hits] == [(1, None)]


def test_with_similarities_an_item_bm25_misses_can_be_found() -> None:
    found = entries(("Is vegetarian", 1, False), ("Loves to run", 1, False), ("Lives in Lisbon", 1, False))
    index = BM25([e.item.text for e in found])
    assert rank(found, index, "what do I eat", 10, TODAY) == []
    hits = rank(found, index, "what do I eat", 10, TODAY, similarities=[0.9, 0.1, -0.2])
    assert [h.at for h in hits] == [0, 1]  # nothing opposite or orthogonal to the query is ranked
    assert hits[0].similarity == 0.9 and hits[0].bm25 == 0.0


def test_fusion_ranks_first_what_both_rankings_place_high() -> None:
    found = entries(("Run", 1, False), ("Run club on thursdays", 1, False),
                    ("Likes to run far away every single sunday morning", 1, False))
    index = BM25([e.item.text for e in found])
    assert [h.at for h in rank(found, index, "run", 10, TODAY)] == [0, 1, 2]  # shorter, higher
    # BM25 places 1 second and the embeddings first: 0.3 × (its share of the best BM25) + 0.7 beats 0's 0.3 × 1.
    fused = rank(found, index, "run", 10, TODAY, similarities=[0.1, 0.9, 0.5])
    assert [h.at for h in fused][0] == 1


def test_the_hybrid_never_drops_an_exact_keyword_match_from_the_top_k() -> None:
    # Four items hold the query's word; five others only resemble it. By fusion alone, the top 3 would be
    # match, resemblance, match: the third match by BM25 would be pushed out.
    found = entries(*((f"Marathon note {n}", 1, False) for n in range(4)),
                    *((f"Jogs along the river, route {n}", 1, False) for n in range(5)))
    index = BM25([e.item.text for e in found])
    hits = rank(found, index, "marathon", 3, TODAY, similarities=[0.0] * 4 + [0.9] * 5)
    assert {h.at for h in hits} == {0, 1, 2}


def test_an_item_with_only_some_of_the_query_words_may_give_way_to_a_closer_meaning() -> None:
    found = entries(("Marathon tips", 1, False), ("Runs a marathon in Lisbon", 1, False),
                    *((f"Jogs in Lisbon, route {n}", 1, False) for n in range(3)))
    index = BM25([e.item.text for e in found])
    hits = rank(found, index, "lisbon marathon", 2, TODAY, similarities=[0.0, 0.2, 0.95, 0.9, 0.9])
    assert 1 in {h.at for h in hits}  # the exact match stays; "Marathon tips" holds one word of two


def test_cosines_are_scaled_within_each_script_so_an_item_in_the_other_language_can_come_first() -> None:
    # A Chinese question's cosines with English items run lower than with Chinese ones: the best English item is
    # as good a match among its own as the best Chinese one among theirs.
    texts = ["Lives in Lisbon", "Plays padel", "喜欢喝茶", "最近睡得不好"]
    cosines = [0.84, 0.80, 0.86, 0.90]
    fused = fuse({}, cosines, 0.79, [is_cjk(t) for t in texts])
    assert fused[0] == fused[3] == pytest.approx(0.7) and fused[1] == fused[2] == 0.0
    assert fuse({}, cosines, 0.79)[0] < fuse({}, cosines, 0.79)[3]  # one scale for all: the language wins


def test_a_text_is_cjk_when_its_cjk_letters_outnumber_its_other_words() -> None:
    assert is_cjk("在 Tramline 工作了两年") and not is_cjk("Name is Lin Xiao (林晓)") and not is_cjk("Uses Neovim")
