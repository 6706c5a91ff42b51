"""Hugging Face encoder-decoders through the model-family interface, on tiny random models of
every supported architecture built here (tests/hf_factories.py): stepping equals the library's
``generate``, the recorded attention is the library's, and the interface's promises hold."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
import torch

from model.core.batching import encode_sources
from model.generation.decoding import DecodingSettings
from model.generation.engine import GenerationEngine
from model.hf.loading import open_hf
from model.interface import Interventions
from model.probes.teacher_forcing import teacher_force, teacher_force_batch
from model.registry import open_model
from tests.hf_factories import KINDS, transformers, write_hf_model  # skips without the [hf] extra
from visualizer.cli.attnviz import main

SOURCES = ("the cat sat on the mat", "où est la gare ?", "a")


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("hf")
    return {kind: write_hf_model(kind, root / kind) for kind in KINDS}


@pytest.fixture(scope="module")
def families(folders):
    return {kind: open_hf(folder, "cpu") for kind, folder in folders.items()}


LIBRARY_MODELS: dict = {}


def library_model(folder):
    """The same folder opened by the library alone, with its own eager attention (once per
    folder: the tests only read it, except the one that hooks it, which opens its own)."""
    if folder not in LIBRARY_MODELS:
        LIBRARY_MODELS[folder] = transformers.AutoModelForSeq2SeqLM.from_pretrained(
            folder, attn_implementation="eager"
        ).eval()
    return LIBRARY_MODELS[folder]


@pytest.mark.parametrize("kind", KINDS)
def test_greedy_stepping_writes_what_generate_writes(kind, folders, families):
    family, reference = families[kind], library_model(folders[kind])
    for source in SOURCES:
        engine = GenerationEngine(family, source)
        engine.run_to_end()
        inputs = family.tokenizer.hf(source, return_tensors="pt")
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the library's advice on max_length, for the default it uses
            generated = reference.generate(**inputs, do_sample=False, num_beams=1)[0].tolist()
        assert generated[0] == family.tokenizer.bos_id
        expected = generated[1:]
        while (
            expected
            and expected[-1] == family.tokenizer.pad_id
            and family.tokenizer.pad_id != family.tokenizer.eos_id
        ):
            expected.pop()
        assert engine.output_ids == expected, (kind, source)


@pytest.mark.parametrize("kind", KINDS)
def test_recorded_attention_is_the_librarys_eager_attention(kind, folders, families):
    """Each step's rows equal the library's output_attentions of a full pass over the same tokens,
    and the encoder's equal its encoder attentions."""
    family, reference = families[kind], library_model(folders[kind])
    engine = GenerationEngine(family, SOURCES[0])
    for _ in range(5):
        engine.step()
    inputs = family.tokenizer.hf(SOURCES[0], return_tensors="pt")
    decoder_ids = torch.tensor([[family.tokenizer.bos_id, *engine.output_ids[:-1]]])
    with torch.no_grad():
        out = reference(**inputs, decoder_input_ids=decoder_ids, output_attentions=True)
    encoder = np.stack([a[0].numpy() for a in out.encoder_attentions])  # (L, H, S, S)
    np.testing.assert_allclose(engine.encoder.attention["enc_self"], encoder, atol=1e-6)
    for t, record in enumerate(engine.steps):
        cross = np.stack([a[0, :, t].numpy() for a in out.cross_attentions])  # (L, H, S)
        own = np.stack([a[0, :, t, : t + 1].numpy() for a in out.decoder_attentions])  # (L, H, t+1)
        np.testing.assert_allclose(record.attention["cross"], cross, atol=1e-6)
        np.testing.assert_allclose(record.attention["dec_self"], own, atol=1e-6)
        np.testing.assert_allclose(record.attention["cross"].sum(-1), 1, atol=1e-5)
    # the scores (T5's with its position bias): their softmax, scaled, is the attention
    scores = torch.tensor(engine.encoder.scores["enc_self"]) * family.scale
    np.testing.assert_allclose(
        torch.softmax(scores, -1).numpy(), engine.encoder.attention["enc_self"], atol=1e-5
    )


@pytest.mark.parametrize("kind", KINDS)
def test_teacher_forcing_gives_the_librarys_logits(kind, folders, families):
    family, reference = families[kind], library_model(folders[kind])
    item = teacher_force(family, SOURCES[0], "the dog").item
    inputs = family.tokenizer.hf(SOURCES[0], return_tensors="pt")
    target = family.tokenizer.encode("the dog").ids
    decoder_ids = torch.tensor([[family.tokenizer.bos_id, *target]])
    with torch.no_grad():
        logits = reference(**inputs, decoder_input_ids=decoder_ids).logits[0]
    np.testing.assert_allclose(item.logits, logits.numpy(), atol=1e-5)
    for kind in ("dec_self", "cross"):
        matrices = item.attention[kind]
        masked = torch.tensor(matrices.masked_scores)
        np.testing.assert_allclose(torch.softmax(masked, -1).numpy(), matrices.weights, atol=1e-5)


def test_back_force_and_reset_return_the_same_steps(families):
    family = families["bart"]
    engine = GenerationEngine(family, SOURCES[0])
    first = [engine.step() for _ in range(4)]
    engine.back()
    engine.back()
    again = [engine.step() for _ in range(2)]
    for old, new in zip(first[2:], again, strict=True):
        assert old.token_id == new.token_id
        np.testing.assert_allclose(old.probs, new.probs, atol=1e-6)
        np.testing.assert_allclose(old.attention["dec_self"], new.attention["dec_self"], atol=1e-6)
    forced = engine.force(7)
    assert forced.token_id == 7 and forced.forced
    follow = engine.step()
    assert follow.input_id == 7
    engine.reset()
    assert engine.step().token_id == first[0].token_id


def test_beam_rows_are_the_single_steps(families):
    """step_batch's log-probabilities for each hypothesis are stepping that hypothesis alone:
    the same distribution once renormalised (the beam, as the library's, bans tokens from the
    log-probabilities without renormalising; a step bans them from the logits)."""
    family = families["marian"]
    engine = GenerationEngine(family, SOURCES[0])
    encoded, start = engine.encoded, family.start(engine.encoded)
    bos = family.tokenizer.bos_id
    logprobs, cache = family.step_batch([0], [bos], encoded, start, Interventions())
    logprobs2, _ = family.step_batch([0, 0], [5, 9], encoded, cache, Interventions())
    for row, token in enumerate((5, 9)):
        alone = family.step(bos, encoded, start, Interventions(), False)
        second = family.step(token, encoded, alone.cache, Interventions(), False)
        np.testing.assert_allclose(
            torch.log_softmax(logprobs2[row], -1).numpy(),
            torch.log_softmax(second.logits, -1).numpy(),
            atol=1e-5,
        )
        assert logprobs2[row][family.tokenizer.pad_id] == float("-inf")  # Marian's banned pad token
    renormalised = torch.log_softmax(logprobs[0], -1)
    np.testing.assert_allclose(renormalised.numpy(), torch.log_softmax(alone.logits, -1).numpy(), atol=1e-5)
    beam = GenerationEngine(family, SOURCES[0], DecodingSettings(strategy="beam", beam_width=3))
    beam.run_to_end()
    assert beam.beam is not None and beam.output_ids[-1] == family.tokenizer.eos_id


def test_the_settings_force_the_target_language_and_the_picker_changes_it(folders):
    family = open_hf(folders["nllb"], "cpu")  # its own: the languages stay set on it
    family.set_languages(source="fra_Latn", target="deu_Latn")
    engine = GenerationEngine(family, "le chat")
    engine.step()
    forced = family.tokenizer.hf.convert_tokens_to_ids("deu_Latn")
    assert engine.steps[0].token_id == forced
    assert engine.steps[0].probs[forced] == pytest.approx(1.0)
    assert engine.encoder.tokens[0] == "fra_Latn"
    assert family.tokenizer.encode("chat").ids[0] == forced  # teacher forcing reads it too
    with pytest.raises(ValueError, match="unknown language code"):
        family.set_languages(target="xx_YY")
    assert "deu_Latn" in family.info.config["languages"]


def test_mbart_reads_its_settings_forced_language(families):
    family = families["mbart"]
    assert family.target_language == "fr_XX"
    engine = GenerationEngine(family, SOURCES[0])
    assert family.tokenizer.token_text(engine.step().token_id) == "fr_XX"


def test_zeroing_a_head_equals_zeroing_its_slice_of_the_output_projection(folders, families):
    family = families["marian"]
    reference = transformers.AutoModelForSeq2SeqLM.from_pretrained(
        folders["marian"], attn_implementation="eager"
    )
    reference.eval()  # its own: a hook is registered on it below
    zeroed = Interventions(zeroed_heads=frozenset({("cross", 1, 2)}))
    engine = GenerationEngine(family, SOURCES[0], interventions=zeroed)
    engine.step()
    plain = GenerationEngine(family, SOURCES[0])
    plain.step()
    assert not np.allclose(engine.steps[0].logits, plain.steps[0].logits)
    head_dim = reference.config.d_model // reference.config.decoder_attention_heads
    out_proj = reference.model.decoder.layers[1].encoder_attn.out_proj

    def zero_head(_module, args):
        (hidden,) = args
        hidden = hidden.clone()
        hidden[..., 2 * head_dim : 3 * head_dim] = 0
        return (hidden,)

    out_proj.register_forward_pre_hook(zero_head)
    inputs = family.tokenizer.hf(SOURCES[0], return_tensors="pt")
    with torch.no_grad():
        logits = reference(**inputs, decoder_input_ids=torch.tensor([[family.tokenizer.bos_id]])).logits[
            0, -1
        ]
    expected = family.rules.apply([family.tokenizer.bos_id], logits)
    np.testing.assert_allclose(engine.steps[0].logits, expected.numpy(), atol=1e-5)


def test_labels_show_word_starts_and_decoded_bytes(families):
    tokenizer = families["bart"].tokenizer
    ids = tokenizer.encode_source("der hund läuft").ids
    labels = [tokenizer.token_text(i) for i in ids]
    assert "".join(labels[1:-1]).replace("▁", " ").strip() == "der hund läuft"
    assert any(label.startswith("▁") for label in labels)
    assert not any("Ġ" in label or "Ã" in label for label in labels)
    sentencepiece = families["t5"].tokenizer
    assert sentencepiece.token_text(sentencepiece.encode_source("the cat").ids[0]).startswith("▁")
    assert sentencepiece.token_text(sentencepiece.vocab_size - 1).startswith("<unused")


def test_the_registry_opens_a_folder(folders):
    family = open_model(folders["t5"], "cpu")
    assert family.info.family == "huggingface"
    assert family.info.capabilities.positional == "relative_bias"
    assert family.info.capabilities.norm == "rmsnorm"
    assert not family.info.capabilities.scaling


def test_positional_tables_are_read_from_the_weights(families):
    marian = families["marian"]
    table = marian.positional_table()
    np.testing.assert_array_equal(
        table.numpy(), marian.model.model.encoder.embed_positions.weight[: len(table)].detach().numpy()
    )
    bart = families["bart"].positional_table()
    np.testing.assert_array_equal(
        bart.numpy(), families["bart"].model.model.encoder.embed_positions.weight[2:].detach().numpy()
    )
    assert families["t5"].positional_table() is None


def test_trace_of_a_folder_holds_the_documented_arrays(folders, families, tmp_path, capsys):
    out = tmp_path / "trace.npz"
    argv = ["trace", "--checkpoint", str(folders["nllb"]), "--text", SOURCES[0], "--out", str(out)]
    assert main([*argv, "--tgt-lang", "fra_Latn"]) == 0
    arrays = np.load(out)
    summary = json.loads(out.with_suffix(".json").read_text())
    steps = len(arrays["out_ids"])
    source_ids = families["nllb"].tokenizer.hf(SOURCES[0])["input_ids"]
    np.testing.assert_array_equal(arrays["src_ids"], source_ids)
    assert arrays["enc_self"].shape == (2, 2, len(source_ids), len(source_ids))
    assert arrays["cross"].shape == (3, 4, steps, len(source_ids))
    assert arrays["dec_self"].shape == (3, 4, steps, steps)
    assert arrays["probs"].shape == (steps, families["nllb"].tokenizer.vocab_size)
    assert arrays["out_ids"][0] == families["nllb"].tokenizer.hf.convert_tokens_to_ids("fra_Latn")
    assert summary["family"] == "huggingface" and summary["target_language"] == "fra_Latn"
    assert summary["source_tokens"][0] == "eng_Latn"
    capsys.readouterr()
    assert (
        main(
            [
                "trace",
                "--checkpoint",
                str(folders["marian"]),
                "--text",
                "x",
                "--out",
                str(out),
                "--overwrite",
                "--tgt-lang",
                "de",
            ]
        )
        == 2
    )
    assert "no language codes" in capsys.readouterr().err


def test_sinusoid_pairs_are_read_as_the_model_stores_them(families):
    """Marian stores all sines, then all cosines: pair i is dims i and i + d/2, and its
    wavelength, measured from the table, is the one Marian's formula gives."""
    from model.probes.position_runs import positional_table
    from model.probes.positions import EncodingTable

    marian = families["marian"]
    table = EncodingTable("sinusoidal", positional_table(marian), marian.positional_layout())
    width = table.table.shape[1]
    pair = 3
    assert table.pair_dims(pair) == (pair, pair + width // 2)
    position = np.arange(len(table.table))
    angle = position / 10000 ** (2 * pair / width)
    np.testing.assert_allclose(table.table[:, pair], np.sin(angle), atol=1e-5)
    np.testing.assert_allclose(table.table[:, pair + width // 2], np.cos(angle), atol=1e-5)
    assert table.measured_wavelength(pair) == pytest.approx(2 * np.pi * 10000 ** (2 * pair / width), rel=1e-3)
    assert families["bart"].positional_layout() == "interleaved"


def test_the_masks_page_teacher_forces_exactly_the_generated_tokens(families):
    """Re-encoding the decoded text would split it differently (random pieces here); the page
    reads the generated ids themselves."""
    from model.probes.teacher_forcing import teacher_force_batch
    from visualizer.panels.masks import generated_target

    family = families["nllb"]
    engine = GenerationEngine(family, SOURCES[0])
    for _ in range(6):
        engine.step()
    snapshot = engine.snapshot()
    target = generated_target(snapshot, 5)
    assert target == tuple(engine.output_ids[:6])
    [item] = teacher_force_batch(family, [SOURCES[0]], [target])
    np.testing.assert_array_equal(item.input_ids[1:7], engine.output_ids[:6])
    for t, step in enumerate(engine.steps):  # the same rows as stepping computed
        np.testing.assert_allclose(
            item.attention["cross"].weights[:, :, t], step.attention["cross"], atol=1e-5
        )


def t5_bucket(distance: int, bidirectional: bool, buckets: int, max_distance: int) -> int:
    """T5's bucketing, written out from the paper's description (Raffel et al. 2020, §2.1)."""
    offset = 0
    if bidirectional:
        buckets //= 2
        offset = buckets if distance > 0 else 0
        distance = abs(distance)
    else:
        distance = max(-distance, 0)
    exact = buckets // 2
    if distance < exact:
        return offset + distance
    logarithmic = exact + int(math.log(distance / exact) / math.log(max_distance / exact) * (buckets - exact))
    return offset + min(logarithmic, buckets - 1)


def test_t5_relative_bias_is_read_from_the_model(families):
    from model.probes.relative_bias import relative_bias

    t5 = families["t5"]
    found = relative_bias(t5, ["▁the", "▁cat", "</s>"])
    config = t5.model.config
    assert (found.num_buckets, found.max_distance) == (8, 16)
    for curve, stack, bidirectional in (
        (found.encoder, t5.model.encoder, True),
        (found.decoder, t5.model.decoder, False),
    ):
        table = (
            stack.block[0].layer[0].SelfAttention.relative_attention_bias.weight.detach().numpy()
        )  # (buckets, H)
        expected = [t5_bucket(int(d), bidirectional, 8, 16) for d in curve.distance]
        np.testing.assert_array_equal(curve.bucket, expected)
        np.testing.assert_array_equal(curve.bias, table[expected].T)
        assert curve.bias.shape == (config.num_heads, len(curve.distance))
    assert (
        found.decoder.distance.max() == 0 and found.encoder.distance.min() < 0 < found.encoder.distance.max()
    )
    # the matrix: entry (q, k) is the bias of distance k − q
    matrix = found.source_matrix
    for q in range(3):
        for k in range(3):
            index = list(found.encoder.distance).index(k - q)
            np.testing.assert_allclose(matrix[:, q, k], found.encoder.bias[:, index], atol=1e-6)
    with pytest.raises(NotImplementedError):
        families["marian"].relative_bias_settings()


@pytest.mark.parametrize("kind", KINDS)
def test_the_teacher_forced_trace_is_the_librarys_forward_pass(kind, folders, families):
    """Every layer, head and kind of a teacher-forced trace equals the library's own eager
    forward pass with output_attentions=True."""
    from model.generation.trace import teacher_forced_arrays

    family, reference = families[kind], library_model(folders[kind])
    record = teacher_force(family, SOURCES[1], "the dog sat")
    arrays = teacher_forced_arrays(record)
    inputs = family.tokenizer.hf(SOURCES[1], return_tensors="pt")
    decoder_ids = torch.tensor([[family.tokenizer.bos_id, *family.tokenizer.encode("the dog sat").ids]])
    with torch.no_grad():
        out = reference(**inputs, decoder_input_ids=decoder_ids, output_attentions=True)
    expected = {
        "enc_self": np.stack([a[0].numpy() for a in out.encoder_attentions]),
        "dec_self": np.stack([a[0].numpy() for a in out.decoder_attentions]),
        "cross": np.stack([a[0].numpy() for a in out.cross_attentions]),
    }
    for name, value in expected.items():
        got = np.nan_to_num(arrays[name], nan=0.0)  # masked entries: NaN in the trace, 0 in the library's
        np.testing.assert_allclose(got, value, atol=1e-5, err_msg=name)


def test_removing_the_causal_mask_lets_the_decoder_see_the_future(families):
    family = families["bart"]
    target = "the dog sat on"
    normal = teacher_force(family, SOURCES[0], target).item.attention["dec_self"]
    unmasked = teacher_force(family, SOURCES[0], target, Interventions(no_causal_mask=True)).item.attention[
        "dec_self"
    ]
    assert not unmasked.mask.any() and normal.mask[0, 1:].all()
    last = normal.weights.shape[2] - 1  # the last row sees every position either way
    np.testing.assert_allclose(unmasked.weights[0, :, last], normal.weights[0, :, last], atol=1e-6)
    assert (unmasked.weights[0, :, 0, 1:] > 0).all()  # the first position now reads the future
    np.testing.assert_allclose(unmasked.weights.sum(-1), 1, atol=1e-5)
    assert "no_causal_mask" in family.info.capabilities.what_ifs


@pytest.mark.parametrize("kind", KINDS)
def test_the_beam_trees_best_is_what_generate_writes_with_the_same_beams(kind, folders, families):
    """Without a length penalty (scores are summed log-probabilities in both) and stopping once
    the beam's hypotheses have finished."""
    family, reference = families[kind], library_model(folders[kind])
    for source in SOURCES[:2]:
        engine = GenerationEngine(family, source, DecodingSettings(strategy="beam", beam_width=3))
        engine.run_to_end()
        inputs = family.tokenizer.hf(source, return_tensors="pt")
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            generated = reference.generate(
                **inputs, do_sample=False, num_beams=3, length_penalty=0.0, early_stopping=True
            )[0].tolist()
        expected = [t for t in generated[1:] if t != family.tokenizer.pad_id or t == family.tokenizer.eos_id]
        assert engine.output_ids == expected, (kind, source)


def library_norms(reference, kind: str):
    """Each sublayer's norm of the library's model, named as the library's code names them
    (written out here, not found by the app's own search): (encoder, decoder) lists of lists."""
    encoder, decoder = reference.get_encoder(), reference.get_decoder()
    if kind == "t5":
        return (
            [[block.layer[j].layer_norm for j in range(2)] for block in encoder.block],
            [[block.layer[j].layer_norm for j in range(3)] for block in decoder.block],
        )
    return (
        [[layer.self_attn_layer_norm, layer.final_layer_norm] for layer in encoder.layers],
        [
            [layer.self_attn_layer_norm, layer.encoder_attn_layer_norm, layer.final_layer_norm]
            for layer in decoder.layers
        ],
    )


@pytest.mark.parametrize("kind", KINDS)
def test_recorded_norm_statistics_are_the_librarys_norm_inputs_and_outputs(kind, folders, families):
    """Per token, the mean and std over the features of what each norm of the library's own
    model read and wrote (hooked here), for the encoder and for every decoder step."""
    family = families[kind]
    reference = transformers.AutoModelForSeq2SeqLM.from_pretrained(folders[kind], attn_implementation="eager")
    engine = GenerationEngine(family, SOURCES[0])
    for _ in range(4):
        engine.step()
    seen: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
    encoder_norms, decoder_norms = library_norms(reference.eval(), kind)
    handles = [
        norm.register_forward_hook(lambda module, args, out: seen.__setitem__(id(module), (args[0], out)))
        for norms in (*encoder_norms, *decoder_norms)
        for norm in norms
    ]
    inputs = family.tokenizer.hf(SOURCES[0], return_tensors="pt")
    decoder_ids = torch.tensor([[family.tokenizer.bos_id, *engine.output_ids[:-1]]])
    with torch.no_grad():
        reference(**inputs, decoder_input_ids=decoder_ids)
    for handle in handles:
        handle.remove()

    def stats(norm) -> np.ndarray:  # [4, positions]
        x, y = seen[id(norm)]
        return np.stack(
            [
                t[0].numpy()
                for t in (x.mean(-1), x.std(-1, unbiased=False), y.mean(-1), y.std(-1, unbiased=False))
            ]
        )

    expected_encoder = np.stack([np.stack([stats(n) for n in norms]) for norms in encoder_norms])
    np.testing.assert_allclose(engine.encoder.extras["norms"], expected_encoder, atol=1e-5)  # [L, 2, 4, S]
    expected_decoder = np.stack(
        [np.stack([stats(n) for n in norms]) for norms in decoder_norms]
    )  # [L, 3, 4, T]
    for t, record in enumerate(engine.steps):
        np.testing.assert_allclose(record.extras["norms"], expected_decoder[..., t], atol=1e-5)
    info = family.info
    assert info.capabilities.norm_stats and "norms" in info.extras
    assert info.capabilities.norm == ("rmsnorm" if kind == "t5" else "layernorm")
    assert info.capabilities.norm_placement == ("post" if kind in ("marian", "bart") else "pre")
    assert family.norm_layers() == library_norms(family.model, kind)


def test_the_norm_probe_reads_the_first_norms_input_and_rmsnorm_subtracts_no_mean(families):
    """Post-LN (Marian): the first norm reads embeddings + self-attention; pre-LN (T5): the
    embeddings themselves. T5's RMSNorm divides by the root mean square and keeps the mean's
    sign and share: out = γ·x / rms(x), so with its γ the output's mean is γ-weighted x / rms."""
    for kind in ("marian", "t5"):
        family = families[kind]
        src, pad = encode_sources(family.tokenizer, [SOURCES[0], "a"], family.device)
        probe = family.norm_input_probe(src, pad, Interventions())  # (2, S, D)
        first = library_norms(family.model, kind)[0][0][0]
        captured = []
        handle = first.register_forward_pre_hook(lambda _m, args, into=captured: into.append(args[0]))
        with torch.no_grad():
            family.model.get_encoder()(input_ids=src, attention_mask=(~pad).long())
        handle.remove()
        torch.testing.assert_close(probe, captured[0].float())
        if kind == "t5":
            embedded = family.model.get_encoder().embed_tokens(src)
            torch.testing.assert_close(probe, embedded.float())  # pre-norm: nothing added yet
            out = first(probe)
            rms = probe.pow(2).mean(-1, keepdim=True).add(first.variance_epsilon).sqrt()
            torch.testing.assert_close(out, first.weight * (probe / rms))  # no mean subtracted, no β
            assert not hasattr(first, "bias") or first.bias is None


@pytest.mark.parametrize("kind", KINDS)
def test_attribution_differentiates_the_librarys_pass_and_is_complete(kind, families):
    """The families run under no_grad everywhere but attribution; there the gradients reach the
    library's embedding tables, and integrated gradients sum to f(x) − f(baseline)."""
    from model.attribution.methods import AttributionSettings, attribute

    family = families[kind]
    engine = GenerationEngine(family, SOURCES[0])
    for _ in range(4):
        engine.step()
    settings = AttributionSettings(
        methods=("gradient_x_input", "integrated_gradients", "occlusion", "rollout")
    )
    result = attribute(family, SOURCES[0], engine.output_ids, settings=settings)
    for t in result.steps:
        assert np.isfinite(result.source_scores("gradient_x_input", t)).all()
        assert np.abs(result.source_scores("gradient_x_input", t)).sum() > 0
        total = np.nansum(result.scores["integrated_gradients"][t])
        difference = result.logprob[t] - result.baseline_logprob[t]
        # T5's ReLU feed-forward has kinks along the path: its nodes are doubled until within 1 %
        assert abs(total - difference) <= 0.01 * abs(difference) + 1e-6, (kind, t, result.ig_steps_used)
        assert result.completeness_gap[t] == pytest.approx(abs(total - difference) / abs(difference))
        assert np.nansum(result.scores["rollout"][t]) == pytest.approx(1.0)
    # what it wrote, as teacher forcing scores it (before the generation settings)
    [item] = teacher_force_batch(family, [SOURCES[0]], [engine.output_ids])
    assert torch.is_grad_enabled()  # attribution left the grad mode as it found it
    np.testing.assert_allclose(result.logprob, -item.loss[: len(engine.output_ids)], atol=1e-5)


@pytest.mark.parametrize("kind", KINDS)
def test_the_logit_lens_last_layer_is_the_models_own_logits(kind, families):
    family = families[kind]
    tokenizer = family.tokenizer
    src = torch.tensor([tokenizer.encode_source(SOURCES[0]).ids])
    tgt_in = torch.tensor([[tokenizer.bos_id, 5, 9, 7]])
    pad = torch.zeros_like(src, dtype=torch.bool)
    with torch.no_grad():
        encoded = family.encode(src, pad, Interventions(), capture=False)
        lens = family.logit_lens(encoded, tgt_in)  # (1, L, T, V)
        forced = family.teacher_force(
            encoded, tgt_in, torch.zeros_like(tgt_in, dtype=torch.bool), Interventions()
        )
    assert lens.shape[:3] == (1, family.info.kind("cross").layers, 4)
    torch.testing.assert_close(lens[0, -1], forced.logits[0].float(), atol=1e-5, rtol=1e-5)
    assert not torch.allclose(lens[0, 0], lens[0, -1])
