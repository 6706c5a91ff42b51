"""The main window: menus, controls, the attention grid and the enlarged head.

It wires widgets to the session and the session to the worker; widgets never talk to each
other. Every user mistake ends in a message in the window; nothing here blocks on the model.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt, QTimer, Slot
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QScrollArea,
    QSplitter,
    QStyle,
    QTabBar,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from model.generation.unknown_copy import copied_offsets, text_segments
from visualizer.i18n import Translator, tr, trf
from visualizer.panels.base import ConceptPanel
from visualizer.panels.page import PanelPage, panel_class
from visualizer.panels.registry import PANELS
from visualizer.state.events import Subscriptions
from visualizer.state.session import COLORMAPS, Session
from visualizer.state.token_labels import copy_description
from visualizer.widgets.attention_grid import AttentionGrid
from visualizer.widgets.controls import DecodingControls, SourceBar, StepControls
from visualizer.widgets.head_detail import HeadDetail
from visualizer.widgets.output_line import OutputLine
from visualizer.widgets.step_hint import StepHint
from visualizer.widgets.timeline import Timeline
from visualizer.window.compare_page import ComparePage
from visualizer.window.first_paint import FirstPaint
from visualizer.window.opening import OpeningMixin
from visualizer.window.pages import PanelsMixin
from visualizer.window.parts import ExportMixin, HelpMixin, KindsMixin, SettingsMixin, no_attention_label
from visualizer.window.qt_language import install_qt_translations
from visualizer.work.worker import WorkerBridge

# a window that is never painted (started minimised) still loads its model this long after it
# is shown; long enough that a window that is painted, on a busy machine, always paints first
START_ANYWAY_MS = 10_000


class MainWindow(SettingsMixin, ExportMixin, KindsMixin, HelpMixin, OpeningMixin, PanelsMixin, QMainWindow):
    def __init__(
        self,
        session: Session,
        settings: QSettings | None = None,
        remember: bool = True,
        *,
        lazy_panels: bool = False,
    ) -> None:
        """``settings`` holds what the window remembers; with ``remember`` False it starts from
        the defaults and saves nothing (the --screenshot mode).

        Each concept panel (whose jobs need torch) is built when its page is first shown or
        asked for. With ``lazy_panels`` (the interactive start) they are all built, one per pass
        of the event loop, once the worker thread has imported torch, so that the window is
        painted first and every page is ready when the user turns to it; until then their
        pages say that they are loading.
        """
        super().__init__()
        self.session = session
        self.remember = remember
        self.settings = settings if settings is not None else QSettings("attention-visualizer", "attnviz")
        self.setWindowTitle("Attention Visualizer")
        self.setAcceptDrops(True)
        self.closed = False
        self.panel_pages: list[PanelPage] = []  # each panel, or why the model cannot be shown there
        self.lazy_panels = lazy_panels
        self.compare: ComparePage | None = None  # View > Compare: side B and its page
        self.panels_failed = False
        # The interactive start holds the worker back until the window has painted: its first
        # job imports torch, which on a busy CPU would otherwise delay the paint by about a
        # second. What is asked of it before then (the warm-up, opening the model) queues.
        self.bridge = WorkerBridge(session, self, warm_up=lazy_panels, start=not lazy_panels)
        if lazy_panels:
            FirstPaint(self, self.bridge.start, fallback_ms=START_ANYWAY_MS)
        self.error_dialog: QMessageBox | None = None
        self.play_timer = QTimer(self)
        self.play_timer.timeout.connect(session.play_tick)

        self.translator = Translator()
        self.actions_by_name = self.build_actions()
        self.build_menus()
        self.build_layout()
        self.build_status_bar()

        self.session_subscriptions = Subscriptions(
            (session.model_changed, self.on_model_changed),
            (session.cursor_changed, self.on_cursor_changed),
            (session.message, self.on_message),
            (session.busy_changed, self.on_busy_changed),
            (session.load_progress, self.on_load_progress),
            (session.playing_changed, self.on_playing_changed),
            (session.view_changed, self.on_view_changed),
            (session.language_changed, self.on_language_changed),
            (session.acted, self.on_acted),
            (session.snapshot_changed, self.on_snapshot_changed),
            (session.compare_requested, self.compare_with),
            (session.page_requested, self.show_panel),
        )
        self.hover_source: str | None = None  # the source the hover readout was read from
        self.restore_settings()
        if lazy_panels:
            self.bridge.warmed.connect(self.on_worker_warmed)
        self.on_view_changed()
        self.actions_by_name["stop_compare"].setEnabled(False)
        self.on_language_changed(session.language)

    # -- construction ---------------------------------------------------------------------
    def build_actions(self) -> dict[str, QAction]:
        session = self.session
        specs = {
            "open": ("&Open checkpoint…", QKeySequence.StandardKey.Open, self.open_dialog),
            "open_folder": ("Open &folder (Hugging Face model)…", "Ctrl+Shift+O", self.open_folder_dialog),
            "open_audio": ("Open &audio (speech model)…", "Ctrl+Shift+A", self.open_audio_dialog),
            "open_replay": ("Open &replay…", "Ctrl+Shift+R", self.open_replay_dialog),
            "shipped_replay": (
                "&Watch attention form (shipped replay)",
                "Ctrl+Shift+W",
                self.open_shipped_replay,
            ),
            "export_png": ("Export view as &PNG…", "Ctrl+E", self.export_png),
            "export_svg": ("Export view as &SVG…", "Ctrl+Shift+E", self.export_svg),
            "export_trace": ("Export &trace (.npz)…", "Ctrl+T", self.export_trace),
            "quit": ("&Quit", "Ctrl+Q", self.close),
            "step": ("Step", Qt.Key.Key_Right, session.step_forward),
            "back": ("Back", Qt.Key.Key_Left, session.step_back),
            "play": ("Play", Qt.Key.Key_Space, session.toggle_play),
            "reset": ("Reset", Qt.Key.Key_Home, session.reset),
            "end": ("To end", Qt.Key.Key_End, session.run_to_end),
            "mean": ("Show the &mean of heads", "M", self.select_mean),
            "compare": ("&Compare with another model…", "Ctrl+K", self.compare_dialog),
            "stop_compare": ("&Stop comparing", "Ctrl+Shift+K", self.stop_compare),
            "shortcuts": ("&Keyboard shortcuts", "F1", self.show_shortcuts),
        }
        actions = {}
        for name, (text, shortcut, slot) in specs.items():
            action = QAction(text, self)
            self.translator.add(action.setText, text)
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.triggered.connect(slot)
            self.addAction(action)
            actions[name] = action
        icons = {
            "step": QStyle.StandardPixmap.SP_MediaSeekForward,
            "back": QStyle.StandardPixmap.SP_MediaSeekBackward,
            "play": QStyle.StandardPixmap.SP_MediaPlay,
            "reset": QStyle.StandardPixmap.SP_MediaSkipBackward,
            "end": QStyle.StandardPixmap.SP_MediaSkipForward,
        }
        for name, icon in icons.items():
            actions[name].setIcon(self.style().standardIcon(icon))
            actions[name].setToolTip(f"{actions[name].text()} ({actions[name].shortcut().toString()})")
        return actions

    def menu(self, parent, title: str):
        menu = parent.addMenu(title)
        self.translator.add(menu.setTitle, title)
        return menu

    def build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = self.menu(bar, "&File")
        file_menu.addAction(self.actions_by_name["open"])
        file_menu.addAction(self.actions_by_name["open_folder"])
        file_menu.addAction(self.actions_by_name["open_audio"])
        self.recent_menu = self.menu(file_menu, "Open &recent")
        file_menu.addSeparator()
        file_menu.addAction(self.actions_by_name["open_replay"])
        file_menu.addAction(self.actions_by_name["shipped_replay"])
        file_menu.addSeparator()
        for name in ("export_png", "export_svg", "export_trace"):
            file_menu.addAction(self.actions_by_name[name])
        file_menu.addSeparator()
        file_menu.addAction(self.actions_by_name["quit"])

        run_menu = self.menu(bar, "&Run")
        for name in ("step", "back", "play", "reset", "end"):
            run_menu.addAction(self.actions_by_name[name])

        view_menu = self.menu(bar, "&View")
        self.kind_actions = QActionGroup(self)  # one per kind of the loaded model: rebuild_kinds
        self.kind_menu = self.menu(view_menu, "&Attention kind")
        view_menu.addAction(self.actions_by_name["mean"])
        # subword models: attention over words (keys summed, queries averaged)
        self.words_action = view_menu.addAction("Merge pieces into &words")
        self.translator.add(self.words_action.setText, "Merge pieces into &words")
        self.words_action.setCheckable(True)
        self.words_action.setEnabled(False)
        self.words_action.setShortcut(QKeySequence("W"))
        self.words_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.words_action.toggled.connect(self.session.set_words)
        view_menu.addAction(self.actions_by_name["compare"])
        view_menu.addAction(self.actions_by_name["stop_compare"])
        colormap_menu = self.menu(view_menu, "&Colormap")
        self.colormap_actions = QActionGroup(self)
        for name in COLORMAPS:
            action = colormap_menu.addAction(name)
            action.setCheckable(True)
            action.setData(name)
            action.triggered.connect(self.on_colormap_action)
            self.colormap_actions.addAction(action)

        language_menu = view_menu.addMenu("&Language / 语言")
        self.language_actions = QActionGroup(self)
        for language, label in (("en", "English"), ("zh", "中文")):
            action = language_menu.addAction(label)
            action.setCheckable(True)
            action.setData(language)
            action.triggered.connect(self.on_language_action)
            self.language_actions.addAction(action)

        device_menu = self.menu(bar, "&Device")
        self.device_actions = QActionGroup(self)
        for device, label in (("auto", "Auto"), ("cpu", "CPU"), ("cuda", "CUDA")):
            action = device_menu.addAction(label)
            if device == "auto":  # CPU and CUDA are names, the same in every language
                self.translator.add(action.setText, "Auto")
            action.setCheckable(True)
            action.setData(device)
            if device == "cuda":  # the worker says whether CUDA exists once it has loaded torch
                action.setEnabled(False)
                self.cuda_action = action
            action.triggered.connect(self.on_device_action)
            self.device_actions.addAction(action)
            action.setChecked(device == self.session.device)

        help_menu = self.menu(bar, "&Help")
        help_menu.addAction(self.actions_by_name["shortcuts"])
        about = help_menu.addAction("&About this model…")
        self.translator.add(about.setText, "&About this model…")
        about.triggered.connect(self.show_about_model)

    def build_layout(self) -> None:
        session = self.session
        central = QWidget()
        outer = QVBoxLayout(central)
        outer.setContentsMargins(8, 6, 8, 4)
        self.source_bar = SourceBar(session, self.translator)
        outer.addWidget(self.source_bar)
        self.decoding = DecodingControls(session, self.translator)
        outer.addWidget(self.decoding)
        stepping_row = QHBoxLayout()
        self.step_controls = StepControls(self.actions_by_name, self.translator)
        self.step_controls.speed_changed.connect(self.on_speed_changed)
        self.on_speed_changed(self.step_controls.speed.value())
        stepping_row.addWidget(self.step_controls)
        stepping_row.addSpacing(16)
        self.output_label = OutputLine()
        stepping_row.addWidget(self.output_label, 1)
        outer.addLayout(stepping_row)
        self.timeline = Timeline(session)
        outer.addWidget(self.timeline)
        self.pages = QTabWidget()
        self.pages.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.pages.tabBar().setFocusPolicy(Qt.FocusPolicy.NoFocus)
        attention_page = QWidget()
        attention_layout = QVBoxLayout(attention_page)
        attention_layout.setContentsMargins(0, 4, 0, 0)
        self.kind_tabs = QTabBar()  # one tab per kind of the loaded model: rebuild_kinds
        self.kind_tabs.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.kind_tabs.currentChanged.connect(self.on_tab_changed)
        attention_layout.addWidget(self.kind_tabs)
        self.step_hint = StepHint(session)
        attention_layout.addWidget(self.step_hint)
        self.views = QSplitter(Qt.Orientation.Horizontal)
        self.grid = AttentionGrid(session)
        self.grid.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.detail = HeadDetail(session)
        # many layers and heads (NLLB: 12 × 16) scroll rather than shrink below a readable cell
        self.grid_scroll = QScrollArea()
        self.grid_scroll.setWidgetResizable(True)
        self.grid_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.grid_scroll.setWidget(self.grid)
        self.grid.scrolls = True
        self.views.addWidget(self.grid_scroll)
        self.views.addWidget(self.detail)
        self.views.setStretchFactor(0, 3)
        self.views.setStretchFactor(1, 2)
        attention_layout.addWidget(self.views, 1)
        self.no_attention_label = no_attention_label()  # shown instead of the grid and the head
        attention_layout.addWidget(self.no_attention_label, 1)
        self.pages.addTab(attention_page, "Attention heads")
        self.add_panel_pages()
        outer.addWidget(self.pages, 1)
        self.hover_label = QLabel(" ")
        self.hover_label.setStyleSheet("font-family: monospace; padding: 2px;")
        outer.addWidget(self.hover_label)
        self.grid.hovered.connect(self.show_hover)
        self.detail.hovered.connect(self.show_hover)
        self.setCentralWidget(central)

    def build_panel(self, entry) -> ConceptPanel:
        """The concept panel of ``entry`` (PanelsMixin builds it when its page needs it)."""
        return panel_class(entry)(self.session)

    def build_status_bar(self) -> None:
        status = self.statusBar()
        self.model_label = QLabel("no model loaded")
        self.message_label = QLabel("")
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)  # indeterminate: the model is working
        self.progress.setFixedWidth(120)
        self.progress.hide()
        self.loading_text: str | None = None  # the status bar's text while a model opens
        status.addWidget(self.message_label, 1)
        status.addPermanentWidget(self.progress)
        status.addPermanentWidget(self.model_label)

    # -- user actions ---------------------------------------------------------------------
    def on_colormap_action(self) -> None:
        self.session.set_colormap(self.sender().data())

    def on_language_action(self) -> None:
        self.session.set_language(self.sender().data())

    def on_language_changed(self, language: str) -> None:
        install_qt_translations(language)  # Qt's own dialogs and buttons
        for action in self.language_actions.actions():
            action.setChecked(action.data() == language)
        for index, entry in enumerate(PANELS, start=1):
            self.pages.setTabText(index, entry.title(language))
        self.pages.setTabText(0, tr("Attention heads", language))
        self.translator.apply(language)
        self.retitle_kinds(language)
        self.label_cuda()
        self.show_attention_or_reason()
        self.on_playing_changed(self.session.playing)
        self.on_cursor_changed(self.session.cursor)

    def show_panel(self, key: str) -> None:
        """Bring a concept panel (or "attention") to the front."""
        keys = ["attention", *(entry.key for entry in PANELS)]
        if key not in keys:
            raise ValueError(f"unknown panel {key!r}: choose {', '.join(keys)}")
        self.pages.setCurrentIndex(keys.index(key))

    def on_device_action(self) -> None:
        self.session.set_device(self.sender().data())

    def select_mean(self) -> None:
        self.session.select_head(self.session.layer, None)

    def on_speed_changed(self, steps_per_second: int) -> None:
        self.play_timer.setInterval(int(1000 / steps_per_second))

    def show_hover(self, text: str) -> None:
        self.hover_label.setText(text or " ")
        self.hover_source = self.session.source if text else None

    def on_acted(self) -> None:
        """Every message belongs to what was shown when it came: the user's next action clears it
        (what the model sends back in answer to that action is then shown)."""
        self.message_label.setText("")
        self.message_label.setStyleSheet("")

    def on_snapshot_changed(self, snapshot) -> None:
        """A readout of a cell of another source (or of none) is stale: clear it."""
        if self.hover_source is not None and (snapshot is None or snapshot.source != self.hover_source):
            self.show_hover("")

    # -- session events -------------------------------------------------------------------
    def on_model_changed(self, model) -> None:
        self.rebuild_kinds()
        self.words_action.setEnabled(self.session.words_available)
        self.words_action.setChecked(self.session.words)
        self.show_attention_or_reason()
        self.model_label.setText(f"{model.name} · {model.family.display_name} · {model.device}")
        if model.path is not None:
            self.remember_recent(model.path)
        if self.session.device != "auto" and not model.device.startswith(self.session.device):
            self.session.device = model.device.split(":")[0]  # the fallback that really happened
        self.label_cuda()
        for action in self.device_actions.actions():
            action.setChecked(action.data() == self.session.device)

    def label_cuda(self) -> None:
        """View > Device > CUDA: enabled, or said unavailable, once the worker knows."""
        model = self.session.model
        available = model is not None and model.cuda_available
        self.cuda_action.setEnabled(available)
        unknown = model is None  # before a model loads, torch has not said
        self.cuda_action.setText(
            "CUDA" if available or unknown else tr("CUDA (not available)", self.session.language)
        )

    def on_cursor_changed(self, cursor: int) -> None:
        snapshot = self.session.snapshot
        if snapshot is None:
            self.output_label.setText("")
            return
        model = self.session.model.name if self.session.model else ""
        language = self.session.language
        count = len(snapshot.steps)
        step = trf("step {step} of {count}", language, step=cursor + 1, count=count)
        self.setWindowTitle(f"{tr('Attention Visualizer', language)} — {model} — {step}")
        shown = snapshot.output_text(cursor + 1)
        whole = text_segments(snapshot.tokenizer, snapshot.output_ids, snapshot.copies)
        ahead = "".join(text for text, _ in whole)[len(shown) :]
        where = trf("(step {step} of {count})", language, step=cursor + 1, count=count)
        kind = snapshot.info.alignment_kind
        copied = {
            offset: copy_description(copy, kind.title if kind else copy.kind, language)
            for offset, copy in copied_offsets(whole).items()
        }
        self.output_label.show_output(tr("Output:", language), shown, ahead, where, copied)

    def on_view_changed(self) -> None:
        kinds = self.session.kinds
        index = kinds.index(self.session.kind) if self.session.kind in kinds else -1
        if index >= 0 and self.kind_tabs.currentIndex() != index:
            self.kind_tabs.setCurrentIndex(index)
        for action in self.kind_actions.actions():
            action.setChecked(action.data() == self.session.kind)
        for action in self.colormap_actions.actions():
            action.setChecked(action.data() == self.session.colormap)

    @Slot(str, str)
    def on_message(self, level: str, text: str) -> None:
        colours = {
            "warning": "color: #a15c00; font-weight: bold",
            "error": "color: #c62828; font-weight: bold",
        }
        self.message_label.setStyleSheet(colours.get(level, ""))
        self.message_label.setText(text)
        if level == "error":
            self.show_error(text)

    def show_error(self, text: str) -> None:
        """A non-blocking dialog: the app keeps running and the previous state stays."""
        if self.error_dialog is not None:
            self.error_dialog.close()
            self.error_dialog.deleteLater()  # else every error ever shown stays a child of the window
        title = tr("Attention Visualizer", self.session.language)
        self.error_dialog = QMessageBox(QMessageBox.Icon.Warning, title, text, parent=self)
        self.error_dialog.setInformativeText(
            tr("The previous model and generation are unchanged.", self.session.language)
        )
        self.error_dialog.finished.connect(self.setFocus)  # the stepping keys work again at once
        self.error_dialog.open()

    def on_busy_changed(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        if not busy:
            self.progress.setRange(0, 0)  # indeterminate again for the next work
            if self.loading_text is not None and self.message_label.text() == self.loading_text:
                self.message_label.setText("")  # the load's stage is over, whatever the result said
            self.loading_text = None

    def on_load_progress(self, fraction: float, stage: str) -> None:
        """A model opening says which stage it is at: the bar fills, the status bar names it."""
        language = self.session.language
        self.progress.setRange(0, 100)
        self.progress.setValue(round(100 * fraction))
        self.progress.setVisible(True)
        self.loading_text = trf("Opening the model: {stage}…", language, stage=tr(stage, language))
        self.message_label.setStyleSheet("")
        self.message_label.setText(self.loading_text)

    def on_playing_changed(self, playing: bool) -> None:
        play = self.actions_by_name["play"]
        play.setText(tr("Pause" if playing else "Play", self.session.language))
        icon = QStyle.StandardPixmap.SP_MediaPause if playing else QStyle.StandardPixmap.SP_MediaPlay
        play.setIcon(self.style().standardIcon(icon))
        if playing:
            self.play_timer.start()
        else:
            self.play_timer.stop()

    # -- closing --------------------------------------------------------------------------
    def closeEvent(self, event) -> None:  # noqa: N802
        self.closed = True
        self.session.stop()
        self.play_timer.stop()
        self.save_settings()
        self.session_subscriptions.close()
        views = (self.grid, self.detail, self.timeline, self.decoding, self.step_hint)
        for widget in (*views, *self.panel_pages):
            widget.detach()
        self.stop_compare()
        self.bridge.shutdown()
        if self.error_dialog is not None:
            self.error_dialog.close()
        super().closeEvent(event)
