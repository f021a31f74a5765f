"""The command line's words for the steps its texts advise (pipeline/naming.py): apart from options.py, so the
quick path (quick.py), which loads no click, says them too."""

from __future__ import annotations

from hylo_memory.pipeline.naming import Naming, Step
from hylo_memory.pipeline.version import PROG

# The steps a text advises, as the command line names them (docs/spec.md §9.5: the assistant's reading loop).
COMMAND_WORDS = {step: f"{PROG} {step.name.lower()}" for step in Step}
# The answer's words name its file: `apply --lease` alone is refused (the answer is read from `--evidence`).
NAMING = Naming(next_batch=f"`{PROG} pending`", answer=f"`{PROG} apply --lease LEASE --evidence FILE`",
                commands=COMMAND_WORDS)
