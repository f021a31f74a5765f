"""Commands of SPEC §9, registered on the group by `cli`."""

from __future__ import annotations

import click

COMMANDS: list[click.Command] = []
