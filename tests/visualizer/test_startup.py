"""Starting the app: platform checks before Qt can abort, and the --screenshot mode."""

from __future__ import annotations

import ctypes.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from tests.waits import PROCESS_S
from visualizer.cli.attnviz import main
from visualizer.window import app

pytestmark = pytest.mark.slow  # starts fresh processes


def fake_linux_display(monkeypatch, missing: set[str]) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("DISPLAY", ":42")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    real = ctypes.util.find_library
    monkeypatch.setattr(
        ctypes.util, "find_library", lambda name: None if name in missing else (real(name) or f"lib{name}.so")
    )
    monkeypatch.setattr(app, "display_reachable", lambda display: True)  # no server at :42 here


def test_missing_xcb_libraries_are_named_with_the_apt_line(monkeypatch, capsys):
    fake_linux_display(monkeypatch, {"xcb-cursor", "xcb-icccm"})
    problem = app.platform_problem(screenshot=False)
    assert "libxcb-cursor0" in problem and "libxcb-icccm4" in problem
    assert app.APT_LINE in problem
    assert main([]) == 2  # before any window, so Qt never gets to abort
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "apt-get install libxcb-cursor0" in err[0]


def test_all_libraries_present_is_no_problem(monkeypatch):
    fake_linux_display(monkeypatch, set())
    assert app.platform_problem(screenshot=False) is None


@pytest.mark.skipif(
    sys.platform != "linux" or ctypes.util.find_library("xcb") is None, reason="needs libxcb to ask"
)
def test_a_display_with_no_x_server_is_refused_before_qt_can_abort(monkeypatch, capsys):
    monkeypatch.setenv("DISPLAY", ":1999")  # no X server listens there
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    if any(ctypes.util.find_library(lib) is None for lib in app.XCB_LIBRARIES):
        monkeypatch.setattr(
            ctypes.util, "find_library", lambda name: f"lib{name}.so" if name != "xcb" else "libxcb.so.1"
        )
    assert not app.display_reachable(":1999")
    assert "cannot connect to the X display ':1999'" in app.platform_problem(screenshot=False)
    assert main([]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "X display" in err[0]


def test_no_display_says_so_but_a_screenshot_renders_offscreen(monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    assert "no display" in app.platform_problem(screenshot=False)
    assert app.platform_problem(screenshot=True) is None
    assert os.environ["QT_QPA_PLATFORM"] == "offscreen"


def test_every_widget_and_panel_module_imports_without_torch():
    """The window shows its pages before torch is imported: in a fresh process, importing every
    module of visualizer.widgets and visualizer.panels leaves torch unimported (import-linter
    checks the same without running anything: pyproject.toml)."""
    code = (
        "import importlib, pkgutil, sys\n"
        "import visualizer.panels, visualizer.widgets\n"
        "names = [module.name for package in (visualizer.widgets, visualizer.panels)\n"
        "         for module in pkgutil.walk_packages(package.__path__, package.__name__ + '.')]\n"
        "for name in names:\n"
        "    importlib.import_module(name)\n"
        "print(len(names), 'torch' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],  # the checkout, first on the path
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    count, torch_imported = result.stdout.split()
    assert int(count) >= 30  # every page and widget module, not a package that failed to list
    assert torch_imported == "False"


def run_attnviz(*args: str, cwd) -> subprocess.CompletedProcess:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(
        [sys.executable, "-m", "visualizer", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=PROCESS_S,
    )


def test_screenshot_runs_steps_and_saves_the_window(tiny_checkpoint_path, tmp_path, monkeypatch):
    import stat

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    out = tmp_path / "shot.png"
    result = run_attnviz(
        "--checkpoint",
        str(tiny_checkpoint_path),
        "--text",
        "reverse: abc",
        "--steps",
        "3",
        "--screenshot",
        str(out),
        "--size",
        "1000x700",
        "--view",
        "decoder",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    # the offscreen plugin's "does not support propagateSizeHints()" notice is left out
    assert result.stderr.splitlines() == [f"wrote {out}"], result.stderr
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1000, 700)
    # a screenshot remembers nothing: no settings file, and /dev/null is still the device
    assert not (tmp_path / "config").exists() and not (tmp_path / "home").exists()
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_screenshot_with_a_bad_checkpoint_exits_2_with_one_line(tmp_path):
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"garbage")
    result = run_attnviz("--checkpoint", str(bad), "--screenshot", str(tmp_path / "s.png"), cwd=tmp_path)
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if "propagateSizeHints" not in line]
    assert len(lines) == 1 and "attnviz:" in lines[0], result.stderr
    assert not (tmp_path / "s.png").exists()


# Shows a window offscreen (the plugin's size-hints notice) and warns once, inside ``dropping``.
QT_MESSAGES = """
from PySide6.QtCore import qWarning
from PySide6.QtWidgets import QApplication, QWidget
from visualizer.window.qt_messages import SIZE_HINTS_NOTICE, dropping

app = QApplication([])
with dropping(SIZE_HINTS_NOTICE):
    widget = QWidget()
    widget.show()
    app.processEvents()
    qWarning("a message of another kind")
widget.close()
"""


def test_only_the_size_hints_notice_is_dropped():
    result = subprocess.run(
        [sys.executable, "-c", QT_MESSAGES],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        timeout=PROCESS_S,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == ["a message of another kind"], result.stderr


@pytest.mark.parametrize("text", ["", "   ", "\t\n"])
def test_an_empty_source_is_refused_before_any_window_is_built(text, tmp_path, monkeypatch, capsys):
    def no_window(_args):
        raise AssertionError("the window was built")

    monkeypatch.setattr(app, "run_gui", no_window)
    out = tmp_path / "x.png"
    assert main(["--text", text, "--screenshot", str(out)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == ['attnviz: --text is empty; give a source, e.g. --text "reverse: attention"'], err
    assert not out.exists()


def test_bad_gui_options_exit_2(capsys):
    assert main(["--size", "huge"]) == 2
    assert main(["--steps", "-1"]) == 2
    assert main(["--top-p", "7"]) == 2


@pytest.mark.skipif(
    sys.platform != "linux" or ctypes.util.find_library("xcb") is None, reason="needs libxcb to ask"
)
def test_a_screenshot_renders_offscreen_when_the_display_has_no_server(monkeypatch):
    monkeypatch.setenv("DISPLAY", ":1999")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.setattr(
        ctypes.util, "find_library", lambda name: "libxcb.so.1" if name == "xcb" else f"lib{name}.so"
    )
    assert app.platform_problem(screenshot=True) is None
    assert os.environ["QT_QPA_PLATFORM"] == "offscreen"


def test_compare_screenshot_waits_for_both_sides_and_exits_cleanly(tiny_checkpoint_path, tmp_path):
    out = tmp_path / "compare.png"
    # several runs: the process once crashed at exit, one time in two, with the Compare page open
    for _ in range(3):
        result = run_attnviz(
            "--checkpoint",
            str(tiny_checkpoint_path),
            "--text",
            "reverse: abc",
            "--steps",
            "2",
            "--compare",
            str(tiny_checkpoint_path),
            "--compare-what-if",
            "no_scaling",
            "--view",
            "cross",
            "--size",
            "1000x700",
            "--overwrite",
            "--screenshot",
            str(out),
            cwd=tmp_path,
        )
        assert result.returncode == 0, result.stderr
    assert (QImage(str(out)).width(), QImage(str(out)).height()) == (1000, 700)


def test_compare_what_if_needs_compare(tiny_checkpoint_path, tmp_path):
    result = run_attnviz(
        "--compare-what-if", "no_scaling", "--screenshot", str(tmp_path / "x.png"), cwd=tmp_path
    )
    assert result.returncode == 2 and "needs --compare" in result.stderr


def test_screenshot_with_an_unknown_view_exits_2_naming_the_kinds(tiny_checkpoint_path, tmp_path):
    out = tmp_path / "x.png"
    result = run_attnviz(
        "--checkpoint", str(tiny_checkpoint_path), "--view", "bogus", "--screenshot", str(out), cwd=tmp_path
    )
    assert result.returncode == 2 and not out.exists()
    assert "--view bogus" in result.stderr and "enc_self, dec_self, cross" in result.stderr


# Runs the interactive start (the window `attnviz` opens, offscreen, through the bench's
# --probe-startup hook, which prints when the window first painted and quits once the model
# is ready) with a finder that notes when anything first looks for torch.
FIRST_TORCH_IMPORT = """
import json, sys, threading, time

seen = {}


class NoteTorch:
    def find_spec(self, name, path=None, target=None):
        if name == "torch" and "torch" not in seen:
            seen["torch"] = time.time()
            seen["thread"] = threading.current_thread().name
        return None  # the normal finders import it


sys.meta_path.insert(0, NoteTorch())
from visualizer.cli.attnviz import main

code = main(["--probe-startup"])
print(json.dumps(seen))
sys.exit(code)
"""


def test_the_first_window_is_painted_before_torch_is_imported(tmp_path):
    """The start-up promise, in a fresh process: the window's first paint is over before
    anything (the worker's warm-up, opening the model) imports torch. Ordering, not timing:
    both moments are read from the same clock in the same process."""
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path),
    }
    result = subprocess.run(
        [sys.executable, "-c", FIRST_TORCH_IMPORT], capture_output=True, text=True, env=env, timeout=180
    )
    assert result.returncode == 0, result.stderr
    *_, times_line, torch_line = result.stdout.strip().splitlines()
    times, torch = json.loads(times_line), json.loads(torch_line)
    assert "ready" in times and "torch" in torch, result.stdout  # the model loaded, so torch came
    assert times["painted"] < torch["torch"], f"torch was first imported ({torch['thread']}) before the paint"


def test_first_paint_calls_back_once_after_the_paint(qtbot):
    from PySide6.QtWidgets import QWidget

    from visualizer.window.first_paint import FirstPaint

    widget = QWidget()
    qtbot.addWidget(widget)
    calls = []
    FirstPaint(widget, lambda: calls.append(widget.isVisible()), fallback_ms=60_000)
    widget.show()
    qtbot.waitUntil(lambda: bool(calls), timeout=10_000)
    widget.update()
    qtbot.wait(50)
    assert calls == [True]


def test_first_paint_calls_back_anyway_when_a_shown_window_is_never_painted(qtbot):
    """A window started minimised is never painted: its model still loads, later."""
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtGui import QShowEvent
    from PySide6.QtWidgets import QWidget

    from visualizer.window.first_paint import FirstPaint

    widget = QWidget()
    qtbot.addWidget(widget)
    calls = []
    FirstPaint(widget, lambda: calls.append(True), fallback_ms=10)
    QCoreApplication.sendEvent(widget, QShowEvent())  # shown, as far as the filter sees, never painted
    qtbot.waitUntil(lambda: bool(calls), timeout=10_000)
    assert calls == [True]
