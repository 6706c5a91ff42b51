"""The RNN encoder-decoder as a model family: the interface of ``model.interface`` over
``RNNSeq2Seq``.

One kind of attention, ``alignment``: the decoder's weights over the source at each step
(1 layer × 1 head, as in Bahdanau et al.'s alignment figures), with its raw scores. The
cache is the list of decoder states so far (newest last), so stepping back is a slice. The
no-attention variant has no kind at all; its description says so (``without_attention``).

The what-ifs replace the weights α_i the decoder uses at every step, for every decoding
path (stepping, beam search, teacher forcing): uniform (1/S on every real source token), all
on one source position (clamped to the source's last token), or none (α = 0, so the context
Σ_j α_ij h_j is zero). The views then show the weights the decoder actually used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import Tensor

from model.core.gradients import no_grad_unless_differentiating
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
from model.rnn.config import RNNConfig
from model.rnn.model import RNNEncoded, RNNSeq2Seq, greedy_decode_batch

FAMILY = "rnn"
ALIGNMENT_TITLES = {
    "additive": "Alignment (additive attention)",
    "dot": "Alignment (dot-product scores)",
    "scaled_dot": "Alignment (scaled dot-product scores)",
}
DISPLAY_NAMES = {
    "none": "RNN encoder-decoder, no attention (Cho et al. 2014)",
    "additive": "RNN with additive attention (Bahdanau et al. 2014)",
    "dot": "RNN with dot-product attention (Luong et al. 2015)",
    "scaled_dot": "RNN with scaled dot-product attention",
}

# how each kind of score is made, stage by stage, with the tensors the teacher-forced run records
SCORE_FUNCTIONS = {
    "additive": ScoreFunction(
        "additive",
        "<b>Additive attention</b> (Bahdanau et al. 2014): e_j = vᵀ tanh(W s + U h_j). The "
        "decoder's previous state s and each encoder state h_j are projected to one width (W s, "
        "U h), added, squashed by tanh and read off by a learned vector v: no QKᵀ, no ÷√d_k. "
        "α = softmax(e) mixes the encoder states into the context the decoder reads next.",
        (
            ScoreStage("query", "W s", "W s<br>(decoder state)", ("query", "dim")),
            ScoreStage("keys", "U h", "U h<br>(encoder states)", ("key", "dim")),
            ScoreStage("tanh", "tanh(W s + U h)", "tanh(W s + U h)<br>(at {query})", ("query", "key", "dim")),
            ScoreStage("raw", "vᵀ tanh(·)", "vᵀ tanh(·)<br>(raw scores)"),
        ),
    ),
    "dot": ScoreFunction(
        "dot product",
        "<b>Dot-product attention</b> (Luong et al. 2015): e_j = s · h_j, the dot product of the "
        "decoder's previous state s and each encoder state h_j as they are: no projections, no "
        "÷√d. α = softmax(e) mixes the encoder states into the context the decoder reads next.",
        (ScoreStage("raw", "s · h", "s · h<br>(raw scores)"),),
    ),
    "scaled_dot": ScoreFunction(
        "scaled dot product",
        "<b>Scaled dot-product attention</b> over the RNN's states: e_j = s · h_j / √d, with d "
        "the width of the states: the Transformer's score without its projections W_Q and W_K. "
        "α = softmax(e) mixes the encoder states into the context the decoder reads next.",
        (
            ScoreStage("raw", "s · h", "s · h<br>(raw scores)"),
            ScoreStage("scaled", "÷√d", "÷ √d<br>(scaled)"),
        ),
        scale="1/√d",
    ),
}


NO_ATTENTION = "this model has no attention: the decoder sees only the final encoder state"
WEIGHT_WHAT_IFS = frozenset(("uniform_attention", "attend_only", "no_attention"))


def describe(config: RNNConfig, parameters: int = 0) -> FamilyInfo:
    """The description of an RNN of ``config``."""
    attends = config.score != "none"
    kinds = (
        (
            AttentionKind(
                "alignment",
                ALIGNMENT_TITLES[config.score],
                1,
                1,
                "target",
                "source",
                score=SCORE_FUNCTIONS[config.score],
            ),
        )
        if attends
        else ()
    )
    return FamilyInfo(
        family=FAMILY,
        display_name=DISPLAY_NAMES[config.score],
        kinds=kinds,
        max_source_len=config.max_len,
        max_target_len=config.max_len,
        capabilities=Capabilities(
            scores=attends,
            scaling=config.score == "scaled_dot",  # by √d, with no what-if that removes it
            gradients=True,
            teacher_forcing=True,
            padded_batch=True,
            what_ifs=WEIGHT_WHAT_IFS if attends else frozenset(),
        ),
        config=config.to_dict(),
        parameters=parameters,
        d_model=config.embed_dim,
        without_attention="" if attends else NO_ATTENTION,
    )


def override_weights(interventions: Interventions, pad_mask: Tensor) -> Tensor | None:
    """The (B, S) weights the what-ifs put in place of α_i, or None to keep the model's own."""
    real = (~pad_mask).float()  # (B, S) 1 at every source token
    if interventions.no_attention:
        return torch.zeros_like(real)
    if interventions.uniform_attention:
        return real / real.sum(dim=-1, keepdim=True)
    if interventions.attend_only is not None:
        last = real.sum(dim=-1).long() - 1  # (B,) each source's last real position
        position = torch.clamp(torch.full_like(last, max(0, interventions.attend_only)), max=last)
        return torch.nn.functional.one_hot(position, pad_mask.shape[1]).float()  # (B, S)
    return None


@dataclass(eq=False)
class RNNFamily(ModelFamily):
    """A loaded RNN encoder-decoder: the module, its tokenizer and where it came from."""

    model: RNNSeq2Seq  # in eval mode
    tokenizer: CharTokenizer
    path: Path | None = None
    notice: str | None = None
    metadata: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.config = self.model.config
        self.info = describe(self.config, self.config.parameter_count())
        # scaled_dot: the step's scores are already divided by √d; the raw ones are s·h
        self.scale = 1 / math.sqrt(self.config.state_dim) if self.config.score == "scaled_dot" else 1.0

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def to(self, device: torch.device) -> None:
        self.model.to(device)

    @no_grad_unless_differentiating
    def encode(self, src: Tensor, src_pad: Tensor, interventions: Interventions, capture: bool = True):
        encoded = self.model.encode(src, src_pad)
        return EncodeOutput(encoded, src_pad, scale=self.scale)

    def start(self, encoded: EncodeOutput) -> list[Tensor]:
        return [self.model.start_state(encoded.state)]  # (1, D): the states so far, newest last

    def embedding_modules(self) -> tuple[torch.nn.Embedding, torch.nn.Embedding]:
        return self.model.embedding, self.model.embedding  # one table for source and target

    def weights_override(self, interventions: Interventions, pad_mask: Tensor) -> Tensor | None:
        if not self.model.attends:  # nothing to replace: the what-ifs are not offered
            return None
        return override_weights(interventions, pad_mask)

    @no_grad_unless_differentiating
    def step(self, token_id, encoded, cache, interventions, capture) -> StepOutput:
        tokens = torch.tensor([token_id], device=self.device)
        override = self.weights_override(interventions, encoded.state.pad_mask)
        out = self.model.step(tokens, cache[-1], encoded.state, override)
        result = StepOutput(out.logits[0], [*cache, out.state])
        if capture and out.weights is not None:
            result.attention["alignment"] = out.weights[0][None, None, :]  # (L=1, H=1, S)
        return result

    def truncate(self, cache: list[Tensor], length: int) -> list[Tensor]:
        return cache[: length + 1]

    @no_grad_unless_differentiating
    def step_batch(self, parents: Sequence[int], token_ids, encoded, cache, interventions):
        n = len(parents)
        one: RNNEncoded = encoded.state
        batched = RNNEncoded(  # one source, n hypotheses
            one.states.expand(n, -1, -1),
            one.summary.expand(n, -1),
            None if one.keys is None else one.keys.expand(n, -1, -1),
            one.pad_mask.expand(n, -1),
        )
        state = cache[-1].index_select(0, torch.tensor(list(parents), device=self.device))
        tokens = torch.tensor(list(token_ids), device=self.device)
        out = self.model.step(tokens, state, batched, self.weights_override(interventions, batched.pad_mask))
        return torch.log_softmax(out.logits, dim=-1), [out.state]

    def batched_greedy_texts(self, sources: Sequence[str]) -> list[str]:
        """Many sources at once, batched (as training evaluates)."""
        return greedy_decode_batch(self.model, self.tokenizer, list(sources))

    @no_grad_unless_differentiating
    def teacher_force(self, encoded, tgt_in: Tensor, tgt_pad: Tensor, interventions) -> TeacherForcedOutput:
        override = self.weights_override(interventions, encoded.pad_mask)
        parts: dict[str, Tensor] = {}  # additive: W s and tanh(W s + U h) at every step
        logits, weights, scores = self.model.teacher_force(encoded.state, tgt_in, override, parts)
        if weights is None:  # the model without attention
            return TeacherForcedOutput(logits)
        batch, length = tgt_in.shape
        masks = encoded.pad_mask[:, None, :].expand(batch, length, -1)  # (B, T, S): padding keys
        if encoded.state.keys is not None:  # U h_j, computed once per source by the encoder
            parts["keys"] = encoded.state.keys.detach()
        return TeacherForcedOutput(
            logits,
            attention={"alignment": weights[:, None, None]},  # (B, L=1, H=1, T, S)
            scores={"alignment": (scores / self.scale)[:, None, None]},  # raw, before the scaling
            masks={"alignment": masks},
            scale=self.scale,
            parts={"alignment": {name: part[:, None, None] for name, part in parts.items()}},  # (B, 1, 1, …)
        )
