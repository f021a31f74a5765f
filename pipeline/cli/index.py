"""`hylo-memory index` (docs/spec.md §9.2), registered on the group by `group`."""

from __future__ import annotations

from pathlib import Path

import click

from hylo_memory.pipeline.cli.options import NAMING, json_failures, options, setup
from hylo_memory.pipeline.cli.progress_bar import progress_bar


@click.command("index",
               help="embed every memory item not embedded yet and index the notes, so no recall waits for them")
@options(today=False)
@click.option("--quiet", is_flag=True, help="no progress bar")
@click.option("--json", "as_json", is_flag=True, help="print what each step did as one JSON object")
@click.pass_context
@json_failures
def index_command(ctx: click.Context, vault: Path | None, config_file: Path | None, quiet: bool,
                  as_json: bool) -> int:
    from hylo_memory.pipeline.operations.opening import open_memory
    from hylo_memory.pipeline.operations.serving.index import index

    config, vault = setup(ctx, config_file, vault)
    with progress_bar(quiet) as progress, open_memory(vault, config, NAMING) as memory:
        done = index(memory, NAMING, progress)
    click.echo(done.to_json() if as_json else done.to_text(), nl=as_json)
    return 0 if done.ok else 1


COMMANDS: list[click.Command] = [index_command]
