"""Exact match per source length (``attnviz eval --by-length``): the curve of Bahdanau et al.'s
Figure 2, measured on the shipped tasks.

For every input length from 1 to the task's maximum, fresh held-out examples of exactly that
length are decoded greedily, in rounds of ``ROUND`` examples, until the 95 % Wilson interval of
the exact-match rate is no wider than ± ``half_width`` (at most ``MAX_PER_LENGTH``, which
reaches ± 3 points even at 50 %). Only ``reverse:`` and ``sort:`` take inputs of any length;
the dates' lengths are set by their forms, and ``pick:`` has no length.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial

from model.generation.engine import greedy_texts
from model.interface import ModelFamily
from model.tasks.evaluate import fitting
from model.tasks.length_curve import LengthCurve, LengthRow, wilson_interval
from model.tasks.synthetic import MAX_INPUT_LEN, TEXT_TASKS, make_example

ROUND = 100  # examples per length per round
MAX_PER_LENGTH = 1100  # 1.96 · √(0.25 / 1100) = 0.0296: ± 3 points at any rate


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
