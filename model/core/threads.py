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

SMALL_MODEL_PARAMETERS = 5_000_000
MAX_STEP_THREADS = 4


def step_threads(parameters: int | None, cores: int | None = None) -> int:
    """Intra-op threads for stepping a model of ``parameters`` on a machine with ``cores``;
    ``parameters`` None: a model not known yet (loading it runs it once)."""
    cores = cores or os.cpu_count() or 1
    if cores <= 2 or (parameters is not None and parameters < SMALL_MODEL_PARAMETERS):
        return 1
    return min(MAX_STEP_THREADS, cores // 2)
