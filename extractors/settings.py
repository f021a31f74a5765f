"""What the LLM extractor needs to know: the endpoint, the model, and the run's limits."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, SecretStr


class LLMSettings(BaseModel):
    """The LLM part of the configuration; `pipeline.config.Config.llm()` builds it.

    Every number has a ceiling as well as a floor: a value past it is a typo (NaN and infinity too).
    """

    model_config = ConfigDict(allow_inf_nan=False)

    model: str = Field("gpt-4o-mini", max_length=1024)
    api_key: SecretStr | None = None
    base_url: str | None = Field(None, max_length=1024)
    temperature: float = Field(0.0, ge=0, le=2)
    timeout: float = Field(60.0, gt=0, le=3600)
    retries: int = Field(3, ge=0, le=20)
    retry_backoff: float = Field(0.5, ge=0, le=60)  # seconds before the first retry, doubling
    concurrency: int = Field(4, ge=1, le=64)
    request_token_budget: int = Field(6000, ge=500, le=2_000_000)
    run_token_ceiling: int = Field(2_000_000, ge=1000, le=10_000_000_000)
    max_reply_tokens: int = Field(2000, ge=64, le=1_000_000)
    max_evidence_per_source: int = Field(20, ge=1, le=1000)  # the rest of a source's evidence is dropped, counted
    max_failed_batches: int = Field(3, ge=1, le=10_000)  # failed batches in a row before a run stops sending
