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
