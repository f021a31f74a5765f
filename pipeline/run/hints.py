"""Hints a run gives: the vault does not look as the configuration expects, or a configured model is not used."""

from __future__ import annotations

import shlex
from pathlib import Path

from hylo_memory.pipeline.config import Config, is_whole_vault


def layout_hints(vault: Path, config: Config) -> list[str]:
    """A hint when none of the folders the configuration reads is in the vault (a run would read nothing), and
    one when a model is configured but the offline extractor was chosen (the summary's line names only the latter)."""
    return _folder_hints(vault, config) + extractor_hints(config)


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


def _folder_hints(vault: Path, config: Config) -> list[str]:
    folders = config.shorts_paths + config.knowledge_paths + config.extra_scan_paths
    if any(is_whole_vault(f) or (vault / f).exists() for f in folders):
        return []
    run = f"run `hylo-memory init --vault {shlex.quote(str(vault))}` to choose which folders to read"
    if not folders:
        return [f"no folders are configured to be read: {run}"]
    names = [f"{f.strip().rstrip('/')}/" for f in folders]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    return [f"no {listed} folder in this vault: {run}"]
