"""Teacher-forced mode: the decoder reads the whole target at once, as in training.

Instead of one new row per step, every decoder position is computed in one pass under the
causal mask, so the full masked self-attention matrix, every position's prediction and its
cross-entropy are visible at once. The "no causal mask" what-if lets each position see the
future of the target, which the model never did in training.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from model.engine import EncoderRecord, norm_matrix, record_encoder, stack
from model.tokenizer import CharTokenizer
from model.transformer import NO_INTERVENTIONS, Interventions, Transformer


@dataclass(frozen=True)
class TeacherForcedRecord:
    encoder: EncoderRecord
    input_ids: np.ndarray  # [T] <bos> + target: what the decoder reads
    target_ids: np.ndarray  # [T] target + <eos>: what each position should predict
    unknown: list[tuple[int, str]]  # (position, character) of target characters outside the vocabulary
    dec_self: np.ndarray  # [L_dec, H, T, T] softmax weights (zeros where masked)
    dec_self_scores: np.ndarray  # [L_dec, H, T, T] raw Q·Kᵀ
    dec_self_mask: np.ndarray  # [T, T] bool, True = blocked (the causal mask, unless removed)
    scale: float  # 1/√d_k, or 1 when the scaling is removed
    cross: np.ndarray  # [L_dec, H, T, S]
    logits: np.ndarray  # [T, V]
    probs: np.ndarray  # [T, V]
    predictions: np.ndarray  # [T] argmax at each position
    loss: np.ndarray  # [T] cross-entropy of the true next token, nats
    norms: np.ndarray  # [L_dec, 3, 4, T] per sublayer: in_mean, in_std, out_mean, out_std

    @property
    def mean_loss(self) -> float:
        return float(self.loss.mean())

    @property
    def masked_scores(self) -> np.ndarray:
        """[L_dec, H, T, T] scaled scores, −∞ where the mask blocks."""
        return np.where(self.dec_self_mask, -np.inf, self.dec_self_scores * self.scale)


@torch.no_grad()
def teacher_force(
    model: Transformer,
    tokenizer: CharTokenizer,
    source: str,
    target: str,
    interventions: Interventions = NO_INTERVENTIONS,
) -> TeacherForcedRecord:
    """Run ``target`` through the decoder in one pass and record everything."""
    device = next(model.parameters()).device
    encoded, encoder = record_encoder(model, tokenizer, source, interventions, device)
    target_encoded = tokenizer.encode(target)
    if len(target_encoded.ids) + 1 > model.config.max_len:
        raise ValueError(
            f"the target has {len(target)} characters; this model writes at most {model.config.max_len - 1}"
        )
    input_ids = [tokenizer.bos_id, *target_encoded.ids]
    target_ids = [*target_encoded.ids, tokenizer.eos_id]
    tokens = torch.tensor([input_ids], device=device)
    out = model.decode(tokens, encoded, capture=True, interventions=interventions)
    layers = out.layers or []
    logits = out.logits[0].float()  # (T, V)
    loss = F.cross_entropy(logits, torch.tensor(target_ids, device=device), reduction="none")
    first_self = layers[0].attention["self"]
    return TeacherForcedRecord(
        encoder=encoder,
        input_ids=np.asarray(input_ids),
        target_ids=np.asarray(target_ids),
        unknown=target_encoded.unknown,
        dec_self=stack([layer.attention["self"].weights[0] for layer in layers]),
        dec_self_scores=stack([layer.attention["self"].scores[0] for layer in layers]),
        dec_self_mask=first_self.mask[0, 0].cpu().numpy(),
        scale=first_self.scale,
        cross=stack([layer.attention["cross"].weights[0] for layer in layers]),
        logits=logits.cpu().numpy(),
        probs=torch.softmax(logits, -1).cpu().numpy(),
        predictions=logits.argmax(-1).cpu().numpy(),
        loss=loss.cpu().numpy(),
        norms=stack([norm_matrix(layer, slice(None)) for layer in layers]),
    )
