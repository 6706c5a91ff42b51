"""Turning texts into padded id tensors, the one place that decides how sources look."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch
from torch import Tensor

from model.core.tokenizer import CharTokenizer

if TYPE_CHECKING:
    from model.interface import ModelFamily
    from model.source import PreparedSource


def pad_ids(
    rows: Sequence[Sequence[int]], pad_id: int, device: torch.device | str = "cpu"
) -> tuple[Tensor, Tensor]:
    """(B, L) ids padded to the longest row, and (B, L) bool True at padding."""
    length = max(len(row) for row in rows)
    ids = torch.full((len(rows), length), pad_id, dtype=torch.long)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = torch.tensor(row, dtype=torch.long)
    ids = ids.to(device)
    return ids, ids == pad_id


def source_tensors(
    model: ModelFamily, prepared: Sequence[PreparedSource], device: torch.device | str = "cpu"
) -> tuple[Tensor, Tensor]:
    """The encoder's input for sources ``model`` prepared (``ModelFamily.prepare_source``), and
    (B, S) True at padding: the family's own batch (audio features), or the text ids padded."""
    batch = model.source_batch(prepared, device)
    if batch is not None:
        return batch
    return pad_ids([p.ids for p in prepared], model.tokenizer.pad_id, device)


def encode_sources(
    tokenizer: CharTokenizer, texts: Sequence[str], device: torch.device | str = "cpu"
) -> tuple[Tensor, Tensor]:
    """Sources as the encoder reads them (characters then ``<eos>``), padded."""
    return pad_ids([tokenizer.encode_source(text).ids for text in texts], tokenizer.pad_id, device)


@dataclass
class TrainingBatch:
    src: Tensor  # (B, S)
    src_pad: Tensor  # (B, S) True at padding
    tgt_in: Tensor  # (B, T) <bos> + target: what the decoder reads
    tgt_out: Tensor  # (B, T) target + <eos>: what it must predict; <pad> is ignored
    tgt_pad: Tensor  # (B, T) True at padding of tgt_in


def training_batch(
    tokenizer: CharTokenizer,
    sources: Sequence[str],
    targets: Sequence[str],
    device: torch.device | str = "cpu",
) -> TrainingBatch:
    src, src_pad = encode_sources(tokenizer, sources, device)
    target_ids = [tokenizer.encode(text).ids for text in targets]
    tgt_in, tgt_pad = pad_ids([[tokenizer.bos_id, *ids] for ids in target_ids], tokenizer.pad_id, device)
    tgt_out, _ = pad_ids([[*ids, tokenizer.eos_id] for ids in target_ids], tokenizer.pad_id, device)
    return TrainingBatch(src, src_pad, tgt_in, tgt_out, tgt_pad)
