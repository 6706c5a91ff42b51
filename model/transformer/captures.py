"""What the Transformer's forward passes return beyond logits: plain containers of tensors.

Shapes: B batch, S source length, T target length, H heads, D d_model, Dk = D / H. A boolean
mask is True where attention is blocked. Captured tensors are return values; nothing is
stored on the modules.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import Tensor


@dataclass
class AttentionCapture:
    """One attention sublayer's intermediates, for every head.

    ``scores`` is the raw QKᵀ; the scaled and masked scores are derived on demand so that
    capture stores two (B, H, Q, K) tensors, not four.
    """

    scores: Tensor  # (B, H, Q, K) raw Q·Kᵀ
    scale: float  # 1/√d_k, or 1.0 when the scaling is removed
    mask: Tensor  # (B, 1, Q, K) bool, True = blocked
    weights: Tensor  # (B, H, Q, K) softmax of the masked scores; rows sum to 1

    @property
    def scaled_scores(self) -> Tensor:
        return self.scores * self.scale

    @property
    def masked_scores(self) -> Tensor:
        return self.scaled_scores.masked_fill(self.mask, float("-inf"))


@dataclass
class NormCapture:
    """Per-token statistics around one LayerNorm (an "Add & Norm" in post-LN)."""

    in_mean: Tensor  # (B, L) mean over d_model of the LayerNorm's input
    in_std: Tensor  # (B, L)
    out_mean: Tensor  # (B, L) of its output
    out_std: Tensor  # (B, L)


@dataclass
class LayerCapture:
    attention: dict[str, AttentionCapture]  # "self" and, in decoder layers, "cross"
    norms: list[NormCapture]  # one per sublayer, in order (attention(s), then FFN)


@dataclass
class KVCache:
    """Keys and values a decoder has already computed, so a step computes one new row.

    ``self_k[l]`` and ``self_v[l]`` are (B, H, t, Dk) for the t tokens decoded so far;
    ``cross_k[l]`` and ``cross_v[l]`` are (B, H, S, Dk), projected once from the encoder output.
    """

    self_k: list[Tensor]
    self_v: list[Tensor]
    cross_k: list[Tensor]
    cross_v: list[Tensor]
    # (H, Dk, S) keys transposed and (H, S, Dk) values of a one-source cache, made once by
    # decode_one and carried along: views, no copies
    cross_views: list[tuple[Tensor, Tensor]] | None = None

    @property
    def length(self) -> int:
        return 0 if not self.self_k else self.self_k[0].shape[2]

    def truncated(self, length: int) -> KVCache:
        """The cache as it was after ``length`` tokens (used to step back)."""
        return KVCache(
            [k[:, :, :length] for k in self.self_k],
            [v[:, :, :length] for v in self.self_v],
            self.cross_k,
            self.cross_v,
            self.cross_views,
        )

    def select(self, batch_index: Tensor) -> KVCache:
        """Reorder the batch (beam search keeps the caches of surviving hypotheses)."""

        def pick(tensors: list[Tensor]) -> list[Tensor]:
            return [t.index_select(0, batch_index) for t in tensors]

        return KVCache(pick(self.self_k), pick(self.self_v), pick(self.cross_k), pick(self.cross_v))


@dataclass
class EncoderOutput:
    memory: Tensor  # (B, S, D) the encoder's output
    pad_mask: Tensor  # (B, S) bool, True at padding
    layers: list[LayerCapture] | None  # per encoder layer, when captured


@dataclass
class StepRows:
    """What one generation step computed for its one new query, stacked over layers."""

    dec_self: Tensor  # (L, H, t+1) self-attention weights over input positions 0..t
    cross: Tensor  # (L, H, S) cross-attention weights over the source
    norms: Tensor  # (L, 3, 4) per sublayer: in_mean, in_std, out_mean, out_std


@dataclass
class NextToken:
    logits: Tensor  # (V,)
    cache: KVCache  # keys/values for every position so far
    rows: StepRows | None  # when captured


@dataclass
class DecoderOutput:
    logits: Tensor  # (B, T_new, V)
    cache: KVCache  # keys/values for every position so far
    layers: list[LayerCapture] | None  # per decoder layer, when captured
    final_norm: NormCapture | None = None  # pre-LN only: the last LayerNorm
