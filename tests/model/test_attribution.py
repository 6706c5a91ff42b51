"""Attribution (model.attribution.methods): every method checked against a computation written
out here, independently of the module's own code."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from model.attribution.methods import (
    METHODS,
    Attribution,
    AttributionSettings,
    Cancelled,
    Inputs,
    attribute,
    forward,
)
from model.attribution.ranks import spearman
from model.generation.engine import GenerationEngine
from model.interface import NO_INTERVENTIONS
from model.probes.teacher_forcing import teacher_force, teacher_force_batch
from model.rnn.family import RNNFamily
from tests.factories import small_family, small_rnn

SOURCE = "reverse: abcdef"


def written(model, source: str = SOURCE, steps: int = 8) -> list[int]:
    engine = GenerationEngine(model, source)
    for _ in range(steps):
        engine.step()
    return [step.token_id for step in engine.steps]


@pytest.fixture(scope="module")
def transformer():
    return small_family(seed=1)


@pytest.fixture(scope="module")
def transformer_attribution(transformer) -> Attribution:
    return attribute(transformer, SOURCE, written(transformer))


def rnn(score: str) -> RNNFamily:
    return RNNFamily(*small_rnn(score, seed=3))


def logprob_with(model, inputs: Inputs, source_vectors, target_vectors) -> np.ndarray:
    with torch.no_grad():
        logprob, _, _ = forward(
            model, inputs, NO_INTERVENTIONS, source_vectors=source_vectors, target_vectors=target_vectors
        )
    return logprob.double().numpy()


def test_gradient_times_input_equals_finite_differences(transformer):
    """Σ_e ∂f_t/∂x_ie · x_ie is the derivative of f_t along token i's own vector: scaling
    that vector by 1 ± ε changes f_t by ± ε times the score. In float64."""
    model = small_family(seed=1)
    model.model.double()
    ids = written(transformer)
    result = attribute(
        model, SOURCE, ids, steps=[0, 3, 7], settings=AttributionSettings(methods=("gradient_x_input",))
    )
    tokenizer = model.tokenizer
    inputs = Inputs(
        torch.tensor([tokenizer.encode_source(SOURCE).ids]),
        torch.tensor([[tokenizer.bos_id, *ids[:-1]]]),
        torch.tensor(ids),
    )
    source_module, target_module = model.embedding_modules()
    with torch.no_grad():
        x_source, x_target = source_module(inputs.src), target_module(inputs.tgt_in)
    epsilon = 1e-6
    for part, vectors in ((0, x_source), (1, x_target)):
        for i in range(vectors.shape[1]):
            up, down = vectors.clone(), vectors.clone()
            up[0, i] *= 1 + epsilon
            down[0, i] *= 1 - epsilon
            pair = ((up, x_target), (down, x_target)) if part == 0 else ((x_source, up), (x_source, down))
            slope = (logprob_with(model, inputs, *pair[0]) - logprob_with(model, inputs, *pair[1]))[0] / (
                2 * epsilon
            )
            for t in result.steps:
                column = i if part == 0 else result.n_source + i
                expected = slope[t]
                if part == 1 and i > t:  # a token read after step t: unseen, and its derivative is 0
                    assert abs(expected) < 1e-9 and np.isnan(result.scores["gradient_x_input"][t, column])
                    continue
                assert result.scores["gradient_x_input"][t, column] == pytest.approx(
                    expected, abs=1e-7, rel=1e-5
                )


@pytest.mark.parametrize("which", ["transformer", "rnn-additive", "rnn-none"])
def test_integrated_gradients_are_complete_at_the_default_number_of_steps(which, transformer_attribution):
    if which == "transformer":
        result = transformer_attribution
    else:
        model = rnn(which.removeprefix("rnn-"))
        result = attribute(
            model, SOURCE, written(model), settings=AttributionSettings(methods=("integrated_gradients",))
        )
    assert result.settings.ig_steps == result.ig_steps_used == 32  # no refinement was needed
    for t in result.steps:
        total = np.nansum(result.scores["integrated_gradients"][t])
        difference = result.logprob[t] - result.baseline_logprob[t]
        assert abs(total - difference) <= 0.01 * abs(difference), (t, total, difference)


@pytest.mark.parametrize("baseline", ["pad", "zero"])
def test_integrated_gradients_baseline_is_pad_everywhere_or_zero_vectors(baseline, transformer):
    ids = written(transformer, steps=3)
    settings = AttributionSettings(methods=("integrated_gradients",), baseline=baseline)
    result = attribute(transformer, SOURCE, ids, settings=settings)
    tokenizer = transformer.tokenizer
    inputs = Inputs(
        torch.tensor([tokenizer.encode_source(SOURCE).ids]),
        torch.tensor([[tokenizer.bos_id, *ids[:-1]]]),
        torch.tensor(ids),
    )
    table = transformer.model.src_embed.weight.detach()  # tied: source and target share it
    vector = table[tokenizer.pad_id] if baseline == "pad" else torch.zeros(table.shape[1])
    source = vector.expand(1, inputs.src.shape[1], -1)
    target = vector.expand(1, inputs.tgt_in.shape[1], -1)
    np.testing.assert_allclose(
        result.baseline_logprob, logprob_with(transformer, inputs, source, target)[0], atol=1e-5
    )


def test_occlusion_equals_two_explicit_forward_passes(transformer, transformer_attribution):
    """Replacing character i of the text by one outside the vocabulary reads <unk> there: the
    teacher-forced loss of that source against the same output, minus the real one."""
    ids = list(transformer_attribution.output_ids)
    real = teacher_force_batch(transformer, [SOURCE], [ids[:-1]])[0]
    assert ids[-1] == transformer.tokenizer.eos_id or len(ids) == 8
    texts = [SOURCE[:i] + "\ue000" + SOURCE[i + 1 :] for i in range(len(SOURCE))]
    occluded = teacher_force_batch(transformer, texts, [ids[:-1]] * len(texts))
    for t in transformer_attribution.steps[: len(ids) - 1]:
        for i, item in enumerate(occluded):
            assert item.target_ids[t] == ids[t]
            expected = -real.loss[t] - (-item.loss[t])
            assert transformer_attribution.source_scores("occlusion", t)[i] == pytest.approx(
                expected, abs=1e-5
            )


def test_occlusion_by_removal_drops_each_source_token(transformer):
    ids = written(transformer, steps=4)
    result = attribute(
        transformer, SOURCE, ids, settings=AttributionSettings(methods=("occlusion",), occlusion="remove")
    )
    assert result.occlusion_mode == "remove"
    real = teacher_force_batch(transformer, [SOURCE], [ids])[0]
    shorter = [SOURCE[:i] + SOURCE[i + 1 :] for i in range(len(SOURCE))]
    removed = teacher_force_batch(transformer, shorter, [ids] * len(shorter))
    for t in range(4):
        expected = [real.loss[t] * -1 + item.loss[t] for item in removed]
        np.testing.assert_allclose(result.source_scores("occlusion", t)[: len(SOURCE)], expected, atol=1e-5)


def test_attention_methods_are_the_teacher_forced_rows(transformer, transformer_attribution):
    result = transformer_attribution
    ids = list(result.output_ids)
    record = teacher_force(transformer, SOURCE, transformer.tokenizer.decode(ids, stop_at_eos=False))
    cross = record.attention("cross").weights  # [L, H, T, S]
    dec_self = record.attention("dec_self").weights
    layer = result.layer
    assert layer == transformer.config.n_decoder_layers - 1
    for t in result.steps:
        np.testing.assert_allclose(result.source_scores("attention_head", t), cross[layer, 0, t], atol=1e-6)
        np.testing.assert_allclose(
            result.target_scores("attention_head", t), dec_self[layer, 0, t, : t + 1], atol=1e-6
        )
        np.testing.assert_allclose(
            result.source_scores("attention_layer", t), cross[layer, :, t].mean(0), atol=1e-6
        )
        assert np.isnan(result.scores["attention_head"][t, result.n_source + t + 1 :]).all()


def test_rollout_equals_the_product_of_the_layers_mixing_matrices(transformer, transformer_attribution):
    """Written out as (S + T) × (S + T) matrices, one per sublayer, multiplied in order."""
    result = transformer_attribution
    ids = list(result.output_ids)
    record = teacher_force(transformer, SOURCE, transformer.tokenizer.decode(ids, stop_at_eos=False))
    enc = record.encoder.attention["enc_self"]  # [L, H, S, S]
    cross = record.attention("cross").weights
    dec_self = record.attention("dec_self").weights
    s, t_len = cross.shape[3], cross.shape[2]
    n = s + t_len
    total = np.eye(n)
    for layer in range(enc.shape[0]):
        m = np.eye(n)
        m[:s, :s] = 0.5 * enc[layer].mean(0) + 0.5 * np.eye(s)
        total = m @ total
    for layer in range(cross.shape[0]):
        m = np.eye(n)
        m[s:, s:] = 0.5 * dec_self[layer].mean(0) + 0.5 * np.eye(t_len)
        total = m @ total
        m = np.eye(n)
        m[s:, :s] = 0.5 * cross[layer].mean(0)
        m[s:, s:] = 0.5 * np.eye(t_len)
        total = m @ total
    for t in result.steps:
        np.testing.assert_allclose(
            result.scores["rollout"][t, : s + t + 1], total[s + t, : s + t + 1], atol=1e-6
        )
        assert total[s + t].sum() == pytest.approx(1.0)


def test_agreement_is_the_rank_correlation_of_each_head_with_each_method(transformer_attribution):
    result = transformer_attribution
    t = result.steps[2]
    cross_rows = {}
    for method in ("integrated_gradients", "occlusion", "rollout", "gradient_x_input"):
        values = result.source_scores(method, t)
        values = values if method == "rollout" else np.abs(values)
        for layer in range(result.agreement[method].shape[1]):
            for head in range(result.agreement[method].shape[2]):
                row = result.scores["attention_head"] if (layer, head) == (result.layer, 0) else None
                if row is not None:
                    cross_rows[method] = row[t, : result.n_source]
                    # no ties here: Spearman's textbook formula
                    d = np.argsort(np.argsort(row[t, : result.n_source])) - np.argsort(np.argsort(values))
                    n = len(values)
                    expected = 1 - 6 * (d**2).sum() / (n * (n**2 - 1))
                    assert result.agreement[method][t, layer, head] == pytest.approx(expected)
    assert set(result.agreement) == {"rollout", "gradient_x_input", "integrated_gradients", "occlusion"}
    assert cross_rows


def test_spearman_shares_ranks_between_ties_and_is_nan_for_a_constant():
    assert spearman(np.array([1.0, 2.0, 3.0]), np.array([10.0, 20.0, 30.0])) == pytest.approx(1.0)
    assert spearman(np.array([1.0, 2.0, 3.0]), np.array([3.0, 2.0, 1.0])) == pytest.approx(-1.0)
    # ties: ranks (1.5, 1.5, 3) against (1, 2, 3): Pearson of those ranks
    a, b = np.array([1.5, 1.5, 3.0]), np.array([1.0, 2.0, 3.0])
    expected = np.corrcoef(a, b)[0, 1]
    assert spearman(np.array([5.0, 5.0, 9.0]), np.array([0.1, 0.2, 0.3])) == pytest.approx(expected)
    assert np.isnan(spearman(np.array([1.0, 1.0]), np.array([1.0, 2.0])))


def test_a_model_without_attention_gets_gradients_and_says_why_it_has_no_attention_methods():
    model = rnn("none")
    result = attribute(model, SOURCE, written(model, steps=3))
    assert set(result.unavailable) == {"attention_head", "attention_layer", "rollout"}
    assert "final encoder state" in result.unavailable["rollout"]
    assert result.agreement == {}
    assert np.isfinite(result.source_scores("integrated_gradients", 1)).all()
    assert np.isfinite(result.source_scores("occlusion", 1)).all()


def test_progress_reaches_the_total_and_cancelling_stops_the_work(transformer):
    ids = written(transformer, steps=4)
    seen = []
    attribute(
        transformer, SOURCE, ids, steps=[1, 2], progress=lambda done, total, what: seen.append((done, total))
    )
    assert [done for done, _ in seen] == list(range(1, len(seen) + 1))
    assert seen[-1][0] == seen[-1][1] == 1 + 2 * 2 + 1
    with pytest.raises(Cancelled):
        attribute(transformer, SOURCE, ids, cancelled=lambda: True)


def test_bad_requests_get_a_clear_message(transformer):
    with pytest.raises(ValueError, match="not written a token"):
        attribute(transformer, SOURCE, [])
    with pytest.raises(ValueError, match="steps must lie"):
        attribute(transformer, SOURCE, [5, 6], steps=[2])
    with pytest.raises(ValueError, match="no head"):
        attribute(transformer, SOURCE, [5, 6], settings=AttributionSettings(head=9))
    with pytest.raises(ValueError, match="unknown attribution methods"):
        AttributionSettings(methods=("saliency",))


def test_json_holds_every_method_of_every_step(transformer_attribution):
    data = transformer_attribution.to_json()
    assert len(data["steps"]) == len(transformer_attribution.output_ids)
    step = data["steps"][3]
    assert set(step["source"]) == set(transformer_attribution.scores)
    assert step["source"]["occlusion"] == pytest.approx(
        list(transformer_attribution.source_scores("occlusion", 3))
    )
    assert len(step["target"]["rollout"]) == 4
    assert data["settings"]["ig_steps"] == 32 and data["settings"]["occlusion"] == "unk"


def as_json(values: np.ndarray) -> list:
    """NaN (a score the method does not give) is written as null."""
    return [None if np.isnan(v) else pytest.approx(float(v), abs=1e-6) for v in values]


def test_the_cli_writes_every_methods_scores_for_each_step(tmp_path, capsys):
    import json

    from model.registry import open_model
    from model.transformer.checkpoint import save_checkpoint
    from tests.factories import small_model
    from visualizer.cli.attnviz import main

    # random weights rarely write <eos>: a short model keeps "every step" to at most 15 of them
    tiny_checkpoint_path = tmp_path / "short.safetensors"
    save_checkpoint(tiny_checkpoint_path, *small_model(seed=1, max_len=16))
    out = tmp_path / "attribution.json"
    source = "reverse: abc"
    assert (
        main(["attribute", "--checkpoint", str(tiny_checkpoint_path), "--text", source, "--json", str(out)])
        == 0
    )
    data = json.loads(out.read_text(encoding="utf-8"))
    model = open_model(tiny_checkpoint_path, "cpu")
    engine = GenerationEngine(model, source)
    engine.run_to_end()
    expected = attribute(model, source, engine.output_ids)
    assert data["output_tokens"] == expected.output_tokens and len(data["steps"]) == len(expected.output_ids)
    for t, step in enumerate(data["steps"]):
        for method in METHODS:
            assert step["source"][method] == as_json(expected.source_scores(method, t))
            assert step["target"][method] == as_json(expected.target_scores(method, t))
    assert "step   1" in capsys.readouterr().out
    # one step, another head, occlusion by removal
    assert (
        main(
            ["attribute", "--checkpoint", str(tiny_checkpoint_path), "--text", source, "--step", "2"]
            + ["--head", "2", "--occlusion", "remove", "--json", str(out), "--overwrite"]
        )
        == 0
    )
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [step["step"] for step in data["steps"]] == [1]
    assert data["settings"]["head"] == 1 and data["settings"]["occlusion"] == "remove"
    assert (
        main(["attribute", "--checkpoint", str(tiny_checkpoint_path), "--text", source, "--head", "99"]) == 2
    )
    assert "no head" in capsys.readouterr().err
    step_zero = ["attribute", "--checkpoint", str(tiny_checkpoint_path), "--text", source, "--step", "0"]
    assert main(step_zero) == 2
    assert "--step must lie in 1.." in capsys.readouterr().err


def test_a_model_that_cannot_be_differentiated_is_refused_with_a_reason(transformer, monkeypatch):
    from dataclasses import replace

    info = transformer.info
    monkeypatch.setattr(
        transformer, "info", replace(info, capabilities=replace(info.capabilities, gradients=False))
    )
    with pytest.raises(ValueError, match="cannot be differentiated"):
        attribute(transformer, SOURCE, [5, 6])
