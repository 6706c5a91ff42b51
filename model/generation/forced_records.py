"""What a teacher-forced run recorded: every kind of attention and every prediction of whole
targets read at once, as in training (``model.probes.teacher_forcing`` runs it).

Plain numpy, no torch: the masks and ÷√d_k pages read these before torch is loaded, and the
trace file (``model.generation.trace``) writes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from model.generation.records import EncoderRecord
from model.source import Source


@dataclass(frozen=True)
class AttentionMatrices:
    """One kind of attention for one batch item, every layer and head."""

    scores: np.ndarray | None  # [L, H, Q, K] raw scores (Q·Kᵀ), where the family has them
    scale: float  # what the scores are multiplied by (1/√d_k, or 1 when not scaled)
    mask: np.ndarray  # [Q, K] bool, True = blocked
    weights: np.ndarray  # [L, H, Q, K] softmax of the masked scores
    query_tokens: list[str]
    key_tokens: list[str]
    # the kind's other score stages (``ScoreFunction.parts``) by name, [L, H, *axes]: how the
    # scores were made (the RNN's additive attention: W s, U h, tanh(W s + U h))
    parts: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def scaled_scores(self) -> np.ndarray:
        return self.scores * self.scale

    @property
    def masked_scores(self) -> np.ndarray:
        """[L, H, Q, K] scaled scores, −∞ exactly where the mask blocks."""
        return np.where(self.mask, -np.inf, self.scaled_scores)

    def entropy(self) -> np.ndarray:
        """[L, H] mean over real query rows of the attention entropy, in nats."""
        weights = self.weights
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(weights > 0, -weights * np.log(weights), 0.0)
        per_row = terms.sum(-1)  # [L, H, Q]
        real_rows = ~self.mask.all(-1)
        return per_row[:, :, real_rows].mean(-1)


@dataclass(frozen=True)
class TeacherForcedItem:
    """One item of a teacher-forced batch: every kind of attention and every prediction."""

    source: Source  # text, or a file of another medium
    target: str
    attention: dict[str, AttentionMatrices]  # every kind the family has
    input_ids: np.ndarray  # [T] <bos> + target, then padding: what the decoder reads
    target_ids: np.ndarray  # [T] target + <eos>, then padding: what each position should predict
    logits: np.ndarray  # [T, V]
    predictions: np.ndarray  # [T] argmax at each decoder position
    loss: np.ndarray  # [T] cross-entropy of the true next token in nats, NaN at padding
    source_padding: np.ndarray  # [S] bool, True at padding
    target_padding: np.ndarray  # [T] bool
    extras: dict[str, np.ndarray]  # the decoder's extras over target positions ("norms" [L, 3, 4, T])

    @property
    def probs(self) -> np.ndarray:
        """[T, V] softmax of the logits."""
        shifted = np.exp(self.logits - self.logits.max(-1, keepdims=True))
        return shifted / shifted.sum(-1, keepdims=True)

    @property
    def mean_loss(self) -> float:
        return float(np.nanmean(self.loss))


@dataclass(frozen=True)
class TeacherForcedRecord:
    """One source and one target, teacher-forced: what ``attnviz trace --target`` writes."""

    encoder: EncoderRecord  # the source-side kinds, as in a generation
    item: TeacherForcedItem  # the decoder's: every target-query kind, predictions and loss
    unknown: list[tuple[int, str]]  # (position, character) of target characters outside the vocabulary

    @property
    def input_ids(self) -> np.ndarray:
        return self.item.input_ids

    @property
    def target_ids(self) -> np.ndarray:
        return self.item.target_ids

    @property
    def predictions(self) -> np.ndarray:
        return self.item.predictions

    @property
    def loss(self) -> np.ndarray:
        return self.item.loss

    @property
    def mean_loss(self) -> float:
        return self.item.mean_loss

    def attention(self, kind: str) -> AttentionMatrices:
        return self.item.attention[kind]
