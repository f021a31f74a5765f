"""The progress of a long refresh or `index` as a bar on stderr, only when stderr is a terminal."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn

from hylo_memory.pipeline.run.progress import Silent


class Bar:
    """A rich progress display: a spinner while notes are read, then a bar of sources extracted; and a bar of any
    other long step (`started`, `advanced`: the items embedded after a refresh, or by `index`)."""

    def __init__(self, progress: Progress):
        self.progress = progress
        self.task: TaskID | None = None

    def reading(self) -> None:
        self.task = self.progress.add_task("Reading notes", total=None)

    def extracting(self, sources: int) -> None:
        if self.task is not None:
            self.progress.update(self.task, description="Extracting", total=sources, completed=0)

    def extracted(self, sources: int) -> None:
        if self.task is not None:
            self.progress.advance(self.task, sources)

    def started(self, what: str, total: int) -> None:
        if self.task is None:
            self.task = self.progress.add_task(what, total=total)
        else:
            self.progress.update(self.task, description=what, total=total, completed=0)

    def advanced(self, count: int) -> None:
        self.extracted(count)


@contextmanager
def progress_bar(quiet: bool) -> Iterator[Bar | Silent]:
    """A bar on stderr when it is a terminal and `quiet` is not asked; else progress nobody sees."""
    console = Console(stderr=True)
    if quiet or not console.is_terminal:  # a cron log, a pipe, --json piped on: nothing changes
        yield Silent()
        return
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        yield Bar(progress)
