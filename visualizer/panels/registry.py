"""The panels the window shows, in order; ``--panel NAME`` selects one by its key."""

from __future__ import annotations

from visualizer.panels.base import ConceptPanel
from visualizer.panels.beam import BeamPanel
from visualizer.panels.decoding import DecodingPanel
from visualizer.panels.layernorm import LayerNormPanel
from visualizer.panels.masks import MasksPanel
from visualizer.panels.positions import PositionsPanel
from visualizer.panels.scaling import ScalingPanel

PANEL_CLASSES: list[type[ConceptPanel]] = [
    MasksPanel,
    PositionsPanel,
    ScalingPanel,
    LayerNormPanel,
    DecodingPanel,
    BeamPanel,
]
