"""The norms of a Hugging Face encoder-decoder, and the statistics recorded around each.

Every layer normalises before or after each of its sublayers: BART-like models with
``self_attn_layer_norm``, ``encoder_attn_layer_norm`` (decoder) and ``final_layer_norm`` (the
feed-forward's), LayerNorm; T5 with ``layer.j.layer_norm`` in front of its j-th sublayer,
RMSNorm (no mean subtracted, no β). A forward hook on each keeps, inside a capturing
``recording(...)``, the norm's input and output; ``Recording.stacked_norms`` turns them into
each token's mean and std over its features, the statistics our Transformer records around
its Add & Norms. Outside a recording the hooks only return.

Norms outside the layers (mBART's ``layernorm_embedding``, the stacks' final ``layer_norm``)
are not part of the per-layer statistics; ``stack_norms`` names them.
"""

from __future__ import annotations

import torch
from torch import nn

from model.hf.attention import ACTIVE, layer_path, modules_in_layers

# BART-like tails by sublayer; the encoder has no cross-attention, so its feed-forward is 1
BART_NORMS = {"self_attn_layer_norm": 0, "encoder_attn_layer_norm": 1}


def norm_modules(model: nn.Module) -> dict[int, tuple[str, int, int]]:
    """id(module) → (side, layer, sublayer) for the norm in front of or behind each sublayer,
    in sublayer order: self-attention, (cross-attention,) feed-forward."""
    names = {}
    for module, side, layer, rest in modules_in_layers(model):
        tail = rest[-1]
        if tail in BART_NORMS:
            names[id(module)] = (side, layer, BART_NORMS[tail])
        elif tail == "final_layer_norm" and len(rest) == 1:
            names[id(module)] = (side, layer, 1 if side == "encoder" else 2)
        elif tail == "layer_norm" and len(rest) == 3 and rest[0] == "layer" and rest[1].isdigit():
            names[id(module)] = (side, layer, int(rest[1]))  # T5: block.i.layer.j.layer_norm
    return names


def stack_norms(model: nn.Module) -> list[str]:
    """The names of the norms outside the layers (on embeddings, or after the last layer)."""
    found = []
    for name, module in model.named_modules():
        tail = name.rsplit(".", 1)[-1]
        if layer_path(name) is None and ("norm" in tail.lower()) and hasattr(module, "weight"):
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
