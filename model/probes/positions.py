"""What a family adds at each position, as plain numpy (for the positional-encoding panel)."""

from __future__ import annotations

import numpy as np
import torch

from model.interface import ModelFamily


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
