"""What the item commands share (trust.py, waiting.py): a blank argument is a usage mistake (exit 2), not bad data;
the --json and --dimension options; a report printed as text or JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from hylo_memory.domain.dimensions import DIMENSION_NAMES
from hylo_memory.pipeline.cli.options import DimensionType

if TYPE_CHECKING:
    from hylo_memory.pipeline.operations.items import Report

JSON_FLAG = click.option("--json", "as_json", is_flag=True, help="print one JSON object")
DIMENSION = click.option("--dimension", type=DimensionType(), help=f"only this file: one of {DIMENSION_NAMES}")


def print_report(report: Report, as_json: bool) -> int:
    """A command's report, as text or (with --json) one JSON object."""
    if as_json:
        click.echo(report.to_json())
    else:
        click.echo(report.to_text(), nl=False)
    return 0


def not_blank(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A TEXT argument that holds only spaces is refused as click refuses a missing one."""
    if value is not None and not value.strip():
        raise click.BadParameter("it is blank: give the words", ctx, param)
    return value
