"""Hugging Face encoder-decoders through the model-family interface, on tiny random models of
every supported architecture built here (tests/hf_factories.py, the ``hf_families`` fixture):
stepping back and forcing, beams, languages, what-ifs, labels, the registry and the trace."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from model.generation.decoding import DecodingSettings
from model.generation.engine import GenerationEngine
from model.hf.loading import open_hf
from model.interface import Interventions
from model.probes.teacher_forcing import teacher_force, teacher_force_batch
from model.registry import open_model
from tests.hf_factories import transformers  # skips without the [hf] extra
from tests.model.hf_library import SOURCES
from visualizer.cli.attnviz import main


def test_back_force_and_reset_return_the_same_steps(hf_families):
    family = hf_families["bart"]
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


def test_beam_rows_are_the_single_steps(hf_families):
    """step_batch's log-probabilities for each hypothesis are stepping that hypothesis alone:
    the same distribution once renormalised (the beam, as the library's, bans tokens from the
    log-probabilities without renormalising; a step bans them from the logits)."""
    family = hf_families["marian"]
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


def test_the_settings_force_the_target_language_and_the_picker_changes_it(hf_folders):
    family = open_hf(hf_folders["nllb"], "cpu")  # its own: the languages stay set on it
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


def test_mbart_reads_its_settings_forced_language(hf_families):
    family = hf_families["mbart"]
    assert family.target_language == "fr_XX"
    engine = GenerationEngine(family, SOURCES[0])
    assert family.tokenizer.token_text(engine.step().token_id) == "fr_XX"


def test_zeroing_a_head_equals_zeroing_its_slice_of_the_output_projection(hf_folders, hf_families):
    family = hf_families["marian"]
    reference = transformers.AutoModelForSeq2SeqLM.from_pretrained(
        hf_folders["marian"], attn_implementation="eager"
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


def test_removing_the_causal_mask_lets_the_decoder_see_the_future(hf_families):
    family = hf_families["bart"]
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


def test_labels_show_word_starts_and_decoded_bytes(hf_families):
    tokenizer = hf_families["bart"].tokenizer
    ids = tokenizer.encode_source("der hund läuft").ids
    labels = [tokenizer.token_text(i) for i in ids]
    assert "".join(labels[1:-1]).replace("▁", " ").strip() == "der hund läuft"
    assert any(label.startswith("▁") for label in labels)
    assert not any("Ġ" in label or "Ã" in label for label in labels)
    sentencepiece = hf_families["t5"].tokenizer
    assert sentencepiece.token_text(sentencepiece.encode_source("the cat").ids[0]).startswith("▁")
    assert sentencepiece.token_text(sentencepiece.vocab_size - 1).startswith("<unused")


def test_the_registry_opens_a_folder(hf_folders):
    family = open_model(hf_folders["t5"], "cpu")
    assert family.info.family == "huggingface"
    assert family.info.capabilities.positional == "relative_bias"
    assert family.info.capabilities.norm == "rmsnorm"
    assert not family.info.capabilities.scaling


def test_trace_of_a_folder_holds_the_documented_arrays(hf_folders, hf_families, tmp_path, capsys):
    out = tmp_path / "trace.npz"
    argv = ["trace", "--checkpoint", str(hf_folders["nllb"]), "--text", SOURCES[0], "--out", str(out)]
    assert main([*argv, "--tgt-lang", "fra_Latn"]) == 0
    arrays = np.load(out)
    summary = json.loads(out.with_suffix(".json").read_text())
    steps = len(arrays["out_ids"])
    source_ids = hf_families["nllb"].tokenizer.hf(SOURCES[0])["input_ids"]
    np.testing.assert_array_equal(arrays["src_ids"], source_ids)
    assert arrays["enc_self"].shape == (2, 2, len(source_ids), len(source_ids))
    assert arrays["cross"].shape == (3, 4, steps, len(source_ids))
    assert arrays["dec_self"].shape == (3, 4, steps, steps)
    assert arrays["probs"].shape == (steps, hf_families["nllb"].tokenizer.vocab_size)
    assert arrays["out_ids"][0] == hf_families["nllb"].tokenizer.hf.convert_tokens_to_ids("fra_Latn")
    assert summary["family"] == "huggingface" and summary["target_language"] == "fra_Latn"
    assert summary["source_tokens"][0] == "eng_Latn"
    capsys.readouterr()
    assert (
        main(
            [
                "trace",
                "--checkpoint",
                str(hf_folders["marian"]),
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


def test_the_masks_page_teacher_forces_exactly_the_generated_tokens(hf_families):
    """Re-encoding the decoded text would split it differently (random pieces here); the page
    reads the generated ids themselves."""
    from visualizer.panels.masks import generated_target

    family = hf_families["nllb"]
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
