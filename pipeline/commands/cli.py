"""The command line (SPEC §6): one click command per function, every failure one line on stderr."""

from __future__ import annotations

import datetime as dt
import logging
import sys
from collections.abc import Callable, Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

import click

from hylo_memory.decay import Dimension
from hylo_memory.decay.model import DIMENSION_NAMES
from hylo_memory.errors import HyloMemoryError
from hylo_memory.extractors.choice import make_extractor

from .. import clock
from ..run.refresh import diff, refresh
from ..run.summary import render_changes
from ..state.writing import open_store
from . import assist_cli, mcp_cli, trust_cli
from .apply import apply_evidence
from .evidence_file import read_evidence
from .init import run_init
from .options import PROG, DateType, DimensionType, fail, json_failures, options, reason, setup
from .progress_bar import progress_bar
from .remember import remember_text
from .schedule import run_schedule
from .status import gather


class HyloGroup(click.Group):
    """The command group; its `main` turns every expected failure into one line and an exit code."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,  # type: ignore[override]
             complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> int:
        tolerate_any_output_encoding()
        code = _exit_code(lambda: super(HyloGroup, self).main(args, prog_name or PROG, complete_var,
                                                              standalone_mode=False, **extra))
        if standalone_mode:
            sys.exit(code)
        return code

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:  # before click turns it into a blank line and an Abort
            raise click.Abort() from None


def tolerate_any_output_encoding() -> None:
    """Text goes out in the output's encoding with what it cannot show escaped (`\\u4e2d`): a Latin-1
    terminal or a Windows redirect must not turn a Chinese item into a traceback after the files were written."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", "strict") == "strict":
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a closed or detached stream: nothing to print to anyway
                pass


def _exit_code(invoke: Callable[[], Any]) -> int:
    """0 ok, 1 an error, 2 a usage mistake or a run that was not `ok`, 130 interrupted."""
    try:
        result = invoke()
    except click.UsageError as exc:
        where = f"{exc.ctx.command_path}: " if exc.ctx else f"{PROG}: "
        fail(f"{where}{exc.format_message()} (see --help)")
        return 2
    except click.ClickException as exc:
        fail(f"{PROG}: {exc.format_message()}")
        return exc.exit_code
    except click.Abort:  # click's form of Ctrl-C
        fail(f"{PROG}: interrupted")
        return 130
    except (HyloMemoryError, OSError) as exc:
        fail(f"{PROG}: {reason(exc)}")
        return 1
    return result if isinstance(result, int) else 0


class _StderrHandler(logging.Handler):
    """Log lines to whatever `sys.stderr` is when they are emitted (a test may have replaced it)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:  # noqa: BLE001 - logging must never break a command
            self.handleError(record)


def configure_logging() -> None:
    """Messages from deep modules (a replayed journal, a lock waited for) as `hylo-memory: …` lines."""
    handler = _StderrHandler()
    handler.setFormatter(logging.Formatter(f"{PROG}: %(message)s"))
    logger = logging.getLogger("hylo_memory")
    logger.handlers = [handler]
    logger.setLevel(logging.INFO)  # propagating still: a host that logs (a test's capture) sees them too


@click.group(cls=HyloGroup, context_settings={"help_option_names": ["-h", "--help"]},
             help="Keep one person's long-term memory.")
@click.version_option(version("hylo-memory"), "--version", prog_name=PROG, message="%(prog)s %(version)s")
@click.option("--config", type=click.Path(path_type=Path),
              help="TOML config file (default ~/.config/hylo-memory/config.toml)")
@click.pass_context
def cli(ctx: click.Context, config: Path | None) -> None:
    ctx.obj = config
    configure_logging()


@cli.command("refresh", help="one run: read recent notes, extract evidence, apply the rules, summarise")
@options(extractor=True)
@click.option("--dry-run", is_flag=True, help="print what would change (a diff per file); write nothing")
@click.option("--json", "as_json", is_flag=True, help="print the summary as one JSON object")
@click.option("--intro", help="a self-introduction: name, role, projects")
@click.option("--quiet", is_flag=True, help="no progress bar on a terminal")
@click.option("--reextract", is_flag=True, help="read again the window's sources that another extractor read")
@click.option("--since", type=DateType(), help="with --reextract: reach back to this date (YYYY-MM-DD)")
@click.pass_context
@json_failures
def refresh_command(ctx: click.Context, vault: Path | None, config_file: Path | None, today: dt.date | None,
                    extractor: str | None, dry_run: bool, as_json: bool, intro: str | None, quiet: bool,
                    reextract: bool, since: dt.date | None) -> int:
    if since is not None and not reextract:
        raise click.UsageError("--since goes with --reextract", ctx)
    config, vault = setup(ctx, config_file, vault, extractor)
    day = today or clock.today(config.timezone)
    if since is not None and since > day:
        raise click.UsageError(f"--since {since} is after the run's date ({day})", ctx)
    with progress_bar(quiet) as progress:
        summary, updates = refresh(vault, config, make_extractor(config.llm()), day, dry_run, intro, progress,
                                   reextract=reextract, since=since)
    if as_json:
        click.echo(summary.to_json())
    else:
        click.echo(summary.to_text(), nl=False)
        if dry_run:  # after the summary, so the header comes first
            click.echo("\n" + diff(updates, open_store(vault, config)), nl=False)
    for hint in summary.hints:
        fail(f"{PROG}: hint: {hint}")
    if summary.status != "ok":
        fail(f"{PROG}: run {summary.status}: {summary.waiting} source(s) wait for the next run"
              + (f" ({summary.failures[0]})" if summary.failures else ""))
        return 2
    return 0


@cli.command("apply", help="apply evidence from a JSONL file through the rules, with no LLM")
@options()
@click.option("--evidence", type=click.Path(path_type=Path), required=True, help="one JSON evidence object a line")
@click.option("--dry-run", is_flag=True, help="show what would change, write nothing")
@click.pass_context
def apply_command(ctx: click.Context, vault: Path | None, config_file: Path | None, today: dt.date | None,
                  evidence: Path, dry_run: bool) -> int:
    config, vault = setup(ctx, config_file, vault)
    found = read_evidence(evidence)
    updates = apply_evidence(open_store(vault, config), found, today or clock.today(config.timezone), config,
                             dry_run=dry_run, detail=str(evidence))
    click.echo(render_changes(updates), nl=False)
    return 0


# A fact may start with dashes ("--- no, really"): unknown options are taken as the fact's words.
@cli.command("remember", help="record one fact the person states",
             context_settings={"ignore_unknown_options": True})
@click.argument("text")
@options(extractor=True)
@click.option("--dimension", type=DimensionType(), help=f"one of {DIMENSION_NAMES}")
@click.option("--pin/--no-pin", default=None,
              help="pin it (never fades); default: the LLM decides, or offline: pinned for identity, "
                   "preferences, beliefs, people")
@click.pass_context
def remember_command(ctx: click.Context, text: str, vault: Path | None, config_file: Path | None, today: dt.date | None,
                     extractor: str | None, dimension: Dimension | None, pin: bool | None) -> int:
    config, vault = setup(ctx, config_file, vault, extractor)
    line = remember_text(vault, config, text, dimension, pin, today)
    click.echo(line)
    return 0


@cli.command("schedule", help="run refresh on a cron schedule until stopped (SIGTERM or Ctrl-C)")
@options(today=False, extractor=True)
@click.option("--cron", help='a 5-field cron expression, e.g. "0 3 * * *" (default: the config\'s schedule)')
@click.pass_context
def schedule_command(ctx: click.Context, vault: Path | None, config_file: Path | None, extractor: str | None,
                     cron: str | None) -> int:
    config, vault = setup(ctx, config_file, vault, extractor)
    return run_schedule(vault, config, cron)


@cli.command("status", help="show recent runs, the next scheduled run, memory files and sources waiting")
@options()
@click.option("--json", "as_json", is_flag=True, help="print the status as one JSON object")
@click.pass_context
@json_failures
def status_command(ctx: click.Context, vault: Path | None, config_file: Path | None, today: dt.date | None,
                   as_json: bool) -> int:
    config, vault = setup(ctx, config_file, vault)
    report = gather(vault, config, today)
    click.echo(report.model_dump_json() if as_json else report.to_text(), nl=as_json)
    return 0


@cli.command("init", help="look at a vault, propose which of its folders to read, and write its .hylo-memory.toml")
@options(today=False)
@click.option("--yes", is_flag=True, help="write without asking (replacing an existing, different file needs --force)")
@click.option("--force", is_flag=True, help="with --yes: replace an existing .hylo-memory.toml that differs")
@click.pass_context
def init_command(ctx: click.Context, vault: Path | None, config_file: Path | None, yes: bool, force: bool) -> int:
    config, vault = setup(ctx, config_file, vault)
    return run_init(vault, config.memory_dir, yes, force)


# Commands kept in their own modules: the trust commands (SPEC §8), the assistant's (§9) and its server.
for command in (*trust_cli.COMMANDS, *assist_cli.COMMANDS, *mcp_cli.COMMANDS):
    cli.add_command(command)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on `argv` and return the exit code (for scripts and the console entry point)."""
    return cli.main(argv, PROG, standalone_mode=False)


if __name__ == "__main__":
    cli()
