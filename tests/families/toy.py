"""A second model family, made in the tests (never shipped): the worked example of the interface.

It differs from the Transformer in every way the interface allows: two kinds of attention
with other names and shapes (``enc_mix``: the encoder mixing its tokens, 2 layers × 1 head;
``alignment``: the decoder over the source, 1 layer × 3 heads), a recurrent decoder state
instead of a key/value cache, no raw scores, no ÷√d_k, no positional encoding, no norms,
and only one what-if (zeroing heads). Its weights are random from a seed; it is opened from
a small JSON file ``*.toy.json``: ``{"toy_family": 1, "seed": 3}``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import Tensor

from model.core.errors import CheckpointError
from model.core.tokenizer import CharTokenizer
from model.interface import (
    AttentionKind,
    Capabilities,
    EncodeOutput,
    FamilyInfo,
    Interventions,
    ModelFamily,
    ScoreFunction,
    ScoreStage,
    StepOutput,
    TeacherForcedOutput,
)
from model.registry import FamilyEntry

WIDTH = 16
MAX_LEN = 40
HEADS = 3
MIX_LAYERS = 2
CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789 :-"

# how each kind scores, described as every family does (it records no scores, so the Masks
# page says why it cannot show them; the description is still its own)
MIX_SCORES = ScoreFunction(
    "bilinear",
    "<b>Token mixing</b>: each layer scores token j for token i as h_i M h_j, with one learned "
    "matrix M per layer and no scaling.",
    (ScoreStage("raw", "h M hᵀ", "h M hᵀ<br>(raw scores)"),),
)
ALIGNMENT_SCORES = ScoreFunction(
    "bilinear, per head",
    "<b>Bilinear attention</b>: head k scores source state m_j for the decoder state s as "
    "(s W_k) · m_j, with one learned matrix W_k per head and no scaling.",
    (ScoreStage("raw", "s W mᵀ", "s W mᵀ<br>(raw scores)"),),
)

INFO = FamilyInfo(
    family="toy",
    display_name="Toy recurrent model (tests)",
    kinds=(
        AttentionKind("enc_mix", "Encoder mixing", MIX_LAYERS, 1, "source", "source", score=MIX_SCORES),
        AttentionKind("alignment", "Alignment", 1, HEADS, "target", "source", score=ALIGNMENT_SCORES),
    ),
    max_source_len=MAX_LEN,
    max_target_len=MAX_LEN,
    capabilities=Capabilities(what_ifs=frozenset({"zeroed_heads"}), teacher_forcing=True, padded_batch=True),
    config={"width": WIDTH, "heads": HEADS},
    parameters=0,
    d_model=WIDTH,
)


@dataclass(eq=False)
class ToyFamily(ModelFamily):
    seed: int = 0
    path: Path | None = None
    notice: str | None = None
    metadata: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        generator = torch.Generator().manual_seed(self.seed)
        self.tokenizer = CharTokenizer.from_characters(CHARACTERS)
        vocab = len(self.tokenizer)

        def weights(*shape: int) -> Tensor:
            return torch.randn(*shape, generator=generator) / shape[-1] ** 0.5

        self.embedding = weights(vocab, WIDTH)
        self.mix = [weights(WIDTH, WIDTH) for _ in range(MIX_LAYERS)]
        self.recurrence = weights(WIDTH, WIDTH)
        self.queries = weights(HEADS, WIDTH, WIDTH)
        self.info = INFO
        self._device = torch.device("cpu")

    @property
    def device(self) -> torch.device:
        return self._device

    def to(self, device: torch.device) -> None:
        self._device = torch.device(device)
        for name in ("embedding", "recurrence", "queries"):
            setattr(self, name, getattr(self, name).to(device))
        self.mix = [m.to(device) for m in self.mix]

    # -- encoder: a few rounds of token mixing -----------------------------------------------
    def encode(self, src: Tensor, src_pad: Tensor, interventions: Interventions, capture: bool = True):
        h = self.embedding[src]  # (B, S, D)
        maps = []
        for layer, mix in enumerate(self.mix):
            scores = (h @ mix) @ h.transpose(1, 2)  # (B, S, S)
            weights = torch.softmax(scores.masked_fill(src_pad[:, None, :], float("-inf")), dim=-1)
            if interventions.is_zeroed("enc_mix", layer, 0):
                weights = torch.zeros_like(weights)
            h = h + weights @ h
            maps.append(weights)
        out = EncodeOutput(h, src_pad)
        if capture:
            out.attention["enc_mix"] = torch.stack(maps, dim=1).unsqueeze(2)  # (B, L, 1, S, S)
        return out

    # -- decoder: a recurrent state attending to the source with three heads ----------------
    def start(self, encoded: EncodeOutput) -> list[Tensor]:
        return [torch.zeros(1, WIDTH, device=self.device)]  # the states so far, newest last

    def advance(self, state: Tensor, tokens: Tensor, encoded, interventions: Interventions):
        """(B, D) state, (B,) tokens → new state (B, D), logits (B, V), alignment (B, H, S)."""
        memory, pad = encoded.state, encoded.pad_mask  # (B, S, D), (B, S)
        state = torch.tanh(self.embedding[tokens] + state @ self.recurrence)
        queries = torch.einsum("bd,hde->bhe", state, self.queries)  # (B, H, D)
        scores = queries @ memory.transpose(1, 2)  # (B, H, S)
        alignment = torch.softmax(scores.masked_fill(pad[:, None, :], float("-inf")), dim=-1)
        keep = torch.tensor(
            [0.0 if interventions.is_zeroed("alignment", 0, h) else 1.0 for h in range(HEADS)],
            device=state.device,
        )
        context = ((alignment * keep[None, :, None]) @ memory).mean(1)  # (B, D)
        logits = (state + context) @ self.embedding.T  # (B, V)
        return state, logits, alignment

    def step(self, token_id, encoded, cache, interventions, capture) -> StepOutput:
        tokens = torch.tensor([token_id], device=self.device)
        state, logits, alignment = self.advance(cache[-1], tokens, encoded, interventions)
        out = StepOutput(logits[0], [*cache, state])
        if capture:
            out.attention["alignment"] = alignment[0].unsqueeze(0)  # (1, H, S)
        return out

    def truncate(self, cache: list[Tensor], length: int) -> list[Tensor]:
        return cache[: length + 1]

    def step_batch(self, parents: Sequence[int], token_ids, encoded, cache, interventions):
        n = len(parents)
        batched = EncodeOutput(
            encoded.state.expand(n, -1, -1), encoded.pad_mask.expand(n, -1)
        )  # one source, n hypotheses
        state = cache[-1].index_select(0, torch.tensor(list(parents), device=self.device))
        tokens = torch.tensor(list(token_ids), device=self.device)
        state, logits, _ = self.advance(state, tokens, batched, interventions)
        return torch.log_softmax(logits, dim=-1), [state]

    def teacher_force(self, encoded, tgt_in: Tensor, tgt_pad: Tensor, interventions) -> TeacherForcedOutput:
        batch, length = tgt_in.shape
        state = torch.zeros(batch, WIDTH, device=self.device)
        logits, rows = [], []
        for t in range(length):
            state, step_logits, alignment = self.advance(state, tgt_in[:, t], encoded, interventions)
            logits.append(step_logits)
            rows.append(alignment)
        alignment = torch.stack(rows, dim=2).unsqueeze(1)  # (B, 1, H, T, S)
        masks = encoded.pad_mask[:, None, :].expand(batch, length, -1)  # (B, T, S): padding keys
        return TeacherForcedOutput(
            torch.stack(logits, dim=1), attention={"alignment": alignment}, masks={"alignment": masks}
        )


# -- opening ---------------------------------------------------------------------------------
def recognises(path: Path) -> bool:
    return path.name.endswith(".toy.json") and path.is_file()


def opens(path: Path, device: str) -> ToyFamily:
    try:
        data = json.loads(path.read_text())
        seed = int(data["seed"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise CheckpointError(f"{path.name}: not a toy model ({error})") from error
    return ToyFamily(seed=seed, path=path, metadata={"note": "random toy weights for tests"})


ENTRY = FamilyEntry("toy", "a toy model (*.toy.json, tests only)", recognises, opens)


def write_toy(folder: Path, seed: int = 3) -> Path:
    path = folder / f"seed{seed}.toy.json"
    path.write_text(json.dumps({"toy_family": 1, "seed": seed}))
    return path
