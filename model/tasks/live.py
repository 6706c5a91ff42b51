"""A training run the Train page watches: a separate process, steered on stdin, heard on stdout.

``python -m model.tasks.live --out DIR [--preset tiny] [--tasks reverse] ...`` trains as
``model.tasks.train`` does (the same batches, loss and optimiser) and speaks one JSON object
per line on stdout:

=============  ==============================================================================
``started``    ``steps``, ``parameters``, ``threads``, ``recipe`` (the run's settings)
``step``       after every step: ``step``, ``loss``, ``accuracy`` (tokens), ``exact`` (the
               batch's rows that greedy decoding would write whole), ``lr``, ``rate`` (steps/s)
``snapshot``   step 0, every ``--snapshot-every`` steps and the last: ``step``, ``path`` (a
               checkpoint file the app opens), ``loss``, ``exact``, ``held_out`` (held-out
               exact match), ``index``
``paused``     ``resumed``
``finished``   ``step``, ``stopped`` (asked to stop early), ``checkpoint``, ``replay`` (a replay
               file of every snapshot, Transformers only), ``seconds`` (training, not paused)
``error``      ``message``: the run failed (the process then exits with status 1)
=============  ==============================================================================

Commands, one per line on stdin: ``pause``, ``resume``, ``stop``. The end of stdin (the window
went away) stops the run too, so a training process never outlives its window.

Exact match is measured teacher-forced: greedy decoding writes a reference exactly when at every
position the model's most likely token is the reference's, ``<eos>`` included, so one forward
pass over a batch answers it for every row.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import threading
import time
import traceback
from dataclasses import asdict, replace
from pathlib import Path

import torch

from model.core.batching import training_batch
from model.tasks.recipes import RECIPES, TrainRecipe
from model.tasks.replay import Recorder, replay_path
from model.tasks.synthetic import MAX_INPUT_LEN, TASK_NAMES
from model.tasks.train import (
    build_model,
    default_tokenizer,
    draw_training_examples,
    save_model,
    train_step,
    training_info,
)
from model.tasks.user_data import UserData, load_user_data

# the page's size presets, by family: recipe names of model.tasks.recipes
PRESETS = {
    "transformer": {"tiny": "live-tiny", "small": "live-small", "shipped": "default"},
    "rnn": {"tiny": "live-rnn-tiny", "small": "live-rnn-small", "shipped": "rnn-additive"},
}
HELD_OUT = 200  # held-out pairs measured at every snapshot
HELD_OUT_SEED = 10_000_019  # apart from every training batch's seed (batch_rng)


def emit(event: str, **fields) -> None:
    print(json.dumps({"event": event, **fields}), flush=True)


class Control:
    """The commands read from stdin by a thread of their own; the training loop asks."""

    def __init__(self, stream=None) -> None:
        self.paused = threading.Event()
        self.stopped = threading.Event()
        self.changed = threading.Event()
        self.stream = stream
        if stream is not None:
            threading.Thread(target=self.listen, daemon=True).start()

    def listen(self) -> None:
        for line in self.stream:
            self.command(line.strip())
        self.command("stop")  # no one is left to steer the run

    def command(self, word: str) -> None:
        if word == "pause":
            self.paused.set()
        elif word == "resume":
            self.paused.clear()
        elif word == "stop":
            self.stopped.set()
        self.changed.set()

    def wait_while_paused(self) -> float:
        """Block while paused (until resumed or stopped); the seconds spent waiting."""
        if not self.paused.is_set() or self.stopped.is_set():
            return 0.0
        began = time.perf_counter()
        emit("paused")
        while self.paused.is_set() and not self.stopped.is_set():
            self.changed.wait(0.5)
            self.changed.clear()
        if not self.stopped.is_set():
            emit("resumed")
        return time.perf_counter() - began


def live_recipe(
    family: str,
    preset: str,
    tasks: tuple[str, ...] | None,
    steps: int | None,
    seed: int,
    lengths: str | None = None,
) -> tuple[str, TrainRecipe]:
    """The recipe of a preset, with the chosen tasks (each keeping the recipe's weight) and
    reverse/sort input lengths (``"MIN,MAX"``, or ``"full"`` for the tasks' own 1-48)."""
    if family not in PRESETS:
        raise ValueError(f"unknown family {family!r}: choose {', '.join(PRESETS)}")
    if preset not in PRESETS[family]:
        raise ValueError(f"unknown preset {preset!r}: choose {', '.join(PRESETS[family])}")
    name = PRESETS[family][preset]
    recipe = replace(RECIPES[name], seed=seed)
    if tasks:
        unknown = [task for task in tasks if task not in TASK_NAMES]
        if unknown:
            raise ValueError(f"unknown task {unknown[0]!r}: choose from {', '.join(TASK_NAMES)}")
        weights = dict(zip(TASK_NAMES, (1.2, 1.0, 0.7, 0.15), strict=True))
        weights.update(zip(recipe.tasks, recipe.task_weights, strict=True))
        recipe = replace(recipe, tasks=tuple(tasks), task_weights=tuple(weights[t] for t in tasks))
    if lengths == "full":
        recipe = replace(recipe, min_length=None, max_length=None)
    elif lengths:
        recipe = replace(
            recipe, **dict(zip(("min_length", "max_length"), parse_lengths(lengths), strict=True))
        )
    if steps is not None:
        if steps < 1:
            raise ValueError("a run needs at least one step")
        recipe = replace(recipe, steps=steps, warmup_steps=min(recipe.warmup_steps, max(1, steps // 10)))
    return name, recipe


def parse_lengths(text: str) -> tuple[int, int]:
    try:
        low, high = (int(part) for part in text.split(","))
    except ValueError:
        raise ValueError(f"lengths {text!r}: give MIN,MAX (for example 3,10) or full") from None
    if not 1 <= low <= high <= MAX_INPUT_LEN:
        raise ValueError(f"lengths {low},{high}: they must lie within 1..{MAX_INPUT_LEN}, MIN first")
    return low, high


def held_out_pairs(recipe: TrainRecipe, data: UserData | None) -> list[tuple[str, str]]:
    if data is not None:
        return data.held_out[:HELD_OUT]
    examples = draw_training_examples(replace(recipe, batch_size=HELD_OUT), random.Random(HELD_OUT_SEED))
    return [(e.source, e.target) for e in examples]


@torch.no_grad()
def exact_match(model, tokenizer, pairs: list[tuple[str, str]], device, batch: int = 100) -> float:
    """The share of ``pairs`` greedy decoding would write exactly (teacher-forced, see above)."""
    if not pairs:
        return math.nan
    was_training = model.training
    model.eval()
    right = 0
    for start in range(0, len(pairs), batch):
        part = pairs[start : start + batch]
        b = training_batch(tokenizer, [s for s, _ in part], [t for _, t in part], device)
        logits = model(b.src, b.tgt_in, b.src_pad, b.tgt_pad)  # (B, T, V)
        padding = b.tgt_out == tokenizer.pad_id
        right += int(((logits.argmax(-1) == b.tgt_out) | padding).all(1).sum())
    model.train(was_training)
    return right / len(pairs)


def run(
    recipe: TrainRecipe,
    recipe_name: str,
    out: Path,
    *,
    snapshot_every: int,
    data: UserData | None = None,
    control: Control | None = None,
) -> None:
    """Train ``recipe``, writing snapshots and the final checkpoint in the folder ``out``."""
    control = control or Control()
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(recipe.seed)
    tokenizer = data.tokenizer() if data is not None else default_tokenizer()
    model = build_model(recipe.model_config(len(tokenizer)), tokenizer)
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=recipe.peak_lr, betas=(0.9, 0.98), weight_decay=recipe.weight_decay
    )
    held_out = held_out_pairs(recipe, data)
    checkpoint = out / "model.safetensors"
    recorder = Recorder(replay_path(checkpoint), []) if recipe.family == "transformer" else None
    emit(
        "started",
        steps=recipe.steps,
        parameters=sum(p.numel() for p in model.parameters()),
        threads=torch.get_num_threads(),
        recipe={"name": recipe_name, **asdict(recipe)},
        held_out=len(held_out),
    )
    history: list[dict] = []
    seconds, paused = 0.0, 0.0
    began = time.perf_counter()

    def snapshot(step: int, loss: float | None, accuracy: float | None, exact: float | None) -> None:
        held = exact_match(model, tokenizer, held_out, "cpu")
        info = training_info(recipe, recipe_name, step, seconds, history, None, None, data)
        path = out / f"snapshot-{step:06d}.safetensors"
        save_model(path, model, tokenizer, info)
        if recorder is not None:
            recorder.take(model, step, loss, accuracy)
        history.append({"step": step, "loss": loss, "held_out": held})
        emit(
            "snapshot",
            step=step,
            path=str(path),
            loss=loss,
            accuracy=accuracy,
            exact=exact,
            held_out=held,
            index=len(history) - 1,
        )

    snapshot(0, None, None, None)
    model.train()
    done, loss, accuracy, exact = 0, None, None, None
    for step in range(recipe.steps):
        paused += control.wait_while_paused()
        if control.stopped.is_set():
            break
        loss, accuracy, exact = train_step(model, model, optimizer, tokenizer, recipe, step, data, "cpu")
        done = step + 1
        seconds = time.perf_counter() - began - paused
        emit(
            "step",
            step=done,
            loss=loss,
            accuracy=accuracy,
            exact=exact,
            lr=recipe.learning_rate(step),
            rate=done / max(seconds, 1e-9),
            seconds=seconds,
        )
        if done % snapshot_every == 0 and done < recipe.steps:
            snapshot(done, loss, accuracy, exact)
    if not history or history[-1]["step"] != done:
        snapshot(done, loss, accuracy, exact)
    info = training_info(recipe, recipe_name, done, seconds, history, None, None, data)
    save_model(checkpoint, model, tokenizer, info)
    if recorder is not None:
        recorder.write(model, tokenizer, info)
    emit(
        "finished",
        step=done,
        stopped=done < recipe.steps,
        checkpoint=str(checkpoint),
        replay=str(recorder.path) if recorder is not None else None,
        seconds=seconds,
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m model.tasks.live", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the folder for snapshots and the model")
    parser.add_argument("--family", default="transformer", choices=tuple(PRESETS))
    parser.add_argument("--preset", default="tiny", choices=("tiny", "small", "shipped"))
    parser.add_argument("--tasks", help="comma-separated shipped tasks (default: the preset's)")
    parser.add_argument("--data", type=Path, help="train on these source<TAB>target pairs instead")
    parser.add_argument("--val", type=Path, help="with --data: the held-out pairs")
    parser.add_argument("--steps", type=int, help="override the preset's number of steps")
    parser.add_argument(
        "--lengths", help="reverse/sort input lengths MIN,MAX or full (default: the preset's)"
    )
    parser.add_argument("--snapshot-every", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, help="torch threads (default: every core)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        torch.set_num_threads(args.threads or os.cpu_count() or 1)
        tasks = tuple(t.strip() for t in args.tasks.split(",") if t.strip()) if args.tasks else None
        name, recipe = live_recipe(args.family, args.preset, tasks, args.steps, args.seed, args.lengths)
        if args.snapshot_every < 1:
            raise ValueError("--snapshot-every must be at least 1")
        data = None
        if args.data is not None:
            data, reports = load_user_data(args.data, recipe.max_len, args.val, seed=args.seed)
            for report in reports:
                if report:
                    print(report, file=sys.stderr, flush=True)
        run(recipe, name, args.out, snapshot_every=args.snapshot_every, data=data, control=Control(sys.stdin))
    except Exception as error:  # the window shows it; the traceback goes to stderr for a bug report
        traceback.print_exc()
        message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        emit("error", message=message)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
