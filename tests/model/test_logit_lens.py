"""The decoder's logit lens (model.attribution.logit_lens) against the engine's own step and a
pass written out here layer by layer."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from model.attribution.logit_lens import logit_lens, logit_lens_grid, top_k_stable
from model.generation.engine import GenerationEngine
from model.rnn.family import RNNFamily
from tests.factories import small_family, small_rnn

SOURCE = "reverse: abcd"


@pytest.fixture(scope="module", params=["post", "pre"])
def model(request):
    return small_family(seed=4, norm_placement=request.param)


def test_the_last_layer_is_the_models_own_distribution(model):
    engine = GenerationEngine(model, SOURCE)
    for _ in range(5):
        engine.step()
    for step in (0, 2, 4):
        lens = logit_lens(model, SOURCE, engine.output_ids, step, k=6)
        probs = engine.steps[step].probs
        assert lens.layers == 2
        np.testing.assert_array_equal(lens.top_ids[-1], np.argsort(-probs, kind="stable")[:6])
        np.testing.assert_allclose(lens.top_probs[-1], probs[lens.top_ids[-1]], atol=1e-5)
        assert lens.written_id == engine.steps[step].token_id
        assert lens.written_ranks[-1] == 1  # greedy wrote the most likely token
        assert lens.read_tokens[0] == "<bos>" and len(lens.read_tokens) == step + 1


def test_each_layer_is_its_output_through_the_final_norm_and_output_layer(model):
    engine = GenerationEngine(model, SOURCE)
    for _ in range(4):
        engine.step()
    lens = logit_lens(model, SOURCE, engine.output_ids, 3, k=4)
    transformer, tokenizer = model.model, model.tokenizer
    outputs = []
    hooks = [
        layer.register_forward_hook(lambda _m, _a, out: outputs.append(out[0]))
        for layer in transformer.decoder_layers
    ]
    src = torch.tensor([tokenizer.encode_source(SOURCE).ids])
    tgt = torch.tensor([[tokenizer.bos_id, *engine.output_ids[:3]]])
    with torch.no_grad():
        transformer(src, tgt, src == tokenizer.pad_id, tgt == -1)
        for hook in hooks:
            hook.remove()
        for layer, hidden in enumerate(outputs):
            if transformer.config.norm_placement == "pre":
                hidden = transformer.decoder_norm(hidden)
            probs = torch.softmax(transformer.generator(hidden)[0, 3], -1).double().numpy()
            np.testing.assert_allclose(lens.top_probs[layer], np.sort(probs)[::-1][:4], atol=1e-5)
            written = probs[lens.written_id]
            assert lens.written_probs[layer] == pytest.approx(written, abs=1e-6)
            assert lens.written_ranks[layer] == 1 + int((probs > written).sum())


def lens_of_each_step_is_the_grids(model, source: str, output_ids: list[int], k: int) -> None:
    """``logit_lens_grid`` (one teacher-forced pass) against ``logit_lens`` at each step (the
    decoder fed what it had read by then: what the page computed a step at a time)."""
    grid = logit_lens_grid(model, source, output_ids, k=k)
    assert grid.steps == len(output_ids)
    for step in range(len(output_ids)):
        lens, cell = logit_lens(model, source, output_ids, step, k=k), grid.at(step)
        np.testing.assert_array_equal(cell.top_ids, lens.top_ids)
        np.testing.assert_allclose(cell.top_probs, lens.top_probs, atol=1e-6)
        np.testing.assert_allclose(cell.written_probs, lens.written_probs, atol=1e-6)
        np.testing.assert_array_equal(cell.written_ranks, lens.written_ranks)
        assert cell.top_tokens == lens.top_tokens and cell.read_tokens == lens.read_tokens
        assert (cell.step, cell.written, cell.written_id) == (lens.step, lens.written, lens.written_id)
        np.testing.assert_allclose(grid.written_probs[:, step], lens.written_probs, atol=1e-6)


def test_every_step_at_once_is_the_lens_of_each_step(model):
    engine = GenerationEngine(model, SOURCE)
    for _ in range(6):
        engine.step()
    lens_of_each_step_is_the_grids(model, SOURCE, engine.output_ids, k=6)
    assert logit_lens_grid(model, SOURCE, engine.output_ids).layers == 2


def test_the_top_k_is_the_head_of_a_stable_sort_ties_included():
    probs = np.random.default_rng(0).integers(0, 4, size=(3, 5, 40)).astype(float)  # many ties
    expected = np.argsort(-probs, axis=-1, kind="stable")[..., :7]
    np.testing.assert_array_equal(top_k_stable(probs, 7), expected)


def test_first_layer_with_answer_and_refusals():
    from model.attribution.logit_lens import LogitLens

    def lens(ranks):
        n = len(ranks)
        return LogitLens(
            0,
            ["<bos>"],
            "a",
            5,
            np.zeros((n, 1), int),
            [["a"]] * n,
            np.ones((n, 1)),
            np.ones(n),
            np.array(ranks),
        )

    assert lens([3, 1, 1]).first_layer_with_answer() == 1
    assert lens([1, 2, 1]).first_layer_with_answer() == 2
    assert lens([1, 1, 2]).first_layer_with_answer() is None
    rnn = RNNFamily(*small_rnn("additive", seed=1))
    with pytest.raises(ValueError, match="output layer"):
        logit_lens(rnn, SOURCE, [5], 0)
    with pytest.raises(ValueError, match="step must lie"):
        logit_lens(small_family(seed=4), SOURCE, [5], 1)
    with pytest.raises(ValueError, match="output layer"):
        logit_lens_grid(rnn, SOURCE, [5])
    with pytest.raises(ValueError, match="not written a token"):
        logit_lens_grid(small_family(seed=4), SOURCE, [])
