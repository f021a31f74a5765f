"""Which extractor a run uses: the LLM when one is configured, else the offline one."""

from __future__ import annotations

from hylo_memory.extractors.base import Extractor
from hylo_memory.extractors.offline import OfflineExtractor

from .config import Config


def make_extractor(config: Config) -> Extractor:
    if config.uses_llm:
        from hylo_memory.extractors.llm import LLMExtractor

        return LLMExtractor(config)
    return OfflineExtractor()
