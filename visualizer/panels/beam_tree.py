"""The beam panel's tree: every hypothesis as a box (token, cumulative log-probability), its
edges, styles by status, and the names of the statuses and strategies.

Columns are output steps; rows are laid out so that children sit near their parents.
"""

from __future__ import annotations

import html
from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QTransform
from PySide6.QtWidgets import (
    QGraphicsPathItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QWidget,
)

from model.generation.records import BeamNode, BeamResult
from model.interface import Tokenizer
from visualizer.i18n import tr, trf
from visualizer.state.token_labels import start_token
from visualizer.widgets.heatmap import BACKGROUND, display_token


@dataclass(frozen=True)
class NodeStyle:
    fill: str
    border: str
    text: str
    score: str  # the log-probability's colour, quieter than the token's
    border_width: float = 1.0


STYLES = {
    "kept": NodeStyle("#2f4a6d", "#7fa7d9", "#ffffff", "#c4d6ee"),
    "finished": NodeStyle("#1e5a32", "#5bd17a", "#ffffff", "#c8efd2"),
    "pruned": NodeStyle("#2a2a2a", "#5c5c5c", "#8f8f8f", "#767676"),
}
BEST_COLOR = "#ffb300"  # the hypothesis the model outputs: its boxes' borders and edges
SELECTED_COLOR = "#4fc3f7"  # the hypothesis whose attention is shown
EDGE_COLORS = {"kept": "#7d8ea6", "finished": "#5bd17a", "pruned": "#4d4d4d"}
CURRENT_COLUMN = "#2b3340"  # band behind the shown step's column
FUTURE_OPACITY = 0.2
NODE_HEIGHT, ROW_PITCH, COLUMN_GAP = 21.0, 25.0, 34.0
MIN_SCALE = 0.75  # the tree shrinks at most this far to fit its height; below, it scrolls


def status_name(status: str, language: str) -> str:
    """A hypothesis's fate: kept in the beam, finished with <eos>, or pruned."""
    if status == "kept":
        return tr("in the beam", language)
    if status == "finished":
        return tr("finished", language)
    return tr("pruned", language)


def strategy_name(strategy: str, language: str) -> str:
    """The decoding strategy in use, when it is not beam search (then there is no tree)."""
    if strategy == "greedy":
        return tr("greedy", language)
    if strategy == "sample":
        return tr("sampling (temperature)", language, disambiguation="beam tree: the strategy in use")
    if strategy == "topk":
        return tr("top-k sampling", language)
    if strategy == "topp":
        return tr("top-p (nucleus) sampling", language)
    return strategy


def signed(value: float) -> str:
    """A log-probability as printed on the tree: two decimals, a true minus sign."""
    return f"{value:.2f}".replace("-", "−")


# -- the tree ---------------------------------------------------------------------------------
def tree_rows(beam: BeamResult) -> dict[int, float]:
    """A row for every node: each step's nodes in one block centred on row 0.

    Within a step, nodes follow their parents' order, then score, so no two edges cross.
    """
    children: dict[int, list[BeamNode]] = defaultdict(list)
    for node in beam.nodes[1:]:
        children[node.parent].append(node)
    rows = {0: 0.0}
    column = [beam.nodes[0]]
    while column:
        column = [kid for parent in column for kid in sorted(children[parent.id], key=lambda n: -n.logprob)]
        for i, node in enumerate(column):
            rows[node.id] = i - (len(column) - 1) / 2
    return rows


def best_path(beam: BeamResult) -> set[int]:
    """Ids of the nodes from the root to the best hypothesis."""
    ids, node = set(), beam.nodes[beam.best_node]
    while True:
        ids.add(node.id)
        if node.parent is None:
            return ids
        node = beam.nodes[node.parent]


class NodeItem(QGraphicsRectItem):
    """One hypothesis: a box with its last token and its cumulative log-probability."""

    def __init__(self, node: BeamNode, label: tuple[str, str], width: float, fonts, on_best: bool) -> None:
        super().__init__(0, 0, width, NODE_HEIGHT)
        self.node = node
        self.on_best = on_best
        self.label = "  ".join(label)
        style = STYLES[node.status]
        self.setBrush(QBrush(QColor(style.fill)))
        self.setPen(
            QPen(QColor(BEST_COLOR if on_best else style.border), 2.5 if on_best else style.border_width)
        )
        token, score = (QGraphicsSimpleTextItem(part, self) for part in label)
        for part, font, colour in ((token, fonts[0], style.text), (score, fonts[1], style.score)):
            part.setFont(font)
            part.setBrush(QBrush(QColor(colour)))
        middle = NODE_HEIGHT / 2
        token.setPos(7, middle - token.boundingRect().height() / 2)
        score.setPos(width - 7 - score.boundingRect().width(), middle - score.boundingRect().height() / 2)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setZValue(2)


class BeamTreeView(QGraphicsView):
    """The search tree; emits ``node_clicked(id)`` when a box is clicked."""

    node_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setBackgroundBrush(QColor(BACKGROUND))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.node_font = QFont(self.font().family(), 10)
        self.token_font = QFont(self.node_font)
        self.token_font.setBold(True)
        self.beam: BeamResult | None = None
        self.items: dict[int, NodeItem] = {}
        self.edges: dict[int, QGraphicsPathItem] = {}  # by child id
        self.headers: dict[int, QGraphicsSimpleTextItem] = {}  # by step (-1 = the start)
        self.band = QGraphicsRectItem()
        self.outline = QGraphicsRectItem()

    def clear(self) -> None:
        """Forget the tree: a tree no longer shown holds no items (and no memory)."""
        self.scene().clear()
        self.beam, self.items, self.edges, self.headers = None, {}, {}, {}
        self.band, self.outline = QGraphicsRectItem(), QGraphicsRectItem()

    def build(self, beam: BeamResult, tokenizer: Tokenizer, language: str) -> None:
        """Lay out every node of ``beam`` once; ``show_until`` then picks what is visible."""
        scene = self.scene()
        scene.clear()
        self.beam, self.items, self.edges, self.headers = beam, {}, {}, {}
        labels = {node.id: node_label(node, tokenizer) for node in beam.nodes}
        fonts = (self.token_font, self.node_font)
        widths = [
            max(QFontMetricsF(font).horizontalAdvance(label[part]) for label in labels.values())
            for part, font in enumerate(fonts)
        ]
        width = sum(widths) + 26
        pitch = width + COLUMN_GAP
        rows = tree_rows(beam)
        top = min(rows.values()) * ROW_PITCH
        bottom = max(rows.values()) * ROW_PITCH + NODE_HEIGHT
        on_best = best_path(beam)
        for node in beam.nodes:
            item = NodeItem(node, labels[node.id], width, fonts, node.id in on_best)
            item.setPos((node.step + 1) * pitch, rows[node.id] * ROW_PITCH)
            item.setToolTip(node_tooltip(node, beam, tokenizer, language))
            scene.addItem(item)
            self.items[node.id] = item
        for node in beam.nodes[1:]:
            self.edges[node.id] = self.add_edge(self.items[node.parent], self.items[node.id], on_best)
        for step in range(-1, max(node.step for node in beam.nodes) + 1):
            header = scene.addSimpleText(
                tr("start", language) if step < 0 else trf("step {n}", language, n=step + 1)
            )
            header.setFont(self.node_font)
            header.setBrush(QBrush(QColor("#bbbbbb")))
            header.setPos((step + 1) * pitch + (width - header.boundingRect().width()) / 2, top - 23)
            self.headers[step] = header
        self.band = scene.addRect(
            QRectF(-6, top - 26, width + 12, bottom - top + 32), QPen(Qt.PenStyle.NoPen)
        )
        self.band.setBrush(QColor(CURRENT_COLUMN))
        self.band.setData(0, pitch)
        self.band.setZValue(-1)
        self.outline = scene.addRect(
            QRectF(-4, -4, width + 8, NODE_HEIGHT + 8), QPen(QColor(SELECTED_COLOR), 2)
        )
        self.outline.setZValue(3)
        self.outline.hide()

    def add_edge(self, parent: NodeItem, child: NodeItem, on_best: set[int]) -> QGraphicsPathItem:
        start = parent.sceneBoundingRect()
        end = child.sceneBoundingRect()
        a, b = QPointF(start.right(), start.center().y()), QPointF(end.left(), end.center().y())
        middle = (a.x() + b.x()) / 2
        path = QPainterPath(a)
        path.cubicTo(QPointF(middle, a.y()), QPointF(middle, b.y()), b)
        best = child.node.id in on_best
        pen = QPen(QColor(BEST_COLOR if best else EDGE_COLORS[child.node.status]), 3.0 if best else 1.4)
        if child.node.status == "pruned":
            pen.setStyle(Qt.PenStyle.DashLine)
        edge = self.scene().addPath(path, pen)
        edge.setZValue(1 if best else 0)
        return edge

    def show_until(self, cursor: int, show_future: bool, selected: int | None) -> None:
        """Nodes up to step ``cursor`` as they are; later ones hidden or faint."""
        for node_id, item in self.items.items():
            future = item.node.step > cursor
            item.setVisible(show_future or not future)
            item.setOpacity(FUTURE_OPACITY if future else 1.0)
            if node_id in self.edges:
                self.edges[node_id].setVisible(item.isVisible())
                self.edges[node_id].setOpacity(item.opacity())
        for step, header in self.headers.items():
            header.setVisible(show_future or step <= cursor)
            header.setOpacity(FUTURE_OPACITY if step > cursor else 1.0)
        pitch = self.band.data(0)
        self.band.setPos((cursor + 1) * pitch, 0)
        if selected is not None and selected in self.items:
            self.outline.setPos(self.items[selected].pos())
            self.outline.setVisible(self.items[selected].isVisible())
        else:
            self.outline.hide()
        shown = [item.sceneBoundingRect() for item in self.items.values() if item.isVisible()]
        shown += [h.sceneBoundingRect() for h in self.headers.values() if h.isVisible()]
        rect = shown[0]
        for other in shown[1:]:
            rect = rect.united(other)
        self.setSceneRect(rect.adjusted(-10, -6, 10, 6))
        current = [item for item in self.items.values() if item.node.step == cursor and item.on_best]
        self.fit_height()
        if current:
            self.ensureVisible(current[0], 60, 30)

    def fit_height(self) -> None:
        """Shrink the tree (down to MIN_SCALE) so that a whole step's column fits the height."""
        height = self.sceneRect().height()
        room = self.viewport().height()
        scale = max(MIN_SCALE, min(1.0, room / height)) if height > 0 and room > 0 else 1.0
        self.setTransform(QTransform.fromScale(scale, scale))

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if self.items:
            self.fit_height()

    def mousePressEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        item = self.itemAt(event.position().toPoint())
        while item is not None and not isinstance(item, NodeItem):
            item = item.parentItem()
        if isinstance(item, NodeItem) and event.button() == Qt.MouseButton.LeftButton:
            self.node_clicked.emit(item.node.id)
            event.accept()
            return
        super().mousePressEvent(event)


def node_label(node: BeamNode, tokenizer: Tokenizer) -> tuple[str, str]:
    token = start_token(tokenizer) if node.parent is None else display_token(tokenizer.token_text(node.token))
    return token, signed(node.logprob)


def hypothesis_text(beam: BeamResult, node_id: int, tokenizer: Tokenizer) -> str:
    path = beam.path(node_id)
    text = tokenizer.decode(path)
    return text + "<eos>" if path and path[-1] == tokenizer.eos_id else text


def node_tooltip(node: BeamNode, beam: BeamResult, tokenizer: Tokenizer, language: str) -> str:
    if node.parent is None:
        return f"<p>{html.escape(start_token(tokenizer))}</p>"  # the model's own (Marian's: <pad>)
    return (
        f"<p>“{html.escape(hypothesis_text(beam, node.id, tokenizer))}”<br>"
        f"log p = {signed(node.logprob)} (p = {np.exp(node.logprob):.3g})<br>"
        f"{status_name(node.status, language)} · {trf('step {n}', language, n=node.step + 1)}</p>"
    )
