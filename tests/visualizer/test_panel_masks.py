"""The masks panel: every stage of attention for the selected head, from the live model."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF

from model.probes.teacher_forcing import teacher_force_batch
from model.transformer.checkpoint import load_checkpoint


def masks_panel(harness):
    harness.window.show_panel("masks")
    harness.wait_idle()
    return next(p for p in harness.window.panels if p.key == "masks")


def test_stages_equal_the_model_and_minus_infinity_sits_exactly_on_the_mask(harness, tiny_checkpoint_path):
    for _ in range(3):
        harness.session.step_forward()
        harness.wait_idle()
    harness.session.set_kind("dec_self")
    harness.session.select_head(1, 2)
    panel = masks_panel(harness)
    harness.wait_idle()
    snapshot = harness.session.snapshot
    target = snapshot.tokenizer.decode(snapshot.output_ids[:3])
    checkpoint = load_checkpoint(tiny_checkpoint_path, "cpu")
    [expected] = teacher_force_batch(checkpoint, [snapshot.source], [target])
    dec = expected.attention["dec_self"]
    cells = {stage: panel.cells[(0, stage)] for stage in ("raw", "scaled", "mask", "masked", "softmax")}
    np.testing.assert_allclose(cells["raw"].shown, dec.scores[1, 2], atol=1e-5)
    np.testing.assert_allclose(cells["scaled"].shown, dec.scores[1, 2] * dec.scale, atol=1e-5)
    np.testing.assert_array_equal(cells["mask"].shown.astype(bool), dec.mask)
    masked = cells["masked"].shown
    np.testing.assert_array_equal(np.isneginf(masked), dec.mask)  # −∞ exactly where the mask says
    drawn = cells["masked"].image.image
    assert np.isnan(drawn[dec.mask]).all() and np.isfinite(drawn[~dec.mask]).all()  # drawn apart
    np.testing.assert_allclose(cells["softmax"].image.image, dec.weights[1, 2], atol=1e-6)
    # and the teacher-forced rows are exactly what the engine computed step by step
    for t, step in enumerate(snapshot.steps):
        np.testing.assert_allclose(
            cells["softmax"].image.image[t, : t + 1], step.attention["dec_self"][1, 2], atol=1e-5
        )
    # the causal mask: strictly above the diagonal
    np.testing.assert_array_equal(dec.mask, np.triu(np.ones_like(dec.mask), 1))


def test_removing_the_causal_mask_is_marked_and_changes_the_weights(harness):
    for _ in range(3):
        harness.session.step_forward()
        harness.wait_idle()
    harness.session.set_kind("dec_self")
    panel = masks_panel(harness)
    before = panel.cells[(0, "softmax")].image.image.copy()
    panel.no_causal.setChecked(True)
    harness.wait_idle()
    assert panel.what_if_banner.isVisible()
    after = panel.cells[(0, "softmax")].image.image
    assert not panel.cells[(0, "mask")].shown.any()
    assert (after[0, 1:] > 0).all() and (before[0, 1:] == 0).all()  # the first query now sees the future
    panel.no_causal.setChecked(False)
    harness.wait_idle()
    assert not panel.what_if_banner.isVisible()


def test_padded_batch_shows_key_padding_masks(harness):
    harness.session.set_kind("enc_self")
    panel = masks_panel(harness)
    panel.batch.setChecked(True)
    harness.wait_idle()
    assert len(panel.items) == 2
    short = panel.items[1]
    real = len(short.source) + 1
    mask = panel.cells[(1, "mask")].shown.astype(bool)
    assert mask[:, real:].all() and not mask[:, :real].any()  # padding keys hidden, and only they
    assert (panel.cells[(1, "softmax")].image.image[:, real:] == 0).all()


def test_teacher_forced_target_shows_per_position_loss(harness):
    panel = masks_panel(harness)
    panel.mode.setCurrentIndex(1)
    panel.target.setText("fedcba")
    panel.target.editingFinished.emit()
    harness.wait_idle()
    item = panel.items[0]
    assert item.target == "fedcba" and len(item.loss) == 7
    assert "mean" in panel.loss_label.text() and f"{np.nanmean(item.loss):.3f}" in panel.loss_label.text()


def test_a_failing_computation_is_reported_in_the_panel_and_not_retried(harness, monkeypatch):
    import model.probes.teacher_forcing as teacher_forcing
    from visualizer.state.jobs import TeacherForcedJob
    from visualizer.work import jobs

    calls = []

    def explode(*args, **kwargs):
        calls.append(1)
        raise RuntimeError("simulated failure in a what-if")

    monkeypatch.setitem(jobs.JOBS, TeacherForcedJob, explode)
    panel = masks_panel(harness)
    harness.wait_idle()
    assert panel.failure.isVisible() and "simulated failure" in panel.failure.text()
    panel.refresh()
    harness.wait_idle()
    assert len(calls) == 1  # a failed key is not asked again
    harness.session.step_forward()  # stepping still works while a panel has failed
    harness.wait_idle()
    assert len(harness.session.snapshot.steps) == 1
    assert teacher_forcing.teacher_force_batch is not explode


def test_the_last_step_at_the_maximum_length_still_draws(harness):
    harness.session.run_to_end()
    harness.wait_idle()
    snapshot = harness.session.snapshot
    panel = masks_panel(harness)
    harness.wait_idle()
    assert not panel.failure.isVisible()
    assert len(panel.items[0].target) <= snapshot.info.max_target_len - 1


def test_the_panel_chooses_the_kind_of_attention_and_shows_cross_padding(harness):
    panel = masks_panel(harness)
    panel.kind.setCurrentIndex(panel.kind.findData("cross"))
    assert harness.session.kind == "cross"
    panel.batch.setChecked(True)
    harness.wait_idle()
    short = panel.items[1]
    real = len(short.source) + 1
    mask = panel.cells[(1, "mask")].shown.astype(bool)
    assert mask[:, real:].all() and not mask[:, :real].any()  # cross-attention hides padding keys too
    harness.session.set_kind("dec_self")
    assert panel.kind.currentData() == "dec_self"


def test_score_stages_share_one_scale_with_a_bar_and_hover_follows_a_cell_through_the_pipeline(harness):
    for _ in range(3):
        harness.session.step_forward()
        harness.wait_idle()
    harness.session.set_kind("dec_self")
    harness.session.select_head(0, 1)
    panel = masks_panel(harness)
    harness.wait_idle()
    cells = {stage: panel.cells[(0, stage)] for stage in ("raw", "scaled", "masked", "softmax")}
    raw = cells["raw"].shown
    bound = float(np.abs(raw[np.isfinite(raw)]).max())
    # QKᵀ, ÷√d_k and the masked scores on one scale: the scaled scores look smaller, as they are
    for stage in ("raw", "scaled", "masked"):
        np.testing.assert_allclose(cells[stage].image.levels, (-bound, bound), rtol=1e-6)
    np.testing.assert_allclose(panel.score_bars[0].levels(), (-bound, bound), rtol=1e-6)
    assert float(np.abs(cells["scaled"].shown).max()) < bound  # divided by √d_k > 1
    # hovering a cell (query 2, key 1: open under the causal mask) names its numbers at every stage
    scene_pos = cells["softmax"].viewbox.mapViewToScene(QPointF(1.5, 2.5))
    panel.on_mouse_moved(scene_pos)
    text = panel.hover.text()
    for value in (raw[2, 1], cells["scaled"].shown[2, 1]):
        assert f"{value:.3f}" in text
    assert f"{cells['softmax'].shown[2, 1]:.4f}" in text and "open" in text
    # a blocked cell (query 0, key 2) reads −∞ after the mask and weight 0
    panel.on_mouse_moved(cells["raw"].viewbox.mapViewToScene(QPointF(2.5, 0.5)))
    assert "blocked → −∞" in panel.hover.text() and "softmax 0.0000" in panel.hover.text()
    # the readout belongs to the shown state: a new step clears it
    harness.session.step_back()
    harness.wait_idle()
    assert panel.hover.text().strip() == ""
