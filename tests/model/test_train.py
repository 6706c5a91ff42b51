"""Training: a seconds-long recipe trains, checkpoints, resumes and evaluates."""

import math

import pytest
import torch

from model.tasks.evaluate import (
    LENGTH_BUCKETS,
    EvalReport,
    evaluate,
    held_out_examples,
    sequence_logprobs,
)
from model.tasks.pick import PICK_CATEGORIES
from model.tasks.synthetic import DATE_FORMS, PICK_NAMES, answers, is_ambiguous, split_source
from model.tasks.train import RECIPES, recipe_from_args, train, trainstate_path
from model.transformer.checkpoint import load_checkpoint

pytestmark = pytest.mark.slow  # trains small models for a few steps


def test_tiny_recipe_trains_writes_a_checkpoint_and_lowers_the_loss(tmp_path):
    out = tmp_path / "tiny.safetensors"
    lines = []
    result = train(RECIPES["tiny"], out, recipe_name="tiny", device="cpu", progress=lines.append)
    checkpoint = load_checkpoint(out, "cpu")
    assert checkpoint.metadata["steps_done"] == RECIPES["tiny"].steps
    assert checkpoint.metadata["recipe_name"] == "tiny"
    assert set(checkpoint.metadata["eval"]) >= {"reverse", "sort", "date"}
    assert trainstate_path(out).exists()
    assert result.report.total["reverse"] == RECIPES["tiny"].final_eval_n
    assert any("step 15" in line for line in lines)


def test_resume_continues_where_the_run_stopped_and_matches_an_unbroken_run(tmp_path):
    recipe = RECIPES["tiny"]
    whole = tmp_path / "whole.safetensors"
    train(recipe, whole, device="cpu", progress=lambda _: None)
    broken = tmp_path / "broken.safetensors"
    stopped = train(recipe, broken, device="cpu", stop_after=17, progress=lambda _: None)
    assert stopped.steps == 17 and load_checkpoint(broken, "cpu").metadata["steps_done"] == 17
    resumed = train(recipe, broken, device="cpu", resume=True, progress=lambda _: None)
    assert resumed.steps == recipe.steps
    a = load_checkpoint(whole, "cpu").model.state_dict()
    b = load_checkpoint(broken, "cpu").model.state_dict()
    for name in a:
        torch.testing.assert_close(a[name], b[name])


def test_unknown_recipe_is_refused():
    with pytest.raises(ValueError, match="unknown training config"):
        recipe_from_args("huge", {})


def test_held_out_examples_cover_every_date_form_and_are_seeded():
    n = 2 * len(DATE_FORMS)
    examples = held_out_examples(n, seed=4)
    dates = [e for e in examples if e.task == "date"]
    assert [e.form for e in dates] == list(DATE_FORMS) * 2 + ["ambiguous"] * n
    assert not any(is_ambiguous(split_source(e.source)[1]) for e in dates[:n])
    assert all(len(answers(e.source)) == 2 for e in dates[n:])
    assert sum(e.task == "reverse" for e in examples) == n and not any(e.task == "pick" for e in examples)
    assert examples == held_out_examples(n, seed=4)
    assert examples != held_out_examples(n, seed=5)
    per_form = [e.form for e in held_out_examples(3, seed=4, tasks=("date",), per_form=True)]
    assert per_form.count("yyyy-mm-dd") == 3 and per_form.count("ambiguous") == 3


def test_evaluate_counts_exact_matches(tiny_checkpoint):
    report = evaluate(tiny_checkpoint.model, tiny_checkpoint.tokenizer, n_per_task=11, seed=1)
    assert report.total["date"] == 11 and report.total["date/cjk_numerals"] == 1
    assert report.total["date ambiguous"] == 11
    assert (
        report.total["reverse"]
        == 11
        == sum(
            report.total[f"reverse/{lo}-{hi}"]
            for lo, hi in LENGTH_BUCKETS
            if f"reverse/{lo}-{hi}" in report.total
        )
    )
    assert 0.0 <= report.accuracy("reverse") <= 1.0
    assert "exact match" in report.table()
    # pick: the distance is computed from the model's own sequence probabilities
    assert set(report.distances) == {f"pick/{c}" for c in PICK_NAMES}
    fruit = report.model_distributions["fruit"]
    probs = sequence_logprobs(
        tiny_checkpoint.model, tiny_checkpoint.tokenizer, ["pick: fruit"] * len(fruit), list(fruit)
    )
    assert [math.exp(p) for p in probs] == pytest.approx(list(fruit.values()))
    data = PICK_CATEGORIES["fruit"]
    elsewhere = 1 - sum(fruit.values())
    expected = 0.5 * (sum(abs(fruit[m] - data[m]) for m in data) + elsewhere)
    assert report.distances["pick/fruit"] == pytest.approx(expected)
    assert 0 <= report.distances["pick/fruit"] <= 1


def test_report_marks_targets():
    report = EvalReport(10, 0)
    for _ in range(99):
        report.count("reverse", True)
    report.count("reverse", False)
    report.count("date/mm/dd/yyyy", False)
    report.distances["pick/fruit"] = 0.01
    assert report.met("reverse") is True and report.met("date/mm/dd/yyyy") is False
    assert report.met("pick/fruit") is True and report.met("reverse/1-8") is None
    assert not report.all_met()
    assert "BELOW TARGET" in report.table() and report.to_dict()["pick/fruit"]["total_variation"] == 0.01


def test_a_second_stage_starts_from_the_first_and_records_it(tmp_path):
    first = tmp_path / "first.safetensors"
    train(RECIPES["tiny"], first, recipe_name="tiny", device="cpu", progress=lambda _: None)
    second = tmp_path / "second.safetensors"
    train(
        recipe_from_args("tiny", {"steps": 1}),
        second,
        recipe_name="tiny-2",
        device="cpu",
        init=first,
        progress=lambda _: None,
    )
    info = load_checkpoint(second, "cpu").metadata
    assert info["initialized_from"]["recipe_name"] == "tiny"
    assert info["initialized_from"]["steps_done"] == RECIPES["tiny"].steps
    a = load_checkpoint(first, "cpu").model.state_dict()
    b = load_checkpoint(second, "cpu").model.state_dict()
    assert any(not torch.equal(a[k], b[k]) for k in a)  # one more step moved the weights
    assert all(torch.allclose(a[k], b[k], atol=1e-2) for k in a)  # ...but only a little


def test_expected_answers_train_every_answer_weighted_by_its_probability(tiny_checkpoint):
    from model.tasks.synthetic import Example
    from model.tasks.train import accumulate_gradients, training_pairs

    examples = [
        Example("pick", "pick: 动物", "猫", "动物"),
        Example("date", "date: 03/04/2026", "2026-03-04", "dd/mm/yyyy"),
        Example("date", "date: 29/11/2026", "2026-11-29", "dd/mm/yyyy"),
        Example("reverse", "reverse: ab", "ba", "words"),
    ]
    drawn = training_pairs(examples, expected_answers=False)
    assert [(p.target, p.weight) for p in drawn] == [
        ("猫", 1.0),
        ("2026-03-04", 1.0),
        ("2026-11-29", 1.0),
        ("ba", 1.0),
    ]
    every = training_pairs(examples, expected_answers=True)
    assert [(p.target, p.weight) for p in every] == [
        ("猫", 0.4),
        ("狗", 0.35),
        ("鸟", 0.15),
        ("鱼", 0.1),
        ("2026-04-03", 0.5),
        ("2026-03-04", 0.5),
        ("2026-11-29", 1.0),
        ("ba", 1.0),
    ]
    # the loss is each answer's token loss weighted by its probability, over the weighted tokens
    model, tokenizer = tiny_checkpoint.model, tiny_checkpoint.tokenizer
    recipe = recipe_from_args("tiny", {"expected_answers": True, "length_groups": 3})
    loss, _, _ = accumulate_gradients(model, tokenizer, examples, recipe, "cpu")
    model.zero_grad(set_to_none=True)
    logprobs = sequence_logprobs(model, tokenizer, [p.source for p in every], [p.target for p in every])
    tokens = [len(p.target) + 1 for p in every]  # each answer and <eos>
    weighted_logprob = sum(p.weight * lp for p, lp in zip(every, logprobs, strict=True))
    expected = -weighted_logprob / sum(p.weight * n for p, n in zip(every, tokens, strict=True))
    assert loss == pytest.approx(expected, rel=1e-5)


def test_the_calibration_stage_starts_from_the_first_through_the_command_line(tmp_path):
    from visualizer.cli.attnviz import main

    first = tmp_path / "first.safetensors"
    train(RECIPES["tiny"], first, recipe_name="tiny", device="cpu", progress=lambda _: None)
    assert RECIPES["calibrate"].expected_answers and RECIPES["calibrate"].peak_lr < RECIPES["default"].peak_lr
    second = tmp_path / "second.safetensors"
    code = main(["train", "--config", "tiny", "--steps", "2", "--init", str(first), "--out", str(second)])
    assert code == 0
    assert load_checkpoint(second, "cpu").metadata["initialized_from"]["checkpoint"] == "first.safetensors"


@pytest.mark.parametrize("score", ["additive", "none"])
def test_an_rnn_recipe_trains_resumes_exactly_and_opens_in_the_app(tmp_path, score):
    from dataclasses import replace

    from model.registry import open_model
    from model.rnn.checkpoint import read_rnn_checkpoint
    from model.rnn.family import RNNFamily

    recipe = replace(RECIPES["rnn-tiny"], rnn_score=score)
    whole = tmp_path / "whole.safetensors"
    result = train(recipe, whole, recipe_name="rnn-tiny", device="cpu", progress=lambda _: None)
    assert result.report.total["reverse"] == recipe.final_eval_n  # evaluated with the RNN's greedy decoder
    broken = tmp_path / "broken.safetensors"
    train(recipe, broken, device="cpu", stop_after=17, progress=lambda _: None)
    train(recipe, broken, device="cpu", resume=True, progress=lambda _: None)
    a, b = read_rnn_checkpoint(whole)[0].state_dict(), read_rnn_checkpoint(broken)[0].state_dict()
    for name in a:
        torch.testing.assert_close(a[name], b[name])
    model, _tokenizer, info = read_rnn_checkpoint(whole)
    assert model.config.score == score and info["recipe_name"] == "rnn-tiny" and info["steps_done"] == 30
    family = open_model(whole, "cpu")
    assert isinstance(family, RNNFamily) and family.metadata["eval"]
    assert family.info.has_attention == (score != "none")


def test_size_options_make_another_model_and_mistakes_are_one_line(tmp_path, capsys):
    from model.tasks.train import load_trained
    from visualizer.cli.attnviz import main

    out = tmp_path / "wider.safetensors"
    sizes = ["--d-model", "48", "--heads", "3", "--layers", "2", "--d-ff", "96", "--batch-size", "8"]
    assert main(["train", "--config", "tiny", "--steps", "2", "--out", str(out), *sizes]) == 0
    model, info = load_trained(out)
    config = model.config
    assert (
        config.d_model,
        config.n_heads,
        config.n_encoder_layers,
        config.n_decoder_layers,
        config.d_ff,
    ) == (
        48,
        3,
        2,
        2,
        96,
    )
    assert info["recipe"]["batch_size"] == 8
    capsys.readouterr()
    assert (
        main(["train", "--config", "tiny", "--out", str(tmp_path / "x"), "--d-model", "50", "--heads", "3"])
        == 2
    )
    assert "multiple of --heads" in capsys.readouterr().err
    assert main(["train", "--config", "tiny", "--out", str(tmp_path / "x"), "--batch-size", "0"]) == 2
