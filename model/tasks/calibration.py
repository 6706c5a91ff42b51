"""The data's own next-token distribution for a source, beside the model's (calibration).

Every shipped task knows its answers' distribution (``synthetic.answers``): one answer for
reverse and sort, two readings at 0.5 for an ambiguous date, the category's frequencies for
pick. Given what has been generated so far, that fixes the distribution of the next
character, which a well-calibrated model reproduces. numpy only.
"""

from __future__ import annotations

import numpy as np

from model.interface import Tokenizer
from model.tasks.synthetic import next_character_distribution


def data_next_token(source: str, prefix: str, tokenizer: Tokenizer) -> np.ndarray | None:
    """[V] the data's probability of each next token after ``prefix``; ``<eos>`` ends it.

    None when the source is no task, no answer starts with ``prefix``, or the tokenizer
    cannot write one of the characters as a single token of its own.
    """
    following = next_character_distribution(source, prefix)
    if following is None:
        return None
    truth = np.zeros(len(tokenizer), dtype=np.float64)
    for char, p in following.items():
        if char == "":
            truth[tokenizer.eos_id] += p
            continue
        encoded = tokenizer.encode(char)
        if encoded.unknown or len(encoded.ids) != 1:
            return None
        truth[encoded.ids[0]] += p
    return truth


def total_variation(p: np.ndarray, q: np.ndarray) -> float:
    """Half the L1 distance between two distributions over the same tokens (0 = equal, 1 = disjoint)."""
    return float(0.5 * np.abs(np.asarray(p, dtype=np.float64) - np.asarray(q, dtype=np.float64)).sum())
