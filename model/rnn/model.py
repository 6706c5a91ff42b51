"""A GRU encoder-decoder, without attention or with attention over the encoder states.

The encoder is a bidirectional GRU: h_j = [→h_j; ←h_j], one state per source token. The
decoder is a GRU cell that, at step i, reads the previous output y_{i-1} and a context c_i:

- ``none`` (Cho et al. 2014): c_i = the fixed summary of the whole source, the same at every
  step (the final states of both directions, [→h_S; ←h_1]); the bottleneck attention removes;
- ``additive`` (Bahdanau et al. 2014): e_ij = vᵀ tanh(W s_{i-1} + U h_j), α_i = softmax_j(e_i),
  c_i = Σ_j α_ij h_j: a fresh weighted sum of all encoder states at every step;
- ``dot`` (Luong et al. 2015): e_ij = s_{i-1} · h_j; ``scaled_dot``: e_ij = s_{i-1} · h_j / √d,
  the Transformer's score without its projections.

Then s_i = GRU([E y_{i-1}; c_i], s_{i-1}) and the next-token logits come from [s_i; c_i; E y_{i-1}].
The decoder starts from s_0 = tanh(W_init [→h_S; ←h_1]). Padding never reaches a state (the
encoder runs on packed sequences) and gets no attention (its scores are −∞ before the softmax).
An RNN decodes one step after another, in training too: ``teacher_force`` runs the same step
over a batch of targets, so stepwise decoding and the teacher-forced run agree exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from model.rnn.config import RNNConfig


@dataclass
class RNNEncoded:
    states: torch.Tensor  # (B, S, 2H) the encoder states h_j; zero at padding
    summary: torch.Tensor  # (B, 2H) [→h_S; ←h_1], the fixed vector of the no-attention model
    keys: torch.Tensor | None  # (B, S, A) U h_j, precomputed for additive scores
    pad_mask: torch.Tensor  # (B, S) True at padding


@dataclass
class RNNStep:
    logits: torch.Tensor | None  # (B, V); None from ``advance``
    state: torch.Tensor  # (B, D) s_i
    context: torch.Tensor  # (B, 2H) c_i
    weights: torch.Tensor | None  # (B, S) α_i; None without attention
    scores: torch.Tensor | None  # (B, S) e_i before the mask and softmax (scaled for scaled_dot)
    # additive: how e_i was made, {"query": W s_{i-1} (B, A), "tanh": tanh(W s_{i-1} + U h) (B, S, A)}
    parts: dict[str, torch.Tensor] = field(default_factory=dict)


class RNNSeq2Seq(nn.Module):
    def __init__(self, config: RNNConfig, pad_id: int = 0) -> None:
        super().__init__()
        self.config = config
        self.pad_id = pad_id
        c = config
        self.embedding = nn.Embedding(c.vocab_size, c.embed_dim, padding_idx=pad_id)  # source and target
        self.encoder = nn.GRU(c.embed_dim, c.encoder_hidden, batch_first=True, bidirectional=True)
        self.init_state = nn.Linear(c.state_dim, c.decoder_hidden)
        self.decoder = nn.GRUCell(c.embed_dim + c.state_dim, c.decoder_hidden)
        if c.score == "additive":
            self.query_proj = nn.Linear(c.decoder_hidden, c.attention_dim, bias=False)  # W
            self.key_proj = nn.Linear(c.state_dim, c.attention_dim)  # U (its bias: the tanh's)
            self.score_vector = nn.Linear(c.attention_dim, 1, bias=False)  # v
        self.output = nn.Linear(c.decoder_hidden + c.state_dim + c.embed_dim, c.vocab_size)

    @property
    def attends(self) -> bool:
        return self.config.score != "none"

    def encode(self, src: torch.Tensor, src_pad: torch.Tensor) -> RNNEncoded:
        """``src`` (B, S) ids, ``src_pad`` (B, S) True at padding; every row has a real token."""
        lengths = (~src_pad).sum(dim=1).clamp(min=1).cpu()
        embedded = self.embedding(src)  # (B, S, E)
        packed = pack_padded_sequence(embedded, lengths, batch_first=True, enforce_sorted=False)
        outputs, final = self.encoder(packed)
        states, _ = pad_packed_sequence(outputs, batch_first=True, total_length=src.shape[1])  # (B, S, 2H)
        # final: (2, B, H), the forward direction after the last real token, the backward after the first
        summary = torch.cat([final[0], final[1]], dim=-1)  # (B, 2H)
        keys = self.key_proj(states) if self.config.score == "additive" else None
        return RNNEncoded(states, summary, keys, src_pad)

    def start_state(self, encoded: RNNEncoded) -> torch.Tensor:
        """s_0, (B, D)."""
        return torch.tanh(self.init_state(encoded.summary))

    def attention_scores(
        self, state: torch.Tensor, encoded: RNNEncoded, parts: dict[str, torch.Tensor] | None = None
    ) -> torch.Tensor:
        """e_i: (B, S) scores of every encoder state against the previous decoder state (B, D).

        ``parts``, where given, receives the additive score's intermediate tensors (RNNStep.parts)."""
        score = self.config.score
        if score == "additive":
            query = self.query_proj(state)  # (B, A) W s_{i-1}
            hidden = torch.tanh(query[:, None, :] + encoded.keys)  # (B, S, A)
            if parts is not None:  # detached: a record for the views, never part of a gradient
                parts.update(query=query.detach(), tanh=hidden.detach())
            return self.score_vector(hidden).squeeze(-1)
        dot = torch.einsum("bd,bsd->bs", state, encoded.states)
        return dot / math.sqrt(self.config.state_dim) if score == "scaled_dot" else dot

    def step(
        self,
        token: torch.Tensor,
        state: torch.Tensor,
        encoded: RNNEncoded,
        weights_override: torch.Tensor | None = None,
    ) -> RNNStep:
        """Read ``token`` (B,) with the previous state (B, D): the next logits and state.

        ``weights_override`` (B, S), for what-ifs, replaces the attention weights α_i.
        """
        embedded = self.embedding(token)  # (B, E)
        features, out = self.advance(embedded, state, encoded, weights_override)
        out.logits = self.output(features)
        return out

    def advance(
        self,
        embedded: torch.Tensor,
        state: torch.Tensor,
        encoded: RNNEncoded,
        weights_override: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, RNNStep]:
        """One step up to the output layer: its input [s_i; c_i; E y_{i-1}] (B, D + 2H + E) and
        the step without logits (teacher forcing applies the output layer once to all steps)."""
        parts: dict[str, torch.Tensor] = {}
        if self.attends:
            scores = self.attention_scores(state, encoded, parts)
            masked = scores.masked_fill(encoded.pad_mask, float("-inf"))
            weights = torch.softmax(masked, dim=-1) if weights_override is None else weights_override
            context = torch.einsum("bs,bsd->bd", weights, encoded.states)  # Σ_j α_ij h_j
        else:
            scores = weights = None
            context = encoded.summary
        new_state = self.decoder(torch.cat([embedded, context], dim=-1), state)
        features = torch.cat([new_state, context, embedded], dim=-1)
        return features, RNNStep(None, new_state, context, weights, scores, parts)

    def teacher_force(
        self,
        encoded: RNNEncoded,
        tgt_in: torch.Tensor,
        weights_override: torch.Tensor | None = None,
        parts: dict[str, torch.Tensor] | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None]:
        """``tgt_in`` (B, T) (<bos> + target): logits (B, T, V), weights and scores (B, T, S).

        ``weights_override`` (B, S) replaces the attention weights at every step (what-ifs).
        ``parts``, where given, receives each step's ``RNNStep.parts`` stacked over the steps
        (additive: "query" (B, T, A), "tanh" (B, T, S, A)); training asks for none."""
        state = self.start_state(encoded)
        embedded = self.embedding(tgt_in)  # (B, T, E), looked up once for all steps
        features, weights, scores, steps_parts = [], [], [], []
        for position in range(tgt_in.shape[1]):
            step_features, out = self.advance(embedded[:, position], state, encoded, weights_override)
            state = out.state
            features.append(step_features)
            if out.weights is not None:
                weights.append(out.weights)
                scores.append(out.scores)
            if parts is not None:
                steps_parts.append(out.parts)
        for name in steps_parts[0] if steps_parts else ():
            parts[name] = torch.stack([step[name] for step in steps_parts], dim=1)  # (B, T, ...)
        # one output layer over all steps: the same logits as step by step, in one matmul
        stacked_logits = self.output(torch.stack(features, dim=1))  # (B, T, V)
        if not weights:
            return stacked_logits, None, None
        return stacked_logits, torch.stack(weights, dim=1), torch.stack(scores, dim=1)

    def forward(
        self,
        src: torch.Tensor,
        tgt_in: torch.Tensor,
        src_pad: torch.Tensor,
        tgt_pad: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Training: (B, T, V) logits; the Transformer's argument order, so that one training
        loop serves both (a padded target position's logits are computed and ignored)."""
        return self.teacher_force(self.encode(src, src_pad), tgt_in)[0]


@torch.no_grad()
def greedy_decode_batch(model: RNNSeq2Seq, tokenizer, sources: list[str]) -> list[str]:
    """Greedy outputs for many sources at once (evaluation during and after training)."""
    from model.core.batching import encode_sources

    device = next(model.parameters()).device
    src, src_pad = encode_sources(tokenizer, sources, device)
    encoded = model.encode(src, src_pad)
    state = model.start_state(encoded)
    token = torch.full((len(sources),), tokenizer.bos_id, dtype=torch.long, device=device)
    finished = torch.zeros(len(sources), dtype=torch.bool, device=device)
    chosen = []
    for _ in range(model.config.max_len):
        out = model.step(token, state, encoded)
        state, token = out.state, out.logits.argmax(-1)  # (B,)
        chosen.append(token)
        finished |= token == tokenizer.eos_id
        if finished.all():
            break
    ids = torch.stack(chosen, dim=1).tolist()
    return [tokenizer.decode(row) for row in ids]
