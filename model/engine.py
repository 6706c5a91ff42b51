"""Step-by-step generation that records what the model computed, as plain numpy data.

``GenerationEngine`` holds one source. It runs the encoder once (recording its
self-attention), then each ``step()`` feeds one token through the decoder with the KV cache
and records a ``StepRecord``. ``back()`` undoes a step, ``force()`` replaces the last choice
(a branch), ``reset()`` starts again. Records are immutable snapshots that the GUI may keep
and show from any thread.

Decoder positions: the decoder reads ``<bos>, out[0], out[1], ...``; step t reads input
position t and chooses ``out[t]``. Its self-attention row covers input positions 0..t.
Memory grows with steps × length (one query row per step), never steps × length².
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import torch

from model.batching import encode_sources
from model.decoding import (
    BeamResult,
    DecodingSettings,
    beam_search,
    choose_token,
    next_token_distribution,
    step_generator,
)
from model.tokenizer import CharTokenizer
from model.transformer import (
    NO_INTERVENTIONS,
    EncoderOutput,
    Interventions,
    KVCache,
    LayerCapture,
    Transformer,
    TransformerConfig,
)

NORM_STATS = ("in_mean", "in_std", "out_mean", "out_std")


class SourceError(ValueError):
    """The source text cannot be run; the message says why in one line."""


@dataclass(frozen=True)
class EncoderRecord:
    src_ids: np.ndarray  # [S] int, the source's characters then <eos>
    tokens: list[str]  # [S] labels for the source positions
    unknown: list[tuple[int, str]]  # (position, character) of each <unk>
    self_attn: np.ndarray  # [L_enc, H, S, S] softmax weights, query × key
    scores: np.ndarray  # [L_enc, H, S, S] raw Q·Kᵀ (before ÷√d_k and the mask)
    mask: np.ndarray  # [S] bool, True where the key is padding (never, for one source)
    norms: np.ndarray  # [L_enc, 2, 4, S] per sublayer: in_mean, in_std, out_mean, out_std
    seconds: float


@dataclass(frozen=True)
class StepRecord:
    position: int  # output position t filled by this step
    input_id: int  # the token the decoder read at position t (<bos> at t = 0)
    token_id: int  # the token chosen for out[t]
    forced: bool  # chosen by the user, not by the strategy
    logits: np.ndarray  # [V]
    probs: np.ndarray  # [V] softmax(logits): the model's own distribution
    filtered_probs: np.ndarray  # [V] after temperature / top-k / top-p: what was drawn from
    dec_self: np.ndarray  # [L_dec, H, t+1] new query's weights over input positions 0..t
    cross: np.ndarray  # [L_dec, H, S] new query's weights over the source
    norms: np.ndarray  # [L_dec, 3, 4] per sublayer: in_mean, in_std, out_mean, out_std
    seconds: float  # wall time of the decoder step, capture included


@dataclass(frozen=True)
class GenerationSnapshot:
    """Everything a generation has recorded so far; immutable, safe to hand to another thread."""

    source: str
    settings: DecodingSettings
    interventions: Interventions
    config: TransformerConfig
    tokenizer: CharTokenizer
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

    def output_text(self, steps: int | None = None) -> str:
        return self.tokenizer.decode(self.output_ids[:steps])

    @property
    def nbytes(self) -> int:
        """Bytes of every array the records hold, each counted once (greedy's filtered
        distribution is its model distribution)."""
        arrays: dict[int, np.ndarray] = {}
        for record in (self.encoder, *self.steps):
            for value in vars(record).values():
                if isinstance(value, np.ndarray):
                    arrays[id(value)] = value
        return sum(array.nbytes for array in arrays.values())


@dataclass
class GenerationEngine:
    """One source, stepped through generation one token at a time."""

    model: Transformer
    tokenizer: CharTokenizer
    source: str
    settings: DecodingSettings = field(default_factory=DecodingSettings)
    interventions: Interventions = NO_INTERVENTIONS
    capture: bool = True  # False only to measure what capture costs

    def __post_init__(self) -> None:
        self.device = next(self.model.parameters()).device
        self.steps: list[StepRecord] = []
        self.beam: BeamResult | None = None
        self.encoded, self.encoder = record_encoder(
            self.model, self.tokenizer, self.source, self.interventions, self.device
        )
        self.cache: KVCache = self.model.start_cache(self.encoded)

    # -- state ---------------------------------------------------------------------------
    @property
    def max_steps(self) -> int:
        return self.model.config.max_len

    @property
    def output_ids(self) -> list[int]:
        return [s.token_id for s in self.steps]

    @property
    def finished(self) -> bool:
        return self.stop_reason is not None

    @property
    def stop_reason(self) -> str | None:
        """ "eos", "max_length", or None while generation can go on."""
        if self.steps and self.steps[-1].token_id == self.tokenizer.eos_id:
            return "eos"
        if len(self.steps) >= self.max_steps:
            return "max_length"
        return None

    def output_text(self) -> str:
        return self.tokenizer.decode(self.output_ids)

    def snapshot(self) -> GenerationSnapshot:
        return GenerationSnapshot(
            self.source,
            self.settings,
            self.interventions,
            self.model.config,
            self.tokenizer,
            self.encoder,
            tuple(self.steps),
            self.stop_reason,
            self.beam,
        )

    # -- actions -------------------------------------------------------------------------
    @torch.no_grad()
    def step(self, force: int | None = None) -> StepRecord | None:
        """Advance one token (or take ``force`` as the token); None when already finished."""
        if self.finished:
            return None
        if force is not None and not 0 <= force < len(self.tokenizer):
            raise ValueError(f"token id {force} is outside the vocabulary of {len(self.tokenizer)}")
        position = len(self.steps)
        input_id = self.tokenizer.bos_id if position == 0 else self.steps[-1].token_id
        started = time.perf_counter()
        out = self.model.decode_one(
            input_id, self.encoded, self.cache, capture=self.capture, interventions=self.interventions
        )
        logits = out.logits
        probs, filtered = next_token_distribution(logits, self.settings)
        if force is not None:
            token_id = force
        elif self.settings.strategy == "beam":
            token_id = self._beam_choice(position)
        else:
            token_id = choose_token(filtered, self.settings, step_generator(self.settings.seed, position))
        rows = out.rows
        dec_self, cross, norms = (
            (numpy_of(rows.dec_self), numpy_of(rows.cross), numpy_of(rows.norms)) if rows else (None,) * 3
        )
        arrays = [numpy_of(logits), numpy_of(probs), numpy_of(filtered)]
        if filtered is probs:  # greedy and beam draw from the model's own distribution
            arrays[2] = arrays[1]
        record = StepRecord(
            position,
            input_id,
            token_id,
            force is not None,
            *arrays,
            dec_self,
            cross,
            norms,
            time.perf_counter() - started,
        )
        self.cache = out.cache
        self.steps.append(record)
        return record

    def run_to_end(self) -> int:
        """Step until <eos> or the maximum length; returns how many steps were taken."""
        taken = 0
        while self.step() is not None:
            taken += 1
        return taken

    def back(self) -> bool:
        """Undo the last step; False when there is nothing to undo."""
        if not self.steps:
            return False
        self.steps.pop()
        self.cache = self.cache.truncated(len(self.steps))
        return True

    def force(self, token_id: int) -> StepRecord:
        """Replace the last step's choice with ``token_id`` and continue from there."""
        if self.steps:
            self.back()
        if self.settings.strategy == "beam":
            self.beam = None  # the planned hypothesis no longer applies; re-plan after it
        record = self.step(force=token_id)
        assert record is not None
        return record

    def reset(self) -> None:
        self.steps.clear()
        self.beam = None
        self.cache = self.model.start_cache(self.encoded)

    # -- internals -----------------------------------------------------------------------
    def _beam_choice(self, position: int) -> int:
        if self.beam is None or self.beam.path(self.beam.best_node)[:position] != self.output_ids:
            self.beam = self._plan_beam()
        best = self.beam.best
        return best[position] if position < len(best) else self.tokenizer.eos_id

    def _plan_beam(self) -> BeamResult:
        """Beam search from the tokens chosen so far; the engine then follows its best path."""
        prefix = self.output_ids
        start_input = self.tokenizer.bos_id if not prefix else prefix[-1]
        batched: dict[int, EncoderOutput] = {}

        def step_fn(parents: list[int], inputs: list[int], cache: KVCache):
            n = len(parents)
            if n not in batched:
                batched[n] = batch_encoded(self.encoded, n)
            cache = cache.select(torch.tensor(parents, device=self.device))
            tokens = torch.tensor(inputs, device=self.device).unsqueeze(1)  # (N, 1)
            out = self.model.decode(tokens, batched[n], cache, interventions=self.interventions)
            return torch.log_softmax(out.logits[:, -1].float(), dim=-1), out.cache  # (N, V)

        prefix_logprobs = [float(np.log(max(s.probs[s.token_id], 1e-30))) for s in self.steps]
        return beam_search(
            step_fn,
            self.cache,
            start_input,
            self.settings.beam_width,
            self.tokenizer.eos_id,
            self.max_steps,
            prefix=prefix,
            prefix_logprobs=prefix_logprobs,
        )


def check_source(model: Transformer, tokenizer: CharTokenizer, source: str) -> None:
    """Raise SourceError if ``source`` cannot be run by ``model``."""
    if not source:
        raise SourceError("the source is empty: type some text, e.g. 'reverse: attention'")
    if len(tokenizer.encode_source(source).ids) > model.config.max_len:
        raise SourceError(
            f"the source has {len(source)} characters; this model reads at most {model.config.max_len - 1}"
        )


@torch.no_grad()
def record_encoder(
    model: Transformer,
    tokenizer: CharTokenizer,
    source: str,
    interventions: Interventions = NO_INTERVENTIONS,
    device: torch.device | None = None,
) -> tuple[EncoderOutput, EncoderRecord]:
    """Run the encoder once over ``source`` with capture; its output and what it computed."""
    check_source(model, tokenizer, source)
    started = time.perf_counter()
    device = device or next(model.parameters()).device
    encoded_text = tokenizer.encode_source(source)
    src, src_pad = encode_sources(tokenizer, [source], device)
    encoded = model.encode(src, src_pad, capture=True, interventions=interventions)
    layers = encoded.layers or []
    record = EncoderRecord(
        src_ids=np.asarray(encoded_text.ids),
        tokens=[tokenizer.token_text(i) for i in encoded_text.ids],
        unknown=encoded_text.unknown,
        self_attn=stack([layer.attention["self"].weights[0] for layer in layers]),
        scores=stack([layer.attention["self"].scores[0] for layer in layers]),
        mask=src_pad[0].cpu().numpy(),
        norms=stack([norm_matrix(layer, slice(None)) for layer in layers]),
        seconds=time.perf_counter() - started,
    )
    return encoded, record


def batch_encoded(encoded: EncoderOutput, n: int) -> EncoderOutput:
    """The one source's encoder output repeated for ``n`` hypotheses (a view, no copy)."""
    memory = encoded.memory.expand(n, *encoded.memory.shape[1:])
    return EncoderOutput(memory, encoded.pad_mask.expand(n, -1), None)


def norm_matrix(layer: LayerCapture, position: int | slice) -> torch.Tensor:
    """[sublayers, 4] at one position, or [sublayers, 4, L] for ``slice(None)``."""
    rows = []
    for norm in layer.norms:
        rows.append(torch.stack([getattr(norm, name)[0, position] for name in NORM_STATS]))
    return torch.stack(rows)


def stack(tensors: list[torch.Tensor]) -> np.ndarray:
    return frozen(torch.stack(tensors).float().cpu().numpy())


def numpy_of(tensor: torch.Tensor) -> np.ndarray:
    """A read-only float32 numpy copy (or view, on the CPU) of a tensor the model returned."""
    if tensor.dtype is not torch.float32 or tensor.device.type != "cpu":  # each call costs a µs
        tensor = tensor.float().cpu()
    return frozen(tensor.numpy())


def frozen(array: np.ndarray | None) -> np.ndarray | None:
    """Records are shared across threads: make their arrays read-only."""
    if array is not None:
        array.setflags(write=False)
    return array
