"""The Train page's probe: one fixed input run greedily on one snapshot of a training run.

``trace_probe`` answers what the page draws for a snapshot: the tokens read and written and
every kind of attention over the whole output (``model.generation.trace.generation_arrays``:
a source-query kind as [L, H, S, S], a decoder kind as [L, H, T, keys]). An untrained model
rarely writes ``<eos>``, so the output is cut at a length the probe's answer cannot need.
"""

from __future__ import annotations

from model.generation.engine import GenerationEngine
from model.generation.trace import generation_arrays
from model.interface import ModelFamily
from model.tasks.probe_trace import ProbeTrace

EXTRA_STEPS = 8  # beyond the source's length: room for a date's answer, an untrained model's noise


def probe_steps(model: ModelFamily, source_length: int) -> int:
    return min(model.info.max_target_len, 2 * source_length + EXTRA_STEPS)


def trace_probe(model: ModelFamily, text: str) -> ProbeTrace:
    """Greedy decoding of ``text`` on ``model``, with every attention weight it used."""
    engine = GenerationEngine(model, text)
    limit = probe_steps(model, len(engine.encoder.src_ids))
    while len(engine.steps) < limit and engine.step() is not None:
        pass
    snapshot = engine.snapshot()
    arrays = generation_arrays(snapshot)
    tokenizer = model.tokenizer
    kinds = tuple(kind.name for kind in snapshot.info.kinds)
    return ProbeTrace(
        source_tokens=list(snapshot.encoder.tokens),
        input_tokens=[tokenizer.token_text(s.input_id) for s in snapshot.steps],
        output_tokens=[tokenizer.token_text(s.token_id) for s in snapshot.steps],
        output_text=engine.output_text(),
        finished=engine.stop_reason == "eos",
        attention={kind: arrays[kind] for kind in kinds},
        kinds=kinds,
        titles=tuple(kind.title for kind in snapshot.info.kinds),
        step_kinds=frozenset(kind.name for kind in snapshot.info.kinds if kind.per_step),
    )
