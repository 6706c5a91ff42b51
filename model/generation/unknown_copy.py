"""The rare-word lesson: an output ``<unk>`` is filled with the source character that
cross-attention points at (Luong et al. 2015, "Addressing the Rare Word Problem in Neural
Machine Translation").

A character outside the vocabulary is read as ``<unk>``, so the model cannot write it; a model
trained on unknown characters writes ``<unk>`` in its place instead. Its cross-attention still
says where in the source that ``<unk>`` came from, and the source text still holds the
character. So each output ``<unk>`` is given the character of the source ``<unk>`` that the
attention over the source (its last layer, the one nearest the output, where the shipped
model's copy heads are) weighs most, its heads averaged; the head that put the most weight
there is named as the one that chose it. The model never sees the copy (the next step reads
``<unk>``, as it would have); the views, traces and evaluation show it, marked as copied by
attention, with the head and the weights that chose it.

The rule was chosen by measurement on the shipped model, 300 held-out ``reverse:`` inputs with
1-3 unknown characters (the model wrote ``<unk>`` in the right places in 299): the last layer's
mean copied all 299 right, and so did its single best head (which missed 1 % at an earlier
checkpoint where the mean missed none); the best head of any layer 92.6 % (an earlier layer's
head looks one character past the one being written).

Plain numpy on the records: no torch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from model.generation.records import EncoderRecord
    from model.interface import FamilyInfo, Tokenizer


@dataclass(frozen=True)
class CopiedUnknown:
    """The source character an output ``<unk>`` was filled with, and what chose it."""

    step: int  # the output position of the <unk>
    source_position: int  # the source token position copied from
    character: str  # the source text there
    kind: str  # the attention kind that chose it (the alignment kind: "cross", "alignment")
    layer: int  # 0-based
    head: int  # 0-based
    weight: float  # that head's weight on the copied position, at this step
    mean_weight: float  # the layer's mean weight there, which chose the position

    def to_dict(self) -> dict:
        return asdict(self)


def unknown_id(tokenizer: Tokenizer) -> int | None:
    """The tokenizer's ``<unk>`` id, or None when it has none."""
    value = getattr(tokenizer, "unk_id", None)
    return value if isinstance(value, int) else None


def source_unknown_pieces(encoder: EncoderRecord, unk_id: int | None) -> dict[int, str]:
    """Source token position → the text it stands for, for every source ``<unk>``.

    The tokenizer lists its unknown pieces in order, one per ``<unk>`` token, so the k-th
    ``<unk>`` of the source ids is the k-th piece. Empty when they do not pair up (a tokenizer
    that cannot say where its unknown pieces lie).
    """
    if unk_id is None:
        return {}
    positions = [int(i) for i in np.flatnonzero(np.asarray(encoder.src_ids) == unk_id)]
    if not positions or len(positions) != len(encoder.unknown):
        return {}
    if any(place < 0 for place, _ in encoder.unknown):  # a slow tokenizer: it cannot say which text
        return {}
    return {position: text for position, (_, text) in zip(positions, encoder.unknown, strict=True)}


def copy_for_step(
    step: int,
    attention: Mapping[str, np.ndarray],
    kind: str,
    pieces: Mapping[int, str],
) -> CopiedUnknown | None:
    """The copy for output position ``step``, from that step's ``attention`` row of ``kind``
    ([layers, heads, keys]); None without unknown source pieces or without that kind."""
    weights = attention.get(kind)
    if weights is None or not pieces:
        return None
    last = np.asarray(weights)[-1]  # [heads, keys]: the layer nearest the output
    candidates = np.array(sorted(pieces))  # [U] source positions read as <unk>
    on_unknowns = last[:, candidates]  # [heads, U]
    index = int(np.argmax(on_unknowns.mean(axis=0)))
    head = int(np.argmax(on_unknowns[:, index]))
    position = int(candidates[index])
    return CopiedUnknown(
        step=step,
        source_position=position,
        character=pieces[position],
        kind=kind,
        layer=int(np.asarray(weights).shape[0]) - 1,
        head=head,
        weight=float(on_unknowns[head, index]),
        mean_weight=float(on_unknowns[:, index].mean()),
    )


def copied_unknowns(
    encoder: EncoderRecord,
    steps: Sequence,
    info: FamilyInfo,
    tokenizer: Tokenizer,
) -> dict[int, CopiedUnknown]:
    """Output position → its copy, for every output ``<unk>`` that has one. ``steps`` are
    ``StepRecord``s (``position``, ``token_id``, ``attention``)."""
    unk_id = unknown_id(tokenizer)
    kind = info.alignment_kind
    pieces = source_unknown_pieces(encoder, unk_id)
    if kind is None or not pieces:
        return {}
    copies = {}
    for record in steps:
        if record.token_id == unk_id:
            copy = copy_for_step(record.position, record.attention, kind.name, pieces)
            if copy is not None:
                copies[record.position] = copy
    return copies


def text_segments(
    tokenizer: Tokenizer, ids: Sequence[int], copies: Mapping[int, CopiedUnknown]
) -> list[tuple[str, CopiedUnknown | None]]:
    """The output text of ``ids`` (up to ``<eos>``) in pieces: decoded text, and each copied
    ``<unk>`` as its character with its copy.

    Each piece of text is what decoding one more stretch of the output adds to decoding all
    before it, so a tokenizer that spells a word's space in its first piece (SentencePiece's
    ▁, dropped at the start of a decoded text) keeps its spaces around a copy."""
    ids = [int(i) for i in ids]
    if tokenizer.eos_id in ids:
        ids = ids[: ids.index(tokenizer.eos_id)]
    segments: list[tuple[str, CopiedUnknown | None]] = []
    before, start = "", 0  # the text of ids[:start] as decoded
    for position in [*sorted(p for p in copies if p < len(ids)), len(ids)]:
        upto = tokenizer.decode(ids[:position])
        text = upto[len(before) :] if upto.startswith(before) else tokenizer.decode(ids[start:position])
        segments.append((text, None))
        if position < len(ids):
            segments.append((copies[position].character, copies[position]))
            before, start = tokenizer.decode(ids[: position + 1]), position + 1
    return [(text, copy) for text, copy in segments if text]


def text_with_copies(tokenizer: Tokenizer, ids: Sequence[int], copies: Mapping[int, CopiedUnknown]) -> str:
    """The output text of ``ids`` (up to ``<eos>``), each copied ``<unk>`` as its character."""
    return "".join(text for text, _ in text_segments(tokenizer, ids, copies))


def copied_offsets(segments: Sequence[tuple[str, CopiedUnknown | None]]) -> dict[int, CopiedUnknown]:
    """Character offset in the joined text → the copy that put a character there."""
    offsets, at = {}, 0
    for text, copy in segments:
        if copy is not None:
            offsets.update({at + i: copy for i in range(len(text))})
        at += len(text)
    return offsets
