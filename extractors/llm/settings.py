"""What the LLM extractor needs to know: the endpoint, the model, and the run's limits."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, SecretStr


class LLMSettings(BaseModel):
    """The LLM part of the configuration; `pipeline.config.Config.llm()` builds it.

    Every number has a ceiling as well as a floor: a value past it is a typo (NaN and infinity too).
    """

    model_config = ConfigDict(allow_inf_nan=False)

    model: str = Field("gpt-4o-mini", max_length=1024, description="The model name.")
    api_key: SecretStr | None = None
    base_url: str | None = Field(None, max_length=1024)
    temperature: float = Field(0.0, ge=0, le=2, description="The sampling temperature of every request.")
    timeout: float = Field(60.0, gt=0, le=3600, description="Seconds per request.")
    retries: int = Field(3, ge=0, le=20, description=(
        "Retries per request (408, 409, 429, 5xx, timeouts and connection errors, honouring `Retry-After` "
        "up to 60 s, `retry-after-ms` and `x-should-retry`); a rejected response format or a request too long "
        "for the context is never retried as it is."))
    retry_backoff: float = Field(0.5, ge=0, le=60, description=(
        "Seconds before the first retry, doubling after each."))
    concurrency: int = Field(4, ge=1, le=64, description="Requests in flight at once.")
    request_token_budget: int = Field(6000, ge=500, le=2_000_000, description=(
        "Tokens per request, prompt and reply (estimated at about four characters a token)."))
    run_token_ceiling: int = Field(2_000_000, ge=1000, le=10_000_000_000, description=(
        "No request is sent that would pass it; the sources wait for the next run."))
    max_reply_tokens: int = Field(2000, ge=64, le=1_000_000, description=(
        "Caps each reply (`max_tokens`), and a third of the context caps it too; a longer reply is not trusted "
        "(repaired once, else its batch waits), one cut off at the limit has its batch asked again in halves."))
    max_evidence_per_source: int = Field(20, ge=1, le=1000, description=(
        "Evidence kept from one source; the rest is dropped and counted by reason."))
    max_failed_batches: int = Field(3, ge=1, le=10_000, description=(
        "Failed batches in a row after which a run sends nothing more; the rest wait for the next run."))
    context_tokens: int | None = Field(None, ge=512, le=100_000_000, description=(
        "Tokens the model's context holds; none: what the server says (llama.cpp's /props, vLLM's /v1/models, "
        "Ollama's /api/show), else 8,192. Every request, the repair turn included, is sized to fit it with room "
        "for the reply."))
    sampling_budget: float = Field(600.0, gt=0, le=86_400, description=(
        "Seconds a refresh over MCP may spend on the assistant's own model (MCP sampling); the notes not sent "
        "by then wait for the next run."))
    remember_budget: float = Field(10.0, gt=0, le=600, description=(
        "Seconds `remember` (and the MCP tool) waits for the model in all; past it the offline patterns decide."))
