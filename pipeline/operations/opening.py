"""The vault a command works on (docs/spec.md §1, §10): a folder, checked; or a remote vault's local copy (Hylo's),
synced. Which it is, the vaults' registry says (pipeline/vaults: `is_remote`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from hylo_memory.pipeline import config_memo
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.naming import Naming
from hylo_memory.pipeline.vaults import is_remote, local_root

if TYPE_CHECKING:
    from hylo_memory.pipeline.state.opened import Opened


def open_memory(vault: Path, config: Config, naming: Naming) -> Opened:
    """The memory a command works on, opened once (its store; its ledger when first used): the doors call this, with
    their words for the steps a text advises, and pass what it opened to the operation, which passes it to the run.
    Close it, or open it in a `with`."""
    from hylo_memory.pipeline.state.opened import Opened  # the store's module loads with a command, not at start

    return Opened(vault, config, naming)


def open_vault(config: Config, given: str | None = None, memo: bool = False) -> Path:
    """The folder every command then works on: the vault folder, resolved, or the local copy of the Hylo at
    `config.vault` with its memory files as Hylo has them now.

    `memo`: keep what the quick path of recall and context reads (cli/quick.py), with the --vault `given`."""
    assert config.vault
    root = local_root(config)
    if is_remote(config.vault):
        from hylo_memory.pipeline.state.writing import open_store, writing  # a folder's commands load it later

        with writing(open_store(root, config), config.lock_timeout):  # a store alone: no ledger wanted
            pass  # taking the memory lock syncs the memory files with Hylo
    elif memo:
        config_memo.keep(given, config.vault, root, config.memory_dir, config.timezone,
                         quick=config.embedding_model is None, meaning=config.ranks_by_bundled_model(),
                         soft_cap=config.soft_cap)
    return root
