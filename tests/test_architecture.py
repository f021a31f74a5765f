"""The layering, enforced (docs/development.md): imports point one way, pipeline → extractors → decay.

Every import is read from the source with `ast` — lazy ones inside functions and those under
`TYPE_CHECKING` included — and resolved to the installed module name through pyproject's
package-dir mapping. `make check` runs this file.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "hylo_memory"


def _modules() -> dict[str, Path]:
    """Every module of the package by its installed name, from pyproject's package-dir mapping."""
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
    found: dict[str, Path] = {}
    for package, folder in mapping.items():
        for path in sorted((ROOT / folder).glob("*.py")):
            name = package if path.stem == "__init__" else f"{package}.{path.stem}"
            found[name] = path
    return found


MODULES = _modules()


def _imports(module: str, path: Path) -> Iterator[tuple[int, str]]:
    """(line, absolute module name) for every import in the file, wherever it stands."""
    is_package = path.stem == "__init__"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")
                anchor = parts if is_package else parts[:-1]
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:  # `from . import x` may name a module
                candidate = f"{base}.{alias.name}"
                yield node.lineno, candidate if candidate in MODULES else base


def _ours(name: str) -> bool:
    return name == PACKAGE or name.startswith(f"{PACKAGE}.")


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(f"{prefix}.")


def _violations(layer: str, allowed: tuple[str, ...] = (), forbidden: tuple[str, ...] = ()) -> list[str]:
    """Imports of the package made by `layer`'s modules that break its rule, as `file:line → module`."""
    found = []
    for module, path in MODULES.items():
        if not _within(module, layer):
            continue
        for line, imported in _imports(module, path):
            if not _ours(imported) or _within(imported, layer):
                continue
            bad = (allowed and not any(_within(imported, a) for a in allowed)) or \
                any(_within(imported, f) for f in forbidden)
            if bad:
                found.append(f"{path.relative_to(ROOT)}:{line} → {imported}")
    return found


RULES = {
    "decay imports nothing of the package but the error family":
        dict(layer="hylo_memory.decay", allowed=("hylo_memory.errors",)),
    "extractors never import pipeline":
        dict(layer="hylo_memory.extractors", forbidden=("hylo_memory.pipeline",)),
    "pipeline.state never imports pipeline.run or pipeline.commands":
        dict(layer="hylo_memory.pipeline.state", forbidden=("hylo_memory.pipeline.run", "hylo_memory.pipeline.commands")),
    "pipeline.run never imports pipeline.commands":
        dict(layer="hylo_memory.pipeline.run", forbidden=("hylo_memory.pipeline.commands",)),
    "the error family imports nothing of the package, not even for type checking":
        dict(layer="hylo_memory.errors", allowed=("hylo_memory.errors",)),
}


@pytest.mark.parametrize("rule", RULES)
def test_the_layering_rule_holds(rule: str) -> None:
    assert _violations(**RULES[rule]) == []  # type: ignore[arg-type]


def test_the_mapping_finds_every_layer() -> None:
    # A rule over no modules would pass whatever the code does.
    for spec in RULES.values():
        assert any(_within(m, str(spec["layer"])) for m in MODULES), spec["layer"]


def test_a_relative_import_is_resolved_to_the_module_it_names(tmp_path: Path) -> None:
    path = tmp_path / "runner.py"
    path.write_text("from ..commands import cli\nfrom ...errors import ConfigError\nfrom . import refresh\n")
    assert [name for _, name in _imports("hylo_memory.pipeline.run.runner", path)] == [
        "hylo_memory.pipeline.commands.cli", "hylo_memory.errors", "hylo_memory.pipeline.run.refresh"]
