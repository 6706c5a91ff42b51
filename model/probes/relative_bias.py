"""A learned relative position bias (T5), read from the live model: what each head adds to its
scores against the distance from query to key, and the matrix added for a given length.

T5 adds no position vector to the tokens. Each head of its first layer learns one number per
*bucket* of relative distance (key − query); every layer adds the same bias matrix to its
scores. Buckets are exact for small distances and log-spaced up to a maximum distance, beyond
which all distances share the last bucket; the encoder's are bidirectional (half the buckets
for keys before the query, half after), the decoder's causal (keys before only).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.interface import ModelFamily


@dataclass(frozen=True)
class BiasCurve:
    distance: np.ndarray  # (n,) key position − query position
    bucket: np.ndarray  # (n,) the bucket of each distance
    bias: np.ndarray  # (H, n) each head's bias at each distance

    @property
    def edges(self) -> list[float]:
        """Where the bucket changes, half-way between two distances."""
        changes = np.nonzero(np.diff(self.bucket))[0]
        return [float(self.distance[i]) + 0.5 for i in changes]


@dataclass(frozen=True)
class RelativeBias:
    num_buckets: int
    max_distance: int
    encoder: BiasCurve  # distances −span … span
    decoder: BiasCurve  # distances −span … 0
    source_matrix: np.ndarray  # (H, S, S) added to the encoder's scores for the shown source
    source_tokens: list[str]


def relative_bias(model: ModelFamily, source_tokens: list[str]) -> RelativeBias:
    """The model's bias curves (to 1.5 × its max distance) and the shown source's matrix."""
    buckets, max_distance = model.relative_bias_settings()
    span = int(max_distance * 1.5)
    curves = []
    for side, distances in (("source", np.arange(-span, span + 1)), ("target", np.arange(-span, 1))):
        bucket, bias = model.relative_bias_curve(side, distances)
        curves.append(BiasCurve(distances, np.asarray(bucket), np.asarray(bias)))
    matrix = np.asarray(model.relative_bias_matrix("source", len(source_tokens)))
    return RelativeBias(buckets, max_distance, *curves, matrix, list(source_tokens))
