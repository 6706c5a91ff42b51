"""What a generation recorded, as immutable plain data: numpy arrays by attention kind.

No torch here: records cross to the GUI thread, which holds them before torch is loaded.

Attention is held **by kind** (the names a family's ``FamilyInfo.kinds`` give): the
encoder record holds the kinds whose queries are source positions, full matrices
``[layers, heads, S, S]``; each step record holds the kinds whose queries are decoder
positions, the one new query row ``[layers, heads, keys]``. So memory grows with
steps × length, never steps × length². Extras (the Transformer's ``norms``) are optional.
A beam search's whole tree (``BeamResult``) is recorded beside the steps it chose.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from model.generation.decoding_settings import DecodingSettings
from model.generation.unknown_copy import CopiedUnknown, copied_unknowns, text_with_copies
from model.source import Source, SourceAxis

if TYPE_CHECKING:
    from model.interface import FamilyInfo, Interventions, Tokenizer


@dataclass(frozen=True)
class EncoderRecord:
    src_ids: np.ndarray  # [S] int, the source's tokens as the encoder read them
    tokens: list[str]  # [S] labels for the source positions
    unknown: list[tuple[int, str]]  # (position, character) of each unknown piece
    attention: Mapping[str, np.ndarray]  # source-query kind → [L, H, S, S] softmax weights
    scores: Mapping[str, np.ndarray]  # kind → [L, H, S, S] raw scores, where the family has them
    mask: np.ndarray  # [S] bool, True where the key is padding (never, for one source)
    extras: Mapping[str, np.ndarray]  # optional: "norms" [L, sublayers, 4, S], ...
    seconds: float
    axis: SourceAxis | None = None  # what the S positions are (tokens, frames, patches)
    notice: str | None = None  # what the family said when it prepared the source

    @property
    def source_axis(self) -> SourceAxis:
        """The axis of the source's positions (a record made without one: its token labels)."""
        return self.axis if self.axis is not None else SourceAxis("tokens", tuple(self.tokens))


@dataclass(frozen=True)
class StepRecord:
    position: int  # output position t filled by this step
    input_id: int  # the token the decoder read at position t (<bos> at t = 0)
    token_id: int  # the token chosen for out[t]
    forced: bool  # chosen by the user, not by the strategy
    logits: np.ndarray  # [V]
    probs: np.ndarray  # [V] softmax(logits): the model's own distribution
    filtered_probs: np.ndarray  # [V] after temperature / top-k / top-p: what was drawn from
    attention: Mapping[str, np.ndarray]  # target-query kind → [L, H, keys] the new query's row
    extras: Mapping[str, np.ndarray]  # optional: "norms" [L, sublayers, 4], ...
    seconds: float  # wall time of the decoder step, capture included
    prompted: bool = False  # given by the model's own prompt (Whisper's language, task, …)


# -- a beam search's tree (``model.generation.decoding.beam_search`` grows it) -----------------
@dataclass
class BeamNode:
    id: int
    parent: int | None  # None for the root (the <bos> start)
    token: int  # -1 for the root
    step: int  # the output position this token fills; -1 for the root
    logprob: float  # cumulative log-probability of the hypothesis up to this token
    status: str  # "kept" (was in the beam), "finished" (ended with <eos>), "pruned"


@dataclass
class BeamResult:
    nodes: list[BeamNode] = field(default_factory=list)
    best: list[int] = field(default_factory=list)  # token ids of the best hypothesis, <eos> included
    best_node: int = 0

    def path(self, node_id: int) -> list[int]:
        """Token ids from the root to ``node_id``."""
        tokens = []
        node = self.nodes[node_id]
        while node.parent is not None:
            tokens.append(node.token)
            node = self.nodes[node.parent]
        return tokens[::-1]

    def to_dict(self) -> dict:
        return {"best": self.best, "best_node": self.best_node, "nodes": [asdict(n) for n in self.nodes]}


@dataclass(frozen=True)
class GenerationSnapshot:
    """Everything a generation has recorded so far; immutable, safe to hand to another thread."""

    source: Source
    settings: DecodingSettings
    interventions: Interventions
    info: FamilyInfo
    tokenizer: Tokenizer
    encoder: EncoderRecord
    steps: tuple[StepRecord, ...]
    stop_reason: str | None
    beam: BeamResult | None

    @property
    def output_ids(self) -> list[int]:
        return [s.token_id for s in self.steps]

    @property
    def output_tokens(self) -> list[str]:
        return [self.tokenizer.token_text(s.token_id) for s in self.steps]

    @property
    def input_tokens(self) -> list[str]:
        """What the decoder read at each step: <bos>, out[0], out[1], ..."""
        return [self.tokenizer.token_text(s.input_id) for s in self.steps]

    @property
    def copies(self) -> dict[int, CopiedUnknown]:
        """Output position → the source character its ``<unk>`` was filled with by attention
        (``model.generation.unknown_copy``); empty when no output ``<unk>`` has one."""
        return copied_unknowns(self.encoder, self.steps, self.info, self.tokenizer)

    def output_text(self, steps: int | None = None, *, copy_unknowns: bool = True) -> str:
        """The output up to ``<eos>`` (of the first ``steps`` steps); each ``<unk>`` that
        attention copied shows the copied character, unless ``copy_unknowns`` is False (then
        every ``<unk>`` is U+FFFD, as the tokenizer decodes it)."""
        ids = self.output_ids[:steps]
        if not copy_unknowns:
            return self.tokenizer.decode(ids)
        return text_with_copies(self.tokenizer, ids, self.copies)

    @property
    def nbytes(self) -> int:
        """Bytes of every array the records hold, each counted once (greedy's filtered
        distribution is its model distribution)."""
        arrays: dict[int, np.ndarray] = {}
        for record in (self.encoder, *self.steps):
            for value in vars(record).values():
                values = value.values() if isinstance(value, Mapping) else (value,)
                for array in values:
                    if isinstance(array, np.ndarray):
                        arrays[id(array)] = array
        return sum(array.nbytes for array in arrays.values())
