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
    QCheckBox,
    QComboBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSlider,
    QSpinBox,
)

from model.tasks.probe_trace import anti_diagonal
from visualizer.panels.base import ConceptPanel
from visualizer.panels.jobs import KeptResults
from visualizer.panels.registry import TITLES
from visualizer.panels.train_files import TrainFilesMixin
from visualizer.panels.train_status import status_line
from visualizer.panels.train_text import TRAIN
from visualizer.state.training_run import TrainingRun
from visualizer.widgets.combo import refill
from visualizer.widgets.probe_view import ProbeView
from visualizer.widgets.training_curves import TrainingCurves
from visualizer.work.probe_tracer import ProbeTracer
from visualizer.work.training_process import TrainingProcess

DEFAULT_PROBE = "reverse: attention"
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
PLAY_MS = 700  # a snapshot shown this long while playing
DIAGONAL_SHOWN = 0.5  # an anti-diagonal this strong picks the head shown (model.tasks.probe)


class TrainPanel(TrainFilesMixin, ConceptPanel):
    key = "train"
    titles = TITLES["train"]
    texts = TRAIN
    explanations = {language: words["explanation"] for language, words in TRAIN.items()}

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
        self.curves.setMinimumSize(300, 380)
        views.addWidget(self.curves, 2)
        self.probe_view = ProbeView(session.colormap)
        self.probe_view.setMinimumSize(480, 380)
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
        grid = QGridLayout()
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
        row = QHBoxLayout()
        for name, widget in (("family", self.family), ("preset", self.preset), ("data", self.data)):
            row.addWidget(self.labels[name])
            row.addWidget(widget)
        row.addStretch(1)
        grid.addLayout(row, 0, 0)
        row = QHBoxLayout()
        for name, widget in (("steps", self.steps), ("every", self.every)):
            row.addWidget(self.labels[name])
            row.addWidget(widget)
        for name in ("train", "pause", "stop"):
            row.addWidget(self.buttons[name])
        row.addStretch(1)
        grid.addLayout(row, 1, 0)
        self.outer.addLayout(grid)
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

    def build_snapshot_row(self) -> None:
        row = QHBoxLayout()
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, 0)
        self.slider.valueChanged.connect(self.on_slider)
        self.snapshot_label = QLabel()
        self.snapshot_label.setMinimumWidth(190)
        self.follow = QCheckBox()
        self.follow.setChecked(True)
        self.play_button = QPushButton()
        self.play_button.clicked.connect(self.toggle_play)
        self.play_timer = QTimer(self)
        self.play_timer.setInterval(PLAY_MS)
        self.play_timer.timeout.connect(self.play_tick)
        row.addWidget(self.play_button)
        row.addWidget(self.snapshot_label)
        row.addWidget(self.slider, 1)
        row.addWidget(self.follow)
        self.outer.addLayout(row)
        actions = QHBoxLayout()
        for name in ("open_main", "compare", "save_checkpoint", "save_replay", "open_replay"):
            actions.addWidget(self.buttons[name])
        actions.addStretch(1)
        self.outer.addLayout(actions)
        probe_row = QHBoxLayout()
        self.probe = QLineEdit(DEFAULT_PROBE)
        self.probe.editingFinished.connect(self.on_probe_changed)
        self.kind = QComboBox()
        self.kind.currentIndexChanged.connect(lambda *_: self.draw_probe())
        probe_row.addWidget(self.labels["probe"])
        probe_row.addWidget(self.probe, 2)
        probe_row.addWidget(self.labels["kind"])
        probe_row.addWidget(self.kind)
        probe_row.addStretch(1)
        self.outer.addLayout(probe_row)

    # -- words ------------------------------------------------------------------------------------
    def on_language_changed(self, language: str) -> None:
        if not getattr(self, "words_built", False):  # called by the base class's __init__
            super().on_language_changed(language)
            return
        for name, label in self.labels.items():
            label.setText(self.text(name))
        for name, button in self.buttons.items():
            button.setText(self.text(name))
        self.follow.setText(self.text("follow"))
        refill(self.family, [(self.text(f), f) for f in ("transformer", "rnn")])
        refill(self.preset, [(self.text(p), p) for p in ("tiny", "small", "shipped")])
        self.fill_data()
        self.curves.set_words(
            *(self.text(n) for n in ("loss", "exact", "train_exact", "held_exact", "step_axis"))
        )
        super().on_language_changed(language)
        self.update_buttons()

    def fill_data(self) -> None:
        items = [(self.text(choice), choice) for choice in DATA_CHOICES]
        if self.pairs_file is not None:
            items[-1] = (self.text("pairs_chosen", name=self.pairs_file.name), "pairs_file")
        refill(self.data, items)

    # -- the run's settings -------------------------------------------------------------------------
    def on_family_changed(self) -> None:
        self.update_buttons()

    def on_preset_changed(self) -> None:
        self.steps.setValue(DEFAULT_STEPS[self.preset.currentData() or "tiny"])

    def on_data_chosen(self) -> None:
        if self.data.currentData() == "pairs_file":
            path, _ = QFileDialog.getOpenFileName(self, self.text("choose_pairs"), "", "*.tsv *.txt;;*")
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
            self.failure.setText(self.text("busy"))
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
        self.failure.setText(self.text("failed", message=message))
        self.failure.show()
        self.update_buttons()

    def show_status(self) -> None:
        line = status_line(self.run, self.process.state, self.text)
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
        self.buttons["pause"].setText(self.text("resume" if state == "paused" else "pause"))
        self.buttons["stop"].setEnabled(state in ("running", "paused"))
        self.buttons["open_replay"].setEnabled(not going)
        self.play_button.setText(self.text("pause_play" if self.play_timer.isActive() else "play"))
        self.play_button.setEnabled(self.run is not None and len(self.run.snapshots) > 1)
        for name in ("save_checkpoint", "open_main", "compare"):
            self.buttons[name].setEnabled(has_snapshot)
        replay_ready = self.run is not None and self.run.replay_path is not None and self.run.replay is None
        self.buttons["save_replay"].setEnabled(replay_ready and self.run.replay_path.exists())
        for widget in (self.family, self.preset, self.data, self.steps, self.every):
            widget.setEnabled(not going)

    # -- snapshots and the probe ---------------------------------------------------------------------------
    def shown_index(self) -> int | None:
        if self.run is None or not self.run.snapshots:
            return None
        return min(self.slider.value(), len(self.run.snapshots) - 1)

    def toggle_play(self) -> None:
        """Step through the snapshots (from the first, if the last is shown)."""
        if self.play_timer.isActive():
            self.play_timer.stop()
        elif self.run is not None and len(self.run.snapshots) > 1:
            if self.slider.value() >= self.slider.maximum():
                self.slider.setValue(0)
            self.play_timer.start()
        self.update_buttons()

    def play_tick(self) -> None:
        if self.slider.value() >= self.slider.maximum():
            self.play_timer.stop()
            self.update_buttons()
        else:
            self.slider.setValue(self.slider.value() + 1)

    def on_slider(self, _value: int) -> None:
        self.show_snapshot_label()
        self.draw_curves()
        self.draw_probe()

    def on_probe_changed(self) -> None:
        self.draw_probe()

    def show_snapshot_label(self) -> None:
        index = self.shown_index()
        if index is None:
            self.snapshot_label.setText(self.text("no_snapshot"))
            return
        count, step = len(self.run.snapshots), self.run.snapshots[index].step
        self.snapshot_label.setText(self.text("snapshot", index=index + 1, count=count, step=step))

    def probe_key(self, index: int) -> tuple:
        return (self.run.id, self.run.snapshots[index].step, self.probe.text())

    def draw_probe(self) -> None:
        index = self.shown_index()
        if index is None:
            self.probe_view.show_trace(None, "")
            self.output.setText("")
            return
        key = self.probe_key(index)
        trace = self.traces.get(key)
        step = self.run.snapshots[index].step
        if trace is None:
            self.output.setText(self.text("tracing", step=step))
            if self.tracer.wanted != key:
                self.tracer.trace(key, self.run, index, self.probe.text())
            return
        if isinstance(trace, Exception):
            self.output.setText(
                self.text("probe_failed", message=str(trace).splitlines()[0] if str(trace) else trace)
            )
            self.probe_view.show_trace(None, "")
            return
        self.fill_kinds(trace.kinds)
        kind = self.kind.currentData() or trace.kinds[0]
        self.choose_diagonal_head(trace, kind)
        self.probe_view.show_trace(trace, kind)
        layer, head = self.probe_view.chosen
        self.probe_view.set_title(self.text("head", kind=kind, layer=layer + 1, head=head + 1))
        output = trace.output_text
        if not trace.finished:
            output = self.text("output_cut", output=output, length=len(trace.output_tokens))
        self.output.setText(self.text("output", step=step, output=output))

    def choose_diagonal_head(self, trace, kind: str) -> None:
        """Until the user clicks a head, show the one that draws the clearest anti-diagonal
        (reversing), once there is one; then keep it, so that playing does not jump."""
        if self.head_chosen_by_user or self.diagonal_head is not None or kind != "cross":
            return
        line = anti_diagonal(trace, kind)
        if line.strength >= DIAGONAL_SHOWN:
            self.diagonal_head = (line.layer, line.head)
            self.probe_view.chosen = self.diagonal_head

    def on_head_clicked(self, _layer: int, _head: int) -> None:
        self.head_chosen_by_user = True
        self.draw_probe()

    def pending(self) -> bool:
        """Whether the shown snapshot's probe is still being run (a screenshot waits for it)."""
        index = self.shown_index()
        return index is not None and self.traces.get(self.probe_key(index)) is None

    def fill_kinds(self, kinds: tuple[str, ...]) -> None:
        if tuple(self.kind.itemData(i) for i in range(self.kind.count())) == kinds:
            return
        refill(self.kind, [(kind, kind) for kind in kinds], self.kind.currentData() or "cross")

    def on_traced(self, key: tuple, trace) -> None:
        self.traces.remember(key, trace)
        index = self.shown_index()
        if index is not None and key == self.probe_key(index):
            self.draw_probe()

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
