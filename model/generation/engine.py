"""Step-by-step generation that records what the model computed, as plain numpy data.

``GenerationEngine`` holds one source and any ``ModelFamily``. It runs the encoder once
(recording the source-side kinds of attention), then each ``step()`` feeds one token
through the decoder with the family's cache and records a ``StepRecord``. ``back()`` undoes
a step, ``force()`` replaces the last choice (a branch), ``reset()`` starts again. Records
are immutable snapshots that the GUI may keep and show from any thread. Nothing here names
a family.

Decoder positions: the decoder reads ``<bos>, out[0], out[1], ...``; step t reads input
position t and chooses ``out[t]``. A causal kind's row at step t covers positions 0..t.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from model.core.batching import source_tensors
from model.generation.decoding import (
    BeamResult,
    DecodingSettings,
    beam_search,
    choose_token,
    next_token_distribution,
    step_generator,
)
from model.generation.records import EncoderRecord, GenerationSnapshot, StepRecord
from model.interface import NO_INTERVENTIONS, EncodeOutput, Interventions, ModelFamily
from model.source import PreparedSource, Source, SourceError  # noqa: F401 (SourceError: where callers look)


@dataclass
class GenerationEngine:
    """One source, stepped through generation one token at a time."""

    model: ModelFamily
    source: Source
    settings: DecodingSettings = field(default_factory=DecodingSettings)
    interventions: Interventions = NO_INTERVENTIONS
    capture: bool = True  # False only to measure what capture costs

    def __post_init__(self) -> None:
        self.tokenizer = self.model.tokenizer
        self.steps: list[StepRecord] = []
        self.beam: BeamResult | None = None
        self.encoded, self.encoder = record_encoder(self.model, self.source, self.interventions)
        self.cache: Any = self.model.start(self.encoded)

    # -- state ---------------------------------------------------------------------------
    @property
    def max_steps(self) -> int:
        return self.model.info.max_target_len

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
            self.model.info,
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
        out = self.model.step(input_id, self.encoded, self.cache, self.interventions, self.capture)
        logits = out.logits
        probs, filtered = next_token_distribution(logits, self.settings)
        if force is not None:
            token_id = force
        elif self.settings.strategy == "beam":
            token_id = self._beam_choice(position)
        else:
            token_id = choose_token(filtered, self.settings, step_generator(self.settings.seed, position))
        arrays = [numpy_of(logits), numpy_of(probs), numpy_of(filtered)]
        if filtered is probs:  # greedy and beam draw from the model's own distribution
            arrays[2] = arrays[1]
        record = StepRecord(
            position,
            input_id,
            token_id,
            force is not None,
            *arrays,
            {kind: numpy_of(row) for kind, row in out.attention.items()},
            {name: numpy_of(value) for name, value in out.extras.items()},
            time.perf_counter() - started,
            prompted=force is None and self.model.prompt_token(position) is not None,
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
        self.cache = self.model.truncate(self.cache, len(self.steps))
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
        self.cache = self.model.start(self.encoded)

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

        def step_fn(parents: list[int], inputs: list[int], cache: Any):
            return self.model.step_batch(parents, inputs, self.encoded, cache, self.interventions)

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


def greedy_texts(model: ModelFamily, sources: Sequence[str]) -> list[str]:
    """Greedy outputs for many sources (``attnviz eval``): the family's batched decoder where it
    has one, else each source stepped through the engine."""
    batched = model.batched_greedy_texts(sources)
    return batched if batched is not None else engine_greedy_texts(model, sources)


def engine_greedy_texts(model: ModelFamily, sources: Sequence[str]) -> list[str]:
    """Greedy outputs, each source stepped through the engine without capture: what any family
    can do, and what a family's batched decoder must agree with."""
    outputs = []
    for source in sources:
        engine = GenerationEngine(model, source, capture=False)
        engine.run_to_end()
        outputs.append(engine.output_text())
    return outputs


def check_source(model: ModelFamily, source: Source) -> PreparedSource:
    """``source`` prepared by ``model``'s family; SourceError (its words) if it cannot be run."""
    return model.prepare_source(source)


@torch.no_grad()
def record_encoder(
    model: ModelFamily, source: Source, interventions: Interventions = NO_INTERVENTIONS
) -> tuple[EncodeOutput, EncoderRecord]:
    """Run the encoder once over ``source`` with capture; its output and what it computed."""
    started = time.perf_counter()
    prepared = model.prepare_source(source)
    src, src_pad = source_tensors(model, [prepared], model.device)
    encoded = model.encode(src, src_pad, interventions, capture=True)
    record = EncoderRecord(
        src_ids=np.asarray(prepared.ids, dtype=np.int64),
        tokens=list(prepared.axis.labels),
        unknown=list(prepared.unknown),
        attention={kind: numpy_of(value[0]) for kind, value in encoded.attention.items()},
        scores={kind: numpy_of(value[0]) for kind, value in encoded.scores.items()},
        mask=src_pad[0].cpu().numpy(),
        extras={name: numpy_of(value[0]) for name, value in encoded.extras.items()},
        seconds=time.perf_counter() - started,
        axis=prepared.axis,
        notice=prepared.notice,
    )
    return encoded, record


def numpy_of(tensor: torch.Tensor) -> np.ndarray:
    """A read-only float32 numpy copy (or view, on the CPU) of a tensor the model returned."""
    if tensor.dtype is not torch.float32 or tensor.device.type != "cpu":  # each call costs a µs
        tensor = tensor.float().cpu()
    return frozen(tensor.detach().numpy())


def frozen(array: np.ndarray | None) -> np.ndarray | None:
    """Records are shared across threads: make their arrays read-only."""
    if array is not None:
        array.setflags(write=False)
    return array
