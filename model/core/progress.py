"""Progress of long model work (opening a large model, a panel's slow job), reported to whoever
listens, and the request to stop it early.

An opener calls ``report(fraction, stage)`` between its stages; the caller that wants to show
progress wraps the call in ``with reporting(listener):``. Nothing is passed through the
openers' signatures, and without a listener ``report`` does nothing. ``stage`` is a fixed
English phrase (the window translates it), ``fraction`` is 0..1 of the whole work. Long work
checks ``stop_requested()`` between its pieces (the app is closing: ``with stoppable(...)``).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Listener = Callable[[float, str], None]

LISTENER: contextvars.ContextVar[Listener | None] = contextvars.ContextVar("attnviz_progress", default=None)


@contextmanager
def reporting(listener: Listener) -> Iterator[None]:
    token = LISTENER.set(listener)
    try:
        yield
    finally:
        LISTENER.reset(token)


def report(fraction: float, stage: str) -> None:
    listener = LISTENER.get()
    if listener is not None:
        listener(min(max(fraction, 0.0), 1.0), stage)


STOPPING: contextvars.ContextVar[Callable[[], bool] | None] = contextvars.ContextVar(
    "attnviz_stopping", default=None
)


@contextmanager
def stoppable(stopping: Callable[[], bool]) -> Iterator[None]:
    """Long work inside may stop early when ``stopping()`` turns true (the app is closing)."""
    token = STOPPING.set(stopping)
    try:
        yield
    finally:
        STOPPING.reset(token)


def stop_requested() -> bool:
    """Whoever runs this work wants it to stop (checked between pieces of long work)."""
    stopping = STOPPING.get()
    return stopping is not None and stopping()
