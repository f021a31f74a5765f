"""On PATH the usual way (docs/operations.md): `pipx install .` and `uv tool install .` put `hylo-memory` in
~/.local/bin, where the cron line and the service files look, and `command -v hylo-memory` finds it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from proc_helpers import ROOT, copy_example_vault
from test_packaging import copy_of_the_tree

pytestmark = pytest.mark.slow  # each installs the package and its dependencies

BIN = Path(sys.executable).parent
CRON_LINE = next(line for line in (ROOT / "cron" / "crontab").read_text(encoding="utf-8").splitlines()
                 if line and not line.startswith("#"))


def home_env(home: Path) -> dict[str, str]:
    """A fresh home: no user config, the tools' default folders under it, ~/.local/bin first on PATH."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HYLO_MEMORY_", "OPENAI_", "XDG_", "PIPX_", "UV_", "VIRTUAL_ENV"))}
    env.update(HOME=str(home), PATH=f"{home / '.local' / 'bin'}:{BIN}:/usr/bin:/bin", HYLO_MEMORY_EXTRACTOR="offline")
    return env


def install(tool: str, tree: Path, env: dict[str, str]) -> None:
    argv = {"pipx": [str(BIN / "pipx"), "install", str(tree)],
            "uv": [str(BIN / "uv"), "tool", "install", "--python", sys.executable, str(tree)]}[tool]
    if not Path(argv[0]).exists():
        pytest.fail(f"{tool} is not installed: it is in the test extra (pip install -e '.[test]')")
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("tool", ["pipx", "uv"])
def test_the_command_is_on_path_and_the_cron_line_runs_it(tool: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = home_env(home)
    install(tool, copy_of_the_tree(tmp_path / "tree"), env)

    found = subprocess.run(["bash", "-c", "command -v hylo-memory"], env=env, capture_output=True, text=True)
    assert found.stdout.strip() == str(home / ".local" / "bin" / "hylo-memory")

    copy_example_vault(home / "notes")
    command = CRON_LINE.split(None, 5)[5]  # the five schedule fields, then the command as cron runs it
    ran = subprocess.run(["sh", "-c", command], env={**env, "PATH": "/usr/bin:/bin"},  # cron's bare PATH
                         capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr
    assert "Status: ok" in (home / "hylo-memory.log").read_text(encoding="utf-8")
    assert (home / "notes" / "_memory" / "_identity.md").exists()


def test_the_test_extra_brings_both_tools() -> None:
    assert shutil.which("pipx", path=str(BIN)) and shutil.which("uv", path=str(BIN))
