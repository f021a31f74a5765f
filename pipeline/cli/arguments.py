"""Argument checks the commands share: a blank argument is a usage mistake (exit 2), not bad data."""

from __future__ import annotations

import click


def not_blank(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A TEXT argument that holds only spaces is refused as click refuses a missing one."""
    if value is not None and not value.strip():
        raise click.BadParameter("it is blank: give the words", ctx, param)
    return value
