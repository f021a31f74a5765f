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


def _violations(layer: str, allowed: tuple[str, ...] = (), forbidden: tuple[str, ...] = (),
                modules: dict[str, Path] = MODULES) -> list[str]:
    """Imports made by `layer`'s modules that break its rule, as `file:line → module`.

    `allowed`: the only modules of the package it may import (besides its own); `forbidden`: modules it
    may not import, of the package or not (click, the MCP SDK)."""
    found = []
    for module, path in modules.items():
        if not _within(module, layer):
            continue
        for line, imported in _imports(module, path):
            if _within(imported, layer):
                continue
            outside = _ours(imported) and allowed and not any(_within(imported, a) for a in allowed)
            if outside or any(_within(imported, f) for f in forbidden):
                found.append(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{line} → {imported}")
    return found


P = f"{PACKAGE}.pipeline"
CLI, MCP, OPERATIONS, RUN, STATE, VAULTS, NOTES = (f"{P}.{room}" for room in
                                                   ("cli", "mcp", "operations", "run", "state", "vaults", "notes"))
MCP_SDK = ("mcp", "mcp_types", "uvicorn", "starlette")
# A vault's backends stay behind the room's front: outside it, only `pipeline.vaults` itself is imported.
BACKENDS = tuple(m for m in MODULES if _within(m, VAULTS) and m != VAULTS)

RULES = {
    "decay imports nothing of the package but the error family":
        dict(layer=f"{PACKAGE}.decay", allowed=(f"{PACKAGE}.errors",)),
    "extractors never import pipeline":
        dict(layer=f"{PACKAGE}.extractors", forbidden=(P,)),
    "the error family imports nothing of the package, not even for type checking":
        dict(layer=f"{PACKAGE}.errors", allowed=(f"{PACKAGE}.errors",)),
    "reading a note knows no vault, run, state, operation or door":
        dict(layer=NOTES, forbidden=(VAULTS, RUN, STATE, OPERATIONS, CLI, MCP)),
    "a vault knows no run, state, operation or door":
        dict(layer=VAULTS, forbidden=(RUN, STATE, OPERATIONS, CLI, MCP)),
    "what lasts knows no run, operation or door, and no vault behind the front":
        dict(layer=STATE, forbidden=(RUN, OPERATIONS, CLI, MCP, *BACKENDS)),
    "a run knows no operation or door, and no vault behind the front":
        dict(layer=RUN, forbidden=(OPERATIONS, CLI, MCP, *BACKENDS)),
    "the operations import neither click nor the MCP SDK, nor a door, nor a vault behind the front":
        dict(layer=OPERATIONS, forbidden=("click", *MCP_SDK, CLI, MCP, *BACKENDS)),
    "the command line never imports the MCP door or its SDK, nor a vault behind the front":
        dict(layer=CLI, forbidden=(MCP, *MCP_SDK, *BACKENDS)),
    "the MCP door never imports the command line or click, nor a vault behind the front":
        dict(layer=MCP, forbidden=(CLI, "click", *BACKENDS)),
}


@pytest.mark.parametrize("rule", RULES)
def test_the_layering_rule_holds(rule: str) -> None:
    assert _violations(**RULES[rule]) == []  # type: ignore[arg-type]


def test_the_mapping_finds_every_layer() -> None:
    # A rule over no modules would pass whatever the code does.
    for spec in RULES.values():
        assert any(_within(m, str(spec["layer"])) for m in MODULES), spec["layer"]
    assert BACKENDS


def test_every_room_of_the_pipeline_is_a_layer_with_a_rule() -> None:
    # A new room must say what it may import: pipeline's own modules sit at its top (config, clock, version).
    rooms = {".".join(m.split(".")[:3]) for m in MODULES if _within(m, P) and m.count(".") >= 3}
    rooms = {r for r in rooms if any(m.startswith(f"{r}.") for m in MODULES)}
    assert rooms == {str(spec["layer"]) for spec in RULES.values() if str(spec["layer"]).startswith(f"{P}.")}


def _fake(tmp_path: Path, module: str, source: str) -> dict[str, Path]:
    """`MODULES` with one more module, written for the test."""
    path = tmp_path / f"{module.rpartition('.')[2]}.py"
    path.write_text(source)
    return {**MODULES, module: path}


@pytest.mark.parametrize(("module", "source", "rule"), [
    (f"{CLI}.extra", "from hylo_memory.pipeline.mcp.server import serve_vault\n",
     "the command line never imports the MCP door or its SDK, nor a vault behind the front"),
    (f"{MCP}.extra", "def f():\n    from ..cli import group\n",
     "the MCP door never imports the command line or click, nor a vault behind the front"),
    (f"{OPERATIONS}.extra", "import click\n",
     "the operations import neither click nor the MCP SDK, nor a door, nor a vault behind the front"),
    (f"{OPERATIONS}.extra", "from mcp.server.mcpserver import MCPServer\n",
     "the operations import neither click nor the MCP SDK, nor a door, nor a vault behind the front"),
    (f"{RUN}.extra", "from hylo_memory.pipeline.vaults.hylo_mirror import mirror_of\n",
     "a run knows no operation or door, and no vault behind the front"),
    (f"{STATE}.extra", "from ..vaults import hylo_mirror\n",
     "what lasts knows no run, operation or door, and no vault behind the front"),
])
def test_a_breach_of_a_rule_is_caught(tmp_path: Path, module: str, source: str, rule: str) -> None:
    spec = RULES[rule]
    assert _violations(**spec, modules=_fake(tmp_path, module, source)) != []  # type: ignore[arg-type]


def test_a_relative_import_is_resolved_to_the_module_it_names(tmp_path: Path) -> None:
    path = tmp_path / "runner.py"
    path.write_text("from ..cli import group\nfrom ...errors import ConfigError\nfrom . import refresh\n")
    assert [name for _, name in _imports("hylo_memory.pipeline.run.runner", path)] == [
        "hylo_memory.pipeline.cli.group", "hylo_memory.errors", "hylo_memory.pipeline.run.refresh"]
