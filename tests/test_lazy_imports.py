"""Fast at the edges (issue 17): `--version`, `--help`, recall and context load only what they use.

Each check runs in a fresh interpreter and looks at `sys.modules`: what was imported, not how long it
took (bench/startup.py measures that). The group names its commands in a table; the table must agree
with the commands it loads.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from proc_helpers import cli_env

from hylo_memory.pipeline.cli import group as cli_module

HEAVY = ("openai", "mcp", "markdown_it", "apscheduler")
COMMAND_MODULES = tuple(f"hylo_memory.pipeline.cli.{m}" for m in ("memory", "trust", "waiting", "assist", "index", "serve"))


def imported(code: str, env: dict[str, str] | None = None) -> set[str]:
    """The top-level packages and hylo_memory modules in `sys.modules` after `code` runs in a new interpreter."""
    probe = (f"import sys\n{code}\nimport json\n"
             "print(json.dumps(sorted({m if m.startswith('hylo_memory') else m.partition('.')[0] "
             "for m in sys.modules})))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def main_run(*args: str) -> str:
    """Code that runs `hylo-memory ARGS` in-process, as the console script does, and swallows its exit."""
    return ("from hylo_memory.pipeline.cli.group import main\n"
            f"assert main({list(args)!r}) == 0\n")


@pytest.mark.slow
def test_the_command_line_module_imports_no_command_and_no_sdk() -> None:
    found = imported("import hylo_memory.pipeline.cli.group")
    assert found.isdisjoint({*HEAVY, "pydantic", "rich", "jinja2"}), found
    assert found.isdisjoint(COMMAND_MODULES), found


@pytest.mark.parametrize("argument", ["--version", "--help"])
@pytest.mark.slow
def test_version_and_help_import_no_command(argument: str) -> None:
    found = imported(main_run(argument))
    assert found.isdisjoint({*HEAVY, "pydantic", "rich", "jinja2"}), found
    assert found.isdisjoint(COMMAND_MODULES), found


@pytest.mark.parametrize("module", ["operations.serving.recall", "operations.serving.context", "cli.assist"])
@pytest.mark.slow
def test_the_recall_and_context_modules_import_no_sdk_no_scheduler_no_note_reader(module: str) -> None:
    found = imported(f"import hylo_memory.pipeline.{module}")
    assert found.isdisjoint({*HEAVY, "rich", "jinja2"}), found
    assert "hylo_memory.pipeline.run.refresh" not in found


@pytest.mark.slow
def test_recall_and_context_run_without_the_sdks_or_the_scheduler(tmp_path: Path) -> None:
    memory = tmp_path / "vault" / "_memory"
    memory.mkdir(parents=True)
    (memory / "_preferences.md").write_text("---\ndecay_window: 90d\nlast_updated: 2026-11-30\n---\n## Active\n"
                                            "- Loves running by the river `last:2026-11-30 seen:2`\n", encoding="utf-8")
    env = cli_env(tmp_path / "home")
    vault = str(tmp_path / "vault")
    recalled = imported(main_run("recall", "running", "--vault", vault), env)
    assert recalled.isdisjoint({*HEAVY, "rich", "jinja2"}), recalled
    assert "hylo_memory.pipeline.run.refresh" not in recalled
    context = imported(main_run("context", "--vault", vault), env)
    assert context.isdisjoint({"openai", "mcp", "apscheduler", "rich", "jinja2"}), context
    assert "hylo_memory.pipeline.run.refresh" not in context


@pytest.mark.slow
def test_the_mcp_sdk_loads_with_the_mcp_command_alone() -> None:
    modules = "\n".join(f"import {m}" for m in COMMAND_MODULES)
    assert "mcp" not in imported(modules)


def test_the_table_names_every_command_with_its_own_short_help() -> None:
    defined = {command.name: command for m in COMMAND_MODULES
               for command in importlib.import_module(m).COMMANDS}
    assert set(defined) == set(cli_module.COMMANDS)
    context = click.Context(cli_module.cli)
    for name, (_, short_help) in cli_module.COMMANDS.items():
        assert cli_module.cli.get_command(context, name) is defined[name]
        assert defined[name].help == short_help, name


def test_the_version_read_from_the_dist_info_is_the_one_importlib_finds() -> None:
    assert cli_module.installed_version() == importlib.metadata.version("hylo-memory")
