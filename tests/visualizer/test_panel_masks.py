"""The masks panel: every stage of attention for the selected head, from the live model."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PySide6.QtCore import QPointF

from model.probes.teacher_forcing import teacher_force_batch
from model.registry import open_model
from model.transformer.checkpoint import load_checkpoint
from tests.factories import write_small_rnn
from tests.visualizer.conftest import window_on
from visualizer.widgets.heatmap import display_token


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


# -- each family's own stages ------------------------------------------------------------------
@pytest.fixture(params=["additive", "dot", "scaled_dot"])
def rnn_harness(request, qtbot, settings, tmp_path):
    path = write_small_rnn(tmp_path / f"{request.param}.safetensors", request.param)
    yield from window_on(qtbot, settings, path)


def stepped_masks_panel(harness, steps: int = 4):
    for _ in range(steps):
        harness.session.step_forward()
        harness.wait_idle()
    return masks_panel(harness)


def titles(panel) -> list[str]:
    return [cell.plot.titleLabel.text for (row, _stage), cell in panel.cells.items() if row == 0]


def test_the_transformer_page_says_qk_and_its_scale(harness):
    panel = stepped_masks_panel(harness, 2)
    stages = [name for row, name in panel.cells if row == 0]
    assert stages == ["raw", "scaled", "mask", "masked", "softmax"]
    assert titles(panel)[:2] == ["QKᵀ<br>(raw scores)", "÷ √d_k<br>(scaled)"]
    assert "softmax(QKᵀ / √d_k)" in panel.explanation.text() and "causal mask" in panel.explanation.text()
    assert "scale 1/√d_k = 0.3536" in panel.status.text()  # d_k = 8 in the tiny checkpoint


def test_an_rnn_page_shows_its_own_score_function_with_its_own_tensors(rnn_harness):
    panel = stepped_masks_panel(rnn_harness)
    session = rnn_harness.session
    snapshot, rnn = session.snapshot, session.model
    # no word of the Transformer's QKᵀ / √d_k on a model that computes neither
    text = panel.explanation.text() + " ".join(titles(panel)) + panel.status.text()
    assert "softmax(QKᵀ / √d_k)" not in text and "1/√d_k" not in text and "QKᵀ<br>" not in text
    score = rnn.family.kind("alignment").score
    names = [name for row, name in panel.cells if row == 0]
    assert names == [stage.name for stage in score.stages] + ["mask", "masked", "softmax"]
    assert panel.explanation.text().startswith(score.explanation) and "causal mask" not in text
    engine_rows = np.stack([step.attention["alignment"][0, 0] for step in snapshot.steps])
    shown = {name: panel.cells[(0, name)].shown for name in names}
    # softmax of the page's masked scores is the attention the engine recorded at each step
    masked = torch.from_numpy(np.asarray(shown["masked"], dtype=np.float32))
    weights = torch.softmax(masked, -1).numpy()
    np.testing.assert_allclose(weights[: len(snapshot.steps)], engine_rows, atol=1e-5)
    # and each stage is the same arithmetic done by hand from the model's parameters
    model = open_model(snapshot_path(rnn_harness), "cpu")
    target = list(snapshot.output_ids[:4])
    if target[-1] == model.tokenizer.eos_id:  # the page reads what was generated, without <eos>
        target.pop()
    expected = by_hand(model, snapshot.source, target)
    np.testing.assert_allclose(shown["raw"], expected["raw"], atol=1e-5)
    kind = model.config.score
    if kind == "additive":
        query = panel.shown_query(0)
        assert query == session.cursor == 3
        np.testing.assert_allclose(shown["query"], expected["query"], atol=1e-5)  # [Q, A]
        np.testing.assert_allclose(shown["keys"], expected["keys"].T, atol=1e-5)  # [A, K]
        np.testing.assert_allclose(shown["tanh"], expected["tanh"][query].T, atol=1e-5)  # [A, K]
        assert titles(panel)[2] == f"tanh(W s + U h)<br>(at query {query} {label(panel, query)!r})"
        assert "the scores are not scaled" in panel.status.text()
    elif kind == "dot":
        assert "the scores are not scaled" in panel.status.text()
    else:
        np.testing.assert_allclose(shown["scaled"], expected["raw"] / 4.0, atol=1e-5)  # d = 16
        assert "scale 1/√d = 0.2500" in panel.status.text()
    # hovering a score cell follows it through the family's own stages
    symbol = score.stage("raw").symbol
    assert panel.pipeline_text(0, 1, 2).startswith(f"query 1 {label(panel, 1)!r} · key 2 'v': ")
    assert f"{symbol} {shown['raw'][1, 2]:.3f}" in panel.pipeline_text(0, 1, 2)


def snapshot_path(harness):
    return harness.session.model.path


def label(panel, query: int) -> str:
    return display_token(panel.items[0].attention["alignment"].query_tokens[query])


def by_hand(model, source: str, target: list[int]) -> dict[str, np.ndarray]:
    """Each stage of the RNN's score from its parameters, the decoder reading <bos> + ``target``."""
    rnn = model.model
    src = torch.tensor([model.tokenizer.encode_source(source).ids])
    with torch.no_grad():
        encoded = rnn.encode(src, torch.zeros_like(src, dtype=torch.bool))
        h = encoded.states[0]  # (S, 2H)
        state, states = rnn.start_state(encoded), []
        for token in [model.tokenizer.bos_id, *target]:
            states.append(state[0])  # s_{i-1}, the state position i scores with
            state = rnn.step(torch.tensor([token]), state, encoded).state
        s = torch.stack(states)  # (T, D)
        if rnn.config.score != "additive":
            return {"raw": (s @ h.T).numpy()}
        Ws = s @ rnn.query_proj.weight.T  # (T, A)
        Uh = h @ rnn.key_proj.weight.T + rnn.key_proj.bias  # (S, A)
        hidden = torch.tanh(Ws[:, None] + Uh[None])  # (T, S, A)
        raw = hidden @ rnn.score_vector.weight[0]  # (T, S)
    return {"query": Ws.numpy(), "keys": Uh.numpy(), "tanh": hidden.numpy(), "raw": raw.numpy()}


def test_a_part_cell_is_named_by_its_own_axes_and_the_words_follow_the_language(qtbot, settings, tmp_path):
    path = write_small_rnn(tmp_path / "additive.safetensors", "additive")
    for harness in window_on(qtbot, settings, path):
        panel = stepped_masks_panel(harness, 2)
        tanh = panel.cells[(0, "tanh")]
        text = panel.cell_text(0, stage_of(panel, "tanh"), 5, 1)
        cell = f"query 1 {label(panel, 1)!r} · dim 5 · key 1 'e'"
        assert text == f"tanh(W s + U h) · {cell}: {tanh.shown[5, 1]:.4f}"
        harness.session.set_language("zh")
        harness.wait_idle()
        assert panel.explanation.text().startswith("<b>加性注意力</b>")
        assert "上下文。然后由<b>掩码</b>" in panel.explanation.text()  # no space between the sentences
        assert titles(panel)[0] == "W s<br>（解码器状态）" and "分数不缩放" in panel.status.text()
        words = panel.cell_text(0, stage_of(panel, "query"), 0, 3)
        assert words == f"W s · 查询 0 '<bos>' · 第 3 维：{panel.cells[(0, 'query')].shown[0, 3]:.4f}"
        harness.session.set_language("en")


def stage_of(panel, name: str):
    return next(stage for stage in panel.grid[1] if stage.name == name)


def test_every_row_of_a_padded_batch_draws_open_entries_white_and_blocked_ones_dark(harness):
    """The mask's grey scale is reversed for each row's plot on a copy: reversing pyqtgraph's
    shared map in place turned it back for the first row (all its open entries drawn dark)."""
    panel = masks_panel(harness)
    panel.batch.setChecked(True)
    harness.wait_idle()
    for row in (0, 1):
        colormap = panel.cells[(row, "mask")].image.getColorMap()
        open_colour, blocked_colour = (colormap.map(value, mode="qcolor") for value in (0.0, 1.0))
        assert open_colour.lightness() > 200 and blocked_colour.lightness() < 60, row
    import pyqtgraph as pg

    shared = pg.colormap.get("CET-L1").map(0.0, mode="qcolor")
    assert shared.lightness() < 60  # the library's own map is left as it was: dark at 0
