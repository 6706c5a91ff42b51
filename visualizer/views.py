"""What each view shows, computed from a snapshot: plain numpy, no Qt, easy to test.

Widgets call these and draw the result; a test compares the result with the engine's arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from visualizer.i18n import tr, trf

if TYPE_CHECKING:
    from model.generation.records import GenerationSnapshot


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
    spec = snapshot.info.kind(kind)  # a ValueError naming the model's kinds if it has no such kind
    if not spec.per_step:  # computed once per source: the whole matrix is there from the start
        weights = encoder.attention[kind]
        return AttentionView(kind, weights, weights.mean(1), encoder.tokens, encoder.tokens, None)
    steps = snapshot.steps[: step + 1]
    queries = [snapshot.tokenizer.token_text(s.input_id) for s in steps]
    keys = queries if spec.keys == "target" else encoder.tokens
    n = len(steps)
    # NaN where a row is shorter than the keys: a causal kind's future, hidden by its mask
    weights = np.full((spec.layers, spec.heads, n, len(keys)), np.nan, dtype=np.float32)
    for t, record in enumerate(steps):
        row = record.attention[kind]  # [L, H, keys so far]
        weights[:, :, t, : row.shape[-1]] = row
    return AttentionView(kind, weights, weights.mean(1), queries, keys, n - 1 if n else None)


def head_name(head: int | None, heads: int, language: str = "en") -> str:
    """ "head 3", or for None the mean over heads ("head 1" where there is only one)."""
    if head is None and heads > 1:
        return tr("mean of heads", language)
    return trf("head {n}", language, n=(head or 0) + 1)


def describe_cell(
    view: AttentionView, layer: int, head: int | None, query: int, key: int, language: str = "en"
) -> str:
    """The hover text: which query, which key, what weight (head None = mean over heads)."""
    matrix = view.mean[layer] if head is None else view.weights[layer, head]
    weight = matrix[query, key]
    who = head_name(head, view.heads, language)
    value = tr("masked (future)", language) if np.isnan(weight) else f"{weight:.3f}"
    return trf(
        "layer {layer}, {who}: query {query} {query_token} → key {key} {key_token}: {value}",
        language,
        layer=layer + 1,
        who=who,
        query=query,
        query_token=repr(view.query_labels[query]),
        key=key,
        key_token=repr(view.key_labels[key]),
        value=value,
    )
