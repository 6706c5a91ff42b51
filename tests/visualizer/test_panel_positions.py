"""The positional-encoding panel draws the live model's own table, and its what-if is order-blind."""

from __future__ import annotations

import math

import numpy as np
import pytest

from model.generation.engine import record_encoder
from model.interface import Interventions
from model.probes.positions import (
    binary_code,
    default_swap,
    diagonal_deviation,
    permuted_deviation,
    swap_chars,
    swap_permutation,
    wavelength,
)
from model.transformer.checkpoint import load_checkpoint, save_checkpoint
from tests.factories import small_model
from tests.waits import EVENT_MS

SOURCE = "reverse: abcdef"  # the harness's source


def shown_panel(harness):
    harness.window.show_panel("positions")
    harness.wait_idle()
    panel = next(p for p in harness.window.panels if p.key == "positions")
    harness.qtbot.waitUntil(lambda: panel.table is not None, timeout=EVENT_MS)
    return panel


def buffer_of(checkpoint) -> np.ndarray:
    return checkpoint.model.sinusoid.cpu().numpy()


# -- the arithmetic, on its own ------------------------------------------------------------
def test_binary_code_counts_with_the_lowest_bit_first():
    code = binary_code(8)
    assert code.shape == (8, 3)
    np.testing.assert_array_equal(code[5], [1, 0, 1])
    np.testing.assert_array_equal(code @ (2 ** np.arange(3)), np.arange(8))
    assert binary_code(64).shape == (64, 6) and binary_code(65).shape == (65, 7)


def test_diagonal_deviation_is_zero_only_for_offset_dependent_matrices():
    offsets = np.subtract.outer(np.arange(6), np.arange(6))
    assert diagonal_deviation(np.cos(0.3 * offsets)) == 0.0
    bumped = np.cos(0.3 * offsets)
    bumped[2, 3] += 0.5
    assert diagonal_deviation(bumped) == pytest.approx(0.5)


def test_swap_helpers():
    assert default_swap("reverse: abcdef") == (9, 10)
    assert default_swap("copy: aab") == (6, 8)  # the next character that differs
    assert default_swap("ab") == (0, 1)
    assert swap_chars("reverse: abc", 9, 10) == "reverse: bac"
    perm = swap_permutation(5, 1, 3)
    a = np.arange(25.0).reshape(5, 5)
    swapped = a[perm][:, perm]
    assert permuted_deviation(a, swapped, perm) == 0.0
    assert wavelength(0, 128) == pytest.approx(2 * math.pi)
    assert wavelength(16, 128) == pytest.approx(2 * math.pi * 10.0)


# -- the panel on the harness model --------------------------------------------------------
def test_heatmap_is_the_models_sinusoid_buffer(harness, tiny_checkpoint):
    panel = shown_panel(harness)
    expected = buffer_of(tiny_checkpoint)
    config = tiny_checkpoint.config
    image = panel.pe_image.image
    assert image.shape == (config.max_len, config.d_model)
    np.testing.assert_array_equal(image, expected[: image.shape[0]])
    assert panel.table.kind == "sinusoidal"
    assert "sinusoid" in panel.info.text()


def test_waves_are_the_buffers_columns_with_their_wavelengths(harness, tiny_checkpoint):
    panel = shown_panel(harness)
    expected = buffer_of(tiny_checkpoint)
    d_model = tiny_checkpoint.config.d_model

    def check(pair: int) -> None:
        dims = sorted(panel.wave_dims.values())
        assert {0, 1, 2 * pair, 2 * pair + 1, d_model - 2, d_model - 1} == set(dims)
        for index, dim in panel.wave_dims.items():
            x, y = panel.curves[index].getData()
            np.testing.assert_array_equal(x, np.arange(expected.shape[0]))
            np.testing.assert_array_equal(y, expected[:, dim])
        legend = " | ".join(label.text for _, label in panel.legend.items)
        assert f"= {wavelength(pair, d_model):.3g}" in legend
        assert f"dims {2 * pair}, {2 * pair + 1}" in legend

    check(panel.pair_spin.value())
    panel.pair_spin.setValue(3)
    check(3)
    assert "dims 6, 7" in panel.pair_info.text()
    panel.pair_spin.setValue(0)  # the chosen pair is the fastest: drawn once
    assert sorted(panel.wave_dims.values()) == [0, 1, d_model - 2, d_model - 1]
    assert len(panel.legend.items) == 2


def test_binary_code_beside_the_encoding(harness, tiny_checkpoint):
    panel = shown_panel(harness)
    max_len = tiny_checkpoint.config.max_len
    image = panel.bits_image.image
    assert image.shape == (max_len, (max_len - 1).bit_length())
    np.testing.assert_array_equal(image @ (2 ** np.arange(image.shape[1])), np.arange(max_len))


def test_pe_pe_transpose_depends_only_on_the_offset(harness, tiny_checkpoint):
    panel = shown_panel(harness)
    pe = buffer_of(tiny_checkpoint).astype(np.float64)
    np.testing.assert_allclose(panel.gram_image.image, pe @ pe.T, rtol=1e-12, atol=1e-12)
    assert panel.diagonal_deviation < 1e-4
    assert panel.diagonal_deviation == pytest.approx(diagonal_deviation(pe @ pe.T))
    assert f"{panel.diagonal_deviation:.2g}" in panel.info.text()


def test_source_and_decoder_positions_are_marked(harness):
    panel = shown_panel(harness)
    length = len(harness.session.snapshot.encoder.tokens)
    assert length == len(SOURCE) + 1  # its characters, then <eos>
    rect = panel.pe_source.rect()
    assert (rect.top(), rect.height(), rect.width()) == (0, length, panel.pe_image.image.shape[1])
    assert panel.gram_source.rect().width() == length and panel.gram_source.isVisible()
    assert panel.source_region.getRegion() == (0, length - 1)
    assert not panel.pe_decoder.isVisible()  # before the first step
    harness.session.step_forward()
    harness.wait_idle()
    harness.session.step_forward()
    harness.wait_idle()
    assert panel.pe_decoder.isVisible() and panel.pe_decoder.rect().top() == harness.session.cursor == 1


def test_removing_positional_encoding_makes_the_encoder_order_blind(harness, tiny_checkpoint):
    panel = shown_panel(harness)
    assert not panel.what_if_banner.isVisible()
    panel.what_if_button.setChecked(True)
    harness.wait_idle()
    harness.qtbot.waitUntil(lambda: panel.comparison is not None, timeout=EVENT_MS)
    assert panel.what_if_banner.isVisible() and panel.swap_canvas.isVisible()
    assert (panel.swap_a.value(), panel.swap_b.value()) == (9, 10)

    assert panel.swap_deviation["without_pe"] < 1e-5
    assert panel.swap_deviation["with_pe"] > 1e-3
    assert panel.all_heads_deviation["without_pe"] < 1e-5

    # the drawn matrices are the encoder's, run here independently on the same weights
    swapped_source = swap_chars(SOURCE, 9, 10)
    layer, head = harness.session.layer, harness.session.head
    for column, (text, no_pe) in enumerate(
        ((SOURCE, False), (swapped_source, False), (SOURCE, True), (swapped_source, True))
    ):
        _, record = record_encoder(tiny_checkpoint, text, Interventions(no_positional=no_pe))
        np.testing.assert_allclose(
            panel.swap_matrices[column].image.image, record.attention["enc_self"][layer, head], atol=1e-6
        )

    # the mean of heads of another layer: still order-blind without PE
    harness.session.select_head(1, None)
    assert panel.swap_deviation["without_pe"] < 1e-5
    assert panel.swap_deviation["with_pe"] > 1e-3
    assert "mean of heads" in panel.swap_heading.text

    panel.what_if_button.setChecked(False)
    assert not panel.what_if_banner.isVisible() and not panel.swap_canvas.isVisible()
    assert panel.canvas.isVisible()


def test_swapping_equal_characters_is_refused(harness):
    panel = shown_panel(harness)
    panel.what_if_button.setChecked(True)
    harness.wait_idle()
    panel.swap_a.setValue(3)  # 'e' in "reverse"
    panel.swap_b.setValue(1)  # 'e'
    harness.wait_idle()  # the request sent for (3, 10) on the way may land: it is not shown
    assert panel.comparison is None and panel.swap_deviation == {}
    assert "same" in panel.swap_heading.text


def test_chinese_texts(harness):
    panel = shown_panel(harness)
    harness.session.set_language("zh")
    assert panel.title() == "位置编码"
    assert "位置" in panel.pe_plot.titleLabel.text
    assert "正弦" in panel.info.text()
    assert any("维" in label.text for _, label in panel.legend.items)


def test_learned_positions_are_shown_as_learned(harness, tmp_path):
    model, tokenizer = small_model(seed=2, positional="learned")
    path = tmp_path / "learned.safetensors"
    save_checkpoint(path, model, tokenizer, {"note": "learned positions"})
    panel = shown_panel(harness)
    harness.open(path)
    harness.qtbot.waitUntil(
        lambda: panel.table is not None and panel.table.kind == "learned", timeout=EVENT_MS
    )
    expected = load_checkpoint(path, "cpu").model.pos_embed.weight.detach().numpy()
    np.testing.assert_allclose(panel.pe_image.image, expected, atol=1e-7)
    assert "learned" in panel.info.text()
    assert "λ" not in " ".join(label.text for _, label in panel.legend.items)
