"""The panels the window shows, in order; ``--panel NAME`` selects one by its key."""

from __future__ import annotations

from visualizer.panels.base import ConceptPanel

PANEL_CLASSES: list[type[ConceptPanel]] = []
