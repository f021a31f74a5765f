"""What the model requests of a run spent: requests and tokens, as the server counted them."""

from __future__ import annotations

from pydantic import BaseModel


class Usage(BaseModel):
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # of the prompt tokens, those the server's prompt cache served (it says so)
    batched: int = 0  # of the requests, those answered through the provider's batch endpoint (billed for less)

    def add(self, other: Usage) -> None:
        self.requests += other.requests
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cached_tokens += other.cached_tokens
        self.batched += other.batched

    def __sub__(self, other: Usage) -> Usage:
        """What was spent since `other` was taken."""
        return Usage(requests=self.requests - other.requests, prompt_tokens=self.prompt_tokens - other.prompt_tokens,
                     completion_tokens=self.completion_tokens - other.completion_tokens,
                     cached_tokens=self.cached_tokens - other.cached_tokens, batched=self.batched - other.batched)
