"""How many examples a property test explores: its own count in the full tier (`make test-all`), about a quarter of
it in the fast tier (`make test` loads conftest's `fast` Hypothesis profile), so the edit–test loop stays quick and
CI explores every example."""

from hypothesis import settings

FULL = 100  # Hypothesis's own default: a profile that keeps it keeps every test's own count


def examples(count: int) -> int:
    return max(10, count * settings.default.max_examples // FULL)
