"""The command line (docs/spec.md §6): one click command per function, every failure one line on stderr."""

from __future__ import annotations

import datetime as dt
import importlib
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from hylo_memory.errors import HyloMemoryError, reason
from hylo_memory.pipeline.cli.options import PROG, PathType, fail
from hylo_memory.pipeline.cli.streams import tolerate_any_output_encoding
from hylo_memory.pipeline.version import installed_version

if TYPE_CHECKING:
    from hylo_memory.pipeline.config import Config

# Each command: where it is defined, and its short help for `--help`, so that `--help` and `--version` load
# no command module (they import the run, the models, the parsers: most of a second).
COMMANDS: dict[str, tuple[str, str]] = {
    "refresh": ("memory:refresh_command",
                "one run: read recent notes, extract evidence, apply the rules, summarise"),
    "apply": ("memory:apply_command", "apply evidence from a JSONL file through the rules, with no LLM"),
    "pending": ("memory:pending_command", "hand out the next batch of unread notes for an assistant to read (a lease)"),
    "remember": ("memory:remember_command", "record one fact the person states"),
    "schedule": ("memory:schedule_command",
                 "run refresh on a cron schedule until stopped (SIGTERM or Ctrl-C)"),
    "status": ("memory:status_command",
               "show recent runs, the next scheduled run, memory files and sources waiting"),
    "init": ("memory:init_command",
             "look at a vault, propose which of its folders to read, and write its .hylo-memory.toml"),
    # The trust commands (docs/spec.md §8), the assistant's (§9) and its server.
    "why": ("trust:why_command", "show an item, how it was first added, and every source that supports it"),
    "history": ("trust:history_command", "every change to the memory files, newest first"),
    "undo": ("trust:undo_command", "revert the latest change not yet undone, or change CHANGE"),
    "forget": ("trust:forget_command",
               "remove an item for good and keep it from coming back; --list shows what is forgotten"),
    "unforget": ("trust:unforget_command", "let a forgotten fact be kept again"),
    # Promotion after sightings (docs/spec.md §3.2).
    "candidates": ("waiting:candidates_command",
                   "the facts waiting for another sighting before a run writes them (min_sightings)"),
    "promote": ("waiting:promote_command", "write a waiting candidate into its file now, approved by you"),
    "reject": ("waiting:reject_command", "drop a waiting candidate for good: it never waits or is kept again"),
    "context": ("assist:context_command", "print the memory as one markdown block for an assistant's prompt"),
    "recall": ("assist:recall_command", "the items that best answer QUERY, best first (Active and Fading)"),
    "index": ("index:index_command",
              "embed every memory item not embedded yet and index the notes, so no recall waits for them"),
    "skill": ("assist:skill_command", "print a SKILL.md that makes your assistant the memory's reader, or install it"),
    "mcp": ("serve:mcp_command", "serve the memory to assistants over the Model Context Protocol (stdio)"),
}


# A server a command starts, given the opened vault, its configuration, --today and --http.
Server = Callable[[Path, "Config", "dt.date | None", "tuple[str, int] | None"], None]


class HyloGroup(click.Group):
    """The command group; its `main` turns every expected failure into one line and an exit code.

    Its commands are named in COMMANDS and each module is imported only when one of its commands is run
    (click's lazy group), so a command pays for what it uses and `--version` for nothing. `servers` holds
    what the program plugged in (hylo_memory/console.py): the command line imports no server itself.
    """

    servers: dict[str, Server] = {}

    def plug(self, name: str, server: Server) -> None:
        """The server the command `name` starts."""
        self.servers = {**self.servers, name: server}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands or cmd_name not in COMMANDS:
            return super().get_command(ctx, cmd_name)
        module, _, attribute = COMMANDS[cmd_name][0].partition(":")
        command = getattr(importlib.import_module(f"{__package__}.{module}"), attribute)
        assert isinstance(command, click.Command) and command.name == cmd_name, COMMANDS[cmd_name]
        self.add_command(command)  # once: `--help` of a command, then its run, imports nothing twice
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The list of `--help`, as click writes it, from the table's short help: no command module imported."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        listed = {name: self.commands.get(name) or click.Command(name, help=COMMANDS[name][1]) for name in names}
        rows = [(name, command.get_short_help_str(limit)) for name, command in listed.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

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
        return getattr(exc, "exit_code", 1)  # 2: a run that could not reach its vault (a dead Hylo) failed
    return result if isinstance(result, int) else 0


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """`--version`, as click's version option prints it; the version is looked up only when asked."""
    if value and not ctx.resilient_parsing:
        click.echo(f"{PROG} {installed_version()}", color=ctx.color)
        ctx.exit()


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
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and exit.")
@click.option("--config", type=PathType(),
              help="TOML config file (default ~/.config/hylo-memory/config.toml)")
@click.pass_context
def cli(ctx: click.Context, config: Path | None) -> None:
    ctx.obj = config
    configure_logging()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on `argv` and return the exit code (for scripts and the console entry point)."""
    return cli.main(argv, PROG, standalone_mode=False)

