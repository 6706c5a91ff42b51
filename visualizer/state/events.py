"""A minimal Qt-free signal, so the session can be observed without importing Qt."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Signal:
    """Callbacks called in connection order on ``emit``; the session's only way to speak."""

    def __init__(self) -> None:
        self._slots: list[Callable[..., Any]] = []

    def connect(self, slot: Callable[..., Any]) -> None:
        if slot not in self._slots:
            self._slots.append(slot)

    def disconnect(self, slot: Callable[..., Any]) -> None:
        if slot in self._slots:
            self._slots.remove(slot)

    def emit(self, *args: Any) -> None:
        for slot in list(self._slots):
            slot(*args)

    def __len__(self) -> int:
        return len(self._slots)


class Subscriptions:
    """Slots connected to signals together, and disconnected together when a widget closes.

    A closed widget whose slots stay connected would be kept alive (and called) by the
    long-lived session.
    """

    def __init__(self, *pairs: tuple[Signal, Callable[..., Any]]) -> None:
        self.pairs = list(pairs)
        for signal, slot in pairs:
            signal.connect(slot)

    def add(self, signal: Signal, slot: Callable[..., Any]) -> None:
        """One more, closed with the others (a subclass's own)."""
        self.pairs.append((signal, slot))
        signal.connect(slot)

    def close(self) -> None:
        for signal, slot in self.pairs:
            signal.disconnect(slot)
