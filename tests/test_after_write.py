"""One after-write step (docs/spec.md §9.4), taken by every writer's operation exactly once, whichever door called
it: the doors never take it themselves, so the command line and the MCP server leave the same read memo behind."""

from __future__ import annotations

import datetime as dt
import importlib
import json
import pkgutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import hylo
from vault_helpers import opened

from hylo_memory.decay import Dimension, Evidence
from hylo_memory.pipeline import operations
from hylo_memory.pipeline.cli.options import NAMING
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations import after_write as step
from hylo_memory.pipeline.operations.candidates import promote, reject
from hylo_memory.pipeline.operations.forget import forget, unforget
from hylo_memory.pipeline.operations.history import undo
from hylo_memory.pipeline.operations.reading.apply import apply_evidence
from hylo_memory.pipeline.operations.reading.lease import notes_to_read, propose
from hylo_memory.pipeline.operations.refresh import refresh_memory
from hylo_memory.pipeline.operations.remember import remember_text
from hylo_memory.pipeline.run.options import RunOptions
from hylo_memory.pipeline.state.read_memo import digest, memo_path

TODAY = dt.date(2026, 11, 30)
SARDINES = "Loves grilled sardines"


def a_vault(root: Path, min_sightings: int = 1) -> tuple[Path, Config]:
    note = root / "_shorts" / f"{TODAY}-lunch.md"
    note.parent.mkdir(parents=True)
    note.write_text("Lunch by the river: grilled sardines again, I love them.\n", encoding="utf-8")
    return root, Config(vault=str(root), min_sightings=min_sightings)


def sardines(vault: Path) -> list[Evidence]:
    return [Evidence(dimension=Dimension.preferences, text=SARDINES, source=f"_shorts/{TODAY}-lunch.md", date=TODAY)]


@pytest.fixture
def steps(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """Every after-write step taken, by the memory folder it was taken on: each operation module's own name for
    the step is replaced, wherever it imported it."""
    taken: list[Path] = []
    original = step.after_write

    def counted(store: Any, config: Config, *args: Any, **kwargs: Any) -> None:
        taken.append(store.folder)
        original(store, config, *args, **kwargs)

    for info in pkgutil.walk_packages(operations.__path__, f"{operations.__name__}."):  # the sub-rooms' too
        module = importlib.import_module(info.name)
        if getattr(module, "after_write", None) is original:
            monkeypatch.setattr(module, "after_write", counted)
    yield taken


def _propose(vault: Path, config: Config) -> object:
    handed = notes_to_read(opened(vault, config), "tester", TODAY)
    answer = {"evidence": [{"dimension": "preferences", "text": SARDINES, "source": s.id, "restates": None}
                           for s in handed.sources]}
    return propose(opened(vault, config), handed.lease or "", answer)


# Each writer, after what it needs to find (a fact to forget, a change to undo, a candidate waiting).
WRITERS: dict[str, tuple[Callable[[Path, Config], object] | None, Callable[[Path, Config], object]]] = {
    "remember": (None, lambda v, c: remember_text(opened(v, c), "I'm vegetarian", NAMING, today=TODAY)),
    "forget": (lambda v, c: remember_text(opened(v, c), "I'm vegetarian", NAMING, today=TODAY), lambda v, c: forget(opened(v, c), "Is vegetarian", NAMING)),
    "unforget": (lambda v, c: (remember_text(opened(v, c), "I'm vegetarian", NAMING, today=TODAY), forget(opened(v, c), "Is vegetarian", NAMING)),
                 lambda v, c: unforget(opened(v, c), "Is vegetarian")),
    "undo": (lambda v, c: remember_text(opened(v, c), "I'm vegetarian", NAMING, today=TODAY), lambda v, c: undo(opened(v, c))),
    "apply": (None, lambda v, c: apply_evidence(opened(v, c), sardines(v), TODAY)),
    "apply --lease, propose_memories": (None, _propose),
    "refresh": (None, lambda v, c: refresh_memory(opened(v, c), RunOptions(TODAY))),
    "promote": (lambda v, c: apply_evidence(opened(v, c), sardines(v), TODAY), lambda v, c: promote(opened(v, c), SARDINES, NAMING, None, TODAY)),
    "reject": (lambda v, c: apply_evidence(opened(v, c), sardines(v), TODAY), lambda v, c: reject(opened(v, c), SARDINES, NAMING, None, TODAY)),
}


@pytest.mark.parametrize("writer", WRITERS)
def test_every_writer_takes_the_after_write_step_exactly_once(tmp_path: Path, steps: list[Path], writer: str) -> None:
    before, write = WRITERS[writer]
    vault, config = a_vault(tmp_path / "vault", min_sightings=2 if writer in ("promote", "reject") else 1)
    if before is not None:
        before(vault, config)
    steps.clear()
    write(vault, config)
    assert steps == [vault / "_memory"]


def test_a_dry_run_takes_no_step(tmp_path: Path, steps: list[Path]) -> None:
    vault, config = a_vault(tmp_path / "vault")
    apply_evidence(opened(vault, config), sardines(vault), TODAY, dry_run=True)
    refresh_memory(opened(vault, config), RunOptions(TODAY, dry_run=True))
    assert steps == []


def test_an_answered_lease_leaves_the_read_memo_of_the_files_it_wrote(tmp_path: Path) -> None:
    vault, config = a_vault(tmp_path / "vault")
    _propose(vault, config)
    kept = json.loads(memo_path(vault / "_memory").read_bytes())
    on_disk = {d.value: digest(p.read_bytes()) if (p := vault / "_memory" / d.filename).exists() else None
               for d in Dimension}
    assert {d: f and f["digest"] for d, f in kept["files"].items()} == on_disk
    assert SARDINES in {fact[0] for fact in kept["files"]["preferences"]["active"]}


def test_apply_lease_through_the_command_line_takes_the_step_once_in_the_operation(tmp_path: Path,
                                                                                  steps: list[Path]) -> None:
    vault, _ = a_vault(tmp_path / "vault")
    batch = json.loads(hylo("pending", "--vault", vault, "--today", str(TODAY), "--json").stdout)
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps({"evidence": [{"dimension": "preferences", "text": SARDINES, "source": s["id"],
                                                "restates": None}
                                               for s in batch["sources"]]}), encoding="utf-8")
    steps.clear()
    done = hylo("apply", "--vault", vault, "--lease", batch["lease"], "--evidence", answer)
    assert done.exit_code == 0, done.stderr
    assert steps == [vault / "_memory"]
