"""What the Train page's probe answers for one snapshot, as plain numpy, and the anti-diagonal
line it looks for in it. No torch: the page draws these on the GUI thread;
``model.tasks.probe.trace_probe`` runs the probe.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ProbeTrace:
    source_tokens: list[str]  # [S] the encoder's tokens (characters, then <eos>)
    input_tokens: list[str]  # [T] what the decoder read at each step (<bos>, out[0], ...)
    output_tokens: list[str]  # [T] what it wrote
    output_text: str  # the output decoded, up to <eos>
    finished: bool  # whether it wrote <eos> before the cut
    attention: dict[str, np.ndarray]  # kind name → [L, H, queries, keys]
    kinds: tuple[str, ...]  # the family's kinds, in its order
    titles: tuple[str, ...] = ()  # each kind's title, in the order of ``kinds`` ("Cross-attention")
    step_kinds: frozenset[str] = frozenset()  # kinds whose query rows are the decoder's steps

    def title(self, kind: str) -> str:
        """The kind's title as the family gives it (its name where the trace has none)."""
        return dict(zip(self.kinds, self.titles, strict=False)).get(kind, kind)


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
