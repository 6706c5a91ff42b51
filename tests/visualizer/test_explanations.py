"""Every page's explanation folds into one line: by itself in a small window, or by the user's
choice, which holds on every page and is remembered between runs (never by a screenshot run)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.visualizer.conftest import window_on
from visualizer.i18n import tr
from visualizer.panels.base import ROOMY_PAGE
from visualizer.state.session import Session
from visualizer.widgets.elided_line import plain_text
from visualizer.window.main_window import MainWindow


def panel(harness, key: str):
    harness.window.show_panel(key)
    harness.qtbot.wait(20)  # the page is laid out at the window's size
    return harness.window.pages.currentWidget().panel


def shown(panel) -> bool:
    """The whole explanation is shown (else its one line, with the toggle)."""
    assert panel.explanation.isVisible() != panel.explanation_line.isVisible()
    return panel.explanation.isVisible()


def test_a_small_window_folds_every_explanation_a_large_one_shows_it(harness):
    harness.window.resize(1440, 900)
    masks = panel(harness, "masks")
    assert masks.room >= ROOMY_PAGE and shown(masks)
    assert masks.explanation_toggle.arrowType() == Qt.ArrowType.DownArrow
    harness.window.resize(1024, 700)
    harness.qtbot.waitUntil(lambda: not shown(masks))
    assert masks.room < ROOMY_PAGE
    assert masks.explanation_toggle.arrowType() == Qt.ArrowType.RightArrow
    # folded, the page still says what it is about: the explanation's start, cut with "…"
    line = masks.explanation_line
    assert line.full == plain_text(masks.explain("en")) and line.full.startswith("Scaled dot-product")
    assert line.text().endswith("…") and line.full.startswith(line.text()[:-1])
    assert not shown(panel(harness, "train"))


def test_the_users_choice_holds_on_every_page_and_is_remembered(qtbot, settings, tiny_checkpoint_path):
    opened = window_on(qtbot, settings, tiny_checkpoint_path)
    harness = next(opened)
    harness.window.resize(1024, 700)
    masks = panel(harness, "masks")
    assert not shown(masks)
    qtbot.mouseClick(masks.explanation_toggle, Qt.MouseButton.LeftButton)
    assert shown(masks) and harness.session.explanations is True
    assert shown(panel(harness, "train"))  # every page, not only the one clicked
    assert masks.explanation_toggle.toolTip() == tr("Hide the explanation", "en")
    next(opened, None)  # the window closes: it saves what it remembers
    assert str(settings.value("explanations")).lower() == "true"

    opened = window_on(qtbot, settings, tiny_checkpoint_path)  # the next run
    harness = next(opened)
    harness.window.resize(1024, 700)
    train = panel(harness, "train")
    assert harness.session.explanations is True and shown(train)
    qtbot.mouseClick(train.explanation_toggle, Qt.MouseButton.LeftButton)
    assert not shown(train) and not shown(panel(harness, "masks"))
    harness.window.resize(1440, 900)  # hidden by choice: a large window keeps it folded
    qtbot.wait(20)
    assert not shown(panel(harness, "masks"))
    # the folded line unfolds it too
    qtbot.mouseClick(panel(harness, "masks").explanation_line, Qt.MouseButton.LeftButton)
    assert shown(panel(harness, "masks"))
    qtbot.mouseClick(panel(harness, "masks").explanation_toggle, Qt.MouseButton.LeftButton)
    next(opened, None)
    assert str(settings.value("explanations")).lower() == "false"


def test_a_screenshot_run_neither_reads_nor_writes_the_choice(qtbot, settings):
    settings.setValue("explanations", False)
    session = Session()
    window = MainWindow(session, settings, remember=False)
    qtbot.addWidget(window)
    window.resize(1440, 900)
    window.show()
    window.show_panel("masks")
    qtbot.wait(20)
    masks = window.pages.currentWidget().panel
    assert session.explanations is None and shown(masks)  # as the room allows, not as remembered
    for _ in range(2):  # hidden, then shown again: chosen in this run only
        qtbot.mouseClick(masks.explanation_toggle, Qt.MouseButton.LeftButton)
    assert session.explanations is True and shown(masks)
    window.close()
    assert str(settings.value("explanations")).lower() == "false"  # nothing written


def test_a_page_whose_words_follow_the_model_folds_the_same_words(harness):
    """The Masks page words its explanation after the model shown (an RNN's additive scores are
    not QKᵀ): the folded line is the explanation the page shows, not the one it had first."""
    from model.shipped import rnn_checkpoint_path

    harness.window.resize(1024, 700)
    masks = panel(harness, "masks")
    harness.open(rnn_checkpoint_path("additive"))
    harness.qtbot.waitUntil(lambda: "tanh" in masks.explanation.text())
    assert masks.explanation_line.full == plain_text(masks.explanation.text())
    assert "tanh" in masks.explanation_line.full
