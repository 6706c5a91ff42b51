"""Small random-weight models that tests build themselves."""

from __future__ import annotations

import torch

from model.tokenizer import CharTokenizer
from model.train import default_tokenizer
from model.transformer import Transformer, TransformerConfig


def small_config(vocab_size: int, **overrides) -> TransformerConfig:
    settings = dict(
        vocab_size=vocab_size,
        d_model=32,
        n_heads=4,
        n_encoder_layers=2,
        n_decoder_layers=2,
        d_ff=64,
        dropout=0.0,
        max_len=48,
    )
    settings.update(overrides)
    return TransformerConfig(**settings)


def small_model(seed: int = 0, **overrides) -> tuple[Transformer, CharTokenizer]:
    tokenizer = default_tokenizer()
    torch.manual_seed(seed)
    model = Transformer(small_config(len(tokenizer), **overrides)).eval()
    return model, tokenizer
