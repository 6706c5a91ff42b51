"""What the Masks page draws for a kind of attention, stage by stage, and the words for it.

The stages are the kind's own (its family's ``ScoreFunction``: QKᵀ and ÷√d_k for the
Transformer, W s, U h, tanh(W s + U h) and vᵀ· for additive attention, s · h for dot-product
attention ...), then the three every attention has: the mask, the masked scores and the
softmax. Each stage's matrix is drawn with queries down and keys across wherever it has them;
a stage of vectors (W s, U h) has their features on its other axis, and a stage of one query's
vectors (tanh(W s + U h)) is shown at the query of the shown step. Plain numpy and words: no
Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.generation.forced_records import AttentionMatrices
from model.interface import RAW_STAGE, SCALED_STAGE, ScoreFunction
from visualizer.i18n import tr, trf
from visualizer.widgets.heatmap import display_token

MASK, MASKED, SOFTMAX = "mask", "masked", "softmax"
SCORE_STAGES = (RAW_STAGE, SCALED_STAGE, MASKED)  # one shared colour scale: ÷√d_k must look smaller
# the three stages after the family's own, every attention has them
END_TITLES = {
    MASK: "mask<br>(dark = blocked)",
    MASKED: "masked scores<br>(−∞ in black)",
    SOFTMAX: "softmax<br>(weights)",
}


@dataclass(frozen=True)
class Stage:
    """One plot of the page: a stage of the family's score function, or one of the three after it."""

    name: str
    symbol: str  # in the line that follows a cell through the stages
    title: str  # English; the family's (with "{query}" where it shows one query), or END_TITLES'
    axes: tuple[str, ...] = ("query", "key")  # of its array after [layer, head]

    @property
    def part(self) -> bool:
        """An array of how the scores were made (W s, U h, ...), not the scores or the weights."""
        return self.name not in (*SCORE_STAGES, MASK, SOFTMAX)

    @property
    def one_query(self) -> bool:
        """Its array holds each query's matrix: the page shows one query's."""
        return len(self.axes) == 3

    @property
    def display_axes(self) -> tuple[str, str]:
        """(rows, columns) as drawn: queries down, keys across, features on the other axis."""
        axes = self.axes[1:] if self.one_query else self.axes
        return (axes[1], axes[0]) if axes[0] == "key" else (axes[0], axes[1])


def page_stages(score: ScoreFunction) -> tuple[Stage, ...]:
    """The family's stages, then the mask, the masked scores and the softmax."""
    own = tuple(Stage(s.name, s.symbol, s.title, s.axes) for s in score.stages)
    return own + tuple(Stage(name, name, title) for name, title in END_TITLES.items())


def stage_array(matrices: AttentionMatrices, stage: Stage, layer: int, head: int | None) -> np.ndarray:
    """The stage's array for one layer and head (None: the mean of the heads), its own axes."""
    if stage.name == MASK:
        return matrices.mask.astype(np.float32)
    if stage.name == RAW_STAGE:
        source = matrices.scores
    elif stage.name == SCALED_STAGE:
        source = matrices.scaled_scores
    elif stage.name == MASKED:
        source = matrices.masked_scores
    elif stage.name == SOFTMAX:
        source = matrices.weights
    else:
        source = matrices.parts[stage.name]
    source = source[layer]
    return source.mean(0) if head is None else source[head]


def stage_matrix(
    matrices: AttentionMatrices, stage: Stage, layer: int, head: int | None, query: int = 0
) -> np.ndarray:
    """[rows, columns] as drawn (``Stage.display_axes``); a one-query stage at ``query``."""
    array = stage_array(matrices, stage, layer, head)
    if stage.one_query:
        array = array[query]
    axes = stage.axes[1:] if stage.one_query else stage.axes
    return array.T if axes[0] == "key" else array


def axis_labels(matrices: AttentionMatrices, axis: str, size: int) -> list[str]:
    """The tick labels of a drawn axis: its tokens, or the features' numbers."""
    if axis == "query":
        return list(matrices.query_tokens)
    if axis == "key":
        return list(matrices.key_tokens)
    return [str(i) for i in range(size)]


def score_bound(matrices: AttentionMatrices, layer: int, head: int | None) -> float:
    """The shared symmetric colour bound of the score stages: the largest |raw score|."""
    raw = stage_array(matrices, Stage(RAW_STAGE, "", ""), layer, head)
    finite = np.abs(raw[np.isfinite(raw)])
    return float(finite.max()) if finite.size and finite.max() > 0 else 1.0


def symmetric_bound(matrix: np.ndarray) -> float:
    """A part's own symmetric colour bound: the largest |value| it shows."""
    finite = np.abs(matrix[np.isfinite(matrix)])
    return float(finite.max()) if finite.size and finite.max() > 0 else 1.0


# -- words ------------------------------------------------------------------------------------
MASKS_CAUSAL = (
    "Then a <b>mask</b> sets blocked entries to −∞ so that softmax gives them exactly zero weight. "
    "The decoder's <b>causal mask</b> hides the future; <b>padding masks</b> hide the &lt;pad&gt; "
    "tokens that make sequences of different lengths fit one batch. Below: the selected layer and "
    "head, stage by stage, from the live model run teacher-forced, as in training."
)
MASKS_PADDING = (
    "Then a <b>mask</b> sets blocked entries to −∞ so that softmax gives them exactly zero weight. "
    "This decoder attends only over the source, so its one mask is the <b>padding mask</b> over "
    "the &lt;pad&gt; tokens of a batch (tick the padded batch to see it). Below: stage by stage, "
    "from the live model run teacher-forced, as in training."
)


def explanation(score: ScoreFunction | None, causal: bool, language: str) -> str:
    """The page's explanation: how this kind makes its scores, in its family's words, then the
    masks (the causal mask only for a model that has one)."""
    masks = tr(MASKS_CAUSAL if causal else MASKS_PADDING, language)
    if score is None:
        return masks
    # a template, not a space: Chinese puts none between sentences
    return trf("{scores} {masks}", language, scores=tr(score.explanation, language), masks=masks)


def stage_title(stage: Stage, language: str, query: str = "") -> str:
    """Above a stage's plot; ``query`` names the query a one-query stage shows."""
    if stage.name in END_TITLES:
        return tr(END_TITLES[stage.name], language)
    return trf(stage.title, language, query=query)


def query_words(matrices: AttentionMatrices, query: int, language: str) -> str:
    token = display_token(matrices.query_tokens[query])
    return trf("query {n} {token!r}", language, n=query, token=token)


def axis_words(matrices: AttentionMatrices, axis: str, index: int, language: str) -> str:
    """A position on a drawn axis: "query 2 'l'", "key 5 'o'", "dim 17"."""
    if axis == "query":
        return query_words(matrices, index, language)
    if axis == "key":
        token = display_token(matrices.key_tokens[index])
        return trf("key {n} {token!r}", language, n=index, token=token)
    return trf("dim {n}", language, n=index)


def scale_words(score: ScoreFunction, scale: float, language: str) -> str:
    """The scale line: its name and value where the family scales its scores."""
    if not score.scaled:
        return tr("the scores are not scaled", language)
    return trf("scale {name} = {scale:.4f}", language, name=score.scale, scale=scale)


def pipeline_text(
    matrices: AttentionMatrices,
    stages: tuple[Stage, ...],
    layer: int,
    head: int | None,
    query: int,
    key: int,
    language: str,
) -> str:
    """One (query, key) cell through every stage: the family's scores → mask → masked → weight."""
    scores = " → ".join(
        f"{stage.symbol} {stage_array(matrices, stage, layer, head)[query, key]:.3f}"
        for stage in stages
        if stage.name in (RAW_STAGE, SCALED_STAGE)
    )
    blocked = bool(matrices.mask[query, key])
    masked = stage_array(matrices, Stage(MASKED, "", ""), layer, head)[query, key]
    weight = stage_array(matrices, Stage(SOFTMAX, "", ""), layer, head)[query, key]
    return trf(
        "{query} · {key}: {scores} → mask: {mask} → {masked} → softmax {weight:.4f}",
        language,
        query=axis_words(matrices, "query", query, language),
        key=axis_words(matrices, "key", key, language),
        scores=scores,
        mask=tr("blocked" if blocked else "open", language),
        masked="−∞" if np.isneginf(masked) else f"{masked:.3f}",
        weight=weight,
    )


def part_text(
    matrices: AttentionMatrices,
    stage: Stage,
    matrix: np.ndarray,
    row: int,
    column: int,
    query: int,
    language: str,
) -> str:
    """One cell of a part as drawn (``matrix``): "W s · query 2 'l' · dim 17: 0.1234"."""
    rows, columns = stage.display_axes
    where = [axis_words(matrices, rows, row, language), axis_words(matrices, columns, column, language)]
    if stage.one_query:
        where.insert(0, query_words(matrices, query, language))
    return trf(
        "{stage} · {where}: {value:.4f}",
        language,
        stage=stage.symbol,
        where=" · ".join(where),
        value=float(matrix[row, column]),
    )
