"""Which heads matter: each head zeroed alone, as layers × heads maps per kind of attention,
the pruning curve, and the live model with heads zeroed.

The maps and the curve come from ``model.attribution.heads`` on the worker (with progress; the
Stop button stops it). Clicking a head zeroes it in the live model (``Session.toggle_zeroed_head``:
the engine's own what-if), and the slider zeroes the k least important together; every other
view then shows the model without them.
"""

from __future__ import annotations

import threading
from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QSlider, QSpinBox

from model.attribution.results import HeadImportance, tasks_of
from visualizer.i18n import tr, trf
from visualizer.numbers import number
from visualizer.panels.base import ConceptPanel
from visualizer.panels.jobs import PanelJobs, Stopped
from visualizer.state.jobs import HeadImportanceJob
from visualizer.widgets.combo import refill
from visualizer.widgets.heatmap import MatrixPlot

LABEL_COLOR = "#dddddd"
CURVE_COLOR = "#4fc3f7"
NOW_COLOR = "#ffb300"
ZEROED_COLOR = "#ff5252"
MAX_LABELLED_CELLS = 64  # a map with more cells shows its numbers on hover only
SAMPLES = ("tasks", "source", "history")


def head_name(head: tuple[str, int, int]) -> str:
    kind, layer, index = head
    return f"{kind} L{layer + 1} H{index + 1}"


class HeadsPanel(ConceptPanel):
    key = "heads"

    def explain(self, language: str) -> str:
        return tr(
            "<b>Which heads matter?</b> Michel et al. (2019) zeroed attention heads one at a time "
            "and found that many can go with little loss, while encoder-decoder (cross) attention "
            "depends on its heads more than self-attention does. Each map below is one kind of "
            "attention, layers × heads: how much log-likelihood of the reference (nats per "
            "sequence) the model loses when that head alone is zeroed, and the exact match left. "
            "<b>Click a head</b> to zero it in the live model (again to restore it); the slider "
            "zeroes the <i>k</i> least important heads together, and the curve shows the exact "
            "match as heads are removed.",
            language,
        )

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.sample_label, self.n_label = QLabel(), QLabel()
        self.sample = QComboBox()
        self.n = QSpinBox()
        self.n.setRange(5, 1000)
        self.n.setValue(50)
        self.n.setKeyboardTracking(False)
        self.measure_button, self.stop_button, self.restore_button = (
            QPushButton(),
            QPushButton(),
            QPushButton(),
        )
        self.jobs = PanelJobs(session)
        self.progress = self.jobs.progress
        self.status, self.canvas = self.add_view(
            (self.sample_label, self.sample, self.n_label, self.n, self.measure_button),
            (self.progress, self.stop_button, self.restore_button),
            canvas_height=330,  # 1024×700: the maps in view below the controls
        )
        self.maps: dict[str, MatrixPlot] = {}
        self.cell_labels: list[tuple[pg.PlotItem, pg.TextItem]] = []  # the numbers drawn on the maps
        self.curve_plot: pg.PlotItem | None = None
        prune_row = QHBoxLayout()
        self.prune_label = QLabel()
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setTracking(False)  # regenerate once the slider is let go, not at every tick
        self.k_label = QLabel()
        prune_row.addWidget(self.prune_label)
        prune_row.addWidget(self.slider, 1)
        prune_row.addWidget(self.k_label)
        self.outer.addLayout(prune_row)
        self.zeroed_label = QLabel()
        self.zeroed_label.setWordWrap(True)
        self.outer.addWidget(self.zeroed_label)
        self.hover = QLabel(" ")
        self.outer.addWidget(self.hover)
        self.sample.currentIndexChanged.connect(self.on_state_changed)
        self.n.valueChanged.connect(self.on_state_changed)
        self.measure_button.clicked.connect(self.measure)
        self.stop_button.clicked.connect(self.stop)
        self.restore_button.clicked.connect(self.restore)
        self.slider.valueChanged.connect(self.on_slider)
        self.canvas.scene().sigMouseMoved.connect(self.on_mouse_moved)
        self.canvas.scene().sigMouseClicked.connect(self.on_mouse_clicked)
        self.subscriptions.add(session.compute_progress, self.jobs.on_progress)
        self.result: HeadImportance | None = None
        self.drawn: tuple | None = None  # what the maps were last drawn for
        self.controls_built = True
        self.on_language_changed(session.language)

    # -- words ------------------------------------------------------------------------------
    def on_language_changed(self, language: str) -> None:
        if not getattr(self, "controls_built", False):  # called by the base class's __init__
            super().on_language_changed(language)
            return
        self.sample_label.setText(tr("Measure on:", language))
        self.n_label.setText(tr("Examples:", language))
        self.fill_samples()
        self.measure_button.setText(tr("Measure", language))
        self.stop_button.setText(tr("Stop", language))
        self.restore_button.setText(tr("Restore all heads", language))
        self.prune_label.setText(tr("Zero the k least important heads:", language))
        super().on_language_changed(language)

    def fill_samples(self, keep: bool = True) -> None:
        """The samples this model can be measured on: fresh task examples only for a model
        trained on the shipped tasks (the first offered is chosen, unless ``keep``)."""
        model = self.session.model
        modes = [m for m in SAMPLES if m != "tasks" or (model is not None and tasks_of(model.metadata))]
        language = self.session.language
        names = {
            "tasks": tr("fresh task examples", language),
            "source": tr("this source", language),
            "history": tr("the sources run on this model", language),
        }
        refill(self.sample, [(names[m], m) for m in modes], None if keep else modes[0])
        self.n.setEnabled(self.sample.currentData() == "tasks")

    def on_model_changed(self, model) -> None:
        if getattr(self, "controls_built", False):
            self.result = None
            self.jobs.forget()
            self.fill_samples(keep=False)
        super().on_model_changed(model)

    # -- what to compute ----------------------------------------------------------------------
    def wanted_key(self) -> tuple | str:
        """The key of the measurement the controls ask for, or why there is none yet."""
        mode = self.sample.currentData() or "source"
        self.n.setEnabled(mode == "tasks")
        snapshot = self.session.snapshot
        if mode == "tasks":
            return ("heads", "tasks", self.n.value())
        if mode == "source":
            if snapshot is None or not snapshot.steps:
                return "no_source"
            # with what-ifs on, the output shown is not the model's as trained: keep the last
            # reference measured for this source rather than measure the changed output
            last = self.job_key
            if (
                snapshot.interventions.active
                and last is not None
                and last[1:3] == ("source", snapshot.source)
            ):
                return last
            return ("heads", "source", snapshot.source, tuple(s.token_id for s in snapshot.steps))
        if not self.session.sources_run:
            return "no_history"
        return ("heads", "history", tuple(self.session.sources_run))

    def refresh(self) -> None:
        language = self.session.language
        zeroed = self.session.interventions.zeroed_heads
        self.show_what_if(
            trf("WHAT-IF: {n} head(s) zeroed in the live model", language, n=len(zeroed)) if zeroed else None
        )
        self.zeroed_label.setText(
            trf(
                "Zeroed in the live model: {heads}",
                language,
                heads=", ".join(head_name(h) for h in sorted(zeroed)),
            )
            if zeroed
            else tr("No head is zeroed: the model runs as trained.", language)
        )
        key = self.wanted_key()
        if key == "no_source":
            self.status.setText(tr("Run a source first: its output is the reference.", language))
            return
        if key == "no_history":
            self.status.setText(
                tr(
                    "Run some sources first: for a model without a known task, importance is measured "
                    "on the sources you have run, with the model's own outputs as references.",
                    language,
                )
            )
            return
        value = self.jobs.answer(key)
        if value is None:
            computing = self.jobs.ask(key, lambda stop: self.job(key, stop))
            self.stop_button.setEnabled(computing)
            if computing:
                n = key[2] if key[1] == "tasks" else (1 if key[1] == "source" else len(key[2]))
                self.status.setText(trf("measuring each head on {n} sources …", language, n=n))
            return
        self.jobs.arrived(key, value)
        self.stop_button.setEnabled(False)
        if isinstance(value, Stopped):
            self.status.setText(tr("Stopped. Press “Measure” to measure again.", language))
            return
        self.result = value
        self.draw(value)

    @property
    def job_key(self) -> tuple | None:
        return self.jobs.key

    def job(self, key: tuple, stop: threading.Event) -> HeadImportanceJob:
        """The worker's job for ``key`` (a measurement wanted by ``wanted_key``)."""
        mode = key[1]
        n = key[2] if mode == "tasks" else 0
        history = key[2] if mode == "history" else ()
        source, written = (key[2], key[3]) if mode == "source" else ("", ())
        return HeadImportanceJob(mode, n, source, written, history, stop)

    def measure(self) -> None:
        """Measure again (after Stop, or on a fresh history)."""
        self.jobs.again()
        self.on_state_changed()

    def stop(self) -> None:
        self.jobs.stop()

    # -- the live model's zeroed heads ------------------------------------------------------------
    def restore(self) -> None:
        if self.session.interventions.zeroed_heads:
            self.session.set_interventions(replace(self.session.interventions, zeroed_heads=frozenset()))
        self.slider.blockSignals(True)
        self.slider.setValue(0)
        self.slider.blockSignals(False)
        self.show_k(0)

    def on_slider(self, k: int) -> None:
        if self.result is None:
            return
        self.show_k(k)
        self.session.set_interventions(
            replace(self.session.interventions, zeroed_heads=self.result.pruned(k))
        )

    def show_k(self, k: int) -> None:
        if self.result is None:
            self.k_label.setText("")
            return
        self.k_label.setText(
            trf(
                "k = {k}: exact match {exact:.0%} on the sample",
                self.session.language,
                k=k,
                exact=float(self.result.prune_exact_match[k]),
            )
        )
        if self.curve_plot is not None:
            self.now_line.setValue(k)

    # -- drawing ------------------------------------------------------------------------------
    def layout_for(self, result: HeadImportance) -> None:
        """One map per kind in a row, the curve below; built again only for another model."""
        if list(self.maps) == list(result.kinds):
            return
        self.canvas.clear()
        self.cell_labels = []  # gone with their plots
        self.maps = {
            kind: MatrixPlot(self.canvas.addPlot(row=0, col=column), self.session.colormap)
            for column, kind in enumerate(result.kinds)
        }
        self.curve_plot = self.canvas.addPlot(row=1, col=0, colspan=len(result.kinds))
        self.curve_plot.showGrid(x=True, y=True, alpha=0.2)
        self.curve_plot.setMouseEnabled(x=False, y=False)
        self.curve = self.curve_plot.plot(pen=pg.mkPen(CURVE_COLOR, width=2), symbol="o", symbolSize=5)
        self.now_line = pg.InfiniteLine(0, angle=90, pen=pg.mkPen(NOW_COLOR, width=2))
        self.curve_plot.addItem(self.now_line)
        self.canvas.ci.layout.setRowStretchFactor(0, 3)
        self.canvas.ci.layout.setRowStretchFactor(1, 2)

    def draw(self, result: HeadImportance) -> None:
        # the maps change only with the measurement, the zeroed heads, the language or colours:
        # a step of the generation redraws nothing here (each number is a TextItem, ~1 ms each)
        language = self.session.language
        shown = (self.session.interventions.zeroed_heads, language, self.session.colormap)
        if self.drawn is not None and self.drawn[0] is result and self.drawn[1:] == shown:
            return
        self.drawn = (result, *shown)
        self.layout_for(result)
        top = max(float(max(result.ll_drop[k].max() for k in result.kinds)), 1e-9)
        zeroed = self.session.interventions.zeroed_heads
        for plot, item in self.cell_labels:
            plot.removeItem(item)
        self.cell_labels = []
        for kind, cell in self.maps.items():
            drops = result.ll_drop[kind]
            cell.set_colormap(self.session.colormap)
            # a head that helps a little and one that helps a lot: on a log-like scale both show
            cell.show_matrix(np.log1p(np.maximum(drops, 0.0)), None, levels=(0.0, float(np.log1p(top))))
            layers, heads = drops.shape
            cell.set_ticks([f"L{i + 1}" for i in range(layers)], [f"H{i + 1}" for i in range(heads)])
            cell.plot.setTitle(
                trf(
                    "{kind}: log-likelihood drop",
                    language,
                    kind=tr(result.titles[kind], language),
                ),
                color=LABEL_COLOR,
                size="9pt",
            )
            if layers * heads <= MAX_LABELLED_CELLS:
                for layer in range(layers):
                    for head in range(heads):
                        mark = "✕ " if (kind, layer, head) in zeroed else ""
                        value = number(drops[layer, head], 2)
                        label = pg.TextItem(
                            f"{mark}{value}",
                            color=ZEROED_COLOR if mark else "#ffffff",
                            anchor=(0.5, 0.5),
                        )
                        label.setPos(head + 0.5, layer + 0.5)
                        cell.plot.addItem(label)
                        self.cell_labels.append((cell.plot, label))
        n_heads = len(result.prune_order)
        self.curve.setData(np.arange(len(result.prune_exact_match)), result.prune_exact_match * 100)
        self.curve_plot.setTitle(
            tr("exact match with the k least important heads zeroed", language),
            color=LABEL_COLOR,
            size="9pt",
        )
        self.curve_plot.setLabel("bottom", tr("heads zeroed (k)", language))
        self.curve_plot.setLabel("left", tr("exact match (%)", language))
        self.curve_plot.setYRange(0, 100, padding=0.02)
        self.slider.blockSignals(True)
        self.slider.setRange(0, n_heads)
        k = next((k for k in range(n_heads + 1) if result.pruned(k) == zeroed), self.slider.value())
        self.slider.setValue(k)
        self.slider.blockSignals(False)
        self.show_k(self.slider.value())
        most = ", ".join(f"{head_name(head)} ({number(drop, 2)})" for head, drop in result.most_important())
        if result.sample.reference_kind == "task":
            references = tr("the task's answers", language)
        else:
            references = tr("the model's own outputs (exact match: the output did not change)", language)
        self.status.setText(
            trf(
                "Sample: {n}; references: {references}. As trained: exact match {exact:.0%}, "
                "log-likelihood {ll} nats per sequence. Most important: {most}.",
                language,
                n=result.n,
                references=references,
                exact=result.base_exact_match,
                ll=number(result.base_ll),
                most=most,
            )
        )

    # -- mouse ----------------------------------------------------------------------------------
    def head_at(self, scene_pos) -> tuple[str, int, int] | None:
        for kind, cell in self.maps.items():
            found = cell.cell_at(scene_pos)
            if found is not None:
                return kind, found[0], found[1]
        return None

    def on_mouse_moved(self, scene_pos) -> None:
        head = self.head_at(scene_pos) if self.result is not None else None
        if head is None:
            return
        kind, layer, index = head
        self.hover.setText(
            trf(
                "{kind} L{layer} H{head}: log-likelihood drop {drop} nats, exact match {exact:.0%} "
                "with it zeroed",
                self.session.language,
                kind=tr(self.result.titles[kind], self.session.language),
                layer=layer + 1,
                head=index + 1,
                drop=number(self.result.ll_drop[kind][layer, index]),
                exact=float(self.result.exact_match[kind][layer, index]),
            )
        )

    def on_mouse_clicked(self, event) -> None:
        head = self.head_at(event.scenePos()) if self.result is not None else None
        if head is not None:
            self.session.toggle_zeroed_head(*head)

    def detach(self) -> None:
        self.jobs.close()
        super().detach()
