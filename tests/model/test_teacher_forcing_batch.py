import numpy as np
import pytest
import torch

from model.core.batching import encode_sources
from model.probes.teacher_forcing import teacher_force, teacher_force_batch
from model.transformer.model import Interventions
from tests.factories import small_family


def unbatched_reference(fam, source, target):
    """The bare Transformer's encoder and decoder outputs for one source and target, captured."""
    tokenizer = fam.tokenizer
    src, pad = encode_sources(tokenizer, [source])
    inputs = torch.tensor([[tokenizer.bos_id, *tokenizer.encode(target).ids]])
    with torch.no_grad():
        encoded = fam.model.encode(src, pad, capture=True)
        return encoded, fam.model.decode(inputs, encoded, capture=True)


def stacked(output, attention, name):
    """[L, H, Q, K] one captured field of one attention sublayer of batch item 0, layers stacked."""
    return torch.stack([getattr(layer.attention[attention], name)[0] for layer in output.layers]).numpy()


def test_single_item_equals_the_teacher_forced_record():
    fam = small_family()
    [item] = teacher_force_batch(fam, ["sort: 4312"], ["1234"])
    record = teacher_force(fam, "sort: 4312", "1234")
    dec_self = record.attention("dec_self")
    np.testing.assert_allclose(item.attention["dec_self"].weights, dec_self.weights, atol=1e-6)
    np.testing.assert_allclose(item.attention["dec_self"].scores, dec_self.scores, atol=1e-5)
    np.testing.assert_allclose(item.attention["cross"].weights, record.attention("cross").weights, atol=1e-6)
    np.testing.assert_allclose(
        item.attention["enc_self"].weights, record.encoder.attention["enc_self"], atol=1e-6
    )
    np.testing.assert_allclose(
        item.attention["enc_self"].scores, record.encoder.scores["enc_self"], atol=1e-5
    )
    np.testing.assert_allclose(item.loss, record.loss, rtol=1e-4)
    np.testing.assert_array_equal(item.attention["dec_self"].mask, dec_self.mask)
    # teacher_force runs through teacher_force_batch, so check both against the bare
    # Transformer run unbatched (what the separate teacher-forcing path used to compute)
    encoded, out = unbatched_reference(fam, "sort: 4312", "1234")
    np.testing.assert_allclose(item.attention["dec_self"].weights, stacked(out, "self", "weights"), atol=1e-6)
    np.testing.assert_allclose(item.attention["dec_self"].scores, stacked(out, "self", "scores"), atol=1e-5)
    np.testing.assert_allclose(item.attention["cross"].weights, stacked(out, "cross", "weights"), atol=1e-6)
    np.testing.assert_allclose(
        item.attention["enc_self"].weights, stacked(encoded, "self", "weights"), atol=1e-6
    )
    np.testing.assert_allclose(item.logits, out.logits[0].numpy(), atol=1e-5)
    np.testing.assert_array_equal(item.attention["dec_self"].mask, out.layers[0].attention["self"].mask[0, 0])
    assert item.attention["dec_self"].scale == out.layers[0].attention["self"].scale
    t_len = len("1234") + 1
    np.testing.assert_array_equal(dec_self.mask, np.triu(np.ones((t_len, t_len), dtype=bool), 1))
    expected_loss = -np.log(item.probs[np.arange(t_len), item.target_ids])
    np.testing.assert_allclose(item.loss, expected_loss, rtol=1e-4)


def test_padding_is_masked_in_all_three_kinds_and_changes_nothing_real():
    fam = small_family()
    short, long = "sort: 21", "reverse: abcdefgh"
    items = teacher_force_batch(fam, [short, long], ["12", "hgfedcba"])
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
    [alone] = teacher_force_batch(fam, [short], ["12"])
    np.testing.assert_allclose(
        first.attention["cross"].weights[:, :, :real_t, :real_s], alone.attention["cross"].weights, atol=1e-5
    )


def test_no_scaling_lowers_the_entropy_of_attention():
    fam = small_family()
    [scaled] = teacher_force_batch(fam, ["reverse: abcdef"], ["fedcba"])
    [raw] = teacher_force_batch(fam, ["reverse: abcdef"], ["fedcba"], Interventions(no_scaling=True))
    assert raw.attention["enc_self"].scale == 1.0
    # the first layer's raw scores are the same numbers; only the softmax's input changes
    np.testing.assert_allclose(
        raw.attention["enc_self"].scores[0], scaled.attention["enc_self"].scores[0], atol=1e-5
    )
    assert raw.attention["enc_self"].entropy().mean() < scaled.attention["enc_self"].entropy().mean()


def test_mismatched_inputs_are_refused():
    fam = small_family()
    with pytest.raises(ValueError, match="as many targets"):
        teacher_force_batch(fam, ["a"], [])
