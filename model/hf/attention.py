"""The attention the Hugging Face models run in this app: the library's eager attention, recorded.

The library's default (SDPA) path returns no weights, and its ``output_attentions`` gives weights
but not the scores. So the models are loaded with ``attn_implementation="attnviz"``, registered
here: the same arithmetic as the library's eager attention (softmax(Q·Kᵀ · scaling + bias + mask)
V; a test checks the logits are identical), which, inside ``recording(...)``, also keeps each
layer's weights and its scores (Q·Kᵀ, with T5's relative position bias), and zeroes the output of
the heads a what-if names. Outside a recording it only computes.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import torch
from torch import nn

if TYPE_CHECKING:
    from model.hf.architectures import ModuleNames

IMPLEMENTATION = "attnviz"


@dataclass
class Recording:
    """What one forward pass computed, by (kind, layer)."""

    names: dict[int, tuple[str, int]]  # id(attention module) → (kind, layer)
    capture: bool = True
    zeroed: frozenset[tuple[str, int, int]] = frozenset()  # (kind, layer, head) whose output is zeroed
    weights: dict[tuple[str, int], torch.Tensor] = field(default_factory=dict)  # (B, H, Q, K)
    # (B, H, Q, K) Q·Kᵀ, plus T5's position bias (÷ scaling, which is 1 there): scores × scaling
    # + mask is what the softmax reads
    scores: dict[tuple[str, int], torch.Tensor] = field(default_factory=dict)
    # kind → the additive mask (B, 1, 1 or Q, K) used instead of the library's for that kind:
    # the decoder's padding alone, for the "no causal mask" what-if
    masks: dict[str, torch.Tensor] = field(default_factory=dict)
    # id(norm module) → (side, layer, sublayer), and what ``model.hf.norms`` records around each:
    # (side, layer, sublayer) → the norm's input and output, each (B, Q, D)
    norm_names: dict[int, tuple[str, int, int]] = field(default_factory=dict)
    norms: dict[tuple[str, int, int], tuple[torch.Tensor, torch.Tensor]] = field(default_factory=dict)

    def stacked(self, kind: str, layers: int, what: str = "weights") -> torch.Tensor:
        """(B, L, H, Q, K) of ``kind``'s ``layers`` layers."""
        table = getattr(self, what)
        return torch.stack([table[(kind, layer)] for layer in range(layers)], dim=1)

    def stacked_norms(self, side: str, layers: int, sublayers: int) -> torch.Tensor:
        """(B, L, sublayers, 4, Q): in_mean, in_std, out_mean, out_std per token over its D
        features (the biased std, as the norms compute it) around every norm of ``side``'s
        layers, computed for all of them at once (per norm it cost a step 14 ms on Marian-base)."""
        pairs = [self.norms[(side, layer, sub)] for layer in range(layers) for sub in range(sublayers)]
        stats = []
        for which in (0, 1):  # the inputs, then the outputs
            values = torch.stack([pair[which] for pair in pairs]).float()  # (N, B, Q, D)
            variance, mean = torch.var_mean(values, dim=-1, correction=0)  # (N, B, Q) each
            stats += [mean, variance.sqrt()]
        stacked = torch.stack(stats, dim=1)  # (N, 4, B, Q), N = L · sublayers
        batch, length = stacked.shape[2], stacked.shape[3]
        # (L, sublayers, 4, B, Q) → (B, L, sublayers, 4, Q)
        return stacked.reshape(layers, sublayers, 4, batch, length).permute(3, 0, 1, 2, 4)


ACTIVE: contextvars.ContextVar[Recording | None] = contextvars.ContextVar("attnviz_recording", default=None)


@contextmanager
def recording(record: Recording) -> Iterator[Recording]:
    token = ACTIVE.set(record)
    try:
        yield record
    finally:
        ACTIVE.reset(token)


def recorded_attention(
    module: nn.Module,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None,
    scaling: float | None = None,
    dropout: float = 0.0,
    position_bias: torch.Tensor | None = None,
    **kwargs,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The library's eager attention: query (B, H, Q, d), key and value (B, H, K, d)."""
    record = ACTIVE.get()
    where = record.names.get(id(module)) if record is not None else None
    if where is not None and where[0] in record.masks:
        attention_mask = record.masks[where[0]]
    if scaling is None:
        scaling = query.size(-1) ** -0.5
    raw = torch.matmul(query, key.transpose(2, 3))  # (B, H, Q, K)
    scores = raw * scaling
    if position_bias is not None:
        scores = scores + position_bias
    if attention_mask is not None:
        scores = scores + attention_mask
    weights = nn.functional.softmax(scores, dim=-1)
    weights = nn.functional.dropout(weights, p=dropout, training=module.training)
    output = torch.matmul(weights, value).transpose(1, 2).contiguous()  # (B, Q, H, d)
    if where is not None:
        if record.capture:
            record.weights[where] = weights
            if position_bias is not None:  # T5: the bias is part of the scores the softmax reads
                raw = raw + position_bias / scaling
            record.scores[where] = raw
        heads = [head for (kind, layer, head) in record.zeroed if (kind, layer) == where]
        if heads:
            keep = torch.ones(output.shape[2], dtype=output.dtype, device=output.device)
            keep[heads] = 0
            output = output * keep[None, None, :, None]  # that head adds nothing to the layer's output
    return output, weights


def register() -> None:
    """Make ``attn_implementation="attnviz"`` known to the library (idempotent)."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, eager_mask

    AttentionInterface.register(IMPLEMENTATION, recorded_attention)
    AttentionMaskInterface.register(IMPLEMENTATION, eager_mask)  # additive float masks, as eager gets


def layer_path(name: str, layers: str) -> tuple[str, int, list[str]] | None:
    """("encoder" or "decoder", layer, the name's parts after the layer's number) for a module
    inside a layer of either stack, whose list of layers is called ``layers``
    (``encoder.layers.3.self_attn``, ``decoder.block.1.layer.2.layer_norm``, with any prefix such
    as ``model.``); None for a module outside the layers."""
    parts = name.split(".")
    for index, part in enumerate(parts):
        if part in ("encoder", "decoder") and index + 2 < len(parts):
            container, number = parts[index + 1], parts[index + 2]
            if container == layers and number.isdigit():
                return part, int(number), parts[index + 3 :]
    return None


def modules_in_layers(model: nn.Module, layers: str) -> Iterator[tuple[nn.Module, str, int, list[str]]]:
    """(module, side, layer, the name's parts after the layer's number) for every module inside a
    layer of either stack, not the layers themselves (see ``layer_path``)."""
    for name, module in model.named_modules():
        where = layer_path(name, layers)
        if where is not None and where[2]:
            yield module, *where


def attention_modules(model: nn.Module, names: ModuleNames) -> dict[int, tuple[str, int]]:
    """id(module) → (kind, layer) for every attention module of an encoder-decoder, by the
    names its architecture gives them (``encoder.layers.i.self_attn``,
    ``decoder.block.i.layer.1.EncDecAttention``)."""
    found = {}
    for module, side, layer, rest in modules_in_layers(model, names.layers):
        tail = rest[-1]
        if tail == names.self_attention:
            found[id(module)] = ("enc_self" if side == "encoder" else "dec_self", layer)
        elif tail == names.cross_attention and side == "decoder":
            found[id(module)] = ("cross", layer)
    return found
