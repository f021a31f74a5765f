"""bench/locomo.py: a known memory is scored exactly — answerable when its items hold the answer, not when they
do not, dates compared as dates, category 5 counted apart. The conversation is the test's own, in LoCoMo's shape."""

import datetime as dt
import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "locomo.py"


def _load():
    spec = importlib.util.spec_from_file_location("locomo", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # puts bench/ on the path for its helper modules
    return module


locomo = _load()
score = sys.modules["locomo_score"]
data = sys.modules["locomo_data"]
evidence = sys.modules["locomo_evidence"]
Returned = score.Returned

QUESTIONS = [
    {"question": "What is the name of Ana's dog?", "answer": "Biscuit", "category": 4, "evidence": ["D1:1"]},
    {"question": "What instrument is Ana learning?", "answer": "the violin", "category": 1, "evidence": ["D2:2"]},
    {"question": "When did Ben run a marathon?", "answer": "June 3, 2023", "category": 2, "evidence": ["D2:1"]},
    {"question": "When did Ben run his marathon?", "answer": "4 June 2023", "category": 2},
    {"question": "When did Ana adopt her dog?", "answer": "May 2023", "category": 2, "evidence": ["D1:2"]},
    {"question": "What is the name of Ben's dog?", "adversarial_answer": "Biscuit", "category": 5},
    {"question": "What did the neighbours say?", "answer": "hello", "category": 4},
]


def conversation(qa: list[dict] = QUESTIONS) -> dict:
    """Two speakers, two sessions: the speakers' turns and their observations, as locomo10.json holds them."""
    return {
        "sample_id": "test-1",
        "conversation": {
            "speaker_a": "Ana", "speaker_b": "Ben",
            "session_1_date_time": "1:00 pm on 8 May, 2023",
            "session_1": [{"speaker": "Ana", "dia_id": "D1:1", "text": "We adopted a dog, Biscuit!"},
                          {"speaker": "Ben", "dia_id": "D1:2",
                           "text": "I still work as a carpenter in Porto, in my uncle's workshop."}],
            "session_2_date_time": "10:00 am on 20 June, 2023",
            "session_2": [{"speaker": "Ben", "dia_id": "D2:1", "text": "I ran a marathon on 3 June."},
                          {"speaker": "Ana", "dia_id": "D2:2", "text": "I started the cello."}],
        },
        "observation": {
            "session_1_observation": {"Ana": [["Ana adopted a dog named Biscuit.", "D1:1"]],
                                      "Ben": [["Ben works as a carpenter in Porto.", "D1:2"]]},
            "session_2_observation": {"Ana": [["Ana started learning the cello.", "D2:2"]],
                                      "Ben": [["Ben ran a marathon on 3 June 2023.", "D2:1"]]},
        },
        "session_summary": {}, "event_summary": {},
        "qa": qa,
    }


@pytest.fixture(scope="module")
def figures(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The harness run once, with the oracle: the memory is the observations, so its score is known."""
    tmp_path = tmp_path_factory.mktemp("locomo")
    data = tmp_path / "data"
    data.mkdir()
    (data / "locomo10.json").write_text(json.dumps([conversation()]), encoding="utf-8")
    out = tmp_path / "figures.json"
    assert locomo.main(["--data", str(data), "--extractor", "oracle", "--workers", "1", "--json", str(out)]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def _verdict(figures: dict, question: str) -> dict:
    index = next(i for i, q in enumerate(QUESTIONS) if q["question"] == question)
    return next(v for v in figures["questions"] if v["index"] == index)


def test_an_answer_the_memory_holds_is_answerable(figures: dict) -> None:
    assert _verdict(figures, "What is the name of Ana's dog?")["recall"] is True


def test_an_answer_the_memory_does_not_hold_is_not_and_is_lost_at_extraction(figures: dict) -> None:
    verdict = _verdict(figures, "What instrument is Ana learning?")
    assert verdict["recall"] is False
    assert verdict["lost"] == "extraction"  # the observations say cello, never violin


def test_dates_are_compared_as_dates_whatever_their_wording(figures: dict) -> None:
    assert _verdict(figures, "When did Ben run a marathon?")["recall"] is True  # "3 June 2023" in the item
    assert _verdict(figures, "When did Ben run his marathon?")["recall"] is False  # 4 June is another day


def test_a_month_is_held_by_an_item_dated_within_it(figures: dict) -> None:
    assert _verdict(figures, "When did Ana adopt her dog?")["recall"] is True  # its `last` is 2023-05-08


def test_category_5_is_counted_apart_by_silence_above_the_floor(figures: dict) -> None:
    total = figures["total"]
    assert total["5"] == {"questions": 1, "silent": 1.0, "empty": 0.0}  # "Ben" alone scores under the floor
    assert total["overall"]["questions"] == 5  # the adversarial question is not among them


def test_a_question_naming_no_speaker_is_left_out_and_counted(figures: dict) -> None:
    assert figures["unattributed_questions"] == 1
    assert figures["total"]["overall"]["recall"] == pytest.approx(3 / 5)


def test_each_speaker_keeps_their_own_observations_only(figures: dict) -> None:
    speakers = figures["conversations"]["1"]["speakers"]
    assert {k: (v["active"], v["fading"]) for k, v in speakers.items()} == {"1:Ana": (2, 0), "1:Ben": (2, 0)}


def test_content_words_are_stemmed_as_recall_stems_them_without_the_speakers_name() -> None:
    units = score.answer_units("Caroline researched adoption agencies", ["Caroline"])
    assert units.terms == {"research", "adopt", "agenc"}
    assert score.answerable("adoption agencies", [Returned("Looked at an adoption agency")]) is True


def test_half_of_the_answers_words_is_enough_and_less_is_not() -> None:
    assert score.answerable("psychology, counseling certification", [Returned("Wants counseling and psychology")])
    assert not score.answerable("psychology, counseling certification", [Returned("Wants a certification")])


def test_a_day_is_not_held_by_the_month_it_falls_in() -> None:
    assert score.answerable("7 May 2023", [Returned("went in May 2023")]) is False
    assert score.answerable("the week before 9 June 2023", [Returned("x", dt.date(2023, 6, 5))]) is True
    assert score.answerable("2022", [Returned("x", dt.date(2023, 1, 2))]) is False


def test_an_answer_of_stop_words_and_names_alone_is_not_judged() -> None:
    assert score.answerable("Caroline", [Returned("anything")], ["Caroline"]) is None


def test_the_openai_extractor_goes_through_the_counting_relay(llm, tmp_path: Path) -> None:
    # The fake model behind the configured base URL: every chat request it saw was counted, with its characters.
    data = tmp_path / "locomo10.json"
    data.write_text(json.dumps([conversation()]), encoding="utf-8")
    out = tmp_path / "figures.json"
    assert locomo.main(["--data", str(data), "--extractor", "openai", "--workers", "1", "--json", str(out)]) == 0
    total = json.loads(out.read_text(encoding="utf-8"))["total"]
    assert total["requests"] == len(llm.chat_requests) > 0
    assert total["chars_sent"] > total["note_chars"] > 0  # the instructions go with every note


def test_evidence_is_found_through_the_ledger_whatever_the_words_of_the_answer(figures: dict) -> None:
    # The item the oracle filed from D2:2's observation (the cello) is returned: found, though the word judge
    # says the answer ("the violin") is not held.
    verdict = _verdict(figures, "What instrument is Ana learning?")
    assert verdict["recall"] is False
    assert verdict["evidence"] == {n: {"any": True, "all": True} for n in ("5", "10", "held")}
    assert _verdict(figures, "What is the name of Ana's dog?")["evidence"]["5"] == {"any": True, "all": True}


def test_evidence_no_observation_of_the_asked_speaker_cites_is_not_judged(figures: dict) -> None:
    # D1:2 is Ben's turn, cited by Ben's observation: Ana's memory could never hold it.
    assert _verdict(figures, "When did Ana adopt her dog?")["evidence"] == {"5": None, "10": None, "held": None}
    assert _verdict(figures, "When did Ben run his marathon?")["evidence"]["5"] is None  # it cites no turn
    assert figures["total"]["overall"]["evidence"]["5"] == {"questions": 3, "any": 1.0, "all": 1.0}


def test_every_item_the_oracle_filed_is_traced_to_its_observation(figures: dict) -> None:
    assert figures["total"]["items_traced"] == figures["total"]["items_asked_of_ledger"] == 4


def test_evidence_found_by_any_turn_and_by_all() -> None:
    question = data.Question(1, 0, 1, "q", "a", None, ("Ana",), ("D1:1", "D2:5", "D3:3"))
    observed = {"D1:1", "D2:5", "D9:9"}  # D3:3 no observation cites: not asked for
    assert evidence.found(question, observed, [("D2:5",), ()]) == {"any": True, "all": False}
    assert evidence.found(question, observed, [("D1:1", "D9:9"), ("D2:5",)]) == {"any": True, "all": True}
    assert evidence.found(question, observed, [("D9:9",)]) == {"any": False, "all": False}
    assert evidence.found(question, {"D9:9"}, [("D9:9",)]) is None


def test_turn_ids_are_read_as_the_file_writes_them_askew_or_not() -> None:
    assert data.turn_ids("D1:3") == ("D1:3",)
    assert data.turn_ids(["D8:6; D9:17", "D4:17, D4:19"]) == ("D8:6", "D9:17", "D4:17", "D4:19")
    assert data.turn_ids(["D:11:26", "D30:05", "D"]) == ("D11:26", "D30:5")


def test_other_extractors_say_evidence_found_is_not_measured() -> None:
    lines = sys.modules["locomo_report"].render_by_k({"extractor": "offline", "total": {}})
    assert lines[0].startswith("evidence found: n/a (extractor offline")


def test_with_notes_the_archive_answers_what_the_memory_does_not_hold(tmp_path: Path) -> None:
    # The uncle is in Ben's note, never in his observations: the archive's passage holds the answer.
    asked = {"question": "Whose workshop does Ben work in?", "answer": "his uncle's", "category": 4,
             "evidence": ["D1:2"]}
    (tmp_path / "locomo10.json").write_text(json.dumps([conversation([*QUESTIONS, asked])]), encoding="utf-8")
    out = tmp_path / "figures.json"
    assert locomo.main(["--data", str(tmp_path), "--extractor", "oracle", "--workers", "1", "--notes",
                        "--json", str(out)]) == 0
    figures = json.loads(out.read_text(encoding="utf-8"))
    verdict = next(v for v in figures["questions"] if v["index"] == len(QUESTIONS))
    assert verdict["recall"] is False
    assert verdict["archive"] == {"5": True, "10": True}
    assert figures["archive"] == "asked"
