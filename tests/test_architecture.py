"""The layering, enforced (docs/development.md): imports point one way, pipeline → extractors → decay → domain.

Every import is read from the source with `ast` — lazy ones inside functions and those under
`TYPE_CHECKING` included — and resolved to the installed module name through pyproject's
package-dir mapping. `make check` runs this file.
"""

from __future__ import annotations

import ast
import functools
import re
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


def _tree(path: Path) -> ast.Module:
    """The module's syntax tree, parsed once for every rule that reads it (a breach's file, once for its text)."""
    return _parsed(path.read_text(encoding="utf-8"), str(path))


@functools.cache
def _parsed(source: str, filename: str) -> ast.Module:
    return ast.parse(source, filename=filename)


def _imports(module: str, path: Path) -> Iterator[tuple[int, str]]:
    """(line, absolute module name) for every import in the file, wherever it stands."""
    is_package = path.stem == "__init__"
    for node in ast.walk(_tree(path)):
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
DOORS_KEEP_OUT = tuple(f"{STATE}.{m}" for m in ("writing", "locking", "ledger", "journal"))

DOMAIN, DECAY, EXTRACTORS = (f"{PACKAGE}.{room}" for room in ("domain", "decay", "extractors"))

RULES = {
    "the domain imports nothing of the package but the error family":
        dict(layer=DOMAIN, allowed=(f"{PACKAGE}.errors",)),
    "decay imports nothing of the package but the domain and the error family":
        dict(layer=DECAY, allowed=(DOMAIN, f"{PACKAGE}.errors")),
    "extractors never import pipeline":
        dict(layer=f"{PACKAGE}.extractors", forbidden=(P,)),
    "the error family imports nothing of the package, not even for type checking":
        dict(layer=f"{PACKAGE}.errors", allowed=(f"{PACKAGE}.errors",)),
    "reading a note knows no vault, run, state, operation or door":
        dict(layer=NOTES, forbidden=(VAULTS, RUN, STATE, OPERATIONS, CLI, MCP)),
    "a vault knows no run, state, operation or door":
        dict(layer=VAULTS, forbidden=(RUN, STATE, OPERATIONS, CLI, MCP)),
    # Sources, evidence and usage are the domain's: what reads notes, vaults and what lasts need no extractor.
    "reading a note imports no extractor":
        dict(layer=NOTES, forbidden=(EXTRACTORS,)),
    "a vault imports no extractor":
        dict(layer=VAULTS, forbidden=(EXTRACTORS,)),
    "what lasts imports no extractor":
        dict(layer=STATE, forbidden=(EXTRACTORS,)),
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
    # Thin doors: what opens the store, takes a lock or opens the ledger is an operation's to call.
    "the command line opens no store, takes no lock and opens no ledger":
        dict(layer=CLI, forbidden=DOORS_KEEP_OUT),
    "the MCP door opens no store, takes no lock and opens no ledger":
        dict(layer=MCP, forbidden=DOORS_KEEP_OUT),
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
    (f"{DOMAIN}.extra", "from hylo_memory.decay.rules import apply_rules\n",
     "the domain imports nothing of the package but the error family"),
    (f"{DOMAIN}.extra", "def f():\n    from ..extractors.base import Extraction\n",
     "the domain imports nothing of the package but the error family"),
    (f"{DECAY}.extra", "from hylo_memory.extractors.base import Extraction\n",
     "decay imports nothing of the package but the domain and the error family"),
    (f"{NOTES}.extra", "from hylo_memory.extractors.base import Extraction\n", "reading a note imports no extractor"),
    (f"{VAULTS}.extra", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ...extractors import base\n",
     "a vault imports no extractor"),
    (f"{STATE}.extra", "from hylo_memory.extractors.llm.costs import Cost\n", "what lasts imports no extractor"),
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
    (f"{CLI}.extra", "from hylo_memory.pipeline.state.writing import open_store\n",
     "the command line opens no store, takes no lock and opens no ledger"),
    (f"{MCP}.extra", "def f():\n    from ..state.locking import RUN_LOCK, is_held\n",
     "the MCP door opens no store, takes no lock and opens no ledger"),
])
def test_a_breach_of_a_rule_is_caught(tmp_path: Path, module: str, source: str, rule: str) -> None:
    spec = RULES[rule]
    assert _violations(**spec, modules=_fake(tmp_path, module, source)) != []  # type: ignore[arg-type]


def test_a_relative_import_is_resolved_to_the_module_it_names(tmp_path: Path) -> None:
    path = tmp_path / "runner.py"
    path.write_text("from ..cli import group\nfrom ...errors import ConfigError\nfrom . import refresh\n")
    assert [name for _, name in _imports("hylo_memory.pipeline.run.runner", path)] == [
        "hylo_memory.pipeline.cli.group", "hylo_memory.errors", "hylo_memory.pipeline.run.refresh"]


# Small rooms (docs/development.md): no package folder holds more than MAX_MODULES modules (its own .py files, its
# `__init__` included; a sub-package is a room of its own), and every package folder is installed as one.
MAX_MODULES = 20
# Over the limit, to be split by job. A ratchet, now empty: pipeline/operations, the last one, was split into
# operations/reading/ and operations/serving/; a room over the limit fails.
OVER: set[str] = set()


def _package_folders() -> list[Path]:
    """The folder of every package pyproject installs (`packages`), through its package-dir mapping."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    mapping: dict[str, str] = setuptools["package-dir"]
    folders = []
    for package in setuptools["packages"]:
        home = max((p for p in mapping if _within(package, p)), key=len)
        folders.append(ROOT / mapping[home] / package.removeprefix(home).lstrip(".").replace(".", "/"))
    return folders


def _rooms_over(folders: list[Path]) -> set[str]:
    """The folders holding more than MAX_MODULES modules, as paths from the repository's root."""
    return {(f.relative_to(ROOT) if f.is_relative_to(ROOT) else f).as_posix() for f in folders
            if len(list(f.glob("*.py"))) > MAX_MODULES}


def test_no_room_holds_more_than_twenty_modules() -> None:
    assert _rooms_over(_package_folders()) == OVER


def _uninstalled(installed: list[Path]) -> set[Path]:
    """Package folders under the installed ones that are not installed themselves."""
    folders = {folder.resolve() for folder in installed}
    return {init.parent.resolve() for folder in folders for init in folder.rglob("__init__.py")} - folders


def test_every_package_folder_is_a_room_installed_as_one() -> None:
    # A sub-package left out of pyproject's packages is not installed, nor counted as a room.
    assert _uninstalled(_package_folders()) == set()


def test_a_package_folder_left_out_of_the_installed_ones_is_caught(tmp_path: Path) -> None:
    (tmp_path / "room" / "sub").mkdir(parents=True)
    (tmp_path / "room" / "__init__.py").write_text("")
    (tmp_path / "room" / "sub" / "__init__.py").write_text("")
    assert _uninstalled([tmp_path / "room"]) == {(tmp_path / "room" / "sub").resolve()}


@pytest.mark.parametrize(("modules", "over"), [(MAX_MODULES + 1, True), (MAX_MODULES, False)])
def test_a_room_over_twenty_modules_is_caught(tmp_path: Path, modules: int, over: bool) -> None:
    room = tmp_path / "room"
    room.mkdir()
    for number in range(modules):
        (room / f"m{number}.py").write_text("")
    assert (_rooms_over([room]) != set()) == over


# Small signatures (docs/development.md): no function over 80 lines, none over 8 parameters — but click's
# commands, whose parameters are their options, one each.
MAX_LINES, MAX_PARAMETERS = 80, 8
CHECKED = tuple(f"{PACKAGE}.{room}" for room in ("domain", "decay", "extractors", "pipeline", "templates"))
CLICK_COMMANDS = ("command", "group")


def _is_click_command(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Decorated `@click.command(...)`, `@click.group(...)` or `@<group>.command(...)`."""
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute) and target.attr in CLICK_COMMANDS:
            return True
    return False


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Positional and keyword-only parameters, `self`/`cls` left out; `*args` and `**kwargs` one each."""
    arguments = function.args
    named = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    if named and named[0] in ("self", "cls"):
        named = named[1:]
    return len(named) + len(arguments.kwonlyargs) + (arguments.vararg is not None) + (arguments.kwarg is not None)


def _large_functions(modules: dict[str, Path] = MODULES) -> list[str]:
    """Every function of the checked rooms over the limits, as `file:line name (N lines, M parameters)`."""
    found = []
    for module, path in modules.items():
        if not any(_within(module, room) for room in CHECKED):
            continue
        for node in ast.walk(_tree(path)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            parameters = _parameters(node)
            exempt = _within(module, CLI) and _is_click_command(node)
            if lines > MAX_LINES or (parameters > MAX_PARAMETERS and not exempt):
                where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                found.append(f"{where}:{node.lineno} {node.name} ({lines} lines, {parameters} parameters)")
    return found


def test_every_function_is_small() -> None:
    assert _large_functions() == []


@pytest.mark.parametrize("source", [
    "def f(a, b, c, d, e, f, g, h, i):\n    pass\n",
    "class C:\n    def m(self, a, b, c, d, e, f, g, *rest, **named):\n        pass\n",
    "def f():\n" + "    x = 1\n" * MAX_LINES,
])
def test_a_large_function_is_caught(tmp_path: Path, source: str) -> None:
    module = f"{RUN}.extra"
    assert _large_functions({module: _fake(tmp_path, module, source)[module]}) != []


@pytest.mark.parametrize("source", [
    "def f(a, b, c, d, e, f, g, h):\n    pass\n",
    "class C:\n    @classmethod\n    def m(cls, a, b, c, d, e, f, g, *rest):\n        pass\n",
    "def f():\n" + "    x = 1\n" * (MAX_LINES - 1),
])
def test_a_function_within_the_limits_passes(tmp_path: Path, source: str) -> None:
    module = f"{RUN}.extra"
    assert _large_functions({module: _fake(tmp_path, module, source)[module]}) == []


def test_a_click_command_may_take_an_option_a_parameter(tmp_path: Path) -> None:
    source = ("import click\n@click.command('go')\n@click.option('--a')\n"
              "def go(a, b, c, d, e, f, g, h, i):\n    pass\n")
    for module, allowed in ((f"{CLI}.extra", True), (f"{RUN}.extra", False)):  # outside the command line: caught
        assert (_large_functions({module: _fake(tmp_path, module, source)[module]}) == []) == allowed


# The names of tools and commands live in the doors (docs/development.md): an operation, the run and what lasts
# take them from the door whose text names them (pipeline/naming.py), never a string of their own. Docstrings
# and comments may name them; `{PROG} refresh` is read as the literal it makes.
NAMELESS = (OPERATIONS, RUN, STATE)
PROGRAM = "hylo-memory"


def _door_names() -> tuple[set[str], set[str]]:
    """The MCP door's own tools (those no command shares a name with), and the command line's commands."""
    from hylo_memory.pipeline.cli.group import COMMANDS
    from hylo_memory.pipeline.mcp.reading import READING_TOOLS
    from hylo_memory.pipeline.mcp.tools import TOOLS

    return {*TOOLS, *READING_TOOLS} - set(COMMANDS), set(COMMANDS)


def _strings(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Every string the module's code makes, with its line: an f-string whole (`{PROG}` read as the program's name,
    any other value as `{}`); no docstring."""
    bodies = [n.body for n in ast.walk(tree) if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef
                                                              | ast.AsyncFunctionDef)]
    skipped = {id(b[0].value) for b in bodies if b and isinstance(b[0], ast.Expr) and isinstance(b[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            skipped |= {id(v) for v in node.values}
            yield node.lineno, "".join(
                v.value if isinstance(v, ast.Constant) else
                PROGRAM if isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name) and v.value.id == "PROG"
                else "{}" for v in node.values)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped:
            yield node.lineno, node.value


def _door_names_used(modules: dict[str, Path] = MODULES) -> list[str]:
    """Every string of operations, run and state that names an MCP tool or `hylo-memory <command>`, as
    `file:line name`."""
    tools, commands = _door_names()
    tool = re.compile(rf"\b(?:{'|'.join(map(re.escape, sorted(tools)))})\b")
    command = re.compile(rf"\b{PROGRAM}\s+((?:{'|'.join(map(re.escape, sorted(commands)))})(?![\w-])|\{{\}})")
    found = []
    for module, path in modules.items():
        if not any(_within(module, room) for room in NAMELESS):
            continue
        for line, text in _strings(_tree(path)):
            where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            found += [f"{where}:{line} {m.group(0)}" for m in tool.finditer(text)]
            found += [f"{where}:{line} {PROGRAM} {m.group(1)}" for m in command.finditer(text)]
    return found


def test_no_operation_run_or_state_names_a_tool_or_a_command() -> None:
    """Their texts say a step in the words of the door they answer through: a `Naming` it passes, or the one it opened
    the memory with (pipeline/naming.py)."""
    assert _door_names_used() == []


@pytest.mark.parametrize("source", [
    'NEXT = "ask notes_to_read for the next batch"\n',
    'def f(token):\n    raise ValueError(f"lease {token}: answer with propose_memories")\n',
    'HINT = "run `hylo-memory index` to embed them"\n',
    'from hylo_memory.pipeline.version import PROG\nLINE = f"`{PROG} pending --today {1}`"\n',
])
def test_a_tool_or_command_named_outside_the_doors_is_caught(tmp_path: Path, source: str) -> None:
    module = f"{OPERATIONS}.extra"
    assert _door_names_used({module: _fake(tmp_path, module, source)[module]}) != []


def test_a_docstring_may_name_them(tmp_path: Path) -> None:
    source = '"""What `notes_to_read` hands out; `hylo-memory pending` on the command line."""\n'
    module = f"{STATE}.extra"
    assert _door_names_used({module: _fake(tmp_path, module, source)[module]}) == []


# One opened memory (issue 41): a door opens the vault's memory once (`open_memory`), and the operations and the run
# take it; none opens the store or the ledger again on the way. Only where the memory is built, and the journal's
# recovery (reached under any writer's lock with the store alone), call them.
OPENERS = ("open_store", "for_memory_dir")  # the store's; the ledger's, as `Ledger.for_memory_dir`
OPENING = {f"{OPERATIONS}.opening", f"{STATE}.opened", f"{STATE}.journal"}


def _openings(modules: dict[str, Path] = MODULES) -> list[str]:
    """Every call of `open_store(…)` or `….for_memory_dir(…)` outside the modules that open a memory, as
    `file:line name`."""
    found = []
    for module, path in modules.items():
        if not _within(module, PACKAGE) or module in OPENING:
            continue
        for node in ast.walk(_tree(path)):
            if not isinstance(node, ast.Call):
                continue
            function = node.func
            name = function.id if isinstance(function, ast.Name) else None
            if isinstance(function, ast.Attribute):  # `Ledger.for_memory_dir`, not another cache's of that name
                receiver = function.value
                name = function.attr if isinstance(receiver, ast.Name) and receiver.id == "Ledger" else None
            if name in OPENERS:
                where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                found.append(f"{where}:{node.lineno} {name}")
    return found


def test_only_opening_a_memory_opens_the_store_or_the_ledger() -> None:
    assert _openings() == []  # the readers too take the opened memory (issue 41, point 1)


@pytest.mark.parametrize("source", [
    "from hylo_memory.pipeline.state.writing import open_store\ndef f(vault, config):\n"
    "    return open_store(vault, config).folder\n",
    "def f(store):\n    from ..state.ledger import Ledger\n    with Ledger.for_memory_dir(store.folder) as ledger:\n"
    "        return ledger\n",
])
def test_a_store_or_a_ledger_opened_again_is_caught(tmp_path: Path, source: str) -> None:
    module = f"{RUN}.extra"
    assert _openings({module: _fake(tmp_path, module, source)[module]}) != []
