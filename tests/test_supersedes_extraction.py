"""Extractors proposing rule H: a newer fact that replaces an existing item names it in `supersedes`.

The LLM only through the real `openai` client against the fake server on 127.0.0.1.
"""

from __future__ import annotations

import pytest
from vault_helpers import day

from hylo_memory.decay import Dimension, Evidence, MemoryFile, parse
from hylo_memory.domain.sources import Perspective, Source, SourceKind
from hylo_memory.extractors.base import AuthorProfile, Candidate, Extraction
from hylo_memory.extractors.llm.llm import MAX_CLASSIFY_ITEMS, LLMExtractor
from hylo_memory.extractors.offline.offline import OfflineExtractor
from hylo_memory.pipeline.config import load_config
from hylo_memory.testing import FakeOpenAI, error
from hylo_memory.testing.fake_replies import classify_reply, evidence_entry, extraction_reply
from hylo_memory.testing.fixtures import FAKE_KEY

I, P, S = Dimension.identity, Dimension.preferences, Dimension.state
KEY = FAKE_KEY
LISBON = Candidate(dimension=I, text="Lives in Lisbon")
COLD_BREW = Candidate(dimension=P, text="Loves cold brew")


def source(text: str) -> Source:
    return Source(path="_shorts/2026-11-29-a.md", kind=SourceKind.short, date=day("2026-11-29"), text=text,
                  content_hash="h", perspective=Perspective.own)


def memory(**files: list[str]) -> dict[Dimension, MemoryFile | None]:
    """Memory files holding these Active items, by dimension name; the other dimensions absent."""
    found: dict[Dimension, MemoryFile | None] = dict.fromkeys(Dimension)
    for name, texts in files.items():
        lines = "".join(f"- {t} `last:2026-11-01 seen:1`\n" for t in texts)
        found[Dimension(name)] = parse(f"## Active\n{lines}\n## Fading\n", Dimension(name))
    return found


def extract_llm(text: str, existing: list[Candidate]) -> Extraction:
    return LLMExtractor(load_config()).extract([source(text)], AuthorProfile(), existing)


def only(extraction: Extraction) -> Evidence:
    [evidence] = extraction.evidence
    return evidence


def reasons(extraction: Extraction) -> dict[str, int]:
    """Why links were not followed; the evidence itself is kept, never counted as dropped."""
    assert extraction.dropped == []
    return {d.reason: d.count for d in extraction.unlinked}


def user_prompt(fake: FakeOpenAI, index: int = 0) -> str:
    return str(fake.chat_requests[index].body["messages"][1]["content"])


# The LLM extractor


def test_the_prompt_numbers_existing_items_and_asks_for_supersedes(llm: FakeOpenAI) -> None:
    extract_llm("I moved to Porto.", [LISBON])
    system = llm.chat_requests[0].body["messages"][0]["content"]
    assert '"supersedes"' in system and "replaces" in system
    assert "1. [identity] Lives in Lisbon" in user_prompt(llm)


def test_the_reply_schema_requires_supersedes_beside_restates(llm: FakeOpenAI) -> None:
    extract_llm("I moved to Porto.", [LISBON])
    schema = llm.chat_requests[0].body["response_format"]["json_schema"]["schema"]
    assert schema["$defs"]["EvidenceEntry"]["required"][-2:] == ["restates", "supersedes"]


def test_an_identity_fact_sharing_no_word_with_the_note_is_still_shown_to_be_replaced(llm: FakeOpenAI) -> None:
    extract_llm("I moved to Porto.", [Candidate(dimension=P, text="Loves cold brew"), LISBON])
    user = user_prompt(llm)
    assert "[identity] Lives in Lisbon" in user and "cold brew" not in user


def test_a_valid_supersedes_number_gives_that_items_text(llm: FakeOpenAI) -> None:
    llm.enqueue(extraction_reply(evidence_entry("identity", "Lives in Porto", supersedes=1)))
    extraction = extract_llm("I moved to Porto.", [LISBON])
    assert only(extraction).supersedes == "Lives in Lisbon"
    assert extraction.dropped == []


def test_an_unknown_supersedes_number_is_ignored_and_counted(llm: FakeOpenAI) -> None:
    llm.enqueue(extraction_reply(evidence_entry("identity", "Lives in Porto", supersedes=7)))
    extraction = extract_llm("I moved to Porto.", [LISBON])
    assert only(extraction).supersedes is None and only(extraction).text == "Lives in Porto"
    assert reasons(extraction) == {"an unknown item number in supersedes (kept without it)": 1}


def test_superseding_an_item_of_another_dimension_is_ignored_and_counted(llm: FakeOpenAI) -> None:
    llm.enqueue(extraction_reply(evidence_entry("preferences", "Dislikes Lisbon", supersedes=1)))
    extraction = extract_llm("I dislike Lisbon now.", [LISBON])
    assert only(extraction).supersedes is None
    assert reasons(extraction) == {"supersedes an item of another dimension (kept without it)": 1}


def test_superseding_the_item_it_restates_is_ignored_and_counted(llm: FakeOpenAI) -> None:
    llm.enqueue(extraction_reply(evidence_entry("identity", "Lives in Lisbon", restates=1, supersedes=1)))
    extraction = extract_llm("I live in Lisbon.", [LISBON])
    evidence = only(extraction)
    assert (evidence.matches, evidence.supersedes) == ("Lives in Lisbon", None)
    assert reasons(extraction) == {"supersedes the item it restates (kept without it)": 1}


def test_superseding_an_item_of_the_very_same_words_is_ignored(llm: FakeOpenAI) -> None:
    llm.enqueue(extraction_reply(evidence_entry("identity", "lives in Lisbon.", supersedes=1)))
    extraction = extract_llm("I live in Lisbon.", [LISBON])
    assert only(extraction).supersedes is None
    assert reasons(extraction) == {"supersedes the item it restates (kept without it)": 1}


def test_a_reply_without_supersedes_still_parses(llm: FakeOpenAI) -> None:
    llm.enqueue(extraction_reply({"dimension": "identity", "text": "Lives in Porto", "source": "S1", "restates": None}))
    extraction = extract_llm("I moved to Porto.", [LISBON])
    assert only(extraction).supersedes is None and extraction.dropped == []


def test_the_careful_fake_model_supersedes_a_reversed_liking(llm: FakeOpenAI) -> None:
    extraction = extract_llm("I stopped liking cold brew.", [COLD_BREW])
    assert only(extraction).text == "No longer likes cold brew"
    assert only(extraction).supersedes == "Loves cold brew"


# classify, for `remember`


def classify(text: str, files: dict[Dimension, MemoryFile | None] | None,
             dimension: Dimension | None = None) -> tuple[Dimension, str, str | None]:
    decision = LLMExtractor(load_config()).classify(text, dimension, None, memory=files)
    return decision.dimension, decision.text, decision.supersedes


def test_classify_shows_the_active_items_numbered(llm: FakeOpenAI) -> None:
    llm.enqueue(classify_reply("identity", "Moved to Porto", True))
    classify("I moved to Porto", memory(identity=["Lives in Lisbon"], preferences=["Loves cold brew"]))
    user = user_prompt(llm)
    assert user.startswith("Statement: I moved to Porto\n")
    assert "[identity] Lives in Lisbon" in user and "[preferences] Loves cold brew" in user
    assert '"supersedes"' in llm.chat_requests[0].body["messages"][0]["content"]


def test_classify_with_memory_gives_the_models_supersedes(llm: FakeOpenAI) -> None:
    llm.enqueue(classify_reply("identity", "Moved to Porto", True, supersedes=1))
    result = classify("I moved to Porto", memory(identity=["Lives in Lisbon"]))
    assert result == (I, "Moved to Porto", "Lives in Lisbon")


def test_classify_shows_only_the_given_dimensions_items(llm: FakeOpenAI) -> None:
    llm.enqueue(classify_reply("identity", "Moved to Porto", True, supersedes=1))
    result = classify("I moved to Porto", memory(identity=["Lives in Lisbon"], preferences=["Loves cold brew"]), I)
    assert "cold brew" not in user_prompt(llm) and result[2] == "Lives in Lisbon"


@pytest.mark.parametrize(("number", "why"), [(9, "an unknown number"), (2, "an item of another dimension")])
def test_classify_ignores_an_invalid_supersedes(llm: FakeOpenAI, number: int, why: str) -> None:
    llm.enqueue(classify_reply("identity", "Moved to Porto", True, supersedes=number))
    files = memory(identity=["Lives in Lisbon"], preferences=["Loves cold brew"])
    assert classify("I moved to Porto", files) == (I, "Moved to Porto", None)


def test_classify_ignores_superseding_the_very_fact_stated(llm: FakeOpenAI) -> None:
    llm.enqueue(classify_reply("identity", "Lives in Lisbon", True, supersedes=1))
    assert classify("I live in Lisbon", memory(identity=["Lives in Lisbon"]))[2] is None


def test_classify_without_memory_still_works_and_shows_no_items(llm: FakeOpenAI) -> None:
    llm.enqueue(classify_reply("state", "Nervous about Friday's demo", False, supersedes=1))
    decision = LLMExtractor(load_config()).classify("nervous about friday's demo", None, None)
    assert (decision.dimension, decision.text, decision.supersedes) == (S, "Nervous about Friday's demo", None)
    assert "Existing items" not in user_prompt(llm)


def test_classify_shows_at_most_the_cap_of_items_those_sharing_words_first(llm: FakeOpenAI) -> None:
    many = [f"Uses tool number {i}" for i in range(MAX_CLASSIFY_ITEMS + 20)] + ["Loves cold brew"]
    llm.enqueue(classify_reply("preferences", "No longer likes cold brew", True, supersedes=1))
    result = classify("I stopped liking cold brew", memory(preferences=many))
    user = user_prompt(llm)
    assert f"{MAX_CLASSIFY_ITEMS}. [" in user and f"{MAX_CLASSIFY_ITEMS + 1}. [" not in user
    assert "1. [preferences] Loves cold brew" in user and result[2] == "Loves cold brew"


def test_classify_falls_back_offline_with_memory_when_the_model_is_unreachable(llm: FakeOpenAI) -> None:
    llm.handler = lambda body: error(503, "down")
    result = classify("I don't like cold brew anymore", memory(preferences=["Loves cold brew"]))
    assert result == (P, "No longer likes cold brew", "Loves cold brew")


# The offline extractor


def extract_offline(text: str, *existing: Candidate) -> Evidence:
    return only(OfflineExtractor().extract([source(text)], AuthorProfile(), list(existing)))


@pytest.mark.parametrize(("note", "old", "new"), [
    ("I dislike cold brew now.", "Loves cold brew", "Dislikes cold brew now"),
    ("I don't like cold brew anymore.", "Loves cold brew", "No longer likes cold brew"),
    ("I stopped liking cold brew.", "Likes cold brew", "No longer likes cold brew"),
    ("I no longer like Cold Brew!", "Loves cold brew.", "No longer likes Cold Brew"),
    ("I love cold brew now.", "Dislikes cold brew", "Loves cold brew now"),
    ("I love cold brew.", "No longer likes cold brew", "Loves cold brew"),
    ("我不喜欢喝茶。", "喜欢喝茶", "不喜欢喝茶"),
    ("我已经不喜欢喝茶了。", "很喜欢喝茶", "不喜欢喝茶了"),
    ("我喜欢喝茶。", "不喜欢喝茶", "喜欢喝茶"),
    ("我讨厌开会。", "喜欢开会", "讨厌开会"),
    ("我爱开会。", "讨厌开会", "爱开会"),
])
def test_offline_a_reversed_liking_supersedes_the_old_one(note: str, old: str, new: str) -> None:
    evidence = extract_offline(note, Candidate(dimension=P, text=old))
    assert (evidence.text, evidence.supersedes) == (new, old)


@pytest.mark.parametrize(("note", "old", "why"), [
    ("I dislike tea.", "Loves cold brew", "another thing"),
    ("I dislike cold brew coffee.", "Loves cold brew", "another thing, however close"),
    ("I love cold brew.", "Likes cold brew", "the same side"),
    ("I no longer love cold brew.", "Likes cold brew", "no longer loving is not disliking"),
    ("I prefer tea.", "Dislikes tea", "a preference over something states no stance"),
    ("我不喜欢喝咖啡。", "喜欢喝茶", "another thing"),
])
def test_offline_supersedes_nothing_it_is_not_certain_of(note: str, old: str, why: str) -> None:
    assert extract_offline(note, Candidate(dimension=P, text=old)).supersedes is None


def test_offline_only_reverses_a_liking_kept_in_preferences() -> None:
    assert extract_offline("I dislike cold brew.", Candidate(dimension=S, text="Loves cold brew")).supersedes is None


def test_offline_moving_city_supersedes_nothing_without_a_model() -> None:
    # A second home is not impossible: only the model may judge "Lives in Porto" replaces "Lives in Lisbon".
    assert extract_offline("I moved to Porto.", LISBON).supersedes is None


def test_a_plain_negation_is_still_not_read() -> None:
    assert OfflineExtractor().extract([source("I don't like cold brew.")], AuthorProfile(), [COLD_BREW]).evidence == []


# The offline classify, for `remember`

@pytest.mark.parametrize(("statement", "old", "kept"), [
    ("I dislike cold brew", "Loves cold brew", "Dislikes cold brew"),
    ("I stopped liking cold brew.", "Loves cold brew", "No longer likes cold brew"),
    ("我不喜欢喝茶", "喜欢喝茶", "不喜欢喝茶"),
    ("我喜欢喝茶", "讨厌喝茶", "喜欢喝茶"),
    # not read whole: the person's words in the third person
    ("I don't like cold brew anymore, it got too bitter", "Loves cold brew",
     "Doesn't like cold brew anymore, it got too bitter"),
])
def test_offline_classify_supersedes_a_reversed_liking(statement: str, old: str, kept: str) -> None:
    decision = OfflineExtractor().classify(statement, None, None, memory=memory(preferences=[old, "Uses Neovim"]))
    assert (decision.dimension, decision.text, decision.supersedes) == (P, kept, old)


def test_offline_classify_supersedes_no_fading_item() -> None:
    files = memory()
    files[P] = parse("## Active\n\n## Fading\n- Loves cold brew `last:2026-01-01 seen:1`\n", P)
    assert OfflineExtractor().classify("I dislike cold brew", None, None, memory=files).supersedes is None


def test_offline_classify_supersedes_nothing_when_two_items_would_be_reversed() -> None:
    files = memory(preferences=["Loves cold brew", "Likes tea"])
    decision = OfflineExtractor().classify("I stopped liking cold brew. I dislike tea.", None, None, memory=files)
    assert decision.supersedes is None


def test_offline_classify_of_an_unrelated_dislike_supersedes_nothing() -> None:
    decision = OfflineExtractor().classify("I dislike tea", None, None, memory=memory(preferences=["Loves cold brew"]))
    assert decision.supersedes is None


def test_offline_classify_without_memory_still_works() -> None:
    decision = OfflineExtractor().classify("I dislike cold brew", None, None)
    assert (decision.dimension, decision.text, decision.supersedes) == (P, "Dislikes cold brew", None)

