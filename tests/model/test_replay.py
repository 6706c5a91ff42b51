"""Replays (``attnviz train --snapshots N``): evenly spaced float16 snapshots of a run in one
file, read back with the checkpoint's validation; hostile replay files are refused in one line."""

from __future__ import annotations

import json
import math

import pytest
import torch
from safetensors.torch import load as load_safetensors_bytes
from safetensors.torch import save as save_safetensors_bytes

from model.core.errors import CheckpointError
from model.tasks.replay import read_replay, replay_path, snapshot_steps
from model.tasks.train import RECIPES, build_model, default_tokenizer, load_trained
from visualizer.cli.attnviz import main


def test_snapshot_steps_are_evenly_spaced_from_the_start_to_the_end():
    assert snapshot_steps(20, 5) == [0, 5, 10, 15, 20]
    assert snapshot_steps(10, 4) == [0, 3, 7, 10]
    assert snapshot_steps(3, 10) == [0, 1, 2, 3]  # never more snapshots than steps + 1
    with pytest.raises(ValueError, match="at least 2"):
        snapshot_steps(10, 1)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A 12-step tiny run with 4 snapshots, and the same run interrupted at 5 and resumed."""
    folder = tmp_path_factory.mktemp("replay")
    whole, broken = folder / "whole.safetensors", folder / "broken.safetensors"
    base = ["train", "--config", "tiny", "--steps", "12", "--snapshots", "4"]
    assert main([*base, "--out", str(whole)]) == 0
    assert main([*base, "--out", str(broken), "--stop-after", "5"]) == 0
    assert main([*base, "--out", str(broken), "--resume"]) == 0
    return whole, broken


def test_the_replay_holds_the_runs_weights_at_each_snapshot(run):
    whole, _ = run
    replay = read_replay(replay_path(whole))
    assert list(replay.steps) == [0, 4, 8, 12]
    recipe = RECIPES["tiny"]
    torch.manual_seed(recipe.seed)  # as training starts: the untrained model is snapshot 0
    tokenizer = default_tokenizer()
    untrained = build_model(recipe.model_config(len(tokenizer)), tokenizer)
    for name, value in untrained.state_dict().items():
        if name in replay.tensors[0]:
            assert torch.equal(replay.tensors[0][name], value.to(torch.float16)), name
    final, _info = load_trained(whole)
    for name, value in final.state_dict().items():
        if name in replay.tensors[-1]:
            assert torch.equal(replay.tensors[-1][name], value.to(torch.float16)), name
    assert replay.snapshots[0].loss is None and math.isnan(replay.curve("loss")[0])
    assert all(0 < s.loss < 10 and 0 <= s.accuracy <= 1 for s in replay.snapshots[1:])
    assert all(t.dtype == torch.float16 for t in replay.tensors[2].values())
    model = replay.family(1)  # a snapshot opens as a model that runs
    assert model.metadata["steps_done"] == 4
    with pytest.raises(ValueError, match="snapshot 4 of 4"):
        replay.family(4)


def test_an_interrupted_and_resumed_run_keeps_the_same_snapshots(run):
    whole, broken = run
    one, two = read_replay(replay_path(whole)), read_replay(replay_path(broken))
    assert list(one.steps) == list(two.steps)
    for first, second in zip(one.tensors, two.tensors, strict=True):
        assert first.keys() == second.keys()
        assert all(torch.equal(first[name], second[name]) for name in first)


def test_an_existing_replay_is_not_replaced_without_overwrite(run, capsys):
    whole, _ = run
    other = whole.with_name("other.safetensors")
    replay_path(other).write_bytes(b"keep me")
    assert main(["train", "--config", "tiny", "--steps", "2", "--snapshots", "2", "--out", str(other)]) == 2
    assert "already exists" in capsys.readouterr().err and replay_path(other).read_bytes() == b"keep me"
    assert main(["train", "--config", "tiny", "--steps", "2", "--snapshots", "1", "--out", str(other)]) == 2


# -- hostile replay files ---------------------------------------------------------------------


def edited(valid: bytes, header_edit=None, tensors_edit=None) -> bytes:
    tensors = load_safetensors_bytes(valid)
    length = int.from_bytes(valid[:8], "little")
    metadata = json.loads(valid[8 : 8 + length])["__metadata__"]
    header = json.loads(metadata["attnviz"])
    if header_edit is not None:
        result = header_edit(header)  # a new header, or the same one edited in place
        header = result if isinstance(result, dict) else header
    if tensors_edit is not None:
        result = tensors_edit(tensors)
        tensors = result if isinstance(result, dict) else tensors
    return save_safetensors_bytes(tensors, metadata={"attnviz": json.dumps(header)})


def set_key(key, value):
    return lambda header: {**header, key: value}


def snapshot_field(index, key, value):
    def edit(header):
        header["snapshots"][index][key] = value

    return edit


def drop(name):
    return lambda tensors: {k: v for k, v in tensors.items() if k != name}


def with_tensor(name, make):
    def edit(tensors):
        tensors[name] = make(tensors)

    return edit


HOSTILE = {
    "not a replay": (set_key("kind", "checkpoint"), None, "is not a replay"),
    "no snapshots": (set_key("snapshots", []), None, "snapshots is missing"),
    "snapshots not a list": (set_key("snapshots", {"step": 0}), None, "snapshots is missing"),
    "step goes back": (snapshot_field(2, "step", 1), None, "does not come after"),
    "step is text": (snapshot_field(1, "step", "4"), None, "is not a whole number"),
    "negative step": (snapshot_field(0, "step", -1), None, "is not a whole number"),
    "loss is text": (snapshot_field(1, "loss", "low"), None, "loss 'low' is not a number"),
    "loss infinite": (snapshot_field(1, "loss", 1e999), None, "loss is not finite"),
    "too many snapshots": (set_key("snapshots", [{"step": i} for i in range(1001)]), None, "at most 1000"),
    "config wrong": (lambda h: h["config"].update(d_model=33), None, "d_model"),
    "newer format": (set_key("format_version", 99), None, "newer than this app reads"),
    "vocabulary short": (lambda h: h["vocabulary"].pop(), None, "vocabulary has"),
    "tensor of no snapshot": (
        None,
        with_tensor("9/src_embed.weight", lambda t: t["0/src_embed.weight"].clone()),
        "unexpected tensor '9/",
    ),
    "tensor badly named": (
        None,
        with_tensor("first/src_embed.weight", lambda t: t["0/src_embed.weight"].clone()),
        "unexpected tensor 'first/",
    ),
    "snapshot misses a tensor": (
        None,
        drop("1/src_embed.weight"),
        "snapshot 1: tensor 'src_embed.weight' is missing",
    ),
    "NaN weights": (
        None,
        with_tensor("2/src_embed.weight", lambda t: t["2/src_embed.weight"] * float("nan")),
        "snapshot 2: tensor 'src_embed.weight' holds NaN",
    ),
    "wrong shape": (
        None,
        with_tensor("3/src_embed.weight", lambda t: t["3/src_embed.weight"][:-1]),
        "has shape",
    ),
    "huge weights": (
        None,
        with_tensor("0/src_embed.weight", lambda t: torch.full_like(t["0/src_embed.weight"], 20000.0)),
        "magnitude",
    ),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_replays_are_refused_in_one_line(name, run, tmp_path):
    whole, _ = run
    header_edit, tensors_edit, message = HOSTILE[name]
    bad = tmp_path / "bad.replay.safetensors"
    bad.write_bytes(edited(replay_path(whole).read_bytes(), header_edit, tensors_edit))
    with pytest.raises(CheckpointError, match=message.replace("(", r"\(")) as caught:
        read_replay(bad)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("cut", [0, 7, 100, -10])
def test_truncated_or_absent_replays_are_refused(run, tmp_path, cut):
    whole, _ = run
    data = replay_path(whole).read_bytes()
    bad = tmp_path / "cut.replay.safetensors"
    bad.write_bytes(data[:cut] if cut else b"")
    with pytest.raises(CheckpointError):
        read_replay(bad)
    with pytest.raises(CheckpointError, match="no such file"):
        read_replay(tmp_path / "absent.replay.safetensors")
