"""What the attribution page, ``attnviz attribute`` and ``attnviz heads`` say in words: numbers
without a signed zero, the printed table's top tokens with their positions, and why integrated
gradients used more points than it was asked for."""

from __future__ import annotations

import numpy as np
import pytest

from model.attribution.results import COMPLETENESS, METHODS, Attribution, AttributionSettings
from visualizer.cli.attribute import attribution_table
from visualizer.numbers import number, percent, score
from visualizer.panels.attribution import integrated_gradients_summary


@pytest.mark.parametrize(
    ("value", "kwargs", "text"),
    [
        (-0.0, {}, "0.000"),
        (-0.00004, {}, "0.000"),
        (0.0, {"signed": True}, "0.000"),
        (-0.00004, {"signed": True, "digits": 4}, "0.0000"),
        (-0.0004, {"signed": True, "digits": 4}, "-0.0004"),
        (0.25, {"signed": True, "digits": 2}, "+0.25"),
        (-1.5, {}, "-1.500"),
        (float("nan"), {}, "—"),
        (float("-inf"), {}, "−∞"),
    ],
)
def test_a_number_that_rounds_to_zero_has_no_sign(value, kwargs, text):
    assert number(value, **kwargs) == text


def test_percentages_and_scores_keep_the_rule():
    assert percent(-1e-6) == "0.0%" and percent(0.0123, 2) == "1.23%" and percent(0.5) == f"{0.5:.1%}"
    assert score(-0.0) == "0.000" and score(3.2e-7, signed=True) == "+3.2e-07"
    assert score(-0.25, signed=True) == "-0.250"


def result(scores: dict[str, list[float]], **fields) -> Attribution:
    """One step over the source "seee" (four tokens, three of them e's)."""
    source = ["s", "e", "e", "e"]
    rows = {method: np.array([[*values, np.nan]]) for method, values in scores.items()}
    values = {
        "source_tokens": source,
        "read_tokens": ["<bos>"],
        "output_tokens": ["e"],
        "output_ids": np.array([7]),
        "steps": (0,),
        "logprob": np.array([-4e-5]),
        "baseline_logprob": np.array([-9.0]),
        "scores": rows,
        "agreement": {},
        "settings": AttributionSettings(),
        "layer": 0,
    }
    return Attribution(**(values | fields))


def test_the_printed_table_names_each_methods_top_three_source_tokens_by_position():
    table = attribution_table(
        result(
            {
                "rollout": [0.1, 0.2, 0.6, 0.1],
                "gradient_x_input": [-0.00001, 0.5, -0.7, 0.0],
                "occlusion": [np.nan] * 4,
            }
        )
    )
    lines = table.splitlines()
    step = next(line for line in lines if line.startswith("step"))
    assert step.split() == ["step", "1", "'e'", "log", "p", "0.000"]  # f = -4e-5: no "-0.000"
    rollout = next(line for line in lines if line.strip().startswith("rollout")).split()
    # which e: positions from 1; a tie keeps the source order
    assert rollout[1:] == ["3", "'e'", "0.600", "2", "'e'", "0.200", "1", "'s'", "0.100"]
    gradient = next(line for line in lines if line.strip().startswith("gradient_x_input")).split()
    # signed scores rank by their size and keep their sign; a tiny one still shows its digits
    assert gradient[1:] == ["3", "'e'", "-0.700", "2", "'e'", "+0.500", "1", "'s'", "-1.0e-05"]
    occlusion = next(line for line in lines if line.strip().startswith("occlusion")).split()
    assert occlusion[1:] == ["—"]  # a method that gives no source score says so
    assert "-0.0" not in table and "+0.000" not in table


def gap_result(asked: int, used: int, gap: float) -> Attribution:
    scores = {method: [0.1, 0.2, 0.3, 0.4] for method in METHODS}
    return result(
        scores,
        settings=AttributionSettings(ig_steps=asked),
        ig_steps_used=used,
        completeness_gap=np.array([gap]),
        logprob=np.array([-0.5]),
    )


def test_the_status_says_why_integrated_gradients_used_more_points_than_asked():
    tolerance = f"{COMPLETENESS:.0%}"
    enough = integrated_gradients_summary(gap_result(32, 32, 0.004), 0, "en")
    assert "32 points" in enough and "0.40%" in enough and tolerance in enough and "8.500" in enough
    assert "asked" not in enough
    doubled = integrated_gradients_summary(gap_result(32, 128, 0.004), 0, "en")
    assert "128 points, not the 32 asked for" in doubled and "doubled" in doubled
    assert f"within {tolerance}" in doubled and "off by 0.40%" in doubled
    short = integrated_gradients_summary(gap_result(32, 256, 0.022), 0, "en")
    assert "256 points, not the 32 asked for" in short and "at most 3 times" in short
    assert "still off by 2.20%" in short and f"within {tolerance}" in short
    assert integrated_gradients_summary(gap_result(32, 256, 0.022), 0, "zh") != short


def test_the_head_importance_table_has_no_signed_zero_either():
    from model.attribution.results import HeadImportance, Sample
    from visualizer.cli.heads import importance_table

    sample = Sample(["reverse: ab"], ["ba"], "task", ((6, 5, 2),))
    importance = HeadImportance(
        kinds=("cross",),
        titles={"cross": "cross-attention"},
        ll_drop={"cross": np.array([[-0.001, 0.5]])},  # zeroing the first head helps a hair
        exact_match={"cross": np.array([[1.0, 0.0]])},
        base_ll=-2e-5,  # a model sure of every token
        base_exact_match=1.0,
        sample=sample,
        prune_order=(("cross", 0, 0), ("cross", 0, 1)),
        prune_exact_match=np.array([1.0, 1.0, 0.0]),
        prune_ll=np.array([-2e-5, -1e-3, -3.0]),
    )
    table = importance_table(importance)
    assert "log-likelihood 0.000 nats" in table
    assert table.splitlines()[-3].split()[1:3] == ["0.00", "(100.0%)"]
    assert "cross L1 H1 (0.00)" in table and "-0.0" not in table
