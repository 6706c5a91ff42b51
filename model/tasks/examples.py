"""The Examples menu's inputs: per task, fresh random ones and a few chosen to show something.

Plain data (no Qt, no torch), so that the window builds its menu before torch loads.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from model.tasks.synthetic import DATE_FORMS, PICK_NAMES, TEXT_STYLES, make_example


@dataclass(frozen=True)
class ChosenExample:
    source: str
    note: str  # English; the menu translates it
    unknown: str = ""  # the characters outside the vocabulary it holds on purpose


CHOSEN: dict[str, tuple[ChosenExample, ...]] = {
    "reverse": (
        ChosenExample("reverse: Hello, World!", "spaces, capitals and punctuation"),
        ChosenExample("reverse: Attention Is All You Need", "a sentence"),
        ChosenExample("reverse: 注意力机制", "Chinese"),
        ChosenExample("reverse: 你好, world 2026", "mixed scripts"),
        ChosenExample("reverse: 我爱你, déjà vu", "unknown characters, copied by attention", unknown="爱éà"),
    ),
    "sort": (
        ChosenExample("sort: Hello World", "by code point: space, capitals, then lowercase"),
        ChosenExample("sort: 31415926535", "digits"),
        ChosenExample("sort: 机器学习模型", "Chinese, by code point"),
    ),
    "date": (
        ChosenExample("date: 03/04/2026", "ambiguous: 3 April or 4 March (try beam search, sampling)"),
        ChosenExample("date: 11/29/2026", "only the US reading is a date"),
        ChosenExample("date: 29/11/2026", "only the day-first reading is a date"),
        ChosenExample("date: 2026-11-29", "ISO in, ISO out"),
        ChosenExample("date: 二〇二六年十一月二十九日", "Chinese numerals"),
    ),
    "pick": tuple(
        ChosenExample(f"pick: {category}", "answers drawn with known frequencies") for category in PICK_NAMES
    ),
}


def fresh_example(task: str, rng: random.Random, form: str | None = None) -> str:
    """A new random source of ``task`` (``form``: a date form or text style, as make_example)."""
    return make_example(task, rng, form=form).source


def fresh_forms(task: str) -> tuple[str, ...]:
    """The forms the menu offers fresh inputs of: every date form, every text style."""
    if task == "date":
        return DATE_FORMS
    if task == "pick":
        return ()
    return tuple(TEXT_STYLES)
