"""The norms of a Hugging Face encoder-decoder, and the statistics recorded around each.

Every layer normalises before or after each of its sublayers, with norms its architecture names
(``ModuleNames.norm_sublayer`` says which sublayer each belongs to): LayerNorm, or T5's RMSNorm
(no mean subtracted, no β). A forward hook on each keeps, inside a capturing ``recording(...)``,
the norm's input and output; ``Recording.stacked_norms`` turns them into each token's mean and
std over its features, the statistics our Transformer records around its Add & Norms. Outside a
recording the hooks only return.

Norms outside the layers (mBART's ``layernorm_embedding``, the stacks' final ``layer_norm``)
are not part of the per-layer statistics; ``stack_norms`` names them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from torch import nn

from model.hf.attention import ACTIVE, layer_path, modules_in_layers

if TYPE_CHECKING:
    from model.hf.architectures import ModuleNames


def norm_modules(model: nn.Module, names: ModuleNames) -> dict[int, tuple[str, int, int]]:
    """id(module) → (side, layer, sublayer) for the norm in front of or behind each sublayer,
    in sublayer order: self-attention, (cross-attention,) feed-forward."""
    found = {}
    for module, side, layer, rest in modules_in_layers(model, names.layers):
        sublayer = names.norm_sublayer(side, rest)
        if sublayer is not None:
            found[id(module)] = (side, layer, sublayer)
    return found


def stack_norms(model: nn.Module, names: ModuleNames) -> list[str]:
    """The names of the norms outside the layers (on embeddings, or after the last layer)."""
    found = []
    for name, module in model.named_modules():
        tail = name.rsplit(".", 1)[-1]
        if layer_path(name, names.layers) is None and ("norm" in tail.lower()) and hasattr(module, "weight"):
            found.append(name)
    return found


def record_norm(module: nn.Module, args: tuple, output: torch.Tensor) -> None:
    record = ACTIVE.get()
    if record is None or not record.capture:
        return
    where = record.norm_names.get(id(module))
    if where is not None:  # kept as they are: the statistics are computed for all norms at once
        record.norms[where] = (args[0].detach(), output.detach())


def install_norm_hooks(model: nn.Module, names: dict[int, tuple[str, int, int]]) -> list:
    """A forward hook on each norm of ``names``; the handles, to remove them."""
    return [module.register_forward_hook(record_norm) for module in model.modules() if id(module) in names]
