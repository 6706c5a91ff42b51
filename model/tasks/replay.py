"""Replays: evenly spaced snapshots of one training run in one file, to watch attention form.

``attnviz train --snapshots N`` keeps N snapshots of a Transformer's weights (step 0, the
untrained model, through the last step), each in float16 with the step, the training loss and
token accuracy of that step. The file is a safetensors file like a checkpoint (format version
1), its tensors named ``"<index>/<parameter>"``, its ``attnviz`` metadata::

    {"format_version": 1, "kind": "replay", "config": {...}, "vocabulary": [...],
     "info": {...the run's recipe...},
     "snapshots": [{"step": 0, "loss": null, "accuracy": null}, {"step": 40, ...}, ...]}

Reading validates it as a checkpoint is validated (``model.core.weights_file``): the framing,
the header, the config, the vocabulary, every snapshot's entry and every tensor (name, shape,
dtype, finite, magnitude); a snapshot becomes a model only through the checkpoint's own
``build`` (one forward pass, finite logits). Every problem is one line of ``CheckpointError``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from model.core.devices import resolve_device
from model.core.errors import CheckpointError
from model.core.header import REPLAY_KIND
from model.core.tokenizer import CharTokenizer
from model.core.weights_file import check_tensors, parse_safetensors, read_file, write_checkpoint
from model.transformer.checkpoint import (
    FORMAT_VERSION,
    build,
    empty_model,
    parse_header,
    save_checkpoint,
    stored_tensors,
)
from model.transformer.family import TransformerFamily
from model.transformer.model import Transformer

KIND = REPLAY_KIND
MAX_SNAPSHOTS = 1000


def replay_path(checkpoint: Path) -> Path:
    """Where ``attnviz train --snapshots`` writes the replay of the run that writes ``checkpoint``."""
    return checkpoint.with_name(checkpoint.stem + ".replay.safetensors")


def snapshot_steps(total_steps: int, count: int) -> list[int]:
    """``count`` steps evenly spaced from 0 (the untrained model) to ``total_steps``."""
    if count < 2:
        raise ValueError("a replay needs at least 2 snapshots (the start and the end)")
    return sorted({round(i * total_steps / (count - 1)) for i in range(count)})


@dataclass(frozen=True)
class Snapshot:
    step: int
    loss: float | None  # the training loss of that step (None for step 0: nothing trained yet)
    accuracy: float | None  # the training batch's token accuracy


@dataclass
class Recorder:
    """Collects snapshots during a run and writes the replay file."""

    path: Path
    steps: list[int]
    snapshots: list[Snapshot] = field(default_factory=list)
    weights: list[dict[str, torch.Tensor]] = field(default_factory=list)

    def wants(self, step: int) -> bool:
        return step in self.steps and all(s.step != step for s in self.snapshots)

    def take(self, model: Transformer, step: int, loss: float | None, accuracy: float | None) -> None:
        self.snapshots.append(Snapshot(step, loss, accuracy))
        self.weights.append(
            {
                name: t.detach().to("cpu", torch.float16).contiguous()
                for name, t in stored_tensors(model).items()
            }
        )

    def resume_from(self, replay: Replay) -> None:
        """Snapshots an interrupted run took before (``--resume``)."""
        for index, snapshot in enumerate(replay.snapshots):
            if snapshot.step in self.steps:
                self.snapshots.append(snapshot)
                self.weights.append(replay.tensors[index])

    def write(self, model: Transformer, tokenizer: CharTokenizer, info: dict) -> None:
        tensors = {
            f"{index}/{name}": tensor
            for index, weights in enumerate(self.weights)
            for name, tensor in weights.items()
        }
        header = {
            "format_version": FORMAT_VERSION,
            "kind": KIND,
            "config": model.config.to_dict(),
            "vocabulary": tokenizer.tokens,
            "info": info,
            "snapshots": [{"step": s.step, "loss": s.loss, "accuracy": s.accuracy} for s in self.snapshots],
        }
        write_checkpoint(self.path, tensors, header)


@dataclass(frozen=True)
class Replay:
    path: Path
    header: dict
    tokenizer: CharTokenizer
    info: dict
    snapshots: list[Snapshot]
    tensors: list[dict[str, torch.Tensor]]  # per snapshot, by parameter name (float16 as stored)

    @property
    def steps(self) -> np.ndarray:
        return np.array([s.step for s in self.snapshots])

    def curve(self, name: str) -> np.ndarray:
        """[snapshots] the loss or accuracy of each snapshot's step (NaN where none)."""
        return np.array([np.nan if getattr(s, name) is None else getattr(s, name) for s in self.snapshots])

    def family(self, index: int, device: str = "cpu") -> TransformerFamily:
        """Snapshot ``index`` as a model the app opens (checked by one forward pass)."""
        if not 0 <= index < len(self.snapshots):
            raise ValueError(f"snapshot {index} of {len(self.snapshots)}")
        config, tokenizer, _info = parse_header(self.header)
        torch_device, notice = resolve_device(device)
        info = {**self.info, "replay_snapshot": index, "steps_done": self.snapshots[index].step}
        return build(
            self.path, empty_model(config), tokenizer, info, self.tensors[index], torch_device, notice
        )

    def write_checkpoint(self, index: int, path: Path) -> None:
        """Snapshot ``index`` written as a checkpoint file, for the rest of the app to open."""
        family = self.family(index)
        save_checkpoint(path, family.model, family.tokenizer, family.metadata)


def open_last_snapshot(path: str | Path, device: str = "auto") -> TransformerFamily:
    """A replay opened as a model: its last snapshot (the Train page shows the others)."""
    replay = read_replay(path)
    return replay.family(len(replay.snapshots) - 1, device)


def read_replay(path: str | Path) -> Replay:
    """Read and validate a replay file; any problem raises ``CheckpointError`` in one line."""
    path = Path(path)
    header, tensors = parse_safetensors(read_file(path))
    if not isinstance(header, dict) or header.get("kind") != KIND:
        raise CheckpointError(f'{path.name} is not a replay (its metadata has no "kind": "replay")')
    config, tokenizer, info = parse_header(header)
    snapshots = parse_snapshots(header.get("snapshots"))
    expected = stored_tensors(empty_model(config))
    per_snapshot: list[dict[str, torch.Tensor]] = [{} for _ in snapshots]
    for name, tensor in tensors.items():
        index, _, parameter = name.partition("/")
        if not index.isdigit() or int(index) >= len(snapshots) or str(int(index)) != index:
            raise CheckpointError(
                f"unexpected tensor {name!r}: not '<snapshot>/<parameter>' of {len(snapshots)}"
            )
        per_snapshot[int(index)][parameter] = tensor
    for index, weights in enumerate(per_snapshot):
        try:
            check_tensors(weights, expected)
        except CheckpointError as error:
            raise CheckpointError(f"snapshot {index}: {error}") from error
    return Replay(path, header, tokenizer, info, snapshots, per_snapshot)


def parse_snapshots(entries: object) -> list[Snapshot]:
    if not isinstance(entries, list) or not entries:
        raise CheckpointError("snapshots is missing or not a non-empty list")
    if len(entries) > MAX_SNAPSHOTS:
        raise CheckpointError(f"{len(entries)} snapshots; a replay holds at most {MAX_SNAPSHOTS}")
    snapshots = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise CheckpointError(f"snapshot {index} is not a JSON object")
        step = entry.get("step")
        if isinstance(step, bool) or not isinstance(step, int) or step < 0:
            raise CheckpointError(f"snapshot {index}: step {step!r} is not a whole number of steps")
        if snapshots and step <= snapshots[-1].step:
            raise CheckpointError(
                f"snapshot {index}: step {step} does not come after step {snapshots[-1].step}"
            )
        values = []
        for name in ("loss", "accuracy"):
            value = entry.get(name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
                raise CheckpointError(f"snapshot {index}: {name} {value!r} is not a number")
            if value is not None and not math.isfinite(value):
                raise CheckpointError(f"snapshot {index}: {name} is not finite")
            values.append(None if value is None else float(value))
        snapshots.append(Snapshot(step, *values))
    return snapshots
