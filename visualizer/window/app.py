"""Starting the desktop app: platform checks, the window, and the --screenshot mode."""

from __future__ import annotations

import ctypes.util
import os
import sys
from contextlib import AbstractContextManager, nullcontext
from functools import partial
from pathlib import Path

from visualizer import APP_ID

# Qt's xcb platform plugin needs these; without them Qt aborts the whole process.
XCB_LIBRARIES = {
    "xcb-cursor": "libxcb-cursor0",
    "xcb-icccm": "libxcb-icccm4",
    "xcb-keysyms": "libxcb-keysyms1",
    "xcb-image": "libxcb-image0",
    "xcb-render-util": "libxcb-render-util0",
    "xcb-xinerama": "libxcb-xinerama0",
    "xcb-xkb": "libxcb-xkb1",
    "xkbcommon-x11": "libxkbcommon-x11-0",
    "xcb-shape": "libxcb-shape0",
}
APT_LINE = "sudo apt-get install " + " ".join(XCB_LIBRARIES.values())


def platform_problem(screenshot: bool) -> str | None:
    """Why Qt would abort on this machine's display, or None. May switch to offscreen."""
    if sys.platform != "linux":
        return None
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform and not platform.startswith("xcb"):
        return None
    if not os.environ.get("DISPLAY"):
        if screenshot:  # a screenshot needs no screen: render offscreen
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
            return None
        if os.environ.get("WAYLAND_DISPLAY") and not platform:
            return None
        return "no display: set DISPLAY (or run under Xvfb), or use --screenshot, which renders offscreen"
    missing = [package for lib, package in XCB_LIBRARIES.items() if ctypes.util.find_library(lib) is None]
    if missing:
        return (
            f"Qt's xcb platform plugin needs system libraries that are missing "
            f"({', '.join(missing)}); install them with: {APT_LINE}"
        )
    display = os.environ["DISPLAY"]
    if not display_reachable(display):
        if screenshot:  # as with no display at all: render offscreen
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
            return None
        return f"cannot connect to the X display {display!r}: is the X server running? (or use --screenshot)"
    return None


def display_reachable(display: str) -> bool:
    """Whether an X server answers at ``display`` (Qt aborts the process when none does)."""
    library = ctypes.util.find_library("xcb")
    if library is None:
        return True  # cannot tell; Qt will say
    xcb = ctypes.CDLL(library)
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    connection = xcb.xcb_connect(os.fsencode(display), None)  # never NULL: an error object on failure
    try:
        return xcb.xcb_connection_has_error(connection) == 0
    finally:
        xcb.xcb_disconnect(connection)


def run_gui(args) -> int:
    """The window is built and painted before torch is imported: the interactive window starts
    its worker (whose first job imports torch) once it has painted (MainWindow, FirstPaint)."""
    probe = getattr(args, "probe_startup", False)
    problem = platform_problem(bool(args.screenshot) or probe)
    if problem:
        print(f"attnviz: {problem}", file=sys.stderr)
        return 2
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Attention Visualizer")
    app.setOrganizationName("attention-visualizer")
    app.setDesktopFileName(APP_ID)  # the desktop entry `attnviz install-desktop` writes

    from model.shipped import default_checkpoint_path
    from visualizer.state.session import Session
    from visualizer.window.first_paint import FirstPaint
    from visualizer.window.main_window import MainWindow

    session = Session()
    session.device = args.device
    # A screenshot neither reads nor writes the user's remembered settings. (Never point
    # QSettings at /dev/null: it saves by writing a temporary file and renaming it over the
    # target, which as root replaces the device.)
    interactive = not (args.screenshot or probe)
    window = MainWindow(
        session, QSettings() if interactive else None, remember=interactive, lazy_panels=not args.screenshot
    )
    checkpoint = args.checkpoint or default_checkpoint_path()
    try:
        apply_options(window, session, args)
    except Exception:
        dispose(window)
        raise
    if args.screenshot:
        return take_screenshot(app, window, session, checkpoint, args)
    if probe:
        return probe_startup(app, window, session, checkpoint)
    window.show()
    window.raise_()
    window.activateWindow()  # without a window manager (Xvfb, kiosks) nothing else gives focus
    window.grid.setFocus()
    window.open_checkpoint(checkpoint)  # queued: the window's worker starts once it has painted
    if args.compare is not None:  # side B's worker starts at once: open it after the paint too
        FirstPaint(window, partial(window.compare_with, args.compare, args.compare_what_if))
    code = app.exec()
    dispose(window)
    return code


def take_screenshot(app, window, session, checkpoint: Path, args) -> int:
    """Load, run ``--steps`` steps, save the whole window as PNG, exit (2 on any error)."""
    from PySide6.QtCore import QTimer

    from visualizer.state.options import decoding_settings

    width, height = parse_size(args.size)
    window.resize(width, height)
    session.settings = decoding_settings(args)  # a screenshot never depends on remembered settings
    window.decoding.show_settings(session.settings)
    errors: list[str] = []
    done = []

    def on_message(level: str, text: str) -> None:
        if level == "error":
            errors.append(text)
            app.exit(2)

    def on_busy(_busy: bool) -> None:
        # the model is loaded and --steps steps have run (session.initial_steps) once idle;
        # with --compare, side B has caught up too
        if not done and settled(session) and (window.compare is None or caught_up(window.compare.session)):
            done.append(True)
            family = session.model.family
            if args.view and family.resolve_kind(args.view) is None:
                errors.append(
                    f"--view {args.view}: this model has no such kind; it has {', '.join(family.kind_names)}"
                )
                app.exit(2)
                return
            QTimer.singleShot(100, save)

    def caught_up(other) -> bool:
        steps = len(session.snapshot.steps)
        return settled(other) and (
            len(other.snapshot.steps) >= steps or other.snapshot.stop_reason is not None
        )

    def save() -> None:
        app.processEvents()
        panel = getattr(window.pages.currentWidget(), "built_panel", None)
        if getattr(panel, "pending", lambda: False)():  # a page still drawing from its own thread
            QTimer.singleShot(100, save)
            return
        if not window.grab().save(str(args.screenshot), "PNG"):
            errors.append(f"could not write {args.screenshot}")
            app.exit(2)
            return
        app.exit(0)

    session.message.connect(on_message)
    session.busy_changed.connect(on_busy)
    if args.compare is not None:
        window.compare_with(args.compare, args.compare_what_if)
        window.compare.session.busy_changed.connect(on_busy)
    QTimer.singleShot(120_000, lambda: (errors.append("timed out"), app.exit(2)))
    with offscreen_notices_dropped(app):
        window.show()
        window.open_checkpoint(checkpoint)
        code = app.exec()
        dispose(window)
    if errors:
        print(f"attnviz: {errors[0]}", file=sys.stderr)
        return 2
    print(f"wrote {args.screenshot}", file=sys.stderr)
    return code


def offscreen_notices_dropped(app) -> AbstractContextManager:
    """Offscreen, the plugin's notice about size hints (one per window shown) is left out of
    stderr; every other Qt message is still printed (``visualizer.window.qt_messages``)."""
    from visualizer.window.qt_messages import SIZE_HINTS_NOTICE, dropping

    return dropping(SIZE_HINTS_NOTICE) if app.platformName() == "offscreen" else nullcontext()


def dispose(window) -> None:
    """Close the window (which stops its worker threads) and delete it now, while Python is alive.

    Left to the garbage collector, the window's Python wrapper can go before its pyqtgraph
    children, which then receive events with no Python object behind them and crash the
    process (seen with the Compare page open).
    """
    import shiboken6

    window.close()
    shiboken6.delete(window)


def settled(session) -> bool:
    return not session.busy and session.model is not None and session.snapshot is not None


def probe_startup(app, window, session, checkpoint: Path) -> int:
    """For ``attnviz bench``: print the wall-clock times (``time.time()``) at which the window
    first painted and the first step became possible (model loaded, generation started), as
    one JSON line, then quit. The window is the interactive one (lazy panels), offscreen."""
    import json
    import time

    from PySide6.QtCore import QTimer

    from visualizer.window.first_paint import FirstPaint

    times: dict[str, float] = {}

    def painted() -> None:
        times.setdefault("painted", time.time())

    def on_busy(busy: bool) -> None:
        if not busy and session.snapshot is not None and "ready" not in times:
            times["ready"] = time.time()
            app.exit(0)

    def on_message(level: str, text: str) -> None:
        if level == "error":
            times["error"] = text
            app.exit(2)

    FirstPaint(window, painted)
    session.busy_changed.connect(on_busy)
    session.message.connect(on_message)
    QTimer.singleShot(60_000, lambda: app.exit(2))
    window.show()
    window.open_checkpoint(checkpoint)
    code = app.exec()
    dispose(window)
    print(json.dumps(times))
    return code


def apply_options(window, session, args) -> None:
    """Command-line options win over what the window remembered."""
    from visualizer.state.options import decoding_given, decoding_settings

    if args.text is not None:
        session.source = args.text
        window.source_bar.edit.setText(args.text)
    if getattr(args, "audio", None) is not None:  # a speech model's source, heard once it loads
        from model.source import AudioSource

        session.source = AudioSource(str(args.audio))
    if decoding_given(args):
        session.settings = decoding_settings(args, session.settings)
        window.decoding.show_settings(session.settings)
    if args.view:  # resolved against the model's kinds once it is loaded (FamilyInfo.resolve_kind)
        session.kind = args.view
    if args.language:
        session.set_language(args.language)
    if args.panel:
        window.show_panel(args.panel)
    session.initial_steps = args.steps
    session.initial_languages = (getattr(args, "src_lang", None), getattr(args, "tgt_lang", None))


def parse_size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError as error:
        raise ValueError(f"--size must look like 1280x800, not {text!r}") from error
    if not (320 <= width <= 8192 and 240 <= height <= 8192):
        raise ValueError(f"--size {text} is outside 320x240 .. 8192x8192")
    return width, height
