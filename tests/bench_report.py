"""What a report of ``attnviz bench --quick`` must say: every metric a positive number (or said
unavailable, with why), ratios that are the ratios of the reported times, every budget judged
against its metric. No timing thresholds: budgets are the benchmark's job. The packaging test
runs the bench once, from the installed wheel, and checks its report with these.
"""

from __future__ import annotations

import math

import pytest

from visualizer.bench import BUDGETS, table
from visualizer.bench.steps import hf_available


def check_quick_report(report: dict) -> None:
    every_metric_is_a_positive_number(report)
    ratios_are_the_ratios_of_the_reported_times(report)
    every_budget_is_judged_against_its_metric(report)


STEP_METRICS = {
    "step_ms",
    "step_nocapture_ms",
    "capture_overhead",
    "large_step_ms",
    "large_step_nocapture_ms",
    "large_capture_overhead",
    "large_matvec_floor_ms",
    "step_threads",
    "large_step_threads",
    "trace_steps",
    "trace_bytes_per_step",
    "trace_mb",
}
PEER_METRICS = {"hf_step_ms", "vs_hf", "large_hf_step_ms", "large_vs_hf"}
PAINT_METRICS = {"paint_ms", "paint_128_ms", "paint_512_ms", "step_to_paint_ms"}
MPL_METRICS = {"mpl_paint_ms", "mpl_paint_512_ms", "vs_mpl"}
RESPONSIVENESS_METRICS = {"loop_gap_ms"}
ATTRIBUTION_METRICS = {"attribution_step_ms", "attribution_ig_ms", "attribution_ig_points"}
STARTUP_METRICS = {"startup_s", "ready_s"}
TRAINING_METRICS = {"training_loop_gap_ms", "training_steps_per_s"}
TRAINING_REACHED = {"anti_diagonal_s", "held_out_95_s"}  # in the quick run's steps, or said unavailable


def matplotlib_missing() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return True
    return False


def every_metric_is_a_positive_number(report: dict) -> None:
    expected = STEP_METRICS | PAINT_METRICS | RESPONSIVENESS_METRICS | ATTRIBUTION_METRICS | STARTUP_METRICS
    expected |= TRAINING_METRICS
    for name in TRAINING_REACHED:
        if name in report["metrics"]:
            expected.add(name)
        else:
            assert name in report["unavailable"]
    assert "held_out_95_s" in report["unavailable"]  # --quick does not train long enough
    optional = {name: hf_available() is not None for name in PEER_METRICS}
    optional |= {name: matplotlib_missing() for name in MPL_METRICS}
    for name, missing in optional.items():
        if missing:
            assert name in report["unavailable"]
        else:
            expected.add(name)
    assert set(report["metrics"]) == expected
    for name, value in report["metrics"].items():
        assert isinstance(value, float) and math.isfinite(value) and value > 0, (name, value)
    assert report["metrics"]["trace_steps"] == 100
    for name, value in report["metrics"].items():  # also at the top level, for scripts
        assert report[name] == value


def ratios_are_the_ratios_of_the_reported_times(report: dict) -> None:
    metrics = report["metrics"]
    assert metrics["capture_overhead"] == pytest.approx(metrics["step_ms"] / metrics["step_nocapture_ms"])
    if "vs_hf" in metrics:
        assert metrics["vs_hf"] == pytest.approx(metrics["step_ms"] / metrics["hf_step_ms"])
    if "vs_mpl" in metrics:
        assert metrics["vs_mpl"] == pytest.approx(metrics["paint_128_ms"] / metrics["mpl_paint_ms"])
    trace_bytes = metrics["trace_bytes_per_step"] * metrics["trace_steps"]
    assert metrics["trace_mb"] == pytest.approx(trace_bytes / 1e6)


def every_budget_is_judged_against_its_metric(report: dict) -> None:
    assert set(report["budgets"]) == {budget.metric for budget in BUDGETS}
    for budget in BUDGETS:
        judged = report["budgets"][budget.metric]
        value = report["metrics"].get(budget.metric)
        if value is None or (budget.metric == "trace_mb" and report["quick"]):
            assert judged["met"] is None
        else:
            assert judged["met"] == (value <= budget.limit)
    assert report["machine"]["cpus"] >= 1
    text = table(report)
    for name in report["metrics"]:
        assert name in text
