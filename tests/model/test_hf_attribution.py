"""Attribution and the logit lens on the Hugging Face models: gradients through the library's
own forward pass, and each decoder layer read through the model's output layer."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from model.generation.engine import GenerationEngine
from model.interface import Interventions
from model.probes.teacher_forcing import teacher_force_batch
from tests.hf_factories import KINDS  # skips without the [hf] extra
from tests.model.hf_library import SOURCES


@pytest.mark.parametrize("kind", KINDS)
def test_attribution_differentiates_the_librarys_pass_and_is_complete(kind, hf_families):
    """The families run under no_grad everywhere but attribution; there the gradients reach the
    library's embedding tables, and integrated gradients sum to f(x) − f(baseline)."""
    from model.attribution.methods import AttributionSettings, attribute

    family = hf_families[kind]
    engine = GenerationEngine(family, SOURCES[0])
    for _ in range(4):
        engine.step()
    settings = AttributionSettings(
        methods=("gradient_x_input", "integrated_gradients", "occlusion", "rollout")
    )
    result = attribute(family, SOURCES[0], engine.output_ids, settings=settings)
    for t in result.steps:
        assert np.isfinite(result.source_scores("gradient_x_input", t)).all()
        assert np.abs(result.source_scores("gradient_x_input", t)).sum() > 0
        total = np.nansum(result.scores["integrated_gradients"][t])
        difference = result.logprob[t] - result.baseline_logprob[t]
        # T5's ReLU feed-forward has kinks along the path: its nodes are doubled until within 1 %
        assert abs(total - difference) <= 0.01 * abs(difference) + 1e-6, (kind, t, result.ig_steps_used)
        assert result.completeness_gap[t] == pytest.approx(abs(total - difference) / abs(difference))
        assert np.nansum(result.scores["rollout"][t]) == pytest.approx(1.0)
    # what it wrote, as teacher forcing scores it (before the generation settings)
    [item] = teacher_force_batch(family, [SOURCES[0]], [engine.output_ids])
    assert torch.is_grad_enabled()  # attribution left the grad mode as it found it
    np.testing.assert_allclose(result.logprob, -item.loss[: len(engine.output_ids)], atol=1e-5)


@pytest.mark.parametrize("kind", KINDS)
def test_the_logit_lens_last_layer_is_the_models_own_logits(kind, hf_families):
    family = hf_families[kind]
    tokenizer = family.tokenizer
    src = torch.tensor([tokenizer.encode_source(SOURCES[0]).ids])
    tgt_in = torch.tensor([[tokenizer.bos_id, 5, 9, 7]])
    pad = torch.zeros_like(src, dtype=torch.bool)
    with torch.no_grad():
        encoded = family.encode(src, pad, Interventions(), capture=False)
        lens = family.logit_lens(encoded, tgt_in)  # (1, L, T, V)
        forced = family.teacher_force(
            encoded, tgt_in, torch.zeros_like(tgt_in, dtype=torch.bool), Interventions()
        )
    assert lens.shape[:3] == (1, family.info.kind("cross").layers, 4)
    torch.testing.assert_close(lens[0, -1], forced.logits[0].float(), atol=1e-5, rtol=1e-5)
    assert not torch.allclose(lens[0, 0], lens[0, -1])


@pytest.mark.parametrize("kind", KINDS)
def test_the_logit_lens_of_every_step_at_once_is_the_lens_of_each_step(kind, hf_families):
    from tests.model.test_logit_lens import lens_of_each_step_is_the_grids

    family = hf_families[kind]
    engine = GenerationEngine(family, SOURCES[0])
    for _ in range(4):
        engine.step()
    lens_of_each_step_is_the_grids(family, SOURCES[0], engine.output_ids, k=5)
