"""Hints a run gives when the vault does not look as the configuration expects."""

from __future__ import annotations

import shlex
from pathlib import Path

from ..config import Config, is_whole_vault


def layout_hints(vault: Path, config: Config) -> list[str]:
    """A hint when none of the folders the configuration reads is in the vault: a run would read nothing."""
    folders = config.shorts_paths + config.knowledge_paths + config.extra_scan_paths
    if any(is_whole_vault(f) or (vault / f).exists() for f in folders):
        return []
    run = f"run `hylo-memory init --vault {shlex.quote(str(vault))}` to choose which folders to read"
    if not folders:
        return [f"no folders are configured to be read: {run}"]
    names = [f"{f.strip().rstrip('/')}/" for f in folders]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    return [f"no {listed} folder in this vault: {run}"]
