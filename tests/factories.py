"""Small random-weight models that tests build themselves."""

from __future__ import annotations

from pathlib import Path

import torch

from model.core.tokenizer import CharTokenizer
from model.tasks.train import default_tokenizer
from model.transformer.family import TransformerFamily
from model.transformer.model import Transformer, TransformerConfig
from visualizer.bench.random_models import save_large_checkpoint  # noqa: F401 (tests use it from here)


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


def family(model: Transformer, tokenizer: CharTokenizer) -> TransformerFamily:
    """A bare (model, tokenizer) pair as a model family (the same module, not a copy)."""
    return TransformerFamily(model, tokenizer)


def small_family(seed: int = 0, **overrides) -> TransformerFamily:
    """``small_model`` wrapped as a ``TransformerFamily``."""
    return family(*small_model(seed, **overrides))


def small_rnn(score: str = "additive", seed: int = 0, max_len: int = 24):
    """A small random-weight RNN encoder-decoder (``score``: none, additive, dot, scaled_dot)."""
    from model.rnn.config import RNNConfig
    from model.rnn.model import RNNSeq2Seq

    tokenizer = default_tokenizer()
    torch.manual_seed(seed)
    config = RNNConfig(
        vocab_size=len(tokenizer),
        score=score,
        embed_dim=8,
        encoder_hidden=8,
        decoder_hidden=16,
        attention_dim=8,
        max_len=max_len,
    )
    return RNNSeq2Seq(config, tokenizer.pad_id).eval(), tokenizer


def write_small_rnn(path: Path, score: str = "additive", seed: int = 0) -> Path:
    """``small_rnn`` saved as a checkpoint at ``path``."""
    from model.rnn.checkpoint import save_rnn_checkpoint

    model, tokenizer = small_rnn(score, seed)
    save_rnn_checkpoint(path, model, tokenizer, {"recipe_name": "test"})
    return path
