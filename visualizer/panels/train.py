"""The Train page: train a model live and watch its attention form, or replay a run from a file.

The run is a separate process (``visualizer.work.training_process``, ``model.tasks.live``): the
window only hears its events. Each snapshot is a checkpoint file; the probe is run on the
shown snapshot by a thread of this page (``ProbeTracer``), never on the GUI thread, and the
answers are kept per (run, snapshot, probe). "Open in main view" points every view of the
app at the shown snapshot (the session opens its checkpoint); "Compare with…" steps it beside
the shipped model or another snapshot.
"""

from __future__ import annotations

import gc
import shutil
import tempfile
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
)

from visualizer.i18n import tr, trf
from visualizer.panels.base import ConceptPanel
from visualizer.panels.jobs import KeptResults
from visualizer.panels.train_files import TrainFilesMixin
from visualizer.panels.train_snapshots import SnapshotsMixin
from visualizer.panels.train_status import status_line
from visualizer.state.training_run import TrainingRun
from visualizer.widgets.combo import refill
from visualizer.widgets.flow_row import FlowRow
from visualizer.widgets.probe_view import ProbeView
from visualizer.widgets.training_curves import TrainingCurves
from visualizer.work.probe_tracer import ProbeTracer
from visualizer.work.training_process import TrainingProcess

DATA_CHOICES = ("reverse_short", "reverse", "sort", "all_tasks", "pairs_file")
# the tasks (and, for reverse 1-48, the lengths) each data choice trains on
DATA_TASKS = {
    "reverse_short": ("reverse", "3,10"),
    "reverse": ("reverse", "full"),
    "sort": ("sort", "full"),
    "all_tasks": ("reverse,sort,date,pick", "full"),
}
DEFAULT_STEPS = {"tiny": 3000, "small": 4000, "shipped": 8000}
CURVE_REFRESH_MS = 200  # the curves redraw at most this often however fast steps arrive


class TrainPanel(TrainFilesMixin, SnapshotsMixin, ConceptPanel):
    key = "train"

    def explain(self, language: str) -> str:
        return tr(
            "<b>Watch attention being learned.</b> A Transformer trains on whole sentences at "
            "once: the decoder reads the target shifted right (teacher forcing) and the causal "
            "mask stands in for “not yet generated”, so every position learns in the same step. "
            "Press <b>Train</b>: a model trains in a process of its own (the window stays free) "
            "and every few steps a snapshot is taken. The <b>probe</b> is run on each snapshot: "
            "watch its cross-attention turn from noise into the anti-diagonal of <tt>reverse:</tt> "
            "(each output character reads the source from the end) while the loss falls. The "
            "slider replays any snapshot; <b>Open in main view</b> points every view of the app at "
            "it.",
            language,
        )

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.process = TrainingProcess(self)
        self.tracer = ProbeTracer(session.run_job, self)
        self.run: TrainingRun | None = None
        self.traces = KeptResults()
        self.traces.LIMIT = 256
        self.folders: list[Path] = []  # the runs' folders, removed when the page closes
        self.pairs_file: Path | None = None
        self.head_chosen_by_user = False
        self.diagonal_head: tuple[int, int] | None = None  # the head shown until one is clicked
        self.notice = ""  # the last thing done (saved a file), under the status
        self.said = ""  # the status line last shown
        self.words_built = False
        self.build_controls()
        self.build_snapshot_row()
        views = QHBoxLayout()
        self.curves = TrainingCurves()
        # low enough that at 1024×700 the plots are in view under the controls; taller windows
        # give them the room
        self.curves.setMinimumSize(300, 220)
        views.addWidget(self.curves, 2)
        self.probe_view = ProbeView(session.colormap)
        self.probe_view.setMinimumSize(480, 220)
        views.addWidget(self.probe_view, 3)
        self.outer.addLayout(views, 1)
        self.output = QLabel()
        self.output.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.outer.addWidget(self.output)
        self.curve_timer = QTimer(self)
        self.curve_timer.setSingleShot(True)
        self.curve_timer.timeout.connect(self.draw_curves)
        self.process.event.connect(self.on_event)
        self.process.state_changed.connect(self.on_process_state)
        self.process.failed.connect(self.on_failed)
        self.tracer.traced.connect(self.on_traced)
        self.probe_view.head_chosen.connect(self.on_head_clicked)
        self.subscriptions.add(session.view_changed, self.on_view_changed)
        shortcut = QShortcut(QKeySequence("Ctrl+Return"), self)
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(self.train)
        self.words_built = True
        self.on_language_changed(session.language)
        self.update_buttons()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        if self.run is None:  # read when first shown, not when the window builds its pages
            self.open_shipped_replay()
        super().showEvent(event)

    def open_shipped_replay(self) -> None:
        """Until the user trains or opens something, the page shows the shipped replay (at its
        last snapshot; Play replays it from the untrained model)."""
        from model.shipped import shipped_replay_path

        if shipped_replay_path().exists() and self.open_replay(shipped_replay_path()):
            self.slider.setValue(self.slider.maximum())

    # -- construction ---------------------------------------------------------------------------
    def build_controls(self) -> None:
        self.labels = {
            name: QLabel() for name in ("family", "preset", "data", "steps", "every", "probe", "kind")
        }
        self.family, self.preset, self.data = QComboBox(), QComboBox(), QComboBox()
        self.steps, self.every = QSpinBox(), QSpinBox()
        self.steps.setRange(1, 1_000_000)
        self.steps.setSingleStep(100)
        self.steps.setValue(DEFAULT_STEPS["tiny"])
        self.every.setRange(1, 100_000)
        self.every.setSingleStep(50)
        self.every.setValue(100)
        self.buttons = {
            name: QPushButton()
            for name in (
                "train",
                "pause",
                "stop",
                "open_replay",
                "save_checkpoint",
                "save_replay",
                "open_main",
                "compare",
            )
        }
        # one row that wraps (FlowRow): at 1024×700 two lines, never a control cut
        row = FlowRow()
        for name, widget in (("family", self.family), ("preset", self.preset), ("data", self.data)):
            row.addWidget(self.labels[name])
            row.addWidget(widget)
        row.addSpacing(12)
        for name, widget in (("steps", self.steps), ("every", self.every)):
            row.addWidget(self.labels[name])
            row.addWidget(widget)
        for name in ("train", "pause", "stop"):
            row.addWidget(self.buttons[name])
        row.addStretch(1)
        self.outer.addLayout(row)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.outer.addWidget(self.status)
        self.family.currentIndexChanged.connect(self.on_family_changed)
        self.preset.currentIndexChanged.connect(self.on_preset_changed)
        self.data.activated.connect(self.on_data_chosen)
        self.buttons["train"].clicked.connect(self.train)
        self.buttons["pause"].clicked.connect(self.toggle_pause)
        self.buttons["stop"].clicked.connect(self.process.stop)
        self.buttons["open_replay"].clicked.connect(self.open_replay_dialog)
        self.buttons["save_checkpoint"].clicked.connect(self.save_checkpoint_dialog)
        self.buttons["save_replay"].clicked.connect(self.save_replay_dialog)
        self.buttons["open_main"].clicked.connect(self.open_in_main_view)
        self.buttons["compare"].clicked.connect(self.compare_menu)

    # -- words ------------------------------------------------------------------------------------
    def on_language_changed(self, language: str) -> None:
        if not getattr(self, "words_built", False):  # called by the base class's __init__
            super().on_language_changed(language)
            return
        self.labels["family"].setText(tr("Model:", language))
        self.labels["preset"].setText(tr("Size:", language))
        self.labels["data"].setText(tr("Data:", language))
        self.labels["steps"].setText(tr("Steps:", language))
        self.labels["every"].setText(tr("Snapshot every:", language))
        self.labels["probe"].setText(tr("Probe:", language))
        self.labels["kind"].setText(tr("Attention:", language))
        self.buttons["train"].setText(tr("Train", language))
        self.buttons["pause"].setText(tr("Pause", language))
        self.buttons["stop"].setText(tr("Stop", language))
        self.buttons["open_replay"].setText(tr("Open replay…", language))
        self.buttons["save_checkpoint"].setText(tr("Save snapshot as checkpoint…", language))
        self.buttons["save_replay"].setText(tr("Save replay…", language))
        self.buttons["open_main"].setText(tr("Open in main view", language))
        self.buttons["compare"].setText(tr("Compare with…", language))
        self.follow.setText(tr("Follow the newest", language))
        refill(
            self.family,
            [
                (tr("Transformer", language), "transformer"),
                (tr("RNN with additive attention", language), "rnn"),
            ],
        )
        refill(
            self.preset,
            [
                (tr("tiny", language), "tiny"),
                (tr("small", language), "small"),
                (tr("the shipped recipe", language), "shipped"),
            ],
        )
        self.fill_data()
        self.curves.set_words(
            tr("Training loss", language),
            tr("Exact match", language),
            tr("training batch", language),
            tr("held-out", language),
            tr("step", language),
        )
        super().on_language_changed(language)
        self.update_buttons()

    def fill_data(self) -> None:
        language = self.session.language
        items = [
            (tr("reverse: 3–10 characters", language), "reverse_short"),
            (tr("reverse: 1–48 characters", language), "reverse"),
            (tr("sort:", language), "sort"),
            (tr("all four shipped tasks", language), "all_tasks"),
            (tr("your pairs file…", language), "pairs_file"),
        ]
        if self.pairs_file is not None:
            items[-1] = (trf("pairs: {name}", language, name=self.pairs_file.name), "pairs_file")
        refill(self.data, items)

    # -- the run's settings -------------------------------------------------------------------------
    def on_family_changed(self) -> None:
        self.update_buttons()

    def on_preset_changed(self) -> None:
        self.steps.setValue(DEFAULT_STEPS[self.preset.currentData() or "tiny"])

    def on_data_chosen(self) -> None:
        if self.data.currentData() == "pairs_file":
            path, _ = QFileDialog.getOpenFileName(
                self,
                tr("A UTF-8 file of source<TAB>target lines", self.session.language),
                "",
                "*.tsv *.txt;;*",
            )
            if path:
                self.choose_pairs_file(Path(path))
            elif self.pairs_file is None:
                self.data.setCurrentIndex(0)

    def choose_pairs_file(self, path: Path) -> None:
        """Train on the user's pairs (``attnviz train --data``'s format; the run checks the file)."""
        self.pairs_file = Path(path)
        self.fill_data()
        self.data.setCurrentIndex(DATA_CHOICES.index("pairs_file"))

    def arguments(self, folder: Path) -> list[str]:
        """The training process's command line for the chosen settings."""
        arguments = [
            "--out",
            str(folder),
            "--family",
            self.family.currentData() or "transformer",
            "--preset",
            self.preset.currentData() or "tiny",
            "--steps",
            str(self.steps.value()),
            "--snapshot-every",
            str(self.every.value()),
        ]
        choice = self.data.currentData() or "reverse_short"
        if choice == "pairs_file" and self.pairs_file is not None:
            arguments += ["--data", str(self.pairs_file)]
        elif choice in DATA_TASKS:
            tasks, lengths = DATA_TASKS[choice]
            arguments += ["--tasks", tasks, "--lengths", lengths]
        return arguments

    # -- the run ----------------------------------------------------------------------------------------
    def train(self) -> None:
        if self.process.alive:
            self.failure.setText(tr("A run is going: stop it first.", self.session.language))
            self.failure.show()
            return
        # a full garbage collection on this thread scans every object the process holds (torch's,
        # pyqtgraph's: 170 ms measured here) and the run's stream of events soon makes one due;
        # what exists now lives on anyway, so the collector is told to leave it alone
        gc.freeze()
        folder = Path(tempfile.mkdtemp(prefix="attnviz-run-"))
        self.folders.append(folder)
        self.run = TrainingRun(folder.name, family=self.family.currentData() or "transformer")
        self.traces.clear()
        self.diagonal_head = None
        self.failure.hide()
        self.notice = ""
        self.process.start(self.arguments(folder))
        self.slider.setRange(0, 0)
        self.refresh()

    def toggle_pause(self) -> None:
        if self.process.state == "paused":
            self.process.resume()
        else:
            self.process.pause()

    def on_event(self, event: dict) -> None:
        if self.run is None or self.run.replay is not None:
            return
        name = self.run.heard(event)
        if name == "snapshot":
            count = len(self.run.snapshots)
            self.slider.setRange(0, count - 1)
            if self.follow.isChecked() and self.slider.value() != count - 1:
                self.slider.setValue(count - 1)  # → on_slider → the probe on it
            elif count == 1:
                self.on_slider(0)
            self.show_snapshot_label()
        if not self.curve_timer.isActive():
            self.curve_timer.start(CURVE_REFRESH_MS)
        self.show_status()

    def on_process_state(self, _state: str) -> None:
        self.show_status()
        self.update_buttons()

    def on_failed(self, message: str) -> None:
        self.failure.setText(
            trf("The training run failed: {message}", self.session.language, message=message)
        )
        self.failure.show()
        self.update_buttons()

    def show_status(self) -> None:
        line = status_line(self.run, self.process.state, self.session.language)
        if line is None:  # nothing new to say (a failed run: the red line says why)
            line = self.said
        self.said = line
        self.status.setText(f"{line}  {self.notice}" if self.notice else line)

    def update_buttons(self) -> None:
        if not getattr(self, "words_built", False):
            return
        state = self.process.state
        going = state in ("running", "paused", "stopping")
        has_snapshot = self.run is not None and bool(self.run.snapshots)
        self.buttons["train"].setEnabled(not going)
        self.buttons["pause"].setEnabled(state in ("running", "paused"))
        self.buttons["pause"].setText(tr("Resume" if state == "paused" else "Pause", self.session.language))
        self.buttons["stop"].setEnabled(state in ("running", "paused"))
        self.buttons["open_replay"].setEnabled(not going)
        self.play_button.setText(tr("Pause" if self.play_timer.isActive() else "Play", self.session.language))
        self.play_button.setEnabled(self.run is not None and len(self.run.snapshots) > 1)
        for name in ("save_checkpoint", "open_main", "compare"):
            self.buttons[name].setEnabled(has_snapshot)
        replay_ready = self.run is not None and self.run.replay_path is not None and self.run.replay is None
        self.buttons["save_replay"].setEnabled(replay_ready and self.run.replay_path.exists())
        for widget in (self.family, self.preset, self.data, self.steps, self.every):
            widget.setEnabled(not going)

    # -- drawing -----------------------------------------------------------------------------------------
    def on_view_changed(self) -> None:
        self.probe_view.set_colormap(self.session.colormap)

    def draw_curves(self) -> None:
        index = self.shown_index()
        self.curves.show_run(self.run, None if index is None else self.run.snapshots[index].step)

    def refresh(self) -> None:
        if not getattr(self, "words_built", False):
            return
        self.show_status()
        self.show_snapshot_label()
        self.draw_curves()
        self.draw_probe()
        self.update_buttons()

    def detach(self) -> None:
        """The page closes (the window closes): no training process and no thread outlives it."""
        self.process.kill()
        self.tracer.close()
        for folder in self.folders:
            shutil.rmtree(folder, ignore_errors=True)
        super().detach()
