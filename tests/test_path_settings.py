"""A path setting that no path can be (a NUL byte) is one line naming the setting, whichever command meets it and
wherever it was given: the config file or the command line (docs/spec.md §7)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import hylo, one_line

COMMANDS = [("status",), ("pending",), ("context",), ("refresh", "--dry-run")]
NUL = "\0"


def vault_in(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    (vault / "_shorts").mkdir(parents=True)
    (vault / "_shorts" / "2026-01-01.md").write_text("I love long walks.\n", encoding="utf-8")
    return vault


def config_file(tmp_path: Path, line: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(line + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_nul_in_a_path_setting_of_the_config_file_is_one_line_naming_it(tmp_path: Path,
                                                                          command: tuple[str, ...]) -> None:
    config = config_file(tmp_path, 'memory_dir = "_mem\\u0000ory"')
    done = hylo(*command, "--config", config, "--vault", vault_in(tmp_path))
    assert done.exit_code == 1 and done.stdout == ""
    line = one_line(done.stderr)
    assert str(config) in line and "memory_dir" in line and "NUL byte" in line


@pytest.mark.parametrize("setting", [
    'vault = "VAULT\\u0000"', 'memory_dir = "_mem\\u0000ory"', 'shorts_paths = ["_shorts", "jour\\u0000nal"]',
    'knowledge_paths = ["\\u0000"]', 'extra_scan_paths = ["a/\\u0000b"]', 'state_dir = "/tmp/st\\u0000ate"'])
def test_every_path_setting_is_checked_for_a_nul(tmp_path: Path, setting: str) -> None:
    vault = vault_in(tmp_path)
    config = config_file(tmp_path, setting.replace("VAULT", str(vault)))
    given = [] if setting.startswith("vault") else ["--vault", vault]
    done = hylo("status", "--config", config, *given)
    name = setting.split(" ")[0]
    line = one_line(done.stderr)
    assert done.exit_code == 1 and f": {name}: " in line and "NUL byte" in line


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
@pytest.mark.parametrize("option", ["--vault", "--config"])
def test_a_nul_in_a_path_option_is_a_usage_mistake_naming_it(tmp_path: Path, command: tuple[str, ...],
                                                             option: str) -> None:
    vault = vault_in(tmp_path)
    given = {"--vault": f"{vault}{NUL}x", "--config": f"{config_file(tmp_path, '')}{NUL}"}
    others = ["--vault", str(vault)] if option == "--config" else []
    done = hylo(*command, option, given[option], *others)
    line = one_line(done.stderr)
    assert done.exit_code == 2 and f"'{option}'" in line and "NUL byte" in line


def test_a_nul_in_the_groups_config_option_is_a_usage_mistake_naming_it(tmp_path: Path) -> None:
    done = hylo("--config", f"{tmp_path / 'config.toml'}{NUL}", "status", "--vault", vault_in(tmp_path))
    assert done.exit_code == 2 and "'--config'" in one_line(done.stderr) and "NUL byte" in done.stderr


def test_a_nul_in_the_evidence_files_path_is_a_usage_mistake_naming_it(tmp_path: Path) -> None:
    done = hylo("apply", "--vault", vault_in(tmp_path), "--evidence", f"{tmp_path / 'e.jsonl'}{NUL}")
    assert done.exit_code == 2 and "'--evidence'" in one_line(done.stderr) and "NUL byte" in done.stderr
