"""The beam-search panel: the tree drawn is the engine's search, node for node, and a clicked
hypothesis shows the cross-attention of the decoder teacher-forced over its tokens."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from model.probes.teacher_forcing import teacher_force
from model.transformer.checkpoint import default_checkpoint_path, load_checkpoint
from tests.waits import EVENT_MS
from visualizer.panels.beam_tree import BEST_COLOR, FUTURE_OPACITY, STYLES, NodeItem, signed
from visualizer.widgets.heatmap import display_token


def panel_of(harness):
    return next(p for p in harness.window.panels if p.key == "beam")


def step(harness, times: int = 1) -> None:
    for _ in range(times):
        harness.session.step_forward()
        harness.wait_idle()


@pytest.fixture
def beam(harness):
    """The beam panel shown, with beam search of width 3 chosen."""
    harness.window.show_panel("beam")
    harness.wait_idle()
    session = harness.session
    session.set_settings(session.with_settings(strategy="beam", beam_width=3))
    harness.wait_idle()
    return panel_of(harness)


def gold_path(result) -> set[int]:
    """Ids from the best node back to the root, walked here rather than by the panel."""
    ids, node_id = set(), result.best_node
    while node_id is not None:
        ids.add(node_id)
        node_id = result.nodes[node_id].parent
    return ids


def as_text(tokenizer, path: list[int]) -> str | None:
    """The target text whose tokens are ``path`` (an <eos> at its end aside), or None if none is."""
    body = path[:-1] if path and path[-1] == tokenizer.eos_id else path
    text = tokenizer.decode(body)
    return text if tokenizer.encode(text).ids == body else None


def test_other_strategies_offer_a_switch_to_beam_search(harness, qtbot):
    harness.window.show_panel("beam")
    harness.wait_idle()
    panel = panel_of(harness)
    assert harness.session.settings.strategy == "greedy"
    assert panel.notice.isVisible() and "greedy" in panel.notice.text()
    assert panel.switch_button.isVisible() and not panel.content.isVisible()
    harness.window.grid.setFocus()
    qtbot.mouseClick(panel.switch_button, Qt.MouseButton.LeftButton)
    harness.wait_idle()
    assert harness.session.settings.strategy == "beam"
    assert not panel.switch_button.isVisible()
    # the keyboard stays with the views: not handed to the Source box when the button hid
    assert harness.window.source_bar.edit is not QApplication.focusWidget()
    assert "step" in panel.notice.text()  # no tree before the first step
    step(harness)
    assert panel.content.isVisible() and not panel.notice.isVisible()
    assert len(panel.tree.items) == len(harness.session.snapshot.beam.nodes) > 1


def test_every_node_is_drawn_once_with_its_token_and_score(harness, beam):
    step(harness, 3)
    result = harness.session.snapshot.beam
    tokenizer = harness.session.snapshot.tokenizer
    drawn = [item for item in beam.tree.scene().items() if isinstance(item, NodeItem)]
    assert sorted(item.node.id for item in drawn) == [node.id for node in result.nodes]
    assert set(beam.tree.edges) == {node.id for node in result.nodes[1:]}
    for node in result.nodes:
        item = beam.tree.items[node.id]
        assert item.node is node
        token = "<bos>" if node.parent is None else display_token(tokenizer.token_text(node.token))
        assert item.label == f"{token}  {signed(node.logprob)}"
        assert f"{abs(node.logprob):.2f}" in item.label
    # each edge joins the parent's box to the child's
    for node in result.nodes[1:]:
        path = beam.tree.edges[node.id].path()
        parent, child = beam.tree.items[node.parent], beam.tree.items[node.id]
        assert path.pointAtPercent(0).x() == pytest.approx(parent.sceneBoundingRect().right(), abs=2)
        assert path.pointAtPercent(1).x() == pytest.approx(child.sceneBoundingRect().left(), abs=2)
        assert child.pos().x() > parent.pos().x()  # x = depth


def test_styles_follow_the_statuses_and_the_best_path(harness, beam):
    harness.session.run_to_end()
    harness.wait_idle()
    snapshot = harness.session.snapshot
    result = snapshot.beam
    statuses = {node.status for node in result.nodes}
    assert {"kept", "pruned"} <= statuses
    best = gold_path(result)
    for node in result.nodes:
        item = beam.tree.items[node.id]
        style = STYLES[node.status]
        assert item.brush().color().name() == style.fill
        assert item.on_best == (node.id in best)
        assert item.pen().color().name() == (BEST_COLOR if node.id in best else style.border)
        if node.parent is not None:
            edge = beam.tree.edges[node.id].pen()
            assert (edge.color().name() == BEST_COLOR) == (node.id in best)
            assert (edge.style() == Qt.PenStyle.DashLine) == (node.status == "pruned")
    # the gold path spells the engine's output
    gold_tokens = [result.nodes[i].token for i in sorted(best, key=lambda i: result.nodes[i].step)][1:]
    assert gold_tokens == list(snapshot.output_ids) == result.best
    assert STYLES["pruned"].fill != STYLES["kept"].fill != STYLES["finished"].fill


def test_the_tree_grows_with_the_cursor(harness, beam):
    step(harness, 3)
    session = harness.session
    result = session.snapshot.beam
    assert max(node.step for node in result.nodes) > 2  # the search planned beyond the shown step

    def check(cursor: int, show_future: bool) -> None:
        for node in result.nodes:
            item = beam.tree.items[node.id]
            future = node.step > cursor
            assert item.isVisible() == (show_future or not future), node
            assert item.opacity() == (FUTURE_OPACITY if future else 1.0)
            if node.parent is not None:
                assert beam.tree.edges[node.id].isVisible() == item.isVisible()

    check(2, False)
    beam.future_box.setChecked(True)
    check(2, True)
    beam.future_box.setChecked(False)
    session.go_to_step(0)
    check(0, False)
    session.go_to_step(-1)
    assert [n.id for n in result.nodes if beam.tree.items[n.id].isVisible()] == [0]
    session.run_to_end()
    harness.wait_idle()
    assert all(item.isVisible() and item.opacity() == 1.0 for item in beam.tree.items.values())


def test_by_default_the_heatmap_follows_the_output(harness, beam):
    """Teacher-forced over the output so far, the rows equal the engine's step by step."""
    step(harness, 4)
    harness.wait_idle()
    session = harness.session
    steps = session.snapshot.steps
    for layer, head in [(0, 0), (1, 3), (1, None)]:
        session.select_head(layer, head)
        harness.wait_idle()
        expected = np.stack(
            [
                s.attention["cross"][layer].mean(0) if head is None else s.attention["cross"][layer, head]
                for s in steps
            ]
        )
        np.testing.assert_allclose(beam.shown, expected, atol=1e-5)
        np.testing.assert_array_equal(beam.matrix.image.image, beam.shown)
    session.go_to_step(1)
    harness.wait_idle()
    assert beam.shown.shape[0] == 2


def test_selecting_a_node_shows_its_teacher_forced_attention(harness, beam, tiny_checkpoint, qtbot):
    step(harness, 3)
    snapshot = harness.session.snapshot
    result, tokenizer = snapshot.beam, snapshot.tokenizer
    best = gold_path(result)
    choices = [
        n for n in result.nodes if n.step == 2 and n.id not in best and as_text(tokenizer, result.path(n.id))
    ]
    node = choices[-1]
    path = result.path(node.id)
    beam.select_node(node.id)
    harness.wait_idle()
    record = teacher_force(tiny_checkpoint, snapshot.source, as_text(tokenizer, path))
    record_cross = record.attention("cross").weights
    for layer, head in [(0, 1), (1, 2), (0, None)]:
        harness.session.select_head(layer, head)
        harness.wait_idle()
        cross = record_cross[layer].mean(0) if head is None else record_cross[layer, head]
        np.testing.assert_allclose(beam.shown, cross[: len(path)], atol=1e-5)
        np.testing.assert_array_equal(beam.matrix.image.image, beam.shown)
    title = beam.heat_title.text
    assert tokenizer.decode(path) in title and signed(node.logprob) in title
    assert beam.tree.outline.isVisible() and beam.tree.outline.pos() == beam.tree.items[node.id].pos()

    # a click on another box selects that hypothesis
    other = next(n for n in result.nodes if n.step == 1 and n.id != node.parent)
    view = beam.tree
    item = view.items[other.id]
    view.ensureVisible(item)
    point = view.mapFromScene(item.sceneBoundingRect().center())
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    harness.wait_idle()
    assert beam.selected == other.id
    assert beam.shown.shape[0] == 2
    beam.select_node(0)  # the root: nothing written yet
    assert beam.shown is None and beam.matrix.image.image is None


def test_finished_hypotheses_of_the_shipped_model(harness, qtbot):
    """The trained model ends hypotheses with <eos>: they are drawn finished, with their attention."""
    session = harness.session
    harness.open(default_checkpoint_path())
    harness.window.show_panel("beam")
    session.source = "date: 29 November 2026"
    session.set_settings(session.with_settings(strategy="beam", beam_width=3))
    harness.wait_idle()
    session.run_to_end()
    harness.wait_idle()
    qtbot.waitUntil(lambda: session.snapshot.stop_reason is not None, timeout=EVENT_MS)
    panel = panel_of(harness)
    snapshot = session.snapshot
    result, tokenizer = snapshot.beam, snapshot.tokenizer
    assert tokenizer.decode(snapshot.output_ids) == "2026-11-29"
    finished = [n for n in result.nodes if n.status == "finished"]
    assert result.nodes[result.best_node] in finished
    for node in finished:
        item = panel.tree.items[node.id]
        assert node.token == tokenizer.eos_id and item.label.startswith("<eos>")
        assert item.brush().color().name() == STYLES["finished"].fill
    runner_up = max((n for n in finished if n.id != result.best_node), key=lambda n: n.logprob)
    path = result.path(runner_up.id)
    panel.select_node(runner_up.id)
    harness.wait_idle()
    checkpoint = load_checkpoint(default_checkpoint_path(), "cpu")
    record = teacher_force(checkpoint, snapshot.source, as_text(tokenizer, path))
    record_cross = record.attention("cross").weights
    session.select_head(1, 0)
    harness.wait_idle()
    assert record_cross.shape[2] == len(path)  # one row per token written, <eos> included
    np.testing.assert_allclose(panel.shown, record_cross[1, 0], atol=1e-5)
    assert "finished" in panel.heat_title.text


def test_the_panel_speaks_chinese(harness, beam):
    step(harness, 2)
    harness.session.set_language("zh")
    # the tab holds the panel's page (the panel, or why the model cannot be shown there)
    page = next(page for page in harness.window.panel_pages if page.panel is beam)
    assert harness.window.pages.tabText(harness.window.pages.indexOf(page)) == "束搜索"
    assert "束搜索" in beam.explanation.text() and "已剪枝" in beam.legend.text()
    assert beam.tree.headers[0].text() == "第 1 步" and beam.tree.headers[-1].text() == "起点"
    assert beam.head_combo.itemText(0) == "平均"
    harness.session.set_settings(harness.session.with_settings(strategy="greedy"))
    harness.wait_idle()
    assert "贪心" in beam.notice.text() and beam.switch_button.text() == "切换到束搜索"
