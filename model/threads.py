"""How many intra-op threads a generation step should use.

A step of a small model is a few hundred tiny operations: threads add synchronisation and
nothing else. Worse, on a busy machine with few cores a thread pool waiting for a core turns
a 0.5 ms step into a 100 ms one (measured on 2 cores with another process running: the
shipped model's step went from 0.52 ms on one thread to 104 ms on two, the larger benchmark
config's from 11 ms to 242 ms). Larger models get a few threads, leaving cores for the GUI;
a matrix-vector step is limited by memory bandwidth, so more than four do not help.
"""

from __future__ import annotations

import os

from model.config import TransformerConfig

SMALL_MODEL_PARAMETERS = 5_000_000
MAX_STEP_THREADS = 4


def step_threads(config: TransformerConfig | None, cores: int | None = None) -> int:
    """Intra-op threads for stepping a model of ``config`` on a machine with ``cores``;
    ``config`` None: a model not known yet (loading it runs it once)."""
    cores = cores or os.cpu_count() or 1
    if cores <= 2 or (config is not None and config.parameter_count() < SMALL_MODEL_PARAMETERS):
        return 1
    return min(MAX_STEP_THREADS, cores // 2)
