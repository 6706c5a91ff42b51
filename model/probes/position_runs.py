"""The positional-encoding panel's work on the live model: the table it adds at each position,
and the swap what-if (the encoder on a source and on it with two characters swapped, with and
without positional encoding). The arithmetic on their answers is in ``model.probes.positions``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import torch

from model.generation.engine import record_encoder
from model.interface import Interventions, ModelFamily
from model.probes.positions import SwapComparison, swap_chars, swap_permutation


@torch.no_grad()
def positional_table(model: ModelFamily) -> np.ndarray:
    """[positions, d_model] the encoding the model adds at each position it can read.

    Families with absolute positions (sinusoidal or learned) give their own table, never a
    formula re-typed here; others have none to give.
    """
    table = model.positional_table()
    if table is None:
        scheme = model.info.capabilities.positional
        raise ValueError(f"{model.info.display_name} adds no position table (its positions: {scheme})")
    return table.detach().float().cpu().numpy()


def compare_swap(
    model: ModelFamily, source: str, a: int, b: int, interventions: Interventions
) -> SwapComparison:
    """Runs on the worker: the encoder on both sources, with and without positional encoding."""
    swapped = swap_chars(source, a, b)
    kind = next(k.name for k in model.info.kinds if not k.per_step)  # the encoder's self-attention
    runs = {}
    for no_positional in (False, True):
        chosen = replace(interventions, no_positional=no_positional)
        _, original = record_encoder(model, source, chosen)
        _, changed = record_encoder(model, swapped, chosen)
        runs[no_positional] = (original, changed)
    original, changed = runs[False]
    return SwapComparison(
        list(original.tokens),
        list(changed.tokens),
        swap_permutation(len(original.tokens), a, b),
        (original.attention[kind], changed.attention[kind]),
        (runs[True][0].attention[kind], runs[True][1].attention[kind]),
    )
