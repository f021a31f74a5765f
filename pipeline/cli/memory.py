"""Commands of docs/spec.md §6 that run, change or report the memory, loaded by `group` only when one of them is run."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import click

from hylo_memory.decay import Dimension
from hylo_memory.domain.dimensions import DIMENSION_NAMES
from hylo_memory.errors import ConfigError, InputError, LeaseRefused
from hylo_memory.pipeline import clock
from hylo_memory.pipeline.cli.arguments import not_blank
from hylo_memory.pipeline.cli.options import (
    NAMING,
    PROG,
    SCOPE,
    DateType,
    DimensionType,
    PathType,
    fail,
    in_scope,
    json_failures,
    options,
    setup,
)
from hylo_memory.pipeline.cli.progress_bar import progress_bar
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.naming import Step
from hylo_memory.pipeline.operations.init import file_diff, propose_file, write_file
from hylo_memory.pipeline.operations.opening import open_memory
from hylo_memory.pipeline.operations.outcome import not_ok_line
from hylo_memory.pipeline.operations.reading.apply import apply_evidence, summary_of
from hylo_memory.pipeline.operations.reading.evidence_file import read_answer, read_evidence
from hylo_memory.pipeline.operations.refresh import Refreshed, collect_batches, refresh_memory
from hylo_memory.pipeline.operations.remember import remember_text
from hylo_memory.pipeline.operations.schedule import parse_cron, run_schedule
from hylo_memory.pipeline.operations.scoped import refresh_scopes, scopes_text, with_scopes
from hylo_memory.pipeline.operations.serving.status import gather
from hylo_memory.pipeline.run.options import RunOptions
from hylo_memory.pipeline.run.profile import MAX_INTRO
from hylo_memory.pipeline.run.summary import render_changes
from hylo_memory.pipeline.state.names import ME_FILE


@click.command("refresh", help="one run: read recent notes, extract evidence, apply the rules, summarise")
@options(extractor=True)
@click.option("--dry-run", is_flag=True, help="print what would change (a diff per file); write nothing")
@click.option("--json", "as_json", is_flag=True, help="print the summary as one JSON object")
@click.option("--intro", help="a self-introduction: name, role, projects (kept: later runs and `context` use it)")
@click.option("--quiet", is_flag=True, help="no progress bar on a terminal")
@click.option("--reextract", is_flag=True, help="read again the window's sources that another extractor read")
@click.option("--since", type=DateType(), help="with --reextract: reach back to this date (YYYY-MM-DD)")
@click.option("--retry-stuck", is_flag=True, help="try again the sources set aside as stuck (status lists them)")
@click.option("--batch/--no-batch", default=None,
              help="send the requests as one batch to the provider's batch endpoint and end `submitted` (default: the "
                   "`batch` setting)")
@click.option("--collect", is_flag=True, help="only collect and apply the finished batches; read nothing new")
@click.pass_context
@json_failures
def refresh_command(ctx: click.Context, vault: Path | None, config_file: Path | None, today: dt.date | None,
                    extractor: str | None, dry_run: bool, as_json: bool, intro: str | None, quiet: bool,
                    reextract: bool, since: dt.date | None, retry_stuck: bool, batch: bool | None,
                    collect: bool) -> int:
    if since is not None and not reextract:
        raise click.UsageError("--since goes with --reextract", ctx)
    config, vault = setup(ctx, config_file, vault, extractor)
    day = today or clock.today(config.timezone)
    if collect:
        others = [name for name, given in (("--dry-run", dry_run), ("--batch", batch), ("--reextract", reextract),
                                          ("--retry-stuck", retry_stuck), ("--intro", intro is not None)) if given]
        if others:
            raise click.UsageError(f"--collect applies the finished batches and does nothing else: not with "
                                   f"{others[0]}", ctx)
        return _collect(vault, config, day, as_json)
    if since is not None and since > day:
        raise click.UsageError(f"--since {since} is after the run's date ({day})", ctx)
    if intro is not None and len(intro) > MAX_INTRO:
        raise click.UsageError(f"--intro is at most {MAX_INTRO:,} characters, not {len(intro):,}", ctx)
    if batch:
        why = ("a dry run" if dry_run else "--reextract" if reextract else "--retry-stuck" if retry_stuck else
               f"a run dated before today ({day})" if day < clock.today(config.timezone) else None)
        if why is not None:
            fail(f"{PROG}: --batch: {why} asks the model directly")
    with progress_bar(quiet) as progress:
        def run(on: Config, intro: str | None = None) -> Refreshed:
            options = RunOptions(today=day, dry_run=dry_run, intro=intro, progress=progress, reextract=reextract,
                                 since=since, retry_stuck=retry_stuck)
            with open_memory(vault, on, NAMING) as memory:  # the person's, or a scope's with its own configuration
                return refresh_memory(memory, options, batch=config.batch if batch is None else batch)

        summary, changes = run(config, intro)
        scopes = refresh_scopes(vault, config, run)  # then each scope's memory from its notes (docs/spec.md §1.1)
    if as_json:
        click.echo(with_scopes(summary.to_json(), scopes))
    else:
        click.echo(summary.to_text(NAMING), nl=False)
        if changes is not None:  # after the summary, so the header comes first
            click.echo("\n" + changes, nl=False)
        click.echo(scopes_text(scopes, NAMING), nl=False)
    code = 0
    for hint in summary.hints:
        fail(f"{PROG}: hint: {hint}")
    if (line := not_ok_line(summary)) is not None:
        fail(line)
        code = 2
    for scope in scopes:
        for hint in scope.hints():
            fail(f"{PROG}: hint: scope {scope.name}: {hint}")
        if (line := scope.not_ok()) is not None:
            fail(line)
            code = 2
    return code


def _collect(vault: Path, config: Config, day: dt.date, as_json: bool) -> int:
    from hylo_memory.pipeline.scopes import each_scope

    every = [config, *(scope for _, scope in each_scope(config))]  # the person's, then each scope's (spec §1.1)
    reports = []
    for on in every:
        with open_memory(vault, on, NAMING) as memory:
            reports += collect_batches(memory, day)
    if as_json:
        click.echo(json.dumps({"batches": [json.loads(r.model_dump_json()) for r in reports]}))
    else:
        now = dt.datetime.now(dt.UTC)
        click.echo("".join(f"{r.line(now)}\n" for r in reports) or "No batch collected.\n", nl=False)
    return 0


@click.command("apply", help="apply evidence from a JSONL file through the rules, with no LLM")
@options()
@click.option("--evidence", type=PathType(), required=True,
              help="one JSON evidence object a line; with --lease, the answer to the batch (its JSON)")
@click.option("--lease", help="the lease of a batch `pending` handed out: the evidence file is the answer to it")
@click.option("--dry-run", is_flag=True, help="show what would change, write nothing")
@click.option("--json", "as_json", is_flag=True, help="print the summary as one JSON object, as `refresh --json` does "
                                                        "(with --lease, beside how many notes remain)")
@click.pass_context
@json_failures
def apply_command(ctx: click.Context, vault: Path | None, config_file: Path | None, today: dt.date | None,
                  evidence: Path, lease: str | None, dry_run: bool, as_json: bool) -> int:
    if lease is not None and dry_run:
        raise click.UsageError("--dry-run does not go with --lease: an answer is kept, or not given", ctx)
    config, vault = setup(ctx, config_file, vault)
    if lease is not None:  # applied on the lease's own day
        from hylo_memory.pipeline.operations.reading.lease import propose

        try:
            with open_memory(vault, config, NAMING) as memory:
                proposed = propose(memory, lease, read_answer(evidence), today)
        except LeaseRefused as exc:
            raise InputError(f"{exc}: ask for a new batch with {NAMING.next_batch}") from None
        # The next batch on the same day as this one: a bare `pending` on a back-filled lease's would run today.
        again = "" if proposed.day in (None, clock.today(config.timezone)) else f" --today {proposed.day}"
        next_with = f"`{PROG} pending{again}`"
        click.echo(proposed.to_json() if as_json else proposed.to_text(NAMING, next_with=next_with), nl=as_json)
        return 0
    day = today or clock.today(config.timezone)
    found = read_evidence(evidence)
    with open_memory(vault, config, NAMING) as memory:
        applied = apply_evidence(memory, found, day, dry_run=dry_run, detail=str(evidence))
    if as_json:
        click.echo(summary_of(applied, day, dry_run).to_json())
    else:
        if dry_run:  # before the report, which reads as a real apply's
            click.echo(f"{PROG} apply --dry-run: what {evidence} would change; nothing was written")
        click.echo(render_changes(applied.updates, NAMING), nl=False)
    for refused in applied.left_out:  # the rules did not reach it: said, so its items are not taken for current
        fail(f"{PROG}: left as it is, it cannot be read: {refused}")
    return 0


@click.command("pending", help="hand out the next batch of unread notes for an assistant to read (a lease)")
@options()
@click.option("--client", default="command line", show_default=True, help="who reads the notes (named in `why`)")
@click.option("--json", "as_json", is_flag=True, help="print the batch as one JSON object (each note's text once, "
                                                        "in its request)")
@click.option("--brief", is_flag=True, help="leave out the instructions and the schema, for a reader that has them "
                                            "from an earlier batch")
@click.option("--max-chars", type=click.IntRange(1_000, 1_000_000), metavar="CHARS",
              help="the note characters one batch holds (default: the `assistant_batch_chars` setting)")
@click.option("--since", type=DateType(), metavar="YYYY-MM-DD",
              help="reach back at least to this day for unread notes (an old vault's, as its hint says)")
@click.pass_context
@json_failures
def pending_command(ctx: click.Context, vault: Path | None, config_file: Path | None, today: dt.date | None,
                    client: str, as_json: bool, brief: bool, max_chars: int | None, since: dt.date | None) -> int:
    from hylo_memory.pipeline.operations.reading.lease import notes_to_read
    from hylo_memory.pipeline.state.leases import reader_name

    config, vault = setup(ctx, config_file, vault)
    with open_memory(vault, config, NAMING) as memory:
        handed = notes_to_read(memory, reader_name(client, "command line"), today or clock.today(config.timezone),
                               max_chars, since)
    answer_with = f"{NAMING.answer} (its day is the lease's: no --today needed)"
    text = (handed.to_json(instructions=not brief) if as_json
            else handed.to_text(answer_with=answer_with, instructions=not brief))
    click.echo(text, nl=as_json)
    return 0


# A fact may start with dashes ("--- no, really"): unknown options are taken as the fact's words.
@click.command("remember", help="record one fact the person states",
             context_settings={"ignore_unknown_options": True})
@click.argument("text", callback=not_blank)
@options(extractor=True)
@click.option("--dimension", type=DimensionType(), help=f"one of {DIMENSION_NAMES}")
@click.option("--pin/--no-pin", default=None,
              help="pin it (never fades); default: the LLM decides, or offline: pinned for identity, "
                   "preferences, beliefs, people")
@click.pass_context
def remember_command(ctx: click.Context, text: str, vault: Path | None, config_file: Path | None, today: dt.date | None,
                     extractor: str | None, dimension: Dimension | None, pin: bool | None) -> int:
    config, vault = setup(ctx, config_file, vault, extractor)
    with open_memory(vault, config, NAMING) as memory:
        line = remember_text(memory, text, NAMING, dimension, pin, today)
    click.echo(line)
    return 0


@click.command("schedule", help="run refresh on a cron schedule until stopped (SIGTERM or Ctrl-C)")
@options(today=False, extractor=True)
@click.option("--cron", help='a 5-field cron expression, e.g. "0 3 * * *" (default: the config\'s schedule)')
@click.pass_context
def schedule_command(ctx: click.Context, vault: Path | None, config_file: Path | None, extractor: str | None,
                     cron: str | None) -> int:
    config, vault = setup(ctx, config_file, vault, extractor)
    if cron is not None:  # a mistyped --cron is a usage mistake (exit 2); a bad `schedule` setting a config error
        try:
            parse_cron(cron, config.timezone)
        except ConfigError as exc:
            raise click.BadParameter(str(exc).removeprefix("schedule "), ctx, param_hint="'--cron'") from None
    return run_schedule(vault, config, cron, NAMING)


@click.command("status", help="show recent runs, the next scheduled run, memory files and sources waiting")
@options()
@click.option("--json", "as_json", is_flag=True, help="print the status as one JSON object")
@click.option("--costs", is_flag=True, help="also what the last 30 days of runs spent: tokens, and cost if priced")
@SCOPE
@click.pass_context
@json_failures
def status_command(ctx: click.Context, vault: Path | None, config_file: Path | None, today: dt.date | None,
                   as_json: bool, costs: bool, scope: str | None) -> int:
    config, vault = setup(ctx, config_file, vault)
    config = in_scope(ctx, config, scope)
    with open_memory(vault, config, NAMING) as memory:  # read only: its ledger's copy, no ledger made
        report = gather(memory, NAMING, today, costs=costs)
    click.echo(report.model_dump_json() if as_json else report.to_text(NAMING), nl=as_json)
    return 0


@click.command("init", help="look at a vault, propose which of its folders to read, and write its .hylo-memory.toml")
@options(today=False)
@click.option("--yes", is_flag=True, help="write without asking (replacing an existing, different file needs --force)")
@click.option("--force", is_flag=True, help="with --yes: replace an existing .hylo-memory.toml that differs")
@click.pass_context
def init_command(ctx: click.Context, vault: Path | None, config_file: Path | None, yes: bool, force: bool) -> int:
    if force and not yes:
        raise click.UsageError("--force goes with --yes", ctx)
    config, vault = setup(ctx, config_file, vault)
    _init_settings(vault, config, yes, force)
    _offer_me(vault, config, yes)
    return 0


def _init_settings(vault: Path, config: Config, yes: bool, force: bool) -> None:
    """The survey, the proposed settings, and `.hylo-memory.toml` written when asked to (never over a different
    one without --force)."""
    proposed = propose_file(vault, config.memory_dir, NAMING.commands[Step.INIT])
    click.echo(proposed.survey)
    click.echo("Proposed settings:")
    click.echo(proposed.settings_lines())
    if proposed.scopes:  # printed, never written: a scope takes its notes out of the person's memory (spec §1.1)
        click.echo(proposed.scopes)
    if proposed.before == proposed.text:
        click.echo(f"{proposed.path} already says this: nothing written.")
        return
    if proposed.before is not None:
        click.echo(file_diff(proposed.path, proposed.before, proposed.text))
        if yes and not force:
            raise click.ClickException(f"{proposed.path} exists and differs (the diff above): nothing written; "
                                       "--yes --force replaces it")
    if not yes and not _ask(f"{'Replace' if proposed.before is not None else 'Write'} {proposed.path}?"):
        click.echo("Nothing written.")
        return
    write_file(vault, proposed.text)
    click.echo(f"Wrote {proposed.path} (readable by you only):\n{proposed.text}", nl=False)


def _offer_me(vault: Path, config: Config, yes: bool) -> None:
    """Offer to start `_me.md`, the person's own file, from a short template; one already there is left as it is
    (docs/spec.md §2.1)."""
    from hylo_memory.pipeline.operations.init_me import me_exists, me_file_of, start_me

    with open_memory(vault, config, NAMING) as memory:  # its store alone: no ledger
        if me_exists(memory):
            click.echo(f"{me_file_of(memory)} is there: your own file, left as it is.")
            return
        question = (f"Start {me_file_of(memory)}, your own file about yourself (every reader gets it whole; "
                    "no command writes it), from a short template?")
        try:
            wanted = yes or click.confirm(question, default=False)
        except click.Abort:  # no one to answer: the settings' answer stands, and this is only an offer
            wanted = False
        if not wanted:
            click.echo(f"Not started: write {ME_FILE} in the memory folder whenever you like.")
            return
        started = start_me(memory)
    click.echo(f"Wrote {started.path}: edit it in your own words." if started.started
               else f"{started.path} is there: your own file, left as it is.")


def _ask(question: str) -> bool:
    try:
        return click.confirm(question, default=False)
    except click.Abort:  # stdin closed: no one to ask
        raise click.ClickException("no answer: nothing written (--yes writes without asking)") from None


COMMANDS: list[click.Command] = [refresh_command, apply_command, pending_command, remember_command, schedule_command,
                                 status_command, init_command]
