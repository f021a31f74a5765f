"""Commands of docs/spec.md §3.2 (candidates, promote, reject), registered on the group by `group`."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import click

from hylo_memory.decay import Dimension
from hylo_memory.pipeline.cli.arguments import DIMENSION, JSON_FLAG, not_blank, print_report
from hylo_memory.pipeline.cli.options import NAMING, SCOPE, in_scope, json_failures, options, setup
from hylo_memory.pipeline.operations.candidates import promote, reject, waiting
from hylo_memory.pipeline.operations.opening import open_memory


@click.command("candidates", help="the facts waiting for another sighting before a run writes them (min_sightings)")
@options(today=False)
@JSON_FLAG
@SCOPE
@click.pass_context
@json_failures
def candidates_command(ctx: click.Context, vault: Path | None, config_file: Path | None, as_json: bool,
                       scope: str | None) -> int:
    config, vault = setup(ctx, config_file, vault)
    with open_memory(vault, in_scope(ctx, config, scope), NAMING) as memory:
        return print_report(waiting(memory, NAMING), as_json)


@click.command("promote", help="write a waiting candidate into its file now, approved by you")
@click.argument("text", callback=not_blank)
@options()
@DIMENSION
@JSON_FLAG
@SCOPE
@click.pass_context
@json_failures
def promote_command(ctx: click.Context, text: str, vault: Path | None, config_file: Path | None,
                    today: dt.date | None, dimension: Dimension | None, as_json: bool, scope: str | None) -> int:
    config, vault = setup(ctx, config_file, vault)
    with open_memory(vault, in_scope(ctx, config, scope), NAMING) as memory:
        return print_report(promote(memory, text, NAMING, dimension, today), as_json)


@click.command("reject", help="drop a waiting candidate for good: it never waits or is kept again")
@click.argument("text", callback=not_blank)
@options()
@DIMENSION
@JSON_FLAG
@SCOPE
@click.pass_context
@json_failures
def reject_command(ctx: click.Context, text: str, vault: Path | None, config_file: Path | None,
                   today: dt.date | None, dimension: Dimension | None, as_json: bool, scope: str | None) -> int:
    config, vault = setup(ctx, config_file, vault)
    with open_memory(vault, in_scope(ctx, config, scope), NAMING) as memory:
        return print_report(reject(memory, text, NAMING, dimension, today), as_json)


COMMANDS: list[click.Command] = [candidates_command, promote_command, reject_command]
