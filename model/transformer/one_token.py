"""The lean one-token path: ``Transformer.decode`` for one new token of one source.

A generation step of a small model costs per-operation dispatch far more than arithmetic,
so this does ``decode``'s arithmetic in fewer, cheaper operations (see ``decode_one``'s
docstring). ``model.py`` stays the readable model and knows nothing of this module; this one
is its fast twin, reading the model's weights, which the family calls for every generation
step. tests/model/test_decode_one.py keeps the two equal.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from model.interface import NO_INTERVENTIONS, Interventions
from model.transformer.model import (
    EncoderOutput,
    KVCache,
    MultiHeadAttention,
    NextToken,
    StepRows,
    Transformer,
    zero_heads,
)


def linear(x: Tensor, layer: nn.Linear) -> Tensor:
    """``layer(x)`` without ``nn.Module.__call__``'s hook machinery (a few µs a call)."""
    return F.linear(x, layer.weight, layer.bias)


def attend_one(
    q: Tensor, k: Tensor, v: Tensor, scale: float, views: tuple[Tensor, Tensor] | None
) -> tuple[Tensor, Tensor | None]:
    """One query against every key, nothing masked: (heads (1, D), weights (H, 1, K) or None).

    ``q`` is (1, D), ``k`` and ``v`` (1, H, K, Dk). Without ``views`` no weights are wanted,
    and SDPA is cheapest. With them (keys (H, Dk, K) and values (H, K, Dk)) the query comes
    already scaled; for these tiny shapes a 3-D ``bmm`` costs half a 4-D matmul.
    """
    _, n_heads, _, d_head = k.shape
    if views is None:
        q = q.view(1, n_heads, 1, d_head)  # (1, D) → (1, H, 1, Dk)
        return F.scaled_dot_product_attention(q, k, v, scale=scale).view(1, -1), None
    keys, values = views
    weights = torch.softmax(torch.bmm(q.view(n_heads, 1, d_head), keys), dim=-1)  # (H, 1, K)
    return torch.bmm(weights, values).view(1, -1), weights  # (H, 1, Dk) → (1, D)


def decode_one(
    model: Transformer,
    token_id: int,
    encoded: EncoderOutput,
    cache: KVCache,
    *,
    capture: bool = False,
    interventions: Interventions = NO_INTERVENTIONS,
) -> NextToken:
    """``decode`` of one new token for one unpadded source (B = 1): a generation step.

    Such a step costs per-operation dispatch far more than arithmetic, so this does the
    same arithmetic in fewer, cheaper operations: activations stay (1, D) matrices;
    the newest query sees every key, so there is no mask to build or apply (nor anything
    for ``no_causal_mask`` to change); linear layers are called as functions, the
    query's ÷√d_k is folded into its projection, and LayerNorm statistics and attention
    rows are stacked once at the end. Inference only (no dropout). A test keeps it
    equal to ``decode``.
    """
    if model.training:
        raise RuntimeError("decode_one is for inference: call model.eval() first")
    config = model.config
    d, n_heads, d_head, n_layers = config.d_model, config.n_heads, config.d_head, config.n_decoder_layers
    start = cache.length
    scale = 1.0 if interventions.no_scaling else 1.0 / math.sqrt(d_head)
    x = model.tgt_embed.weight[token_id] * math.sqrt(d)  # (D,)
    if not interventions.no_positional:
        x = x + model.positional_encoding(1, start)[0]
    x = x.view(1, d)
    norm_inputs: list[Tensor] = []  # each LayerNorm's input and output, (1, D)
    norm_outputs: list[Tensor] = []
    self_rows: list[Tensor] = []  # (H, 1, t+1) per layer
    cross_rows: list[Tensor] = []  # (H, 1, S) per layer
    self_k: list[Tensor] = []
    self_v: list[Tensor] = []

    def layer_norm(x: Tensor, norm: nn.LayerNorm) -> Tensor:
        normed = F.layer_norm(x, (d,), norm.weight, norm.bias, norm.eps)
        norm_inputs.append(x)
        norm_outputs.append(normed)
        return normed

    def add_and_norm(x: Tensor, norm: nn.LayerNorm, sublayer) -> Tensor:
        if config.norm_placement == "post":  # LayerNorm(x + Sublayer(x))
            return layer_norm(x + sublayer(x), norm)
        return x + sublayer(layer_norm(x, norm))  # x + Sublayer(LayerNorm(x))

    cross_views = cache.cross_views
    if capture and cross_views is None:  # (1, H, S, Dk) → (H, Dk, S) and (H, S, Dk), once a source
        cross_views = [
            (k[0].transpose(1, 2), v[0]) for k, v in zip(cache.cross_k, cache.cross_v, strict=True)
        ]

    def query(h: Tensor, projection: nn.Linear) -> Tensor:
        if capture:  # scale · (h Wᵀ + b) in one operation
            return torch.addmm(projection.bias, h, projection.weight.t(), beta=scale, alpha=scale)
        return linear(h, projection)

    def merged(attention: MultiHeadAttention, heads: Tensor, zeroed: tuple[int, ...]) -> Tensor:
        if zeroed:
            heads = zero_heads(heads.view(1, n_heads, 1, d_head), zeroed).view(1, d)
        return linear(heads, attention.out_proj)

    for index, layer in enumerate(model.decoder_layers):

        def attend_self(h: Tensor, layer=layer, index=index) -> Tensor:
            attention = layer.self_attn
            k = linear(h, attention.k_proj).view(1, n_heads, 1, d_head)  # (1, D) → (1, H, 1, Dk)
            v = linear(h, attention.v_proj).view(1, n_heads, 1, d_head)
            if start:
                k = torch.cat([cache.self_k[index], k], dim=2)  # (1, H, t+1, Dk)
                v = torch.cat([cache.self_v[index], v], dim=2)
            self_k.append(k)
            self_v.append(v)
            views = (k[0].transpose(1, 2), v[0]) if capture else None
            heads, weights = attend_one(query(h, attention.q_proj), k, v, scale, views)
            self_rows.append(weights)
            return merged(attention, heads, model._zeroed(interventions, "dec_self", index))

        def attend_source(h: Tensor, layer=layer, index=index) -> Tensor:
            attention = layer.src_attn
            q = query(h, attention.q_proj)
            views = cross_views[index] if capture else None
            heads, weights = attend_one(q, cache.cross_k[index], cache.cross_v[index], scale, views)
            cross_rows.append(weights)
            return merged(attention, heads, model._zeroed(interventions, "cross", index))

        def feed_forward(h: Tensor, layer=layer) -> Tensor:
            return linear(F.relu(linear(h, layer.ffn.linear1)), layer.ffn.linear2)

        x = add_and_norm(x, layer.self_sublayer.norm, attend_self)
        x = add_and_norm(x, layer.cross_sublayer.norm, attend_source)
        x = add_and_norm(x, layer.ffn_sublayer.norm, feed_forward)
    if config.norm_placement == "pre":
        norm = model.decoder_norm
        x = torch.native_layer_norm(x, (d,), norm.weight, norm.bias, norm.eps)[0]
    logits = F.linear(x, model.generator.weight)[0]  # (V,)
    rows = None
    if capture:
        n = len(norm_outputs)
        # every norm's input and output statistics at once; with eps 0, rstd is exactly 1/std
        stacked = torch.cat(norm_inputs + norm_outputs)  # (2n, D)
        _, mean, rstd = torch.native_layer_norm(stacked, (d,), None, None, 0.0)
        std = rstd.reciprocal()  # (2n, 1)
        norms = torch.cat((mean[:n], std[:n], mean[n:], std[n:]), dim=1)  # (n, 4)
        rows = StepRows(
            torch.cat(self_rows).view(n_layers, n_heads, start + 1),  # (L·H, 1, t+1) → (L, H, t+1)
            torch.cat(cross_rows).view(n_layers, n_heads, -1),  # (L·H, 1, S) → (L, H, S)
            norms.view(n_layers, -1, 4),  # (L·3, 4) → (L, 3, 4)
        )
    return NextToken(logits, KVCache(self_k, self_v, cache.cross_k, cache.cross_v, cross_views), rows)
