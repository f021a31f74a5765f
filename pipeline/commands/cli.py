"""The command line: `refresh`, `remember`, `apply`, `schedule`, `status` (SPEC §6)."""

from __future__ import annotations

import argparse
import datetime as dt
import sqlite3
import sys
from pathlib import Path
from typing import NoReturn

from hylo_memory.decay import Dimension, HyloMemoryError
from hylo_memory.decay.model import DIMENSION_NAMES

from hylo_memory.extractors.base import Decision

from . import clock
from .config import Config, load_config
from .errors import InputError
from .evidence_file import read_evidence
from .extractor_choice import make_extractor
from .memory import apply_evidence, check_vault, open_store
from .refresh import diff, refresh
from .remember import remember
from .scheduler import run_schedule
from .status import gather
from .summary import render_changes


def _date(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a YYYY-MM-DD date") from None


def _dimension(value: str) -> Dimension:
    try:
        return Dimension(value.strip().lower())
    except ValueError:
        raise argparse.ArgumentTypeError(f"unknown dimension {value!r} (one of {DIMENSION_NAMES})") from None


MAX_FACT = 300  # characters: a memory item is one line


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line on stderr like every other error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="hylo-memory", description="Keep one person's long-term memory.")
    parser.add_argument("--config", type=Path, help="TOML config file (default ~/.config/hylo-memory/config.toml)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help: str, today: bool = True) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=help)
        sub.add_argument("--vault", type=Path, required=True, help="the notes vault folder")
        # Also after the command; SUPPRESS keeps one given before it.
        sub.add_argument("--config", type=Path, default=argparse.SUPPRESS, help="TOML config file")
        if today:
            sub.add_argument("--today", type=_date, help="the run's date, YYYY-MM-DD (default: today)")
        return sub

    ref = command("refresh", "one run: read recent notes, extract evidence, apply the rules, summarise")
    ref.add_argument("--dry-run", action="store_true", help="print what would change (a diff per file); write nothing")
    ref.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    ref.add_argument("--intro", help="a self-introduction: name, role, projects")
    ref.add_argument("--extractor", choices=["offline", "openai"], help="default: openai when a key or base URL is set")

    apply = command("apply", "apply evidence from a JSONL file through the rules, with no LLM")
    apply.add_argument("--evidence", type=Path, required=True, help="one JSON evidence object a line")
    apply.add_argument("--dry-run", action="store_true", help="show what would change, write nothing")

    rem = command("remember", "record one fact the person states")
    rem.add_argument("text", help='the fact, e.g. "I\'m vegetarian"')
    rem.add_argument("--dimension", type=_dimension, help=f"one of {DIMENSION_NAMES}")
    rem.add_argument("--pin", action=argparse.BooleanOptionalAction, default=None,
                     help="pin it (never fades); default: the LLM decides, or offline: pinned for identity, "
                          "preferences, beliefs, people")
    rem.add_argument("--extractor", choices=["offline", "openai"], help="who files it when --dimension is not given")

    sch = command("schedule", "run refresh on a cron schedule until stopped (SIGTERM or Ctrl-C)", today=False)
    sch.add_argument("--cron", help='a 5-field cron expression, e.g. "0 3 * * *" (default: the config\'s schedule)')
    sch.add_argument("--extractor", choices=["offline", "openai"], help="default: openai when a key or base URL is set")

    st = command("status", "show recent runs, the next scheduled run, memory files and sources waiting")
    st.add_argument("--json", action="store_true", help="print the status as one JSON object")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except HyloMemoryError as exc:
        print(f"hylo-memory: {exc}", file=sys.stderr)
        return 1
    except sqlite3.Error as exc:  # a ledger that breaks mid-run
        print(f"hylo-memory: the ledger failed: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a full disk, a read-only folder: nothing half-written, say where
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"hylo-memory: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("hylo-memory: interrupted", file=sys.stderr)
        return 130


def _run(args: argparse.Namespace) -> int:
    config = load_config(args.config, extractor=getattr(args, "extractor", None))
    vault = check_vault(args.vault)
    if args.command == "schedule":
        return run_schedule(vault, config, args.cron, make_extractor)
    if args.command == "status":
        report = gather(vault, config, args.today)
        print(report.model_dump_json() if args.json else report.to_text(), end="\n" if args.json else "")
        return 0
    today = args.today or clock.today(config.timezone)
    store = open_store(vault, config)
    if args.command == "refresh":
        summary, updates = refresh(vault, config, make_extractor(config), today, args.dry_run, args.intro)
        if args.json:
            print(summary.to_json())
        else:
            if args.dry_run:
                print(diff(updates, store), end="")
            print(summary.to_text(), end="")
        if summary.status != "ok":
            print(f"hylo-memory: run {summary.status}: {summary.waiting} source(s) wait for the next run"
                  + (f" ({summary.failures[0]})" if summary.failures else ""), file=sys.stderr)
            return 2
        return 0
    if args.command == "apply":
        evidence = read_evidence(args.evidence)
        updates = apply_evidence(store, evidence, today, config, dry_run=args.dry_run)
        print(render_changes(updates), end="")
        return 0
    if args.command == "remember":
        decision = _decide(args, config)
        _, line = remember(store, decision, today, config.similarity_threshold, config.lock_timeout)
        print(line)
        return 0
    raise AssertionError(args.command)


def _decide(args: argparse.Namespace, config: Config) -> Decision:
    """Where the fact goes and whether it is pinned: as told, else as the extractor judges."""
    text = " ".join(args.text.split())
    if not text:
        raise InputError("remember: the fact is empty")
    if len(text) > MAX_FACT:
        raise InputError(f"remember: a fact is one line of at most {MAX_FACT} characters; this one has {len(text)}")
    if args.dimension is not None and (args.pin is not None or not config.uses_llm):
        pinned = args.dimension.pinned_by_default if args.pin is None else args.pin
        return Decision(dimension=args.dimension, text=text, pinned=pinned)
    return make_extractor(config).classify(text, args.dimension, args.pin)


def cli() -> None:
    """The console script's entry point."""
    sys.exit(main())


if __name__ == "__main__":
    cli()
