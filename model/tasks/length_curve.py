"""An accuracy-by-length curve as plain data: each input length's exact match with its 95 %
Wilson interval, read and written as JSON. No torch: the "Why attention" page reads the shipped
curves before torch is loaded; ``model.tasks.by_length`` measures them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

Z_95 = 1.959964


def wilson_interval(correct: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a rate of ``correct`` out of ``n`` (95 % by default)."""
    if n <= 0:
        return 0.0, 1.0
    p = correct / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    spread = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - spread), min(1.0, centre + spread)


@dataclass(frozen=True)
class LengthRow:
    length: int
    n: int
    correct: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.correct, self.n)

    def to_dict(self) -> dict:
        low, high = self.interval
        return {
            "length": self.length,
            "n": self.n,
            "correct": self.correct,
            "accuracy": self.accuracy,
            "low": low,
            "high": high,
        }


@dataclass
class LengthCurve:
    """One model's exact match against input length on one task."""

    task: str
    model: str  # the model's display name
    name: str  # what it is called in legends: the checkpoint's file name
    seed: int
    half_width: float
    rows: list[LengthRow] = field(default_factory=list)

    def table(self) -> str:
        lines = [
            f"{self.task}: exact match by input length ({self.model}; 95 % Wilson intervals)",
            f"{'length':>6}  {'n':>5}  {'exact':>7}  interval",
        ]
        for row in self.rows:
            low, high = row.interval
            lines.append(
                f"{row.length:>6}  {row.n:>5}  {row.accuracy * 100:>6.1f}%  "
                f"{low * 100:5.1f}–{high * 100:5.1f}%"
            )
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "task": self.task,
            "model": self.model,
            "name": self.name,
            "seed": self.seed,
            "half_width": self.half_width,
            "rows": [row.to_dict() for row in self.rows],
        }

    @classmethod
    def from_dict(cls, data: dict) -> LengthCurve:
        """Read a curve written by ``to_dict`` (a ValueError in one line if it is not one)."""
        try:
            rows = [LengthRow(int(r["length"]), int(r["n"]), int(r["correct"])) for r in data["rows"]]
            curve = cls(
                str(data["task"]),
                str(data["model"]),
                str(data["name"]),
                int(data["seed"]),
                float(data["half_width"]),
                rows,
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"not a length curve: {error!r}") from None
        if any(row.n < 1 or not 0 <= row.correct <= row.n for row in rows):
            raise ValueError("not a length curve: a row's counts are impossible")
        return curve
