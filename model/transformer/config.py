"""The model's config and the what-ifs applied to it: plain data, no torch.

Kept apart from ``model.transformer.model`` so that the desktop app can build its window before
importing torch (which alone takes over a second).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

# the what-ifs are the interface's (every family applies the ones it supports); re-exported here
from model.core.config_checks import check_int as check_config_int
from model.core.config_checks import config_from_dict
from model.interface import NO_INTERVENTIONS, Interventions  # noqa: F401

NormPlacement = Literal["post", "pre"]
PositionalKind = Literal["sinusoidal", "learned", "none"]


@dataclass
class TransformerConfig:
    vocab_size: int
    d_model: int = 128  # width of every token vector
    n_heads: int = 4  # d_model must divide evenly into heads
    n_encoder_layers: int = 3
    n_decoder_layers: int = 3
    d_ff: int = 512  # hidden width of the position-wise feed-forward network
    dropout: float = 0.1
    max_len: int = 64  # longest source or target, in tokens, special tokens included
    norm_placement: NormPlacement = "post"  # "post" as in the paper; "pre" trains more easily
    positional: PositionalKind = "sinusoidal"
    tie_embeddings: bool = True  # one matrix for source, target and output, as in the paper

    # Limits that keep a hostile config from allocating the machine away.
    MAX_D_MODEL = 8192
    MAX_LAYERS = 64
    MAX_VOCAB = 1_000_000
    MAX_LEN_LIMIT = 8192

    def __post_init__(self) -> None:
        self.validate()

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads

    def validate(self) -> None:
        """Raise ValueError with a one-line reason if the config cannot build a model."""

        def check_int(name: str, low: int, high: int) -> None:
            check_config_int(self, name, low, high)

        check_int("vocab_size", 5, self.MAX_VOCAB)
        check_int("d_model", 2, self.MAX_D_MODEL)
        check_int("n_heads", 1, self.d_model)
        check_int("n_encoder_layers", 1, self.MAX_LAYERS)
        check_int("n_decoder_layers", 1, self.MAX_LAYERS)
        check_int("d_ff", 1, 16 * self.MAX_D_MODEL)
        check_int("max_len", 2, self.MAX_LEN_LIMIT)
        if self.d_model % self.n_heads:
            raise ValueError(f"config: n_heads={self.n_heads} does not divide d_model={self.d_model}")
        if self.positional == "sinusoidal" and self.d_model % 2:
            raise ValueError("config: sinusoidal positions need an even d_model")
        if not isinstance(self.dropout, (int, float)) or not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"config: dropout={self.dropout!r} is outside [0, 1)")
        if self.norm_placement not in ("post", "pre"):
            raise ValueError(f"config: norm_placement must be 'post' or 'pre', not {self.norm_placement!r}")
        if self.positional not in ("sinusoidal", "learned", "none"):
            raise ValueError(
                f"config: positional must be sinusoidal, learned or none, not {self.positional!r}"
            )
        if not isinstance(self.tie_embeddings, bool):
            raise ValueError("config: tie_embeddings must be true or false")

    def parameter_count(self) -> int:
        """Number of parameters of a model of this config, computed without building one."""
        d, ff, vocab = self.d_model, self.d_ff, self.vocab_size
        attention = 4 * (d * d + d)
        ffn = d * ff + ff + ff * d + d
        norm = 2 * d
        encoder = self.n_encoder_layers * (attention + ffn + 2 * norm)
        decoder = self.n_decoder_layers * (2 * attention + ffn + 3 * norm)
        embeddings = vocab * d * (1 if self.tie_embeddings else 3)
        positions = self.max_len * d if self.positional == "learned" else 0
        final_norms = 2 * norm if self.norm_placement == "pre" else 0
        return encoder + decoder + embeddings + positions + final_norms

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> TransformerConfig:
        """Build from JSON data; unknown or missing keys are a ValueError, not a TypeError."""
        return config_from_dict(cls, data)
