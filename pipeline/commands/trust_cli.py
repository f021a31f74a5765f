"""Commands of SPEC §8, registered on the group by `cli`."""

from __future__ import annotations

import click

COMMANDS: list[click.Command] = []
