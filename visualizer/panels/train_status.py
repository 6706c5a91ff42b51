"""The Train page's status line: what the run (or replay) is doing, from its state alone."""

from __future__ import annotations

import math
from collections.abc import Callable

from visualizer.state.training_run import TrainingRun


def status_line(run: TrainingRun | None, state: str, text: Callable[..., str]) -> str | None:
    """The line for ``run`` with the training process in ``state`` (``TrainingProcess.state``),
    worded by ``text`` (the page's words); None when there is nothing new to say."""
    if run is None or (state == "idle" and run.replay is None and not run.snapshots):
        return text("idle")
    if run.replay is not None:
        first, last = run.snapshots[0].step, run.snapshots[-1].step
        replay = text("replay", name=run.title, count=len(run.snapshots), first=first, last=last)
        return f"{replay} {text('replay_hint')}"
    if state == "running" and not run.steps:
        return text("starting")
    if state in ("running", "stopping") and run.steps:
        return text(
            state,
            step=run.steps[-1],
            steps=run.total_steps,
            rate=run.rate,
            seconds=run.seconds,
            loss=run.loss[-1],
        )
    if state == "paused":
        return text("paused", step=run.steps[-1] if run.steps else 0, steps=run.total_steps)
    if run.checkpoint is not None and run.snapshots:
        last = run.snapshots[-1]
        if last.step < run.total_steps:
            return text("stopped_early", step=last.step, steps=run.total_steps, seconds=run.seconds)
        held = last.held_out if last.held_out is not None else math.nan
        return text("finished", step=last.step, seconds=run.seconds, held=held)
    return None
