"""The training recipes: the model's size, the tasks and their mix, the schedule, by name.

``attnviz train --config NAME`` picks one (``RECIPES``); the command line's options override
single fields (``recipe_from_args``). ``model/tasks/train.py`` runs them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from model.rnn.config import RNNConfig
from model.tasks.synthetic import TASK_NAMES
from model.transformer.config import TransformerConfig


@dataclass(frozen=True)
class TrainRecipe:
    d_model: int = 128
    n_heads: int = 4
    n_encoder_layers: int = 3
    n_decoder_layers: int = 3
    d_ff: int = 256  # 512 costs 36 % more time a step here for no gain on these tasks
    max_len: int = 64
    norm_placement: str = "post"
    positional: str = "sinusoidal"
    dropout: float = 0.0  # the data is endless and fresh, so there is nothing to overfit
    tasks: tuple[str, ...] = TASK_NAMES
    task_weights: tuple[float, ...] = (1.2, 1.0, 0.7, 0.15)
    long_bias: float = 0.3  # share of reverse/sort inputs drawn from the long half (24-48)
    # reverse/sort inputs of min_length..max_length characters only (None: the tasks' own 1-48,
    # with long_bias); the live Train page's small presets learn short inputs in minutes
    min_length: int | None = None
    max_length: int | None = None
    steps: int = 8000
    batch_size: int = 128
    peak_lr: float = 1.5e-3
    warmup_steps: int = 500
    final_lr_fraction: float = 0.02  # cosine decay down to this share of the peak
    label_smoothing: float = 0.0
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    seed: int = 0
    eval_every: int = 1000
    eval_n: int = 100  # per task, during training
    final_eval_n: int = 1000  # per task, at the end
    checkpoint_every: int = 500
    length_groups: int = 4  # forward passes per batch, each over examples of similar length
    # pick: and ambiguous dates trained on every answer at once, each weighted by its data
    # probability (the expected loss), instead of on one answer drawn at random: the same
    # optimum without the sampling noise that a high learning rate turns into miscalibration
    expected_answers: bool = False
    # the share of reverse: input characters replaced by characters outside the vocabulary, which
    # the model reads as <unk> and must write back as <unk> in the mirrored place (the rare-word
    # lesson: the app then copies the character its cross-attention points at)
    unknown_rate: float = 0.0
    # the family trained: "transformer" (the fields above) or "rnn" (these, model/rnn/)
    family: str = "transformer"
    rnn_score: str = "additive"  # none, additive, dot, scaled_dot
    rnn_embed_dim: int = 64
    rnn_encoder_hidden: int = 128  # per direction
    rnn_decoder_hidden: int = 256
    rnn_attention_dim: int = 128

    def model_config(self, vocab_size: int) -> TransformerConfig | RNNConfig:
        if self.family == "rnn":
            return RNNConfig(
                vocab_size=vocab_size,
                score=self.rnn_score,  # type: ignore[arg-type]
                embed_dim=self.rnn_embed_dim,
                encoder_hidden=self.rnn_encoder_hidden,
                decoder_hidden=self.rnn_decoder_hidden,
                attention_dim=self.rnn_attention_dim,
                max_len=self.max_len,
            )
        if self.family != "transformer":
            raise ValueError(f"unknown family {self.family!r}: choose transformer or rnn")
        return TransformerConfig(
            vocab_size=vocab_size,
            d_model=self.d_model,
            n_heads=self.n_heads,
            n_encoder_layers=self.n_encoder_layers,
            n_decoder_layers=self.n_decoder_layers,
            d_ff=self.d_ff,
            dropout=self.dropout,
            max_len=self.max_len,
            norm_placement=self.norm_placement,  # type: ignore[arg-type]
            positional=self.positional,  # type: ignore[arg-type]
        )

    def learning_rate(self, step: int) -> float:
        if step < self.warmup_steps:
            return self.peak_lr * (step + 1) / self.warmup_steps
        progress = min(1.0, (step - self.warmup_steps) / max(1, self.steps - self.warmup_steps))
        cosine = 0.5 * (1 + math.cos(math.pi * progress))
        return self.peak_lr * (self.final_lr_fraction + (1 - self.final_lr_fraction) * cosine)


# a seconds-long run, for tests and smoke checks
TINY_RUN = {
    "steps": 30,
    "batch_size": 16,
    "warmup_steps": 5,
    "eval_every": 15,
    "eval_n": 5,
    "final_eval_n": 10,
    "checkpoint_every": 10,
}
# batch 64 in two length groups (four groups of 16 rows make the decoder's step-by-step loop run
# longer over matrices too small to be fast)
RNN_RUN = {
    "family": "rnn",
    "batch_size": 64,
    "length_groups": 2,
    "peak_lr": 2e-3,
    "warmup_steps": 200,
    "eval_every": 400,
    "checkpoint_every": 200,
}
# steps per RNN recipe, as many as fit the 30-minute budget measured alone with torch's two
# threads: none 1.89 steps/s (2,400 ≈ 21 min); scaled dot-product 1.40 (2,400 ≈ 28.6 + 1 min);
# additive, the slowest step (its tanh over every source position): 2,400 steps at the common
# settings took about 33 minutes, so 2,200 steps at a higher peak learning rate with a shorter
# warm-up (below): reverse 99.1 %, dates 99.8 % on 1,000 fresh examples, but timed alone on
# 2026-12-01 at 32.8 minutes (1.14 steps/s; 1.23-1.27 on 2026-11-30): still over the budget
RNN_STEPS = {"additive": 2200, "none": 2400, "dot": 2400, "scaled_dot": 2400}
RNN_SETTINGS = {"additive": {"peak_lr": 3e-3, "warmup_steps": 100}}

# the second stage of the shipped model: from `default`'s weights (--init), at a lower learning
# rate on the expected loss, which calibrates pick: and the dates, with sort (the task whose long
# inputs and repeated Chinese characters the first stage left at 99 %) weighted up and long
# inputs drawn more often
CALIBRATE = TrainRecipe(
    steps=1200,
    peak_lr=3e-4,
    warmup_steps=100,
    final_lr_fraction=0.02,
    task_weights=(0.8, 1.6, 0.5, 0.15),
    long_bias=0.45,
    expected_answers=True,
    eval_every=400,
    checkpoint_every=200,
)

RECIPES: dict[str, TrainRecipe] = {
    # the shipped model: d_model 128, 4 heads, 3 + 3 layers, post-LN, sinusoidal positions
    "default": TrainRecipe(),
    "calibrate": CALIBRATE,
    # the third stage of the shipped model (the rare-word lesson): from `calibrate`'s weights,
    # 4 % of reverse: input characters become unknown (<unk>); calibrate's low learning rate and
    # expected loss, so that the other tasks stay where they were; a seed of its own, so that
    # its batches are new
    "unknowns": replace(
        CALIBRATE,
        steps=1000,
        task_weights=(1.2, 1.4, 0.5, 0.15),
        unknown_rate=0.04,
        seed=3,
        eval_every=250,
        checkpoint_every=100,
    ),
    # the RNN encoder-decoders (issue 14): the same tasks, characters and data, one recipe per
    # score function; batch 64 and the sizes of the trial (bidirectional GRU 2 × 128,
    # decoder 256, embeddings 64); each as many steps as fit the 30-minute budget alone
    **{
        f"rnn-{score.replace('_', '-')}": TrainRecipe(
            **{**RNN_RUN, **RNN_SETTINGS.get(score, {})}, steps=steps, rnn_score=score
        )
        for score, steps in RNN_STEPS.items()
    },
    # a seconds-long RNN run for tests
    "rnn-tiny": TrainRecipe(
        family="rnn",
        rnn_embed_dim=8,
        rnn_encoder_hidden=8,
        rnn_decoder_hidden=16,
        rnn_attention_dim=8,
        **TINY_RUN,
    ),
    "tiny": TrainRecipe(
        d_model=32,
        n_heads=2,
        n_encoder_layers=1,
        n_decoder_layers=1,
        d_ff=64,
        **TINY_RUN,
    ),
}


# The live Train page's presets (model/tasks/live.py): short inputs of reverse:, a model small
# enough to learn them in a minute or two on two cores. The tiny Transformer (2 + 2 layers,
# d_model 64) measured alone on this 2-core machine: held-out exact match 96 % at step 1,400
# (33 s), 99 % at 1,500 (35 s); a peak of 3e-3 was as fast but its accuracy jumped back and forth.
LIVE_REVERSE = {"tasks": ("reverse",), "task_weights": (1.0,), "min_length": 3, "max_length": 10}
LIVE_RUN = {"length_groups": 1, "final_lr_fraction": 0.1, "eval_every": 10**9, "checkpoint_every": 10**9}
LIVE_TINY = TrainRecipe(
    d_model=64,
    n_heads=4,
    n_encoder_layers=2,
    n_decoder_layers=2,
    d_ff=256,
    batch_size=64,
    peak_lr=2e-3,
    warmup_steps=100,
    steps=3000,
    **LIVE_REVERSE,
    **LIVE_RUN,
)
RECIPES.update(
    {
        "live-tiny": LIVE_TINY,
        "live-small": replace(
            LIVE_TINY,
            d_model=128,
            n_encoder_layers=3,
            n_decoder_layers=3,
            peak_lr=1.5e-3,
            warmup_steps=200,
            steps=4000,
            max_length=24,
        ),
        "live-rnn-tiny": TrainRecipe(
            family="rnn",
            rnn_embed_dim=32,
            rnn_encoder_hidden=64,
            rnn_decoder_hidden=128,
            rnn_attention_dim=64,
            batch_size=64,
            peak_lr=3e-3,
            warmup_steps=100,
            steps=3000,
            **LIVE_REVERSE,
            **LIVE_RUN,
        ),
        "live-rnn-small": replace(RECIPES["rnn-additive"], **{**LIVE_REVERSE, "max_length": 24}, steps=3000),
    }
)


def recipe_from_args(name: str, overrides: dict) -> TrainRecipe:
    if name not in RECIPES:
        raise ValueError(f"unknown training config {name!r}: choose {', '.join(RECIPES)}")
    return replace(RECIPES[name], **{k: v for k, v in overrides.items() if v is not None})
