"""What the Train page shows of one run: its curves and snapshots, live or from a replay file.

Plain data (no Qt). A live run grows event by event (``model.tasks.live``); a replay is read
whole. Either way a snapshot becomes a model on demand: a live run's snapshot is a checkpoint
file already, a replay's is built from its float16 weights (and written out as a checkpoint
when the rest of the app is to open it).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from model.tasks.replay import Replay

RUN_IDS = itertools.count(1)
REPLAY_FILTER = "Replays (*.replay.safetensors);;All files (*)"  # the file dialogs' filter


@dataclass(frozen=True)
class SnapshotEntry:
    step: int
    loss: float | None  # the training loss of that step (None at step 0)
    exact: float | None  # the training batch's exact match at that step
    held_out: float | None  # held-out exact match of the snapshot (None where not measured)
    path: Path | None  # a checkpoint file (a live run's snapshot), or None in a replay


@dataclass
class TrainingRun:
    title: str
    total_steps: int = 0
    steps: list[int] = field(default_factory=list)  # one entry per training step heard
    loss: list[float] = field(default_factory=list)
    exact: list[float] = field(default_factory=list)
    snapshots: list[SnapshotEntry] = field(default_factory=list)
    replay: Replay | None = None  # when the run was read from a file
    replay_path: Path | None = None  # the replay file (written when a live run ends)
    checkpoint: Path | None = None  # the last model (written when a live run ends)
    family: str = "transformer"
    seconds: float = 0.0
    rate: float = 0.0
    threads: int = 0  # the training process's torch threads
    id: int = field(default_factory=lambda: next(RUN_IDS))

    # -- a live run, event by event ----------------------------------------------------------
    def heard(self, event: dict) -> str:
        """Take one event of ``model.tasks.live``; returns its name."""
        name = event.get("event", "")
        if name == "started":
            self.total_steps = int(event.get("steps", 0))
            self.threads = int(event.get("threads", 0))
        elif name == "step":
            self.steps.append(int(event["step"]))
            self.loss.append(number(event.get("loss")))
            self.exact.append(number(event.get("exact")))
            self.rate, self.seconds = float(event.get("rate", 0.0)), float(event.get("seconds", 0.0))
        elif name == "snapshot":
            self.snapshots.append(
                SnapshotEntry(
                    int(event["step"]),
                    optional(event.get("loss")),
                    optional(event.get("exact")),
                    optional(event.get("held_out")),
                    Path(event["path"]),
                )
            )
        elif name == "finished":
            self.checkpoint = Path(event["checkpoint"]) if event.get("checkpoint") else None
            self.replay_path = Path(event["replay"]) if event.get("replay") else None
            self.seconds = float(event.get("seconds", self.seconds))
        return name

    # -- a replay file -----------------------------------------------------------------------
    @classmethod
    def from_replay(cls, replay) -> TrainingRun:
        """A replay's snapshots; held-out exact match where the run recorded it (the Train
        page's runs do, at every snapshot)."""
        held = {
            entry.get("step"): entry.get("held_out")
            for entry in replay.info.get("history", [])
            if isinstance(entry, dict)
        }
        run = cls(replay.path.name, replay=replay, replay_path=replay.path)
        run.snapshots = [
            SnapshotEntry(s.step, s.loss, None, optional(held.get(s.step)), None) for s in replay.snapshots
        ]
        run.total_steps = run.snapshots[-1].step
        run.steps = [s.step for s in run.snapshots if s.loss is not None]
        run.loss = [s.loss for s in run.snapshots if s.loss is not None]
        run.exact = [math.nan for _ in run.steps]  # a replay keeps each snapshot's loss only
        run.seconds = float(replay.info.get("train_seconds", 0.0) or 0.0)
        return run

    # -- curves ------------------------------------------------------------------------------
    def loss_curve(self) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(self.steps, dtype=float), np.asarray(self.loss, dtype=float)

    def exact_curve(self) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(self.steps, dtype=float), np.asarray(self.exact, dtype=float)

    def held_out_curve(self) -> tuple[np.ndarray, np.ndarray]:
        points = [(s.step, s.held_out) for s in self.snapshots if s.held_out is not None]
        return np.asarray([p[0] for p in points], dtype=float), np.asarray(
            [p[1] for p in points], dtype=float
        )

    # -- snapshots as models ----------------------------------------------------------------------
    def snapshot_model(self, index: int, device: str = "cpu"):
        """Snapshot ``index`` as a ``ModelFamily`` (worker side: imports torch)."""
        if self.replay is not None:
            return self.replay.family(index, device)
        from model.registry import open_model

        return open_model(self.snapshots[index].path, device)

    def checkpoint_of(self, index: int, folder: Path) -> Path:
        """A checkpoint file of snapshot ``index`` (a replay's is written into ``folder``)."""
        entry = self.snapshots[index]
        if entry.path is not None:
            return entry.path
        # the run's id in the name: two replays of the same file name never share a file
        path = Path(folder) / f"{Path(self.title).name.split('.')[0]}-{self.id}-step-{entry.step}.safetensors"
        if not path.exists():
            self.replay.write_checkpoint(index, path)
        return path


def number(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan


def optional(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
