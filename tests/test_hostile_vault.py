"""Hostile notes and vaults (issue 9): whatever a vault holds, a run ends, names what it could not read,
and leaves nothing stuck — an alias bomb, a symlink loop, a pipe named like a memory file, a broken journal,
a setting or a date past the calendar's end."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from cli_helpers import hylo, one_line
from proc_helpers import HYLO, cli_env
from vault_helpers import MEMORY, identity, short, texts, write_file

from hylo_memory.decay import Dimension
from hylo_memory.pipeline.config import load_config
from hylo_memory.pipeline.state import journal as journal_module
from hylo_memory.pipeline.state.journal import journal_path
from hylo_memory.pipeline.state.writing import open_store

TODAY = "2026-11-30"


def refresh_json(vault: Path, *args: str) -> dict:
    result = hylo("refresh", "--vault", vault, "--today", TODAY, "--json", *args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def skipped(summary: dict) -> dict[str, str]:
    return {s["path"]: s["reason"] for s in summary["skipped"]}


def a_vault(root: Path) -> Path:
    """A vault with one readable note, so a run that goes on is seen to go on."""
    short(root, "2026-11-29", "I love green tea.", slug="tea")
    return root


def unit_text(front: str, body: str = "A unit.") -> str:
    return f"---\n{front.strip()}\ncreated: 2026-11-20\n---\n{body}\n"


def alias_bomb(size: int = 519) -> bytes:
    """A knowledge unit whose `tags` expand, through nine levels of aliases, to 9**9 (387,420,489) strings."""
    lines = ["---", "title: Reading list", "perspective: external", "created: 2026-11-20",
             'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
    lines += ["tags: *i", "---", ""]
    head = "\n".join(lines)
    body = "Nine talks on one theme, nine times over"
    text = head + body + "." * (size - len(head) - len(body) - 1) + "\n"
    return text.encode("utf-8")


# 1. Frontmatter out of proportion to its bytes, or not of the types docs/spec.md §1 names


def test_a_519_byte_alias_bomb_is_skipped_and_named_and_the_run_goes_on(tmp_path: Path) -> None:
    bomb = alias_bomb()
    assert len(bomb) == 519
    write_file(a_vault(tmp_path), "_knowledge/bomb.md", bomb)
    started = time.perf_counter()
    summary = refresh_json(tmp_path)
    elapsed = time.perf_counter() - started
    print(f"alias bomb: refresh took {elapsed:.3f}s")  # the bound, one second, is checked in bench/
    assert "YAML aliases" in skipped(summary)["_knowledge/bomb.md"]
    assert summary["sources"]["shorts"] == 1 and summary["status"] == "ok"


def test_frontmatter_that_holds_itself_through_an_alias_is_skipped_and_named(tmp_path: Path) -> None:
    write_file(a_vault(tmp_path), "_knowledge/loop.md", unit_text("title: Loop\ntags: &t [a, *t]"))
    assert "holds itself" in skipped(refresh_json(tmp_path))["_knowledge/loop.md"]


def test_a_few_aliases_in_proportion_are_read(tmp_path: Path) -> None:
    front = "base: &b [cooking, travel]\ntags: *b\ntitle: Kitchen notes\nperspective: own"
    write_file(a_vault(tmp_path), "_knowledge/kitchen.md", unit_text(front))
    summary = refresh_json(tmp_path)
    assert summary["skipped"] == [] and summary["sources"]["knowledge"] == 1


def test_frontmatter_larger_than_its_bound_is_skipped_and_named(tmp_path: Path) -> None:
    write_file(a_vault(tmp_path), "_knowledge/big.md", unit_text("title: Big\nnotes: " + "x" * 70_000))
    assert "frontmatter larger than 65,536 bytes" in skipped(refresh_json(tmp_path))["_knowledge/big.md"]


def test_frontmatter_nested_too_deeply_is_skipped_and_named(tmp_path: Path) -> None:
    write_file(a_vault(tmp_path), "_knowledge/deep.md", unit_text("title: Deep\nx: " + "[" * 5000 + "]" * 5000))
    assert "nested" in skipped(refresh_json(tmp_path))["_knowledge/deep.md"]


@pytest.mark.parametrize(("front", "reason"), [
    ("title: [a, b]", "frontmatter 'title' is a list, not text"),
    ("title: {a: b}", "frontmatter 'title' is a mapping, not text"),
    ("tags: [cooking, [nested, list]]", "frontmatter 'tags' holds a list, not text"),
    ("tags: {cooking: yes}", "frontmatter 'tags' is a mapping, not a list"),
    ("source_notes: [[a, b]]", "frontmatter 'source_notes' holds a list, not text"),
    ("perspective: [own]", "frontmatter 'perspective' is a list, not text"),
], ids=["title-list", "title-mapping", "tag-list", "tags-mapping", "source-note-list", "perspective-list"])
def test_a_unit_field_of_the_wrong_type_is_skipped_and_named(tmp_path: Path, front: str, reason: str) -> None:
    write_file(a_vault(tmp_path), "_knowledge/odd.md", unit_text(front))
    assert skipped(refresh_json(tmp_path)) == {"_knowledge/odd.md": reason}


@pytest.mark.parametrize(("front", "reason"), [
    ("title: " + "t" * 301, "frontmatter 'title' is longer than 300 characters"),
    ("tags: [" + ", ".join(f"t{i}" for i in range(51)) + "]", "frontmatter 'tags' has 51 entries (at most 50)"),
    ("tags: [" + "t" * 101 + "]", "frontmatter 'tags' has an entry longer than 100 characters"),
    ("source_notes: [" + ", ".join(f"n{i}" for i in range(101)) + "]",
     "frontmatter 'source_notes' has 101 entries (at most 100)"),
], ids=["long-title", "many-tags", "long-tag", "many-source-notes"])
def test_a_unit_field_past_its_bound_is_skipped_and_named(tmp_path: Path, front: str, reason: str) -> None:
    write_file(a_vault(tmp_path), "_knowledge/big.md", unit_text(front))
    assert skipped(refresh_json(tmp_path)) == {"_knowledge/big.md": reason}


def test_fields_inside_their_bounds_are_read_whole(tmp_path: Path) -> None:
    tags = [f"t{i}" for i in range(50)]
    front = f"title: {'t' * 300}\ntags: [{', '.join(tags)}]\nperspective: own"
    write_file(a_vault(tmp_path), "_knowledge/full.md", unit_text(front))
    summary = refresh_json(tmp_path)
    assert summary["skipped"] == [] and summary["sources"]["knowledge"] == 1


@pytest.mark.parametrize("created", ["0001-01-01", "9999-12-31"])
def test_a_frontmatter_date_past_the_calendars_bounds_falls_back_to_the_file_names(
        tmp_path: Path, created: str) -> None:
    write_file(tmp_path, "_shorts/2026-11-29-odd.md", f"---\ncreated: {created}\n---\nI love oolong.\n")
    summary = refresh_json(tmp_path)
    assert summary["sources"]["shorts"] == 1 and summary["skipped"] == []
    assert "Loves oolong" in texts(tmp_path, Dimension.preferences)


# 1. A journal that cannot be read or replayed is set aside, never a vault stuck


def garbage_journal(vault: Path, data: bytes) -> Path:
    path = journal_path(open_store(vault, load_config()))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_a_garbage_journal_is_set_aside_kept_and_named_in_one_line_and_the_refresh_goes_on(tmp_path: Path) -> None:
    path = garbage_journal(a_vault(tmp_path), b"\x00\xffnot a journal")
    result = hylo("refresh", "--vault", tmp_path, "--today", TODAY, "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["sources"]["shorts"] == 1
    (aside,) = path.parent.glob("journal.json.broken-*")
    assert aside.read_bytes() == b"\x00\xffnot a journal" and not path.exists()
    line = one_line(result.stderr)
    assert str(path) in line and aside.name in line and "may be read again" in line


def test_a_journal_larger_than_a_run_writes_is_set_aside_unread(tmp_path: Path) -> None:
    path = garbage_journal(a_vault(tmp_path), b"")
    with path.open("r+b") as handle:
        handle.truncate(3 * 1024**3)  # sparse: 3 GB that take no disk and would never be read
    result = hylo("remember", "I'm vegetarian", "--vault", tmp_path, "--today", TODAY)
    assert result.exit_code == 0, result.stderr
    assert "more than a run writes" in one_line(result.stderr)
    assert not path.exists() and len(list(path.parent.glob("journal.json.broken-*"))) == 1


def test_a_journal_holding_fields_far_longer_than_a_vaults_is_set_aside_before_anything_is_written(
        tmp_path: Path) -> None:
    pool = [{"path": "_knowledge/x.md", "title": "x" * 100_000, "tags": [], "date": "2026-11-20"}]
    journal = {"files": {"identity": "---\ndecay_window: 365d\n---\n## Active\n- Lives on the moon `last:2026-11-20 seen:1`\n"},
               "pool": pool}
    path = garbage_journal(a_vault(tmp_path), json.dumps(journal).encode())
    result = hylo("remember", "I love tea", "--vault", tmp_path, "--dimension", "preferences", "--today", TODAY)
    assert result.exit_code == 0, result.stderr
    assert "far longer than a vault's" in one_line(result.stderr)
    assert not path.exists() and not (tmp_path / MEMORY / "_identity.md").exists()


def test_a_journal_whose_replay_fails_is_set_aside_and_the_command_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_apply, calls = journal_module._apply, []

    def overflow(*args: object) -> None:  # the replay fails; the command's own commit, after it, does not
        calls.append(args)
        if len(calls) == 1:
            raise OverflowError("Python int too large to convert to SQLite INTEGER")
        real_apply(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(journal_module, "_apply", overflow)
    path = garbage_journal(a_vault(tmp_path), json.dumps({"files": {}}).encode())
    result = hylo("remember", "I love tea", "--vault", tmp_path, "--dimension", "preferences", "--today", TODAY)
    assert result.exit_code == 0, result.stderr
    assert "cannot be replayed (OverflowError)" in one_line(result.stderr)
    assert not path.exists() and len(list(path.parent.glob("journal.json.broken-*"))) == 1
    assert texts(tmp_path, Dimension.preferences)  # the fact was kept


def test_a_pipe_named_like_the_journal_is_set_aside_at_once(tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes on this platform")
    path = garbage_journal(a_vault(tmp_path), b"")
    path.unlink()
    os.mkfifo(path)
    result = hylo("remember", "I'm vegetarian", "--vault", tmp_path, "--today", TODAY)
    assert result.exit_code == 0 and "not a regular file" in one_line(result.stderr)


# 2. A symlink loop is skipped and named, like every unreadable note


def test_a_symlink_loop_is_skipped_and_named_and_the_run_goes_on(tmp_path: Path) -> None:
    a_vault(tmp_path)
    (tmp_path / "_shorts" / "loop.md").symlink_to("loop.md")
    summary = refresh_json(tmp_path)
    assert "symlink loop" in skipped(summary)["_shorts/loop.md"]
    assert summary["sources"]["shorts"] == 1


def test_two_notes_linked_to_each_other_are_both_skipped_and_named(tmp_path: Path) -> None:
    a_vault(tmp_path)
    (tmp_path / "_knowledge").mkdir()
    (tmp_path / "_knowledge" / "a.md").symlink_to("b.md")
    (tmp_path / "_knowledge" / "b.md").symlink_to("a.md")
    assert set(skipped(refresh_json(tmp_path))) == {"_knowledge/a.md", "_knowledge/b.md"}


# 3. Anything in the memory folder that is not a regular file is refused; symlinks only inside the vault


@pytest.mark.slow
def test_a_pipe_named_like_a_memory_file_makes_remember_end_at_once_in_one_line(tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes on this platform")
    vault = a_vault(tmp_path / "vault")
    (vault / MEMORY).mkdir()
    os.mkfifo(vault / MEMORY / "_preferences.md")
    done = subprocess.run([HYLO, "remember", "I love tea", "--vault", str(vault), "--dimension", "preferences",
                           "--today", TODAY], env=cli_env(tmp_path / "home"), capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 1
    assert "_preferences.md" in one_line(done.stderr) and "not a regular file" in done.stderr


def test_a_folder_named_like_a_memory_file_is_refused_in_one_line(tmp_path: Path) -> None:
    (a_vault(tmp_path) / MEMORY / "_preferences.md").mkdir(parents=True)
    result = hylo("refresh", "--vault", tmp_path, "--today", TODAY)
    assert result.exit_code == 1 and "_preferences.md: not a regular file" in one_line(result.stderr)


def test_a_memory_file_linked_inside_the_vault_is_followed_and_its_target_written(tmp_path: Path) -> None:
    vault = a_vault(tmp_path)
    target = write_file(vault, "kept/preferences.md", "---\ndecay_window: 90d\nlast_updated: 2026-01-01\n---\n"
                                                       "## Active\n- Loves jazz `last:2026-11-01 seen:1`\n")
    (vault / MEMORY).mkdir()
    link = vault / MEMORY / "_preferences.md"
    link.symlink_to(Path("..") / "kept" / "preferences.md")
    refresh_json(vault)
    assert link.is_symlink() and "Loves green tea" in target.read_text(encoding="utf-8")
    assert "Loves jazz" in target.read_text(encoding="utf-8")
    assert not [p for p in target.parent.iterdir() if p.name.endswith(".tmp")]


def test_a_memory_file_linked_outside_the_vault_is_refused_and_left_alone(tmp_path: Path) -> None:
    vault = a_vault(tmp_path / "vault")
    outside = write_file(tmp_path, "elsewhere.md", "not yours\n")
    (vault / MEMORY).mkdir()
    (vault / MEMORY / "_preferences.md").symlink_to(outside)
    result = hylo("refresh", "--vault", vault, "--today", TODAY)
    assert result.exit_code == 1 and "outside the vault" in one_line(result.stderr)
    assert outside.read_text(encoding="utf-8") == "not yours\n"


def test_a_memory_dir_that_leads_outside_the_vault_is_refused(tmp_path: Path) -> None:
    vault = a_vault(tmp_path / "vault")
    (tmp_path / "elsewhere").mkdir()
    (vault / MEMORY).symlink_to(tmp_path / "elsewhere")
    result = hylo("remember", "I love tea", "--vault", vault, "--today", TODAY)
    assert result.exit_code == 1 and "memory_dir leads to" in one_line(result.stderr)
    assert list((tmp_path / "elsewhere").iterdir()) == []


# 4. Numbers out of range: every setting bounded, one line each


def test_memory_dir_dot_is_refused_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYLO_MEMORY_MEMORY_DIR", ".")
    result = hylo("refresh", "--vault", a_vault(tmp_path), "--today", TODAY)
    assert result.exit_code != 0 and "'.' is the vault itself" in one_line(result.stderr)


@pytest.mark.parametrize(("setting", "value"), [
    ("first_run_days", "100000000"), ("incremental_days", "100000000"), ("pool_days", "100000000"),
    ("max_note_bytes", "100000000000"), ("archive_keep", "100000000"), ("lock_timeout", "1e300"),
    ("per_run_cap", "10000000000"), ("timeout", "1e300"), ("concurrency", "100000"), ("retries", "1000000"),
    ("lock_timeout", "nan"),
])
def test_a_setting_past_its_ceiling_is_refused_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           setting: str, value: str) -> None:
    monkeypatch.setenv(f"HYLO_MEMORY_{setting.upper()}", value)
    result = hylo("refresh", "--vault", a_vault(tmp_path), "--today", TODAY)
    assert result.exit_code != 0 and f"{setting}: " in one_line(result.stderr)


def test_the_longest_first_window_runs_from_the_earliest_today(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("first_run_days = 36500\n", encoding="utf-8")
    result = hylo("refresh", "--vault", a_vault(tmp_path), "--today", "1900-01-01", "--config",
                  tmp_path / "config.toml", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["window_days"] == 36500


def test_an_incremental_run_with_the_longest_window_ends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    identity(a_vault(tmp_path))
    monkeypatch.setenv("HYLO_MEMORY_INCREMENTAL_DAYS", "36500")
    assert refresh_json(tmp_path)["mode"] == "incremental"



def test_a_folder_of_notes_that_is_a_symlink_loop_is_named_as_one(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-29", "I love green tea.", slug="tea")
    (tmp_path / "_knowledge").symlink_to("_knowledge")
    assert "symlink loop" in skipped(refresh_json(tmp_path))["_knowledge"]


def test_an_archive_folder_linked_outside_the_vault_is_refused_and_nothing_written_there(tmp_path: Path) -> None:
    vault = a_vault(tmp_path / "vault")
    hylo("remember", "I love tea", "--vault", vault, "--dimension", "preferences", "--today", TODAY)
    (tmp_path / "elsewhere").mkdir()
    (vault / MEMORY / ".archive").symlink_to(tmp_path / "elsewhere")
    result = hylo("remember", "I love jazz", "--vault", vault, "--dimension", "preferences", "--today", TODAY)
    assert result.exit_code == 1 and "outside the vault" in one_line(result.stderr)
    assert list((tmp_path / "elsewhere").iterdir()) == []
