"""Commands of docs/spec.md §8 (why, history, undo, forget, unforget), registered on the group by `group`."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import click

from hylo_memory.decay import Dimension
from hylo_memory.pipeline.cli.arguments import DIMENSION, JSON_FLAG, not_blank, print_report
from hylo_memory.pipeline.cli.options import NAMING, SCOPE, in_scope, json_failures, options, setup
from hylo_memory.pipeline.operations.forget import forget, forgotten, unforget
from hylo_memory.pipeline.operations.history import history, undo
from hylo_memory.pipeline.operations.opening import open_memory
from hylo_memory.pipeline.operations.serving.why import explain
from hylo_memory.pipeline.state.trust import MAX_HISTORY


@click.command("why", help="show an item, how it was first added, and every source that supports it")
@click.argument("text", callback=not_blank)
@options(today=False)
@DIMENSION
@JSON_FLAG
@SCOPE
@click.pass_context
@json_failures
def why_command(ctx: click.Context, text: str, vault: Path | None, config_file: Path | None,
                dimension: Dimension | None, as_json: bool, scope: str | None) -> int:
    config, vault = setup(ctx, config_file, vault)
    config = in_scope(ctx, config, scope)
    with open_memory(vault, config, NAMING) as memory:
        return print_report(explain(memory, text, dimension), as_json)


@click.command("history", help="every change to the memory files, newest first")
@options(today=False)
@click.option("--limit", type=click.IntRange(1, MAX_HISTORY), default=20, show_default=True,
              help="how many changes")
@click.option("--json", "as_json", is_flag=True, help="print the changes as a JSON array, one object each")
@SCOPE
@click.pass_context
@json_failures
def history_command(ctx: click.Context, vault: Path | None, config_file: Path | None, limit: int,
                    as_json: bool, scope: str | None) -> int:
    config, vault = setup(ctx, config_file, vault)
    config = in_scope(ctx, config, scope)
    with open_memory(vault, config, NAMING) as memory:
        return print_report(history(memory, limit), as_json)


@click.command("undo", help="revert the latest change not yet undone, or change CHANGE")
@click.argument("change", type=click.IntRange(1), required=False)
@options(today=False)
@click.option("--dry-run", is_flag=True, help="print the diff; write nothing")
@JSON_FLAG
@SCOPE
@click.pass_context
@json_failures
def undo_command(ctx: click.Context, change: int | None, vault: Path | None, config_file: Path | None,
                 dry_run: bool, as_json: bool, scope: str | None) -> int:
    config, vault = setup(ctx, config_file, vault)
    config = in_scope(ctx, config, scope)
    with open_memory(vault, config, NAMING) as memory:
        return print_report(undo(memory, change, dry_run), as_json)


@click.command("forget", help="remove an item for good and keep it from coming back; --list shows what is forgotten")
@click.argument("text", required=False, callback=not_blank)
@options()
@DIMENSION
@click.option("--list", "listing", is_flag=True, help="list the forgotten facts")
@JSON_FLAG
@SCOPE
@click.pass_context
@json_failures
def forget_command(ctx: click.Context, text: str | None, vault: Path | None, config_file: Path | None,
                   today: dt.date | None, dimension: Dimension | None, listing: bool, as_json: bool,
                   scope: str | None) -> int:
    if listing == (text is not None):
        raise click.UsageError("give the item's TEXT, or --list", ctx)
    config, vault = setup(ctx, config_file, vault)
    config = in_scope(ctx, config, scope)
    with open_memory(vault, config, NAMING) as memory:
        if listing:
            return print_report(forgotten(memory), as_json)
        assert text is not None
        return print_report(forget(memory, text, NAMING, dimension, today), as_json)


@click.command("unforget", help="let a forgotten fact be kept again")
@click.argument("text", callback=not_blank)
@options(today=False)
@DIMENSION
@JSON_FLAG
@SCOPE
@click.pass_context
@json_failures
def unforget_command(ctx: click.Context, text: str, vault: Path | None, config_file: Path | None,
                     dimension: Dimension | None, as_json: bool, scope: str | None) -> int:
    config, vault = setup(ctx, config_file, vault)
    config = in_scope(ctx, config, scope)
    with open_memory(vault, config, NAMING) as memory:
        return print_report(unforget(memory, text, dimension), as_json)


COMMANDS: list[click.Command] = [why_command, history_command, undo_command, forget_command, unforget_command]
