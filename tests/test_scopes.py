"""Scopes (docs/spec.md §1.1): a folder of the vault with a memory of its own, a project's beside the person's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import hylo, one_line
from freezegun import freeze_time

# The commands' modules define dated models: loaded before any test freezes the clock (as conftest does the vaults').
import hylo_memory.pipeline.cli.assist  # noqa: F401
import hylo_memory.pipeline.cli.memory  # noqa: F401
import hylo_memory.pipeline.cli.trust  # noqa: F401
from hylo_memory.errors import ConfigError
from hylo_memory.pipeline.config import Config, load_config
from hylo_memory.pipeline.scopes import MAX_SCOPES, scope_config

TODAY = "2026-03-03"
SCOPE = "projects/tidepool"
SCOPE_MEMORY = f"{SCOPE}/_memory"


def write(vault: Path, rel: str, text: str) -> Path:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def note(vault: Path, rel: str, text: str, day: str = "2026-03-02") -> Path:
    return write(vault, rel, f"---\ncreated: {day}\n---\n{text}\n")


def settings(vault: Path, text: str) -> Path:
    return write(vault, ".hylo-memory.toml", text)


TIDEPOOL = f'[scopes.tidepool]\nfolders = ["{SCOPE}"]\n'


def vault_with_a_scope(tmp_path: Path) -> Path:
    """The person's short note, and a project's note under projects/tidepool, a scope."""
    vault = tmp_path / "vault"
    settings(vault, 'extra_scan_paths = ["projects"]\n' + TIDEPOOL)
    note(vault, "_shorts/2026-03-01.md", "I live in Lisbon.", "2026-03-01")
    note(vault, f"{SCOPE}/design.md", "I prefer SQLite for the index.")
    note(vault, "projects/garden/plan.md", "I want to plant tomatoes this spring.")
    return vault


def refreshed(vault: Path, *args: str) -> str:
    with freeze_time(f"{TODAY} 12:00:00"):
        result = hylo("refresh", "--vault", vault, "--extractor", "offline", "--today", TODAY, *args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def memory(folder: Path) -> str:
    """Every memory file of `folder`, one after the other."""
    return "".join(p.read_text(encoding="utf-8") for p in sorted(folder.glob("_*.md")))


# The configuration


def test_a_scope_is_read_from_the_vaults_own_file(tmp_path: Path) -> None:
    vault = vault_with_a_scope(tmp_path)
    assert load_config(vault=str(vault)).scopes["tidepool"].folders == [SCOPE]


def test_a_scopes_config_is_the_persons_with_its_memory_in_its_first_folder() -> None:
    config = Config(scopes={"tidepool": {"folders": [f"{SCOPE}/", "notes/tidepool"]}}, timezone="Europe/Lisbon")
    scope = scope_config(config, "tidepool")
    assert (scope.memory_dir, scope.extra_scan_paths, scope.shorts_paths, scope.knowledge_paths) == (
        SCOPE_MEMORY, [SCOPE, "notes/tidepool"], [], [])
    assert scope.timezone == "Europe/Lisbon" and scope.scopes == {}


@pytest.mark.parametrize(("table", "said"), [
    ('[scopes."tide pool"]\nfolders = ["p"]\n', "scope name 'tide pool' must be"),
    ('[scopes.tidepool]\nfolders = ["../elsewhere"]\n', "must be a folder inside the vault"),
    ('[scopes.tidepool]\nfolders = ["/abs"]\n', "must be a folder inside the vault"),
    ('[scopes.tidepool]\nfolders = ["."]\n', "must be a folder inside the vault"),
    ('[scopes.tidepool]\nfolders = []\n', "at least 1 item"),
    ('[scopes.tidepool]\nfolder = ["p"]\n', "folder"),
    ('[scopes.a]\nfolders = ["projects"]\n[scopes.b]\nfolders = ["projects/b"]\n',
     "scope 'a' folder 'projects' overlaps scope 'b' folder 'projects/b'"),
    ('[scopes.a]\nfolders = ["_memory/x"]\n', "overlaps memory_dir '_memory'"),
])
def test_a_scope_that_cannot_be_is_refused_in_one_line_naming_the_file(tmp_path: Path, table: str, said: str) -> None:
    file = settings(tmp_path, table)
    with pytest.raises(ConfigError) as caught:
        load_config(vault=str(tmp_path))
    assert said in str(caught.value) and str(file) in str(caught.value) and "\n" not in str(caught.value)


def test_more_scopes_than_the_ceiling_are_refused(tmp_path: Path) -> None:
    settings(tmp_path, "".join(f'[scopes.s{n}]\nfolders = ["p/{n}"]\n' for n in range(MAX_SCOPES + 1)))
    with pytest.raises(ConfigError, match=f"at most {MAX_SCOPES} scopes"):
        load_config(vault=str(tmp_path))


def test_a_hylo_vault_by_url_refuses_scopes_in_one_line(tmp_path: Path) -> None:
    user = write(tmp_path, "config.toml", 'vault = "http://127.0.0.1:54321/mcp"\n' + TIDEPOOL)
    with pytest.raises(ConfigError) as caught:
        load_config(user)
    assert "scopes need a vault folder: a Hylo vault by URL" in str(caught.value)


def test_a_folder_holding_a_scope_may_be_the_persons(tmp_path: Path) -> None:
    vault = vault_with_a_scope(tmp_path)  # extra_scan_paths = ["projects"], the scope projects/tidepool
    assert load_config(vault=str(vault)).extra_scan_paths == ["projects"]


def test_a_folder_of_the_persons_inside_a_scope_is_read_into_the_scope_alone(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    settings(vault, 'extra_scan_paths = ["kelp"]\n[scopes.kelp]\nfolders = ["kelp"]\n')  # as init proposes both
    note(vault, "kelp/design.md", "I prefer SQLite for the index.")
    refreshed(vault)
    assert "SQLite" in memory(vault / "kelp/_memory") and "SQLite" not in memory(vault / "_memory")


# The refresh


def test_the_persons_refresh_leaves_the_scopes_notes_out(tmp_path: Path) -> None:
    vault = vault_with_a_scope(tmp_path)
    refreshed(vault)
    person = memory(vault / "_memory")
    assert "Lives in Lisbon" in person and "Wants to plant tomatoes" in person
    assert "SQLite" not in person


def test_each_scope_is_refreshed_from_its_own_notes_after_the_person(tmp_path: Path) -> None:
    vault = vault_with_a_scope(tmp_path)
    out = refreshed(vault)
    assert "Prefers SQLite for the index" in memory(vault / SCOPE_MEMORY)
    assert "Lisbon" not in memory(vault / SCOPE_MEMORY)
    assert out.index("Lives in Lisbon") < out.index(f"Scope tidepool ({SCOPE_MEMORY}/):") < out.index("SQLite")


def test_the_persons_own_file_holds_in_every_scope(tmp_path: Path) -> None:
    vault = vault_with_a_scope(tmp_path)
    write(vault, "_memory/_me.md", "I love Redis.\n")  # the person's own word, in the person's memory folder
    note(vault, f"{SCOPE}/cache.md", "I hate Redis.")
    out = refreshed(vault)
    assert "Redis" not in memory(vault / SCOPE_MEMORY)  # the scope's evidence says its opposite: not kept
    assert 'conflicts with _me.md: "I love Redis."' in out[out.index("Scope tidepool"):]


@pytest.mark.parametrize("made", ["missing", "a file"])
def test_a_scope_whose_folder_is_missing_or_a_file_is_not_run_and_the_person_still_is(tmp_path: Path,
                                                                                       made: str) -> None:
    vault = vault_with_a_scope(tmp_path)
    settings(vault, 'extra_scan_paths = ["projects"]\n' + TIDEPOOL + '[scopes.ghost]\nfolders = ["projects/ghost"]\n')
    if made == "a file":
        write(vault, "projects/ghost", "not a folder\n")
    with freeze_time(f"{TODAY} 12:00:00"):
        result = hylo("refresh", "--vault", vault, "--extractor", "offline", "--today", TODAY, "--json")
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert f"hylo-memory: scope ghost: its folder {vault / 'projects' / 'ghost'} is " in result.stderr
    data = json.loads(result.stdout)
    assert "problem" in data["scopes"]["ghost"] and "Lives in Lisbon" in memory(vault / "_memory")
    assert "Prefers SQLite for the index" in memory(vault / SCOPE_MEMORY)  # the other scope still runs
    assert not (vault / "projects" / "ghost" / "_memory").exists()  # nothing of it made in the vault


def test_a_scopes_ledger_and_state_live_in_its_own_memory_folder(tmp_path: Path) -> None:
    vault = vault_with_a_scope(tmp_path)
    refreshed(vault)
    assert (vault / SCOPE_MEMORY / ".state" / "ledger.db").is_file()
    assert (vault / "_memory" / ".state" / "ledger.db").is_file()


def test_the_summary_as_json_holds_each_scopes_under_its_name(tmp_path: Path) -> None:
    vault = vault_with_a_scope(tmp_path)
    data = json.loads(refreshed(vault, "--json"))
    assert data["sources"]["extra"] == 1 and data["scopes"]["tidepool"]["sources"]["extra"] == 1
    assert data["scopes"]["tidepool"]["memory_dir"] == SCOPE_MEMORY


def test_a_scopes_memory_is_never_read_as_its_notes(tmp_path: Path) -> None:
    vault = vault_with_a_scope(tmp_path)
    refreshed(vault)
    note(vault, f"{SCOPE}/later.md", "I prefer SQLite for the index.", "2026-03-03")  # a known fact again
    data = json.loads(refreshed(vault, "--json"))["scopes"]["tidepool"]
    assert data["sources"]["extra"] == 1 and data["skipped"] == []  # the new note; no memory file among them
    assert "seen:2" in (vault / SCOPE_MEMORY / "_preferences.md").read_text(encoding="utf-8")


def test_a_dry_run_writes_no_scopes_memory(tmp_path: Path) -> None:
    vault = vault_with_a_scope(tmp_path)
    out = refreshed(vault, "--dry-run")
    assert f"+++ {vault.resolve() / SCOPE_MEMORY / '_preferences.md'}" in out
    assert not (vault / SCOPE_MEMORY).exists()


# The readers and the trust commands


def run(*args: str | Path) -> str:
    with freeze_time(f"{TODAY} 12:00:00"):
        result = hylo(*args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_context_with_a_scope_gives_the_persons_memory_then_the_scopes_under_its_name(tmp_path: Path) -> None:
    vault = vault_with_a_scope(tmp_path)
    refreshed(vault)
    out = run("context", "--vault", vault, "--scope", "tidepool")
    assert out.startswith("# About the user\n")
    assert out.index("Lives in Lisbon") < out.index("\n# Scope tidepool\n") < out.index("SQLite")


def test_context_with_a_scope_stays_within_its_budget(tmp_path: Path) -> None:
    from hylo_memory.extractors.llm.tokens import estimate_tokens

    vault = vault_with_a_scope(tmp_path)
    for n in range(40):
        note(vault, f"{SCOPE}/n{n}.md", f"I love the tool number {n} of the project.")
        note(vault, f"_shorts/n{n}.md", f"I love the hobby number {n} of mine.")
    refreshed(vault)
    out = run("context", "--vault", vault, "--scope", "tidepool", "--budget", "300")
    assert estimate_tokens(out) <= 300 and "# Scope tidepool" in out and "# About the user" in out


def test_context_with_a_scope_as_json_holds_the_scopes_block_under_scope(tmp_path: Path) -> None:
    vault = vault_with_a_scope(tmp_path)
    refreshed(vault)
    data = json.loads(run("context", "--vault", vault, "--scope", "tidepool", "--json"))
    assert data["scope"]["name"] == "tidepool" and "SQLite" in data["scope"]["text"] and "SQLite" not in data["text"]


def test_recall_with_a_scope_searches_the_scopes_memory(tmp_path: Path) -> None:
    vault = vault_with_a_scope(tmp_path)
    refreshed(vault)
    assert "SQLite" in run("recall", "sqlite", "--vault", vault, "--scope", "tidepool")
    assert "SQLite" not in run("recall", "sqlite", "--vault", vault)


def test_why_with_a_scope_names_the_scopes_source(tmp_path: Path) -> None:
    vault = vault_with_a_scope(tmp_path)
    refreshed(vault)
    assert f"{SCOPE}/design.md" in run("why", "Prefers SQLite for the index", "--vault", vault, "--scope", "tidepool")


def test_forget_with_a_scope_forgets_in_the_scopes_memory_alone(tmp_path: Path) -> None:
    vault = vault_with_a_scope(tmp_path)
    refreshed(vault)
    person = memory(vault / "_memory")
    run("forget", "Prefers SQLite for the index", "--vault", vault, "--scope", "tidepool")
    assert "SQLite" not in memory(vault / SCOPE_MEMORY) and memory(vault / "_memory") == person
    assert "SQLite" in run("forget", "--list", "--vault", vault, "--scope", "tidepool")


def test_status_with_a_scope_reports_the_scopes_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hylo_memory.pipeline.operations.serving import status

    monkeypatch.setattr(status, "read_crontab", lambda: None)  # no `crontab -l`: no process in the fast tier
    vault = vault_with_a_scope(tmp_path)
    refreshed(vault)
    data = json.loads(run("status", "--vault", vault, "--scope", "tidepool", "--json"))
    assert SCOPE_MEMORY in json.dumps(data) and "Lisbon" not in json.dumps(data)


@pytest.mark.parametrize("command", [["context"], ["recall", "x"], ["why", "x"], ["forget", "x"], ["status"],
                                     ["unforget", "x"], ["history"], ["undo"]])
def test_an_unknown_scope_is_one_line_naming_the_known_ones(tmp_path: Path, command: list[str]) -> None:
    vault = vault_with_a_scope(tmp_path)
    result = hylo(*command, "--vault", vault, "--scope", "tidpool")
    assert result.exit_code == 2
    assert "unknown scope 'tidpool' (known: tidepool)" in one_line(result.stderr)


def test_the_quick_path_leaves_a_scope_to_the_full_command(tmp_path: Path) -> None:
    from hylo_memory.pipeline.cli.quick import answer

    vault = vault_with_a_scope(tmp_path)
    refreshed(vault)
    run("context", "--vault", vault)  # the memos kept: the quick path would answer the person's
    assert answer(["context", "--vault", str(vault), "--scope", "tidepool"]) is False


# The MCP tools


def tools(vault: Path):  # type: ignore[no-untyped-def]
    from hylo_memory.pipeline.mcp.backfill import Backfill
    from hylo_memory.pipeline.mcp.calls import Memory
    from hylo_memory.pipeline.mcp.tools import Tools

    memory = Memory(vault.resolve(), load_config(vault=str(vault)), None)
    return Tools(memory, Backfill(memory))


def test_the_mcp_tools_take_a_scope(tmp_path: Path) -> None:
    import anyio

    vault = vault_with_a_scope(tmp_path)
    refreshed(vault)
    served = tools(vault)
    found = anyio.run(lambda: served.recall("sqlite", 10, False, "tidepool"))
    block = anyio.run(lambda: served.context(1500, None, "tidepool"))
    why = anyio.run(lambda: served.why("Prefers SQLite for the index", None, "tidepool"))
    assert "SQLite" in found.content[0].text and "# Scope tidepool" in block.content[0].text  # type: ignore[union-attr]
    assert f"{SCOPE}/design.md" in why.content[0].text  # type: ignore[union-attr]


def test_an_mcp_tool_given_an_unknown_scope_fails_in_one_line(tmp_path: Path) -> None:
    import anyio

    from hylo_memory.pipeline.mcp.calls import Failure

    vault = vault_with_a_scope(tmp_path)
    with pytest.raises(Failure, match=r"unknown scope 'nope' \(known: tidepool\)"):
        anyio.run(lambda: tools(vault).recall("x", 10, False, "nope"))


# init


def test_init_proposes_a_folder_under_projects_as_a_scope_and_writes_none(tmp_path: Path) -> None:
    note(tmp_path, "Journal/2026-03-01.md", "I wrote.")
    for name in ("design", "roadmap"):
        note(tmp_path, f"projects/tidepool/{name}.md", "Notes.")
    result = hylo("init", "--vault", tmp_path, "--yes")
    assert '[scopes.tidepool]\n  folders = ["projects/tidepool"]\n' in result.stdout
    assert "scopes" not in (tmp_path / ".hylo-memory.toml").read_text(encoding="utf-8")


def test_init_proposes_a_folder_whose_notes_carry_its_name(tmp_path: Path) -> None:
    for name in ("standup", "design", "retro"):
        note(tmp_path, f"kelp/kelp-{name}.md", "Notes.")
    note(tmp_path, "kelp/other.md", "Notes.")
    assert "[scopes.kelp]" in hylo("init", "--vault", tmp_path, "--yes").stdout


def test_init_keeps_the_scopes_a_file_declares_and_proposes_them_no_more(tmp_path: Path) -> None:
    for name in ("design", "roadmap"):
        note(tmp_path, f"projects/tidepool/{name}.md", "Notes.")
    settings(tmp_path, 'extra_scan_paths = ["projects"]\n\n' + TIDEPOOL)
    result = hylo("init", "--vault", tmp_path, "--yes", "--force")
    assert result.exit_code == 0, result.stderr
    assert "Scopes proposed" not in result.stdout
    assert load_config(vault=str(tmp_path)).scopes["tidepool"].folders == [SCOPE]


def test_history_and_undo_take_a_scope_too(tmp_path: Path) -> None:
    vault = vault_with_a_scope(tmp_path)
    refreshed(vault)
    run("forget", "Prefers SQLite for the index", "--vault", vault, "--scope", "tidepool")
    assert "forget" in run("history", "--vault", vault, "--scope", "tidepool")
    run("undo", "--vault", vault, "--scope", "tidepool")
    assert "SQLite" in memory(vault / SCOPE_MEMORY)


def test_unforget_takes_a_scope_too(tmp_path: Path) -> None:
    vault = vault_with_a_scope(tmp_path)
    refreshed(vault)
    run("forget", "Prefers SQLite for the index", "--vault", vault, "--scope", "tidepool")
    run("unforget", "Prefers SQLite for the index", "--vault", vault, "--scope", "tidepool")
    assert "SQLite" not in run("forget", "--list", "--vault", vault, "--scope", "tidepool")


def test_a_scopes_candidates_are_listed_promoted_and_rejected_with_its_name(tmp_path: Path) -> None:
    vault = vault_with_a_scope(tmp_path)
    settings(vault, 'extra_scan_paths = ["projects"]\nmin_sightings = 2\n' + TIDEPOOL)
    refreshed(vault)
    waiting = hylo("candidates", "--vault", vault, "--scope", "tidepool", "--json")
    assert waiting.exit_code == 0 and "Prefers SQLite for the index" in waiting.stdout
    assert "SQLite" not in hylo("candidates", "--vault", vault, "--json").stdout  # the person's wait apart
    with freeze_time(f"{TODAY} 12:00:00"):
        done = hylo("promote", "SQLite", "--vault", vault, "--scope", "tidepool", "--today", TODAY)
    assert done.exit_code == 0, done.stderr
    assert "Prefers SQLite for the index" in memory(vault / SCOPE_MEMORY) and "SQLite" not in memory(vault / "_memory")
