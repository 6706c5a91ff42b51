"""Progress of long model work (opening a large model), reported to whoever listens.

An opener calls ``report(fraction, stage)`` between its stages; the caller that wants to show
progress wraps the call in ``with reporting(listener):``. Nothing is passed through the
openers' signatures, and without a listener ``report`` does nothing. ``stage`` is a fixed
English phrase (the window translates it), ``fraction`` is 0..1 of the whole work.
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
