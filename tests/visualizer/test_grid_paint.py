"""The grid's image at screen resolution: pooled cells keep every value honest, and the
paint benchmark runs. Timings are the benchmark's business, never a test's."""

from __future__ import annotations

import importlib.util
import math
import string

import numpy as np
import pytest
import torch

from model.core.tokenizer import CharTokenizer
from model.generation.engine import GenerationEngine
from model.transformer.family import TransformerFamily
from model.transformer.model import Transformer, TransformerConfig
from visualizer.bench.paint import measure_paint
from visualizer.state.session import Session, SnapshotReady
from visualizer.state.views import AttentionView
from visualizer.widgets.attention_grid import MEAN, AttentionGrid, MosaicLayout

MASKED = [0x5A, 0x5A, 0x5A, 255]


@pytest.fixture
def grid(qtbot):
    session = Session()
    widget = AttentionGrid(session)
    qtbot.addWidget(widget)
    widget.resize(600, 400)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    widget.detach()


def show(grid: AttentionGrid, weights: np.ndarray) -> AttentionView:
    """Draw hand-made weights [L, H, Q, K] (NaN = masked) as the session would have them drawn."""
    labels = [string.ascii_lowercase[i % 26] for i in range(weights.shape[2])]
    view = AttentionView("dec_self", weights, weights.mean(1), labels, labels, None)
    grid.view = view
    grid.draw()
    return view


def expected_cell(matrix: np.ndarray, layout: MosaicLayout, lut: np.ndarray) -> np.ndarray:
    """The cell as it should look, pixel by pixel: each pixel the colour of the largest weight
    in its block (grey where the whole block is masked)."""
    pixels = np.empty((layout.cell, layout.cell, 4), np.uint8)
    for y in range(layout.cell):
        for x in range(layout.cell):
            block = matrix[layout.rows[y] : layout.row_ends[y], layout.cols[x] : layout.col_ends[x]]
            if np.isnan(block).all():
                pixels[y, x] = MASKED
            else:
                pixels[y, x] = lut[int(np.nanmax(block) * np.float32(255) + np.float32(0.5))]
    return pixels


def causal_weights(layers: int, heads: int, size: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    weights = rng.random((layers, heads, size, size), dtype=np.float32) ** 4
    weights[:, :, np.triu_indices(size, 1)[0], np.triu_indices(size, 1)[1]] = np.nan
    return weights


def test_blocks_cover_every_entry_once_and_a_small_matrix_is_not_pooled():
    layout = MosaicLayout(2, 3, 300, 130, max_cell=96)
    assert layout.cell == 96 and layout.pooled
    for starts, ends, entries in ((layout.rows, layout.row_ends, 300), (layout.cols, layout.col_ends, 130)):
        assert starts[0] == 0 and ends[-1] == entries
        np.testing.assert_array_equal(starts[1:], ends[:-1])  # consecutive, no entry left out
        assert (ends - starts).max() == math.ceil(entries / 96)
    small = MosaicLayout(2, 3, 7, 25, max_cell=96)
    assert small.cell == 25 and not small.pooled
    np.testing.assert_array_equal(small.cols, np.arange(25))
    np.testing.assert_array_equal(small.row_ends - small.rows, 1)  # stretched: one row a pixel


def test_a_large_matrix_is_max_pooled_to_what_the_screen_shows(grid):
    weights = causal_weights(2, 3, 300)
    weights[1, 2][~np.isnan(weights[1, 2])] = 0.01
    weights[1, 2, 151, 150] = 1.0  # one sharp peak: sampling or averaging would lose it
    view = show(grid, weights)
    layout = grid.layout_
    assert layout.pooled and layout.cell < 300
    assert abs(grid.viewbox.viewPixelSize()[0]) <= 1  # a mosaic pixel is never narrower than a screen pixel
    assert grid.mosaic.shape[:2] == layout.size
    for layer, head in ((0, 0), (1, 2), (1, MEAN)):
        matrix = view.mean[layer] if head is MEAN else weights[layer, head]
        np.testing.assert_array_equal(grid.cell_pixels(layer, head), expected_cell(matrix, layout, grid.lut))
    peak = grid.cell_pixels(1, 2)[layout.pixels_of_row(151)[0], layout.pixels_of_key(150)[0]]
    np.testing.assert_array_equal(peak, grid.lut[255])
    np.testing.assert_array_equal(grid.cell_pixels(0, 0)[0, -1], MASKED)  # all future: masked


def test_hover_on_a_pooled_pixel_names_the_entry_it_shows(grid):
    weights = causal_weights(2, 3, 300, seed=1)
    weights[1, 2, 151, 150] = 1.0
    view = show(grid, weights)
    texts = []
    grid.hovered.connect(texts.append)
    assert grid.cell_under(grid.scene_position(1, 2, 151, 150)) == (1, 2, 151, 150)
    layer, head, query, key = grid.cell_under(grid.scene_position(0, 1, 200, 40))
    layout = grid.layout_
    y, x = layout.pixels_of_row(200)[0], layout.pixels_of_key(40)[0]
    block = weights[0, 1, layout.rows[y] : layout.row_ends[y], layout.cols[x] : layout.col_ends[x]]
    assert (layer, head) == (0, 1) and weights[0, 1, query, key] == np.nanmax(block)
    grid.on_mouse_moved(grid.scene_position(0, 1, 200, 40))
    assert texts[-1].endswith(f"{weights[0, 1, query, key]:.3f}")
    assert grid.cell_under(grid.scene_position(1, MEAN, 10, 5))[:2] == (1, MEAN)
    assert view.current_row is None


def test_growing_the_grid_redraws_it_finer_with_the_same_values(grid, qtbot):
    weights = causal_weights(2, 3, 300, seed=2)
    view = show(grid, weights)
    small = grid.layout_.cell
    grid.resize(1400, 1000)
    qtbot.waitUntil(lambda: grid.layout_.cell > small)
    assert abs(grid.viewbox.viewPixelSize()[0]) <= 1
    np.testing.assert_array_equal(
        grid.cell_pixels(1, 1), expected_cell(weights[1, 1], grid.layout_, grid.lut)
    )
    np.testing.assert_array_equal(
        grid.cell_pixels(0, MEAN), expected_cell(view.mean[0], grid.layout_, grid.lut)
    )


def test_a_step_through_the_session_shows_the_engines_pooled_weights(grid):
    tokenizer = CharTokenizer.from_characters(string.ascii_lowercase)
    config = TransformerConfig(
        vocab_size=len(tokenizer), d_model=32, n_heads=4, n_encoder_layers=2, n_decoder_layers=1, d_ff=64,
        dropout=0.0, max_len=300,
    )  # fmt: skip
    torch.manual_seed(0)
    model = Transformer(config).eval()
    source = "".join(np.random.default_rng(0).choice(list(string.ascii_lowercase), 249))
    snapshot = GenerationEngine(TransformerFamily(model, tokenizer), source).snapshot()
    session = grid.session
    session.set_kind("enc_self")
    session.apply(SnapshotReady(1, session.generation, snapshot))
    layout = grid.layout_
    assert layout.pooled and layout.queries == layout.keys == 250
    self_attn = snapshot.encoder.attention["enc_self"]
    np.testing.assert_array_equal(grid.cell_pixels(1, 3), expected_cell(self_attn[1, 3], layout, grid.lut))
    mean = self_attn[0].mean(0)
    np.testing.assert_array_equal(grid.cell_pixels(0, MEAN), expected_cell(mean, layout, grid.lut))


def test_the_paint_benchmark_reports_every_measure(qapp):
    results = measure_paint(quick=True)
    expected = {"paint_ms", "paint_128_ms", "paint_512_ms", "step_to_paint_ms"}
    if importlib.util.find_spec("matplotlib") is not None:
        expected |= {"mpl_paint_ms", "mpl_paint_512_ms"}
    assert set(results) == expected
    for name, value in results.items():
        assert math.isfinite(value) and value > 0, name
