"""Normalisation statistics for the LayerNorm panel: LayerNorm per token, BatchNorm per feature.

LayerNorm normalises each token over its own d_model features, so a token's statistics
depend on that token alone. BatchNorm normalises each feature over the batch and the
positions, so its statistics depend on everything else in the batch, padding included.

- ``padded_batch_stats``: the current source batched with a shorter one (padded with
  ``<pad>``), run through the live model up to the first Add & Norm; the statistics a naive
  BatchNorm would compute there beside LayerNorm's.
- ``norm_affine``: each LayerNorm's learned β average and γ size, where its output sits.

Torch and numpy: these run on the GUI's worker thread and return plain numpy data
(``model.probes.norm_records``, which also reads the statistics the engine recorded).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor, nn

from model.core.batching import encode_sources
from model.interface import NO_INTERVENTIONS, Interventions, ModelFamily
from model.probes.norm_records import NormAffine, PaddedBatchStats, half_source


# -- the learned scale and shift ----------------------------------------------------------
@torch.no_grad()
def norm_affine(model: ModelFamily) -> NormAffine:
    def shift(norm: nn.Module) -> float:
        bias = getattr(norm, "bias", None)  # RMSNorm has no β: it shifts nothing
        return 0.0 if bias is None else float(bias.float().mean())

    def summary(layers: list[list[nn.Module]]) -> tuple[np.ndarray, np.ndarray]:
        beta = [[shift(norm) for norm in norms] for norms in layers]
        gamma = [[float(norm.weight.float().pow(2).mean().sqrt()) for norm in norms] for norms in layers]
        return np.asarray(beta, dtype=np.float32), np.asarray(gamma, dtype=np.float32)

    encoder, decoder = model.norm_layers()
    return NormAffine(*summary(encoder), *summary(decoder))


# -- a padded batch: BatchNorm's statistics beside LayerNorm's ----------------------------
def layer_norm_stats(x: Tensor) -> tuple[Tensor, Tensor]:
    """Per token, over the features: mean and (biased) std of ``x`` (..., D), each (...)."""
    return x.mean(-1), x.std(-1, unbiased=False)


def batch_norm_stats(x: Tensor, include: Tensor) -> tuple[Tensor, Tensor]:
    """Per feature, over the batch and positions where ``include`` (B, L) is True: (D,) each.

    The biased variance, as BatchNorm normalises with in training.
    """
    values = x[include]  # (N, D): one row per included position
    return values.mean(0), values.std(0, unbiased=False)


def numpy(t: Tensor) -> np.ndarray:
    return t.float().cpu().numpy()


@torch.no_grad()
def padded_batch_stats(
    model: ModelFamily,
    source: str,
    other: str | None = None,
    interventions: Interventions = NO_INTERVENTIONS,
) -> PaddedBatchStats:
    """Batch ``source`` with ``other`` (default: ``half_source(source)``), padded as in training."""
    other = half_source(source) if other is None else other
    tokenizer, device = model.tokenizer, model.device
    src, src_pad = encode_sources(tokenizer, [source, other], device)  # (2, S)
    residual = model.norm_input_probe(src, src_pad, interventions)  # (2, S, D)
    layer_mean, layer_std = layer_norm_stats(residual)
    alone_mean, alone_std = [], []
    for text in (source, other):
        ids, pad = encode_sources(tokenizer, [text], device)  # (1, n): no padding
        mean, std = layer_norm_stats(model.norm_input_probe(ids, pad, interventions)[0])
        alone_mean.append(numpy(mean))
        alone_std.append(numpy(std))
    real = ~src_pad
    mean_with_pads, std_with_pads = batch_norm_stats(residual, torch.ones_like(real))
    mean_real, std_real = batch_norm_stats(residual, real)
    rows = src.cpu().tolist()
    return PaddedBatchStats(
        texts=(source, other),
        tokens=([tokenizer.token_text(i) for i in rows[0]], [tokenizer.token_text(i) for i in rows[1]]),
        pad_mask=src_pad.cpu().numpy(),
        residual=numpy(residual),
        layer_mean=numpy(layer_mean),
        layer_std=numpy(layer_std),
        alone_mean=(alone_mean[0], alone_mean[1]),
        alone_std=(alone_std[0], alone_std[1]),
        batch_mean_with_pads=numpy(mean_with_pads),
        batch_std_with_pads=numpy(std_with_pads),
        batch_mean_real=numpy(mean_real),
        batch_std_real=numpy(std_real),
    )
