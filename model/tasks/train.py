"""Training on the synthetic tasks or the user's pairs: resumable, with a held-out evaluation.

Every batch is drawn fresh from ``random.Random(seed, step)``, so a run is reproducible and a
resumed run sees exactly the batches it would have seen. Next to the checkpoint, a
``.trainstate.pt`` file (tensors and numbers only, read with ``weights_only=True``) holds the
optimizer state and step for ``--resume``.
"""

from __future__ import annotations

import gc
import math
import random
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F

from model.core.batching import training_batch
from model.core.tokenizer import CharTokenizer
from model.rnn.checkpoint import read_rnn_checkpoint, save_rnn_checkpoint
from model.rnn.checkpoint import recognises as recognises_rnn
from model.rnn.config import RNNConfig
from model.rnn.model import RNNSeq2Seq
from model.tasks.coverage import TRAINED_ON, trained_on
from model.tasks.distributed import SINGLE, Distributed, finish, from_environment, start
from model.tasks.evaluate import EvalReport, evaluate, evaluate_pairs
from model.tasks.recipes import RECIPES, TrainRecipe, recipe_from_args  # noqa: F401 (where callers look)
from model.tasks.replay import Recorder, read_replay, replay_path, snapshot_steps
from model.tasks.synthetic import (
    MAX_INPUT_LEN,
    TEXT_TASKS,
    Example,
    answers,
    make_example,
    sprinkle_unknowns,
    task_alphabet,
)
from model.tasks.user_data import DATA_TASK, UserData
from model.transformer.checkpoint import load_checkpoint, resolve_device, save_checkpoint
from model.transformer.model import Transformer, TransformerConfig


def default_tokenizer() -> CharTokenizer:
    return CharTokenizer.from_characters(task_alphabet())


def batch_rng(seed: int, step: int) -> random.Random:
    return random.Random(seed * 1_000_003 + step)


def draw_training_examples(recipe: TrainRecipe, rng: random.Random) -> list[Example]:
    """A batch of fresh examples; long inputs are over-drawn since they are the hard ones."""
    examples = []
    for task in rng.choices(recipe.tasks, weights=recipe.task_weights, k=recipe.batch_size):
        length = None
        if task in TEXT_TASKS and recipe.min_length is not None:
            length = rng.randint(recipe.min_length, recipe.max_length or MAX_INPUT_LEN)
        elif task in TEXT_TASKS and rng.random() < recipe.long_bias:
            length = rng.randint(MAX_INPUT_LEN // 2, MAX_INPUT_LEN)
        examples.append(sprinkle_unknowns(make_example(task, rng, length=length), recipe.unknown_rate, rng))
    return examples


def trainstate_path(checkpoint: Path) -> Path:
    return checkpoint.with_name(checkpoint.name + ".trainstate.pt")


@dataclass
class TrainResult:
    checkpoint: Path
    steps: int
    report: EvalReport
    seconds: float
    history: list[dict] = field(default_factory=list)
    main: bool = True  # False in the processes of a torchrun launch other than rank 0


def train(
    recipe: TrainRecipe,
    out: Path,
    *,
    recipe_name: str = "custom",
    device: str = "auto",
    resume: bool = False,
    init: Path | None = None,
    stop_after: int | None = None,
    progress: Callable[[str], None] | None = None,
    data: UserData | None = None,
    snapshots: int | None = None,
) -> TrainResult:
    """Train ``recipe`` and write the checkpoint to ``out``; ``resume`` continues from it.

    ``init`` starts from another checkpoint's weights (fine-tuning); it must have the recipe's
    model config. ``stop_after`` ends the run
    early at that step, checkpointed, as an interruption would; a later ``resume`` finishes it
    exactly as an unbroken run would have. ``data``: train on the user's pairs
    (``model.tasks.user_data``) instead of the recipe's tasks, with a vocabulary built from them,
    and measure exact match on its held-out pairs. ``snapshots``: keep that many evenly spaced
    snapshots of the weights in a replay file beside ``out`` (``model.tasks.replay``).
    """
    place = from_environment()  # several processes under torchrun, or one
    if place.active and recipe.batch_size % place.world:
        raise ValueError(
            f"the batch of {recipe.batch_size} does not split evenly over {place.world} processes"
        )
    say = progress or (lambda line: print(line, file=sys.stderr, flush=True))
    if not place.main:
        say = lambda _line: None  # noqa: E731 (only rank 0 logs)
    torch_device, notice = resolve_device(device)
    if notice:
        say(notice)
    torch_device = start(place, torch_device)
    if place.active:
        say(f"training on {place.world} processes, {recipe.batch_size // place.world} examples each per step")
    torch.manual_seed(recipe.seed)
    tokenizer = data.tokenizer() if data is not None else default_tokenizer()
    model = build_model(recipe.model_config(len(tokenizer)), tokenizer).to(torch_device)
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=recipe.peak_lr, betas=(0.9, 0.98), weight_decay=recipe.weight_decay
    )
    start_step, history, elapsed_before = 0, [], 0.0
    origin = None
    if resume:
        start_step, history, elapsed_before = restore(out, model, optimizer, torch_device)
        origin = load_trained(out)[1].get("initialized_from")
        say(f"resuming from step {start_step} of {recipe.steps}")
    elif init is not None:
        origin = initialise_from(init, model)
        say(f"starting from the weights of {init} ({origin['steps_done']} steps of {origin['recipe_name']})")
    recorder = None
    if snapshots is not None and place.main:
        recorder = replay_recorder(recipe, out, snapshots, resume)
        if recorder.wants(start_step):
            recorder.take(model, start_step, None, None)
    model.train()
    # the module that is stepped: the model itself, or its DistributedDataParallel wrapper (which
    # also gives every process rank 0's weights to start from)
    stepped = torch.nn.parallel.DistributedDataParallel(model) if place.active else model
    started = time.perf_counter()
    bar = ProgressBar(recipe.steps, start_step, say)
    for step in range(start_step, recipe.steps):
        loss, accuracy, _exact = train_step(
            model, stepped, optimizer, tokenizer, recipe, step, data, torch_device, place
        )
        bar.update(step + 1, loss, accuracy, recipe.learning_rate(step))
        done = step + 1
        if place.main:  # the other processes only train
            if recorder is not None and recorder.wants(done):
                recorder.take(model, done, loss, accuracy)
            if done % recipe.eval_every == 0 and done < recipe.steps:
                report = measure(model, tokenizer, recipe, recipe.eval_n, done, data)
                history.append(
                    {"step": done, "loss": loss, **{k: a for k, a, _ in report.rows() if "/" not in k}}
                )
                say(
                    f"step {done}: "
                    + ", ".join(f"{k} {a * 100:.1f}%" for k, a, _ in report.rows() if "/" not in k)
                )
            if done % recipe.checkpoint_every == 0 or done == recipe.steps or done == stop_after:
                elapsed = elapsed_before + time.perf_counter() - started
                info = training_info(recipe, recipe_name, done, elapsed, history, None, origin, data)
                save(out, model, optimizer, tokenizer, info, done, history, elapsed)
                if recorder is not None:
                    recorder.write(model, tokenizer, info)
        if done == stop_after and done < recipe.steps:
            break
    # The DDP wrapper holds the process group: drop it now, so that finish() ends the group while
    # the interpreter is whole. Left to the exit, the group's threads once met a half-torn-down
    # process, and a rank died of SIGABRT ("terminate called without an active exception").
    del stepped
    gc.collect()
    interrupted = stop_after is not None and stop_after < recipe.steps
    if interrupted or not place.main:
        finish(place)
        done = min(stop_after or recipe.steps, recipe.steps)
        if interrupted:
            say(f"stopped after step {done}; continue with --resume")
        seconds = elapsed_before + time.perf_counter() - started
        return TrainResult(out, done, EvalReport(0, 0), seconds, history, main=place.main)
    elapsed = elapsed_before + time.perf_counter() - started
    if data is not None:
        say(f"final evaluation on {min(recipe.final_eval_n, len(data.held_out))} held-out pairs ...")
    else:
        say(f"final evaluation on {recipe.final_eval_n} held-out examples per task ...")
    report = measure(model, tokenizer, recipe, recipe.final_eval_n, 10_000 + recipe.seed, data)
    info = training_info(recipe, recipe_name, recipe.steps, elapsed, history, report, origin, data)
    save(out, model, optimizer, tokenizer, info, recipe.steps, history, elapsed)
    if recorder is not None:
        recorder.write(model, tokenizer, info)
        say(f"wrote {len(recorder.snapshots)} snapshots to {recorder.path}")
    finish(place)
    return TrainResult(out, recipe.steps, report, elapsed, history)


def train_step(
    model: torch.nn.Module,
    stepped: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    tokenizer: CharTokenizer,
    recipe: TrainRecipe,
    step: int,
    data: UserData | None,
    device,
    place: Distributed = SINGLE,
) -> tuple[float, float, float]:
    """One optimiser step on step ``step``'s batch (drawn from its seed, so any run that reaches
    this step sees the same one); ``stepped`` is ``model`` or its DistributedDataParallel
    wrapper. Returns the batch's loss, token accuracy and exact match."""
    for group in optimizer.param_groups:
        group["lr"] = recipe.learning_rate(step)
    rng = batch_rng(recipe.seed, step)
    examples = data.draw(recipe.batch_size, rng) if data is not None else draw_training_examples(recipe, rng)
    optimizer.zero_grad(set_to_none=True)
    numbers = accumulate_gradients(stepped, tokenizer, examples, recipe, device, place)
    torch.nn.utils.clip_grad_norm_(model.parameters(), recipe.grad_clip)
    optimizer.step()
    return numbers


def replay_recorder(recipe: TrainRecipe, out: Path, count: int, resume: bool) -> Recorder:
    """The recorder of ``count`` snapshots; on ``resume``, with those the run took before."""
    if recipe.family != "transformer":
        raise ValueError("replays hold Transformers; this recipe trains an RNN")
    recorder = Recorder(replay_path(out), snapshot_steps(recipe.steps, count))
    if resume and recorder.path.exists():
        recorder.resume_from(read_replay(recorder.path))
    return recorder


def measure(model, tokenizer, recipe: TrainRecipe, n: int, seed: int, data: UserData | None) -> EvalReport:
    """Held-out exact match: n fresh examples per task, or the first n of the user's held-out pairs."""
    if data is not None:
        return evaluate_pairs(model, tokenizer, data.held_out[:n], DATA_TASK)
    return evaluate(model, tokenizer, n, seed=seed, tasks=recipe.tasks)


def length_groups(pairs: list[TrainingPair], groups: int) -> list[list[TrainingPair]]:
    """The batch sorted by length and cut into ``groups`` parts of similar length.

    Padding each part only to its own longest row halves the work of a batch whose lengths
    run from 1 to 48, while the summed gradient is the whole batch's.
    """
    ordered = sorted(pairs, key=lambda pair: (len(pair.source), len(pair.target)))
    size = math.ceil(len(ordered) / max(1, groups))
    return [ordered[i : i + size] for i in range(0, len(ordered), size)]


@dataclass(frozen=True)
class TrainingPair:
    source: str
    target: str
    weight: float = 1.0  # the data's probability of this answer, when every answer is trained


def training_pairs(examples: list[Example], expected_answers: bool) -> list[TrainingPair]:
    """The batch's (source, target) pairs: the drawn answer, or with ``expected_answers`` every
    answer of a source that has several (pick:, an ambiguous date), weighted by its probability."""
    pairs = []
    for example in examples:
        choices = answers(example.source) if expected_answers and example.task in ("pick", "date") else {}
        if len(choices) > 1:
            pairs += [TrainingPair(example.source, answer, p) for answer, p in choices.items()]
        else:
            pairs.append(TrainingPair(example.source, example.target))
    return pairs


def accumulate_gradients(
    model: torch.nn.Module,
    tokenizer: CharTokenizer,
    examples: list[Example],
    recipe: TrainRecipe,
    device,
    place: Distributed = SINGLE,
) -> tuple[float, float, float]:
    """Backpropagate the batch's mean token loss, part by part; returns the whole batch's loss,
    token accuracy and exact match (the share of rows whose every token the model ranks first,
    i.e. that greedy decoding would write whole; weighted as the tokens are). Under torchrun
    ``model`` is the DistributedDataParallel wrapper and this process takes its share of
    ``examples``: the gradients are summed over the processes once, at the last part's
    backward pass (every process cuts its share into as many parts)."""
    parts = []
    pairs = training_pairs(place.shard(examples), recipe.expected_answers)
    for part in length_groups(pairs, recipe.length_groups):
        batch = training_batch(tokenizer, [p.source for p in part], [p.target for p in part], device)
        weights = torch.tensor([p.weight for p in part], device=device)  # (B,)
        parts.append((batch, weights))
    # every token counts with its answer's weight: the mean over the batch's (expected) tokens
    local_tokens = sum(float(((b.tgt_out != tokenizer.pad_id) * w[:, None]).sum()) for b, w in parts)
    n_tokens = place.total(local_tokens)
    n_rows = place.total(sum(float(w.sum()) for _, w in parts))
    total_loss, n_correct, n_exact = 0.0, 0.0, 0.0
    for index, (batch, weights) in enumerate(parts):
        last = index == len(parts) - 1
        synced = nullcontext() if not place.active or last else model.no_sync()
        with synced:
            loss, correct, exact = backward_part(
                model, tokenizer, batch, weights, recipe, n_tokens, place.world
            )
        total_loss += loss
        n_correct += correct
        n_exact += exact
    accuracy = place.total(n_correct) / max(n_tokens, 1e-9)
    return place.total(total_loss), accuracy, place.total(n_exact) / max(n_rows, 1e-9)


def backward_part(
    model: torch.nn.Module,
    tokenizer: CharTokenizer,
    batch,
    weights: torch.Tensor,
    recipe: TrainRecipe,
    n_tokens: float,
    world: int,
) -> tuple[float, float, float]:
    """One part's forward and backward pass: its share of the batch's loss, its correct tokens
    and its exactly right rows (each weighted)."""
    logits = model(batch.src, batch.tgt_in, batch.src_pad, batch.tgt_pad)  # (B, T, V)
    token_loss = F.cross_entropy(
        logits.transpose(1, 2),
        batch.tgt_out,
        ignore_index=tokenizer.pad_id,
        label_smoothing=recipe.label_smoothing,
        reduction="none",
    )  # (B, T), 0 at padding
    loss = (token_loss * weights[:, None]).sum() / n_tokens
    # DistributedDataParallel averages the processes' gradients: × world makes it their sum
    (loss * world).backward()
    real = batch.tgt_out != tokenizer.pad_id
    right = logits.argmax(-1) == batch.tgt_out  # (B, T)
    exact = (right | ~real).all(1)  # (B,)
    return loss.item(), float(((right & real) * weights[:, None]).sum()), float((exact * weights).sum())


def build_model(config: TransformerConfig | RNNConfig, tokenizer: CharTokenizer) -> Transformer | RNNSeq2Seq:
    if isinstance(config, RNNConfig):
        return RNNSeq2Seq(config, tokenizer.pad_id)
    return Transformer(config)


def save_model(out: Path, model: Transformer | RNNSeq2Seq, tokenizer: CharTokenizer, info: dict) -> None:
    if isinstance(model, RNNSeq2Seq):
        save_rnn_checkpoint(out, model, tokenizer, info)
    else:
        save_checkpoint(out, model, tokenizer, info)


def load_trained(path: Path) -> tuple[Transformer | RNNSeq2Seq, dict]:
    """A checkpoint's module and info, of either family (also an RNN without attention, which
    the app cannot open yet but training can resume)."""
    if recognises_rnn(Path(path)):
        model, _tokenizer, info = read_rnn_checkpoint(path)
        return model, info
    family = load_checkpoint(path, "cpu")
    return family.model, family.metadata


def initialise_from(path: Path, model: Transformer | RNNSeq2Seq) -> dict:
    """Copy another checkpoint's weights into ``model``; returns what to record about it."""
    source, metadata = load_trained(path)
    if type(source) is not type(model) or source.config.to_dict() != model.config.to_dict():
        raise ValueError(f"{path} has a different model config than this recipe; cannot start from it")
    model.load_state_dict(source.state_dict())
    return {
        "checkpoint": Path(path).name,
        "recipe_name": metadata.get("recipe_name"),
        "steps_done": metadata.get("steps_done"),
        "train_seconds": metadata.get("train_seconds"),
        "initialized_from": metadata.get("initialized_from"),
    }


def training_info(
    recipe: TrainRecipe,
    name: str,
    steps: int,
    seconds: float,
    history: list,
    report: EvalReport | None,
    origin: dict | None = None,
    data: UserData | None = None,
) -> dict:
    info = {
        "recipe_name": name,
        "recipe": asdict(recipe),
        # what the window warns about when a source is outside it (the user's data: nothing known)
        **(
            {TRAINED_ON: trained_on(recipe.tasks, recipe.unknown_rate)}
            if data is None
            else {"data": data.description()}
        ),
        "steps_done": steps,
        "train_seconds": round(seconds, 1),
        "torch": torch.__version__,
        "history": history,
    }
    if origin is not None:
        info["initialized_from"] = origin
    if report is not None:
        info["eval"] = report.to_dict()
    return info


def save(out: Path, model, optimizer, tokenizer, info, step, history, elapsed) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    save_model(out, model, tokenizer, info)
    state = {"step": step, "optimizer": optimizer.state_dict(), "elapsed": elapsed, "history_json": history}
    torch.save(state, trainstate_path(out))


def restore(out: Path, model, optimizer, device) -> tuple[int, list, float]:
    model.load_state_dict(load_trained(out)[0].state_dict())
    state_file = trainstate_path(out)
    if not state_file.exists():
        raise ValueError(f"cannot resume: {state_file} is missing")
    state = torch.load(state_file, map_location=device, weights_only=True)
    optimizer.load_state_dict(state["optimizer"])
    return int(state["step"]), list(state.get("history_json", [])), float(state.get("elapsed", 0.0))


class ProgressBar:
    """One line, redrawn in place on a terminal; a line every 5 % when logging to a file."""

    def __init__(self, total: int, start: int, say: Callable[[str], None]) -> None:
        self.total, self.start, self.say = total, start, say
        self.began = time.perf_counter()
        self.interactive = sys.stderr.isatty()
        self.every = max(1, total // 20)
        self.smoothed_loss: float | None = None

    def update(self, step: int, loss: float, accuracy: float, lr: float) -> None:
        self.smoothed_loss = loss if self.smoothed_loss is None else 0.95 * self.smoothed_loss + 0.05 * loss
        rate = (step - self.start) / max(time.perf_counter() - self.began, 1e-9)
        eta = (self.total - step) / max(rate, 1e-9)
        filled = int(30 * step / self.total)
        line = (
            f"[{'#' * filled}{'.' * (30 - filled)}] {step}/{self.total} "
            f"loss {self.smoothed_loss:.4f} token acc {accuracy * 100:5.1f}% lr {lr:.2e} "
            f"{rate:.2f} steps/s eta {eta / 60:.0f} min"
        )
        if self.interactive:
            print("\r" + line, end="" if step < self.total else "\n", file=sys.stderr, flush=True)
        elif step % self.every == 0 or step == self.total:
            self.say(line)
