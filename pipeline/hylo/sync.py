"""A command's Hylo vault: its local mirror prepared, and the memory files synced before the command reads them."""

from __future__ import annotations

from pathlib import Path

from ..config import Config
from ..state.writing import open_store, writing
from .mirror import Settings, prepare


def open_hylo(config: Config) -> Path:
    """The mirror of the Hylo at `config.vault`, its memory files as Hylo has them now (anything a killed
    command left unsent sent first); the folder every command then works on."""
    assert config.vault is not None
    settings = Settings(url=config.vault, memory_dir=config.memory_dir, timeout=config.hylo_timeout,
                        page=config.hylo_page, shorts_paths=config.shorts_paths,
                        knowledge_paths=config.knowledge_paths, extra_scan_paths=config.extra_scan_paths)
    root = prepare(settings, config.state_dir)
    with writing(open_store(root, config), config.lock_timeout):
        pass  # taking the memory lock syncs the memory files with Hylo
    return root
