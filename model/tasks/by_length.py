"""Exact match per source length (``attnviz eval --by-length``): the curve of Bahdanau et al.'s
Figure 2, measured on the shipped tasks.

For every input length from 1 to the task's maximum, fresh held-out examples of exactly that
length are decoded greedily, in rounds of ``ROUND`` examples, until the 95 % Wilson interval of
the exact-match rate is no wider than ± ``half_width`` (at most ``MAX_PER_LENGTH``, which
reaches ± 3 points even at 50 %). Only ``reverse:`` and ``sort:`` take inputs of any length;
the dates' lengths are set by their forms, and ``pick:`` has no length.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from model.generation.engine import greedy_texts
from model.interface import ModelFamily
from model.tasks.evaluate import fitting
from model.tasks.synthetic import MAX_INPUT_LEN, TEXT_TASKS, make_example

ROUND = 100  # examples per length per round
MAX_PER_LENGTH = 1100  # 1.96 · √(0.25 / 1100) = 0.0296: ± 3 points at any rate
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


def measure_by_length(
    model: ModelFamily,
    task: str = "reverse",
    *,
    name: str = "",
    seed: int = 0,
    half_width: float = 0.03,
    max_length: int = MAX_INPUT_LEN,
    progress: Callable[[int, int], None] | None = None,
) -> LengthCurve:
    """Exact match of ``model``'s greedy outputs for each input length 1..``max_length``."""
    if task not in TEXT_TASKS:
        raise ValueError(
            f"--by-length measures {' and '.join(TEXT_TASKS)} (inputs of any length), not {task}"
        )
    if not 0 < half_width < 0.5:
        raise ValueError(f"the interval's half-width must be between 0 and 0.5, got {half_width}")
    if not 1 <= max_length <= MAX_INPUT_LEN:
        raise ValueError(f"the longest length must be 1..{MAX_INPUT_LEN}, got {max_length}")
    decode = fitting(partial(greedy_texts, model), model.tokenizer, model.info.max_source_len)
    curve = LengthCurve(task, model.info.display_name, name, seed, half_width)
    for length in range(1, max_length + 1):
        rng = random.Random(f"by-length-{seed}-{task}-{length}")  # a stream training never draws
        n = correct = 0
        while n < MAX_PER_LENGTH:
            batch = [make_example(task, rng, length=length) for _ in range(min(ROUND, MAX_PER_LENGTH - n))]
            outputs = decode([example.source for example in batch])
            correct += sum(out == ex.target for out, ex in zip(outputs, batch, strict=True))
            n += len(batch)
            low, high = wilson_interval(correct, n)
            if (high - low) / 2 <= half_width:
                break
        curve.rows.append(LengthRow(length, n, correct))
        if progress is not None:
            progress(length, max_length)
    return curve
