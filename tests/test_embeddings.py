"""Recall with embeddings (docs/spec.md §9), against the fake server through the real openai client: items embedded
once (cached by text and model), fused with BM25; a hanging or failing endpoint falls back, and says so."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from cli_helpers import hylo
from vault_helpers import memory_file, opened

from hylo_memory.decay import Dimension
from hylo_memory.extractors.embeddings import EmbeddingSettings, embed
from hylo_memory.pipeline.cli.options import NAMING
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.serving.recall import recall
from hylo_memory.pipeline.state.embedding_cache import EmbeddingCache
from hylo_memory.testing.fake_openai import FakeOpenAI
from hylo_memory.testing.fake_replies import delay, error, raw

ITEMS = ["Loves to run", "Is vegetarian", "Lives in Lisbon", "Drinks green tea", "Reads science fiction"]


def body(*texts: str) -> str:
    return "## Active\n" + "".join(f"- {t} `last:2026-11-01 seen:1`\n" for t in texts) + "\n## Fading\n"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    memory_file(tmp_path, Dimension.preferences, body(*ITEMS))
    return tmp_path


def settings(fake: FakeOpenAI, **more: object) -> Config:
    """The fake as the endpoint, with an embedding model, and time for a recall to embed what it lacks (a loaded
    machine may take longer than the default 0.3 s to reach even a local server); `more` overrides any setting."""
    return Config(**{"base_url": fake.base_url, "api_key": "sk-test-key", "embedding_model": "fake-embed",
                     "embedding_timeout": 5.0, "interactive_embedding_seconds": 5.0, **more})


def test_recall_fuses_bm25_with_the_items_embeddings(vault: Path, fake_openai: FakeOpenAI) -> None:
    result = recall(opened(vault, settings(fake_openai)), "running")
    assert result.ranking == "bm25+embeddings" and result.fallback is None
    assert result.items[0].text == "Loves to run"
    assert all(i.similarity is not None for i in result.items)
    request = fake_openai.embedding_requests[0]
    assert request.body["model"] == "fake-embed"
    assert request.headers["authorization"] == "Bearer sk-test-key"  # the extractor's key, as the chat client sends it


def test_each_item_is_embedded_once_then_read_from_the_cache(vault: Path, fake_openai: FakeOpenAI) -> None:
    first = recall(opened(vault, settings(fake_openai)), "tea")
    assert sorted(fake_openai.embedded) == sorted(["tea", *ITEMS])
    fake_openai.reset()
    second = recall(opened(vault, settings(fake_openai)), "tea")
    assert fake_openai.embedded == ["tea"]  # one request, for the query alone
    assert second.items == first.items and second.ranking == "bm25+embeddings"


def test_only_the_texts_the_cache_lacks_are_sent(vault: Path, fake_openai: FakeOpenAI) -> None:
    recall(opened(vault, settings(fake_openai)), "tea")
    memory_file(vault, Dimension.preferences, body(*ITEMS, "Plays the cello"))
    fake_openai.reset()
    recall(opened(vault, settings(fake_openai)), "music")
    assert fake_openai.embedded == ["music", "Plays the cello"]


def test_the_cache_is_keyed_by_model_too(vault: Path, fake_openai: FakeOpenAI) -> None:
    recall(opened(vault, settings(fake_openai)), "tea")
    fake_openai.reset()
    recall(opened(vault, settings(fake_openai, embedding_model="another-model")), "tea")
    assert sorted(fake_openai.embedded) == sorted(["tea", *ITEMS])


def test_items_are_sent_in_batches_of_embedding_batch(vault: Path, fake_openai: FakeOpenAI) -> None:
    recall(opened(vault, settings(fake_openai, embedding_batch=2)), "tea")
    sizes = [len(r.body["input"]) for r in fake_openai.embedding_requests]
    assert sizes == [1, 2, 2, 1]  # the query alone, then five items


def test_a_hanging_endpoint_falls_back_to_bm25_within_the_timeout(vault: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.enqueue_embeddings(delay(60))  # the query's request
    result = recall(opened(vault, settings(fake_openai, embedding_timeout=0.5)), "running")
    assert result.ranking == "bm25"
    assert result.fallback == "the embedding server did not answer within 0.5 s"
    assert [i.text for i in result.items] == ["Loves to run"]
    assert result.items[0].similarity is None
    assert "Ranked by BM25 alone: embeddings unavailable (the embedding server did not answer within 0.5 s)." \
        in result.to_text(NAMING)


def test_a_failing_endpoint_falls_back_and_the_command_says_so(vault: Path, fake_openai: FakeOpenAI,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYLO_MEMORY_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("HYLO_MEMORY_EMBEDDING_MODEL", "fake-embed")
    fake_openai.enqueue_embeddings(error(500, "the model is overloaded"), error(500, "the model is overloaded"))
    text = hylo("recall", "running", "--vault", vault)
    assert text.exit_code == 0
    assert text.stdout.splitlines() == ["1. Loves to run  (preferences, seen 1, last 2026-11-01)",
                                        "Ranked by BM25 alone: embeddings unavailable "
                                        "(HTTP 500: the model is overloaded)."]
    found = json.loads(hylo("recall", "running", "--vault", vault, "--json").stdout)
    assert found["ranking"] == "bm25" and found["fallback"] == "HTTP 500: the model is overloaded"


def test_an_answer_that_is_not_embeddings_falls_back(vault: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.enqueue_embeddings(raw('{"data": [{"index": 0, "embedding": "not numbers"}]}'))
    result = recall(opened(vault, settings(fake_openai)), "running")
    assert result.ranking == "bm25" and "not valid" in (result.fallback or "")


def test_too_many_or_too_few_vectors_fall_back(vault: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.enqueue_embeddings(raw('{"data": [{"index": 0, "embedding": [0.5, 0.5]}, '
                                       '{"index": 1, "embedding": [0.5, 0.5]}]}'))
    result = recall(opened(vault, settings(fake_openai)), "running")
    assert result.ranking == "bm25" and "2 vectors for 1 texts" in (result.fallback or "")


def test_a_rejected_key_is_never_repeated(vault: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.enqueue_embeddings(error(401, "Incorrect API key provided: sk-test-key"))
    result = recall(opened(vault, settings(fake_openai)), "running")
    assert result.fallback == "HTTP 401: Incorrect API key provided: [api key]"


def test_what_came_before_a_failure_is_kept_and_the_rest_wait_ranked_by_their_words(vault: Path,
                                                                                    fake_openai: FakeOpenAI) -> None:
    fake_openai.enqueue_embeddings(delay(0), delay(0), error(503, "busy"))  # the query, the first batch; not the second
    first = recall(opened(vault, settings(fake_openai, embedding_batch=2)), "tea")
    assert first.ranking == "bm25+embeddings" and first.fallback is None and first.waiting == 3
    assert [i.text for i in first.items][:1] == ["Drinks green tea"]
    fake_openai.reset()
    again = recall(opened(vault, settings(fake_openai, embedding_batch=2)), "tea")
    assert again.waiting == 0
    assert fake_openai.embedded == ["tea", *ITEMS[2:]]


def test_no_embedding_model_sends_nothing(vault: Path, fake_openai: FakeOpenAI) -> None:
    result = recall(opened(vault, Config(base_url=fake_openai.base_url, bundled_embeddings=False)), "running")
    assert result.ranking == "bm25" and result.fallback is None and fake_openai.requests == []


def test_the_cache_is_private_and_beside_the_ledger(vault: Path, fake_openai: FakeOpenAI) -> None:
    recall(opened(vault, settings(fake_openai)), "tea")
    path = vault / "_memory" / ".state" / "embeddings.sqlite"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_the_cache_keeps_only_the_current_items_of_the_current_model(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "cache.sqlite")
    cache.put("m", {"a": [1.0, 0.0], "b": [0.0, 1.0]}, current=["a", "b"])
    cache.put("m", {"c": [0.5, 0.5]}, current=["a", "c"])
    assert cache.get("m", ["a", "b", "c"]) == {"a": [1.0, 0.0], "c": [0.5, 0.5]}
    cache.put("n", {"a": [0.25, 0.75]}, current=["a"])
    assert cache.get("m", ["a"]) == {} and cache.get("n", ["a"]) == {"a": [0.25, 0.75]}


def test_a_damaged_cache_costs_embedding_again_not_the_recall(vault: Path, fake_openai: FakeOpenAI) -> None:
    path = vault / "_memory" / ".state" / "embeddings.sqlite"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database" * 100)
    result = recall(opened(vault, settings(fake_openai)), "running")
    assert result.ranking == "bm25+embeddings" and result.items[0].text == "Loves to run"


def test_embed_returns_vectors_by_text(fake_openai: FakeOpenAI) -> None:
    got = embed(EmbeddingSettings(model="e", base_url=fake_openai.base_url, batch=1), ["a b", "c", "a b"])
    assert set(got.vectors) == {"a b", "c"} and got.failure is None
    assert len(fake_openai.embedding_requests) == 2  # the same text is sent once
