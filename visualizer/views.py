"""What each view shows, computed from a snapshot: plain numpy, no Qt, easy to test.

Widgets call these and draw the result; a test compares the result with the engine's arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from model.engine import GenerationSnapshot

KIND_TITLES = {
    "enc_self": "Encoder self-attention",
    "dec_self": "Masked decoder self-attention",
    "cross": "Cross-attention",
}


@dataclass(frozen=True)
class AttentionView:
    kind: str
    weights: np.ndarray  # [L, H, Q, K]; NaN where the causal mask hides the key
    mean: np.ndarray  # [L, Q, K] mean over heads (NaN where masked)
    query_labels: list[str]
    key_labels: list[str]
    current_row: int | None  # the query computed at the viewed step, highlighted

    @property
    def layers(self) -> int:
        return self.weights.shape[0]

    @property
    def heads(self) -> int:
        return self.weights.shape[1]


def attention_view(snapshot: GenerationSnapshot, kind: str, step: int) -> AttentionView:
    """The attention of ``kind`` as it was after step ``step`` (0-based; -1 = before any step).

    Decoder rows come from the step records, so row t is exactly what step t computed.
    """
    encoder = snapshot.encoder
    if kind == "enc_self":
        weights = encoder.self_attn
        return AttentionView(kind, weights, weights.mean(1), encoder.tokens, encoder.tokens, None)
    steps = snapshot.steps[: step + 1]
    queries = [snapshot.tokenizer.token_text(s.input_id) for s in steps]
    layers, heads = snapshot.config.n_decoder_layers, snapshot.config.n_heads
    n = len(steps)
    if kind == "dec_self":
        weights = np.full((layers, heads, n, n), np.nan, dtype=np.float32)
        for t, record in enumerate(steps):
            weights[:, :, t, : t + 1] = record.dec_self
        keys = queries
    elif kind == "cross":
        source_len = len(encoder.tokens)
        weights = np.empty((layers, heads, n, source_len), dtype=np.float32)
        for t, record in enumerate(steps):
            weights[:, :, t] = record.cross
        keys = encoder.tokens
    else:
        raise ValueError(f"unknown attention kind {kind!r}")
    return AttentionView(kind, weights, weights.mean(1), queries, keys, n - 1 if n else None)


def describe_cell(view: AttentionView, layer: int, head: int | None, query: int, key: int) -> str:
    """The hover text: which query, which key, what weight (head None = mean over heads)."""
    matrix = view.mean[layer] if head is None else view.weights[layer, head]
    weight = matrix[query, key]
    who = "mean of heads" if head is None else f"head {head + 1}"
    value = "masked (future)" if np.isnan(weight) else f"{weight:.3f}"
    return (
        f"layer {layer + 1}, {who}: query {query} {view.query_labels[query]!r} → "
        f"key {key} {view.key_labels[key]!r}: {value}"
    )
