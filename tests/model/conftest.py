"""Fixtures: small random-weight models and checkpoints that tests build and save."""

from __future__ import annotations

import pytest

from model.checkpoint import load_checkpoint, save_checkpoint
from tests.model.factories import small_model


@pytest.fixture
def tiny():
    return small_model()


@pytest.fixture(scope="session")
def tiny_checkpoint_path(tmp_path_factory):
    model, tokenizer = small_model(seed=1)
    path = tmp_path_factory.mktemp("ckpt") / "tiny.safetensors"
    save_checkpoint(path, model, tokenizer, {"note": "random weights for tests"})
    return path


@pytest.fixture
def tiny_checkpoint(tiny_checkpoint_path):
    return load_checkpoint(tiny_checkpoint_path, "cpu")
