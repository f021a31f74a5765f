"""Commands of docs/spec.md §9, registered on the group by `group`."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import click

from hylo_memory.decay.recall.ranking import MAX_BUDGET, MIN_BUDGET
from hylo_memory.errors import InputError
from hylo_memory.pipeline import clock
from hylo_memory.pipeline.cli.options import NAMING, SCOPE, in_scope, json_failures, options, setup
from hylo_memory.pipeline.naming import Step
from hylo_memory.pipeline.operations.opening import open_memory
from hylo_memory.pipeline.operations.serving.context import DEFAULT_BUDGET, build_context
from hylo_memory.pipeline.operations.serving.recall import MAX_LIMIT, check_query, recall


def _query(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A blank or overlong query is a usage mistake (exit 2), said in one line; `context` takes a blank one as none."""
    if value is None or (param.name == "query" and not value.strip() and isinstance(param, click.Option)):
        return None
    try:
        return check_query(value)
    except InputError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None


@click.command("context", help="print the memory as one markdown block for an assistant's prompt")
@options()
@click.option("--budget", type=click.IntRange(MIN_BUDGET, MAX_BUDGET), default=DEFAULT_BUDGET, show_default=True,
              metavar="TOKENS", help="the most tokens the block may take; the lowest-scored items are left out first")
@click.option("--query", callback=_query, help="put the items relevant to this text first")
@click.option("--json", "as_json", is_flag=True, help="print the chosen items with their scores as one JSON object")
@SCOPE
@click.pass_context
@json_failures
def context_command(ctx: click.Context, vault: Path | None, config_file: Path | None, today: dt.date | None,
                    budget: int, query: str | None, as_json: bool, scope: str | None) -> int:
    config, vault = setup(ctx, config_file, vault)
    day = today or clock.today(config.timezone)
    if scope is not None:  # the person's memory, then the scope's (docs/spec.md §1.1)
        from hylo_memory.pipeline.operations.scoped import scoped_context

        scope_config = in_scope(ctx, config, scope)
        with open_memory(vault, config, NAMING) as person, open_memory(vault, scope_config, NAMING) as own:
            both = scoped_context(person, own, scope, day, NAMING, budget, query)
        click.echo(both.to_json() if as_json else both.to_text(), nl=as_json)
        return 0
    with open_memory(vault, config, NAMING) as memory:
        result = build_context(memory, day, NAMING, budget, query)
    click.echo(result.to_json() if as_json else result.to_text(), nl=as_json)
    return 0


@click.command("recall", help="the items that best answer QUERY, best first (Active and Fading)")
@click.argument("query", callback=_query)
@options()
@click.option("--limit", type=click.IntRange(1, MAX_LIMIT), default=10, show_default=True, help="the most items shown")
@click.option("--json", "as_json", is_flag=True, help="print the ranked items as one JSON object")
@click.option("--notes", is_flag=True, help="search the notes themselves, passage by passage, each with its note and "
                                            "date, rather than the memory")
@SCOPE
@click.pass_context
@json_failures
def recall_command(ctx: click.Context, query: str, vault: Path | None, config_file: Path | None,
                   today: dt.date | None, limit: int, as_json: bool, notes: bool, scope: str | None) -> int:
    config, vault = setup(ctx, config_file, vault)
    config = in_scope(ctx, config, scope)
    if notes:
        from hylo_memory.pipeline.operations.serving.archive_search import recall_notes

        with open_memory(vault, config, NAMING) as memory:
            found = recall_notes(memory, query, NAMING, limit)
        click.echo(found.to_json() if as_json else found.to_text(NAMING), nl=as_json)
        return 0
    with open_memory(vault, config, NAMING) as memory:
        result = recall(memory, query, limit, today)
    click.echo(result.to_json() if as_json else result.to_text(NAMING), nl=as_json)
    return 0


@click.command("skill", help="print a SKILL.md that makes your assistant the memory's reader, or install it")
@click.option("--install", type=click.Choice(["claude", "hylo", "codex", "gemini", "cursor"]),
              help="write it where that assistant looks for it: Claude Code ~/.claude/skills/, Hylo ~/.hylo/skills/, "
                   "Codex and Gemini CLI ~/.agents/skills/, Cursor ~/.cursor/skills/")
@click.option("--force", is_flag=True, help="with --install: replace a file `skill` did not write, or one edited since")
@click.option("--vault", help="name this vault in the skill's commands (default: the one configured)")
def skill_command(install: str | None, force: bool, vault: str | None) -> int:
    from hylo_memory.pipeline.operations.skill import TARGETS, skill_text
    from hylo_memory.pipeline.operations.skill import install as install_skill

    text = skill_text(NAMING.commands[Step.SKILL], vault)
    if install is None:
        if force:
            raise click.UsageError("--force goes with --install")
        click.echo(text, nl=False)
        return 0
    done = install_skill(next(target for target in TARGETS if target == install), text, NAMING.commands[Step.SKILL],
                         force)
    click.echo(f"Wrote {done.path}" if done.wrote else f"{done.path} already says this: nothing written.")
    return 0


COMMANDS: list[click.Command] = [context_command, recall_command, skill_command]
