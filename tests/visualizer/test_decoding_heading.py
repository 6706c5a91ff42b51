"""The Decoding page's heading gives the p a sampled token was drawn with, beside the model's:
under ``--strategy topp --temperature 3`` "chose 且, p = 0.000" was the model's p alone."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from PySide6.QtGui import QTextDocument

from model.generation.decoding import filtered_distribution
from model.generation.decoding_settings import DecodingSettings


@pytest.fixture(autouse=True)
def collect_earlier_windows():
    """Earlier windows freed here, on the GUI thread (as in test_panel_decoding)."""
    gc.collect()


def heading(harness) -> str:
    harness.window.show_panel("decoding")
    harness.wait_idle()
    panel = next(p for p in harness.window.panels if p.key == "decoding")
    document = QTextDocument()
    document.setHtml(panel.heading.text())
    return document.toPlainText()


def stepped(harness, settings: DecodingSettings, steps: int = 2):
    """The shown step after ``steps`` steps generated with ``settings``."""
    session = harness.session
    session.set_settings(settings)
    harness.wait_idle()
    for _ in range(steps):
        session.step_forward()
        harness.wait_idle()
    assert session.snapshot.settings == settings
    return session.snapshot.steps[session.cursor]


@pytest.mark.parametrize(
    "decoding",
    [
        DecodingSettings(strategy="topp", temperature=3.0, top_p=0.9, seed=1),
        DecodingSettings(strategy="topk", temperature=3.0, top_k=5, seed=1),
        DecodingSettings(strategy="sample", temperature=3.0, seed=1),
    ],
    ids=["topp", "topk", "sample"],
)
def test_a_sampled_token_shows_the_model_p_and_the_p_it_was_drawn_with(harness, decoding):
    step = stepped(harness, decoding)
    drawn_from = filtered_distribution(step.logits, decoding)  # computed here again, from the logits
    weights = np.exp(step.logits.astype(np.float64) - step.logits.max())
    model_p = float(weights[step.token_id] / weights.sum())  # softmax of the logits
    drawn_p = float(drawn_from[step.token_id])
    assert abs(model_p - drawn_p) > 0.0005  # under T = 3 they differ in the shown digits
    text = heading(harness)
    assert f"model p = {model_p:.3f}, drawn with p = {drawn_p:.3f}" in text, text
    harness.session.set_language("zh")
    assert f"模型概率 p = {model_p:.3f}，按设置处理后抽取时 p = {drawn_p:.3f}" in heading(harness)


@pytest.mark.parametrize(
    "decoding",
    [DecodingSettings(strategy="greedy"), DecodingSettings(strategy="beam", beam_width=2)],
    ids=["greedy", "beam"],
)
def test_greedy_and_beam_show_the_models_p(harness, decoding):
    step = stepped(harness, decoding)
    text = heading(harness)
    assert f", p = {float(step.probs[step.token_id]):.3f}" in text
    assert "drawn with" not in text
