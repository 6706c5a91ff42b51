"""The ÷√d_k panel: the same head with and without the scaling, and every head's entropy."""

from __future__ import annotations

import numpy as np

from model.interface import Interventions
from model.probes.teacher_forcing import teacher_force_batch
from model.transformer.checkpoint import load_checkpoint


def test_both_runs_and_entropies_equal_the_model(harness, tiny_checkpoint_path):
    for _ in range(2):
        harness.session.step_forward()
        harness.wait_idle()
    harness.session.set_kind("cross")
    harness.session.select_head(1, 3)
    harness.window.show_panel("scaling")
    harness.wait_idle()
    panel = next(p for p in harness.window.panels if p.key == "scaling")
    snapshot = harness.session.snapshot
    target = snapshot.tokenizer.decode(snapshot.output_ids[:2])
    checkpoint = load_checkpoint(tiny_checkpoint_path, "cpu")
    [scaled] = teacher_force_batch(checkpoint, [snapshot.source], [target])
    [unscaled] = teacher_force_batch(checkpoint, [snapshot.source], [target], Interventions(no_scaling=True))
    np.testing.assert_allclose(panel.scaled.shown, scaled.attention["cross"].weights[1, 3], atol=1e-6)
    np.testing.assert_allclose(panel.unscaled.shown, unscaled.attention["cross"].weights[1, 3], atol=1e-6)
    with_scale, without = panel.entropies
    np.testing.assert_allclose(with_scale, scaled.attention["cross"].entropy(), atol=1e-6)
    np.testing.assert_allclose(without, unscaled.attention["cross"].entropy(), atol=1e-6)
    assert without.mean() < with_scale.mean()  # without the scaling the softmax saturates
    heights = panel.entropy_bars[0].opts["height"]
    np.testing.assert_allclose(heights, with_scale.ravel(), atol=1e-6)
    assert panel.what_if_banner.isVisible()
