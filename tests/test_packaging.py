"""`pip install .` gives a working `hylo-memory`, templates included, runnable from any folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest
from proc_helpers import ROOT, cli_env

pytestmark = pytest.mark.slow  # real processes (docs/development.md: the tiers)

# What a build leaves in the tree it is run in.
BUILD_LEFTOVERS = ("build", "*.egg-info")


def leftovers(tree: Path) -> set[str]:
    """The build leftovers in `tree`, by name."""
    return {path.name for pattern in BUILD_LEFTOVERS for path in tree.glob(pattern)}


def copy_of_the_tree(dest: Path) -> Path:
    """The project's files as a clean checkout has them (no venv, git data or earlier build output)."""
    return shutil.copytree(ROOT, dest, symlinks=True, ignore=shutil.ignore_patterns(
        ".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis",
        ".ruff_cache"))


class Installed(NamedTuple):
    site: Path  # the folder the wheel was installed into
    source: Path  # the copy of the tree it was built from
    leftovers_before: set[str]  # the checkout's build leftovers before the build…
    leftovers_after: set[str]  # …and after it


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The project built as a real wheel, from a copy of the tree, and installed alone into a folder."""
    work = tmp_path_factory.mktemp("wheel")
    source = copy_of_the_tree(work / "source")
    before = leftovers(ROOT)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "-w", str(work / "dist"), str(source)], check=True, cwd=work)
    after = leftovers(ROOT)
    wheel = next((work / "dist").glob("hylo_memory-*.whl"))
    subprocess.run([*pip, "install", "--no-deps", "--target", str(work / "site"), str(wheel)], check=True)
    return Installed(work / "site", source, before, after)


def run_installed(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # Dependencies come from this venv; the project itself only from the wheel.
    env = {**cli_env(cwd), "PYTHONPATH": str(site), "PYTHONSAFEPATH": "1"}
    code = "import sys; from hylo_memory.pipeline.cli.group import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True, text=True)


def test_the_wheel_carries_the_templates_and_runs_a_refresh_from_another_folder(installed: Installed,
                                                                              tmp_path: Path) -> None:
    site = installed.site
    (tmp_path / "vault" / "_shorts").mkdir(parents=True)
    (tmp_path / "vault" / "_shorts" / "2026-11-29-a.md").write_text("I live in Lisbon.\n")
    result = run_installed(site, tmp_path, "refresh", "--vault", "vault", "--today", "2026-11-30")
    assert result.returncode == 0, result.stderr
    assert "Lives in Lisbon" in result.stdout
    module = subprocess.run([sys.executable, "-c", "import hylo_memory.templates as t; print(t.__file__)"],
                            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(site), "PYTHONSAFEPATH": "1"},
                            capture_output=True, text=True)
    assert module.stdout.startswith(str(site))


def test_the_wheel_declares_the_console_script(installed: Installed) -> None:
    entry_points = next(installed.site.glob("hylo_memory-*.dist-info")) / "entry_points.txt"
    assert "hylo-memory = hylo_memory.console:main" in entry_points.read_text()


def test_the_wheel_is_built_in_a_copy_of_the_tree_leaving_no_build_output_in_the_checkout(
        installed: Installed) -> None:
    assert leftovers(installed.source) >= {"build", "hylo_memory.egg-info"}  # the build ran in the copy
    assert installed.leftovers_after - installed.leftovers_before == set()  # no build/ or egg-info appeared
