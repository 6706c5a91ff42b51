import numpy as np
import pytest

from model.probes.attention_batch import capture_padded_batch
from model.probes.teacher_forcing import teacher_force
from model.transformer.model import Interventions
from tests.factories import small_model


def test_single_item_equals_the_teacher_forced_record():
    model, tokenizer = small_model()
    [item] = capture_padded_batch(model, tokenizer, ["sort: 4312"], ["1234"])
    record = teacher_force(model, tokenizer, "sort: 4312", "1234")
    np.testing.assert_allclose(item.attention["dec_self"].weights, record.dec_self, atol=1e-6)
    np.testing.assert_allclose(item.attention["dec_self"].scores, record.dec_self_scores, atol=1e-5)
    np.testing.assert_allclose(item.attention["cross"].weights, record.cross, atol=1e-6)
    np.testing.assert_allclose(item.attention["enc_self"].weights, record.encoder.self_attn, atol=1e-6)
    np.testing.assert_allclose(item.loss, record.loss, rtol=1e-4)
    np.testing.assert_array_equal(item.attention["dec_self"].mask, record.dec_self_mask)


def test_padding_is_masked_in_all_three_kinds_and_changes_nothing_real():
    model, tokenizer = small_model()
    short, long = "sort: 21", "reverse: abcdefgh"
    items = capture_padded_batch(model, tokenizer, [short, long], ["12", "hgfedcba"])
    first = items[0]
    S, T = len(first.source_padding), len(first.target_padding)
    assert first.attention["dec_self"].mask.shape == (T, T)
    real_s = len(short) + 1  # characters + <eos>
    assert first.source_padding[real_s:].all() and not first.source_padding[:real_s].any()
    enc, dec, cross = (first.attention[k] for k in ("enc_self", "dec_self", "cross"))
    assert enc.mask.shape == (S, S) and enc.mask[:, real_s:].all() and not enc.mask[:, :real_s].any()
    assert cross.mask[:, real_s:].all()
    real_t = 3  # <bos> 1 2
    assert dec.mask[:, real_t:].all()  # target padding keys, on top of the causal mask
    assert np.isneginf(enc.masked_scores[:, :, :, real_s:]).all()
    assert (enc.weights[:, :, :, real_s:] == 0).all()
    assert np.isnan(first.loss[real_t:]).all() and np.isfinite(first.loss[:real_t]).all()
    [alone] = capture_padded_batch(model, tokenizer, [short], ["12"])
    np.testing.assert_allclose(
        first.attention["cross"].weights[:, :, :real_t, :real_s], alone.attention["cross"].weights, atol=1e-5
    )


def test_no_scaling_lowers_the_entropy_of_attention():
    model, tokenizer = small_model()
    [scaled] = capture_padded_batch(model, tokenizer, ["reverse: abcdef"], ["fedcba"])
    [raw] = capture_padded_batch(
        model, tokenizer, ["reverse: abcdef"], ["fedcba"], Interventions(no_scaling=True)
    )
    assert raw.attention["enc_self"].scale == 1.0
    # the first layer's raw scores are the same numbers; only the softmax's input changes
    np.testing.assert_allclose(
        raw.attention["enc_self"].scores[0], scaled.attention["enc_self"].scores[0], atol=1e-5
    )
    assert raw.attention["enc_self"].entropy().mean() < scaled.attention["enc_self"].entropy().mean()


def test_mismatched_inputs_are_refused():
    model, tokenizer = small_model()
    with pytest.raises(ValueError, match="as many targets"):
        capture_padded_batch(model, tokenizer, ["a"], [])
