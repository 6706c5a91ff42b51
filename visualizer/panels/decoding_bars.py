"""The Decoding page's chart as numbers, apart from the drawing: which candidates get a bar,
their heights on a linear or a logarithmic axis, the axis's ticks, and the entropy the page
reports."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from model.generation.records import StepRecord
from model.interface import Tokenizer
from visualizer.widgets.heatmap import display_token

TOP = 30  # bars for the most likely tokens; the rest of the mass is one more bar
LOWEST_LOG_FLOOR = -40  # the log axis starts a decade below the smallest bar, but not below 10^-40
SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass(frozen=True)
class Bars:
    """What the chart shows for one step, Qt-free: one entry per bar, the rest last."""

    token_ids: list[int | None]  # None for the "rest" bar
    labels: list[str]
    model: np.ndarray  # the model's probability of each bar (the rest: its total mass)
    filtered: np.ndarray  # the same after temperature / top-k / top-p
    chosen: int  # index of the chosen token's bar (one of the top, or its own bar before the rest)
    model_full: np.ndarray  # [V] the model's distribution
    filtered_full: np.ndarray  # [V] after the settings
    data: np.ndarray | None = None  # the data's own probability of each bar, where the task knows it
    data_full: np.ndarray | None = None  # [V]

    @property
    def kept(self) -> np.ndarray:
        return self.filtered > 0


def bar_data(
    step: StepRecord,
    filtered: np.ndarray,
    tokenizer: Tokenizer,
    top: int = TOP,
    data: np.ndarray | None = None,
) -> Bars:
    """The top ``top`` tokens by the model's probability, then the chosen one and the data's
    candidates (``data``: [V] the task's own next-token distribution) where they rank below,
    then the rest. ``filtered``: [V] the step's distribution after the settings."""
    probs = np.asarray(step.probs, dtype=np.float64)
    order = np.argsort(-probs, kind="stable")
    shown = [int(i) for i in order[:top]]
    if step.token_id not in shown:  # a forced or unlikely sampled token: give it its own bar
        shown.append(int(step.token_id))
    if data is not None:  # every answer the data allows gets a bar, however unlikely to the model
        shown += [int(i) for i in np.flatnonzero(data > 0) if int(i) not in shown]
    rest = np.ones(len(probs), dtype=bool)
    rest[shown] = False
    token_ids: list[int | None] = list(shown)
    model = list(probs[shown])
    filtered_bars = list(filtered[shown])
    data_bars = None if data is None else list(data[shown])
    if rest.any():
        token_ids.append(None)
        model.append(probs[rest].sum())
        filtered_bars.append(filtered[rest].sum())
        if data_bars is not None:
            data_bars.append(float(data[rest].sum()))
    labels = [display_token(tokenizer.token_text(i)) if i is not None else "" for i in token_ids]
    return Bars(
        token_ids,
        labels,
        np.array(model),
        np.array(filtered_bars),
        shown.index(int(step.token_id)),
        probs,
        filtered,
        None if data_bars is None else np.array(data_bars),
        data,
    )


def entropy(p: np.ndarray) -> float:
    """Entropy in nats of a probability vector (0 log 0 = 0)."""
    p = p[p > 0]
    nats = float(-(p * np.log(p)).sum())
    return nats if nats > 0 else 0.0  # a certain choice: 0, never "-0.000"


def log_floor(*series: np.ndarray) -> int:
    """The power of ten the log axis starts at: a decade below the smallest positive bar."""
    smallest = min(float(p[p > 0].min()) for p in series if (p > 0).any())
    return int(np.clip(math.floor(math.log10(smallest)) - 1, LOWEST_LOG_FLOOR, -2))


def bar_extent(p: np.ndarray, floor: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(y0, height) of bars for probabilities ``p``: from 0, or on a log axis from 10^floor."""
    if floor is None:
        return np.zeros_like(p), p
    with np.errstate(divide="ignore"):
        top = np.maximum(np.log10(p), floor)  # probability 0: no bar
    return np.full_like(p, floor), top - floor


def probability_ticks(floor: int | None, ceiling: float) -> list | None:
    """Powers of ten on a log axis; on the linear one none above 1 (that is the label's room)."""
    if floor is not None:
        step = max(1, math.ceil(-floor / 10))
        return [[(float(k), f"10{superscript(k)}") for k in range(0, floor - 1, -step)]]
    if ceiling > 1:
        return [[(v / 10, f"{v / 10:.1f}") for v in range(0, 11, 2)], [(v / 10, "") for v in range(11)]]
    return None  # pyqtgraph's own, for a flat distribution


def superscript(k: int) -> str:
    return str(k).translate(SUPERSCRIPTS)
