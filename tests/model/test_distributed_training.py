"""``attnviz train`` under ``torchrun``: two processes on CPU (gloo) give the parameters of one
process with the same global batch, only rank 0 writes, and ``--resume`` works."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from model.tasks.train import load_trained
from tests.waits import PROCESS_S
from visualizer.cli.attnviz import main

TORCHRUN = Path(sys.executable).with_name("torchrun")


def torchrun(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}
    command = [str(TORCHRUN), "--standalone", "--nproc_per_node", "2", "-m", "visualizer", "train", *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=PROCESS_S)


def parameters(path: Path) -> dict[str, torch.Tensor]:
    return {name: value.detach().double() for name, value in load_trained(path)[0].state_dict().items()}


def parameters_at_start() -> dict[str, torch.Tensor]:
    from model.tasks.train import RECIPES, build_model, default_tokenizer

    recipe = RECIPES["tiny"]
    torch.manual_seed(recipe.seed)
    tokenizer = default_tokenizer()
    model = build_model(recipe.model_config(len(tokenizer)), tokenizer)
    return {name: value.detach().double() for name, value in model.state_dict().items()}


def key_bias_gradient() -> float:
    """The largest gradient of a key projection's bias on the first batch (exactly zero in exact
    arithmetic)."""
    from model.tasks.train import (
        RECIPES,
        accumulate_gradients,
        batch_rng,
        build_model,
        default_tokenizer,
        draw_training_examples,
    )

    recipe = RECIPES["tiny"]
    torch.manual_seed(recipe.seed)
    tokenizer = default_tokenizer()
    model = build_model(recipe.model_config(len(tokenizer)), tokenizer)
    examples = draw_training_examples(recipe, batch_rng(recipe.seed, 0))
    accumulate_gradients(model, tokenizer, examples, recipe, torch.device("cpu"))
    return max(
        float(p.grad.abs().max()) for name, p in model.named_parameters() if name.endswith("k_proj.bias")
    )


@pytest.mark.slow
def test_two_processes_equal_one_process_with_the_same_global_batch(tmp_path):
    single = tmp_path / "single.safetensors"
    assert main(["train", "--config", "tiny", "--steps", "4", "--out", str(single)]) == 0
    ddp = tmp_path / "ddp.safetensors"
    root = Path(__file__).resolve().parents[2]
    # interrupted after 2 steps, then resumed: as an unbroken run
    first = torchrun("--config", "tiny", "--steps", "4", "--stop-after", "2", "--out", str(ddp), cwd=root)
    assert first.returncode == 0, first.stderr[-3000:]
    assert "training on 2 processes, 8 examples each per step" in first.stderr
    assert first.stderr.count("stopped after step 2") == 1  # rank 0 alone logs
    second = torchrun("--config", "tiny", "--steps", "4", "--resume", "--out", str(ddp), cwd=root)
    assert second.returncode == 0, second.stderr[-3000:]
    assert second.stdout.count("wrote ") == 1
    one, two = parameters(single), parameters(ddp)
    assert one.keys() == two.keys()
    # The key projections' biases are left out: a bias on the keys adds the same q·b to every
    # score of a row, which the softmax ignores, so their exact gradient is zero and what the
    # pass computes for them is rounding noise (~1e-9, checked below), which AdamW turns into
    # steps of the learning rate's size and random sign. Any two runs that add in a different
    # order part there; every other parameter must agree.
    noise_only = {name for name in one if name.endswith("k_proj.bias")}
    assert len(noise_only) == 3
    differences = {name: float((one[name] - two[name]).abs().max()) for name in one if name not in noise_only}
    assert max(differences.values()) < 1e-5, differences
    # training moved them: the comparison is not of two untouched models
    untouched = parameters_at_start()
    assert max(float((one[name] - untouched[name]).abs().max()) for name in one) > 1e-3
    assert load_trained(ddp)[1]["steps_done"] == 4
    assert key_bias_gradient() < 1e-6
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == sorted(
        [
            "single.safetensors",
            "single.safetensors.trainstate.pt",
            "ddp.safetensors",
            "ddp.safetensors.trainstate.pt",
        ]
    )


def test_a_batch_that_does_not_split_evenly_is_refused(monkeypatch, tmp_path):
    from dataclasses import replace

    from model.tasks.train import RECIPES, train

    monkeypatch.setenv("WORLD_SIZE", "3")
    monkeypatch.setenv("RANK", "0")
    with pytest.raises(ValueError, match="does not split evenly over 3 processes"):
        train(replace(RECIPES["tiny"], batch_size=16), tmp_path / "x.safetensors")
