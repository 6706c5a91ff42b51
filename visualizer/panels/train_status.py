"""The Train page's status line: what the run (or replay) is doing, from its state alone."""

from __future__ import annotations

import math

from visualizer.i18n import tr, trf
from visualizer.state.training_run import TrainingRun


def status_line(run: TrainingRun | None, state: str, language: str) -> str | None:
    """The line for ``run`` with the training process in ``state`` (``TrainingProcess.state``),
    in ``language``; None when there is nothing new to say."""
    if run is None or (state == "idle" and run.replay is None and not run.snapshots):
        return tr("Choose a size and the data, then press Train (Ctrl+Enter).", language)
    if run.replay is not None:
        first, last = run.snapshots[0].step, run.snapshots[-1].step
        replay = trf(
            "Replay {name}: {count} snapshots, steps {first}–{last}.",
            language,
            name=run.title,
            count=len(run.snapshots),
            first=first,
            last=last,
        )
        return f"{replay} {tr('Press Play to watch attention form.', language)}"
    if state == "running" and not run.steps:
        return tr("Starting the training process …", language)
    if state == "stopping" and run.steps:
        return tr("Stopping: the model trained so far is saved …", language)
    if state == "running" and run.steps:
        return trf(
            "Step {step} of {steps} · {rate:.1f} steps/s · {seconds:.0f} s · loss {loss:.3f}",
            language,
            step=run.steps[-1],
            steps=run.total_steps,
            rate=run.rate,
            seconds=run.seconds,
            loss=run.loss[-1],
        )
    if state == "paused":
        steps = run.total_steps
        return trf(
            "Paused at step {step} of {steps}.", language, step=run.steps[-1] if run.steps else 0, steps=steps
        )
    if run.checkpoint is not None and run.snapshots:
        last = run.snapshots[-1]
        if last.step < run.total_steps:
            return trf(
                "Stopped at step {step} of {steps} after {seconds:.0f} s.",
                language,
                step=last.step,
                steps=run.total_steps,
                seconds=run.seconds,
            )
        held = last.held_out if last.held_out is not None else math.nan
        return trf(
            "Trained {step} steps in {seconds:.0f} s; held-out exact match {held:.0%}.",
            language,
            step=last.step,
            seconds=run.seconds,
            held=held,
        )
    return None
