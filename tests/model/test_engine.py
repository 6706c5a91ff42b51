import numpy as np
import pytest
import torch

from model.core.batching import encode_sources
from model.generation.decoding import DecodingSettings
from model.generation.engine import GenerationEngine, SourceError
from model.probes.teacher_forcing import teacher_force
from model.transformer.model import NO_INTERVENTIONS, Interventions
from tests.factories import small_family


def full_recompute(fam, source, inputs, interventions=NO_INTERVENTIONS):
    model, tokenizer = fam.model, fam.tokenizer
    src, pad = encode_sources(tokenizer, [source])
    with torch.no_grad():
        encoded = model.encode(src, pad, interventions=interventions)
        return model.decode(torch.tensor([inputs]), encoded, capture=True, interventions=interventions)


@pytest.mark.parametrize("strategy", ["greedy", "sample"])
def test_cached_steps_equal_a_full_recompute_of_the_prefix(strategy):
    fam = small_family()
    tokenizer = fam.tokenizer
    engine = GenerationEngine(fam, "reverse: abcdef", DecodingSettings(strategy=strategy, seed=3))
    for _ in range(12):
        engine.step()
    inputs = [tokenizer.bos_id] + engine.output_ids
    full = full_recompute(fam, engine.source, inputs[: len(engine.steps)])
    for t, step in enumerate(engine.steps):
        np.testing.assert_allclose(step.logits, full.logits[0, t].numpy(), atol=1e-5)
        for layer, captured in enumerate(full.layers):
            self_row = captured.attention["self"].weights[0, :, t, : t + 1].numpy()
            cross_row = captured.attention["cross"].weights[0, :, t].numpy()
            np.testing.assert_allclose(step.attention["dec_self"][layer], self_row, atol=1e-5)
            np.testing.assert_allclose(step.attention["cross"][layer], cross_row, atol=1e-5)
            norms = np.array(
                [
                    [getattr(n, f)[0, t].item() for f in ("in_mean", "in_std", "out_mean", "out_std")]
                    for n in captured.norms
                ]
            )
            np.testing.assert_allclose(step.extras["norms"][layer], norms, atol=1e-5)


def test_records_have_documented_shapes_and_grow_one_row_per_step():
    fam = small_family()
    tokenizer = fam.tokenizer
    engine = GenerationEngine(fam, "sort: 31415")
    config = fam.config
    source_len = len("sort: 31415") + 1
    enc_shape = (config.n_encoder_layers, config.n_heads, source_len, source_len)
    assert set(engine.encoder.attention) == {"enc_self"}
    assert engine.encoder.attention["enc_self"].shape == enc_shape
    assert engine.encoder.scores["enc_self"].shape == enc_shape
    assert engine.encoder.extras["norms"].shape == (config.n_encoder_layers, 2, 4, source_len)
    assert engine.encoder.tokens[-1] == "<eos>"
    for t in range(5):
        step = engine.step()
        assert step.position == t
        assert set(step.attention) == {"dec_self", "cross"}
        assert step.attention["dec_self"].shape == (config.n_decoder_layers, config.n_heads, t + 1)
        assert step.attention["cross"].shape == (config.n_decoder_layers, config.n_heads, source_len)
        assert step.extras["norms"].shape == (config.n_decoder_layers, 3, 4)
        assert step.probs.shape == (len(tokenizer),)
        np.testing.assert_allclose(step.attention["dec_self"].sum(-1), 1.0, atol=1e-5)
        assert step.seconds > 0


def test_back_force_and_reset():
    fam = small_family()
    tokenizer = fam.tokenizer
    engine = GenerationEngine(fam, "reverse: abc")
    first = [engine.step() for _ in range(4)]
    assert engine.back() and len(engine.steps) == 3
    again = engine.step()
    np.testing.assert_array_equal(again.logits, first[3].logits)
    assert again.token_id == first[3].token_id
    forced_token = tokenizer.index["z"]
    forced = engine.force(forced_token)
    assert forced.forced and forced.token_id == forced_token and len(engine.steps) == 4
    np.testing.assert_array_equal(forced.logits, first[3].logits)  # same step, other choice
    after = engine.step()
    full = full_recompute(fam, engine.source, [tokenizer.bos_id] + engine.output_ids[:4])
    np.testing.assert_allclose(after.logits, full.logits[0, 4].numpy(), atol=1e-5)
    engine.back()
    engine.back()  # undo the branch: the strategy's own choice comes back
    assert engine.step().token_id == first[3].token_id
    engine.reset()
    assert engine.steps == [] and engine.cache.length == 0
    assert engine.step().token_id == first[0].token_id
    while engine.back():
        pass
    assert not engine.back()


def test_generation_stops_at_eos_and_at_the_maximum_length():
    fam = small_family()
    tokenizer = fam.tokenizer
    engine = GenerationEngine(fam, "reverse: abc")
    engine.step(force=tokenizer.eos_id)
    assert engine.finished and engine.stop_reason == "eos" and engine.step() is None
    engine.reset()
    while not engine.finished:
        token = tokenizer.index["a"]
        engine.step(force=token)
    assert engine.stop_reason == "max_length" and len(engine.steps) == fam.config.max_len


def test_bad_sources_raise_a_clear_error():
    fam = small_family()
    with pytest.raises(SourceError, match="empty"):
        GenerationEngine(fam, "")
    with pytest.raises(SourceError, match="at most"):
        GenerationEngine(fam, "a" * fam.config.max_len)
    engine = GenerationEngine(fam, "reverse: héllo☃")
    assert [c for _, c in engine.encoder.unknown] == ["é", "☃"]
    with pytest.raises(ValueError, match="outside the vocabulary"):
        engine.step(force=10_000)


def test_teacher_forcing_agrees_with_step_by_step_decoding_of_the_same_target():
    fam = small_family()
    source, target = "sort: 31415", "11345"
    record = teacher_force(fam, source, target)
    dec_self, cross = record.attention("dec_self"), record.attention("cross")
    engine = GenerationEngine(fam, source)
    for token in record.target_ids:
        engine.step(force=int(token))
    t_len = len(target) + 1
    assert dec_self.weights.shape == (fam.config.n_decoder_layers, fam.config.n_heads, t_len, t_len)
    for t, step in enumerate(engine.steps):
        np.testing.assert_allclose(record.item.logits[t], step.logits, atol=1e-5)
        np.testing.assert_allclose(dec_self.weights[:, :, t, : t + 1], step.attention["dec_self"], atol=1e-5)
        np.testing.assert_allclose(cross.weights[:, :, t], step.attention["cross"], atol=1e-5)
    # the causal mask: zero weight and −∞ masked scores exactly above the diagonal
    upper = np.triu(np.ones((t_len, t_len), dtype=bool), 1)
    np.testing.assert_array_equal(dec_self.mask, upper)
    assert (dec_self.weights[:, :, upper] == 0).all()
    assert np.isneginf(dec_self.masked_scores[:, :, upper]).all()
    assert np.isfinite(dec_self.masked_scores[:, :, ~upper]).all()
    expected_loss = -np.log(record.item.probs[np.arange(t_len), record.target_ids])
    np.testing.assert_allclose(record.loss, expected_loss, rtol=1e-4)


def test_removing_the_causal_mask_changes_only_the_decoder_self_attention_view():
    fam = small_family()
    with_mask = teacher_force(fam, "sort: 312", "123")
    without = teacher_force(fam, "sort: 312", "123", Interventions(no_causal_mask=True))
    masked, free = with_mask.attention("dec_self"), without.attention("dec_self")
    assert not free.mask.any()
    assert (free.weights[:, :, 0, 1:] > 0).all()  # position 0 now sees the future
    np.testing.assert_allclose(with_mask.encoder.attention["enc_self"], without.encoder.attention["enc_self"])
    # the last position saw everything anyway, so its self-attention row is unchanged in layer 0
    np.testing.assert_allclose(masked.weights[0, :, -1], free.weights[0, :, -1], atol=1e-6)


def test_no_scaling_changes_the_softmax_but_not_the_raw_scores():
    fam = small_family()
    base = GenerationEngine(fam, "reverse: abcd")
    unscaled = GenerationEngine(fam, "reverse: abcd", interventions=Interventions(no_scaling=True))
    np.testing.assert_allclose(
        base.encoder.scores["enc_self"][0], unscaled.encoder.scores["enc_self"][0], atol=1e-6
    )
    base_weights = base.encoder.attention["enc_self"]
    unscaled_weights = unscaled.encoder.attention["enc_self"]
    assert not np.allclose(base_weights[0], unscaled_weights[0])
    entropy = lambda w: -(w * np.log(w + 1e-12)).sum(-1).mean()  # noqa: E731
    assert entropy(unscaled_weights[0]) < entropy(base_weights[0])


def test_no_positional_encoding_makes_the_encoder_order_blind():
    fam = small_family()
    blind = Interventions(no_positional=True)
    a = GenerationEngine(fam, "sort: 12", interventions=blind).encoder.attention["enc_self"]
    b = GenerationEngine(fam, "sort: 21", interventions=blind).encoder.attention["enc_self"]
    swap = list(range(a.shape[-1]))
    swap[6], swap[7] = 7, 6  # the two digits' positions
    np.testing.assert_allclose(b, a[:, :, swap][:, :, :, swap], atol=1e-5)
    normal_a = GenerationEngine(fam, "sort: 12").encoder.attention["enc_self"]
    normal_b = GenerationEngine(fam, "sort: 21").encoder.attention["enc_self"]
    assert not np.allclose(normal_b, normal_a[:, :, swap][:, :, :, swap], atol=1e-3)


def test_zeroing_a_head_changes_later_layers_not_its_own_weights():
    fam = small_family()
    model = fam.model
    zero = Interventions(zeroed_heads=frozenset({("enc_self", 0, 1)}))
    base = GenerationEngine(fam, "reverse: abcd").encoder.attention["enc_self"]
    changed = GenerationEngine(fam, "reverse: abcd", interventions=zero).encoder.attention["enc_self"]
    np.testing.assert_allclose(base[0], changed[0], atol=1e-6)
    assert not np.allclose(base[1], changed[1])
    # zeroing a head equals zeroing its slice of the output projection's input
    with torch.no_grad():
        d_k = model.config.d_head
        model.encoder_layers[0].self_attn.out_proj.weight[:, d_k : 2 * d_k] = 0
    edited = GenerationEngine(fam, "reverse: abcd").encoder.attention["enc_self"]
    np.testing.assert_allclose(edited, changed, atol=1e-5)


def test_capture_off_records_no_attention_but_the_same_logits():
    fam = small_family()
    on = GenerationEngine(fam, "reverse: abc")
    off = GenerationEngine(fam, "reverse: abc", capture=False)
    a, b = on.step(), off.step()
    assert set(a.attention) == {"dec_self", "cross"}
    assert dict(b.attention) == {} and dict(b.extras) == {}
    np.testing.assert_allclose(a.logits, b.logits, atol=1e-5)


@pytest.mark.parametrize("kind", ["dec_self", "cross"])
def test_zeroing_a_decoder_head_changes_the_decoder_and_nothing_before_it(kind):
    fam = small_family()
    zero = Interventions(zeroed_heads=frozenset({(kind, 0, 2)}))
    base = GenerationEngine(fam, "sort: 4321")
    changed = GenerationEngine(fam, "sort: 4321", interventions=zero)
    np.testing.assert_allclose(
        base.encoder.attention["enc_self"], changed.encoder.attention["enc_self"], atol=1e-6
    )  # encoder untouched
    a, b = base.step(force=10), changed.step(force=10)
    # layer 0's own weights are computed before the zeroed head's output is dropped
    np.testing.assert_allclose(a.attention[kind][0], b.attention[kind][0], atol=1e-6)
    # the next layer sees a different input
    assert not np.allclose(a.attention["cross"][1], b.attention["cross"][1])
    assert not np.allclose(a.logits, b.logits)


def test_no_positional_and_no_scaling_act_on_the_decoder_too():
    fam = small_family()
    for what in (Interventions(no_positional=True), Interventions(no_scaling=True)):
        base = teacher_force(fam, "sort: 4321", "1234")
        changed = teacher_force(fam, "sort: 4321", "1234", what)
        assert not np.allclose(base.attention("dec_self").weights, changed.attention("dec_self").weights)
        assert not np.allclose(base.item.logits, changed.item.logits)
    blind = teacher_force(fam, "sort: 4321", "1234", Interventions(no_positional=True))
    # without positions, decoder raw scores between equal-content positions depend on content only:
    # the first layer's scores equal the dot products of the embedded tokens' projections
    assert blind.attention("dec_self").scale == pytest.approx(1 / np.sqrt(fam.config.d_head))


def test_removing_the_causal_mask_leaves_the_encoder_and_cross_keys_alone():
    fam = small_family()
    base = teacher_force(fam, "sort: 312", "123")
    free = teacher_force(fam, "sort: 312", "123", Interventions(no_causal_mask=True))
    base_self, free_self = base.attention("dec_self"), free.attention("dec_self")
    np.testing.assert_array_equal(base.encoder.attention["enc_self"], free.encoder.attention["enc_self"])
    # layer 0 raw scores are the same numbers; only which of them the mask hides differs
    np.testing.assert_allclose(base_self.scores[0], free_self.scores[0], atol=1e-6)
    upper = np.triu_indices(4, 1)
    assert np.isneginf(base_self.masked_scores[0][:, upper[0], upper[1]]).all()
    assert np.isfinite(free_self.masked_scores).all()
    # earlier positions now see the future
    assert not np.allclose(base.item.logits[:-1], free.item.logits[:-1])


def test_step_records_are_read_only():
    fam = small_family()
    step = GenerationEngine(fam, "sort: 21").step()
    with pytest.raises(ValueError):
        step.attention["cross"][0, 0, 0] = 1.0
    with pytest.raises(ValueError):
        step.probs[0] = 1.0
