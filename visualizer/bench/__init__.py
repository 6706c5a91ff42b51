"""``attnviz bench``: the app measured against the tools a user would use instead.

Four parts, each in its own module with what every figure means: ``steps`` (a generation
step, ours and Hugging Face transformers', and the memory a long generation keeps),
``paint`` (the attention grid repainting, and matplotlib redrawing the same grid),
``responsiveness`` (the GUI thread's longest stall while a large model loads and plays) and
``startup`` (a fresh process to a painted window, and to the first step). ``run_bench``
runs them and judges each budget; the machine is noisy, so budgets on speed are ratios
measured in the same run wherever the issue allows.
"""

from __future__ import annotations

import os
import platform
import sys
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

PARTS = ("steps", "paint", "responsiveness", "attribution", "startup", "training")


@dataclass(frozen=True)
class Budget:
    metric: str
    limit: float
    why: str

    def met(self, metrics: dict[str, float]) -> bool | None:
        """Whether the metric is within its limit; None when it was not measured."""
        value = metrics.get(self.metric)
        return None if value is None else value <= self.limit


BUDGETS = (
    Budget("capture_overhead", 1.15, "capturing every head costs at most 15 % of a step"),
    Budget("large_capture_overhead", 1.15, "the same on the larger config"),
    Budget("vs_hf", 0.5, "a captured step in half the peer's time, shipped model"),
    Budget("large_vs_hf", 0.5, "the same on the larger config"),
    Budget("hf_family_vs_library", 1.1, "a Marian-base step through the app within 1.1× the library's own"),
    Budget("hf_512_step_to_paint_ms", 50.0, "the same for a Marian-base-sized model reading 512 tokens"),
    Budget("step_to_paint_ms", 16.0, "a key press to the repainted window within one 60 Hz frame"),
    Budget("loop_gap_ms", 100.0, "the GUI thread never stalls longer while a large model loads and plays"),
    Budget("paint_128_ms", 12.0, "48 heads of 128 × 128 repainted"),
    Budget("vs_mpl", 0.25, "at least 4× faster than matplotlib redrawing the same grid"),
    Budget("trace_mb", 200.0, "1,000 steps of a 128-token source on the larger config"),
    Budget("attribution_step_ms", 200.0, "attention, rollout, gradient × input and occlusion for one step"),
    Budget(
        "attribution_ig_ms", 1000.0, "integrated gradients (32 points, doubled until complete) for one step"
    ),
    Budget("anti_diagonal_s", 60.0, "the Train page's tiny run shows reverse:'s anti-diagonal this soon"),
    Budget("held_out_95_s", 120.0, "the tiny run reaches 95 % held-out exact match this soon"),
    Budget("training_loop_gap_ms", 100.0, "the GUI thread never stalls longer while training on every core"),
    Budget("startup_s", 1.5, "a fresh start to the painted window"),
    Budget("ready_s", 3.0, "a fresh start to the first step possible"),
)

UNITS = {"_per_s": "/s", "_ms": "ms", "_s": "s", "_mb": "MB", "bytes_per_step": "B"}


def unit_of(metric: str) -> str:
    for suffix, unit in UNITS.items():
        if metric.endswith(suffix):
            return unit
    return "×" if metric.startswith(("vs_", "large_vs_")) or metric.endswith("overhead") else ""


def machine() -> dict[str, object]:
    import torch

    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "qt_platform": os.environ.get("QT_QPA_PLATFORM", ""),
    }


def load_average() -> list[float] | None:
    """The 1-, 5- and 15-minute load averages (runnable processes), where the system says."""
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def run_bench(
    quick: bool, parts: tuple[str, ...] = PARTS, progress: Callable[[str], None] = lambda _: None
) -> dict:
    """Every metric of the chosen parts, the budgets judged, and what could not be measured."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # the paint figures are offscreen ones
    started = time.perf_counter()
    load_at_start = load_average()
    metrics: dict[str, float] = {}
    unavailable: dict[str, str] = {}
    for part in parts:
        try:
            metrics |= MEASURES[part](quick, progress, unavailable)
        except Exception as error:  # one part failing keeps what the others measured
            lines = str(error).strip().splitlines()
            unavailable[part] = f"failed: {type(error).__name__}: {lines[0] if lines else ''}"
    if "paint_128_ms" in metrics and "mpl_paint_ms" in metrics:
        metrics["vs_mpl"] = metrics["paint_128_ms"] / metrics["mpl_paint_ms"]
    budgets = {}
    for budget in BUDGETS:
        met = budget.met(metrics)
        if budget.metric == "trace_mb" and quick:
            met = None  # --quick keeps 100 steps, not the 1,000 the budget is about
        budgets[budget.metric] = {"limit": budget.limit, "met": met, "why": budget.why}
    # every metric also at the top level, so that a script can read report["step_ms"]
    return {
        **metrics,
        "quick": quick,
        "parts": list(parts),
        "seconds": time.perf_counter() - started,
        # how busy the machine was, which the figures depend on (a shared machine is noisy)
        "machine": machine() | {"load_at_start": load_at_start, "load_at_end": load_average()},
        "metrics": metrics,
        "budgets": budgets,
        "unavailable": unavailable,
    }


@contextmanager
def quiet_offscreen_notices():
    """Drop the offscreen plugin's notices about window hints (one per window shown) while
    inside; every other Qt message goes to the handler that was installed before."""
    from PySide6.QtCore import qInstallMessageHandler

    previous = None

    def handler(kind, context, message: str) -> None:
        if "This plugin does not support" in message:
            return
        if previous is not None:
            previous(kind, context, message)
        else:
            print(message, file=sys.stderr)

    previous = qInstallMessageHandler(handler)
    try:
        yield
    finally:
        qInstallMessageHandler(previous)


def measure_steps(quick: bool, progress, unavailable: dict[str, str]) -> dict[str, float]:
    from visualizer.bench import steps

    if reason := steps.hf_available():
        for name in ("hf_step_ms", "vs_hf", "large_hf_step_ms", "large_vs_hf"):
            unavailable[name] = reason
    metrics = steps.measure_steps(quick, progress)
    if reason := steps.hf_available():
        unavailable["hf_family_vs_library"] = unavailable["hf_512_step_to_paint_ms"] = reason
    elif quick:
        for name in ("hf_family_vs_library", "hf_512_step_to_paint_ms"):
            unavailable[name] = "not measured with --quick (a Marian-base-sized model)"
    else:
        from visualizer.bench.hf_steps import measure_hf_steps, measure_hf_window

        progress("steps: a Marian-base-sized Hugging Face model, the app against the library")
        metrics |= measure_hf_steps(quick)
        progress("steps: that model in the window, a 512-token source, → to the repainted window")
        with quiet_offscreen_notices():
            metrics |= measure_hf_window()
    return metrics


def measure_paint(quick: bool, progress, unavailable: dict[str, str]) -> dict[str, float]:
    from visualizer.bench import paint

    progress("paint: the attention grid, matplotlib, a key press to the window")
    with quiet_offscreen_notices():
        metrics = paint.measure_paint(quick)
    if "mpl_paint_ms" not in metrics:
        for name in ("mpl_paint_ms", "mpl_paint_512_ms", "vs_mpl"):
            unavailable[name] = "matplotlib is not installed (pip install -e '.[bench]')"
    return metrics


def measure_responsiveness(quick: bool, progress, unavailable: dict[str, str]) -> dict[str, float]:
    from visualizer.bench.responsiveness import measure_responsiveness

    progress("responsiveness: the GUI thread while a 20 MB model loads, runs and plays")
    with quiet_offscreen_notices():
        return measure_responsiveness(quick)


def measure_attribution(quick: bool, progress, unavailable: dict[str, str]) -> dict[str, float]:
    from visualizer.bench.attribution import measure_attribution

    progress("attribution: one step of the shipped model explained by every method")
    return measure_attribution(quick)


def measure_startup(quick: bool, progress, unavailable: dict[str, str]) -> dict[str, float]:
    from visualizer.bench.startup import measure_startup

    progress("startup: fresh processes to a painted window and to the first step")
    return measure_startup(quick)


def measure_training(quick: bool, progress, unavailable: dict[str, str]) -> dict[str, float]:
    from visualizer.bench.training import measure_training

    progress("training: the Train page's tiny run on reverse:, in the window, on every core")
    with quiet_offscreen_notices():
        return measure_training(quick, unavailable)


MEASURES = {
    "steps": measure_steps,
    "paint": measure_paint,
    "responsiveness": measure_responsiveness,
    "attribution": measure_attribution,
    "startup": measure_startup,
    "training": measure_training,
}


def table(report: dict) -> str:
    """The report as an aligned text table: metric, value, budget, verdict."""
    rows = [("metric", "value", "budget", "")]
    budgets = report["budgets"]
    for metric, value in report["metrics"].items():
        unit = unit_of(metric)
        shown = f"{value:,.0f}" if value >= 1000 else f"{value:.3g}"
        budget = budgets.get(metric)
        limit = verdict = ""
        if budget is not None:
            limit = f"≤ {budget['limit']:g}{' ' + unit if unit not in ('', '×') else unit}"
            verdict = {True: "met", False: "MISSED", None: "not judged"}[budget["met"]]
        rows.append((metric, f"{shown} {unit}".strip(), limit, verdict))
    for metric, reason in report["unavailable"].items():
        rows.append((metric, "—", "", reason))
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    lines = [
        f"{name:<{widths[0]}}  {value:>{widths[1]}}  {limit:<{widths[2]}}  {verdict}".rstrip()
        for name, value, limit, verdict in rows
    ]
    lines.insert(1, "-" * len(lines[0]))
    quick = " (--quick: few repeats, 100 trace steps)" if report["quick"] else ""
    machine = report["machine"]
    load = ""
    if machine.get("load_at_start") and machine.get("load_at_end"):
        load = f", load {machine['load_at_start'][0]:g} → {machine['load_at_end'][0]:g} (1-minute average)"
    lines.append(
        f"\n{report['seconds']:.0f} s on {machine['processor']}, "
        f"{machine['cpus']} CPUs{load}, torch {machine['torch']}{quick}"
    )
    return "\n".join(lines)


def progress_to_stderr(text: str) -> None:
    print(f"  {text} …", file=sys.stderr, flush=True)
