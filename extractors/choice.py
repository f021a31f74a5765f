"""Which extractor a run uses: the LLM when one is configured, else the offline one."""

from __future__ import annotations

from .base import Extractor
from .llm.settings import LLMSettings
from .offline.offline import OfflineExtractor


def extractor_name(llm: LLMSettings | None) -> str:
    """The name a run records for the sources these settings' extractor reads, without building it."""
    return "offline" if llm is None else f"openai ({llm.model})"


def make_extractor(llm: LLMSettings | None) -> Extractor:
    """The LLM extractor for these settings, or the offline one when there are none."""
    if llm is not None:
        from .llm.llm import LLMExtractor  # the openai SDK is imported only when used

        return LLMExtractor(llm)
    return OfflineExtractor()
