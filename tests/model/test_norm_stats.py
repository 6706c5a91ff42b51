"""LayerNorm's per-token statistics against BatchNorm's per-feature ones, on a padded batch."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from model.core.batching import encode_sources
from model.generation.engine import GenerationEngine
from model.probes.norm_records import DECODER_SUBLAYERS, ENCODER_SUBLAYERS, half_source, recorded_norms
from model.probes.norm_stats import batch_norm_stats, layer_norm_stats, norm_affine, padded_batch_stats
from model.transformer.checkpoint import default_checkpoint_path, load_checkpoint
from model.transformer.model import NO_INTERVENTIONS, Interventions
from tests.factories import small_family

SOURCE = "reverse: abcdefgh"


def test_half_source_keeps_the_task_and_halves_the_input():
    assert half_source("reverse: abcdef") == "reverse: abc"
    assert half_source("sort: 9a8b7") == "sort: 9a"
    assert half_source("abcdef") == "abc"
    assert half_source("x") == "xx"  # too short to halve: a longer partner instead
    assert half_source("reverse: a") == "reverse: aa"  # one longer, never twice the length


def test_layer_norm_and_batch_norm_statistics_on_a_hand_made_batch():
    x = torch.tensor([[[1.0, 3.0], [5.0, 5.0]], [[2.0, 6.0], [0.0, 0.0]]])  # (B=2, L=2, D=2)
    mean, std = layer_norm_stats(x)
    np.testing.assert_allclose(mean, [[2.0, 5.0], [4.0, 0.0]])
    np.testing.assert_allclose(std, [[1.0, 0.0], [2.0, 0.0]])
    real = torch.tensor([[True, True], [True, False]])
    mean, std = batch_norm_stats(x, real)  # features over the three real positions
    np.testing.assert_allclose(mean, [8 / 3, 14 / 3], rtol=1e-6)
    np.testing.assert_allclose(std, [np.std([1, 5, 2]), np.std([3, 5, 6])], rtol=1e-6)
    mean, _ = batch_norm_stats(x, torch.ones_like(real))  # the zero "pad" drags the means down
    np.testing.assert_allclose(mean, [2.0, 3.5])


def test_recorded_norms_are_the_engine_records():
    fam = small_family()
    tokenizer = fam.tokenizer
    engine = GenerationEngine(fam, SOURCE)
    for _ in range(3):
        engine.step()
    snapshot = engine.snapshot()
    encoder_norms = snapshot.encoder.extras["norms"]
    for layer in range(fam.config.n_encoder_layers):
        norms = recorded_norms(snapshot, True, layer, cursor=2)
        assert norms.sublayers == ENCODER_SUBLAYERS and norms.labels == snapshot.encoder.tokens
        np.testing.assert_array_equal(norms.stats, encoder_norms[layer])
        np.testing.assert_array_equal(norms.stat(1, "out_std"), encoder_norms[layer, 1, 3])
    norms = recorded_norms(snapshot, False, 1, cursor=1)
    assert norms.sublayers == DECODER_SUBLAYERS
    assert norms.labels == ["<bos>", tokenizer.token_text(engine.steps[0].token_id)]
    assert norms.stats.shape == (3, 4, 2)
    for t in range(2):
        np.testing.assert_array_equal(norms.stats[:, :, t], engine.steps[t].extras["norms"][1])
    assert recorded_norms(snapshot, False, 0, cursor=-1).stats.shape == (3, 4, 0)
    assert recorded_norms(snapshot, True, 99, cursor=2).layer == fam.config.n_encoder_layers - 1


@pytest.mark.parametrize("placement", ["post", "pre"])
def test_layer_norm_statistics_of_real_tokens_do_not_change_with_padding(placement):
    fam = small_family(seed=3, norm_placement=placement)
    tokenizer = fam.tokenizer
    stats = padded_batch_stats(fam, SOURCE)
    assert stats.texts == (SOURCE, "reverse: abcd")
    n_long, n_short = len(SOURCE) + 1, len("reverse: abcd") + 1  # characters then <eos>
    assert stats.pad_mask.shape == (2, n_long) and stats.pad_count == n_long - n_short
    assert stats.padded_row == 1 and not stats.pad_mask[0].any()
    assert stats.tokens[1][n_short - 1 :] == ["<eos>"] + ["<pad>"] * (n_long - n_short)
    # alone: each source through the model by itself, no padding anywhere
    for row, text in enumerate(stats.texts):
        ids, pad = encode_sources(tokenizer, [text])
        alone = fam.norm_input_probe(ids, pad, NO_INTERVENTIONS)[0]
        mean, std = layer_norm_stats(alone)
        np.testing.assert_allclose(stats.alone_mean[row], mean, atol=1e-6)
        np.testing.assert_allclose(stats.layer_mean[row, : len(mean)], mean, atol=1e-5)
        np.testing.assert_allclose(stats.layer_std[row, : len(std)], std, atol=1e-5)
    assert stats.layer_norm_difference < 1e-5
    # and the first row's statistics are what the engine recorded at encoder layer 1's first norm
    recorded = GenerationEngine(fam, SOURCE).encoder.extras["norms"][0, 0]
    np.testing.assert_allclose(stats.layer_mean[0], recorded[0], atol=1e-5)
    np.testing.assert_allclose(stats.layer_std[0], recorded[1], atol=1e-5)


def test_batch_norm_statistics_change_when_the_pads_are_counted():
    fam = small_family(seed=3)
    stats = padded_batch_stats(fam, SOURCE)
    residual, real = stats.residual, ~stats.pad_mask
    d = fam.config.d_model
    np.testing.assert_allclose(stats.batch_mean_real, residual[real].mean(0), atol=1e-5)
    np.testing.assert_allclose(stats.batch_std_real, residual[real].std(0), atol=1e-5)
    np.testing.assert_allclose(stats.batch_mean_with_pads, residual.reshape(-1, d).mean(0), atol=1e-5)
    np.testing.assert_allclose(stats.batch_std_with_pads, residual.reshape(-1, d).std(0), atol=1e-5)
    mean_shift, std_shift = stats.batch_norm_shift
    assert mean_shift > 0.05 and std_shift > 0.05  # the pads skew BatchNorm...
    assert stats.layer_norm_difference < 1e-5  # ...and leave LayerNorm alone
    # without padding the two BatchNorms agree
    same = padded_batch_stats(fam, SOURCE, other="reverse: hgfedcba")
    assert same.pad_count == 0 and max(same.batch_norm_shift) == 0.0


def test_the_padded_batch_runs_the_model_with_the_interventions():
    fam = small_family(seed=3)
    plain = padded_batch_stats(fam, SOURCE)
    order_blind = padded_batch_stats(fam, SOURCE, interventions=Interventions(no_positional=True))
    assert not np.allclose(plain.residual, order_blind.residual)
    assert order_blind.layer_norm_difference < 1e-5


def test_norm_affine_summarises_every_layer_norm():
    fam = small_family(seed=3)
    model = fam.model
    with torch.no_grad():
        model.decoder_layers[1].cross_sublayer.norm.bias.fill_(0.25)
        model.decoder_layers[1].cross_sublayer.norm.weight.fill_(-2.0)
        model.encoder_layers[0].ffn_sublayer.norm.bias.copy_(torch.linspace(0.0, 1.0, 32))
    affine = norm_affine(fam)
    assert affine.encoder_beta_mean.shape == (2, 2) and affine.decoder_gamma_rms.shape == (2, 3)
    assert affine.decoder_beta_mean[1, 1] == pytest.approx(0.25)
    assert affine.decoder_gamma_rms[1, 1] == pytest.approx(2.0)
    assert affine.encoder_beta_mean[0, 1] == pytest.approx(0.5)
    assert affine.encoder_gamma_rms[0, 1] == pytest.approx(1.0)  # γ starts at one


def test_in_the_trained_model_layer_norm_output_is_flat_while_its_input_varies():
    checkpoint = load_checkpoint(default_checkpoint_path(), "cpu")
    engine = GenerationEngine(checkpoint, "reverse: attention")
    affine = norm_affine(checkpoint)
    norms = engine.encoder.extras["norms"]  # [L, 2, 4, S]
    in_std, out_mean, out_std = norms[:, :, 1], norms[:, :, 2], norms[:, :, 3]
    assert (out_std.std(-1) < 0.5 * in_std.std(-1)).all()  # per token, the output spread is steady
    np.testing.assert_allclose(out_std.mean(-1), affine.encoder_gamma_rms, rtol=0.2)  # at about γ's size
    np.testing.assert_allclose(out_mean.mean(-1), affine.encoder_beta_mean, atol=0.05)  # near β's average
