"""The LayerNorm panel draws the engine's recorded statistics and the padded batch's, exactly."""

from __future__ import annotations

import numpy as np
import pytest

from model.interface import Interventions
from model.probes.norm_records import NORM_STATS, PaddedBatchStats
from model.probes.norm_stats import norm_affine, padded_batch_stats
from model.transformer.checkpoint import load_checkpoint
from visualizer.state.session import ComputeRequest


@pytest.fixture
def panel(harness):
    harness.window.show_panel("layernorm")
    harness.wait_idle()
    return next(p for p in harness.window.panels if p.key == "layernorm")


def batch_key(snapshot) -> tuple:
    return ("layernorm", "padded-batch", snapshot.source, snapshot.interventions)


def shown_stats(panel, sublayer: int) -> np.ndarray:
    """[4, N] the plotted in_mean, in_std, out_mean, out_std of one sublayer."""
    return np.stack([panel.curves[sublayer][name].yData for name in NORM_STATS])


def test_decoder_statistics_are_the_step_records(harness, panel):
    session = harness.session
    assert session.kind == "cross" and session.cursor == -1
    assert len(panel.curves) == 3  # decoder layers have three Add & Norms
    assert all(curve.yData is None or len(curve.yData) == 0 for curve in panel.curves[0].values())
    for _ in range(3):
        session.step_forward()
        harness.wait_idle()
    steps = session.snapshot.steps
    for layer in range(session.snapshot.info.config["n_decoder_layers"]):
        session.select_head(layer, session.head)
        assert panel.layer_box.currentIndex() == layer and panel.stack.currentIndex() == 1
        for sublayer in range(3):
            expected = np.stack([record.extras["norms"][layer, sublayer] for record in steps], axis=-1)
            np.testing.assert_array_equal(shown_stats(panel, sublayer), expected)
            np.testing.assert_array_equal(panel.curves[sublayer]["in_mean"].xData, np.arange(3))
    ticks = panel.std_plots[0].getAxis("bottom")._tickLevels[0]
    assert [label for _, label in ticks] == ["<bos>", *(t for t in session.snapshot.output_tokens[:2])]
    session.go_to_step(0)  # stepping back shows fewer steps
    assert len(panel.curves[2]["out_std"].yData) == 1


def test_encoder_statistics_are_the_encoder_records_and_the_controls_drive_the_session(harness, panel):
    session = harness.session
    panel.stack.setCurrentIndex(0)  # the panel's own control: encoder
    assert session.kind == "enc_self"
    assert len(panel.curves) == 2
    encoder = session.snapshot.encoder
    for layer in range(session.snapshot.info.config["n_encoder_layers"]):
        panel.layer_box.setCurrentIndex(layer)
        assert session.layer == layer
        for sublayer in range(2):
            np.testing.assert_array_equal(
                shown_stats(panel, sublayer), encoder.extras["norms"][layer, sublayer]
            )
    ticks = panel.mean_plots[1].getAxis("bottom")._tickLevels[0]
    assert [label for _, label in ticks] == [t if t != " " else "␣" for t in encoder.tokens]
    panel.stack.setCurrentIndex(1)
    assert session.kind == "dec_self" and len(panel.curves) == 3


def test_reference_lines_are_the_learned_beta_and_gamma(harness, panel, tiny_checkpoint_path):
    harness.session.set_kind("enc_self")
    harness.session.select_head(1, None)
    harness.wait_idle()
    affine = norm_affine(load_checkpoint(tiny_checkpoint_path, "cpu"))
    for sublayer, (beta_line, gamma_line) in enumerate(panel.references):
        assert beta_line.isVisible() and gamma_line.isVisible()
        assert beta_line.value() == pytest.approx(float(affine.encoder_beta_mean[1, sublayer]))
        assert gamma_line.value() == pytest.approx(float(affine.encoder_gamma_rms[1, sublayer]))


def test_padded_batch_shows_batch_norm_skewed_and_layer_norm_unchanged(harness, panel, tiny_checkpoint_path):
    session = harness.session
    stats = session.computed[batch_key(session.snapshot)]
    assert isinstance(stats, PaddedBatchStats)
    assert stats.texts == ("reverse: abcdef", "reverse: abc")
    checkpoint = load_checkpoint(tiny_checkpoint_path, "cpu")
    expected = padded_batch_stats(checkpoint, "reverse: abcdef")
    np.testing.assert_allclose(stats.residual, expected.residual, atol=1e-5)
    # the BatchNorm curves: per feature, real tokens only and pads included
    for name in ("mean", "std"):
        np.testing.assert_array_equal(
            panel.bn_curves[f"{name}_real"].yData, getattr(stats, f"batch_{name}_real")
        )
        shown = panel.bn_curves[f"{name}_with_pads"].yData
        np.testing.assert_array_equal(shown, getattr(stats, f"batch_{name}_with_pads"))
    assert not np.allclose(stats.batch_std_real, stats.batch_std_with_pads)
    # the LayerNorm curves: the padded row, batched (every position) and alone (its real tokens)
    row, n_real = 1, len("reverse: abc") + 1
    np.testing.assert_array_equal(panel.ln_curves["mean_batched"].yData, stats.layer_mean[row])
    np.testing.assert_array_equal(panel.ln_curves["std_alone"].yData, stats.alone_std[row])
    np.testing.assert_allclose(
        panel.ln_curves["std_batched"].yData[:n_real], panel.ln_curves["std_alone"].yData, atol=1e-5
    )
    assert panel.pad_regions[0].getRegion() == (n_real - 0.5, len(stats.tokens[row]) - 0.5)
    # row 0 is the shown source: its LayerNorm statistics are the engine's at the first Add & Norm
    recorded = session.snapshot.encoder.extras["norms"][0, 0]
    np.testing.assert_allclose(stats.layer_mean[0], recorded[0], atol=1e-5)
    np.testing.assert_allclose(stats.layer_std[0], recorded[1], atol=1e-5)
    text = panel.batch_label.text()
    assert f"{stats.batch_norm_shift[1]:.3g}" in text and f"{stats.layer_norm_difference:.1e}" in text


def test_a_what_if_reruns_the_batch_and_is_marked(harness, panel):
    session = harness.session
    before = session.computed[batch_key(session.snapshot)]
    assert not panel.what_if_banner.isVisible()
    session.set_interventions(Interventions(no_positional=True))
    harness.wait_idle()
    assert session.snapshot.interventions.no_positional
    after = session.computed[batch_key(session.snapshot)]
    assert not np.allclose(after.residual, before.residual)
    np.testing.assert_array_equal(panel.bn_curves["mean_with_pads"].yData, after.batch_mean_with_pads)
    assert panel.what_if_banner.isVisible() and "no positional encoding" in panel.what_if_banner.text()
    assert after.layer_norm_difference < 1e-5  # padding still changes nothing for LayerNorm


def test_texts_follow_the_language(harness, panel):
    harness.session.set_kind("enc_self")
    harness.session.set_language("zh")
    assert panel.title() == "层归一化"
    assert "自注意力" in panel.mean_plots[0].titleLabel.text
    assert "BatchNorm" in panel.batch_label.text() and "填充" in panel.batch_label.text()
    assert panel.stack.itemText(0) == "编码器"
    harness.session.set_language("en")
    assert panel.title() == "LayerNorm" and "self-attention" in panel.mean_plots[0].titleLabel.text


def test_each_computation_is_asked_for_once(harness, panel):
    session = harness.session
    asked: list[tuple] = []

    def record(request) -> None:
        if isinstance(request, ComputeRequest):
            asked.append(request.key)

    session.request.connect(record)
    try:
        for _ in range(3):
            session.step_forward()
            harness.wait_idle()
        session.set_kind("enc_self")
        assert asked == []  # already computed for this source: stepping asks for nothing
        session.set_source("reverse: xyz")
        harness.wait_idle()
        assert asked == [batch_key(session.snapshot)]
        assert session.computed[asked[0]].texts == ("reverse: xyz", "reverse: x")
    finally:
        session.request.disconnect(record)


def test_the_axes_have_an_honest_fixed_range(harness, panel):
    """Tiny shifts are not blown up: the mean axis spans at least ±1, the std axis 0..1.5."""
    from visualizer.panels.layernorm import honest_range

    assert honest_range("mean", np.array([0.01, -0.02])) == pytest.approx((-1.1, 1.1))
    assert honest_range("mean", np.array([3.0, -0.5])) == pytest.approx((-3.3, 3.3))
    assert honest_range("std", np.array([0.9, 1.0])) == pytest.approx((0.0, 1.65))
    assert honest_range("std", np.array([4.0]), np.array([])) == pytest.approx((0.0, 4.4))
    assert honest_range("mean") == pytest.approx((-1.1, 1.1))
    harness.session.step_forward()
    harness.wait_idle()
    stats = shown_stats(panel, 0)  # in_mean, in_std, out_mean, out_std
    mean_range = panel.mean_plots[0].getViewBox().viewRange()[1]
    std_range = panel.std_plots[0].getViewBox().viewRange()[1]
    assert mean_range == pytest.approx(list(honest_range("mean", stats[0], stats[2])))
    assert std_range == pytest.approx(list(honest_range("std", stats[1], stats[3])))
    assert mean_range[1] >= 1.0 and std_range[0] == 0.0
