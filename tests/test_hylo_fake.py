"""The fake Hylo itself (hylo_memory/testing/fake_hylo.py): Hylo's tools, argument names and result shapes
(docs/spec.md §10) over a folder, through the SDK's real client."""

from __future__ import annotations

from pathlib import Path

import pytest
from hylo_helpers import two_days

from hylo_memory.pipeline.hylo.client import Hylo, HyloError
from hylo_memory.testing.fake_hylo import FakeHylo


def test_short_list_gives_entries_newest_first_with_their_daily_path(fake_hylo: FakeHylo) -> None:
    two_days(fake_hylo.root)
    with Hylo(fake_hylo.url, 10) as hylo:
        entries = hylo.short_list("2026-11-01", "2026-12-01", 0, "_shorts")
    assert [(e.daily_path, e.created_at[:19]) for e in entries] == [
        ("/_shorts/2026-11-29.md", "2026-11-29T18:00:00"), ("/_shorts/2026-11-29.md", "2026-11-29T09:30:00"),
        ("/_shorts/2026-11-27.md", "2026-11-27T08:00:00")]


def test_short_list_end_is_exclusive(fake_hylo: FakeHylo) -> None:
    two_days(fake_hylo.root)
    with Hylo(fake_hylo.url, 10) as hylo:
        assert hylo.short_list("2026-11-27", "2026-11-29", 0, "_shorts")[0].daily_path == "/_shorts/2026-11-27.md"


def test_create_writes_a_file_in_the_folder(fake_hylo: FakeHylo) -> None:
    with Hylo(fake_hylo.url, 10) as hylo:
        hylo.create("/_memory/_goals.md", "hello\n")
    assert (fake_hylo.root / "_memory" / "_goals.md").read_text() == "hello\n"


def test_create_without_force_refuses_an_existing_file_name_anywhere(fake_hylo: FakeHylo) -> None:
    fake_hylo.create("/_memory/_goals.md", "one\n", force=False)
    with pytest.raises(Exception, match="already exists"):
        fake_hylo.create("/elsewhere/_goals.md", "two\n", force=False)


def test_a_request_without_the_key_is_refused(fake_hylo: FakeHylo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYLO_API_KEY", "not-the-key")
    with pytest.raises(HyloError, match="refused the key \\(401\\): check HYLO_API_KEY"):
        Hylo(fake_hylo.url, 10).__enter__()


def test_prefixed_tool_names_are_found(fake_hylo: FakeHylo, tmp_path: Path) -> None:
    two_days(tmp_path / "other")
    with FakeHylo(tmp_path / "other", prefix="mcp__hylo__") as fake, Hylo(fake.url, 10) as hylo:
        assert hylo.read("/_shorts/2026-11-27.md").path == "/_shorts/2026-11-27.md"
