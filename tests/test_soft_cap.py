"""The soft cap (docs/spec.md §2.2): a file holding more Active items than `soft_cap` is said to be past it by the
run summary, `status` and `context`, with `forget` or a shorter window suggested; nothing is deleted for it."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import hylo
from trust_helpers import TODAY, apply, fact, ok, refresh, refresh_json
from vault_helpers import short, texts

from hylo_memory.decay import Dimension
from hylo_memory.decay.soft_cap import DEFAULT_SOFT_CAP, over_cap
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.serving import status

LIKES = [f"Likes the colour number {n}" for n in range(5)]


@pytest.fixture(autouse=True)
def no_crontab(monkeypatch: pytest.MonkeyPatch) -> None:
    """`status` looks for a crontab line with `crontab -l`: none here, so no process starts in the fast tier."""
    monkeypatch.setattr(status, "read_crontab", lambda: None)


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Five preferences and one identity fact, under a soft cap of three."""
    monkeypatch.setenv("HYLO_MEMORY_SOFT_CAP", "3")
    root = tmp_path / "vault"
    short(root, "2026-11-29", "I live in Lisbon.")
    ok(apply(root, *(fact("preferences", text) for text in LIKES)))
    return root


def test_the_default_soft_cap_is_150() -> None:
    assert Config().soft_cap == DEFAULT_SOFT_CAP == 150


def test_the_run_summary_says_soft_cap_with_the_file_its_count_and_the_cap(vault: Path) -> None:
    text = ok(refresh(vault)).stdout
    line = next(line for line in text.splitlines() if line.startswith("Soft cap:"))
    assert "_preferences.md holds 5 Active items, past the soft cap of 3" in line
    assert "`forget`" in line and "decay_window" in line and "_identity.md" not in text.split("Soft cap:")[1]


def test_the_run_summarys_json_names_each_file_past_it(vault: Path) -> None:
    assert refresh_json(vault)["soft_cap"] == [{"file": "_preferences.md", "active": 5, "cap": 3}]


def test_status_says_soft_cap(vault: Path) -> None:
    text = ok(hylo("status", "--vault", vault, "--today", TODAY.isoformat())).stdout
    assert "Soft cap: _preferences.md holds 5 Active items, past the soft cap of 3" in text


def test_context_says_soft_cap(vault: Path) -> None:
    block = ok(hylo("context", "--vault", vault, "--today", TODAY.isoformat())).stdout
    assert "Soft cap: _preferences.md holds 5 Active items, past the soft cap of 3" in block
    again = ok(hylo("context", "--vault", vault, "--today", TODAY.isoformat())).stdout  # after the read memo is kept
    assert again == block


def test_nothing_is_deleted_for_it(vault: Path) -> None:
    ok(refresh(vault))
    ok(hylo("status", "--vault", vault, "--today", TODAY.isoformat()))
    ok(hylo("context", "--vault", vault, "--today", TODAY.isoformat()))
    assert texts(vault, Dimension.preferences) == set(LIKES)
    assert texts(vault, Dimension.identity) == {"Lives in Lisbon"}


def test_under_the_cap_nothing_says_it(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYLO_MEMORY_SOFT_CAP", "5")
    outputs = [ok(refresh(vault)).stdout, ok(hylo("status", "--vault", vault, "--today", TODAY.isoformat())).stdout,
               ok(hylo("context", "--vault", vault, "--today", TODAY.isoformat())).stdout]
    assert not any("soft cap" in out.lower() for out in outputs)


def test_over_cap_counts_active_items_alone() -> None:
    from hylo_memory.decay.files.format import parse

    memory = parse("---\ndecay_window: 90d\n---\n## Active\n- a `last:2026-11-01 seen:1`\n\n## Fading\n"
                   "- b `last:2026-01-01 seen:1`\n- c `last:2026-01-01 seen:1`\n", Dimension.preferences)
    assert over_cap({Dimension.preferences: memory}, 1) == []  # one Active, two Fading: not past a cap of one
