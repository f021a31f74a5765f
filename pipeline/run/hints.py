"""Hints a run gives: the vault does not look as the configuration expects, or a configured model is not used.

The command a hint names is the command line's, in the words of the door that opened the memory (its `Naming`):
its flags (`--vault`, `--today`, `--since`) are the command's, and no tool takes them."""

from __future__ import annotations

import datetime as dt
import shlex
from pathlib import Path
from typing import Literal

from hylo_memory.pipeline.config import Config, is_whole_vault
from hylo_memory.pipeline.naming import Naming, Step
from hylo_memory.pipeline.run.window import Window
from hylo_memory.pipeline.state.ledger import Ledger
from hylo_memory.pipeline.vaults import is_remote, newest_note


def layout_hints(vault: Path, config: Config, naming: Naming) -> list[str]:
    """A hint when none of the folders the configuration reads is in the vault (a run would read nothing), and
    one when a model is configured but the offline extractor was chosen (the summary's line names only the latter)."""
    return _folder_hints(vault, config, naming) + extractor_hints(config)


def extractor_choice(config: Config) -> str:
    """The extractor a run uses, and why: "offline (no model configured: …)", "openai (model, …)"."""
    configured = config.api_key is not None or config.base_url is not None
    if config.uses_llm:
        where = config.base_url or "the OpenAI API"
        return f"openai ({config.model} at {where})"
    if config.extractor == "offline":
        why = "a model is configured but not used" if configured else "no model is configured either"
        return f"offline (--extractor offline or the `extractor` setting; {why})"
    return "offline (no model configured: set `base_url`, or `api_key`, to use one)"


def extractor_hints(config: Config) -> list[str]:
    """The extractor line, as a hint, when it would surprise: a model is configured and left unused."""
    if config.extractor == "offline" and (config.api_key is not None or config.base_url is not None):
        return [f"extractor: {extractor_choice(config)}"]
    return []


def _folder_hints(vault: Path, config: Config, naming: Naming) -> list[str]:
    folders = config.shorts_paths + config.knowledge_paths + config.extra_scan_paths
    if any(is_whole_vault(f) or (vault / f).exists() for f in folders):
        return []
    run = f"run {naming.command(Step.INIT, '--vault', shlex.quote(str(vault)))} to choose which folders to read"
    if not folders:
        return [f"no folders are configured to be read: {run}"]
    names = [f"{f.strip().rstrip('/')}/" for f in folders]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    return [f"no {listed} folder in this vault: {run}"]


def old_vault_hint(vault: Path, config: Config, ledger: Ledger, window: Window, naming: Naming,
                   first: bool | None = None, step: Literal[Step.REFRESH, Step.PENDING] = Step.REFRESH) -> str | None:
    """When the vault has notes but none dated in `window`, and no complete run ever read the newest: its date, and
    the command that reads the `first_run_days` up to it (docs/spec.md §4.1): a refresh, or for the person's
    assistant the next batch of notes (`step`), in the command line's words of `naming`. None when a note is in the
    window, or the vault has none.

    `first`: whether the next run on the vault is a first run (default: `window`'s mode). A first run on
    `--today` that date reads those days; after a complete run, only `--since` reaches them (a refresh's with
    `--reextract`). Cheap: the vault is walked by names and mtimes, and at most a few hundred notes opened
    (vaults/newest.py).
    """
    newest = newest_note(vault, config, window.today)
    if newest is None or newest >= window.start or ledger.covered(newest):
        return None  # a note in the window; or a person who stopped writing for a while, whose notes were read
    where = config.vault if is_remote(config.vault) else str(vault)
    flags = ["--vault", shlex.quote(str(where)), "--today", str(newest)]
    if not (window.mode == "first" if first is None else first):
        since = newest - dt.timedelta(days=config.first_run_days - 1)
        flags += [*(["--reextract"] if step is Step.REFRESH else []), "--since", str(since)]
    return (f"no note is dated in the window ({window.start} to {window.today}); the newest is dated {newest}: "
            f"{naming.command(step, *flags)} reads the {config.first_run_days} days up to it")
