"""Hostile RNN checkpoints: refused in one line, like the Transformer's (same builders), through
the registry that the app and ``attnviz trace`` use; a fuzzer mutates a valid RNN file."""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from model.core.errors import CheckpointError
from model.registry import open_model
from model.rnn.checkpoint import save_rnn_checkpoint
from tests.factories import small_rnn
from tests.model.test_fuzz_checkpoints import (
    FUZZ,
    flipped_weight_bits,
    loads_and_runs_or_refuses,
    overwritten_bytes,
)
from tests.model.test_hostile_checkpoints import config_edit, meta_edit, raw, replaced, tensors_edit
from visualizer.cli.attnviz import main

HIDDEN = "decoder.weight_hh"

CORPUS = {
    "truncated in the data": (raw(lambda d: d[:-100]), "does not fit"),
    "format version from the future": (meta_edit(lambda m: m.update(format_version=99)), "newer"),
    "format version a string": (meta_edit(lambda m: m.update(format_version="1")), "format_version"),
    "config missing": (meta_edit(lambda m: m.pop("config")), "config"),
    "unknown score": (config_edit(score="multiplicative"), "score must be one of"),
    "dot scores with sizes that cannot meet": (config_edit(score="dot", decoder_hidden=32), "decoder_hidden"),
    "encoder_hidden 10**9": (config_edit(encoder_hidden=10**9), "encoder_hidden"),
    "string embed_dim": (config_edit(embed_dim="8"), "embed_dim must be an integer"),
    "sizes too big to allocate": (
        config_edit(encoder_hidden=8192, decoder_hidden=8192, embed_dim=8192),
        "more than this app loads",
    ),
    "unknown config field": (config_edit(heads=4), "unknown field"),
    "config that does not match the tensors": (config_edit(decoder_hidden=32), "has shape"),
    "missing tensor": (tensors_edit(lambda t: {k: v for k, v in t.items() if k != HIDDEN}), "is missing"),
    "extra tensor": (tensors_edit(lambda t: {**t, "bogus": torch.zeros(1)}), "unexpected tensor 'bogus'"),
    "wrong shape": (replaced(HIDDEN, lambda t: t.T.contiguous()), "has shape"),
    "int64 tensor": (replaced(HIDDEN, lambda t: t.to(torch.int64)), "not a float type"),
    "NaN weights": (replaced(HIDDEN, lambda t: torch.full_like(t, float("nan"))), "NaN"),
    "absurdly large weights": (replaced(HIDDEN, lambda t: torch.full_like(t, 1e30)), "magnitude"),
    "vocabulary shorter than the embedding": (meta_edit(lambda m: m["vocabulary"].pop()), "vocab_size"),
    "vocabulary duplicates": (
        meta_edit(lambda m: m["vocabulary"].__setitem__(10, m["vocabulary"][11])),
        "duplicate",
    ),
    "info not an object": (meta_edit(lambda m: m.update(info=["/etc/passwd"])), "info"),
}


@cache
def valid_rnn_bytes() -> bytes:
    model, tokenizer = small_rnn(seed=4)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "valid.safetensors"
        save_rnn_checkpoint(path, model, tokenizer, {"note": "the corpus starts from this file"})
        open_model(path, "cpu")  # valid before it is spoiled
        return path.read_bytes()


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_a_bad_rnn_file_is_refused_with_one_line_naming_the_problem(name, tmp_path, capsys):
    build, message = CORPUS[name]
    path = build(valid_rnn_bytes(), tmp_path)
    with pytest.raises(CheckpointError) as caught:
        open_model(path, "cpu")
    text = str(caught.value)
    assert message in text, text
    assert "\n" not in text
    assert text.startswith((f"{path.name}:", f"{path}:")), text  # the file, named first
    out = tmp_path / "trace.npz"
    assert main(["trace", "--checkpoint", str(path), "--text", "reverse: ab", "--out", str(out)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1 and not out.exists()


def test_half_precision_rnn_weights_are_widened_to_float32(tmp_path):
    path = replaced(HIDDEN, lambda t: t.to(torch.float16))(valid_rnn_bytes(), tmp_path)
    model = open_model(path, "cpu")
    assert model.model.decoder.weight_hh.dtype == torch.float32


@FUZZ
@given(st.data())
def test_fuzz_overwritten_rnn_bytes(data):
    loads_and_runs_or_refuses(overwritten_bytes(data, valid_rnn_bytes()), load=open_model)


@FUZZ
@given(st.data())
def test_fuzz_flipped_rnn_weight_bits(data):
    loads_and_runs_or_refuses(flipped_weight_bits(data, valid_rnn_bytes()), load=open_model)
