"""What each view shows, computed from a snapshot: plain numpy, no Qt, easy to test.

Widgets call these and draw the result; a test compares the result with the engine's arrays.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from visualizer.i18n import tr, trf
from visualizer.state.token_labels import display_token

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


def word_groups(ids, tokenizer) -> list[list[int]] | None:
    """Positions of ``ids`` grouped into words: a piece that starts a word (or a special token)
    opens a group, the pieces after it join it. None for a tokenizer without word starts."""
    starts = getattr(tokenizer, "is_word_start", None)
    if starts is None:
        return None
    groups: list[list[int]] = []
    for position, token_id in enumerate(ids):
        if not groups or starts(int(token_id)):
            groups.append([position])
        else:
            groups[-1].append(position)
    return groups


def word_label(pieces: list[str]) -> str:
    """The pieces of one word as one label, its word-start mark dropped."""
    return "".join(pieces).replace("▁", " ").strip() or "".join(pieces)


def merged_into_words(view: AttentionView, query_groups: list[list[int]], key_groups: list[list[int]]):
    """``view`` over words: each key word gets the sum of its pieces' weights (the attention it
    received), each query word the mean of its pieces' rows. Masked entries (NaN) stay out of
    both, and a word whose pieces are all masked stays masked."""
    weights = view.weights  # [L, H, Q, K]
    masked = np.isnan(weights)
    columns = []
    for group in key_groups:  # [L, H, Q] each: the word's weight from every query piece
        part = weights[..., group]
        summed = np.nansum(part, axis=-1)
        columns.append(np.where(masked[..., group].all(-1), np.nan, summed))
    by_key = np.stack(columns, axis=-1)  # [L, H, Q, words]
    rows = []
    for group in query_groups:
        part = by_key[:, :, group, :]
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-masked column: NaN, as wanted
            rows.append(np.nanmean(part, axis=2))
    merged = np.stack(rows, axis=2).astype(np.float32)  # [L, H, query words, key words]
    current = None
    if view.current_row is not None:
        current = next(i for i, group in enumerate(query_groups) if view.current_row in group)
    return AttentionView(
        view.kind,
        merged,
        merged.mean(1),
        [word_label([view.query_labels[i] for i in group]) for group in query_groups],
        [word_label([view.key_labels[i] for i in group]) for group in key_groups],
        current,
    )


def words_view(snapshot: GenerationSnapshot, view: AttentionView, step: int) -> AttentionView | None:
    """``view`` merged into words, or None when the model's tokens have no word starts."""
    tokenizer = snapshot.tokenizer
    source = word_groups(snapshot.encoder.src_ids, tokenizer)
    if source is None:
        return None
    spec = snapshot.info.kind(view.kind)
    target = word_groups([s.input_id for s in snapshot.steps[: step + 1]], tokenizer) or []
    query_groups = source if spec.queries == "source" else target
    key_groups = source if spec.keys == "source" else target
    if not query_groups or not key_groups:
        return view
    return merged_into_words(view, query_groups, key_groups)


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
        query_token=repr(display_token(view.query_labels[query])),
        key=key,
        key_token=repr(display_token(view.key_labels[key])),
        value=value,
    )
