"""The Train page's training run (model/tasks/live.py), run in this process: its events, its
snapshots and their numbers, pause and stop, the presets; and the probe (model/tasks/probe.py)."""

from __future__ import annotations

import json
import random
import threading
import time
from dataclasses import replace

import numpy as np
import pytest
import torch

from model.generation.engine import GenerationEngine
from model.generation.trace import generation_arrays
from model.registry import open_model
from model.tasks import live
from model.tasks.evaluate import evaluate_pairs
from model.tasks.live import Control, exact_match, held_out_pairs, live_recipe, run
from model.tasks.probe import trace_probe
from model.tasks.probe_trace import ProbeTrace, anti_diagonal
from model.tasks.recipes import RECIPES
from model.tasks.replay import read_replay
from model.tasks.train import accumulate_gradients, build_model, default_tokenizer, draw_training_examples
from model.transformer.checkpoint import load_checkpoint
from tests.waits import EVENT_MS

SMALL = {"d_model": 16, "n_heads": 2, "n_encoder_layers": 1, "n_decoder_layers": 1, "d_ff": 32}
SMALL["batch_size"] = 8


def small_recipe(steps: int = 12):
    return replace(live_recipe("transformer", "tiny", None, steps, 0)[1], **SMALL)


def events_of(capsys) -> list[dict]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]


def test_a_run_speaks_its_steps_snapshots_and_end_and_the_snapshots_hold_what_it_says(tmp_path, capsys):
    recipe = small_recipe(12)
    run(recipe, "live-tiny", tmp_path, snapshot_every=5)
    events = events_of(capsys)
    names = [e["event"] for e in events]
    assert names[0] == "started" and names[-1] == "finished"
    assert [e["step"] for e in events if e["event"] == "step"] == list(range(1, 13))
    snapshots = [e for e in events if e["event"] == "snapshot"]
    assert [s["step"] for s in snapshots] == [0, 5, 10, 12]
    assert [s["index"] for s in snapshots] == [0, 1, 2, 3]
    steps = {e["step"]: e for e in events if e["event"] == "step"}
    tokenizer = default_tokenizer()
    held = held_out_pairs(recipe, None)
    assert len(held) == live.HELD_OUT
    for snapshot in snapshots:
        family = load_checkpoint(snapshot["path"], "cpu")
        assert family.metadata["steps_done"] == snapshot["step"]
        # the held-out number is the snapshot's own exact match on the held-out pairs
        assert snapshot["held_out"] == exact_match(family.model, tokenizer, held, "cpu")
        if snapshot["step"]:
            assert snapshot["loss"] == steps[snapshot["step"]]["loss"]
    finished = events[-1]
    assert finished["step"] == 12 and not finished["stopped"]
    # the replay holds every snapshot, each equal to its checkpoint file (in float16)
    replay = read_replay(finished["replay"])
    assert [s.step for s in replay.snapshots] == [0, 5, 10, 12]
    last = load_checkpoint(snapshots[-1]["path"], "cpu").model.state_dict()
    for name, tensor in replay.family(3).model.state_dict().items():
        torch.testing.assert_close(tensor, last[name].half().float())
    assert load_checkpoint(finished["checkpoint"], "cpu").metadata["steps_done"] == 12


def test_teacher_forced_exact_match_equals_greedy_decoding():
    """The shortcut the page's numbers rest on: one forward pass answers what greedy writes.
    On the shipped replay's model, which is right on short inputs and often wrong on longer ones."""
    from model.shipped import shipped_replay_path

    family = open_model(shipped_replay_path(), "cpu")
    recipe = replace(live_recipe("transformer", "tiny", None, None, 0, "3,18")[1], batch_size=80)
    pairs = [(e.source, e.target) for e in draw_training_examples(recipe, random.Random(3))]
    greedy = evaluate_pairs(family.model, family.tokenizer, pairs, "data").accuracy("data")
    assert 0.2 < greedy < 0.95  # both kinds of answer are in the sample
    assert exact_match(family.model, family.tokenizer, pairs, "cpu") == greedy
    # what the model writes itself (where it ends with <eos>) is exact by definition
    own = [(source, trace_probe(family, source)) for source, _ in pairs[:20]]
    own = [(source, trace.output_text) for source, trace in own if trace.finished]
    assert len(own) >= 10
    assert exact_match(family.model, family.tokenizer, own, "cpu") == 1.0


def test_the_batch_exact_match_counts_the_rows_whose_every_token_ranks_first():
    recipe = replace(RECIPES["tiny"], batch_size=16, length_groups=2)
    tokenizer = default_tokenizer()
    torch.manual_seed(0)
    model = build_model(recipe.model_config(len(tokenizer)), tokenizer)
    examples = draw_training_examples(recipe, random.Random(1))
    pairs = [(e.source, e.target) for e in examples]
    expected = exact_match(model, tokenizer, pairs, "cpu")  # before the gradients change nothing
    _loss, _accuracy, exact = accumulate_gradients(model, tokenizer, examples, recipe, "cpu")
    assert exact == pytest.approx(expected)


def test_the_batch_exact_match_of_a_model_that_knows_the_answers():
    from model.shipped import shipped_replay_path

    model = open_model(shipped_replay_path(), "cpu").model
    recipe = replace(live_recipe("transformer", "tiny", None, None, 0)[1], batch_size=64, length_groups=2)
    examples = draw_training_examples(recipe, random.Random(5))
    pairs = [(e.source, e.target) for e in examples]
    expected = exact_match(model, default_tokenizer(), pairs, "cpu")
    assert expected > 0.9
    model.train()
    _loss, _accuracy, exact = accumulate_gradients(model, default_tokenizer(), examples, recipe, "cpu")
    assert exact == pytest.approx(expected)


def test_stop_ends_the_run_after_its_step_with_everything_saved(tmp_path, capsys, monkeypatch):
    control = Control()
    said = []

    def emit(event, **fields):
        said.append({"event": event, **fields})
        if event == "step" and fields["step"] == 3:
            control.command("stop")

    monkeypatch.setattr(live, "emit", emit)
    run(small_recipe(50), "live-tiny", tmp_path, snapshot_every=10, control=control)
    assert [e["step"] for e in said if e["event"] == "step"] == [1, 2, 3]
    assert [e["step"] for e in said if e["event"] == "snapshot"] == [0, 3]
    assert said[-1]["event"] == "finished" and said[-1]["stopped"] and said[-1]["step"] == 3
    assert [s.step for s in read_replay(said[-1]["replay"]).snapshots] == [0, 3]


def test_pause_holds_the_run_until_resumed_and_its_time_leaves_the_pause_out(tmp_path, monkeypatch):
    control = Control()
    said = []

    def emit(event, **fields):
        said.append({"event": event, **fields, "at": time.perf_counter()})
        if event == "step" and fields["step"] == 2:
            control.command("pause")
            threading.Timer(0.6, control.command, ("resume",)).start()

    monkeypatch.setattr(live, "emit", emit)
    run(small_recipe(4), "live-tiny", tmp_path, snapshot_every=10, control=control)
    names = [e["event"] for e in said]
    assert names.index("paused") == names.index("step") + 2  # right after step 2
    assert names[names.index("paused") + 1] == "resumed"
    paused = next(e for e in said if e["event"] == "paused")
    resumed = next(e for e in said if e["event"] == "resumed")
    assert resumed["at"] - paused["at"] >= 0.5
    steps = [e for e in said if e["event"] == "step"]
    assert [e["step"] for e in steps] == [1, 2, 3, 4]
    assert steps[-1]["seconds"] < steps[-1]["at"] - said[0]["at"] - 0.4  # the pause is not counted


def test_the_end_of_stdin_stops_the_run():
    control = Control(iter(["pause\n"]))  # one command, then the stream ends: the window is gone
    assert control.stopped.wait(EVENT_MS / 1000)
    assert control.wait_while_paused() == 0.0  # a stopped run does not wait


def test_presets_tasks_and_lengths():
    name, recipe = live_recipe("transformer", "tiny", None, None, 0)
    assert name == "live-tiny" and recipe.tasks == ("reverse",)
    assert (recipe.min_length, recipe.max_length) == (3, 10)
    assert (recipe.d_model, recipe.n_encoder_layers, recipe.n_decoder_layers) == (64, 2, 2)
    _, recipe = live_recipe("transformer", "shipped", ("reverse", "sort"), 100, 0, "full")
    assert recipe.tasks == ("reverse", "sort") and recipe.task_weights == RECIPES["default"].task_weights[:2]
    assert recipe.min_length is None and recipe.steps == 100 and recipe.warmup_steps == 10
    _, recipe = live_recipe("rnn", "tiny", None, None, 0, "4,6")
    assert recipe.family == "rnn" and (recipe.min_length, recipe.max_length) == (4, 6)
    examples = draw_training_examples(replace(recipe, batch_size=50), random.Random(0))
    assert all(4 <= len(e.source) - len("reverse: ") <= 6 for e in examples)
    for bad, message in (
        (("transformer", "huge", None, None, 0), "unknown preset"),
        (("gpt", "tiny", None, None, 0), "unknown family"),
        (("transformer", "tiny", ("copy",), None, 0), "unknown task"),
        (("transformer", "tiny", None, 0, 0), "at least one step"),
        (("transformer", "tiny", None, None, 0, "9,3"), "MIN first"),
        (("transformer", "tiny", None, None, 0, "three"), "MIN,MAX"),
    ):
        with pytest.raises(ValueError, match=message):
            live_recipe(*bad)


def test_the_process_reports_a_bad_setting_as_an_error_event(capsys, tmp_path):
    assert live.main(["--out", str(tmp_path), "--tasks", "copy"]) == 1
    events = events_of(capsys)
    message = "unknown task 'copy': choose from reverse, sort, date, pick"
    assert events == [{"event": "error", "message": message}]


def test_the_probe_is_the_engines_greedy_run_cut_at_its_length(tiny_checkpoint):
    family = tiny_checkpoint
    trace = trace_probe(family, "reverse: abc")
    engine = GenerationEngine(family, "reverse: abc")
    for _ in range(len(trace.output_tokens)):
        engine.step()
    arrays = generation_arrays(engine.snapshot())
    for kind in trace.kinds:
        np.testing.assert_array_equal(trace.attention[kind], arrays[kind])
    assert trace.output_text == engine.output_text()
    assert len(trace.output_tokens) <= 2 * len(trace.source_tokens) + 8
    assert trace.input_tokens[0] == family.tokenizer.token_text(family.tokenizer.bos_id)


def test_the_anti_diagonal_is_found_at_any_offset_and_not_in_uniform_attention():
    source = list("reverse: abcd") + ["<eos>"]  # 14 tokens, 4 rows to write
    rows, keys = 5, len(source)
    line = np.zeros((2, 3, rows, keys))
    for t in range(rows):
        line[1, 2, t, 12 - t] = 1.0  # reads the source from its last character leftwards
    trace = ProbeTrace(source, [], ["x"] * rows, "", True, {"cross": line}, ("cross",))
    found = anti_diagonal(trace)
    assert (found.strength, found.layer, found.head, found.offset) == (1.0, 1, 2, 12)
    shifted = np.roll(line, 1, axis=3)  # one character ahead of the one written
    assert anti_diagonal(replace(trace, attention={"cross": shifted})).offset == 13
    uniform = np.full((2, 3, rows, keys), 1 / keys)
    assert anti_diagonal(replace(trace, attention={"cross": uniform})).strength == pytest.approx(1 / keys)


def test_a_shipped_replay_opens_as_its_last_snapshot():
    from model.shipped import shipped_replay_path

    path = shipped_replay_path()
    assert path.stat().st_size <= 10 * 1024**2
    replay = read_replay(path)
    family = open_model(path, "cpu")
    assert family.metadata["steps_done"] == replay.snapshots[-1].step
    assert trace_probe(family, "reverse: attention").output_text == "noitnetta"
    # and attention did form over the run: noise at step 0, a clear anti-diagonal at the end
    assert anti_diagonal(trace_probe(replay.family(0), "reverse: attention")).strength < 0.2
    assert anti_diagonal(trace_probe(family, "reverse: attention")).strength > 0.5


def test_an_rnn_run_keeps_its_snapshots_as_checkpoints_the_probe_runs_on(tmp_path, capsys):
    _, recipe = live_recipe("rnn", "tiny", None, 4, 0)
    recipe = replace(
        recipe, rnn_embed_dim=8, rnn_encoder_hidden=8, rnn_decoder_hidden=16, rnn_attention_dim=8
    )
    run(recipe, "live-rnn-tiny", tmp_path, snapshot_every=2)
    events = events_of(capsys)
    snapshots = [e for e in events if e["event"] == "snapshot"]
    assert [s["step"] for s in snapshots] == [0, 2, 4]
    assert events[-1]["replay"] is None  # replays hold Transformers
    family = open_model(snapshots[-1]["path"], "cpu")
    assert family.info.family == "rnn" and family.metadata["steps_done"] == 4
    trace = trace_probe(family, "reverse: abc")
    assert trace.kinds == family.info.kind_names
    kind = trace.kinds[0]  # the decoder's attention over the source, one "layer" and "head"
    assert trace.attention[kind].shape == (1, 1, len(trace.output_tokens), len(trace.source_tokens))
