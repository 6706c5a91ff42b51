"""A real main window on a real (small) checkpoint, offscreen, with its worker thread."""

from __future__ import annotations

import gc

import pytest
from PySide6.QtCore import QSettings

from tests.waits import EVENT_MS
from visualizer.state.session import Session
from visualizer.window.main_window import MainWindow
from visualizer.work.worker import WorkerBridge


class Harness:
    def __init__(self, qtbot, window: MainWindow) -> None:
        self.qtbot = qtbot
        self.window = window
        self.session = window.session

    def wait_idle(self, timeout: int = EVENT_MS) -> None:
        self.qtbot.waitUntil(lambda: not self.session.busy, timeout=timeout)

    def open(self, path) -> None:
        self.window.open_checkpoint(path)
        self.wait_idle()
        self.qtbot.waitUntil(lambda: self.session.snapshot is not None, timeout=EVENT_MS)


@pytest.fixture(autouse=True)
def nothing_left_behind(qapp):
    """Fail a test that leaves a worker thread running or a window open."""
    yield
    running = [bridge for bridge in WorkerBridge.instances if bridge.thread.isRunning()]
    for bridge in running:
        bridge.shutdown()
    assert not running, f"{len(running)} worker thread(s) left running"
    open_windows = [w for w in qapp.topLevelWidgets() if w.isVisible() and isinstance(w, MainWindow)]
    for window in open_windows:
        window.close()
    # Collect closed windows' reference cycles here, on the GUI thread: left to chance, the
    # collector may run on a worker thread, and destroying Qt objects there deadlocks.
    gc.collect()
    assert not open_windows, f"{len(open_windows)} window(s) left open"


@pytest.fixture
def settings(tmp_path):
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


def window_on(qtbot, settings, path, source="reverse: abcdef"):
    """A shown window with ``path`` loaded and its first generation (of ``source``) started;
    closed after."""
    session = Session()
    session.source = source
    window = MainWindow(session, settings)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    result = Harness(qtbot, window)
    result.open(path)
    yield result
    window.close()
    assert not window.bridge.thread.isRunning(), "the worker thread outlived its window"


@pytest.fixture
def harness(qtbot, settings, tiny_checkpoint_path):
    yield from window_on(qtbot, settings, tiny_checkpoint_path)
