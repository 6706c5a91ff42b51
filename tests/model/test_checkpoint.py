import json
import struct

import pytest
import torch

from model.transformer.checkpoint import (
    CheckpointError,
    default_checkpoint_path,
    load_checkpoint,
    resolve_device,
    save_checkpoint,
)
from model.transformer.family import describe
from tests.factories import small_model


def test_save_then_load_round_trips_bit_exactly(tmp_path):
    model, tokenizer = small_model(seed=3)
    path = tmp_path / "m.safetensors"
    save_checkpoint(path, model, tokenizer, {"steps": 5})
    loaded = load_checkpoint(path, "cpu")
    assert loaded.config == model.config
    assert loaded.tokenizer.tokens == tokenizer.tokens
    assert loaded.metadata == {"steps": 5}
    assert loaded.info == describe(model.config) and loaded.path == path and loaded.notice is None
    original, restored = model.state_dict(), loaded.model.state_dict()
    assert original.keys() == restored.keys()
    for name in original:
        assert torch.equal(original[name], restored[name]), name
    assert not loaded.model.training


def rewrite(path, edit_header=None, edit_meta=None, body=None):
    data = path.read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + length])
    meta = json.loads(header["__metadata__"]["attnviz"])
    if edit_meta:
        edit_meta(meta)
    header["__metadata__"]["attnviz"] = json.dumps(meta)
    if edit_header:
        edit_header(header)
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + (body if body is not None else data[8 + length :]))


@pytest.fixture
def saved(tmp_path):
    model, tokenizer = small_model()
    path = tmp_path / "m.safetensors"
    save_checkpoint(path, model, tokenizer)
    return path


def test_future_format_version_is_refused(saved):
    rewrite(saved, edit_meta=lambda m: m.update(format_version=99))
    with pytest.raises(CheckpointError, match="newer than this app reads"):
        load_checkpoint(saved)


def test_vocabulary_that_does_not_match_the_config_is_refused(saved):
    rewrite(saved, edit_meta=lambda m: m["vocabulary"].pop())
    with pytest.raises(CheckpointError, match="vocab_size"):
        load_checkpoint(saved)


def test_config_that_cannot_build_a_model_is_refused(saved):
    rewrite(saved, edit_meta=lambda m: m["config"].update(n_heads=5))
    with pytest.raises(CheckpointError, match="does not divide"):
        load_checkpoint(saved)


def test_wrong_shape_missing_and_extra_tensors_are_named(tmp_path):
    model, tokenizer = small_model()
    state = {k: v for k, v in model.state_dict().items() if k not in ("tgt_embed.weight", "generator.weight")}
    cases = {
        "missing": (
            {k: v for k, v in state.items() if k != "encoder_layers.0.ffn.linear1.bias"},
            "is missing",
        ),
        "extra": ({**state, "bogus": torch.zeros(1)}, "unexpected tensor 'bogus'"),
        "shape": ({**state, "encoder_layers.0.ffn.linear1.bias": torch.zeros(3)}, "has shape"),
        "nan": (
            {
                **state,
                "encoder_layers.0.ffn.linear1.bias": torch.full_like(
                    state["encoder_layers.0.ffn.linear1.bias"], float("nan")
                ),
            },
            "NaN",
        ),
    }
    from safetensors.torch import save_file

    meta = {"format_version": 1, "config": model.config.to_dict(), "vocabulary": tokenizer.tokens}
    for name, (tensors, message) in cases.items():
        path = tmp_path / f"{name}.safetensors"
        save_file(
            {k: v.contiguous() for k, v in tensors.items()}, str(path), metadata={"attnviz": json.dumps(meta)}
        )
        with pytest.raises(CheckpointError, match=message):
            load_checkpoint(path)


def test_truncated_lying_and_empty_files_give_one_line_errors(saved, tmp_path):
    data = saved.read_bytes()
    truncated = tmp_path / "truncated.safetensors"
    truncated.write_bytes(data[: len(data) // 2])
    empty = tmp_path / "empty.safetensors"
    empty.write_bytes(b"")
    garbage = tmp_path / "garbage.safetensors"
    garbage.write_bytes(b"\xff" * 100)
    for path, message in [
        (truncated, "does not fit|runs past"),
        (empty, "empty"),
        (garbage, "runs past|not"),
    ]:
        with pytest.raises(CheckpointError, match=message) as info:
            load_checkpoint(path)
        assert "\n" not in str(info.value)
    with pytest.raises(CheckpointError, match="no such file"):
        load_checkpoint(tmp_path / "absent.safetensors")
    with pytest.raises(CheckpointError, match="directory"):
        load_checkpoint(tmp_path)


def test_lying_offsets_are_refused(saved):
    def lie(header):
        name = next(k for k in header if k != "__metadata__")
        header[name]["data_offsets"] = [0, 10**9]

    rewrite(saved, edit_header=lie)
    with pytest.raises(CheckpointError, match="does not fit"):
        load_checkpoint(saved)


def test_pickle_that_would_run_code_never_runs(tmp_path):
    import pickle

    marker = tmp_path / "ran"

    class Exploit:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    path = tmp_path / "evil.pt"
    path.write_bytes(pickle.dumps({"state_dict": Exploit()}))
    with pytest.raises(CheckpointError, match="weights-only"):
        load_checkpoint(path)
    assert not marker.exists()


def test_weights_only_pt_file_is_accepted(tmp_path):
    model, tokenizer = small_model()
    path = tmp_path / "ok.pt"
    state = {k: v for k, v in model.state_dict().items() if k not in ("tgt_embed.weight", "generator.weight")}
    torch.save(
        {
            "format_version": 1,
            "config": model.config.to_dict(),
            "vocabulary": tokenizer.tokens,
            "state_dict": state,
        },
        path,
    )
    loaded = load_checkpoint(path, "cpu")
    assert torch.equal(loaded.model.src_embed.weight, model.src_embed.weight)


def test_absent_devices_fall_back_to_cpu_with_a_notice(monkeypatch, tiny_checkpoint_path):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    device, notice = resolve_device("cuda")
    assert device.type == "cpu" and "CUDA is not available" in notice
    loaded = load_checkpoint(tiny_checkpoint_path, "cuda")
    assert loaded.device.type == "cpu" and "CUDA" in loaded.notice
    assert resolve_device("auto")[0].type in ("cpu", "mps")
    with pytest.raises(ValueError, match="unknown device"):
        resolve_device("tpu")


def test_default_checkpoint_is_located_from_the_package():
    path = default_checkpoint_path()
    assert path.name == "default.safetensors"
    assert path.parent.name == "assets"


def test_absurd_sizes_are_refused_before_anything_is_allocated(saved):
    rewrite(saved, edit_meta=lambda m: m["config"].update(d_model=8192, d_ff=65536, n_encoder_layers=64))
    with pytest.raises(CheckpointError, match="more than this app loads"):
        load_checkpoint(saved)
    rewrite(saved, edit_meta=lambda m: m["config"].update(d_model=10**9))
    with pytest.raises(CheckpointError, match="d_model"):
        load_checkpoint(saved)
