"""Decoding settings: which strategy and its knobs. Plain data, no torch."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

Strategy = Literal["greedy", "sample", "topk", "topp", "beam"]
STRATEGIES: tuple[Strategy, ...] = ("greedy", "sample", "topk", "topp", "beam")


@dataclass(frozen=True)
class DecodingSettings:
    strategy: Strategy = "greedy"
    temperature: float = 1.0  # sampling strategies divide the logits by this
    top_k: int = 5  # topk keeps this many most likely tokens
    top_p: float = 0.9  # topp keeps the smallest set whose probability reaches this
    beam_width: int = 4
    seed: int = 0

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {self.strategy!r}: choose {', '.join(STRATEGIES)}")
        if not (isinstance(self.temperature, (int, float)) and 0.01 <= self.temperature <= 100):
            raise ValueError(f"temperature must be between 0.01 and 100, got {self.temperature!r}")
        if isinstance(self.top_k, bool) or not isinstance(self.top_k, int) or self.top_k < 1:
            raise ValueError(f"top-k must be a whole number of at least 1, got {self.top_k!r}")
        if not (isinstance(self.top_p, (int, float)) and 0 < self.top_p <= 1):
            raise ValueError(f"top-p must be in (0, 1], got {self.top_p!r}")
        if (
            isinstance(self.beam_width, bool)
            or not isinstance(self.beam_width, int)
            or not 1 <= self.beam_width <= 64
        ):
            raise ValueError(f"beam width must be a whole number from 1 to 64, got {self.beam_width!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative whole number, got {self.seed!r}")

    def to_dict(self) -> dict:
        return asdict(self)
