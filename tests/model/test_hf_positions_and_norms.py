"""Positions and norms of the Hugging Face models, read from the models themselves: position
tables as each architecture stores them, T5's relative bias, and the statistics around every
sublayer's norm, against the library's own modules."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from model.core.batching import encode_sources
from model.generation.engine import GenerationEngine
from model.interface import Interventions
from tests.hf_factories import KINDS, transformers  # skips without the [hf] extra
from tests.model.hf_library import SOURCES, library_norms


def test_positional_tables_are_read_from_the_weights(hf_families):
    marian = hf_families["marian"]
    table = marian.positional_table()
    np.testing.assert_array_equal(
        table.numpy(), marian.model.model.encoder.embed_positions.weight[: len(table)].detach().numpy()
    )
    bart = hf_families["bart"].positional_table()
    np.testing.assert_array_equal(
        bart.numpy(), hf_families["bart"].model.model.encoder.embed_positions.weight[2:].detach().numpy()
    )
    assert hf_families["t5"].positional_table() is None


def test_sinusoid_pairs_are_read_as_the_model_stores_them(hf_families):
    """Marian stores all sines, then all cosines: pair i is dims i and i + d/2, and its
    wavelength, measured from the table, is the one Marian's formula gives."""
    from model.probes.position_runs import positional_table
    from model.probes.positions import EncodingTable

    marian = hf_families["marian"]
    table = EncodingTable("sinusoidal", positional_table(marian), marian.positional_layout())
    width = table.table.shape[1]
    pair = 3
    assert table.pair_dims(pair) == (pair, pair + width // 2)
    position = np.arange(len(table.table))
    angle = position / 10000 ** (2 * pair / width)
    np.testing.assert_allclose(table.table[:, pair], np.sin(angle), atol=1e-5)
    np.testing.assert_allclose(table.table[:, pair + width // 2], np.cos(angle), atol=1e-5)
    assert table.measured_wavelength(pair) == pytest.approx(2 * np.pi * 10000 ** (2 * pair / width), rel=1e-3)
    assert hf_families["bart"].positional_layout() == "interleaved"


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


def test_t5_relative_bias_is_read_from_the_model(hf_families):
    from model.probes.relative_bias import relative_bias

    t5 = hf_families["t5"]
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
        hf_families["marian"].relative_bias_settings()


@pytest.mark.parametrize("kind", KINDS)
def test_recorded_norm_statistics_are_the_librarys_norm_inputs_and_outputs(kind, hf_folders, hf_families):
    """Per token, the mean and std over the features of what each norm of the library's own
    model read and wrote (hooked here), for the encoder and for every decoder step."""
    family = hf_families[kind]
    reference = transformers.AutoModelForSeq2SeqLM.from_pretrained(
        hf_folders[kind], attn_implementation="eager"
    )
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


def test_the_norm_probe_reads_the_first_norms_input_and_rmsnorm_subtracts_no_mean(hf_families):
    """Post-LN (Marian): the first norm reads embeddings + self-attention; pre-LN (T5): the
    embeddings themselves. T5's RMSNorm divides by the root mean square and keeps the mean's
    sign and share: out = γ·x / rms(x), so with its γ the output's mean is γ-weighted x / rms."""
    for kind in ("marian", "t5"):
        family = hf_families[kind]
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
