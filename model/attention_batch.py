"""Every attention matrix of a (padded) batch run teacher-forced, as in training.

Used to show the masks at work: the causal mask in decoder self-attention and, when sources
and targets of different lengths share a batch, the key-padding masks in all three kinds of
attention. Each item keeps its padded length, so the padding columns (and the meaningless
padding query rows) are there to be seen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from model.batching import training_batch
from model.tokenizer import CharTokenizer
from model.transformer import NO_INTERVENTIONS, AttentionCapture, Interventions, Transformer


@dataclass(frozen=True)
class AttentionMatrices:
    """One kind of attention for one batch item, every layer and head."""

    scores: np.ndarray  # [L, H, Q, K] raw Q·Kᵀ
    scale: float  # 1/√d_k, or 1 when the scaling is removed
    mask: np.ndarray  # [Q, K] bool, True = blocked
    weights: np.ndarray  # [L, H, Q, K] softmax of the masked scores
    query_tokens: list[str]
    key_tokens: list[str]

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
class BatchItemCapture:
    source: str
    target: str
    attention: dict[str, AttentionMatrices]  # "enc_self", "dec_self", "cross"
    target_ids: np.ndarray  # [T] target + <eos>, then padding
    predictions: np.ndarray  # [T] argmax at each decoder position
    loss: np.ndarray  # [T] cross-entropy of the true next token, NaN at padding
    source_padding: np.ndarray  # [S] bool, True at padding
    target_padding: np.ndarray  # [T] bool


def item_matrices(
    captures: list[AttentionCapture], item: int, queries: list[str], keys: list[str]
) -> AttentionMatrices:
    """One batch item's matrices, every layer stacked: [L, H, Q, K]."""

    def stacked(field: str) -> np.ndarray:
        return torch.stack([getattr(c, field)[item] for c in captures]).float().cpu().numpy()

    return AttentionMatrices(
        scores=stacked("scores"),
        scale=captures[0].scale,
        mask=captures[0].mask[item, 0].cpu().numpy(),
        weights=stacked("weights"),
        query_tokens=queries,
        key_tokens=keys,
    )


@torch.no_grad()
def capture_padded_batch(
    model: Transformer,
    tokenizer: CharTokenizer,
    sources: Sequence[str],
    targets: Sequence[str],
    interventions: Interventions = NO_INTERVENTIONS,
) -> list[BatchItemCapture]:
    """Run the sources and targets as one padded, teacher-forced batch and keep everything."""
    if len(sources) != len(targets) or not sources:
        raise ValueError("give as many targets as sources, at least one")
    longest = max(len(tokenizer.encode_source(s).ids) for s in sources)
    longest_target = max(len(t) for t in targets) + 1
    if max(longest, longest_target) > model.config.max_len:
        raise ValueError(f"a source or target is longer than the model's {model.config.max_len} tokens")
    device = next(model.parameters()).device
    batch = training_batch(tokenizer, sources, targets, device)
    encoded = model.encode(batch.src, batch.src_pad, capture=True, interventions=interventions)
    out = model.decode(
        batch.tgt_in, encoded, tgt_pad_mask=batch.tgt_pad, capture=True, interventions=interventions
    )
    logits = out.logits.float()  # (B, T, V)
    loss = F.cross_entropy(
        logits.transpose(1, 2), batch.tgt_out, ignore_index=tokenizer.pad_id, reduction="none"
    )  # (B, T)
    loss = loss.masked_fill(batch.tgt_out == tokenizer.pad_id, float("nan"))
    enc = [layer.attention["self"] for layer in encoded.layers]
    dec = [layer.attention["self"] for layer in out.layers]
    cross = [layer.attention["cross"] for layer in out.layers]
    items = []
    for b, (source, target) in enumerate(zip(sources, targets, strict=True)):
        src_tokens = [tokenizer.token_text(int(i)) for i in batch.src[b]]
        tgt_tokens = [tokenizer.token_text(int(i)) for i in batch.tgt_in[b]]

        items.append(
            BatchItemCapture(
                source=source,
                target=target,
                attention={
                    "enc_self": item_matrices(enc, b, src_tokens, src_tokens),
                    "dec_self": item_matrices(dec, b, tgt_tokens, tgt_tokens),
                    "cross": item_matrices(cross, b, tgt_tokens, src_tokens),
                },
                target_ids=batch.tgt_out[b].cpu().numpy(),
                predictions=logits[b].argmax(-1).cpu().numpy(),
                loss=loss[b].cpu().numpy(),
                source_padding=batch.src_pad[b].cpu().numpy(),
                target_padding=batch.tgt_pad[b].cpu().numpy(),
            )
        )
    return items
