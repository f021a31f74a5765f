"""The configuration (pipeline/config.py): a TOML file, `HYLO_MEMORY_*` variables and options, in that
order of precedence; every mistake in them refused as one line naming where it is."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import hylo, one_line

from hylo_memory.errors import ConfigError
from hylo_memory.pipeline.config import Config, load_config


def toml(folder: Path, text: str | bytes, name: str = "config.toml") -> Path:
    path = folder / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def refusal(path: Path | None = None, **overrides: object) -> str:
    """The one line `load_config` refuses this configuration with."""
    with pytest.raises(ConfigError) as refused:
        load_config(path, **overrides)
    message = str(refused.value)
    assert message and "\n" not in message, f"expected one line, got {message!r}"
    return message


# The file


def test_a_config_file_that_does_not_exist_is_refused_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.toml"
    assert refusal(missing) == f"{missing}: config file not found"


def test_a_config_folder_is_refused_as_not_a_file(tmp_path: Path) -> None:
    assert refusal(tmp_path) == f"{tmp_path}: config file not found"


def test_a_config_file_that_is_not_valid_toml_is_refused_naming_it(tmp_path: Path) -> None:
    path = toml(tmp_path, "first_run_days = = 3\n")
    assert refusal(path).startswith(f"{path}: not valid TOML: ")


def test_a_config_file_that_is_not_utf8_is_refused_naming_it(tmp_path: Path) -> None:
    path = toml(tmp_path, 'memory_dir = "café"\n'.encode("latin-1"))
    assert refusal(path).startswith(f"{path}: cannot read: ")


def test_an_unknown_key_in_the_file_is_refused_naming_file_and_key(tmp_path: Path) -> None:
    path = toml(tmp_path, "first_run_dayz = 30\n")
    message = refusal(path)
    assert str(path) in message and "first_run_dayz" in message


def test_a_value_out_of_range_in_the_file_is_refused_naming_file_and_setting(tmp_path: Path) -> None:
    path = toml(tmp_path, "first_run_days = 0\n")
    message = refusal(path)
    assert str(path) in message and "first_run_days" in message


def test_a_broken_default_config_file_is_refused_naming_it(tmp_path: Path) -> None:
    default = Path("~/.config/hylo-memory/config.toml").expanduser()  # under the test's own HOME
    default.parent.mkdir(parents=True)
    default.write_text("archive_keep = -1\n", encoding="utf-8")
    message = refusal()
    assert str(default) in message and "archive_keep" in message


# The environment


def test_a_list_in_the_environment_that_is_not_json_is_refused_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HYLO_MEMORY_EXTRA_SCAN_PATHS", "journal")
    message = refusal()
    assert message.startswith("environment: ") and "extra_scan_paths" in message
    assert '["journal"]' in message  # how to write it


def test_a_value_out_of_range_in_the_environment_is_refused_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HYLO_MEMORY_SIMILARITY_THRESHOLD", "101")
    message = refusal()
    assert "HYLO_MEMORY_" in message and "similarity_threshold" in message


def test_an_unknown_time_zone_is_refused_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYLO_MEMORY_TIMEZONE", "Mars/Olympus_Mons")
    message = refusal()
    assert "timezone" in message and "'Mars/Olympus_Mons'" in message


# Where the memory folder may be


@pytest.mark.parametrize("memory_dir", ["/var/memory", "../memory", "notes/../../memory", " "],
                         ids=["absolute", "parent", "climbs-out", "blank"])
def test_a_memory_dir_outside_the_vault_is_refused(memory_dir: str) -> None:
    message = refusal(memory_dir=memory_dir)
    assert "memory_dir" in message and f"{memory_dir!r} must be a folder inside the vault" in message


@pytest.mark.parametrize("memory_dir", ["_shorts", "_shorts/memory", "_knowledge/memory"])
def test_a_memory_dir_inside_a_folder_of_notes_is_refused(memory_dir: str) -> None:
    message = refusal(memory_dir=memory_dir)
    assert "memory_dir" in message and f"{memory_dir!r} is inside a folder of notes" in message


@pytest.mark.parametrize(("extra", "memory_dir"), [
    ("_memory", "_memory"), ("_memory/archive", "_memory"), ("notes", "notes/memory"),
], ids=["same", "inside-memory", "memory-inside-it"])
def test_an_extra_scan_path_overlapping_memory_dir_is_refused(extra: str, memory_dir: str) -> None:
    message = refusal(extra_scan_paths=[extra], memory_dir=memory_dir)
    assert f"extra scan path {extra!r} overlaps memory_dir {memory_dir!r}" in message


def test_an_extra_scan_path_beside_memory_dir_is_accepted() -> None:
    assert load_config(extra_scan_paths=["journal", "_memory-notes"]).extra_scan_paths == ["journal", "_memory-notes"]


# Precedence: option, then environment, then file


def test_a_setting_comes_from_the_file_when_nothing_else_sets_it(tmp_path: Path) -> None:
    assert load_config(toml(tmp_path, "first_run_days = 10\n")).first_run_days == 10


def test_the_environment_wins_over_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYLO_MEMORY_FIRST_RUN_DAYS", "20")
    assert load_config(toml(tmp_path, "first_run_days = 10\n")).first_run_days == 20


def test_an_option_wins_over_the_environment_and_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYLO_MEMORY_FIRST_RUN_DAYS", "20")
    assert load_config(toml(tmp_path, "first_run_days = 10\n"), first_run_days=30).first_run_days == 30


def test_an_option_left_unset_does_not_hide_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYLO_MEMORY_EXTRACTOR", "offline")
    assert load_config(extractor=None).extractor == "offline"


def test_settings_nobody_sets_keep_their_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HYLO_MEMORY_BUNDLED_EMBEDDINGS")  # the tests' own setting (conftest.py)
    loaded = load_config(toml(tmp_path, "first_run_days = 10\n"))
    assert loaded.model_dump(exclude={"first_run_days"}) == Config().model_dump(exclude={"first_run_days"})


# Through the command line: one line on stderr, exit 1, nothing run


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    (tmp_path / "vault" / "_shorts").mkdir(parents=True)
    return tmp_path / "vault"


def test_the_cli_refuses_a_missing_config_file_with_one_line_and_exit_1(tmp_path: Path, vault: Path) -> None:
    missing = tmp_path / "nowhere.toml"
    result = hylo("--config", missing, "status", "--vault", vault)
    assert (result.exit_code, one_line(result.stderr), result.stdout) == (
        1, f"hylo-memory: {missing}: config file not found\n", "")


def test_the_cli_refuses_a_config_file_given_after_the_command_too(tmp_path: Path, vault: Path) -> None:
    path = toml(tmp_path, "first_run_days = = 3\n")
    result = hylo("refresh", "--vault", vault, "--config", path, "--extractor", "offline")
    assert result.exit_code == 1
    assert one_line(result.stderr).startswith(f"hylo-memory: {path}: not valid TOML: ")
    assert not (vault / "_memory").exists()


@pytest.mark.parametrize(("variable", "value", "named"), [
    ("HYLO_MEMORY_EXTRA_SCAN_PATHS", "journal", "extra_scan_paths"),
    ("HYLO_MEMORY_FIRST_RUN_DAYS", "0", "first_run_days"),
    ("HYLO_MEMORY_TIMEZONE", "Mars/Olympus_Mons", "timezone"),
    ("HYLO_MEMORY_MEMORY_DIR", "_shorts/memory", "memory_dir"),
])
def test_the_cli_refuses_a_bad_environment_with_one_line_and_exit_1(
    vault: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, named: str
) -> None:
    monkeypatch.setenv(variable, value)
    result = hylo("refresh", "--vault", vault, "--extractor", "offline")
    assert result.exit_code == 1
    line = one_line(result.stderr)
    assert line.startswith("hylo-memory: ") and named in line
    assert not (vault / "_memory").exists() and not (vault / "_shorts" / "memory").exists()
