"""Positional encoding, as plain numpy: the arithmetic the positional-encoding panel shows
(wavelengths, the binary analogy, PE·PEᵀ, the swap what-if's permutation). No torch: the panel
draws with these on the GUI thread; ``model.probes.position_runs`` asks the live model.

The what-if runs the encoder on the source and on the source with two characters swapped,
with and without positional encoding. Without it the encoder cannot tell order: the swapped
source's attention is the original's with rows and columns permuted, ``A' = P A Pᵀ``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class EncodingTable:
    """What the live model adds at each position."""

    kind: str  # "sinusoidal", "learned" or "none" (the model's config.positional)
    table: np.ndarray  # [max_len, d_model]
    # how a sinusoid's sin and cos columns are stored: "interleaved" (the paper's, dims 2i, 2i+1)
    # or "halves" (Marian, M2M100/NLLB: all sines, then all cosines: dims i, i + d/2)
    layout: str = "interleaved"

    def pair_dims(self, pair: int) -> tuple[int, int]:
        """The two dimensions of pair ``pair`` (sin and cos for a sinusoid)."""
        if self.layout == "halves":
            return pair, pair + self.table.shape[1] // 2
        return 2 * pair, 2 * pair + 1

    def measured_wavelength(self, pair: int) -> float:
        """The wavelength of a sinusoid pair, measured from the table's first two rows: the angle
        (sin, cos) turns by from position 0 to 1 (no formula assumed)."""
        a, b = self.pair_dims(pair)
        (s0, c0), (s1, c1) = self.table[0, [a, b]], self.table[1, [a, b]]
        turn = math.atan2(s1 * c0 - c1 * s0, c1 * c0 + s1 * s0)
        return 2 * math.pi / abs(turn) if turn else math.inf


def wavelength(pair: int, d_model: int) -> float:
    """Wavelength (in positions) of dimensions 2i and 2i+1: 2π·10000^(2i/d)."""
    return 2 * math.pi * 10000.0 ** (2 * pair / d_model)


def default_pair(d_model: int, max_len: int) -> int:
    """The pair whose wavelength is closest to the longest sequence: about one period is visible."""
    pair = round(d_model / 2 * math.log(max_len / (2 * math.pi)) / math.log(10000.0))
    return min(max(pair, 0), d_model // 2 - 1)


def binary_code(length: int) -> np.ndarray:
    """[length, bits] the bits of 0..length-1, lowest bit first (it flips fastest, as dim 0 does)."""
    bits = max(1, (length - 1).bit_length())
    positions = np.arange(length)[:, None]
    return ((positions >> np.arange(bits)[None, :]) & 1).astype(np.float32)


def gram(table: np.ndarray) -> np.ndarray:
    """PE·PEᵀ: [positions, positions] dot products of every pair of position vectors."""
    table = table.astype(np.float64)
    return table @ table.T


def diagonal_deviation(matrix: np.ndarray) -> float:
    """The largest spread (max − min) along any diagonal: 0 when entries depend only on q − p."""
    n = matrix.shape[0]
    spreads = [np.ptp(np.diagonal(matrix, offset)) for offset in range(-(n - 1), n)]
    return float(max(spreads))


def default_swap(source: str) -> tuple[int, int]:
    """Two positions to swap: the first characters after a "task: " prefix that differ."""
    prefix = source.find(": ")
    first = prefix + 2 if 0 <= prefix < len(source) - 3 else 0
    first = min(first, max(len(source) - 2, 0))
    for second in range(first + 1, len(source)):
        if source[second] != source[first]:
            return first, second
    return first, min(first + 1, max(len(source) - 1, 0))


def swap_chars(text: str, a: int, b: int) -> str:
    chars = list(text)
    chars[a], chars[b] = chars[b], chars[a]
    return "".join(chars)


def swap_permutation(length: int, a: int, b: int) -> np.ndarray:
    """perm with perm[a] = b, perm[b] = a: the swapped sequence's token i is the original's perm[i]."""
    perm = np.arange(length)
    perm[a], perm[b] = b, a
    return perm


def permuted_deviation(original: np.ndarray, swapped: np.ndarray, perm: np.ndarray) -> float:
    """max |A_swapped − P A Pᵀ| over the last two axes (query × key)."""
    permuted = original[..., perm, :][..., :, perm]
    return float(np.abs(swapped.astype(np.float64) - permuted).max())


@dataclass(frozen=True)
class SwapComparison:
    """Encoder self-attention of a source and of the source with two characters swapped."""

    tokens: list[str]
    swapped_tokens: list[str]
    permutation: np.ndarray  # [S]
    with_pe: tuple[np.ndarray, np.ndarray]  # (original, swapped), each [L_enc, H, S, S]
    without_pe: tuple[np.ndarray, np.ndarray]
