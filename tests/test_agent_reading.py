"""The person's assistant as the extractor (docs/spec.md §9.5): batches under leases, answers read entry by entry.

These call the operations both doors call; tests/test_agent_mcp.py drives the same loop through the MCP
SDK's real client, and tests/test_agent_cli.py through `pending` and `apply --lease`."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from freezegun import freeze_time
from proc_helpers import copy_example_vault, memory_texts
from vault_helpers import opened

from hylo_memory.decay import Dimension, Evidence
from hylo_memory.errors import InputError
from hylo_memory.extractors.llm.evidence_reply import OPPOSITE_RESTATES
from hylo_memory.pipeline.cli.options import NAMING
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.reading.apply import apply_evidence
from hylo_memory.pipeline.operations.reading.handed import Handed
from hylo_memory.pipeline.operations.reading.lease import notes_to_read, propose
from hylo_memory.pipeline.operations.serving.status import gather
from hylo_memory.pipeline.state.ledger import Ledger

TODAY = dt.date(2026, 11, 30)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return copy_example_vault(tmp_path / "vault")


def config_for(vault: Path, **settings: Any) -> Config:
    return Config(vault=str(vault), **settings)


def facts(handed: Handed) -> list[dict[str, Any]]:
    """What a scripted assistant finds: one standing-alone fact a note it wrote, none in the rest."""
    return [{"dimension": "state", "text": f"Wrote “{s.title or s.path.rsplit('/', 1)[-1]}”", "source": s.id,
             "restates": None} for s in handed.sources]


def read_all(vault: Path, config: Config, client: str = "tester") -> tuple[list[Handed], list[Evidence]]:
    """The whole loop; the batches handed out and the evidence the assistant gave, as `apply` takes it."""
    batches, given = [], []
    while (handed := notes_to_read(opened(vault, config), client, TODAY)).status == "batch":
        batches.append(handed)
        answer = facts(handed) if handed.kind == "extract" else []
        by_id = {s.id: s for s in handed.sources}
        given += [Evidence(dimension=Dimension(a["dimension"]), text=a["text"], source=by_id[a["source"]].path,
                           date=by_id[a["source"]].date) for a in answer]
        propose(opened(vault, config), handed.lease or "", {"evidence" if handed.kind == "extract" else "preferences": answer},
                TODAY)
    assert handed.status == "done"
    return batches, given


class Loop(NamedTuple):
    vault: Path
    config: Config
    batches: list[Handed]
    given: list[Evidence]


@pytest.fixture(scope="module")
def whole_loop(tmp_path_factory: pytest.TempPathFactory) -> Loop:
    """The example vault read to the end in small batches (several), once for the tests that only look at it."""
    vault = copy_example_vault(tmp_path_factory.mktemp("loop") / "vault")
    config = config_for(vault, assistant_batch_chars=1000)
    return Loop(vault, config, *read_all(vault, config))


def test_the_loop_reads_every_source_of_the_window_and_nothing_waits(whole_loop: Loop) -> None:
    assert len(whole_loop.batches) >= 3
    assert gather(opened(whole_loop.vault, whole_loop.config), NAMING, TODAY).waiting.total == 0


def test_the_loop_keeps_the_memory_apply_keeps_from_the_same_evidence(whole_loop: Loop, tmp_path: Path) -> None:
    other = copy_example_vault(tmp_path / "applied")
    apply_evidence(opened(other, config_for(other)), whole_loop.given, TODAY)
    lines = {name: set((text or "").splitlines()) for name, text in memory_texts(whole_loop.vault / "_memory").items()}
    assert lines == {name: set((text or "").splitlines()) for name, text in memory_texts(other / "_memory").items()}


def test_no_source_is_in_two_batches_and_each_batch_has_its_own_ids(whole_loop: Loop) -> None:
    batches = whole_loop.batches
    paths = [path for b in batches for path in {s.path for s in b.sources}]  # a long note's pieces: one source
    ids = [s.id for b in batches for s in b.sources]
    assert len(paths) == len(set(paths)) and len(ids) == len(set(ids))


def test_a_batch_carries_the_models_instructions_request_and_schema(vault: Path) -> None:
    handed = notes_to_read(opened(vault, config_for(vault)), "tester", TODAY)
    text = handed.to_text("propose_memories")
    assert handed.instructions and handed.instructions in text  # the words the model is sent
    assert "Author profile:" in text and "Existing items:" in text
    assert f'<source id="{handed.sources[0].id}"' in text
    assert handed.answer_schema is not None and handed.answer_schema["required"] == ["evidence"]
    assert handed.lease and handed.lease in text and handed.remaining > 0


def test_an_empty_answer_reads_the_sources_and_adds_nothing(vault: Path) -> None:
    config = config_for(vault)
    handed = notes_to_read(opened(vault, config), "tester", TODAY)
    proposed = propose(opened(vault, config), handed.lease or "", {"evidence": []}, TODAY)
    assert proposed.summary.counts.added == 0 and proposed.summary.status == "ok"
    with Ledger.for_memory_dir(vault / "_memory", readonly=True) as ledger:
        assert all(ledger.extracted_by(s.path) == "assistant (tester)" for s in handed.sources)


def test_a_lease_never_answered_expires_and_its_sources_are_handed_out_again(vault: Path) -> None:
    config = config_for(vault)
    with freeze_time("2026-11-30 09:00:00"):
        first = notes_to_read(opened(vault, config), "tester", TODAY)
    with freeze_time("2026-11-30 09:31:00"):
        again = notes_to_read(opened(vault, config), "tester", TODAY)
    assert again.lease != first.lease
    assert [s.path for s in again.sources] == [s.path for s in first.sources]


def test_an_answer_after_its_lease_expired_is_refused_in_one_line_and_nothing_is_read(vault: Path) -> None:
    config = config_for(vault)
    with freeze_time("2026-11-30 09:00:00"):
        handed = notes_to_read(opened(vault, config), "tester", TODAY)
    with freeze_time("2026-11-30 09:30:01"), pytest.raises(InputError) as refused:
        propose(opened(vault, config), handed.lease or "", {"evidence": facts(handed)}, TODAY)
    assert "expired at 2026-11-30 09:30 UTC" in str(refused.value) and "\n" not in str(refused.value)
    assert not (vault / "_memory" / "_state.md").exists()


def test_a_lease_answered_twice_is_refused_the_second_time(vault: Path) -> None:
    config = config_for(vault)
    handed = notes_to_read(opened(vault, config), "tester", TODAY)
    propose(opened(vault, config), handed.lease or "", [], TODAY)
    with pytest.raises(InputError, match="answered already"):
        propose(opened(vault, config), handed.lease or "", [], TODAY)


def test_an_unknown_lease_is_refused_in_one_line(vault: Path) -> None:
    with pytest.raises(InputError, match="lease L-nopenopenopenope is unknown"):
        propose(opened(vault, config_for(vault)), "L-nopenopenopenope", [], TODAY)


def test_two_readers_at_once_never_get_the_same_source_and_the_last_is_told_to_wait(vault: Path) -> None:
    config = config_for(vault, assistant_batch_chars=1000)
    held: list[str] = []
    while (handed := notes_to_read(opened(vault, config), f"reader {len(held)}", TODAY)).status == "batch":
        assert not set(held) & {s.path for s in handed.sources}
        held += [s.path for s in handed.sources]
    assert handed.status == "wait" and handed.wait_seconds and 0 < handed.wait_seconds <= 30 * 60 + 1


def dropped(vault: Path, answer: list[dict[str, Any]], **settings: Any) -> dict[str, list[str]]:
    """What was dropped of `answer`, given beside one entry that is kept (an answer all dropped is refused)."""
    config = config_for(vault, **settings)
    handed = notes_to_read(opened(vault, config), "tester", TODAY)
    kept = entry(handed.sources[-1].id, "Keeps a paper notebook")
    summary = propose(opened(vault, config), handed.lease or "", {"evidence": [*answer, kept]}, TODAY).summary
    return {d.reason: d.examples for d in summary.dropped}


def entry(source: str, text: str, dimension: str = "preferences", restates: int | None = None) -> dict[str, Any]:
    return {"dimension": dimension, "text": text, "source": source, "restates": restates}


def test_an_unknown_source_id_is_dropped_with_its_reason_and_the_rest_kept(vault: Path) -> None:
    reasons = dropped(vault, [entry("S999", "Loves green tea"), entry("S1", "Loves black coffee")])
    assert reasons == {"an unknown source id": ["Loves green tea"]}
    assert "Loves black coffee" in (vault / "_memory" / "_preferences.md").read_text(encoding="utf-8")


def test_a_source_id_of_another_lease_is_dropped_as_unknown(vault: Path) -> None:
    config = config_for(vault, assistant_batch_chars=1000)
    first = notes_to_read(opened(vault, config), "one", TODAY)
    second = notes_to_read(opened(vault, config), "two", TODAY)
    summary = propose(opened(vault, config), second.lease or "", [entry(first.sources[0].id, "Loves green tea"),
                                                          entry(second.sources[0].id, "Keeps a paper notebook")],
                      TODAY).summary
    assert {d.reason for d in summary.dropped} == {"an unknown source id"}


def test_an_unknown_dimension_is_dropped_with_its_reason(vault: Path) -> None:
    assert dropped(vault, [entry("S1", "Loves green tea", dimension="hobbies")]) == {
        "an unknown dimension": ["Loves green tea"]}


def test_an_item_that_does_not_stand_alone_is_dropped_with_its_reason(vault: Path) -> None:
    reasons = dropped(vault, [entry("S1", "Loves this")])
    assert list(reasons) == ["only a pronoun or 'this …' for what it is about: it means nothing on its own"]


def test_a_restates_that_joins_opposites_is_not_followed_and_the_fact_kept_as_its_own(vault: Path) -> None:
    config = config_for(vault, assistant_batch_chars=1000)
    handed = notes_to_read(opened(vault, config), "tester", TODAY)
    propose(opened(vault, config), handed.lease or "", [entry(handed.sources[0].id, "Lives in Lisbon", "identity")], TODAY)
    handed = notes_to_read(opened(vault, config), "tester", TODAY)  # identity items are shown with every batch
    number = next(line.split(".")[0] for line in (handed.request or "").splitlines() if "Lives in Lisbon" in line)
    summary = propose(opened(vault, config), handed.lease or "", [entry(handed.sources[0].id, "No longer lives in Lisbon",
                                                                "identity", restates=int(number))], TODAY).summary
    assert {d.reason for d in summary.unlinked} == {OPPOSITE_RESTATES} and summary.dropped_evidence == 0
    assert "No longer lives in Lisbon" in (vault / "_memory" / "_identity.md").read_text(encoding="utf-8")


def test_evidence_past_the_cap_a_source_is_dropped_with_its_reason(vault: Path) -> None:
    answer = [entry("S1", f"Loves tea number {n}") for n in range(3)]
    reasons = dropped(vault, answer, max_evidence_per_source=2)
    assert list(reasons) == ["past the limit of 2 a source"]


def test_an_answer_that_is_not_the_json_asked_for_is_refused_and_the_lease_still_holds(vault: Path) -> None:
    config = config_for(vault)
    handed = notes_to_read(opened(vault, config), "tester", TODAY)
    with pytest.raises(InputError, match="not the JSON asked for"):
        propose(opened(vault, config), handed.lease or "", "I found nothing, sorry", TODAY)
    propose(opened(vault, config), handed.lease or "", json.dumps({"evidence": []}), TODAY)  # as text, too


def test_a_note_edited_after_it_was_handed_out_waits_for_the_next_batch(vault: Path) -> None:
    config = config_for(vault)
    handed = notes_to_read(opened(vault, config), "tester", TODAY)
    edited = vault / handed.sources[0].path
    edited.write_text(edited.read_text(encoding="utf-8") + "\nAnd one more thing.\n", encoding="utf-8")
    propose(opened(vault, config), handed.lease or "", facts(handed), TODAY)
    again = notes_to_read(opened(vault, config), "tester", TODAY)
    assert handed.sources[0].path in {s.path for s in again.sources}


def test_the_units_read_not_written_come_last_as_a_batch_of_themes(vault: Path) -> None:
    config = config_for(vault)
    kinds = []
    while (handed := notes_to_read(opened(vault, config), "tester", TODAY)).status == "batch":
        kinds.append(handed.kind)
        key = "evidence" if handed.kind == "extract" else "preferences"
        answer = [{"cluster": t.number, "text": "Curious about the history of Lisbon"} for t in handed.themes]
        propose(opened(vault, config), handed.lease or "", {key: answer if handed.kind == "synthesis" else []}, TODAY)
    assert kinds[-1] == "synthesis" and set(kinds[:-1]) == {"extract"}
    assert "Curious about the history of Lisbon" in (vault / "_memory" / "_preferences.md").read_text(encoding="utf-8")


def test_why_and_history_name_the_assistant_that_read_the_note(vault: Path) -> None:
    from hylo_memory.pipeline.operations.history import history
    from hylo_memory.pipeline.operations.serving.why import explain

    config = config_for(vault)
    handed = notes_to_read(opened(vault, config), "claude-code", TODAY)
    propose(opened(vault, config), handed.lease or "", [entry(handed.sources[0].id, "Loves black coffee")], TODAY)
    assert "read by assistant (claude-code)" in history(opened(vault, config), 5).to_text()
    with opened(vault, config) as memory:
        assert "assistant (claude-code)" in explain(memory, "Loves black coffee", None).to_text()


def test_a_lease_is_asked_again_under_the_run_lock_and_an_answer_in_time_no_longer_is_refused(vault: Path) -> None:
    from hylo_memory.pipeline.run.options import RunOptions
    from hylo_memory.pipeline.run.refresh import refresh
    from hylo_memory.pipeline.state.leases import Leases

    config = config_for(vault)
    handed = notes_to_read(opened(vault, config), "tester", TODAY)
    with Ledger.for_memory_dir(vault / "_memory") as ledger:
        lease = Leases(ledger).usable(handed.lease or "", 0.0)
        ledger.db.execute("UPDATE leases SET expires_at = 1 WHERE token = ?", (lease.token,))  # it ran out meanwhile
    from hylo_memory.extractors.base import Extraction
    from hylo_memory.extractors.llm.agent import Answered

    with pytest.raises(InputError, match="expired"):
        refresh(opened(vault, config), Answered("assistant (tester)", Extraction()), RunOptions(TODAY, only=lease))


def test_a_nightly_refresh_leaves_the_notes_an_assistant_holds_and_its_answer_is_kept(vault: Path) -> None:
    from hylo_memory.extractors.offline.offline import OfflineExtractor
    from hylo_memory.pipeline.run.options import RunOptions
    from hylo_memory.pipeline.run.refresh import refresh

    config = config_for(vault)
    handed = notes_to_read(opened(vault, config), "tester", TODAY)
    summary, _ = refresh(opened(vault, config), OfflineExtractor(), RunOptions(TODAY))
    assert summary.waiting >= len({s.path for s in handed.sources})
    kept = propose(opened(vault, config), handed.lease or "", [entry(handed.sources[0].id, "Loves black coffee")], TODAY)
    assert kept.summary.counts.added == 1
    with Ledger.for_memory_dir(vault / "_memory", readonly=True) as ledger:
        assert ledger.extracted_by(handed.sources[0].path) == "assistant (tester)"


def test_an_answer_is_not_replaced_by_evidence_another_run_kept_for_the_same_note(vault: Path) -> None:
    config = config_for(vault)
    handed = notes_to_read(opened(vault, config), "tester", TODAY)
    first = handed.sources[0]
    with Ledger.for_memory_dir(vault / "_memory") as ledger:  # an LLM run killed after its first batch
        ledger.keep_evidence({first.path: next(iter(_hashes(vault, config, first.path)))},
                             [Evidence(dimension=Dimension.preferences, text="Enjoys bungee jumping",
                                       source=first.path, date=first.date)])
    summary = propose(opened(vault, config), handed.lease or "", [entry(first.id, "Enjoys kayaking")], TODAY).summary
    text = (vault / "_memory" / "_preferences.md").read_text(encoding="utf-8")
    assert "Enjoys kayaking" in text and "bungee" not in text and summary.resumed == 0


def _hashes(vault: Path, config: Config, path: str) -> list[str]:
    from hylo_memory.pipeline.state.leases import Leases

    with Ledger.for_memory_dir(vault / "_memory", readonly=True) as ledger:
        return [h for token, in ledger.db.execute("SELECT token FROM leases")
                for p, h in (Leases(ledger).get(token) or _never()).sources.items() if p == path]


def _never() -> Any:
    raise AssertionError("a lease listed and not found")


def test_reextract_never_reads_again_what_an_assistant_read(vault: Path) -> None:
    from hylo_memory.extractors.offline.offline import OfflineExtractor
    from hylo_memory.pipeline.run.options import RunOptions
    from hylo_memory.pipeline.run.refresh import refresh

    config = config_for(vault)
    handed = notes_to_read(opened(vault, config), "tester", TODAY)
    propose(opened(vault, config), handed.lease or "", [], TODAY)
    options = RunOptions(TODAY, reextract=True, since=dt.date(2026, 9, 1))
    summary, _ = refresh(opened(vault, config), OfflineExtractor(), options)
    with Ledger.for_memory_dir(vault / "_memory", readonly=True) as ledger:
        assert all(ledger.extracted_by(s.path) == "assistant (tester)" for s in handed.sources)
    assert summary.reextracted == 0


def test_a_token_of_another_shape_is_refused_in_one_line(vault: Path) -> None:
    with pytest.raises(InputError, match="is not a lease token") as refused:
        propose(opened(vault, config_for(vault)), "L-x\nsecond line", [], TODAY)
    assert "\n" not in str(refused.value)


def test_its_list_alone_as_text_is_an_answer_too(vault: Path) -> None:
    config = config_for(vault)
    handed = notes_to_read(opened(vault, config), "tester", TODAY)
    answer = json.dumps([entry(handed.sources[0].id, "Loves black coffee")])
    assert propose(opened(vault, config), handed.lease or "", answer, TODAY).summary.counts.added == 1
