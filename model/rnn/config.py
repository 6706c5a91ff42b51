"""The RNN encoder-decoder's config: plain data, no torch (the window builds before torch loads)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

from model.core.config_checks import check_int as check_config_int
from model.core.config_checks import config_from_dict

# how the decoder scores each encoder state at a step; "none" is the fixed-vector bottleneck
ScoreKind = Literal["none", "additive", "dot", "scaled_dot"]
SCORE_KINDS: tuple[str, ...] = ("none", "additive", "dot", "scaled_dot")


@dataclass
class RNNConfig:
    vocab_size: int
    score: ScoreKind = "additive"
    embed_dim: int = 64
    encoder_hidden: int = 128  # per direction: the encoder states h_j have 2 × this
    decoder_hidden: int = 256  # dot scores s·h need it equal to 2 × encoder_hidden
    attention_dim: int = 128  # additive scores: v^T tanh(W s + U h) with v, W s, U h of this size
    max_len: int = 64  # longest source or target, in tokens, special tokens included

    # Limits that keep a hostile config from allocating the machine away.
    MAX_WIDTH = 8192
    MAX_VOCAB = 1_000_000
    MAX_LEN_LIMIT = 8192

    def __post_init__(self) -> None:
        self.validate()

    @property
    def state_dim(self) -> int:
        """The size of one encoder state h_j (both directions)."""
        return 2 * self.encoder_hidden

    def validate(self) -> None:
        """Raise ValueError with a one-line reason if the config cannot build a model."""

        def check_int(name: str, low: int, high: int) -> None:
            check_config_int(self, name, low, high)

        check_int("vocab_size", 5, self.MAX_VOCAB)
        for name in ("embed_dim", "encoder_hidden", "decoder_hidden", "attention_dim"):
            check_int(name, 1, self.MAX_WIDTH)
        check_int("max_len", 2, self.MAX_LEN_LIMIT)
        if self.score not in SCORE_KINDS:
            raise ValueError(f"config: score must be one of {', '.join(SCORE_KINDS)}, got {self.score!r}")
        if self.score in ("dot", "scaled_dot") and self.decoder_hidden != self.state_dim:
            raise ValueError(
                f"config: {self.score} scores s·h need decoder_hidden ({self.decoder_hidden}) equal to "
                f"2 × encoder_hidden ({self.state_dim})"
            )

    def parameter_count(self) -> int:
        """The model's number of parameters, from the config alone (no torch)."""
        V, E, H, D, A = (
            self.vocab_size,
            self.embed_dim,
            self.encoder_hidden,
            self.decoder_hidden,
            self.attention_dim,
        )
        encoder = 2 * (3 * H * (E + H) + 6 * H)  # a GRU per direction: input and hidden weights, two biases
        decoder = 3 * D * (E + 2 * H) + 3 * D * D + 6 * D  # the GRU cell reads [E y; c]
        additive = D * A + 2 * H * A + A + A if self.score == "additive" else 0  # W, U and its bias, v
        return V * E + encoder + 2 * H * D + D + decoder + additive + (D + 2 * H + E) * V + V

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: object) -> RNNConfig:
        """Build from JSON data; unknown or missing keys are a ValueError, not a TypeError."""
        return config_from_dict(cls, data)
