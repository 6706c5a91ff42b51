"""The model work a page asks for, named as plain data: one frozen record per kind of work.

A page never imports the function that does the work: those import torch, and the window
shows its pages before torch is loaded. It names the work with one of these records and hands
it to ``Session.compute`` (run on the worker thread with the loaded model and the current
snapshot; the answer lands in ``Session.computed``) or to ``Session.run_job`` (run here and
now, on a model the page holds or on none). The work layer's table,
``visualizer.work.jobs.JOBS``, maps each record's type to the function that does it.

No torch and no Qt here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from model.attribution.results import AttributionSettings
from model.generation.decoding_settings import DecodingSettings
from model.interface import Interventions


@dataclass(frozen=True)
class Stopped:
    """The answer of a job that was asked to stop before it finished."""


# -- run on the worker with the loaded model (Session.compute) ------------------------------
@dataclass(frozen=True)
class TeacherForcedJob:
    """The masks and ÷√d_k pages: sources and targets (texts, or token ids) as one padded,
    teacher-forced batch; answers a list of ``TeacherForcedItem``."""

    sources: tuple[str, ...]
    targets: tuple[str | tuple[int, ...], ...]
    interventions: Interventions


@dataclass(frozen=True)
class HypothesisAttentionJob:
    """The beam page: the attention over the source of the decoder writing ``token_ids``;
    answers [L, H, k, S]."""

    source: str
    token_ids: tuple[int, ...]
    interventions: Interventions


@dataclass(frozen=True)
class NormAffineJob:
    """The LayerNorm page: each norm's learned scale and shift; answers ``NormAffine``."""


@dataclass(frozen=True)
class PaddedBatchJob:
    """The LayerNorm page: ``source`` batched with a shorter one; answers ``PaddedBatchStats``."""

    source: str
    interventions: Interventions


@dataclass(frozen=True)
class PositionTableJob:
    """The positional-encoding page: the model's own table; answers ``EncodingTable``."""


@dataclass(frozen=True)
class SwapJob:
    """The positional-encoding page's what-if: characters ``a`` and ``b`` of ``source`` swapped;
    answers ``SwapComparison``."""

    source: str
    a: int
    b: int
    interventions: Interventions


@dataclass(frozen=True)
class RelativeBiasJob:
    """The relative-bias page: the bias curves and the matrix for ``tokens``; answers
    ``RelativeBias``."""

    tokens: tuple[str, ...]


@dataclass(frozen=True)
class LogitLensGridJob:
    """The logit-lens page: the lens at every step of ``output_ids`` (one teacher-forced pass),
    the ``top_k`` most likely tokens of each layer and step; answers ``LogitLensGrid``."""

    source: str
    output_ids: tuple[int, ...]
    top_k: int


@dataclass(frozen=True)
class AttributionJob:
    """The attribution page: every method at ``step``, with progress; answers ``Attribution``, or
    ``Stopped()`` once ``stop`` is set (by the page: Stop, another step, the page closing)."""

    source: str
    output_ids: tuple[int, ...]
    step: int
    settings: AttributionSettings
    interventions: Interventions
    stop: threading.Event = field(default_factory=threading.Event, compare=False, repr=False)


@dataclass(frozen=True)
class HeadImportanceJob:
    """The head-importance page: the sample ``mode`` names ("tasks": ``n`` task examples;
    "source": ``source`` and what the model ``written``; "history": the sources run), then
    every head zeroed alone; answers ``HeadImportance``, or ``Stopped()`` once ``stop`` is set."""

    mode: str
    n: int = 0
    source: str = ""
    written: tuple[int, ...] = ()
    history: tuple[str, ...] = ()
    stop: threading.Event = field(default_factory=threading.Event, compare=False, repr=False)


# -- run here and now (Session.run_job) --------------------------------------------------------
@dataclass(frozen=True, eq=False)
class FilteredDistributionJob:
    """The decoding page, live as the settings change: the distribution ``settings`` draw from,
    for a recorded step's ``logits``; answers [V] float64."""

    logits: np.ndarray
    settings: DecodingSettings


@dataclass(frozen=True)
class ReadReplayJob:
    """The Train page: a replay file read and checked; answers a ``Replay`` (raises
    ``CheckpointError`` in one line when the file is not one)."""

    path: Path


@dataclass(frozen=True)
class ProbeJob:
    """The Train page's probe, on the snapshot model handed with it; answers ``ProbeTrace``."""

    text: str


Job = (
    TeacherForcedJob
    | HypothesisAttentionJob
    | NormAffineJob
    | PaddedBatchJob
    | PositionTableJob
    | SwapJob
    | RelativeBiasJob
    | LogitLensGridJob
    | AttributionJob
    | HeadImportanceJob
    | FilteredDistributionJob
    | ReadReplayJob
    | ProbeJob
)
# (job, model or None, snapshot or None) → the answer: ``visualizer.work.runner.run_job``
JobRunner = Callable[..., Any]


def no_worker(job: Job, model: Any = None, snapshot: Any = None) -> Any:
    """``Session.run_job`` until a worker serves the session (the work layer sets it)."""
    raise RuntimeError(f"no worker serves this session to do {type(job).__name__}")
