"""Each family says how its attention scores are made (``AttentionKind.score``), and the
tensors of those stages are the live model's: the RNN's additive attention records W s, U h
and tanh(W s + U h) in its teacher-forced run, and they equal the same arithmetic done here
by hand from its parameters."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from model.generation.engine import GenerationEngine
from model.interface import AttentionKind, Capabilities, FamilyInfo, ScoreFunction, ScoreStage
from model.probes.teacher_forcing import teacher_force_batch
from model.registry import open_model
from model.rnn.checkpoint import save_rnn_checkpoint
from model.rnn.family import RNNFamily
from tests.factories import small_rnn
from tests.families.toy import INFO as TOY_INFO

SOURCE = "reverse: abcdef"


def open_rnn(score: str, tmp_path) -> RNNFamily:
    model, tokenizer = small_rnn(score)
    path = tmp_path / f"{score}.safetensors"
    save_rnn_checkpoint(path, model, tokenizer)
    return open_model(path, "cpu")


def stage_names(kind: AttentionKind) -> list[str]:
    return [stage.name for stage in kind.score.stages]


def test_the_transformer_describes_scaled_dot_products(tiny_checkpoint):
    for kind in tiny_checkpoint.info.kinds:
        assert stage_names(kind) == ["raw", "scaled"], kind.name
        assert [s.symbol for s in kind.score.stages] == ["QKᵀ", "÷√d_k"]
        assert kind.score.scale == "1/√d_k" and "softmax(QKᵀ / √d_k)" in kind.score.explanation


@pytest.mark.parametrize(
    ("score", "stages", "scale"),
    [
        ("additive", ["query", "keys", "tanh", "raw"], ""),
        ("dot", ["raw"], ""),
        ("scaled_dot", ["raw", "scaled"], "1/√d"),
    ],
)
def test_each_rnn_describes_its_own_score(score, stages, scale, tmp_path):
    rnn = open_rnn(score, tmp_path)
    [kind] = rnn.info.kinds
    assert stage_names(kind) == stages and kind.score.scale == scale
    assert not any("QKᵀ" in s.symbol + s.title or "√d_k" in s.symbol + s.title for s in kind.score.stages)
    assert "softmax(QKᵀ" not in kind.score.explanation  # the paper's formula is not this model's
    if score == "additive":
        assert "vᵀ tanh(W s + U h_j)" in kind.score.explanation
        assert [s.axes for s in kind.score.stages[:3]] == [
            ("query", "dim"),
            ("key", "dim"),
            ("query", "key", "dim"),
        ]
    # the scaled dot product divides by √d: the ÷√d_k page says it cannot remove that, not that it has none
    assert rnn.info.capabilities.scaling == (score == "scaled_dot")


def test_hugging_face_entries_say_how_their_scores_are_made(hf_families):
    for name, family in hf_families.items():
        kinds = {kind.name: kind for kind in family.info.kinds}
        if name in ("t5", "mt5"):
            assert [s.symbol for s in kinds["enc_self"].score.stages] == ["QKᵀ + B"]
            assert kinds["dec_self"].score == kinds["enc_self"].score
            assert [s.symbol for s in kinds["cross"].score.stages] == ["QKᵀ"]
            assert not any(kind.score.scaled for kind in kinds.values()) and family.scale == 1.0
        else:
            for kind in kinds.values():
                assert stage_names(kind) == ["raw", "scaled"] and kind.score.scale == "1/√d_k", name


def test_a_family_that_records_scores_must_say_how_it_makes_them():
    unexplained = AttentionKind("alignment", "Alignment", 1, 1, "target", "source")
    with pytest.raises(ValueError, match="says how each kind made them"):
        FamilyInfo("x", "X", (unexplained,), 8, 8, Capabilities(scores=True))
    with pytest.raises(ValueError, match="scale"):  # a "scaled" stage needs a scale, and back
        ScoreFunction("s", "", (ScoreStage("raw", "a", "a"), ScoreStage("scaled", "b", "b")))
    with pytest.raises(ValueError, match="raw"):
        ScoreFunction("s", "", (ScoreStage("query", "a", "a", ("query", "dim")),))
    assert all(kind.score is not None for kind in TOY_INFO.kinds)  # the worked example says it too


def explicit_additive(rnn: RNNFamily, source: str, target_ids: list[int]) -> dict[str, np.ndarray]:
    """W s, U h, tanh(W s + U h) and vᵀ tanh(·) for every decoder position, from the parameters,
    with the decoder states s_{i-1} of the model reading <bos> + target one token at a time."""
    model = rnn.model
    W = model.query_proj.weight  # (A, D)
    U, b = model.key_proj.weight, model.key_proj.bias  # (A, 2H), (A,)
    v = model.score_vector.weight[0]  # (A,)
    src = torch.tensor([rnn.tokenizer.encode_source(source).ids])
    with torch.no_grad():
        encoded = model.encode(src, torch.zeros_like(src, dtype=torch.bool))
        h = encoded.states[0]  # (S, 2H)
        state, states = model.start_state(encoded), []
        for token in [rnn.tokenizer.bos_id, *target_ids]:
            states.append(state[0])  # s_{i-1}: the state the decoder scores with at position i
            state = model.step(torch.tensor([token]), state, encoded).state
        s = torch.stack(states)  # (T, D)
        Ws = s @ W.T  # (T, A)
        Uh = h @ U.T + b  # (S, A)
        hidden = torch.tanh(Ws[:, None, :] + Uh[None, :, :])  # (T, S, A)
        e = hidden @ v  # (T, S)
    return {"query": Ws.numpy(), "keys": Uh.numpy(), "tanh": hidden.numpy(), "raw": e.numpy()}


def test_additive_stages_are_the_models_own_tensors(tmp_path):
    rnn = open_rnn("additive", tmp_path)
    engine = GenerationEngine(rnn, SOURCE)
    for _ in range(4):
        engine.step()
    target = list(engine.output_ids)
    [item] = teacher_force_batch(rnn, [SOURCE], [target])
    matrices = item.attention["alignment"]
    expected = explicit_additive(rnn, SOURCE, target)
    for name in ("query", "keys", "tanh"):
        np.testing.assert_allclose(matrices.parts[name][0, 0], expected[name], atol=1e-5, err_msg=name)
    np.testing.assert_allclose(matrices.scores[0, 0], expected["raw"], atol=1e-5)
    # softmax of the masked scores is the attention the engine recorded, step by step
    masked = torch.from_numpy(matrices.masked_scores[0, 0])
    weights = torch.softmax(masked, dim=-1).numpy()
    for t, step in enumerate(engine.steps):
        np.testing.assert_allclose(weights[t], step.attention["alignment"][0, 0], atol=1e-5)


@pytest.mark.parametrize("score", ["dot", "scaled_dot"])
def test_dot_product_scores_are_s_dot_h(score, tmp_path):
    rnn = open_rnn(score, tmp_path)
    [item] = teacher_force_batch(rnn, [SOURCE], ["fed"])
    matrices = item.attention["alignment"]
    model = rnn.model
    src = torch.tensor([rnn.tokenizer.encode_source(SOURCE).ids])
    with torch.no_grad():
        encoded = model.encode(src, torch.zeros_like(src, dtype=torch.bool))
        state, rows = model.start_state(encoded), []
        for token in [rnn.tokenizer.bos_id, *rnn.tokenizer.encode("fed").ids]:
            rows.append(encoded.states[0] @ state[0])  # s_{i-1} · h_j for every j
            state = model.step(torch.tensor([token]), state, encoded).state
    np.testing.assert_allclose(matrices.scores[0, 0], torch.stack(rows).numpy(), atol=1e-5)
    expected_scale = 1 / math.sqrt(model.config.state_dim) if score == "scaled_dot" else 1.0
    assert matrices.scale == pytest.approx(expected_scale) and matrices.parts == {}
