"""The archive's vectors as one matrix, kept beside the index (`.state/archive-vectors.npz`) so a search reads
them at once rather than row by row (docs/spec.md §9.7): written after each update of the index that changed it,
of one version of the index (which file, which write), and read only while the index is still of it; otherwise a search
reads the index's rows, and the next update writes the matrix again. A cache of a cache: deleting it costs one
slower search. Loaded only where the bundled model is (numpy comes with it).
"""

from __future__ import annotations

import io
import logging
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from hylo_memory.decay.files.store import atomic_write
from hylo_memory.pipeline.state.archive import ArchiveIndex
from hylo_memory.pipeline.state.names import STATE_DIR

if TYPE_CHECKING:
    import numpy as np

MATRIX_FILE = "archive-vectors.npz"
log = logging.getLogger(__name__)


class Matrix(NamedTuple):
    """Each embedded passage's id, ascending, and its vector (a row, 32-bit floats)."""

    ids: np.ndarray
    vectors: np.ndarray


def matrix_path(memory_dir: Path) -> Path:
    return memory_dir / STATE_DIR / MATRIX_FILE


def keep(index: ArchiveIndex, memory_dir: Path, model: str) -> None:
    """Write the matrix of the index as it is now, unless the one kept is of this version already."""
    import numpy as np

    version = index.version()
    if _kept_version(memory_dir, model) == version:
        return
    found = _from_rows(index, model)
    buffer = io.BytesIO()
    np.savez(buffer, version=np.array(version), model=np.array(model), ids=found.ids, vectors=found.vectors)
    atomic_write(matrix_path(memory_dir), buffer.getvalue())


def load(index: ArchiveIndex, memory_dir: Path, model: str) -> Matrix:
    """The vectors of the index's passages: the kept matrix when it is of the index's version, else its rows."""
    import numpy as np

    try:
        with np.load(matrix_path(memory_dir)) as kept:
            if str(kept["version"]) == index.version() and str(kept["model"]) == model:
                return Matrix(kept["ids"], kept["vectors"])
    except FileNotFoundError:
        pass
    except (OSError, ValueError, KeyError) as exc:  # damaged: the rows answer, and the next update writes it again
        log.debug("the kept matrix of the notes' vectors cannot be read: %s", exc)
    return _from_rows(index, model)


def _from_rows(index: ArchiveIndex, model: str) -> Matrix:
    import numpy as np

    ids, rows = index.vectors(model)
    if not rows:
        return Matrix(np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32))
    vectors = np.frombuffer(b"".join(rows), dtype=np.float16).reshape(len(rows), -1).astype(np.float32)
    return Matrix(np.array(ids, dtype=np.int64), vectors)


def _kept_version(memory_dir: Path, model: str) -> str | None:
    import numpy as np

    try:
        with np.load(matrix_path(memory_dir)) as kept:
            return str(kept["version"]) if str(kept["model"]) == model else None
    except (OSError, ValueError, KeyError):
        return None
