"""Attention rollout (Abnar & Zuidema 2020), through the encoder and on through the decoder.

Each attention sublayer mixes its queries' vectors by the head-mean weights A and adds the
residual: treated as ½A + ½I, every row still sums to one. Multiplying these through the
layers says how much of each input token a position's vector holds at the end.

- Encoder: R_enc = Ã_L ⋯ Ã_1 over source positions (S × S), Ã_l = ½ mean_h A_l + ½ I.
- Decoder, on one axis of S source then T target tokens: output position q starts as itself
  (row e_{S+q}); each layer's masked self-attention gives r_q ← ½ r_q + ½ Σ_k A_qk r_k, and
  its cross-attention r_q ← ½ r_q + ½ Σ_j C_qj [R_enc row j, 0]. A model without encoder or
  decoder self-attention (the RNN) skips those factors; one without attention has no rollout.
"""

from __future__ import annotations

import numpy as np


def mixing(weights: np.ndarray) -> np.ndarray:
    """[Q, K] ½ (head mean of ``weights`` [H, Q, K]) + ½ I: one sublayer with its residual."""
    mean = weights.mean(0)
    return 0.5 * mean + 0.5 * np.eye(mean.shape[0], mean.shape[1])


def encoder_rollout(enc_self: np.ndarray | None, n_source: int) -> np.ndarray:
    """[S, S] how much of each source token each encoder output holds; ``enc_self`` [L, H, S, S]
    (None: the encoder mixes nothing through attention, the identity)."""
    rolled = np.eye(n_source)
    for layer in enc_self if enc_self is not None else ():
        rolled = mixing(layer) @ rolled
    return rolled


def decoder_rollout(encoder: np.ndarray, dec_self: np.ndarray | None, cross: np.ndarray) -> np.ndarray:
    """[T, S + T] for each output position, how much of each source token (first S columns) and
    each target token it read (last T) its final vector holds. ``encoder`` [S, S] is
    ``encoder_rollout``; ``dec_self`` [L, H, T, T] (None for a decoder without it); ``cross``
    [L, H, T, S]."""
    n_target, n_source = cross.shape[2], cross.shape[3]
    rolled = np.zeros((n_target, n_source + n_target))
    rolled[:, n_source:] = np.eye(n_target)
    from_source = np.zeros((n_source, n_source + n_target))
    from_source[:, :n_source] = encoder
    for layer in range(cross.shape[0]):
        if dec_self is not None:
            rolled = 0.5 * rolled + 0.5 * dec_self[layer].mean(0) @ rolled
        rolled = 0.5 * rolled + 0.5 * cross[layer].mean(0) @ from_source
    return rolled
