"""The panels the window shows, in order; ``--panel NAME`` selects one by its key.

Keys and tab titles are known without importing the panels (which import torch), so the
window can show its tabs before torch is loaded; ``panel_class()`` imports one.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from visualizer.panels.base import ConceptPanel


@dataclass(frozen=True)
class PanelEntry:
    key: str
    titles: dict[str, str]  # tab title per language
    where: str  # "module:Class" within visualizer.panels

    def title(self, language: str) -> str:
        return self.titles.get(language, self.titles["en"])


PANELS: tuple[PanelEntry, ...] = (
    PanelEntry("masks", {"en": "Masks", "zh": "掩码"}, "masks:MasksPanel"),
    PanelEntry("positions", {"en": "Positional encoding", "zh": "位置编码"}, "positions:PositionsPanel"),
    PanelEntry("scaling", {"en": "Why ÷√dₖ", "zh": "为何除以 √dₖ"}, "scaling:ScalingPanel"),
    PanelEntry("layernorm", {"en": "LayerNorm", "zh": "层归一化"}, "layernorm:LayerNormPanel"),
    PanelEntry("decoding", {"en": "Decoding", "zh": "解码"}, "decoding:DecodingPanel"),
    PanelEntry("beam", {"en": "Beam search", "zh": "束搜索"}, "beam:BeamPanel"),
)
PANEL_KEYS = tuple(entry.key for entry in PANELS)
TITLES = {entry.key: entry.titles for entry in PANELS}


def panel_class(entry: PanelEntry) -> type[ConceptPanel]:
    """The class of one panel (imports its module, and so torch)."""
    module, name = entry.where.split(":")
    return getattr(import_module(f"visualizer.panels.{module}"), name)
