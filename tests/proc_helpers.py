"""Helpers for tests that run `hylo-memory` as real processes (locking, crash safety, schedule)."""

from __future__ import annotations

import datetime as dt
import os
import queue
import random
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hylo_memory.decay import Dimension
from hylo_memory.testing import FakeOpenAI, answer

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_VAULT = ROOT / "examples" / "vault"
HYLO = str(Path(sys.executable).parent / "hylo-memory")
MEMORY_FILES = [d.filename for d in Dimension]  # the six, in docs/spec.md order


def cli_env(home: Path, **extra: str) -> dict[str, str]:
    """An environment with no user config, no API key, the offline extractor, and recall by BM25 alone (as in
    conftest.isolated_env; `HYLO_MEMORY_BUNDLED_EMBEDDINGS="true"` in `extra` for the bundled model)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HYLO_MEMORY_", "OPENAI_")) and k not in ("PYTHONWARNINGS", "XDG_CACHE_HOME")}
    home.mkdir(parents=True, exist_ok=True)
    env.update(HOME=str(home), HYLO_MEMORY_EXTRACTOR="offline", HYLO_MEMORY_BUNDLED_EMBEDDINGS="false",
               PYTHONUNBUFFERED="1")
    env.update(extra)
    return env


def run(args: list[str], env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([HYLO, *args], env=env, capture_output=True, text=True, timeout=timeout)


class Processes:
    """Processes a test starts; all killed and their pipes closed when it ends, pass or fail."""

    def __init__(self) -> None:
        self.started: list[subprocess.Popen[str]] = []

    def start(self, args: list[str], env: dict[str, str], program: str = HYLO, **kwargs) -> subprocess.Popen[str]:
        kwargs.setdefault("stdout", subprocess.PIPE)
        kwargs.setdefault("stderr", subprocess.PIPE)
        process = subprocess.Popen([program, *args], env=env, text=True, **kwargs)
        self.started.append(process)
        return process

    def close(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.kill()
            process.wait()
            for pipe in (process.stdin, process.stdout, process.stderr):
                if pipe is not None:
                    pipe.close()


@pytest.fixture
def processes() -> Iterator[Processes]:
    procs = Processes()
    yield procs
    procs.close()


class Lines:
    """A pipe read line by line in a thread, so a test can wait for a line with a deadline."""

    def __init__(self, pipe) -> None:
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, args=(pipe,), daemon=True).start()

    def _pump(self, pipe) -> None:
        for line in pipe:
            self._queue.put(line)
        self._queue.put(None)

    def wait_for(self, text: str, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no line with {text!r} within {timeout} s; got {self.lines}")
            try:
                line = self._queue.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(f"stream ended without {text!r}; got {self.lines}")
            self.lines.append(line)
            if text in line:
                return line

    def rest(self, timeout: float = 30) -> list[str]:
        """Every line until the stream ends."""
        while True:
            line = self._queue.get(timeout=timeout)
            if line is None:
                return self.lines
            self.lines.append(line)


def copy_example_vault(dest: Path) -> Path:
    shutil.copytree(EXAMPLE_VAULT, dest)
    return dest


def memory_texts(memory: Path) -> dict[str, str | None]:
    """The six memory files' texts (None for a file that does not exist)."""
    return {name: (memory / name).read_text(encoding="utf-8") if (memory / name).exists() else None
            for name in MEMORY_FILES}


# A paused model: the fake OpenAI server as the configured LLM, answering as a careful
# model would but holding every chat request until the test releases it. A refresh is
# made slow at a known point (extracting: the run lock held, the memory lock free) with
# no hook in the code under test.

class PausedModel:
    """``with PausedModel() as model:`` a process run with ``model.env(home)`` extracts through
    the fake model; ``model.wait_for_request()`` returns once its first chat request is in
    (the refresh is under way), and ``model.release.set()`` lets it and every later one finish."""

    def __init__(self, timeout: float = 60) -> None:
        self.arrived = threading.Event()
        self.release = threading.Event()
        self.timeout = timeout  # a broken test must not hang forever
        self.fake = FakeOpenAI(handler=self._answer)

    def _answer(self, body: dict) -> str:
        self.arrived.set()
        self.release.wait(self.timeout)
        return answer(body)

    def env(self, home: Path) -> dict[str, str]:
        """``cli_env`` with this server as the LLM, fast retries."""
        return {**cli_env(home), "HYLO_MEMORY_EXTRACTOR": "openai", "OPENAI_BASE_URL": self.fake.base_url,
                "OPENAI_API_KEY": "test", "HYLO_MEMORY_RETRY_BACKOFF": "0.01"}

    def wait_for_request(self, timeout: float = 30) -> None:
        assert self.arrived.wait(timeout), f"no chat request within {timeout} s"

    def __enter__(self) -> PausedModel:
        self.fake.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release.set()  # no handler thread left waiting: close() joins them
        self.fake.close()


@pytest.fixture
def paused_model() -> Iterator[PausedModel]:
    with PausedModel() as model:
        yield model


# Generated notes: enough first-person statements for every rule to fire (reinforce,
# merge near-duplicates, fade, expire) over a first run's 90 days.

PLACES = ["Lisbon", "Porto", "Berlin"]
LIKES = ["long runs by the river", "modal jazz", "strong black coffee", "fermented vegetables",
         "quiet mornings", "boring technology", "reading papers on trains", "cooking for friends"]
TOOLS = ["Neovim", "Postgres", "Dagster", "Obsidian", "DuckDB"]
GOALS = ["finish the Dagster migration", "run a half marathon", "launch episode 14", "learn Rust"]
PEOPLE = [("sister", "Ines"), ("partner", "Tomas"), ("manager", "Rui"), ("friend", "Joana"), ("mentor", "Ada")]
MOODS = ["stressed", "exhausted", "tired", "anxious", "happy", "calm", "motivated", "relieved"]
BELIEFS = ["boring technology is underrated", "most companies do not have big data", "tests are documentation"]


def generate_notes(vault: Path, count: int, today: dt.date, seed: int = 7) -> None:
    """`count` short notes dated over the last 95 days (a few fall outside a first run's window)."""
    rng = random.Random(seed)
    shorts = vault / "_shorts"
    shorts.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        day = today - dt.timedelta(days=rng.randrange(0, 95))
        lines = []
        for _ in range(rng.randint(1, 3)):
            kind = rng.randrange(7)
            if kind == 0:
                lines.append(f"I really love {rng.choice(LIKES)}{rng.choice(['', '', ' a lot'])}.")
            elif kind == 1:
                lines.append(f"I use {rng.choice(TOOLS)} every day.")
            elif kind == 2:
                lines.append(f"I want to {rng.choice(GOALS)}.")
            elif kind == 3:
                rel, name = rng.choice(PEOPLE)
                lines.append(f"Dinner with my {rel} {name} tonight.")
            elif kind == 4:
                lines.append(f"I feel {rng.choice(MOODS)} about the week{rng.choice(['', ' ahead'])}.")
            elif kind == 5:
                lines.append(f"I believe that {rng.choice(BELIEFS)}.")
            else:
                lines.append(f"I live in {rng.choice(PLACES)} now. Note {i}.")
        (shorts / f"{day.isoformat()}-note-{i:05d}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
