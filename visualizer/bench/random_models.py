"""Random-weight checkpoints the benchmark (and the tests) build for themselves."""

from __future__ import annotations

from pathlib import Path

import torch

from model.tasks.train import default_tokenizer
from model.transformer.checkpoint import save_checkpoint
from model.transformer.model import Transformer, TransformerConfig


def save_large_checkpoint(path: Path) -> Path:
    """A random-weight model of about 20 MB, which takes a while to load: 6 + 6 layers."""
    tokenizer = default_tokenizer()
    torch.manual_seed(0)
    config = TransformerConfig(
        vocab_size=len(tokenizer),
        d_model=256,
        n_heads=8,
        n_encoder_layers=6,
        n_decoder_layers=6,
        d_ff=1024,
        max_len=64,
    )
    save_checkpoint(path, Transformer(config), tokenizer)
    return path
