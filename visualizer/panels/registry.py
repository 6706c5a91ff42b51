"""The panels the window shows, in order; ``--panel NAME`` selects one by its key.

Keys and tab titles are known without importing the panels (which build pyqtgraph plots), so
the window can show its tabs at once; ``page.panel_class()`` imports one.

Each panel declares here, in one visible place, the capabilities it needs of the loaded
model (``needs``: a check of its ``FamilyInfo`` that returns why it cannot be shown, or
None). A panel the model cannot support is disabled with that line; it is never hidden,
and never drawn from made-up data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from visualizer.i18n import tr

if TYPE_CHECKING:
    from model.interface import FamilyInfo

Requirement = Callable[["FamilyInfo"], "str | None"]  # None: supported; else why not, in one line


def needs_nothing(_info: FamilyInfo) -> str | None:
    return None


def needs_scores(info: FamilyInfo) -> str | None:
    capabilities = info.capabilities
    if not info.has_attention:
        return info.without_attention
    if not capabilities.scores:
        return "this model does not expose its raw attention scores, so there is no mask to show on them"
    if not capabilities.teacher_forcing:
        return "this model cannot be run teacher-forced"
    return None


def needs_position_table(info: FamilyInfo) -> str | None:
    scheme = info.capabilities.positional
    if scheme == "none":
        return "this model has no positional encoding"
    if scheme not in ("sinusoidal", "learned"):
        return "this model's positions are a bias on the scores, not a table added to the tokens"
    return None


def needs_relative_bias(info: FamilyInfo) -> str | None:
    scheme = info.capabilities.positional
    if scheme == "relative_bias":
        return None
    if scheme == "none":
        return "this model has no positional encoding"
    return "this model adds its positions as a table to the tokens, not as a bias on the scores"


def needs_scaling(info: FamilyInfo) -> str | None:
    capabilities = info.capabilities
    if not capabilities.scaling:
        return "this model does not divide its attention scores by √d_k"
    if not capabilities.supports("no_scaling") or not capabilities.scores:
        return "this model cannot run without its ÷√d_k for the comparison"
    return None


def needs_layer_norm(info: FamilyInfo) -> str | None:
    capabilities = info.capabilities
    if capabilities.norm == "none":
        return "this model has no normalisation layers"
    if capabilities.norm not in ("layernorm", "rmsnorm"):
        return "this model normalises with neither LayerNorm nor RMSNorm"
    if not capabilities.norm_stats or "norms" not in info.extras:
        return "this model does not record statistics around its norms"
    if info.resolve_kind("encoder") is None or info.resolve_kind("decoder") is None:
        return "this model has no encoder and decoder stacks of norms to show"
    return None


def needs_gradients(info: FamilyInfo) -> str | None:
    if not info.capabilities.gradients:
        return "this model cannot be differentiated, so there are no gradients to attribute with"
    return None


def needs_zeroed_heads(info: FamilyInfo) -> str | None:
    if not info.has_attention:
        return info.without_attention
    if not info.capabilities.supports("zeroed_heads"):
        return "this model cannot run with a head zeroed"
    if not info.capabilities.teacher_forcing or not info.capabilities.padded_batch:
        return "this model cannot score references teacher-forced in a batch"
    return None


def needs_logit_lens(info: FamilyInfo) -> str | None:
    if not info.capabilities.logit_lens:
        return "this model's decoder layers cannot be read through its output layer"
    return None


@dataclass(frozen=True)
class PanelEntry:
    key: str
    tab: str  # the tab's title, in English (``title`` translates it)
    where: str  # "module:Class" within visualizer.panels
    needs: Requirement = needs_nothing  # what the panel needs of the model

    def unsupported(self, info: FamilyInfo | None) -> str | None:
        """Why the panel cannot show ``info``'s model, in one line; None when it can (or no
        model is loaded yet)."""
        return None if info is None else self.needs(info)

    def title(self, language: str) -> str:
        return tr(self.tab, language)


PANELS: tuple[PanelEntry, ...] = (
    PanelEntry("masks", "Masks", "masks:MasksPanel", needs_scores),
    PanelEntry("positions", "Positional encoding", "positions:PositionsPanel", needs_position_table),
    PanelEntry("relative_bias", "Relative bias", "relative_bias:RelativeBiasPanel", needs_relative_bias),
    PanelEntry("scaling", "Why ÷√dₖ", "scaling:ScalingPanel", needs_scaling),
    PanelEntry("layernorm", "LayerNorm", "layernorm:LayerNormPanel", needs_layer_norm),
    PanelEntry("decoding", "Decoding", "decoding:DecodingPanel"),
    PanelEntry("beam", "Beam search", "beam:BeamPanel"),
    PanelEntry("why_attention", "Why attention", "why_attention:WhyAttentionPanel"),
    PanelEntry("attribution", "Attribution", "attribution:AttributionPanel", needs_gradients),
    PanelEntry("heads", "Head importance", "heads:HeadsPanel", needs_zeroed_heads),
    PanelEntry("logit_lens", "Logit lens", "logit_lens:LogitLensPanel", needs_logit_lens),
    PanelEntry("train", "Train", "train:TrainPanel"),
)
PANEL_KEYS = tuple(entry.key for entry in PANELS)
ENTRIES = {entry.key: entry for entry in PANELS}
