"""How a token is labelled wherever the app names one: the grid, every axis, hover texts,
tooltips, the timeline and the Output line. One function, so that a space reads ␣ everywhere."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
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
