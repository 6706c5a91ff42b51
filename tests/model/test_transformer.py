import math

import pytest
import torch

from model.core.batching import encode_sources
from model.transformer.model import (
    Interventions,
    MultiHeadAttention,
    Transformer,
    TransformerConfig,
    causal_mask,
    sinusoidal_encoding,
)
from tests.factories import small_model


def test_attention_layer_equals_torch_multihead_attention():
    torch.manual_seed(0)
    d_model, heads = 16, 4
    ours = MultiHeadAttention(d_model, heads, dropout=0.0).eval()
    reference = torch.nn.MultiheadAttention(d_model, heads, batch_first=True).eval()
    with torch.no_grad():
        reference.in_proj_weight.copy_(
            torch.cat([ours.q_proj.weight, ours.k_proj.weight, ours.v_proj.weight])
        )
        reference.in_proj_bias.copy_(torch.cat([ours.q_proj.bias, ours.k_proj.bias, ours.v_proj.bias]))
        reference.out_proj.weight.copy_(ours.out_proj.weight)
        reference.out_proj.bias.copy_(ours.out_proj.bias)
    query, memory = torch.randn(2, 5, d_model), torch.randn(2, 7, d_model)
    padding = torch.zeros(2, 7, dtype=torch.bool)
    padding[1, 5:] = True
    with torch.no_grad():
        k, v = ours.project_kv(memory)
        out, captured = ours(query, k, v, padding[:, None, None, :], capture=True)
        expected, expected_weights = reference(query, memory, memory, key_padding_mask=padding)
    torch.testing.assert_close(out, expected, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(captured.weights.mean(1), expected_weights, atol=1e-6, rtol=1e-5)


def test_capture_path_equals_fused_path_for_whole_model():
    model, tokenizer = small_model()
    src, src_pad = encode_sources(tokenizer, ["reverse: abc", "date: 29 November 2026"])
    tgt = torch.tensor([[1, 10, 11, 12, 0, 0], [1, 20, 21, 22, 23, 24]])
    tgt_pad = tgt == 0
    tgt_pad[:, 0] = False
    with torch.no_grad():
        fast = model(src, tgt, src_pad, tgt_pad)
        encoded = model.encode(src, src_pad, capture=True)
        slow = model.decode(tgt, encoded, tgt_pad_mask=tgt_pad, capture=True)
    torch.testing.assert_close(slow.logits, fast, atol=1e-5, rtol=1e-5)
    assert slow.layers is not None and len(slow.layers) == model.config.n_decoder_layers


def test_captured_scores_scaling_mask_and_weights_are_consistent():
    model, tokenizer = small_model()
    src, src_pad = encode_sources(tokenizer, ["sort: 314", "reverse: attention"])
    with torch.no_grad():
        encoded = model.encode(src, src_pad, capture=True)
    attention = encoded.layers[0].attention["self"]
    d_k = model.config.d_head
    assert attention.scale == pytest.approx(1 / math.sqrt(d_k))
    torch.testing.assert_close(attention.scaled_scores, attention.scores / math.sqrt(d_k))
    masked = attention.masked_scores
    # padding keys of the shorter source are blocked, and only they
    assert torch.equal(attention.mask[0, 0, 0], src_pad[0])
    assert torch.isneginf(masked[0][:, :, src_pad[0]]).all()
    assert torch.isfinite(masked[1]).all()
    assert (attention.weights[0][:, :, src_pad[0]] == 0).all()
    torch.testing.assert_close(attention.weights.sum(-1), torch.ones_like(attention.weights.sum(-1)))
    torch.testing.assert_close(attention.weights, torch.softmax(masked, -1))


def test_padding_in_a_batch_changes_nothing_for_the_shorter_source():
    model, tokenizer = small_model()
    sources = ["sort: 31", "reverse: a much longer source"]
    tgt = torch.tensor([[1, 10, 11]])
    with torch.no_grad():
        src, pad = encode_sources(tokenizer, sources)
        batched = model.decode(tgt.repeat(2, 1), model.encode(src, pad)).logits[0]
        src1, pad1 = encode_sources(tokenizer, sources[:1])
        alone = model.decode(tgt, model.encode(src1, pad1)).logits[0]
    torch.testing.assert_close(batched, alone, atol=1e-5, rtol=1e-5)


def test_target_padding_is_hidden_from_decoder_self_attention():
    model, tokenizer = small_model()
    src, pad = encode_sources(tokenizer, ["reverse: ab", "reverse: ab"])
    tgt = torch.tensor([[1, 10, 11, 0], [1, 10, 11, 12]])
    tgt_pad = torch.tensor([[False, False, False, True], [False] * 4])
    with torch.no_grad():
        out = model.decode(tgt, model.encode(src, pad), tgt_pad_mask=tgt_pad, capture=True)
    mask = out.layers[0].attention["self"].mask
    assert mask.shape == (2, 1, 4, 4)
    assert mask[0, 0, :, 3].all() and not mask[1, 0, 3, 3]
    torch.testing.assert_close(out.logits[0, :3], out.logits[1, :3], atol=1e-5, rtol=1e-5)


def test_causal_mask_hides_exactly_the_future():
    mask = causal_mask(4, 4)
    assert mask.tolist() == [[j > i for j in range(4)] for i in range(4)]
    assert not causal_mask(1, 5).any()  # one new query with a cache sees every key


def test_decoder_output_does_not_depend_on_later_tokens():
    model, tokenizer = small_model()
    src, pad = encode_sources(tokenizer, ["reverse: abc"])
    encoded = model.encode(src, pad)
    a = model.decode(torch.tensor([[1, 10, 11, 12]]), encoded).logits
    b = model.decode(torch.tensor([[1, 10, 11, 30]]), encoded).logits
    torch.testing.assert_close(a[:, :3], b[:, :3])
    assert not torch.allclose(a[:, 3], b[:, 3])


def test_sinusoidal_encoding_matches_the_paper_formula():
    pe = sinusoidal_encoding(50, 16)
    pos, i = 7, 3
    angle = pos / 10000 ** (2 * i / 16)
    assert pe[pos, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-6)
    assert pe[pos, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-6)


def test_norm_statistics_are_those_of_the_layernorm_input_and_output():
    model, tokenizer = small_model()
    src, pad = encode_sources(tokenizer, ["sort: 271828"])
    with torch.no_grad():
        encoded = model.encode(src, pad, capture=True)
    norm = encoded.layers[-1].norms[-1]
    # post-LN: the last Add & Norm's output is the encoder output
    torch.testing.assert_close(norm.out_mean, encoded.memory.mean(-1))
    torch.testing.assert_close(norm.out_std, encoded.memory.std(-1, unbiased=False))
    assert not torch.allclose(norm.in_std, norm.out_std)


@pytest.mark.parametrize(
    "placement,positional", [("pre", "learned"), ("post", "none"), ("pre", "sinusoidal")]
)
def test_other_variants_run_and_keep_both_paths_equal(placement, positional):
    model, tokenizer = small_model(norm_placement=placement, positional=positional)
    src, pad = encode_sources(tokenizer, ["reverse: abc"])
    tgt = torch.tensor([[1, 10, 11]])
    with torch.no_grad():
        fast = model(src, tgt, pad, tgt == 0)
        slow = model.decode(tgt, model.encode(src, pad, capture=True), capture=True)
    torch.testing.assert_close(slow.logits, fast, atol=1e-5, rtol=1e-5)
    if placement == "pre":
        assert slow.final_norm is not None


@pytest.mark.parametrize(
    "overrides,message",
    [
        ({"d_model": 30, "n_heads": 4}, "does not divide"),
        ({"n_encoder_layers": 0}, "n_encoder_layers"),
        ({"d_model": 10**9}, "d_model"),
        ({"dropout": 1.5}, "dropout"),
        ({"norm_placement": "middle"}, "norm_placement"),
        ({"positional": "rotary"}, "positional"),
    ],
)
def test_bad_configs_are_refused_with_a_reason(overrides, message):
    with pytest.raises(ValueError, match=message):
        TransformerConfig(vocab_size=50, **overrides)


def test_config_round_trips_through_dict_and_rejects_unknown_fields():
    config = TransformerConfig(vocab_size=50, d_model=32, n_heads=2)
    assert TransformerConfig.from_dict(config.to_dict()) == config
    with pytest.raises(ValueError, match="unknown field"):
        TransformerConfig.from_dict({**config.to_dict(), "evil": 1})


def test_interventions_default_changes_nothing():
    assert not Interventions().active
    assert Interventions(no_scaling=True).active


def test_model_has_no_module_state_after_capture():
    model, tokenizer = small_model()
    src, pad = encode_sources(tokenizer, ["sort: 1"])
    before = {name for name, _ in model.named_buffers()} | set(vars(model))
    model.encode(src, pad, capture=True)
    assert {name for name, _ in model.named_buffers()} | set(vars(model)) == before
    assert isinstance(model, Transformer)


@pytest.mark.parametrize(
    "overrides",
    [{}, {"tie_embeddings": False}, {"positional": "learned", "norm_placement": "pre"}, {"n_heads": 1}],
)
def test_parameter_count_formula_matches_the_real_model(overrides):
    settings = {"vocab_size": 37, "d_model": 16, "n_heads": 4, "d_ff": 24, "max_len": 20, **overrides}
    config = TransformerConfig(**settings)
    model = Transformer(config)
    assert config.parameter_count() == sum(p.numel() for p in model.parameters())
