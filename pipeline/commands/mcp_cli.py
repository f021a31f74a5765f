"""`hylo-memory mcp`: the memory served over the Model Context Protocol (SPEC §9), registered by `cli`."""

from __future__ import annotations

import click

COMMANDS: list[click.Command] = []
