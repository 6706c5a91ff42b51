"""``attnviz bench`` part ``attribution``: one output step of the shipped model explained.

- ``attribution_step_ms``: attention (the head, the layer mean), rollout, gradient × input and
  occlusion for one step (the middle one) of the shipped model reversing a 24-character source.
- ``attribution_ig_ms``: integrated gradients alone for that step, at the default 32 points
  (and the doublings the completeness check asks for: ``attribution_ig_points``).

Each a median of repeats after a warm-up, on torch's threads as the worker uses them.
"""

from __future__ import annotations

import statistics
import time

SOURCE = "reverse: the quick brown fox jumps"  # 24 characters after the task prefix


def measure_attribution(quick: bool) -> dict[str, float]:
    from model.attribution.methods import AttributionSettings, attribute
    from model.generation.engine import GenerationEngine
    from model.registry import open_model
    from model.shipped import default_checkpoint_path

    model = open_model(default_checkpoint_path(), "cpu")
    engine = GenerationEngine(model, SOURCE, capture=False)
    engine.run_to_end()
    step = len(engine.output_ids) // 2
    fast = AttributionSettings(
        methods=("attention_head", "attention_layer", "rollout", "gradient_x_input", "occlusion")
    )
    slow = AttributionSettings(methods=("integrated_gradients",))
    repeats = 2 if quick else 7
    metrics = {}
    for name, settings in (("attribution_step_ms", fast), ("attribution_ig_ms", slow)):
        attribute(model, SOURCE, engine.output_ids, [step], settings)  # warm-up
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            result = attribute(model, SOURCE, engine.output_ids, [step], settings)
            times.append((time.perf_counter() - started) * 1000)
        metrics[name] = statistics.median(times)
        if name == "attribution_ig_ms":
            metrics["attribution_ig_points"] = float(result.ig_steps_used)
    return metrics
