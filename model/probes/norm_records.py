"""Normalisation statistics as plain numpy, no torch: what the LayerNorm panel reads.

- ``recorded_norms``: the engine's per-token statistics around one layer's Add & Norms, read
  from a generation's records.
- ``NormAffine`` and ``PaddedBatchStats``: what ``model.probes.norm_stats`` computes on the
  live model (each LayerNorm's learned scale and shift; BatchNorm's statistics on a padded
  batch beside LayerNorm's).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.generation.records import GenerationSnapshot

# the statistics recorded around each norm, in the order of a "norms" extra's third axis
NORM_STATS = ("in_mean", "in_std", "out_mean", "out_std")
ENCODER_SUBLAYERS = ("self-attention", "feed-forward")
DECODER_SUBLAYERS = ("masked self-attention", "cross-attention", "feed-forward")


# -- recorded statistics ------------------------------------------------------------------
@dataclass(frozen=True)
class RecordedNorms:
    """Per-token statistics around each Add & Norm of one layer, as the engine recorded them."""

    encoder: bool
    layer: int
    labels: list[str]  # [N] the token at each position (source tokens, or decoder inputs)
    stats: np.ndarray  # [sublayers, 4, N] in_mean, in_std, out_mean, out_std per token

    @property
    def sublayers(self) -> tuple[str, ...]:
        return ENCODER_SUBLAYERS if self.encoder else DECODER_SUBLAYERS

    def stat(self, sublayer: int, name: str) -> np.ndarray:
        """[N] one statistic (a name of ``NORM_STATS``) of one sublayer."""
        return self.stats[sublayer, NORM_STATS.index(name)]


def recorded_norms(snapshot: GenerationSnapshot, encoder: bool, layer: int, cursor: int) -> RecordedNorms:
    """The encoder's over its source tokens, or the decoder's over steps 0..cursor.

    ``layer`` is clamped to the model's layers (the session's layer spans both stacks).
    """
    encoder_norms = snapshot.encoder.extras["norms"]  # [L_enc, 2, 4, S]
    if encoder:
        layer = min(layer, encoder_norms.shape[0] - 1)
        return RecordedNorms(True, layer, list(snapshot.encoder.tokens), encoder_norms[layer])
    decoder_layers = max(kind.layers for kind in snapshot.info.kinds if kind.per_step)
    layer = min(layer, decoder_layers - 1)
    steps = snapshot.steps[: cursor + 1]
    labels = [snapshot.tokenizer.token_text(record.input_id) for record in steps]
    if steps:
        stats = np.stack([record.extras["norms"][layer] for record in steps], axis=-1)  # [3, 4, T]
    else:
        stats = np.zeros((len(DECODER_SUBLAYERS), len(NORM_STATS), 0), dtype=np.float32)
    return RecordedNorms(False, layer, labels, stats)


# -- the learned scale and shift, and a padded batch (computed by model.probes.norm_stats) --
@dataclass(frozen=True)
class NormAffine:
    """Where each LayerNorm puts its output: out = γ·(x − mean)/std + β, per feature.

    A normalised token has mean 0 and std 1 over its features, so the output's mean is about
    the average of β and its std about the root-mean-square of γ, whatever the input was.
    """

    encoder_beta_mean: np.ndarray  # [L_enc, 2]
    encoder_gamma_rms: np.ndarray  # [L_enc, 2]
    decoder_beta_mean: np.ndarray  # [L_dec, 3]
    decoder_gamma_rms: np.ndarray  # [L_dec, 3]


def half_source(text: str) -> str:
    """A shorter source to batch with ``text``: its input cut to half, the task prefix kept.

    "reverse: abcdef" gives "reverse: abc". A one-character input gets its character once more
    (one longer), so the two always differ in length.
    """
    if not isinstance(text, str):  # an audio file has no shorter half to batch with
        raise ValueError(f"a padded batch is made of text sources; {text} is not text")
    prefix, sep, body = text.partition(": ")
    if not sep:
        prefix, body = "", text
    else:
        prefix += sep
    if len(body) >= 2:
        return prefix + body[: len(body) // 2]
    return text + body  # one character longer, never much longer than the text itself


@dataclass(frozen=True)
class PaddedBatchStats:
    """The first Add & Norm's input on a padded batch of two sources, and its statistics."""

    texts: tuple[str, str]  # row 0: the current source; row 1: the other one
    tokens: tuple[list[str], list[str]]  # [S] per row, "<pad>" at padding
    pad_mask: np.ndarray  # [2, S] True at padding
    residual: np.ndarray  # [2, S, D] what the first LayerNorm normalises, batched
    layer_mean: np.ndarray  # [2, S] LayerNorm's per-token statistics in the batch
    layer_std: np.ndarray  # [2, S]
    alone_mean: tuple[np.ndarray, np.ndarray]  # [n_row] each row run alone, without padding
    alone_std: tuple[np.ndarray, np.ndarray]
    batch_mean_with_pads: np.ndarray  # [D] a naive BatchNorm: every position, pads included
    batch_std_with_pads: np.ndarray  # [D]
    batch_mean_real: np.ndarray  # [D] over the real tokens only
    batch_std_real: np.ndarray  # [D]

    @property
    def pad_count(self) -> int:
        return int(self.pad_mask.sum())

    @property
    def padded_row(self) -> int:
        """The row that holds the padding (the shorter source)."""
        return int(self.pad_mask[1].any())

    @property
    def layer_norm_difference(self) -> float:
        """Largest change of LayerNorm's mean or std of a real token, batched vs alone (≈0)."""
        worst = 0.0
        for row in range(2):
            n = len(self.alone_mean[row])
            for batched, alone in ((self.layer_mean, self.alone_mean), (self.layer_std, self.alone_std)):
                worst = max(worst, float(np.abs(batched[row, :n] - alone[row]).max()))
        return worst

    @property
    def batch_norm_shift(self) -> tuple[float, float]:
        """Largest change of BatchNorm's per-feature mean and std when the pads are counted."""
        mean_shift = np.abs(self.batch_mean_with_pads - self.batch_mean_real).max()
        std_shift = np.abs(self.batch_std_with_pads - self.batch_std_real).max()
        return float(mean_shift), float(std_shift)
