"""Reading a vault (docs/spec.md §1): dating notes, knowledge-unit fields, extra paths, notes skipped with a reason."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest
from cli_helpers import hylo
from vault_helpers import day, run, set_mtime, short, unit, write_file, write_note

from hylo_memory.domain.sources import Perspective, Source, SourceKind
from hylo_memory.pipeline.run.window import Window
from hylo_memory.pipeline.vaults import Skipped
from hylo_memory.pipeline.vaults.folder import FolderVault

TODAY = day("2026-11-30")
WIDE = Window(mode="first", start=day("2026-01-01"), today=TODAY)


def read(root: Path, window: Window = WIDE, extra: list[str] | None = None, max_bytes: int = 1_000_000) -> list[Source | Skipped]:
    return list(FolderVault(root, extra or [], "_memory", max_bytes).sources(window))


def sources(root: Path, **kwargs) -> dict[str, Source]:
    return {s.path: s for s in read(root, **kwargs) if isinstance(s, Source)}


def skipped(root: Path, **kwargs) -> dict[str, str]:
    return {s.path: s.reason for s in read(root, **kwargs) if isinstance(s, Skipped)}


def cli_json(*args: str | Path) -> dict:
    """`hylo-memory ARGS…`'s JSON output, the command having exited 0."""
    result = hylo(*args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


# Dating short notes: frontmatter `created` or `date`, else the file name's prefix, else the mtime.


def test_short_note_is_dated_by_frontmatter_created(tmp_path: Path) -> None:
    write_note(tmp_path, "_shorts/2026-03-01-idea.md", "An idea.", created=day("2026-05-04"), mtime=day("2026-11-29"))
    assert sources(tmp_path)["_shorts/2026-03-01-idea.md"].date == day("2026-05-04")


def test_short_note_is_dated_by_frontmatter_date_without_created(tmp_path: Path) -> None:
    write_note(tmp_path, "_shorts/idea.md", "An idea.", date="2026-05-04", mtime=day("2026-11-29"))
    assert sources(tmp_path)["_shorts/idea.md"].date == day("2026-05-04")


def test_created_datetime_in_frontmatter_gives_its_date(tmp_path: Path) -> None:
    write_note(tmp_path, "_shorts/idea.md", "An idea.", created=dt.datetime(2026, 5, 4, 22, 15), mtime=day("2026-11-29"))
    assert sources(tmp_path)["_shorts/idea.md"].date == day("2026-05-04")


def test_short_note_without_frontmatter_date_is_dated_by_file_name_prefix(tmp_path: Path) -> None:
    write_note(tmp_path, "_shorts/2026-06-07-walk.md", "A walk.", mtime=day("2026-11-29"), tags=["walk"])
    assert sources(tmp_path)["_shorts/2026-06-07-walk.md"].date == day("2026-06-07")


def test_short_note_with_unusable_frontmatter_date_falls_back_to_file_name_prefix(tmp_path: Path) -> None:
    write_note(tmp_path, "_shorts/2026-06-07-walk.md", "A walk.", created="sometime in June", mtime=day("2026-11-29"))
    assert sources(tmp_path)["_shorts/2026-06-07-walk.md"].date == day("2026-06-07")


def test_short_note_without_any_date_is_dated_by_its_mtime(tmp_path: Path) -> None:
    write_file(tmp_path, "_shorts/walk.md", "A walk by the river.\n", mtime=day("2026-08-09"))
    assert sources(tmp_path)["_shorts/walk.md"].date == day("2026-08-09")


def test_notes_in_subfolders_of_shorts_are_read(tmp_path: Path) -> None:
    write_note(tmp_path, "_shorts/2026/10/2026-10-14-languages.md", "I speak English.")
    assert sources(tmp_path)["_shorts/2026/10/2026-10-14-languages.md"].kind == SourceKind.short


def test_short_note_body_is_read_without_its_frontmatter(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-29", "I live in Porto.", tags=["home"])
    assert sources(tmp_path)["_shorts/2026-11-29-note.md"].text == "I live in Porto."


def test_files_that_are_not_markdown_are_not_read(tmp_path: Path) -> None:
    write_file(tmp_path, "_shorts/2026-11-29-photo.txt", "I live in Porto.")
    assert sources(tmp_path) == {}


def test_hidden_folders_are_not_read(tmp_path: Path) -> None:
    write_note(tmp_path, "_shorts/.trash/2026-11-29-old.md", "I live in Porto.")
    assert sources(tmp_path) == {}


# Knowledge units


def test_knowledge_unit_gives_title_tags_perspective_and_source_notes(tmp_path: Path) -> None:
    unit(tmp_path, "raft", "Leader election.", "2026-10-02", title="Raft, understandably", tags=["Consensus", "#databases"],
         perspective="external", source_notes=["clippings/raft-talk.md"])
    found = sources(tmp_path)["_knowledge/raft.md"]
    assert (found.kind, found.title, found.tags, found.perspective, found.source_notes) == (
        SourceKind.knowledge, "Raft, understandably", ["consensus", "databases"], Perspective.external,
        ["clippings/raft-talk.md"],
    )


def test_knowledge_unit_is_dated_by_created(tmp_path: Path) -> None:
    unit(tmp_path, "raft", "Leader election.", "2026-10-02", title="Raft")
    assert sources(tmp_path)["_knowledge/raft.md"].date == day("2026-10-02")


def test_edited_knowledge_unit_is_dated_by_updated(tmp_path: Path) -> None:
    unit(tmp_path, "raft", "Leader election.", "2026-10-02", title="Raft", updated=day("2026-11-20"))
    assert sources(tmp_path)["_knowledge/raft.md"].date == day("2026-11-20")


def test_knowledge_unit_without_perspective_leaves_it_to_be_judged(tmp_path: Path) -> None:
    unit(tmp_path, "raft", "Leader election.", "2026-10-02", title="Raft")
    assert sources(tmp_path)["_knowledge/raft.md"].perspective is None


def test_knowledge_unit_perspective_is_read_in_any_case(tmp_path: Path) -> None:
    unit(tmp_path, "raft", "Leader election.", "2026-10-02", title="Raft", perspective="Mixed")
    assert sources(tmp_path)["_knowledge/raft.md"].perspective is Perspective.mixed


def test_knowledge_unit_without_kind_is_a_knowledge_unit(tmp_path: Path) -> None:
    unit(tmp_path, "raft", "Leader election.", "2026-10-02", title="Raft")
    assert "_knowledge/raft.md" in sources(tmp_path)


def test_knowledge_file_of_another_kind_is_not_read(tmp_path: Path) -> None:
    unit(tmp_path, "reading-list", "Books to read.", "2026-10-02", title="Reading list", kind="index")
    assert sources(tmp_path) == {}


def test_knowledge_unit_with_comma_separated_tags_gives_a_list(tmp_path: Path) -> None:
    unit(tmp_path, "raft", "Leader election.", "2026-10-02", title="Raft", tags="consensus, databases")
    assert sources(tmp_path)["_knowledge/raft.md"].tags == ["consensus", "databases"]


# Extra scan paths: read as short notes


def test_extra_scan_path_is_read_as_personal_notes(tmp_path: Path) -> None:
    write_note(tmp_path, "journal/2026-11-29-evening.md", "I live in Porto.")
    found = sources(tmp_path, extra=["journal"])["journal/2026-11-29-evening.md"]
    assert (found.kind, found.perspective, found.date) == (SourceKind.extra, Perspective.own, day("2026-11-29"))


def test_folders_outside_the_scan_paths_are_not_read(tmp_path: Path) -> None:
    write_note(tmp_path, "journal/2026-11-29-evening.md", "I live in Porto.")
    assert sources(tmp_path) == {}


def test_extra_scan_path_outside_the_vault_is_not_read(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    write_note(tmp_path, "elsewhere/2026-11-29-secret.md", "I live in Porto.")
    assert sources(vault, extra=["../elsewhere"]) == {}


def test_extra_scan_paths_come_from_the_environment_as_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_note(tmp_path, "journal/2026-11-29-evening.md", "I live in Porto.")
    monkeypatch.setenv("HYLO_MEMORY_EXTRA_SCAN_PATHS", '["journal"]')
    out = cli_json("refresh", "--vault", tmp_path, "--today", "2026-11-30", "--json", "--extractor", "offline")
    assert out["sources"]["extra"] == 1


def test_extra_scan_paths_come_from_a_toml_config_file(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write_note(vault, "journal/2026-11-29-evening.md", "I live in Porto.")
    config = write_file(tmp_path, "config.toml", 'extra_scan_paths = ["journal"]\n')
    out = cli_json("--config", config, "refresh", "--vault", vault, "--today", "2026-11-30", "--json",
                   "--extractor", "offline")
    assert out["sources"]["extra"] == 1


def test_extra_scan_path_may_name_a_single_note(tmp_path: Path) -> None:
    write_note(tmp_path, "about-me.md", "I live in Porto.", created="2026-11-29")
    assert sources(tmp_path, extra=["about-me.md"])["about-me.md"].kind == SourceKind.extra


def test_a_note_under_two_scan_paths_is_read_once(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-29", "I live in Porto.")
    found = [s for s in read(tmp_path, extra=["_shorts"]) if isinstance(s, Source)]
    assert [(s.path, s.kind) for s in found] == [("_shorts/2026-11-29-note.md", SourceKind.short)]


# Notes that cannot be read are skipped, and named with the reason


def test_note_with_invalid_yaml_frontmatter_is_skipped_with_the_file_line_of_the_error(tmp_path: Path) -> None:
    write_file(tmp_path, "_shorts/2026-11-29-broken.md", "---\ntags: [a, b]\nmood: calm: very\n---\nI live in Porto.\n")
    assert skipped(tmp_path) == {"_shorts/2026-11-29-broken.md": "frontmatter is not valid YAML (line 3)"}


def test_note_with_an_impossible_date_in_frontmatter_is_skipped(tmp_path: Path) -> None:
    write_file(tmp_path, "_shorts/2026-11-29-broken.md", "---\ncreated: 2026-02-30\n---\nI live in Porto.\n")
    assert skipped(tmp_path) == {
        "_shorts/2026-11-29-broken.md": "frontmatter is not valid YAML (day is out of range for month)"
    }


def test_non_utf8_note_is_skipped(tmp_path: Path) -> None:
    write_file(tmp_path, "_shorts/2026-11-29-latin1.md", "Café com leite, I live in Porto.\n".encode("latin-1"))
    assert skipped(tmp_path) == {"_shorts/2026-11-29-latin1.md": "not UTF-8 text"}


def test_utf16_note_is_skipped_as_not_utf8_rather_than_binary(tmp_path: Path) -> None:
    write_file(tmp_path, "_shorts/2026-11-29-utf16.md", "I live in Porto.\n".encode("utf-16"))
    assert skipped(tmp_path) == {"_shorts/2026-11-29-utf16.md": "not UTF-8 text"}


def test_binary_file_is_skipped(tmp_path: Path) -> None:
    write_file(tmp_path, "_shorts/2026-11-29-photo.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00")
    assert skipped(tmp_path) == {"_shorts/2026-11-29-photo.md": "binary file, not a note"}


def test_utf8_file_with_nul_bytes_is_skipped_as_binary(tmp_path: Path) -> None:
    write_file(tmp_path, "_shorts/2026-11-29-dump.md", b"I live in Porto.\x00\x00\x00")
    assert skipped(tmp_path) == {"_shorts/2026-11-29-dump.md": "binary file, not a note"}


def test_note_over_the_size_limit_is_skipped(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-29", "I live in Porto. " * 100, slug="long")
    assert skipped(tmp_path, max_bytes=1000) == {"_shorts/2026-11-29-long.md": "larger than 1,000 bytes"}


def test_note_at_the_size_limit_is_read(tmp_path: Path) -> None:
    path = write_file(tmp_path, "_shorts/2026-11-29-exact.md", "x" * 1000)
    assert path.stat().st_size == 1000
    assert "_shorts/2026-11-29-exact.md" in sources(tmp_path, max_bytes=1000)


def test_size_limit_comes_from_config_max_note_bytes(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-29", "I live in Porto. " * 100, slug="long")
    summary = run(tmp_path, TODAY, max_note_bytes=1000)
    assert [(s.path, s.reason) for s in summary.skipped] == [("_shorts/2026-11-29-long.md", "larger than 1,000 bytes")]


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("broken", "---\ncreated: [2026-11-20\n---\nI live in Porto.\n", "frontmatter is not valid YAML (line 3)"),
        ("latin1", "Café, I live in Porto.\n".encode("latin-1"), "not UTF-8 text"),
        ("binary", b"\x00\x01\x02\x03\xff\xfe", "binary file, not a note"),
        ("huge", "I live in Porto. " * 200, "larger than 1,000 bytes"),
    ],
)
def test_skipped_note_is_named_with_its_reason_in_the_run_summary(tmp_path: Path, name: str, data: str | bytes,
                                                                  reason: str) -> None:
    write_file(tmp_path, f"_shorts/2026-11-29-{name}.md", data)
    summary = run(tmp_path, TODAY, max_note_bytes=1000)
    assert [(s.path, s.reason) for s in summary.skipped] == [(f"_shorts/2026-11-29-{name}.md", reason)]


def test_notes_next_to_a_skipped_one_are_still_read(tmp_path: Path) -> None:
    write_file(tmp_path, "_shorts/2026-11-29-broken.md", "---\ncreated: [2026-11-20\n---\nbody\n")
    short(tmp_path, "2026-11-29", "I live in Porto.", slug="fine")
    assert list(sources(tmp_path)) == ["_shorts/2026-11-29-fine.md"]


# Symlinks


def test_symlinked_note_leading_outside_the_vault_is_not_followed(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    outside = write_note(tmp_path, "private/2026-11-29-diary.md", "I live in Porto.")
    (vault / "_shorts").mkdir(parents=True)
    (vault / "_shorts" / "2026-11-29-diary.md").symlink_to(outside)
    assert read(vault) == []


def test_symlinked_folder_leading_outside_the_vault_is_not_followed(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write_note(tmp_path, "private/2026-11-29-diary.md", "I live in Porto.")
    (vault / "_shorts").mkdir(parents=True)
    (vault / "_shorts" / "private").symlink_to(tmp_path / "private", target_is_directory=True)
    assert read(vault) == []


def test_scan_folder_that_is_a_symlink_leading_outside_the_vault_is_not_followed(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write_note(tmp_path, "private/2026-11-29-diary.md", "I live in Porto.")
    vault.mkdir()
    (vault / "_shorts").symlink_to(tmp_path / "private", target_is_directory=True)
    assert read(vault) == [Skipped(path="_shorts", reason="leads outside the vault: not read")]


def test_an_extra_scan_path_outside_the_vault_or_missing_is_named_not_read(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write_note(tmp_path, "outside/2026-11-29-diary.md", "I live in Porto.")
    vault.mkdir()
    assert skipped(vault, extra=["../outside", "journal"]) == {
        "../outside": "leads outside the vault: not read", "journal": "extra scan path not found in the vault"}


def test_a_pipe_named_like_a_note_is_skipped_not_read(tmp_path: Path) -> None:
    (tmp_path / "_shorts").mkdir()
    os.mkfifo(tmp_path / "_shorts" / "2026-11-29-pipe.md")
    assert skipped(tmp_path) == {"_shorts/2026-11-29-pipe.md": "not a regular file (a pipe, socket or device)"}


def test_a_note_starting_with_a_byte_order_mark_keeps_its_frontmatter(tmp_path: Path) -> None:
    write_file(tmp_path, "_shorts/bom.md", b"\xef\xbb\xbf---\ncreated: 2026-11-20\n---\nI love tea.\n")
    assert sources(tmp_path)["_shorts/bom.md"].date == day("2026-11-20")


def test_symlinked_note_inside_the_vault_is_read(tmp_path: Path) -> None:
    target = write_note(tmp_path, "archive/2026-11-29-diary.md", "I live in Porto.")
    (tmp_path / "_shorts").mkdir()
    (tmp_path / "_shorts" / "2026-11-29-diary.md").symlink_to(target)
    assert list(sources(tmp_path)) == ["_shorts/2026-11-29-diary.md"]


# The cheap prefilter must not lose a note the window holds


def test_note_with_old_file_name_but_recent_mtime_and_frontmatter_date_is_read(tmp_path: Path) -> None:
    write_note(tmp_path, "_shorts/2025-01-01-revisited.md", "I live in Porto.", created="2026-11-29",
               mtime=day("2026-11-29"))
    window = Window(mode="incremental", start=day("2026-11-29"), today=TODAY)
    assert list(sources(tmp_path, window=window)) == ["_shorts/2025-01-01-revisited.md"]


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The vault-relative paths FolderVault opens, in order."""
    paths: list[str] = []
    original = FolderVault._read

    def counted(self: FolderVault, path: Path, rel: str, kind: SourceKind) -> Source | None:
        paths.append(rel)
        return original(self, path, rel, kind)

    monkeypatch.setattr(FolderVault, "_read", counted)
    return paths


RECENT = Window(mode="incremental", start=day("2026-11-29"), today=TODAY)


def test_note_without_date_prefix_modified_before_the_window_is_not_opened(tmp_path: Path, opened: list[str]) -> None:
    write_file(tmp_path, "_shorts/old-thought.md", "I live in Porto.\n", mtime=day("2026-03-01"))
    assert (read(tmp_path, window=RECENT), opened) == ([], [])


def test_note_named_before_the_window_and_untouched_since_is_not_opened(tmp_path: Path, opened: list[str]) -> None:
    short(tmp_path, "2026-03-01", "I live in Porto.")
    assert (read(tmp_path, window=RECENT), opened) == ([], [])


def a_year_of_notes(vault: Path, dated_folders: bool) -> None:
    """Three notes a month before the window, each folder last changed by its newest note."""
    for month in range(1, 12):
        for d in (1, 15, 28):
            date = dt.date(2026, month, d)
            folder = f"_shorts/2026/{month:02d}" if dated_folders else "_shorts"
            note = write_note(vault, f"{folder}/{date}-note.md", "I live in Porto.", created=str(date), mtime=date)
            set_mtime(note.parent, date)


@pytest.mark.parametrize("dated_folders", [False, True], ids=["one folder", "YYYY/MM folders"])
def test_incremental_scan_opens_only_the_notes_its_window_may_hold(tmp_path: Path, opened: list[str],
                                                                   dated_folders: bool) -> None:
    a_year_of_notes(tmp_path, dated_folders)
    write_note(tmp_path, "_shorts/2026/11/2026-11-29-note.md" if dated_folders else "_shorts/2026-11-29-note.md",
               "I live in Porto.", created="2026-11-29", mtime=day("2026-11-29"))
    read(tmp_path, window=RECENT)
    assert [Path(p).name for p in opened] == ["2026-11-29-note.md"]


def test_old_named_note_edited_in_a_folder_unchanged_since_the_window_began_is_not_opened(
        tmp_path: Path, opened: list[str]) -> None:
    # Its date (frontmatter, else name) is what it was when it was created, before the window.
    note = write_note(tmp_path, "_shorts/2026/03/2026-03-01-walk.md", "I live in Porto.", created="2026-03-01",
                      mtime=day("2026-11-29"))
    set_mtime(note.parent, day("2026-03-01"))
    assert (read(tmp_path, window=RECENT), opened) == ([], [])


def test_note_created_in_the_window_under_an_old_name_is_read(tmp_path: Path) -> None:
    write_note(tmp_path, "_shorts/2026/03/2026-03-01-walk.md", "I live in Porto.", created="2026-11-29",
               mtime=day("2026-11-29"))  # its folder's mtime is now: a file was just created in it
    assert list(sources(tmp_path, window=RECENT)) == ["_shorts/2026/03/2026-03-01-walk.md"]


def test_edited_note_without_date_in_an_unchanged_folder_is_read(tmp_path: Path) -> None:
    note = write_file(tmp_path, "_shorts/ideas/thoughts.md", "I live in Porto.\n", mtime=day("2026-11-29"))
    set_mtime(note.parent, day("2026-03-01"))
    assert sources(tmp_path, window=RECENT)["_shorts/ideas/thoughts.md"].date == day("2026-11-29")


def test_edited_knowledge_unit_with_a_dated_name_in_an_unchanged_folder_is_read(tmp_path: Path) -> None:
    note = unit(tmp_path, "2025-01-01-raft", "Leader election.", "2025-01-01", title="Raft", updated=day("2026-11-29"))
    set_mtime(note, day("2026-11-29"))
    set_mtime(note.parent, day("2025-01-01"))
    assert sources(tmp_path, window=RECENT)["_knowledge/2025-01-01-raft.md"].date == day("2026-11-29")


def test_note_named_after_today_but_written_in_the_window_is_read(tmp_path: Path) -> None:
    write_note(tmp_path, "_shorts/2026-12-24-christmas.md", "I want to cook for everyone.", created="2026-11-29",
               mtime=day("2026-11-29"))
    assert list(sources(tmp_path, window=RECENT)) == ["_shorts/2026-12-24-christmas.md"]


def test_dangling_symlink_in_shorts_is_skipped_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "_shorts").mkdir()
    (tmp_path / "_shorts" / "2026-11-29-gone.md").symlink_to(tmp_path / "_shorts" / "missing.md")
    assert list(skipped(tmp_path)) == ["_shorts/2026-11-29-gone.md"]
