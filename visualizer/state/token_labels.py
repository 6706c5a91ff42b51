"""How a token is labelled wherever the app names one: the grid, every axis, hover texts,
tooltips, the timeline and the Output line. One function, so that a space reads ␣ everywhere."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from model.generation.unknown_copy import CopiedUnknown
    from model.interface import Tokenizer


def display_token(token: str) -> str:
    """A label that shows every token: spaces as ␣, control characters by code."""
    if token == " ":
        return "␣"
    if len(token) == 1 and (ord(token) < 32 or 0x7F <= ord(token) < 0xA0):
        return f"U+{ord(token):04X}"
    return token


def start_token(tokenizer: Tokenizer) -> str:
    """The label of what the model's decoder reads first, its own start token: <bos> for ours,
    </s> for BART and NLLB, <pad> for Marian and T5 (the family's ``bos_id``)."""
    return display_token(tokenizer.token_text(tokenizer.bos_id))


def copy_description(copy: CopiedUnknown, kind_title: str, language: str) -> str:
    """How an output ``<unk>`` filled by attention is explained in tooltips and traces: where
    the character came from, and the head and weights that chose it (layers and heads
    1-based, as the views number them)."""
    from visualizer.i18n import tr, trf
    from visualizer.numbers import number

    return trf(
        "{character} copied by attention from source position {position} (the model wrote <unk>): "
        "{kind}, layer {layer}, head {head} put {weight} there, the layer's mean {mean}",
        language,
        character=display_token(copy.character),
        position=copy.source_position,  # 0-based, as the trace arrays and the unknown list count
        kind=tr(kind_title, language),
        layer=copy.layer + 1,
        head=copy.head + 1,
        weight=number(copy.weight),
        mean=number(copy.mean_weight),
    )
