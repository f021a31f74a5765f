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
    note(vault, f"{SCOPE}/design.md", "I love the SQLite index we chose.")
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
    ('shorts_paths = ["projects/a/journal"]\n[scopes.a]\nfolders = ["projects/a"]\n',
     "holds the shorts path 'projects/a/journal'"),
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


# The refresh


def test_the_persons_refresh_leaves_the_scopes_notes_out(tmp_path: Path) -> None:
    vault = vault_with_a_scope(tmp_path)
    refreshed(vault)
    person = memory(vault / "_memory")
    assert "Lives in Lisbon" in person and "Wants to plant tomatoes" in person
    assert "SQLite" not in person
