"""Positional encoding: the model's own table, its waves, the binary analogy, PE·PEᵀ, and a what-if.

The table comes from the live model on the worker thread (``Transformer.positional_encoding``:
the ``sinusoid`` buffer, a learned embedding, or zeros), never from a formula re-typed here.
Drawn beside it: a few dimension pairs as waves with their wavelengths, the binary code of the
position numbers (the analogy the paper draws), and PE·PEᵀ, whose diagonals are constant
for the sinusoidal encoding (similarity depends only on the offset).

The what-if runs the encoder on the source and on the source with two characters swapped,
with and without positional encoding. Without it the encoder cannot tell order: the swapped
source's attention is the original's with rows and columns permuted, ``A' = P A Pᵀ``.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSignalBlocker, Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
)

from model.probes.positions import (
    EncodingTable,
    SwapComparison,
    binary_code,
    default_pair,
    diagonal_deviation,
    gram,
    wavelength,
)
from visualizer.i18n import tr, trf
from visualizer.panels.base import ConceptPanel
from visualizer.panels.positions_swap import (
    SwapWhatIf,
    heat_plot,
    outline,
    place,
    position_ticks,
    style_axes,
)
from visualizer.state.jobs import Job, PositionTableJob
from visualizer.state.session import Session
from visualizer.widgets.heatmap import BACKGROUND, HIGHLIGHT_COLOR, SELECTED_COLOR

ENCODING_KEY = ("positions", "encoding")
PAIR_COLORS = ("#4fc3f7", "#ffb300", "#b388ff")  # the fast pair, the chosen pair, the slowest pair
LABEL_COLOR = "#dddddd"
SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def format_wavelength(value: float) -> str:
    return f"{value:.3g}" if value < 1000 else f"{value:,.0f}"


class PositionsPanel(SwapWhatIf, ConceptPanel):
    key = "positions"

    def explain(self, language: str) -> str:
        return tr(
            "Attention compares tokens by content alone: shuffle the words and every score is the "
            "same, only moved. So the paper <b>adds</b> to each token's embedding a vector that "
            "depends on its position: PE[p, 2i] = sin(p / 10000<sup>2i/d</sup>), PE[p, 2i+1] = "
            "cos(…). Each pair of dimensions is a wave, fast in the first dimensions and slower "
            "further on, much as the low bits of a binary counter flip fast and the high bits "
            "slowly. Because sin/cos of p + k is a rotation of sin/cos of p, PE·PEᵀ depends only "
            "on the offset k: the model can attend by relative position. Below: this model's own "
            "table, chosen pairs as waves, the binary code, PE·PEᵀ.",
            language,
        )

    def __init__(self, session: Session, parent=None) -> None:
        super().__init__(session, parent)
        self.requested_for = None  # the ModelInfo the controls were sized for
        self.table: EncodingTable | None = None
        self.comparison: SwapComparison | None = None
        self.swap_source: str | None = None  # the source the swap controls were fitted to
        self.diagonal_deviation: float | None = None  # of PE·PEᵀ, as measured
        self.gram_span = (0.0, 0.0)
        self.wave_dims: dict[int, int] = {}  # curve index -> the dimension it draws
        self.swap_deviation: dict[str, float] = {}  # "with_pe"/"without_pe": the selected head's
        self.all_heads_deviation: dict[str, float] = {}  # the same over every layer and head
        self.drawn: dict[str, tuple] = {}  # what each part was last drawn from, to skip redraws
        self.outer.addLayout(self.build_controls())
        # the what-if's comparison takes the encoding's place while it is active
        self.outer.addWidget(self.build_canvas(), 1)
        self.outer.addWidget(self.build_swap_canvas(), 1)
        self.info = QLabel()
        self.info.setWordWrap(True)
        self.info.setTextFormat(Qt.TextFormat.RichText)
        self.outer.addWidget(self.info)

    # -- construction ----------------------------------------------------------------------
    def build_controls(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.pair_label = QLabel()
        self.pair_spin = QSpinBox()
        self.pair_spin.valueChanged.connect(self.on_control_changed)
        self.pair_info = QLabel()
        self.what_if_button = QPushButton()
        self.what_if_button.setCheckable(True)
        self.what_if_button.toggled.connect(self.on_control_changed)
        self.swap_label = QLabel()
        self.swap_a, self.swap_b = QSpinBox(), QSpinBox()
        for spin in (self.swap_a, self.swap_b):
            spin.valueChanged.connect(self.on_control_changed)
        for widget in (self.pair_label, self.pair_spin, self.pair_info):
            row.addWidget(widget)
        row.addSpacing(24)
        row.addWidget(self.what_if_button)
        for widget in (self.swap_label, self.swap_a, QLabel("↔"), self.swap_b):
            row.addWidget(widget)
        row.addStretch(1)
        return row

    def build_canvas(self) -> pg.GraphicsLayoutWidget:
        """PE and the binary code side by side, the waves below them, PE·PEᵀ on the right."""
        canvas = pg.GraphicsLayoutWidget()
        canvas.setBackground(BACKGROUND)
        layout = canvas.ci
        layout.setSpacing(2)
        self.pe_plot = layout.addPlot(row=0, col=0)
        self.pe_image = heat_plot(self.pe_plot)
        self.pe_colorbar = pg.ColorBarItem(values=(-1, 1), interactive=False, width=12)
        self.pe_colorbar.setImageItem(self.pe_image)
        layout.addItem(self.pe_colorbar, row=0, col=1)
        self.bits_plot = layout.addPlot(row=0, col=2)
        self.bits_image = heat_plot(self.bits_plot)
        self.gram_plot = layout.addPlot(row=0, col=3, rowspan=3)
        self.gram_image = heat_plot(self.gram_plot)
        self.gram_plot.getViewBox().setAspectLocked(True)
        self.gram_colorbar = pg.ColorBarItem(values=(0, 1), interactive=False, width=12)
        self.gram_colorbar.setImageItem(self.gram_image)
        layout.addItem(self.gram_colorbar, row=0, col=4, rowspan=3)
        self.legend = pg.LegendItem(colCount=3, labelTextColor=LABEL_COLOR, labelTextSize="8pt")
        layout.addItem(self.legend, row=1, col=0, colspan=3)
        self.waves_plot = layout.addPlot(row=2, col=0, colspan=3)
        self.build_waves()
        self.pe_source = outline(self.pe_plot, HIGHLIGHT_COLOR)
        self.pe_decoder = outline(self.pe_plot, SELECTED_COLOR, width=1.5)
        self.pe_pairs = [outline(self.pe_plot, color, width=1.5, dashed=True) for color in PAIR_COLORS]
        self.bits_source = outline(self.bits_plot, HIGHLIGHT_COLOR)
        self.bits_decoder = outline(self.bits_plot, SELECTED_COLOR, width=1.5)
        self.gram_source = outline(self.gram_plot, HIGHLIGHT_COLOR)
        for column, stretch in ((0, 6), (2, 1), (3, 4)):
            layout.layout.setColumnStretchFactor(column, stretch)
        layout.layout.setRowStretchFactor(0, 3)
        layout.layout.setRowStretchFactor(2, 2)
        canvas.setMinimumHeight(300)
        self.canvas = canvas
        return canvas

    def build_waves(self) -> None:
        plot = self.waves_plot
        plot.setMouseEnabled(x=False, y=False)
        plot.setMenuEnabled(False)
        plot.hideButtons()
        style_axes(plot)
        plot.getAxis("left").enableAutoSIPrefix(False)
        self.source_region = pg.LinearRegionItem(
            movable=False, brush=(255, 82, 82, 30), pen=(255, 82, 82, 90)
        )
        plot.addItem(self.source_region)
        # two curves per pair, in PAIR_COLORS order: dimension 2i solid (sin), 2i+1 dashed (cos)
        self.curves = [
            plot.plot(
                pen=pg.mkPen(color, width=2, style=style),
                symbol="o",
                symbolSize=3,
                symbolPen=None,
                symbolBrush=color,
            )
            for color in PAIR_COLORS
            for style in (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine)
        ]

    def on_control_changed(self, *_args) -> None:
        self.on_state_changed()

    def changed(self, part: str, *inputs) -> bool:
        """True (and remembered) when ``part`` was last drawn from other inputs."""
        if self.drawn.get(part) == inputs:
            return False
        self.drawn[part] = inputs
        return True

    # -- drawing ---------------------------------------------------------------------------
    def refresh(self) -> None:
        session = self.session
        if session.model is not self.requested_for:
            self.configure(session.model)
        if self.changed("texts", session.language, session.colormap):
            self.retranslate()
        if session.model is None:
            return
        self.table = self.request(ENCODING_KEY, PositionTableJob())
        if self.changed("encoding", id(self.table), self.pair_spin.value(), session.language):
            self.draw_encoding()
        self.draw_marks()
        self.draw_what_if()
        self.update_info()

    def request(self, key: tuple, job: Job):
        """The computed answer for ``key``, or None after asking for it (the session asks once)."""
        self.session.compute(key, job)
        return self.session.computed.get(key)

    def configure(self, model) -> None:
        """A new model: size the controls to its config."""
        self.requested_for = model
        self.swap_source = None
        self.drawn.clear()
        if model is None:
            return
        # the what-if re-encodes without the positions: only for a model that can leave them out
        supported = model.family.capabilities.supports("no_positional")
        if not supported:
            self.what_if_button.setChecked(False)
        self.what_if_button.setEnabled(supported)
        self.what_if_button.setToolTip(
            ""
            if supported
            else tr("this model cannot be run without its positional encoding", self.session.language)
        )
        d_model, max_len = model.family.d_model, model.family.max_source_len
        with QSignalBlocker(self.pair_spin):
            self.pair_spin.setRange(0, max(d_model // 2 - 1, 0))
            self.pair_spin.setValue(default_pair(d_model, max_len))
        code = binary_code(max_len)
        self.bits_image.setImage(code, autoLevels=False, levels=(0.0, 1.0))
        self.bits_image.setRect(QRectF(0, 0, code.shape[1], code.shape[0]))
        self.bits_plot.setRange(xRange=(0, code.shape[1]), yRange=(0, code.shape[0]), padding=0)
        ticks = [[(b + 0.5, "2" + str(b).translate(SUPERSCRIPTS)) for b in range(code.shape[1])]]
        self.bits_plot.getAxis("bottom").setTicks(ticks)
        self.bits_plot.getAxis("left").setTicks(position_ticks(max_len))

    def retranslate(self) -> None:
        """Texts and colours that follow the language and the colormap."""
        language = self.session.language
        self.pair_label.setText(tr("pair i:", language))
        self.what_if_button.setText(tr("What-if: remove positional encoding", language))
        self.swap_label.setText(tr("swap source positions", language))
        for plot, title in (
            (self.pe_plot, tr("PE: position (row) × dimension (column)", language)),
            (self.bits_plot, tr("position in binary (bits)", language)),
            (self.gram_plot, tr("PE·PEᵀ: position × position", language)),
        ):
            plot.setTitle(title, color=LABEL_COLOR, size="10pt")
        self.pe_plot.setLabel("left", tr("position", language))
        self.gram_plot.setLabel("left", tr("position", language) + " p")
        self.gram_plot.setLabel("bottom", tr("position", language) + " q")
        self.waves_plot.setLabel("left", tr("value", language))
        colormap = pg.colormap.get(self.session.colormap)
        for image in (self.pe_image, self.bits_image, self.gram_image):
            image.setColorMap(colormap)
        for colorbar in (self.pe_colorbar, self.gram_colorbar, self.swap_colorbar):
            colorbar.setColorMap(colormap)
        for matrix in self.swap_matrices:
            matrix.set_colormap(self.session.colormap)

    def draw_encoding(self) -> None:
        """The table, PE·PEᵀ and the waves, from the model's encoding."""
        if self.table is None:
            for image in (self.pe_image, self.gram_image):
                image.clear()
            for curve in self.curves:
                curve.setData([], [])
            self.legend.clear()
            self.diagonal_deviation = None
            return
        table = self.table.table
        positions, d_model = table.shape
        bound = float(np.abs(table).max()) or 1.0
        levels = (-bound, bound) if self.table.kind == "learned" else (-1.0, 1.0)
        self.pe_colorbar.setLevels(levels)
        self.pe_image.setImage(table, autoLevels=False, levels=levels)
        self.pe_image.setRect(QRectF(0, 0, d_model, positions))
        self.pe_plot.setRange(xRange=(0, d_model), yRange=(0, positions), padding=0)
        step = max(1, d_model // 8)
        self.pe_plot.getAxis("bottom").setTicks([[(d + 0.5, str(d)) for d in range(0, d_model, step)]])
        self.pe_plot.getAxis("left").setTicks(position_ticks(positions))
        self.draw_gram(gram(table))
        self.draw_waves(table)

    def draw_gram(self, products: np.ndarray) -> None:
        positions = products.shape[0]
        low, high = float(products.min()), float(products.max())
        levels = (low, high) if high > low else (low - 1.0, high + 1.0)
        self.gram_colorbar.setLevels(levels)
        self.gram_image.setImage(products, autoLevels=False, levels=levels)
        self.gram_image.setRect(QRectF(0, 0, positions, positions))
        self.gram_plot.setRange(xRange=(0, positions), yRange=(0, positions), padding=0)
        for side in ("left", "bottom"):
            self.gram_plot.getAxis(side).setTicks(position_ticks(positions))
        self.diagonal_deviation = diagonal_deviation(products)
        self.gram_span = (low, high)

    def draw_waves(self, table: np.ndarray) -> None:
        """The fastest pair, the chosen pair and the slowest pair as curves over position."""
        positions, d_model = table.shape
        chosen = self.pair_spin.value()
        self.pair_info.setText(self.pair_legend(chosen, d_model, formula=False))
        self.legend.clear()
        self.wave_dims = {}
        x = np.arange(positions)
        pairs = (0, chosen, d_model // 2 - 1)
        for slot, pair in enumerate(pairs):
            repeated = pair in pairs[:slot]
            for phase in (0, 1):
                curve = self.curves[2 * slot + phase]
                if repeated:
                    curve.setData([], [])
                    continue
                dim = self.table.pair_dims(pair)[phase]
                self.wave_dims[2 * slot + phase] = dim
                curve.setData(x, table[:, dim])
            if repeated:
                self.pe_pairs[slot].hide()
                continue
            # the short form: three formulas side by side pushed PE·PEᵀ off a 1024-pixel window
            self.legend.addItem(self.curves[2 * slot], self.pair_legend(pair, d_model, formula=False))
            first, second = self.table.pair_dims(pair)
            place(self.pe_pairs[slot], first, 0, 2 if second == first + 1 else 1, positions)
        if self.table.kind != "sinusoidal":
            title = tr("PE[:, 2i] (solid) and PE[:, 2i+1] (dashed) over position", self.session.language)
        else:
            title = tr(
                "PE[:, i] (sin, solid) and PE[:, i + d/2] (cos, dashed) over position"
                if self.table.layout == "halves"
                else "PE[:, 2i] (sin, solid) and PE[:, 2i+1] (cos, dashed) over position",
                self.session.language,
            )
        self.waves_plot.setTitle(title, color=LABEL_COLOR, size="10pt")
        if self.table.kind == "learned":
            self.waves_plot.enableAutoRange(axis="y")
        else:
            self.waves_plot.setYRange(-1.1, 1.1, padding=0)
        self.waves_plot.setXRange(0, positions - 1, padding=0.01)

    def pair_legend(self, pair: int, d_model: int, formula: bool = True) -> str:
        """ "dims 2i, 2i+1 · λ = 2π·10000^(2i/d) = …" (no wavelength unless sinusoidal)."""
        if self.table is None:
            return trf("dims {a}, {b}", self.session.language, a=2 * pair, b=2 * pair + 1)
        first, second = self.table.pair_dims(pair)
        name = trf("dims {a}, {b}", self.session.language, a=first, b=second)
        if self.table.kind != "sinusoidal":
            return name
        if self.table.layout == "halves":  # not the paper's formula: measured from the table
            return f"{name} · λ = {format_wavelength(self.table.measured_wavelength(pair))}"
        value = format_wavelength(wavelength(pair, d_model))
        if not formula:
            return f"{name} · λ = {value}"
        return f"{name} · λ = 2π·10000<sup>{2 * pair}/{d_model}</sup> = {value}"

    def draw_marks(self) -> None:
        """The source's positions (red) and the position the decoder reads at the shown step (orange)."""
        snapshot = self.session.snapshot
        marks = (self.pe_source, self.pe_decoder, self.bits_source, self.bits_decoder, self.gram_source)
        if snapshot is None or self.table is None:
            for rect in marks:
                rect.hide()
            return
        positions, d_model = self.table.table.shape
        length = len(snapshot.encoder.tokens)
        bits = binary_code(positions).shape[1]
        place(self.pe_source, 0, 0, d_model, length)
        place(self.bits_source, 0, 0, bits, length)
        place(self.gram_source, 0, 0, length, length)
        self.source_region.setRegion((0, length - 1))
        cursor = self.session.cursor
        if cursor >= 0:
            place(self.pe_decoder, 0, cursor, d_model, 1)
            place(self.bits_decoder, 0, cursor, bits, 1)
        else:
            self.pe_decoder.hide()
            self.bits_decoder.hide()

    # -- the what-if -----------------------------------------------------------------------
    def update_info(self) -> None:
        language = self.session.language
        if self.what_if_button.isChecked():
            self.info.setText(self.swap_text())
            return
        if self.table is None:
            self.info.setText(tr("Asking the model for its positional encoding…", language))
            return
        halves = self.table.kind == "sinusoidal" and self.table.layout == "halves"
        lines = [self.kind_text(halves)]
        snapshot = self.session.snapshot
        if snapshot is not None:
            length = len(snapshot.encoder.tokens)
            if self.session.cursor >= 0:
                lines.append(
                    trf(
                        "Red frame: the source's {n} positions (0–{last}); orange row: position {t}, read by "
                        "the decoder at the shown step.",
                        language,
                        n=length,
                        last=length - 1,
                        t=self.session.cursor,
                    )
                )
            else:
                lines.append(
                    trf(
                        "Red frame: the source's {n} positions (0–{last}).",
                        language,
                        n=length,
                        last=length - 1,
                    )
                )
        lines.append(self.diagonal_text())
        self.info.setText(" ".join(lines))

    def kind_text(self, halves: bool) -> str:
        """What this model adds to its tokens: which kind of table, and how it is stored."""
        language = self.session.language
        if halves:
            return tr(
                "This model adds a fixed sinusoidal table, read from its weights, stored as all sines "
                "then all cosines: pair i is dims i and i + d/2, and each wavelength is measured from "
                "the table.",
                language,
            )
        if self.table.kind == "learned":
            return tr(
                "This model <b>learned</b> its positional embedding: the table, the waves and PE·PEᵀ "
                "show what training made of it; no wavelength applies.",
                language,
            )
        if self.table.kind == "none":
            return tr(
                "This model adds <b>no</b> positional encoding: the table is all zeros, and its encoder "
                "cannot tell one order of the source from another.",
                language,
            )
        return tr(
            "This model adds the fixed sinusoidal encoding (its <code>sinusoid</code> buffer).", language
        )

    def diagonal_text(self) -> str:
        language = self.session.language
        if self.table is None or self.diagonal_deviation is None:
            return ""
        if self.table.kind == "none":
            return tr("PE·PEᵀ is all zeros.", language)
        if self.table.kind == "learned":
            return trf(
                "PE·PEᵀ is <b>not</b> constant along its diagonals (max deviation {dev:.3g}): a "
                "learned encoding does not promise that similarity depends only on the offset.",
                language,
                dev=self.diagonal_deviation,
            )
        low, high = self.gram_span
        return trf(
            "PE·PEᵀ: every diagonal (fixed offset q − p) is constant: measured max deviation along "
            "a diagonal {dev:.2g} (values span {low:.3g} … {high:.3g}).",
            language,
            dev=self.diagonal_deviation,
            low=low,
            high=high,
        )
