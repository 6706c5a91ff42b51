"""The RNN with attention as a model family: opened from its checkpoint by the registry and
run by the generic engine, probes and traces, with no code that names it."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from model.core.errors import CheckpointError
from model.generation.decoding import DecodingSettings
from model.generation.engine import GenerationEngine
from model.generation.trace import generation_arrays, generation_summary, write_trace
from model.interface import Interventions
from model.probes.teacher_forcing import teacher_force, teacher_force_batch
from model.registry import open_model
from model.rnn.checkpoint import save_rnn_checkpoint
from model.rnn.config import SCORE_KINDS
from model.rnn.family import NO_ATTENTION, RNNFamily
from model.transformer.family import TransformerFamily
from tests.factories import small_rnn
from visualizer.panels.registry import ENTRIES

SOURCE = "reverse: abcdef"


@pytest.fixture(params=["additive", "dot", "scaled_dot"])
def rnn(request, tmp_path) -> RNNFamily:
    model, tokenizer = small_rnn(request.param)
    path = tmp_path / f"{request.param}.safetensors"
    save_rnn_checkpoint(path, model, tokenizer, {"recipe_name": "test"})
    return open_model(path, "cpu")


@pytest.mark.parametrize("score", SCORE_KINDS)
def test_the_config_counts_the_parameters_the_model_has(score):
    model, _ = small_rnn(score)
    assert model.config.parameter_count() == sum(p.numel() for p in model.parameters())


def test_the_registry_opens_rnn_checkpoints_as_rnns_and_the_rest_as_before(rnn, tiny_checkpoint_path):
    assert isinstance(rnn, RNNFamily) and rnn.info.family == "rnn"
    assert rnn.info.kind_names == ("alignment",) and rnn.info.resolve_kind("cross") == "alignment"
    assert rnn.metadata == {"recipe_name": "test"}
    assert isinstance(open_model(tiny_checkpoint_path, "cpu"), TransformerFamily)


def test_the_engine_steps_back_forces_and_records_one_alignment_row_per_step(rnn):
    engine = GenerationEngine(rnn, SOURCE)
    for _ in range(3):
        engine.step()
    source_len = len(rnn.tokenizer.encode_source(SOURCE).ids)
    assert engine.encoder.attention == {}  # no attention among source positions
    for step in engine.steps:
        assert set(step.attention) == {"alignment"}
        assert step.attention["alignment"].shape == (1, 1, source_len)
        np.testing.assert_allclose(step.attention["alignment"].sum(-1), 1.0, atol=1e-5)
    first = engine.steps[1].attention["alignment"].copy()
    engine.back()
    engine.step()
    np.testing.assert_array_equal(engine.steps[1].attention["alignment"], first)
    forced = engine.force(rnn.tokenizer.encode("z").ids[0])
    assert forced.forced and engine.steps[-1].token_id == forced.token_id


def test_stepping_equals_the_teacher_forced_run_and_a_padded_batch_equals_each_item(rnn):
    engine = GenerationEngine(rnn, SOURCE)
    for _ in range(4):
        engine.step()
    [item] = teacher_force_batch(rnn, [SOURCE], [engine.output_ids])
    forced = item.attention["alignment"]
    for t, step in enumerate(engine.steps):
        np.testing.assert_allclose(forced.weights[:, :, t], step.attention["alignment"], atol=1e-5)
        np.testing.assert_allclose(item.logits[t], step.logits, atol=1e-4)
    # raw scores, scaled and masked as the masks page shows them, give the same weights
    recomputed = torch.softmax(torch.from_numpy(forced.masked_scores), dim=-1).numpy()
    np.testing.assert_allclose(recomputed, forced.weights, atol=1e-5)
    short, long = "sort: 31", "reverse: abcdefgh"
    items = teacher_force_batch(rnn, [short, long], ["13", "hgfedcba"])
    [alone] = teacher_force_batch(rnn, [short], ["13"])
    real_t, real_s = len(alone.target_ids), len(alone.source_padding)
    np.testing.assert_allclose(
        items[0].attention["alignment"].weights[:, :, :real_t, :real_s],
        alone.attention["alignment"].weights,
        atol=1e-5,
    )
    assert teacher_force(rnn, SOURCE, "fedcba").loss.shape == (7,)


def test_beam_search_and_the_trace_work_on_the_rnn(rnn, tmp_path):
    beam = GenerationEngine(rnn, SOURCE, DecodingSettings(strategy="beam", beam_width=3))
    beam.run_to_end()
    assert beam.beam is not None and beam.output_ids == beam.beam.best[: len(beam.output_ids)]
    engine = GenerationEngine(rnn, SOURCE)
    for _ in range(3):
        engine.step()
    arrays = generation_arrays(engine.snapshot())
    source_len = len(engine.encoder.tokens)
    assert arrays["alignment"].shape == (1, 1, 3, source_len)  # [L, H, T, S]
    np.testing.assert_allclose(arrays["alignment"].sum(-1), 1.0, atol=1e-5)
    assert not {"enc_self", "dec_self", "cross"} & set(arrays)
    _npz, json_path = write_trace(tmp_path / "rnn", arrays, generation_summary(engine.snapshot()))
    assert json.loads(json_path.read_text())["family"] == "rnn"


def test_panels_that_need_what_an_rnn_lacks_say_why(rnn):
    for key in ("positions", "layernorm", "scaling"):
        assert ENTRIES[key].unsupported(rnn.info) is not None, key
    for key in ("masks", "decoding", "beam"):
        assert ENTRIES[key].unsupported(rnn.info) is None, key


def test_the_rnn_without_attention_opens_steps_and_traces_with_no_attention_array(tmp_path):
    model, tokenizer = small_rnn("none")
    path = tmp_path / "plain.safetensors"
    save_rnn_checkpoint(path, model, tokenizer)
    plain = open_model(path, "cpu")
    assert plain.info.kinds == () and not plain.info.has_attention
    assert plain.info.without_attention == NO_ATTENTION
    assert plain.info.max_layers == 0 and plain.info.resolve_kind("cross") is None
    assert plain.info.capabilities.what_ifs == frozenset() and not plain.info.capabilities.scores
    engine = GenerationEngine(plain, SOURCE)
    engine.run_to_end()
    assert all(step.attention == {} for step in engine.steps)
    assert engine.output_text() == plain.batched_greedy_texts([SOURCE])[0]  # the batched decoder agrees
    n = 5
    [item] = teacher_force_batch(plain, [SOURCE], [engine.output_ids[:n]])
    np.testing.assert_allclose(item.logits[:n], np.stack([s.logits for s in engine.steps[:n]]), atol=1e-4)
    assert item.attention == {}
    arrays = generation_arrays(engine.snapshot())
    assert not {"alignment", "enc_self", "dec_self", "cross"} & set(arrays)
    _npz, json_path = write_trace(tmp_path / "plain", arrays, generation_summary(engine.snapshot()))
    described = json.loads(json_path.read_text())
    assert described["kinds"] == {} and described["without_attention"] == NO_ATTENTION


@torch.no_grad()
@pytest.mark.parametrize(
    "what_if",
    [
        Interventions(uniform_attention=True),
        Interventions(attend_only=2),
        Interventions(attend_only=99),  # past the end: the source's last token
        Interventions(no_attention=True),
    ],
    ids=["uniform", "one-position", "one-position-clamped", "none"],
)
def test_each_attention_what_if_feeds_the_decoder_the_weights_it_names(rnn, what_if):
    engine = GenerationEngine(rnn, SOURCE, interventions=what_if)
    for _ in range(4):
        engine.step()
    ids = rnn.tokenizer.encode_source(SOURCE).ids
    S = len(ids)
    if what_if.uniform_attention:
        expected = np.full(S, 1 / S)
    elif what_if.no_attention:
        expected = np.zeros(S)
    else:
        expected = np.eye(S)[min(what_if.attend_only, S - 1)]
    # the decoder, written out: the context is Σ_j α_j h_j with the what-if's α at every step
    model = rnn.model
    encoded = model.encode(torch.tensor([ids]), torch.zeros(1, S, dtype=torch.bool))
    context = torch.from_numpy(expected).float() @ encoded.states[0]  # (2H,)
    state = model.start_state(encoded)[0]
    for step in engine.steps:
        np.testing.assert_allclose(step.attention["alignment"][0, 0], expected, atol=1e-6)
        embedded = model.embedding.weight[step.input_id]
        state = model.decoder(torch.cat([embedded, context])[None], state[None])[0]
        logits = model.output(torch.cat([state, context, embedded]))
        np.testing.assert_allclose(step.logits, logits.numpy(), atol=1e-4)
    # teacher forcing and beam search apply it too
    [item] = teacher_force_batch(rnn, [SOURCE], [engine.output_ids], interventions=what_if)
    forced = item.attention["alignment"].weights[0, 0, :4]  # [T, S]
    np.testing.assert_allclose(forced, np.tile(expected, (4, 1)), atol=1e-6)
    np.testing.assert_allclose(item.logits[:4], np.stack([s.logits for s in engine.steps]), atol=1e-4)
    one_beam = DecodingSettings(strategy="beam", beam_width=1)
    beam = GenerationEngine(rnn, SOURCE, one_beam, interventions=what_if)
    beam.run_to_end()
    greedy = GenerationEngine(rnn, SOURCE, interventions=what_if)
    greedy.run_to_end()
    assert beam.output_ids == greedy.output_ids


def test_bad_rnn_checkpoints_are_refused_in_one_line(tmp_path):
    model, tokenizer = small_rnn("additive")
    broken = {name: tensor.clone() for name, tensor in model.state_dict().items()}
    broken["output.weight"] = broken["output.weight"][:, :-1].contiguous()
    from safetensors.torch import save_file

    header = {
        "format_version": 1,
        "family": "rnn",
        "config": model.config.to_dict(),
        "vocabulary": tokenizer.tokens,
    }
    save_file(broken, str(tmp_path / "shape.safetensors"), metadata={"attnviz": json.dumps(header)})
    with pytest.raises(CheckpointError, match="output.weight.*has shape"):
        open_model(tmp_path / "shape.safetensors", "cpu")
    header["config"] = {**model.config.to_dict(), "heads": 4}
    save_file(
        model.state_dict(), str(tmp_path / "field.safetensors"), metadata={"attnviz": json.dumps(header)}
    )
    with pytest.raises(CheckpointError, match=r"unknown field\(s\) heads"):
        open_model(tmp_path / "field.safetensors", "cpu")


@pytest.mark.parametrize("score", ["none", "additive"])
def test_attnviz_half_halves_the_file_and_the_model_barely_changes(score, tmp_path, capsys):
    from visualizer.cli.attnviz import main

    model, tokenizer = small_rnn(score)
    full = tmp_path / "full.safetensors"
    save_rnn_checkpoint(full, model, tokenizer, {"recipe_name": "test"})
    half = tmp_path / "half.safetensors"
    assert main(["half", str(full), "--out", str(half)]) == 0
    assert half.stat().st_size < 0.55 * full.stat().st_size
    opened = open_model(half, "cpu")
    assert opened.metadata == {"recipe_name": "test", "stored_as": "float16"}
    for name, weight in opened.model.state_dict().items():
        expected = model.state_dict()[name].to(torch.float16).float()  # exactly the rounded weights
        assert weight.dtype == torch.float32 and torch.equal(weight, expected), name
    assert main(["half", str(full), "--out", str(half)]) == 2  # kept unless --overwrite
    assert "already exists" in capsys.readouterr().err
    assert main(["half", str(tmp_path / "absent.safetensors"), "--out", str(tmp_path / "x.safetensors")]) == 2
    assert not (tmp_path / "x.safetensors").exists()
