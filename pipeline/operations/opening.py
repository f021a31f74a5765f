"""The vault a command works on (docs/spec.md §1, §10): a folder, checked; or a remote vault's local copy (Hylo's),
synced. Which it is, the vaults' registry says (pipeline/vaults: `is_remote`)."""

from __future__ import annotations

from pathlib import Path

from hylo_memory.pipeline import config_memo
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.vaults import is_remote, local_root


def open_vault(config: Config, given: str | None = None, memo: bool = False) -> Path:
    """The folder every command then works on: the vault folder, resolved, or the local copy of the Hylo at
    `config.vault` with its memory files as Hylo has them now.

    `memo`: keep what the quick path of recall and context reads (cli/quick.py), with the --vault `given`."""
    assert config.vault
    root = local_root(config)
    if is_remote(config.vault):
        from hylo_memory.pipeline.state.writing import open_store, writing  # a folder's commands load it later

        with writing(open_store(root, config), config.lock_timeout):
            pass  # taking the memory lock syncs the memory files with Hylo
    elif memo:
        config_memo.keep(given, config.vault, root, config.memory_dir, config.timezone,
                         quick=config.embedding_model is None, meaning=config.ranks_by_bundled_model(),
                         soft_cap=config.soft_cap)
    return root
