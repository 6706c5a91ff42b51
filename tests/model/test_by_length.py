"""attnviz eval --by-length: exact match for every input length, each to a ±3 % interval."""

from __future__ import annotations

import json
import math
from types import SimpleNamespace

import pytest

from model.generation.engine import greedy_texts
from model.tasks.by_length import MAX_PER_LENGTH, ROUND, LengthCurve, measure_by_length, wilson_interval
from model.tasks.synthetic import split_source
from model.transformer.checkpoint import load_checkpoint
from tests.factories import small_rnn
from visualizer.cli.attnviz import main


class Scripted:
    """A stand-in for a model whose greedy outputs follow a rule: reverses inputs up to
    ``good_up_to`` characters, and longer ones only on every ``every``-th call."""

    def __init__(self, good_up_to: int, every: int = 0) -> None:
        from model.tasks.train import default_tokenizer

        self.good_up_to, self.every, self.calls = good_up_to, every, 0
        self.tokenizer = default_tokenizer()
        self.info = SimpleNamespace(max_source_len=64, display_name="scripted")

    def batched_greedy_texts(self, sources):
        outputs = []
        for source in sources:
            text = split_source(source)[1]
            self.calls += 1
            good = len(text) <= self.good_up_to or (self.every and self.calls % self.every == 0)
            outputs.append(text[::-1] if good else "wrong")
        return outputs


def test_the_wilson_interval_is_the_textbook_one():
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    assert wilson_interval(100, 100) == pytest.approx((0.9630, 1.0), abs=1e-4)
    assert wilson_interval(0, 100)[0] == 0.0 and wilson_interval(0, 100)[1] == pytest.approx(0.0370, abs=1e-4)
    # the cap reaches ±3 points even at 50 %
    low, high = wilson_interval(MAX_PER_LENGTH // 2, MAX_PER_LENGTH)
    assert (high - low) / 2 <= 0.03


def test_every_length_is_measured_until_its_interval_is_within_three_points():
    model = Scripted(good_up_to=3)
    curve = measure_by_length(model, "reverse", max_length=5)
    assert [row.length for row in curve.rows] == [1, 2, 3, 4, 5]
    assert [row.accuracy for row in curve.rows] == [1.0, 1.0, 1.0, 0.0, 0.0]
    assert all(row.n == ROUND for row in curve.rows)  # 100 of 100 (or 0 of 100) is within ±3
    # a coin-flip model needs the most examples: every second output right
    coin = measure_by_length(Scripted(good_up_to=0, every=2), "sort", max_length=1)
    [row] = coin.rows
    assert row.n > ROUND and (row.interval[1] - row.interval[0]) / 2 <= 0.03
    assert row.accuracy == pytest.approx(0.5, abs=0.01)


def test_the_examples_have_exactly_the_length_measured():
    seen = []

    class Recording(Scripted):
        def batched_greedy_texts(self, sources):
            seen.extend(len(split_source(s)[1]) for s in sources)
            return super().batched_greedy_texts(sources)

    measure_by_length(Recording(good_up_to=48), "reverse", max_length=3)
    assert seen == [1] * ROUND + [2] * ROUND + [3] * ROUND


def test_real_models_of_both_families_are_measured(tiny_checkpoint_path, tmp_path):
    from model.registry import open_model
    from model.rnn.checkpoint import save_rnn_checkpoint

    transformer = load_checkpoint(tiny_checkpoint_path, "cpu")
    model, tokenizer = small_rnn()
    save_rnn_checkpoint(tmp_path / "rnn.safetensors", model, tokenizer)
    rnn = open_model(tmp_path / "rnn.safetensors", "cpu")
    for family in (transformer, rnn):
        curve = measure_by_length(family, "reverse", max_length=2, seed=3)
        assert [row.length for row in curve.rows] == [1, 2]
        # the curve's counts are the model's own: decode the same examples again
        import random

        from model.tasks.synthetic import make_example

        rng = random.Random("by-length-3-reverse-1")
        examples = [make_example("reverse", rng, length=1) for _ in range(curve.rows[0].n)]
        outputs = greedy_texts(family, [e.source for e in examples])
        assert curve.rows[0].correct == sum(o == e.target for o, e in zip(outputs, examples, strict=True))


def test_a_curve_survives_json_and_a_broken_one_is_refused():
    curve = measure_by_length(Scripted(good_up_to=1), "reverse", max_length=2, name="x.safetensors")
    again = LengthCurve.from_dict(json.loads(json.dumps(curve.to_dict())))
    assert again == curve
    assert curve.to_dict()["rows"][0]["low"] == pytest.approx(wilson_interval(100, 100)[0])
    with pytest.raises(ValueError, match="not a length curve"):
        LengthCurve.from_dict({"task": "reverse"})
    broken = curve.to_dict()
    broken["rows"][0]["correct"] = 500
    with pytest.raises(ValueError, match="impossible"):
        LengthCurve.from_dict(broken)


def test_unmeasurable_requests_say_why():
    with pytest.raises(ValueError, match="reverse and sort"):
        measure_by_length(Scripted(1), "date")
    with pytest.raises(ValueError, match="half-width"):
        measure_by_length(Scripted(1), half_width=0)
    with pytest.raises(ValueError, match="1..48"):
        measure_by_length(Scripted(1), max_length=49)


def test_the_command_prints_the_table_and_writes_the_json(tiny_checkpoint_path, tmp_path, capsys):
    out = tmp_path / "curve.json"
    args = ["eval", "--checkpoint", str(tiny_checkpoint_path), "--by-length", "--max-length", "2"]
    assert main([*args, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["task"] == "reverse" and data["name"] == tiny_checkpoint_path.name
    assert [row["length"] for row in data["rows"]] == [1, 2]
    for row in data["rows"]:
        assert row["low"] <= row["accuracy"] <= row["high"] and math.isclose(
            row["accuracy"], row["correct"] / row["n"]
        )
    assert "exact match by input length" in printed and "95 % Wilson" in printed
    assert main([*args[:-1], "60"]) == 2  # beyond the tasks' 48 characters: one line, status 2
    assert "1..48" in capsys.readouterr().err
