"""The checks an answer's entries go through keep right answers and drop bad ones (issue 38, point 6).

tests/data/answer_checks.jsonl holds entries as assistants write them, English and Chinese, each labelled
right (titles holding 那些 or "This", opinions with no subject, aphorisms, endings that only look cut) or
bad (fragments, pronoun-only lines, someone else's words, empty opinions). The whole set goes through
`read_evidence`, the function that reads a model's reply and an assistant's answer alike; then one test a
rule.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from mcp_helpers import McpServer, ok
from proc_helpers import cli_env, copy_example_vault
from vault_helpers import opened

from hylo_memory.decay import Dimension
from hylo_memory.domain.sources import Source, SourceKind
from hylo_memory.extractors.base import MAX_LISTED
from hylo_memory.extractors.llm.evidence_reply import Asked, read_evidence
from hylo_memory.extractors.offline.attributed import OTHERS_WORDS, why_not_kept
from hylo_memory.extractors.offline.standalone import CUT_SHORT, EMPTY_OPINION, NO_CLAIM, PRONOUN_ONLY, why_not_alone
from hylo_memory.pipeline.cli.options import NAMING
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.reading.lease import notes_to_read, propose

LABELLED = Path(__file__).parent / "data" / "answer_checks.jsonl"
TODAY = dt.date(2026, 11, 30)


def labelled() -> list[dict[str, Any]]:
    return [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines() if line.strip()]


def kept_by_the_reader(entries: list[dict[str, Any]]) -> list[bool]:
    """Each entry, one a source, read as an answer is: whether it was kept."""
    sources = {f"S{i}": Source(path=f"_shorts/{i}.md", kind=SourceKind.short, date=TODAY, text="…", content_hash="")
               for i in range(1, len(entries) + 1)}
    answer = {"evidence": [{"dimension": e["dimension"], "text": e["text"], "source": f"S{i}", "restates": None}
                           for i, e in enumerate(entries, start=1)]}
    read = read_evidence(json.dumps(answer, ensure_ascii=False), Asked(sources=sources, items={}), cap=1)
    kept = {e.source for e in read.evidence}
    return [f"_shorts/{i}.md" in kept for i in range(1, len(entries) + 1)]


def test_the_labelled_set_is_half_right_and_half_bad_in_both_languages() -> None:
    entries = labelled()
    right = [e for e in entries if e["right"]]
    assert len(entries) >= 60 and abs(len(right) - len(entries) / 2) <= len(entries) / 10
    assert {e["kind"] for e in right} == {"title", "opinion", "aphorism", "complete_ending"}
    assert {e["kind"] for e in entries if not e["right"]} == {"fragment", "pronoun", "others_words", "empty_opinion"}
    chinese = [e for e in entries if any("\u4e00" <= c <= "\u9fff" for c in e["text"])]
    assert len(entries) / 4 <= len(chinese) <= 3 * len(entries) / 4


def test_the_checks_keep_right_answers_and_drop_bad_ones() -> None:
    entries = labelled()
    kept = kept_by_the_reader(entries)
    right = [k for e, k in zip(entries, kept, strict=True) if e["right"]]
    bad = [not k for e, k in zip(entries, kept, strict=True) if not e["right"]]
    wrong = [(e["kind"], e["text"]) for e, k in zip(entries, kept, strict=True) if k != e["right"]]
    print(f"right kept {sum(right)}/{len(right)} ({sum(right) / len(right):.0%}), "
          f"bad dropped {sum(bad)}/{len(bad)} ({sum(bad) / len(bad):.0%}); misjudged: {wrong}")
    assert sum(right) / len(right) >= 0.95, wrong
    assert sum(bad) / len(bad) >= 0.90, wrong


@pytest.mark.parametrize("text", ["喜欢读《明朝那些事儿》", "最喜欢的电影是《这个杀手不太冷》",
                                  "Recommends 'This Is Marketing' to new founders"])
def test_a_title_in_its_marks_is_a_name_whatever_its_words(text: str) -> None:
    assert why_not_alone(text) is None


def test_a_demonstrative_opening_a_title_in_title_case_is_a_name() -> None:
    assert why_not_alone("Rereads This Is Water every year") is None
    assert why_not_alone("Rereads this book every year") == PRONOUN_ONLY


def test_that_after_an_indefinite_pronoun_opens_a_clause() -> None:
    assert why_not_alone("Everyone has something that deserves a 60-second documentary") is None
    assert why_not_alone("Likes that") == PRONOUN_ONLY


def test_a_contraction_is_read_as_its_two_words() -> None:
    assert why_not_alone("Thinks it's fine") == PRONOUN_ONLY
    assert why_not_alone("Thinks it's important to rest every week") is None


def test_so_standing_for_a_claim_says_nothing() -> None:
    assert why_not_alone("Thinks so too") == PRONOUN_ONLY
    assert why_not_alone("Thinks so many meetings are a waste") is None


@pytest.mark.parametrize("text", ["Incoherence is the worst failing a person can fall into",
                                  "Wants a mentor to talk to", "Is looking for a problem worth working on",
                                  "Is unsure what the next side project should be about"])
def test_a_preposition_closing_a_clause_about_a_noun_before_it_ends_the_text(text: str) -> None:
    assert why_not_alone(text) is None


@pytest.mark.parametrize("text", ["Is planning to move to", "Has been reading a lot of", "Prefers working with",
                                  "Wants to spend time with the kids and go to"])
def test_a_preposition_with_no_clause_about_a_noun_is_still_cut(text: str) -> None:
    assert why_not_alone(text) == CUT_SHORT


def test_an_adverb_left_after_to_is_a_cut() -> None:
    assert why_not_alone("Hopes to finally") == CUT_SHORT
    assert why_not_alone("Hopes to move to Porto eventually") is None


def test_a_noun_standing_for_what_the_note_says_next_is_a_cut() -> None:
    assert why_not_alone("Loves the way") == CUT_SHORT
    assert why_not_alone("Loves the way Lisbon looks at dusk") is None


@pytest.mark.parametrize("text", ["因为工作的原因", "Because work is busy"])
def test_a_reason_alone_is_a_cut(text: str) -> None:
    assert why_not_alone(text) == CUT_SHORT


def test_a_reason_with_its_clause_stands() -> None:
    assert why_not_alone("因为喜欢所以坚持了十年") is None
    assert why_not_alone("Because of a knee injury, stopped running") is None


def test_a_time_word_of_years_or_months_is_no_demonstrative() -> None:
    assert why_not_alone("感觉这两年成长很快") is None
    assert why_not_alone("想把这两本书读完") == PRONOUN_ONLY


@pytest.mark.parametrize("text", ["对手冲咖啡是真爱", "对未来的事情不敢多想"])
def test_a_chinese_word_that_only_ends_like_a_verb_ends_the_text(text: str) -> None:
    assert why_not_alone(text) is None


def test_an_opinion_in_two_clauses_makes_a_claim_without_a_subject() -> None:
    assert why_not_alone("觉得余华的书还行，但配不上他的名气") is None
    assert why_not_alone("觉得比较有意思的几篇论文") == NO_CLAIM


@pytest.mark.parametrize("text", ["觉得还不错", "觉得挺好的", "感觉一般", "认为很有道理"])
def test_a_judgement_of_nothing_named_is_an_empty_opinion(text: str) -> None:
    assert why_not_alone(text) == EMPTY_OPINION


def test_an_opinion_of_the_persons_own_state_is_no_empty_opinion() -> None:
    assert why_not_alone("感觉很累") is None


def test_he_or_she_with_no_one_named_before_is_a_pronoun() -> None:
    assert why_not_alone("经常跟他一起打球") == PRONOUN_ONLY
    assert why_not_alone("和女朋友一起养了一只猫，她很喜欢猫") is None


@pytest.mark.parametrize("text", ['"Ship it and see," said Tom', "妈妈说“天冷了要多穿衣服”", "“人生没有白走的路”，朋友说",
                                  '"Stay hungry, stay foolish" — Steve Jobs', "Tom says remote work is overrated",
                                  "老板认为加班是应该的", "According to Paul Graham, startups should stay small"])
def test_a_line_or_a_view_given_to_someone_else_is_dropped(text: str) -> None:
    assert why_not_kept(text, Dimension.beliefs) == OTHERS_WORDS


@pytest.mark.parametrize("text", ["Often says “less is more”", "常说“慢慢来比较快”", "Nobody thinks about the long run",
                                  "Loves “Dune” — the book, not the film", "老是觉得自己不够好"])
def test_the_persons_own_saying_is_kept(text: str) -> None:
    assert why_not_kept(text, Dimension.beliefs) is None


def test_a_people_entry_is_not_judged_for_someone_elses_words() -> None:
    assert why_not_kept("Ines — sister, says she is moving to Berlin", Dimension.people) is None


def test_the_assistant_is_told_each_dropped_entry_and_its_reason_one_a_line(tmp_path: Path) -> None:
    vault = copy_example_vault(tmp_path / "vault")
    config = Config(vault=str(vault))
    handed = notes_to_read(opened(vault, config), "tester", TODAY)
    source = handed.sources[0].id
    answer = [{"dimension": "preferences", "text": text, "source": source, "restates": None}
              for text in ("Likes it", "Wants to", "Loves black coffee")]
    text = propose(opened(vault, config), handed.lease or "", answer, TODAY).to_text(NAMING, next_with="notes_to_read")
    assert f'  "Likes it": {PRONOUN_ONLY}\n' in text and f'  "Wants to": {CUT_SHORT}\n' in text
    assert "Loves black coffee" not in text.split("Evidence dropped")[1].split("\n\n")[0]


def test_the_entries_named_stop_at_the_limit_and_the_rest_are_counted(tmp_path: Path) -> None:
    vault = copy_example_vault(tmp_path / "vault")
    config = Config(vault=str(vault), max_evidence_per_source=100)
    handed = notes_to_read(opened(vault, config), "tester", TODAY)
    answer = [{"dimension": "preferences", "text": f"Likes it {n} times", "source": handed.sources[0].id,
               "restates": None} for n in range(MAX_LISTED + 5)]
    answer.append({"dimension": "preferences", "text": "Loves black coffee", "source": handed.sources[0].id,
                   "restates": None})
    text = propose(opened(vault, config), handed.lease or "", answer, TODAY).to_text(NAMING, next_with="notes_to_read")
    assert text.count(f": {PRONOUN_ONLY}\n") == MAX_LISTED and "  and 5 more\n" in text


@pytest.mark.slow  # a real `hylo-memory mcp` process, through the SDK's client
def test_propose_memories_answers_with_each_dropped_entry_and_its_reason(tmp_path: Path) -> None:
    vault = copy_example_vault(tmp_path / "vault")
    home = cli_env(tmp_path / "home")
    with McpServer(["mcp", "--vault", str(vault), "--today", TODAY.isoformat()], home, tmp_path / "mcp.log",
                   "scripted-agent") as server:
        handed = server.call("notes_to_read")
        assert isinstance(handed.structured_content, dict)
        batch = handed.structured_content
        answer = [{"dimension": "beliefs", "text": text, "source": batch["sources"][0]["id"], "restates": None}
                  for text in ("Tom says remote work is overrated", "觉得还不错", "Believes small teams ship faster")]
        text = ok(server.call("propose_memories", {"lease": batch["lease"], "evidence": answer}))
    assert f'  "Tom says remote work is overrated": {OTHERS_WORDS}\n' in text
    assert f'  "觉得还不错": {EMPTY_OPINION}\n' in text


def test_the_authors_own_view_in_their_name_is_theirs_not_someone_elses() -> None:
    # An assistant may word an item with the person's name: in Caroline's memory, "Caroline believes …" is her view.
    text = "Caroline believes that loved ones give strength"
    assert why_not_kept(text, Dimension.beliefs, ["Caroline"]) is None
    assert why_not_kept(text, Dimension.beliefs, ["Sam Lee"]) is not None  # another's view is still refused
