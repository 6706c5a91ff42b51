"""Teacher-forced runs: the decoder reads whole targets at once, as in training.

One path for every view that needs it (the trace's teacher-forced mode, the masks and
÷√d_k panels' padded batch, the beam panel's hypotheses), on any family through
``ModelFamily.encode`` and ``ModelFamily.teacher_force``. Every decoder position is
computed in one pass under the causal mask, so the full masked matrices, every position's
prediction and its cross-entropy are visible at once. When sources and targets of
different lengths share a batch, each item keeps its padded length, so the key-padding
masks (and the meaningless padding query rows) are there to be seen.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
import torch.nn.functional as F

from model.core.batching import pad_ids, source_tensors
from model.generation.engine import numpy_of, record_encoder
from model.generation.forced_records import AttentionMatrices, TeacherForcedItem, TeacherForcedRecord
from model.interface import NO_INTERVENTIONS, EncodeOutput, Interventions, ModelFamily
from model.source import Source, SourceError


@torch.no_grad()
def teacher_force_batch(
    model: ModelFamily,
    sources: Sequence[Source],
    targets: Sequence[str | Sequence[int]],
    interventions: Interventions = NO_INTERVENTIONS,
    encoded: EncodeOutput | None = None,
) -> list[TeacherForcedItem]:
    """Run ``sources`` and ``targets`` (texts, or token ids without ``<bos>``/``<eos>``) as one
    padded, teacher-forced batch and keep everything. ``encoded``: the sources already encoded
    with capture (``record_encoder``'s), so that the encoder does not run twice."""
    if len(sources) != len(targets) or not sources:
        raise ValueError("give as many targets as sources, at least one")
    if len(sources) > 1 and not model.info.capabilities.padded_batch:
        raise ValueError(f"{model.info.display_name} cannot run a padded batch")
    tokenizer, info, device = model.tokenizer, model.info, model.device
    target_ids = [tokenizer.encode(t).ids if isinstance(t, str) else list(t) for t in targets]
    prepared = []
    for source in sources:
        try:
            prepared.append(model.prepare_source(source))
        except SourceError as error:
            too_long = isinstance(source, str) and bool(source)
            too_long = too_long and len(tokenizer.encode_source(source).ids) > info.max_source_len
            if too_long:  # as the batch has always said it
                longest = max(info.max_source_len, info.max_target_len)
                raise ValueError(f"a source or target is longer than the model's {longest} tokens") from error
            raise
    if max(map(len, target_ids)) + 1 > info.max_target_len:
        longest = max(info.max_source_len, info.max_target_len)
        raise ValueError(f"a source or target is longer than the model's {longest} tokens")
    src, src_pad = source_tensors(model, prepared, device)  # the encoder's input; (B, S) padding
    tgt_in, tgt_pad = pad_ids([[tokenizer.bos_id, *ids] for ids in target_ids], tokenizer.pad_id, device)
    tgt_pad[:, 0] = False  # the start token is real even where it is the pad id (Marian, T5)
    tgt_out, _ = pad_ids([[*ids, tokenizer.eos_id] for ids in target_ids], tokenizer.pad_id, device)
    if encoded is None:
        encoded = model.encode(src, src_pad, interventions, capture=True)
    out = model.teacher_force(encoded, tgt_in, tgt_pad, interventions)
    logits = out.logits.float()  # (B, T, V)
    loss = F.cross_entropy(logits.transpose(1, 2), tgt_out, reduction="none")  # (B, T)
    loss = loss.masked_fill(tgt_pad, float("nan"))
    n_targets = tgt_in.shape[1]
    items = []
    for b, (source, target) in enumerate(zip(sources, targets, strict=True)):
        # the source's position labels, padded as the batch is (S = src_pad's length)
        labels = list(prepared[b].axis.labels)
        src_tokens = labels + [tokenizer.token_text(tokenizer.pad_id)] * (src_pad.shape[1] - len(labels))
        tgt_tokens = [tokenizer.token_text(int(i)) for i in tgt_in[b]]
        attention = {}
        for kind in info.kinds:
            if kind.per_step:
                weights, scores, mask = out.attention, out.scores, out.masks[kind.name][b]
                scale, parts = out.scale, out.parts
            else:
                weights, scores, scale = encoded.attention, encoded.scores, encoded.scale
                parts = encoded.parts
                mask = src_pad[b].unsqueeze(0).expand(src_pad.shape[1], -1)  # (S, S): padding keys
            attention[kind.name] = AttentionMatrices(
                scores=numpy_of(scores[kind.name][b]) if kind.name in scores else None,
                scale=scale,
                mask=mask.cpu().numpy(),
                weights=numpy_of(weights[kind.name][b]),
                query_tokens=tgt_tokens if kind.queries == "target" else src_tokens,
                key_tokens=tgt_tokens if kind.keys == "target" else src_tokens,
                parts={name: numpy_of(part[b]) for name, part in parts.get(kind.name, {}).items()},
            )
        items.append(
            TeacherForcedItem(
                source=source,
                target=target if isinstance(target, str) else tokenizer.decode(target),
                attention=attention,
                input_ids=tgt_in[b].cpu().numpy(),
                target_ids=tgt_out[b].cpu().numpy(),
                logits=numpy_of(logits[b]),
                predictions=logits[b].argmax(-1).cpu().numpy(),
                loss=numpy_of(loss[b]),
                source_padding=src_pad[b].cpu().numpy(),
                target_padding=tgt_pad[b].cpu().numpy(),
                extras={name: numpy_of(value[b])[..., :n_targets] for name, value in out.extras.items()},
            )
        )
    return items


@torch.no_grad()
def teacher_force(
    model: ModelFamily, source: Source, target: str, interventions: Interventions = NO_INTERVENTIONS
) -> TeacherForcedRecord:
    """Run ``target`` through the decoder in one pass and record everything."""
    encoded, encoder = record_encoder(model, source, interventions)
    target_encoded = model.tokenizer.encode(target)
    if len(target_encoded.ids) + 1 > model.info.max_target_len:
        raise ValueError(
            f"the target has {len(target)} characters; this model writes at most "
            f"{model.info.max_target_len - 1}"
        )
    [item] = teacher_force_batch(model, [source], [target], interventions, encoded)
    return TeacherForcedRecord(encoder, item, target_encoded.unknown)


def hypothesis_attention(
    model: ModelFamily, source: str, token_ids: Sequence[int], interventions: Interventions = NO_INTERVENTIONS
) -> np.ndarray:
    """[L, H, k, S]: the attention over the source (the Transformer's cross-attention) of the
    decoder writing each of ``token_ids``, for the beam panel's hypotheses.

    Fed ids rather than text, so a hypothesis that wrote a special token (<eos>, <unk>) is
    read exactly as it was written. Row i is the decoder reading <bos>, t0 … t(i-1): the
    state that chose token i.
    """
    kind = model.info.alignment_kind
    if kind is None:
        raise ValueError(f"{model.info.display_name} has no attention over the source")
    [item] = teacher_force_batch(model, [source], [list(token_ids)[:-1]], interventions)
    return item.attention[kind.name].weights
