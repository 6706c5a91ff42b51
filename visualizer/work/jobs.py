"""The work behind every job a page names (``visualizer.state.jobs``), in one table: ``JOBS``.

Each entry takes the job, the model it runs on (the loaded one for ``Session.compute``; the
one the page hands over, or None, for ``Session.run_job``) and the current snapshot, and
returns plain data. This module imports torch and the model code; the work layer imports it
when the first job runs (``visualizer.work.runner.run_job``), never a page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from model.attribution.heads import head_importance, model_sample, source_sample, task_sample
from model.attribution.logit_lens import logit_lens_grid
from model.attribution.methods import Cancelled, attribute
from model.core.progress import report, stop_requested
from model.generation.decoding import filtered_distribution
from model.generation.records import GenerationSnapshot
from model.interface import ModelFamily
from model.probes.norm_stats import norm_affine, padded_batch_stats
from model.probes.position_runs import compare_swap, positional_table
from model.probes.positions import EncodingTable
from model.probes.relative_bias import relative_bias
from model.probes.teacher_forcing import hypothesis_attention, teacher_force_batch
from model.tasks.probe import trace_probe
from model.tasks.replay import read_replay
from visualizer.state.jobs import (
    AttributionJob,
    FilteredDistributionJob,
    HeadImportanceJob,
    HypothesisAttentionJob,
    LogitLensGridJob,
    NormAffineJob,
    PaddedBatchJob,
    PositionTableJob,
    ProbeJob,
    ReadReplayJob,
    RelativeBiasJob,
    Stopped,
    SwapJob,
    TeacherForcedJob,
)

Work = Callable[[Any, ModelFamily | None, GenerationSnapshot | None], Any]


def progress(done: int, total: int, what: str) -> None:
    """A long job's progress, to whoever listens (the worker sends it to the page)."""
    report(done / total, what)


def attribution(job: AttributionJob, model: ModelFamily, _snapshot) -> Any:
    try:
        return attribute(
            model,
            job.source,
            job.output_ids,
            [job.step],
            job.settings,
            job.interventions,
            progress=progress,
            cancelled=lambda: job.stop.is_set() or stop_requested(),
        )
    except Cancelled:
        return Stopped()


def importance(job: HeadImportanceJob, model: ModelFamily, _snapshot) -> Any:
    """The sample the job's mode names, then every head zeroed alone and the pruning curve."""
    if job.mode == "tasks":
        sample = task_sample(model, job.n)
    elif job.mode == "source":
        sample = source_sample(model, job.source, job.written)
    else:
        sample = model_sample(model, list(job.history))
    try:
        return head_importance(
            model,
            sample,
            progress=progress,
            cancelled=lambda: job.stop.is_set() or stop_requested(),
        )
    except Cancelled:
        return Stopped()


def encoding_table(_job: PositionTableJob, model: ModelFamily, _snapshot) -> EncodingTable:
    """The model's positional encoding for every position it can read."""
    return EncodingTable(
        model.info.capabilities.positional, positional_table(model), model.positional_layout()
    )


# job type → its work: the one place a page's request meets the model code
JOBS: dict[type, Work] = {
    TeacherForcedJob: lambda job, model, _: teacher_force_batch(
        model, list(job.sources), list(job.targets), job.interventions
    ),
    HypothesisAttentionJob: lambda job, model, _: hypothesis_attention(
        model, job.source, list(job.token_ids), job.interventions
    ),
    NormAffineJob: lambda _job, model, _: norm_affine(model),
    PaddedBatchJob: lambda job, model, _: padded_batch_stats(
        model, job.source, interventions=job.interventions
    ),
    PositionTableJob: encoding_table,
    SwapJob: lambda job, model, _: compare_swap(model, job.source, job.a, job.b, job.interventions),
    RelativeBiasJob: lambda job, model, _: relative_bias(model, list(job.tokens)),
    LogitLensGridJob: lambda job, model, _: logit_lens_grid(model, job.source, job.output_ids, job.top_k),
    AttributionJob: attribution,
    HeadImportanceJob: importance,
    FilteredDistributionJob: lambda job, _model, _: filtered_distribution(job.logits, job.settings),
    ReadReplayJob: lambda job, _model, _: read_replay(job.path),
    ProbeJob: lambda job, model, _: trace_probe(model, job.text),
}
