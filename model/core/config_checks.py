"""What every family's config does with numbers and JSON: plain data, no torch."""

from __future__ import annotations

from dataclasses import fields


def check_int(config: object, name: str, low: int, high: int) -> None:
    """Raise ValueError in one line unless ``config.name`` is an integer in low..high."""
    value = getattr(config, name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"config: {name} must be an integer, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"config: {name}={value} is outside {low}..{high}")


def config_from_dict(cls, data: object, required: tuple[str, ...] = ("vocab_size",)):
    """``cls(**data)`` from JSON data; unknown or missing keys are a ValueError, not a TypeError."""
    if not isinstance(data, dict):
        raise ValueError("config: expected a JSON object")
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"config: unknown field(s) {', '.join(unknown)}")
    for name in required:
        if name not in data:
            raise ValueError(f"config: {name} is missing")
    return cls(**data)
