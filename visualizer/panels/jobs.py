"""A page's slow model jobs (attribution, head importance): one wanted at a time, a progress bar,
a Stop that sticks, and the answers kept for the loaded model.

A job is asked with a ``threading.Event`` it checks between pieces of work: the page sets it
when the user presses Stop, when another job is wanted instead (another step, other settings),
or when the page closes. A job stopped that way answers ``Stopped()``; one the user stopped
stays stopped until asked ``again()``, one stopped because the user moved on is asked again
when it is wanted again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QProgressBar

from visualizer.state.jobs import Job, Stopped
from visualizer.state.session import Session


class KeptResults(OrderedDict):
    """A page's slow answers for the loaded model, the most recent ``LIMIT`` of them: the
    session keeps only its latest answers, and these cost up to seconds to compute again."""

    LIMIT = 16

    def remember(self, key: tuple, value) -> None:
        self.pop(key, None)
        self[key] = value
        while len(self) > self.LIMIT:
            self.popitem(last=False)


class PanelJobs:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.stops: dict[tuple, threading.Event] = {}  # the jobs asked for and not answered yet
        self.user_stopped: set[tuple] = set()  # stopped by the Stop button: not asked again by itself
        self.key: tuple | None = None  # the job the page wants now
        self.kept = KeptResults()
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(160)
        self.progress.hide()

    def answer(self, key: tuple) -> Any:
        """Want ``key`` (other jobs are told to stop): its answer, or None while there is none."""
        for other, event in list(self.stops.items()):
            if other != key:
                event.set()
                del self.stops[other]
        self.key = key
        value = self.session.computed.get(key, self.kept.get(key))
        if isinstance(value, Stopped) and key not in self.user_stopped:
            del self.session.computed[key]  # stopped because the user moved on: ask again
            return None
        return value

    def ask(self, key: tuple, make_job: Callable[[threading.Event], Job]) -> bool:
        """Ask the worker for ``key`` unless it is on its way or failed; whether it is coming."""
        if not self.session.is_computing(key) and key not in self.session.failed:
            self.stops[key] = threading.Event()
            self.progress.setValue(0)
            self.session.compute(key, make_job(self.stops[key]))
        computing = self.session.is_computing(key)
        self.progress.setVisible(computing)
        return computing

    def arrived(self, key: tuple, value: Any) -> None:
        """``key``'s answer is shown: keep it (unless it is a stop)."""
        self.stops.pop(key, None)
        self.progress.hide()
        if not isinstance(value, Stopped):
            self.kept.remember(key, value)

    def stop(self) -> None:
        """The Stop button: the wanted job stops, and stays stopped until asked again."""
        if self.key is not None and self.key in self.stops:
            self.user_stopped.add(self.key)
            self.stops.pop(self.key).set()

    def again(self) -> None:
        """Forget that the wanted job was stopped, so that it is asked again."""
        if self.key is None:
            return
        self.user_stopped.discard(self.key)
        if isinstance(self.session.computed.get(self.key), Stopped):
            del self.session.computed[self.key]

    def forget(self) -> None:
        """Another model: nothing kept applies to it."""
        self.kept.clear()

    def on_progress(self, key, fraction: float, stage: str) -> None:
        if key == self.key:
            self.progress.setValue(round(fraction * 100))
            self.progress.setFormat(f"%p% {stage}")
            self.progress.setToolTip(stage)

    def close(self) -> None:
        for event in self.stops.values():
            event.set()  # a closed page wants nothing more
