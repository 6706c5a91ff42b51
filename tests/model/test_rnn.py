"""The RNN encoder-decoder (issue 14's core): checked against the equations, not against itself."""

from __future__ import annotations

import math

import pytest
import torch

from model.rnn.config import RNNConfig
from model.rnn.model import RNNSeq2Seq

VOCAB = 20


def small(score: str, seed: int = 0) -> RNNSeq2Seq:
    torch.manual_seed(seed)
    hidden = 6
    config = RNNConfig(
        vocab_size=VOCAB,
        score=score,
        embed_dim=5,
        encoder_hidden=hidden,
        decoder_hidden=2 * hidden,
        attention_dim=7,
        max_len=16,
    )
    return RNNSeq2Seq(config).eval()


def batch(rows: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(r) for r in rows)
    ids = torch.tensor([r + [0] * (width - len(r)) for r in rows])
    return ids, ids == 0


def gru_cell(x, h, cell: torch.nn.GRUCell):
    """PyTorch's GRU cell written out: gates in the order r, z, n."""
    w_ir, w_iz, w_in = cell.weight_ih.chunk(3)
    w_hr, w_hz, w_hn = cell.weight_hh.chunk(3)
    b_ir, b_iz, b_in = cell.bias_ih.chunk(3)
    b_hr, b_hz, b_hn = cell.bias_hh.chunk(3)
    r = torch.sigmoid(x @ w_ir.T + b_ir + h @ w_hr.T + b_hr)
    z = torch.sigmoid(x @ w_iz.T + b_iz + h @ w_hz.T + b_hz)
    n = torch.tanh(x @ w_in.T + b_in + r * (h @ w_hn.T + b_hn))
    return (1 - z) * n + z * h


@torch.no_grad()
def test_the_additive_attention_step_equals_bahdanaus_equations():
    model = small("additive")
    src, pad = batch([[5, 6, 7, 8, 2], [9, 10, 2]])
    encoded = model.encode(src, pad)
    state = torch.randn(2, model.config.decoder_hidden)
    token = torch.tensor([1, 11])
    out = model.step(token, state, encoded)
    h = encoded.states  # (B, S, 2H)
    W, U, v = model.query_proj.weight, model.key_proj.weight, model.score_vector.weight[0]
    for b in range(2):
        real = ~pad[b]
        # e_ij = vᵀ tanh(W s_{i-1} + U h_j + b), over the real positions only
        e = torch.stack(
            [v @ torch.tanh(W @ state[b] + U @ h[b, j] + model.key_proj.bias) for j in range(real.sum())]
        )
        alpha = torch.exp(e - e.max()) / torch.exp(e - e.max()).sum()
        context = (alpha[:, None] * h[b, : real.sum()]).sum(0)
        torch.testing.assert_close(out.scores[b, : real.sum()], e, atol=1e-5, rtol=0)
        torch.testing.assert_close(out.weights[b, : real.sum()], alpha, atol=1e-5, rtol=0)
        assert float(out.weights[b, real.sum() :].abs().sum()) == 0.0  # padding gets nothing
        torch.testing.assert_close(out.context[b], context, atol=1e-5, rtol=0)
        x = torch.cat([model.embedding.weight[token[b]], context])
        s_new = gru_cell(x[None], state[b][None], model.decoder)[0]
        torch.testing.assert_close(out.state[b], s_new, atol=1e-5, rtol=0)
        logits = (
            model.output.weight @ torch.cat([s_new, context, model.embedding.weight[token[b]]])
            + model.output.bias
        )
        torch.testing.assert_close(out.logits[b], logits, atol=1e-5, rtol=0)


@torch.no_grad()
@pytest.mark.parametrize("score", ["dot", "scaled_dot"])
def test_dot_scores_are_the_plain_dot_product_and_its_scaled_form(score):
    model = small(score)
    src, pad = batch([[5, 6, 7, 2]])
    encoded = model.encode(src, pad)
    state = torch.randn(1, model.config.decoder_hidden)
    out = model.step(torch.tensor([1]), state, encoded)
    expected = encoded.states[0] @ state[0]
    if score == "scaled_dot":
        expected = expected / math.sqrt(model.config.state_dim)
    torch.testing.assert_close(out.scores[0], expected, atol=1e-5, rtol=0)


@torch.no_grad()
def test_the_no_attention_model_reads_the_same_fixed_summary_at_every_step():
    model = small("none")
    src, pad = batch([[5, 6, 7, 8, 2]])
    encoded = model.encode(src, pad)
    state = model.start_state(encoded)
    for token in (1, 7, 6):
        out = model.step(torch.tensor([token]), state, encoded)
        assert out.weights is None and out.scores is None
        torch.testing.assert_close(out.context, encoded.summary)
        state = out.state
    # the summary is the forward direction's last state and the backward direction's first
    H = model.config.encoder_hidden
    torch.testing.assert_close(encoded.summary[0, :H], encoded.states[0, -1, :H])
    torch.testing.assert_close(encoded.summary[0, H:], encoded.states[0, 0, H:])


@torch.no_grad()
@pytest.mark.parametrize("score", ["none", "additive", "dot", "scaled_dot"])
def test_padding_changes_nothing_and_stepping_equals_the_teacher_forced_run(score):
    model = small(score, seed=1)
    short, long = [5, 6, 2], [7, 8, 9, 10, 11, 2]
    alone = model.encode(*batch([short]))
    both = model.encode(*batch([short, long]))
    torch.testing.assert_close(both.states[0, :3], alone.states[0], atol=1e-6, rtol=0)
    torch.testing.assert_close(both.summary[0], alone.summary[0], atol=1e-6, rtol=0)
    assert float(both.states[0, 3:].abs().sum()) == 0.0
    targets = [[1, 6, 5], [1, 11, 10, 9, 8]]
    tgt_in, _ = batch(targets)
    logits, weights, _scores = model.teacher_force(both, tgt_in)
    for row, target in enumerate(targets):
        single = model.encode(*batch([[short, long][row]]))
        state = model.start_state(single)
        for position, token in enumerate(target):
            out = model.step(torch.tensor([token]), state, single)
            torch.testing.assert_close(logits[row, position], out.logits[0], atol=1e-5, rtol=0)
            if weights is not None:
                length = single.states.shape[1]
                torch.testing.assert_close(weights[row, position, :length], out.weights[0], atol=1e-5, rtol=0)
                torch.testing.assert_close(weights[row, position].sum(), torch.tensor(1.0), atol=1e-5, rtol=0)
            state = out.state


def test_a_few_training_steps_lower_the_loss_on_reversal():
    model = small("additive", seed=2).train()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-2)
    generator = torch.Generator().manual_seed(0)
    sources = torch.randint(4, VOCAB, (32, 6), generator=generator)
    src = torch.cat([sources, torch.full((32, 1), 2)], dim=1)  # + <eos>
    targets = torch.cat([sources.flip(1), torch.full((32, 1), 2)], dim=1)
    tgt_in = torch.cat([torch.full((32, 1), 1), targets[:, :-1]], dim=1)  # <bos> + target
    losses = []
    for _ in range(40):
        logits = model(src, tgt_in, src == 0)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"score": "cosine"}, "score must be one of"),
        ({"score": "dot", "decoder_hidden": 100}, "need decoder_hidden"),
        ({"embed_dim": 0}, "embed_dim=0 is outside"),
        ({"vocab_size": True}, "vocab_size must be an integer"),
    ],
)
def test_a_config_that_cannot_build_a_model_says_why(overrides, message):
    with pytest.raises(ValueError, match=message):
        RNNConfig(**{"vocab_size": VOCAB, **overrides})
