"""The assistant's reading loop on the command line (docs/spec.md §9.5), for scripts and agents without MCP:
`pending --json` hands out a batch under a lease, `apply --lease TOKEN --evidence FILE` keeps the answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import hylo, one_line
from proc_helpers import copy_example_vault

from hylo_memory.pipeline.state.ledger import Ledger

TODAY = "2026-11-30"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return copy_example_vault(tmp_path / "vault")


def pending(vault: Path, *extra: str) -> dict[str, Any]:
    done = hylo("pending", "--vault", vault, "--today", TODAY, "--json", *extra)
    assert done.exit_code == 0, done.stderr
    batch: dict[str, Any] = json.loads(done.stdout)
    return batch


def answer(tmp_path: Path, batch: dict[str, Any]) -> Path:
    """The scripted assistant's answer file: a fact a note it wrote, nothing from a batch of themes."""
    entries = [{"dimension": "preferences", "text": f"Likes “{s.get('title') or s['id']}”", "source": s["id"],
                "restates": None} for s in batch["sources"]] if batch["kind"] == "extract" else []
    path = tmp_path / f"{batch['lease']}.json"
    path.write_text(json.dumps({"evidence" if batch["kind"] == "extract" else "preferences": entries}),
                    encoding="utf-8")
    return path


def test_pending_then_apply_lease_until_nothing_remains_reads_every_source(vault: Path, tmp_path: Path) -> None:
    batches = 0
    while (batch := pending(vault, "--client", "my-script"))["status"] == "batch":
        batches += 1
        kept = hylo("apply", "--vault", vault, "--today", TODAY, "--lease", batch["lease"], "--evidence",
                    answer(tmp_path, batch))
        assert kept.exit_code == 0, kept.stderr
        assert "Extractor: assistant (my-script)" in kept.stdout
    assert batch["status"] == "done" and batches >= 2
    status = hylo("status", "--vault", vault, "--today", TODAY, "--json")
    assert json.loads(status.stdout)["waiting"]["total"] == 0


def test_a_pending_batch_holds_each_sources_text_once_and_the_models_words(vault: Path) -> None:
    batch = pending(vault)
    assert {"lease", "expires_at", "remaining", "instructions", "request", "answer_schema", "sources"} <= set(batch)
    assert all(s["id"].startswith("S") and s["path"] and "text" not in s for s in batch["sources"])
    assert all(f'<source id="{s["id"]}"' in batch["request"] for s in batch["sources"])
    assert batch["instructions"].startswith("You keep a person's long-term memory.")


def test_pending_as_text_tells_the_reader_to_answer_with_apply_lease(vault: Path) -> None:
    done = hylo("pending", "--vault", vault, "--today", TODAY)
    assert "hylo-memory apply --lease" in done.stdout and 'Answer in JSON: {"evidence": [' in done.stdout


def test_apply_lease_of_a_file_that_is_not_json_names_the_file_and_line(vault: Path, tmp_path: Path) -> None:
    batch = pending(vault)
    broken = tmp_path / "answer.json"
    broken.write_text('{"evidence": [\n  {"dimension": "preferences",,}\n]}', encoding="utf-8")
    done = hylo("apply", "--vault", vault, "--today", TODAY, "--lease", batch["lease"], "--evidence", broken)
    assert done.exit_code == 1
    assert one_line(done.stderr).startswith(f"hylo-memory: {broken}:2: not valid JSON")


def test_apply_lease_refuses_dry_run(vault: Path, tmp_path: Path) -> None:
    batch = pending(vault)
    done = hylo("apply", "--vault", vault, "--lease", batch["lease"], "--evidence", answer(tmp_path, batch),
                "--dry-run")
    assert done.exit_code == 2 and "--dry-run does not go with --lease" in done.stderr


def test_apply_lease_json_gives_the_summary_and_what_remains(vault: Path, tmp_path: Path) -> None:
    batch = pending(vault)
    done = hylo("apply", "--vault", vault, "--today", TODAY, "--lease", batch["lease"], "--evidence",
                answer(tmp_path, batch), "--json")
    report = json.loads(done.stdout)
    assert report["remaining"] == batch["remaining"] and report["summary"]["status"] == "ok"
    with Ledger.for_memory_dir(vault / "_memory", readonly=True) as ledger:
        assert ledger.extracted_by(batch["sources"][0]["path"]) == "assistant (command line)"


@pytest.mark.parametrize("body", ["[" * 100_000, "1" * 5_000])
def test_apply_lease_of_json_the_parser_cannot_take_is_one_line(vault: Path, tmp_path: Path, body: str) -> None:
    batch = pending(vault)
    deep = tmp_path / "deep.json"
    deep.write_text(body, encoding="utf-8")
    done = hylo("apply", "--vault", vault, "--today", TODAY, "--lease", batch["lease"], "--evidence", deep)
    assert done.exit_code == 1 and one_line(done.stderr).startswith(f"hylo-memory: {deep}")
