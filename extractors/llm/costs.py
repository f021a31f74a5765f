"""What a run's model requests cost (docs/spec.md §4.8), from the prices the person sets: no price table here.

Prices are per million tokens. Cached prompt tokens (the server says how many) are billed at the cached
price, which is the input price when none is set; requests answered through a batch at `batch_discount`
of the price. Beside the estimate stands what the same tokens would have cost asked directly with
nothing cached, so the saving is a number.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from hylo_memory.domain.usage import Usage

PER = 1_000_000


class Prices(BaseModel):
    input: float
    output: float
    cached_input: float | None = None
    batch_discount: float = 0.5  # a batched request's share of the price


class Cost(BaseModel):
    estimated: float  # as billed: uncached prompt tokens, cached ones and completion tokens at their prices
    uncached: float  # the same tokens asked directly, none cached

    def line(self) -> str:
        saved = f" (direct and uncached: ${self.uncached:.4f})" if self.uncached > self.estimated else ""
        return f"estimated cost ${self.estimated:.4f}{saved}"


def total(costs: Iterable[Cost | None]) -> Cost | None:
    """The costs added up (those priced apart: direct and batched runs); None when none is priced."""
    priced = [c for c in costs if c is not None]
    if not priced:
        return None
    return Cost(estimated=round(sum(c.estimated for c in priced), 6),
                uncached=round(sum(c.uncached for c in priced), 6))


def cost_of(usage: Usage, prices: Prices | None) -> Cost | None:
    """The cost of `usage` at `prices`; None without prices (or without requests)."""
    if prices is None or not usage.requests:
        return None
    cached = min(usage.cached_tokens, usage.prompt_tokens)
    cached_price = prices.input if prices.cached_input is None else prices.cached_input
    output = usage.completion_tokens * prices.output
    direct = ((usage.prompt_tokens - cached) * prices.input + cached * cached_price + output) / PER
    # A run's requests are all batched or all direct (a batch is applied as its own run): the share covers both.
    batched = min(usage.batched, usage.requests) / usage.requests
    estimated = direct * (1 - batched + batched * prices.batch_discount)
    return Cost(estimated=round(estimated, 6), uncached=round((usage.prompt_tokens * prices.input + output) / PER, 6))
