"""`pip install .` gives a working `hylo-memory`, templates included, runnable from any folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project built as a real wheel and installed alone into a folder."""
    work = tmp_path_factory.mktemp("wheel")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "-w", str(work / "dist"), str(ROOT)], check=True)
    wheel = next((work / "dist").glob("hylo_memory-*.whl"))
    subprocess.run([*pip, "install", "--no-deps", "--target", str(work / "site"), str(wheel)], check=True)
    return work / "site"


def run_installed(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # Dependencies come from this venv; the project itself only from the wheel.
    env = {**os.environ, "PYTHONPATH": str(site), "HOME": str(cwd), "PYTHONSAFEPATH": "1"}
    env = {k: v for k, v in env.items() if not k.startswith(("HYLO_MEMORY_", "OPENAI_"))}
    code = "import sys; from hylo_memory.pipeline.commands.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True, text=True)


def test_the_wheel_carries_the_templates_and_runs_a_refresh_from_another_folder(installed: Path,
                                                                              tmp_path: Path) -> None:
    (tmp_path / "vault" / "_shorts").mkdir(parents=True)
    (tmp_path / "vault" / "_shorts" / "2026-11-29-a.md").write_text("I live in Lisbon.\n")
    result = run_installed(installed, tmp_path, "refresh", "--vault", "vault", "--today", "2026-11-30")
    assert result.returncode == 0, result.stderr
    assert "Lives in Lisbon" in result.stdout
    module = subprocess.run([sys.executable, "-c", "import hylo_memory.templates as t; print(t.__file__)"],
                            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(installed), "PYTHONSAFEPATH": "1"},
                            capture_output=True, text=True)
    assert module.stdout.startswith(str(installed))


def test_the_wheel_declares_the_console_script(installed: Path) -> None:
    entry_points = next(installed.glob("hylo_memory-*.dist-info")) / "entry_points.txt"
    assert "hylo-memory = hylo_memory.pipeline.commands.cli:cli" in entry_points.read_text()
