"""Head importance (model.attribution.heads): each number checked against explicit runs of the
teacher-forced pass and of the generation engine with the same what-if."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from model.attribution.heads import (
    Sample,
    all_heads,
    head_importance,
    model_sample,
    score,
    source_sample,
    task_sample,
)
from model.attribution.methods import Cancelled
from model.generation.engine import GenerationEngine
from model.interface import NO_INTERVENTIONS
from model.probes.teacher_forcing import teacher_force_batch
from model.registry import open_model
from model.rnn.family import RNNFamily
from model.shipped import default_checkpoint_path
from tests.factories import small_family, small_rnn


@pytest.fixture(scope="module")
def transformer():
    return small_family(seed=2)


@pytest.fixture(scope="module")
def shipped():
    return open_model(default_checkpoint_path(), "cpu")


def zeroed(*heads):
    return replace(NO_INTERVENTIONS, zeroed_heads=frozenset(heads))


def explicit_log_likelihood(model, sources, references, interventions) -> np.ndarray:
    items = teacher_force_batch(model, sources, references, interventions)
    return np.array([-np.nansum(item.loss) for item in items])


def test_log_likelihood_drop_equals_two_explicit_teacher_forced_runs(transformer):
    sources = ["reverse: abc", "sort: hello there", "date: 1 May 2020"]
    references = ["cba", "  eehhllort", "2020-05-01"]
    sample = Sample.of_texts(transformer, sources, references, "task")
    result = head_importance(transformer, sample, prune=False)
    base = explicit_log_likelihood(transformer, sources, references, NO_INTERVENTIONS)
    assert result.base_ll == pytest.approx(base.mean(), abs=1e-4)
    for head in [("enc_self", 0, 1), ("dec_self", 1, 3), ("cross", 1, 0)]:
        without = explicit_log_likelihood(transformer, sources, references, zeroed(head))
        kind, layer, index = head
        assert result.ll_drop[kind][layer, index] == pytest.approx((base - without).mean(), abs=1e-4)
    assert set(result.kinds) == {"enc_self", "dec_self", "cross"}
    assert all(result.ll_drop[kind].shape == (2, 4) for kind in result.kinds)
    # a head's drop is not the same for every head: the passes really differ
    assert np.ptp(np.concatenate([result.ll_drop[k].ravel() for k in result.kinds])) > 1e-3


def test_exact_match_is_what_greedy_generation_writes_with_that_head_zeroed(shipped):
    """The teacher-forced shortcut (every reference token is the argmax) agrees with the engine
    stepping greedily under the same what-if, head by head, on the shipped model."""
    sample = task_sample(shipped, 6, seed=3)
    heads = [("cross", 1, 2), ("cross", 0, 2), ("dec_self", 1, 1), ("enc_self", 0, 0)]
    for head in heads:
        exact = score(shipped, sample, zeroed(head)).exact
        for source, reference, hit in zip(sample.sources, sample.references, exact, strict=True):
            engine = GenerationEngine(shipped, source, interventions=zeroed(head), capture=False)
            engine.run_to_end()
            assert (engine.output_text() == reference and engine.stop_reason == "eos") == bool(hit), (
                head,
                source,
            )
    as_trained = score(shipped, sample)
    assert as_trained.exact.all()  # the shipped model solves these
    assert not score(shipped, sample, zeroed(("cross", 1, 2))).exact.all()  # and needs this head


def test_model_references_include_the_cut_off_output_and_match_the_engine(transformer):
    """A random model never writes <eos>: its output is cut at the length limit, and the
    reference is exactly what it wrote (no <eos> to predict)."""
    sample = model_sample(transformer, ["reverse: abc", "sort: xyz"])
    assert sample.reference_kind == "model"
    assert all(len(ids) == transformer.info.max_target_len for ids in sample.target_ids)
    assert score(transformer, sample).exact.all()  # the model's own output, unchanged
    head = ("cross", 0, 1)
    exact = score(transformer, sample, zeroed(head)).exact
    for source, ids, hit in zip(sample.sources, sample.target_ids, exact, strict=True):
        engine = GenerationEngine(transformer, source, interventions=zeroed(head), capture=False)
        engine.run_to_end()
        assert (tuple(engine.output_ids) == ids) == bool(hit)


def test_pruning_curve_zeroes_the_least_important_heads_together(transformer):
    sample = Sample.of_texts(transformer, ["reverse: abcd", "sort: dcba"], ["dcba", "abcd"], "task")
    result = head_importance(transformer, sample)
    heads = all_heads(transformer)
    assert len(result.prune_order) == len(heads) == 24
    assert set(result.prune_order) == set(heads)
    drops = [result.drop(head) for head in result.prune_order]
    assert drops == sorted(drops)
    assert len(result.prune_ll) == len(heads) + 1
    assert result.prune_ll[0] == pytest.approx(result.base_ll)
    for k in (1, 5, 24):
        pruned = score(transformer, sample, zeroed(*result.prune_order[:k]))
        assert result.prune_ll[k] == pytest.approx(pruned.log_likelihood.mean())
        assert result.prune_exact_match[k] == pytest.approx(pruned.exact.mean())
    assert result.pruned(3) == frozenset(result.prune_order[:3])
    data = result.to_json()
    assert data["kinds"]["cross"]["log_likelihood_drop"] == result.ll_drop["cross"].tolist()
    assert data["prune"]["order"][0] == list(result.prune_order[0])


def test_task_sample_and_source_sample_references(shipped, transformer):
    sample = task_sample(shipped, 9, seed=1)
    assert len(sample.sources) == 9 and sample.reference_kind == "task"
    assert {s.partition(":")[0] for s in sample.sources} == {
        "reverse",
        "sort",
        "date",
    }  # pick has no one answer
    assert sample.target_ids[0][-1] == shipped.tokenizer.eos_id
    assert task_sample(transformer, 5) is None  # no shipped tasks recorded: the caller uses model_sample
    one = source_sample(shipped, "reverse: hello", [5, 6])
    assert one.reference_kind == "task" and one.references == ["olleh"]
    mine = source_sample(shipped, "translate: hello", [5, 6, shipped.tokenizer.eos_id])
    assert mine.reference_kind == "model" and mine.target_ids == ((5, 6, shipped.tokenizer.eos_id),)


def test_progress_and_cancel(transformer):
    sample = Sample.of_texts(transformer, ["reverse: ab"], ["ba"], "task")
    seen = []
    head_importance(transformer, sample, prune=False, progress=lambda d, t, w: seen.append((d, t)))
    assert seen[-1] == (25, 25) and [d for d, _ in seen] == list(range(1, 26))
    with pytest.raises(Cancelled):
        head_importance(
            transformer, sample, cancelled=lambda: len(seen) > 30, progress=lambda *a: seen.append(a)
        )


def test_models_without_heads_to_zero_are_refused_with_a_reason():
    model = RNNFamily(*small_rnn("additive", seed=1))
    sample = Sample.of_texts(model, ["reverse: ab"], ["ba"], "task")
    with pytest.raises(ValueError, match="cannot run with a head zeroed"):
        head_importance(model, sample)
    with pytest.raises(ValueError, match="as many references"):
        Sample(["a"], [], "task", ())


def test_the_cli_writes_the_maps_and_the_curve(tiny_checkpoint_path, tmp_path, capsys):
    import json

    from visualizer.cli.attnviz import main

    out = tmp_path / "heads.json"
    checkpoint = str(tiny_checkpoint_path)
    texts = ["--text", "reverse: abc", "--text", "sort: ba"]
    assert main(["heads", "--checkpoint", checkpoint, *texts, "--json", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    model = open_model(tiny_checkpoint_path, "cpu")
    expected = head_importance(model, model_sample(model, ["reverse: abc", "sort: ba"]))
    assert data["reference_kind"] == "model" and data["n"] == 2
    for kind in expected.kinds:
        np.testing.assert_allclose(
            data["kinds"][kind]["log_likelihood_drop"], expected.ll_drop[kind], atol=1e-6
        )
        assert data["kinds"][kind]["exact_match"] == expected.exact_match[kind].tolist()
    assert data["prune"]["exact_match"] == pytest.approx(expected.prune_exact_match.tolist())
    assert "Cross-attention:" in capsys.readouterr().out
    # a model without the shipped tasks needs sources; mistakes are one line and status 2
    assert main(["heads", "--checkpoint", checkpoint]) == 2
    assert "--text" in capsys.readouterr().err
    assert main(["heads", "--checkpoint", checkpoint, "--n", "0"]) == 2
    assert main(["heads", "--checkpoint", checkpoint, *texts, "--json", str(out)]) == 2  # exists


def test_the_cli_on_the_shipped_model_measures_fresh_task_examples(tmp_path, capsys):
    import json

    from visualizer.cli.attnviz import main

    out = tmp_path / "heads.json"
    assert main(["heads", "--n", "4", "--task", "reverse", "--no-prune", "--json", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["reference_kind"] == "task" and len(data["sources"]) == 4
    assert all(source.startswith("reverse: ") for source in data["sources"])
    assert data["prune"]["exact_match"] == [data["base_exact_match"]]  # no curve asked for
