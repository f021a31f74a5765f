"""What every command shares: --vault, --config and --today, the date and dimension types, one-line failures."""

from __future__ import annotations

import datetime as dt
import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from hylo_memory.errors import HyloMemoryError, reason
from hylo_memory.pipeline.cli.words import NAMING as NAMING  # re-exported: the commands pass it to operations
from hylo_memory.pipeline.version import PROG as PROG  # re-exported: every command names itself by it

if TYPE_CHECKING:  # the models and the configuration load with a command that uses them, not with `--version`
    from hylo_memory.decay import Dimension
    from hylo_memory.pipeline.config import Config

EXTRACTORS = click.Choice(["offline", "openai"])


class DateType(click.ParamType):  # type: ignore[type-arg]  # generic only from click 8.2 on
    """A YYYY-MM-DD date."""

    name = "YYYY-MM-DD"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> dt.date:
        from hylo_memory.pipeline.notes.dates import EARLIEST, LATEST

        if isinstance(value, dt.date):
            return value
        try:
            day = dt.date.fromisoformat(value)
        except ValueError:
            self.fail(f"{value!r} is not a YYYY-MM-DD date", param, ctx)
        if not EARLIEST <= day <= LATEST:  # windows reach years back; the calendar's ends are not dates to run on
            self.fail(f"{value!r} is out of range ({EARLIEST} to {LATEST})", param, ctx)
        return day


class DimensionType(click.ParamType):  # type: ignore[type-arg]
    """One of the dimensions (domain/dimensions.py), in any case."""

    name = "DIMENSION"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Dimension:
        from hylo_memory.domain.dimensions import DIMENSION_NAMES, Dimension

        if isinstance(value, Dimension):
            return value
        try:
            return Dimension(value.strip().lower())
        except ValueError:
            self.fail(f"unknown dimension {value!r} (one of {DIMENSION_NAMES})", param, ctx)


def json_failures(command: Callable[..., int]) -> Callable[..., int]:
    """A `--json` command that fails still prints one JSON object, for scripts, beside the line on stderr."""
    @functools.wraps(command)
    def wrapped(*args: Any, **kwargs: Any) -> int:
        try:
            return command(*args, **kwargs)
        except (HyloMemoryError, OSError) as exc:
            if kwargs.get("as_json"):
                click.echo(json.dumps({"error": reason(exc), "status": "failed"}))
            raise
    return wrapped


def fail(line: str) -> None:
    click.echo(line, err=True)


def options(today: bool = True, extractor: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The options every command shares: --vault, --config (also after the command), --today."""
    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        if extractor:
            command = click.option("--extractor", type=EXTRACTORS,
                                   help="default: openai when a key or base URL is set")(command)
        if today:
            command = click.option("--today", type=DateType(),
                                   help="the run's date, YYYY-MM-DD (default: today)")(command)
        command = click.option("--config", "config_file", type=PathType(),
                               help="TOML config file")(command)
        return click.option("--vault", type=VaultType(),
                            help="the notes vault folder, or a Hylo MCP endpoint's URL (default: `vault` in "
                                 "the config file, or HYLO_MEMORY_VAULT)")(command)
    return decorate


class VaultType(click.ParamType):  # type: ignore[type-arg]
    """A vault folder, or the URL of a Hylo MCP endpoint (kept as written: a path would fold its `//`)."""

    name = "PATH|URL"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Path | str:
        from hylo_memory.pipeline.vaults import is_remote  # the vaults' registry decides what a vault is

        text = str(value)
        if is_remote(text):
            return text.strip()
        _check_path(text, self, param, ctx)
        return Path(text)


class PathType(click.Path):
    """A file's path: one a path can be (no NUL byte), else a usage mistake naming the option."""

    def __init__(self) -> None:
        super().__init__(path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            _check_path(value, self, param, ctx)
        return super().convert(value, param, ctx)


def _check_path(text: str, kind: click.Path | VaultType, param: click.Parameter | None,
                ctx: click.Context | None) -> None:
    from hylo_memory.pipeline.config import path_problem  # when a path is given: `--help` loads no pydantic

    problem = path_problem(text)
    if problem:
        kind.fail(problem, param, ctx)


SCOPE = click.option("--scope", metavar="NAME", help="a scope's memory (a folder with a memory of its own: "
                                                      "`[scopes.NAME]` in the vault's .hylo-memory.toml)")


def in_scope(ctx: click.Context, config: Config, name: str | None) -> Config:
    """`config`, or with `--scope NAME` the scope's (docs/spec.md §1.1); an unknown one is a usage mistake naming the
    known ones."""
    from hylo_memory.errors import ConfigError
    from hylo_memory.pipeline.scopes import scoped

    try:
        return scoped(config, name)
    except ConfigError as exc:
        raise click.BadParameter(str(exc), ctx, param_hint="'--scope'") from None


def setup(ctx: click.Context, config_file: Path | None, vault: Path | str | None,
          extractor: str | None = None, **settings: Any) -> tuple[Config, Path]:
    """The configuration (the command's --config over the group's, and the vault's own file; `settings`: a
    command's own options over them all) and the vault opened.

    The vault is --vault, else HYLO_MEMORY_VAULT, else `vault` in the config file.
    """
    from hylo_memory.pipeline.config import load_config
    from hylo_memory.pipeline.operations.opening import open_vault

    given = None if vault is None else str(vault)
    config = load_config(config_file or ctx.obj, extractor=extractor, vault=given, **settings)
    if not config.vault:
        raise click.UsageError("no vault: give --vault PATH, or set `vault` in the config file "
                               "or HYLO_MEMORY_VAULT", ctx)
    return config, open_vault(config, given, memo=config_file is None and ctx.obj is None)
