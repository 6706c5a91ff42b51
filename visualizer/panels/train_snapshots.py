"""The Train page's snapshots: the slider over them, Play, and the probe run on the shown one
(by the page's ``ProbeTracer`` thread, never on the GUI thread; the answers are kept per run,
snapshot and probe). Mixed into ``TrainPanel`` (which has ``run``, ``traces``, ``tracer``,
``probe_view``, ``output``, ``buttons``, ``labels``, ``session``, ``update_buttons`` and
``draw_curves``)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QSlider

from model.tasks.probe_trace import anti_diagonal
from visualizer.i18n import tr, trf
from visualizer.widgets.combo import refill
from visualizer.widgets.flow_row import FlowRow, keep_size_hint

DEFAULT_PROBE = "reverse: attention"
PLAY_MS = 700  # a snapshot shown this long while playing
DIAGONAL_SHOWN = 0.5  # an anti-diagonal this strong picks the head shown (model.tasks.probe)


class SnapshotsMixin:
    def build_snapshot_row(self) -> None:
        """Play, the shown snapshot and the slider; the run's actions; the probe and its kind."""
        row = QHBoxLayout()  # the slider takes what the others leave, and never less than its own
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
        for widget in (self.play_button, self.snapshot_label, self.follow):
            keep_size_hint(widget)
        row.addWidget(self.play_button)
        row.addWidget(self.snapshot_label)
        row.addWidget(self.slider, 1)
        row.addWidget(self.follow)
        self.outer.addLayout(row)
        # the run's actions, then the probe and its kind: one row that wraps (FlowRow)
        actions = FlowRow()
        for name in ("open_main", "compare", "save_checkpoint", "save_replay", "open_replay"):
            actions.addWidget(self.buttons[name])
        actions.addSpacing(12)
        self.probe = QLineEdit(DEFAULT_PROBE)
        self.probe.setMinimumWidth(160)
        self.probe.editingFinished.connect(self.on_probe_changed)
        self.kind = QComboBox()
        self.kind.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)  # titles come later
        self.kind.currentIndexChanged.connect(lambda *_: self.draw_probe())
        actions.addWidget(self.labels["probe"])
        actions.addWidget(self.probe, 1)
        actions.addWidget(self.labels["kind"])
        actions.addWidget(self.kind)
        self.outer.addLayout(actions)

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
            self.snapshot_label.setText(tr("No snapshot yet", self.session.language))
            return
        count, step = len(self.run.snapshots), self.run.snapshots[index].step
        self.snapshot_label.setText(
            trf(
                "Snapshot {index} of {count}: step {step}",
                self.session.language,
                index=index + 1,
                count=count,
                step=step,
            )
        )

    def probe_key(self, index: int) -> tuple:
        return (self.run.id, self.run.snapshots[index].step, self.probe.text())

    def draw_probe(self) -> None:
        language = self.session.language
        index = self.shown_index()
        if index is None:
            self.probe_view.show_trace(None, "")
            self.output.setText("")
            return
        key = self.probe_key(index)
        trace = self.traces.get(key)
        step = self.run.snapshots[index].step
        if trace is None:
            self.output.setText(trf("Running the probe on step {step} …", language, step=step))
            if self.tracer.wanted != key:
                self.tracer.trace(key, self.run, index, self.probe.text())
            return
        if isinstance(trace, Exception):
            self.output.setText(
                trf(
                    "The probe could not be run: {message}",
                    language,
                    message=str(trace).splitlines()[0] if str(trace) else trace,
                )
            )
            self.probe_view.show_trace(None, "")
            return
        self.fill_kinds(trace)
        kind = self.kind.currentData() or trace.kinds[0]
        self.choose_diagonal_head(trace, kind)
        self.probe_view.show_trace(trace, kind)
        layer, head = self.probe_view.chosen
        self.probe_view.set_title(
            trf(
                "{kind} L{layer} H{head}",
                language,
                kind=tr(trace.title(kind), language),
                layer=layer + 1,
                head=head + 1,
            )
        )
        output = trace.output_text
        if not trace.finished:
            output = trf(
                "{output} … (no <eos> within {length} tokens)",
                language,
                output=output,
                length=len(trace.output_tokens),
            )
        self.output.setText(
            trf("Output of the snapshot at step {step}: {output}", language, step=step, output=output)
        )

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

    def fill_kinds(self, trace) -> None:
        """The kinds of the probed model, by their titles as the main window's tabs name them."""
        language = self.session.language
        items = [(tr(trace.title(kind), language), kind) for kind in trace.kinds]
        if [(self.kind.itemText(i), self.kind.itemData(i)) for i in range(self.kind.count())] == items:
            return
        refill(self.kind, items, self.kind.currentData() or "cross")

    def on_traced(self, key: tuple, trace) -> None:
        self.traces.remember(key, trace)
        index = self.shown_index()
        if index is not None and key == self.probe_key(index):
            self.draw_probe()
