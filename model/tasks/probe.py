"""The Train page's probe: one fixed input run greedily on one snapshot of a training run.

``trace_probe`` answers what the page draws for a snapshot: the tokens read and written and
every kind of attention over the whole output (``model.generation.trace.generation_arrays``:
a source-query kind as [L, H, S, S], a decoder kind as [L, H, T, keys]). An untrained model
rarely writes ``<eos>``, so the output is cut at a length the probe's answer cannot need.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.generation.engine import GenerationEngine
from model.generation.trace import generation_arrays
from model.interface import ModelFamily

EXTRA_STEPS = 8  # beyond the source's length: room for a date's answer, an untrained model's noise


@dataclass(frozen=True)
class ProbeTrace:
    source_tokens: list[str]  # [S] the encoder's tokens (characters, then <eos>)
    input_tokens: list[str]  # [T] what the decoder read at each step (<bos>, out[0], ...)
    output_tokens: list[str]  # [T] what it wrote
    output_text: str  # the output decoded, up to <eos>
    finished: bool  # whether it wrote <eos> before the cut
    attention: dict[str, np.ndarray]  # kind name → [L, H, queries, keys]
    kinds: tuple[str, ...]  # the family's kinds, in its order


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
    )


@dataclass(frozen=True)
class Diagonal:
    strength: float  # the mean weight on the line, over the rows it crosses (0..1)
    layer: int
    head: int
    offset: int  # the line's key = offset - query row


def anti_diagonal(trace: ProbeTrace, kind: str = "cross", rows: int | None = None) -> Diagonal:
    """The strongest anti-diagonal line any head of ``kind`` draws over the first ``rows``
    output rows (default: as many as the source has tokens before <eos>): the head that, row
    after row, puts its weight one key further left, as reversing needs. A line may sit at any
    offset (a head that reads one character ahead of the one written draws one too)."""
    matrices = trace.attention[kind]  # [L, H, T, S]
    n_layers, n_heads, n_rows, n_keys = matrices.shape
    rows = min(n_rows, rows if rows is not None else len(trace.source_tokens) - 1)
    best = Diagonal(0.0, 0, 0, 0)
    if rows < 2:
        return best
    queries = np.arange(rows)
    for offset in range(rows - 1, n_keys):  # every line whose keys stay inside the source
        keys = offset - queries
        strengths = matrices[:, :, queries, keys].mean(-1)  # [L, H]
        layer, head = np.unravel_index(int(strengths.argmax()), strengths.shape)
        if strengths[layer, head] > best.strength:
            best = Diagonal(float(strengths[layer, head]), int(layer), int(head), offset)
    return best
