"""Commands of docs/spec.md §3.2 (candidates, promote, reject), registered on the group by `group`."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import click

from hylo_memory.decay import Dimension
from hylo_memory.domain.dimensions import DIMENSION_NAMES
from hylo_memory.pipeline.cli.arguments import not_blank
from hylo_memory.pipeline.cli.options import SCOPE, DimensionType, in_scope, json_failures, options, setup
from hylo_memory.pipeline.operations.candidates import promote, reject, waiting
from hylo_memory.pipeline.operations.items import Report
from hylo_memory.pipeline.operations.opening import open_memory


def _print(report: Report, as_json: bool) -> int:
    if as_json:
        click.echo(report.to_json())
    else:
        click.echo(report.to_text(), nl=False)
    return 0


_JSON = click.option("--json", "as_json", is_flag=True, help="print one JSON object")
_DIMENSION = click.option("--dimension", type=DimensionType(), help=f"only this file: one of {DIMENSION_NAMES}")


@click.command("candidates", help="the facts waiting for another sighting before a run writes them (min_sightings)")
@options(today=False)
@_JSON
@SCOPE
@click.pass_context
@json_failures
def candidates_command(ctx: click.Context, vault: Path | None, config_file: Path | None, as_json: bool,
                       scope: str | None) -> int:
    config, vault = setup(ctx, config_file, vault)
    with open_memory(vault, in_scope(ctx, config, scope)) as memory:
        return _print(waiting(memory), as_json)


@click.command("promote", help="write a waiting candidate into its file now, approved by you")
@click.argument("text", callback=not_blank)
@options()
@_DIMENSION
@_JSON
@SCOPE
@click.pass_context
@json_failures
def promote_command(ctx: click.Context, text: str, vault: Path | None, config_file: Path | None,
                    today: dt.date | None, dimension: Dimension | None, as_json: bool, scope: str | None) -> int:
    config, vault = setup(ctx, config_file, vault)
    with open_memory(vault, in_scope(ctx, config, scope)) as memory:
        return _print(promote(memory, text, dimension, today), as_json)


@click.command("reject", help="drop a waiting candidate for good: it never waits or is kept again")
@click.argument("text", callback=not_blank)
@options()
@_DIMENSION
@_JSON
@SCOPE
@click.pass_context
@json_failures
def reject_command(ctx: click.Context, text: str, vault: Path | None, config_file: Path | None,
                   today: dt.date | None, dimension: Dimension | None, as_json: bool, scope: str | None) -> int:
    config, vault = setup(ctx, config_file, vault)
    with open_memory(vault, in_scope(ctx, config, scope)) as memory:
        return _print(reject(memory, text, dimension, today), as_json)


COMMANDS: list[click.Command] = [candidates_command, promote_command, reject_command]
