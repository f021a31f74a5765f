"""Running hylo-memory's commands in-process, as the console script runs them, through click's `CliRunner`."""

from __future__ import annotations

import os

from click.testing import CliRunner, Result

from hylo_memory.pipeline.cli.group import PROG, cli


def hylo(*args: str | os.PathLike[str]) -> Result:
    """`hylo-memory ARGS…` in this process: `exit_code`, and `stdout` and `stderr` apart.

    The group's `main` turns every expected failure into one stderr line and an exit code;
    anything else propagates (`catch_exceptions=False`), so a crash fails the test with its traceback.
    """
    return CliRunner().invoke(cli, [os.fspath(a) for a in args], prog_name=PROG, catch_exceptions=False)


def one_line(text: str) -> str:
    """`text` (an error output), which must be exactly one line."""
    assert text.endswith("\n") and text.count("\n") == 1, f"expected one line, got {text!r}"
    return text
