import math

import numpy as np
import pytest
import torch

from model.generation.decoding import (
    DecodingSettings,
    beam_search,
    choose_token,
    keep_top_k,
    keep_top_p,
    next_token_distribution,
)
from model.generation.engine import GenerationEngine
from tests.factories import small_family


def run(strategy: str, source: str = "reverse: abcdef", **settings) -> GenerationEngine:
    engine = GenerationEngine(small_family(seed=5), source, DecodingSettings(strategy=strategy, **settings))
    for _ in range(15):
        engine.step()
    return engine


def test_top_k_with_k_1_and_beam_width_1_both_equal_greedy():
    greedy = run("greedy").output_ids
    assert run("topk", top_k=1, temperature=0.7, seed=9).output_ids == greedy
    assert run("beam", beam_width=1).output_ids == greedy


def test_the_same_seed_gives_the_same_sequence_and_another_seed_another():
    for strategy in ("sample", "topp"):
        a = run(strategy, seed=1, temperature=2.0)
        b = run(strategy, seed=1, temperature=2.0)
        c = run(strategy, seed=2, temperature=2.0)
        assert a.output_ids == b.output_ids
        assert a.output_ids != c.output_ids


def test_temperature_flattens_and_sharpens():
    logits = torch.tensor([2.0, 1.0, 0.0])
    probs, hot = next_token_distribution(logits, DecodingSettings(strategy="sample", temperature=4.0))
    _, cold = next_token_distribution(logits, DecodingSettings(strategy="sample", temperature=0.25))
    torch.testing.assert_close(probs, torch.softmax(logits, -1))
    torch.testing.assert_close(hot, torch.softmax(logits / 4, -1))
    assert hot.max() < probs.max() < cold.max()


def test_top_k_keeps_the_k_most_likely_renormalised():
    probs = torch.tensor([0.1, 0.4, 0.2, 0.3])
    kept = keep_top_k(probs, 2)
    torch.testing.assert_close(kept, torch.tensor([0.0, 4 / 7, 0.0, 3 / 7]))


def test_top_p_keeps_the_smallest_nucleus_reaching_p():
    probs = torch.tensor([0.1, 0.4, 0.2, 0.3])
    torch.testing.assert_close(keep_top_p(probs, 0.5), torch.tensor([0.0, 4 / 7, 0.0, 3 / 7]))
    torch.testing.assert_close(keep_top_p(probs, 0.7), torch.tensor([0.0, 0.4, 0.0, 0.3]) / 0.7)
    torch.testing.assert_close(keep_top_p(probs, 0.05), torch.tensor([0.0, 1.0, 0.0, 0.0]))


def test_sampled_tokens_only_come_from_the_kept_set():
    logits = torch.tensor([0.0, 3.0, 2.9, -1.0, 2.8])
    settings = DecodingSettings(strategy="topk", top_k=2, seed=0)
    _, filtered = next_token_distribution(logits, settings)
    generator = torch.Generator().manual_seed(0)
    drawn = {choose_token(filtered, settings, generator) for _ in range(200)}
    assert drawn == {1, 2}


@pytest.mark.parametrize(
    "settings,message",
    [
        ({"strategy": "nope"}, "unknown strategy"),
        ({"temperature": 0}, "temperature"),
        ({"top_k": 0}, "top-k"),
        ({"top_p": 1.5}, "top-p"),
        ({"beam_width": 0}, "beam width"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_settings_are_refused(settings, message):
    with pytest.raises(ValueError, match=message):
        DecodingSettings(**settings)


def toy_step_fn(table: dict[tuple[int, ...], list[float]], vocab: int):
    """A 'model' whose next-token log-probs depend on the hypothesis so far."""

    def step_fn(parents, inputs, state):
        histories = [state[p] + [token] for p, token in zip(parents, inputs, strict=True)]
        rows = []
        for history in histories:
            probs = table.get(tuple(history[1:]), [1.0 / vocab] * vocab)
            rows.append([math.log(p) if p > 0 else -1e9 for p in probs])
        return torch.tensor(rows), histories

    return step_fn


def test_beam_search_finds_a_better_sequence_than_greedy_and_records_the_tree():
    # vocab: 0 = eos, 1 = a, 2 = b. Greedy takes "a" (0.6) then is stuck at 0.5;
    # "b" (0.4) then eos with 1.0 is better overall (0.4 > 0.6 * 0.5).
    table = {(): [0.0, 0.6, 0.4], (1,): [0.5, 0.25, 0.25], (2,): [1.0, 0.0, 0.0]}
    result = beam_search(toy_step_fn(table, 3), [[]], start_input=9, width=2, eos_id=0, max_steps=5)
    assert result.best == [2, 0]
    best = result.nodes[result.best_node]
    assert best.status == "finished" and best.logprob == pytest.approx(math.log(0.4))
    assert result.nodes[0].parent is None
    statuses = {n.status for n in result.nodes}
    assert {"kept", "finished", "pruned"} <= statuses
    for node in result.nodes[1:]:  # every node's parent exists and comes earlier
        assert node.parent is not None and node.parent < node.id
        assert result.nodes[node.parent].step == node.step - 1
    greedy = beam_search(toy_step_fn(table, 3), [[]], start_input=9, width=1, eos_id=0, max_steps=5)
    assert greedy.best[:2] in ([1, 0], [1, 1], [1, 2])


def test_beam_engine_follows_the_best_hypothesis_and_records_its_tree():
    fam = small_family(seed=5)
    tokenizer = fam.tokenizer
    engine = GenerationEngine(fam, "sort: 9312", DecodingSettings(strategy="beam", beam_width=3))
    engine.run_to_end()
    assert engine.beam is not None
    assert engine.output_ids == engine.beam.best[: len(engine.output_ids)]
    best = engine.beam.nodes[engine.beam.best_node]
    logprobs = [np.log(step.probs[step.token_id]) for step in engine.steps]
    assert best.logprob == pytest.approx(sum(logprobs[: len(engine.beam.best)]), abs=1e-3)
    # every kept or finished node's score is its parent's plus the log-probability of its token
    kept = [n for n in engine.beam.nodes if n.parent is not None]
    assert all(n.logprob <= engine.beam.nodes[n.parent].logprob + 1e-6 for n in kept)
    # forcing a token re-plans the beam after it, with the forced prefix's real score
    engine.reset()
    engine.step()
    forced = engine.force(tokenizer.index["9"])
    engine.step()
    chain = engine.beam.nodes[1]
    assert chain.token == forced.token_id
    assert chain.logprob == pytest.approx(np.log(forced.probs[forced.token_id]), abs=1e-4)
