"""The Hugging Face family computes what the library computes, for every architecture the tests
build: stepping writes what ``generate`` writes (greedy and beam), the recorded attention is the
library's eager attention, and teacher forcing gives the library's logits and attention."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

from model.generation.decoding import DecodingSettings
from model.generation.engine import GenerationEngine
from model.probes.teacher_forcing import teacher_force
from tests.hf_factories import KINDS  # skips without the [hf] extra
from tests.model.hf_library import SOURCES, library_model


@pytest.mark.parametrize("kind", KINDS)
def test_greedy_stepping_writes_what_generate_writes(kind, hf_folders, hf_families):
    family, reference = hf_families[kind], library_model(hf_folders[kind])
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
def test_recorded_attention_is_the_librarys_eager_attention(kind, hf_folders, hf_families):
    """Each step's rows equal the library's output_attentions of a full pass over the same tokens,
    and the encoder's equal its encoder attentions."""
    family, reference = hf_families[kind], library_model(hf_folders[kind])
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
def test_teacher_forcing_gives_the_librarys_logits(kind, hf_folders, hf_families):
    family, reference = hf_families[kind], library_model(hf_folders[kind])
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


@pytest.mark.parametrize("kind", KINDS)
def test_the_teacher_forced_trace_is_the_librarys_forward_pass(kind, hf_folders, hf_families):
    """Every layer, head and kind of a teacher-forced trace equals the library's own eager
    forward pass with output_attentions=True."""
    from model.generation.trace import teacher_forced_arrays

    family, reference = hf_families[kind], library_model(hf_folders[kind])
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


@pytest.mark.parametrize("kind", KINDS)
def test_the_beam_trees_best_is_what_generate_writes_with_the_same_beams(kind, hf_folders, hf_families):
    """Without a length penalty (scores are summed log-probabilities in both) and stopping once
    the beam's hypotheses have finished."""
    family, reference = hf_families[kind], library_model(hf_folders[kind])
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
