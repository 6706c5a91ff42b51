"""The app on a real X server (Xvfb), driven with xdotool as a person would drive it.

Skipped where Xvfb, xdotool or Qt's xcb libraries are missing (.ci/run installs them).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time

import pytest

from visualizer.window.app import XCB_LIBRARIES

pytestmark = pytest.mark.skipif(
    not (shutil.which("Xvfb") and shutil.which("xdotool")), reason="Xvfb and xdotool are not installed"
)


def xcb_libraries_present() -> bool:
    import ctypes.util

    return all(ctypes.util.find_library(lib) for lib in XCB_LIBRARIES)


@pytest.fixture
def display():
    number = 90 + os.getpid() % 100
    server = subprocess.Popen(
        ["Xvfb", f":{number}", "-screen", "0", "1440x900x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.0)
    if server.poll() is not None:
        pytest.skip("Xvfb did not start")
    yield f":{number}"
    server.terminate()
    server.wait(10)


def xdotool(display: str, *args: str) -> str:
    result = subprocess.run(
        ["xdotool", *args], capture_output=True, text=True, env={**os.environ, "DISPLAY": display}, timeout=30
    )
    return result.stdout.strip()


def shown_step(display: str, window: str) -> tuple[int, int]:
    """(step shown, steps computed) read from the window title."""
    match = re.search(r"step (\d+) of (\d+)", xdotool(display, "getwindowname", window))
    return (int(match.group(1)), int(match.group(2))) if match else (-1, -1)


def wait_for_title(display: str, window: str, text: str, timeout: float = 30) -> str:
    deadline = time.time() + timeout
    title = ""
    while time.time() < deadline:
        title = xdotool(display, "getwindowname", window)
        if text in title:
            return title
        time.sleep(0.2)
    raise AssertionError(f"window title {title!r} never showed {text!r}")


@pytest.mark.skipif(not xcb_libraries_present(), reason="Qt's xcb libraries are not installed")
def test_keyboard_drives_the_app_on_a_real_display_and_ctrl_q_quits_cleanly(
    display, tiny_checkpoint_path, tmp_path
):
    env = {key: value for key, value in os.environ.items() if key != "QT_QPA_PLATFORM"}
    env.update(DISPLAY=display, HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path))
    app = subprocess.Popen(
        [sys.executable, "-m", "visualizer"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.time() + 60
        while not xdotool(display, "search", "--name", "Attention Visualizer") and time.time() < deadline:
            time.sleep(0.3)
        # the app takes keyboard focus itself: the focused window is ours, with no click
        # (the window is mapped before torch loads, so focus may follow a moment later)
        window = xdotool(display, "getwindowfocus")
        ours = "Attention Visualizer"
        while ours not in xdotool(display, "getwindowname", window) and time.time() < deadline:
            time.sleep(0.2)
            window = xdotool(display, "getwindowfocus")
        title = wait_for_title(display, window, "step 0 of 0")
        assert "default.safetensors" in title
        for _ in range(3):
            xdotool(display, "key", "Right")  # typed to whatever has focus, as a person types
            time.sleep(0.3)
        wait_for_title(display, window, "step 3 of 3")
        xdotool(display, "key", "Left")
        wait_for_title(display, window, "step 2 of 3")
        xdotool(display, "key", "space")  # play on from step 2
        deadline = time.time() + 30
        while shown_step(display, window)[0] < 5 and time.time() < deadline:
            time.sleep(0.05)
        xdotool(display, "key", "space")  # pause
        time.sleep(0.5)
        paused_at = shown_step(display, window)
        assert paused_at[0] >= 5
        time.sleep(1.0)
        assert shown_step(display, window) == paused_at  # paused means paused
        xdotool(display, "key", "ctrl+q")
        code = app.wait(30)
    finally:
        if app.poll() is None:
            app.kill()
            app.wait(10)
        stderr = app.stderr.read()
        app.stdout.close()
        app.stderr.close()
    assert code == 0, stderr
