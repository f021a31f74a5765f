"""The fake Hylo itself (hylo_memory/testing/fake_hylo.py): Hylo's tools, argument names and result shapes
(docs/spec.md §10) over a folder, through the SDK's real client."""

from __future__ import annotations

import datetime as dt
import json
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import NamedTuple

import pytest
from hylo_helpers import daily, two_days

from hylo_memory.pipeline.vaults.hylo_client import Hylo, HyloError
from hylo_memory.testing.fake_hylo import KEY, FakeHylo


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


# Field by field and error by error, as Hylo's source answers (the file each comes from is named)


def test_a_listing_shows_size_and_time_for_a_person(fake_hylo: FakeHylo) -> None:
    """internal/notes/list.go: util.FormatSize and util.FormatTime; `name` the base name; kind "raw" unset."""
    note = fake_hylo.root / "journal" / "april.md"
    note.parent.mkdir()
    note.write_text("x" * 2048)
    os.utime(note, (1795861502, 1795861502))  # 2026-11-28 10:25:02 UTC
    with Hylo(fake_hylo.url, 10) as hylo:
        [entry] = hylo.list("/journal")
    assert entry.model_dump(exclude_none=True) == {"path": "/journal/april.md", "name": "april.md", "dir": "/journal",
                                                   "size": "2.0 KB", "updated_at": "2026-11-28 10:25:02", "kind": "raw"}


def test_a_path_lists_its_folder_and_not_below(fake_hylo: FakeHylo) -> None:
    """internal/client/client.go ListDir: the notes directly inside the folder."""
    for rel in ("_knowledge/a.md", "_knowledge/domain/b.md"):
        (fake_hylo.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (fake_hylo.root / rel).write_text("---\nkind: knowledge\n---\nx\n")
    with Hylo(fake_hylo.url, 10) as hylo:
        assert ([n.path for n in hylo.knowledge_list("/_knowledge", "", "", 0)],
                sorted(n.path for n in hylo.knowledge_list(None, "", "", 0))) \
            == (["/_knowledge/a.md"], ["/_knowledge/a.md", "/_knowledge/domain/b.md"])


def test_short_list_gives_created_at_in_the_servers_zone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """internal/storage/vault.go ParseShortEntries: the header's time in time.Local, encoded with its offset."""
    monkeypatch.setenv("HYLO_API_KEY", KEY)
    daily(tmp_path, dt.date(2026, 11, 28), ("23:30:00", "Late."), zone=dt.timezone(dt.timedelta(hours=8)))
    with FakeHylo(tmp_path, zone=dt.timezone(dt.timedelta(hours=8))) as fake, Hylo(fake.url, 10) as hylo:
        assert hylo.short_list("2026-11-27", "2026-11-30", 0, "_shorts")[0].created_at == "2026-11-28T23:30:00+08:00"


def test_short_list_dates_are_utc_midnights(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """internal/notes/notes.go TimeFilter.Bounds: time.Parse(time.DateOnly) is UTC, so at +08:00 an entry at
    07:00 on the 29th is before a start of the 29th."""
    monkeypatch.setenv("HYLO_API_KEY", KEY)
    zone = dt.timezone(dt.timedelta(hours=8))
    daily(tmp_path, dt.date(2026, 11, 29), ("07:00:00", "Early."), zone=zone)
    with FakeHylo(tmp_path, zone=zone) as fake, Hylo(fake.url, 10) as hylo:
        assert hylo.short_list("2026-11-29", "2026-11-30", 0, "_shorts") == []


@pytest.mark.parametrize(("tool", "arguments", "said"), [
    ("read", {"path": "/_memory/_goals.md"}, 'stat "/_memory/_goals.md": HTTP 404: metadata record not found: not found'),
    ("read", {"path": "nowhere"}, 'no note found: "nowhere.md"'),
    ("knowledge_read", {"path": "/_shorts/2026-11-27.md"}, '"/_shorts/2026-11-27.md" is not a knowledge note'),
    ("list", {"path": "/_memory"}, 'list "/_memory": HTTP 404: file not found on disk: not found'),
    ("list", {"kind": "note"}, 'unknown kind "note": must be raw, short, knowledge, or index'),
    ("knowledge_list", {"kind": "raw"}, 'unknown kind "raw": must be knowledge or index'),
    ("short_list", {"start": "2026-11-31"}, 'invalid start date (use YYYY-MM-DD): parsing time "2026-11-31"'),
    ("short_list", {"latest": 3, "start": "2026-11-01"}, "cannot combine latest with start/end"),
    ("create", {"path": "_memory/a.md", "content": "x"}, 'path "_memory/a.md" must be absolute (start with "/")'),
    ("create", {"path": "/a.txt", "content": "x"}, 'path "/a.txt" is not a markdown file (.md or .markdown)'),
    ("create", {"path": "/_shorts/2026-11-27.md", "content": "x"},
     '"/_shorts/2026-11-27.md" already exists (use force to overwrite)'),
    ("create", {"path": "/elsewhere/2026-11-27.md", "content": "x"},
     'a note named "2026-11-27.md" already exists in the vault (use force to create anyway)'),
])
def test_each_error_is_a_tool_result_with_gos_text(fake_hylo: FakeHylo, tool: str, arguments: dict,
                                                    said: str) -> None:
    """internal/mcp/server.go (a Go error is an isError result), notes/read.go, write.go, notes.go, list.go."""
    two_days(fake_hylo.root)
    with Hylo(fake_hylo.url, 10) as hylo, pytest.raises(HyloError) as caught:
        hylo._call(tool, arguments)
    assert caught.value.said == said


def test_either_key_header_is_taken(fake_hylo: FakeHylo) -> None:
    """internal/server/middleware/auth.go: X-Hylo-API-Key, else Authorization: Bearer."""
    answers = []
    for headers in ({"X-Hylo-API-Key": fake_hylo.key}, {"Authorization": f"Bearer {fake_hylo.key}"}, {}):
        answers.append(_post(fake_hylo, headers).status)
    assert answers == [200, 200, 401]


def test_a_foreign_origin_is_refused(fake_hylo: FakeHylo) -> None:
    """internal/mcp/server.go: http.NewCrossOriginProtection, 403 in plain text."""
    refused = _post(fake_hylo, {"X-Hylo-API-Key": fake_hylo.key, "Origin": "http://evil.example"})
    assert (refused.status, refused.body.startswith(b"cross-origin request detected")) == (403, True)


def test_our_client_sends_both_key_headers_and_no_origin(fake_hylo: FakeHylo) -> None:
    with Hylo(fake_hylo.url, 10) as hylo:
        hylo.list(None)
    sent = fake_hylo.headers[-1]
    assert (sent["x-hylo-api-key"], sent["authorization"], "origin" in sent) \
        == (fake_hylo.key, f"Bearer {fake_hylo.key}", False)


class _Answer(NamedTuple):
    status: int
    body: bytes


def _post(fake: FakeHylo, headers: dict[str, str]) -> _Answer:
    """An MCP `initialize` sent by hand, to see what Hylo answers at the HTTP level."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}).encode()
    request = urllib.request.Request(fake.url, data=body, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return _Answer(answer.status, answer.read())
    except urllib.error.HTTPError as refused:
        return _Answer(refused.code, refused.read())
