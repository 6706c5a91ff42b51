"""Long commands' progress on the terminal: a bar on stderr, fed by ``model.core.progress``.

``with progress_bar("eval"):`` listens (``model.core.progress.reporting``) to the reports the
work inside makes, the same reports the window's pages show for their long jobs, and draws one
line that is redrawn in place::

    eval [#########...............]  38%  1:12  decoding held-out examples

at most every ``REDRAW_S`` seconds, and wipes it when the work ends, so that the result is
printed on a clean line. When stderr is no terminal (a pipe, a file, a script) it draws
nothing: logs get only the result.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from model.core.progress import report, reporting

BAR_WIDTH = 24
REDRAW_S = 0.2


class ProgressBar:
    """A ``model.core.progress`` listener that draws a bar on ``stream`` if it is a terminal."""

    def __init__(self, title: str, stream: TextIO | None = None) -> None:
        self.title = title
        self.stream = sys.stderr if stream is None else stream
        self.shown = self.stream.isatty()
        self.started = time.monotonic()
        self.drawn_at: float | None = None
        self.width = 0  # of the line on screen, to wipe it

    def __call__(self, fraction: float, stage: str) -> None:
        if not self.shown:
            return
        now = time.monotonic()
        if self.drawn_at is not None and now - self.drawn_at < REDRAW_S and fraction < 1:
            return  # a redraw per report would flood a slow terminal
        self.drawn_at = now
        filled = round(fraction * BAR_WIDTH)
        elapsed = int(now - self.started)
        line = (
            f"{self.title} [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {fraction:4.0%}  "
            f"{elapsed // 60}:{elapsed % 60:02d}  {stage}"
        )
        line = line[: max(20, shutil.get_terminal_size().columns - 1)]  # one line, never wrapped
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.width = len(line)

    def wipe(self) -> None:
        """Take the bar off the screen (the result comes next)."""
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0


@contextmanager
def progress_bar(title: str) -> Iterator[ProgressBar]:
    """Draw the progress the work inside reports, as ``title``'s bar on stderr."""
    bar = ProgressBar(title)
    try:
        with reporting(bar):
            yield bar
    finally:
        bar.wipe()


def counted(done: int, total: int, what: str) -> None:
    """The ``progress(done, total, what)`` callback of the attribution and head-importance work,
    passed on as a report (as the window's jobs do: ``visualizer.work.jobs.progress``)."""
    report(done / total, what)
