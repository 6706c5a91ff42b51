"""Attention over words: a subword model's pieces merged, keys summed and queries averaged."""

from __future__ import annotations

import numpy as np
import pytest

from model.generation.engine import GenerationEngine
from model.hf.loading import open_hf
from tests.hf_factories import write_hf_model  # skips without the [hf] extra
from visualizer.state.views import attention_view, word_groups, words_view

SOURCE = "der hundepark läuft parkingdogs"


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    family = open_hf(write_hf_model("nllb", tmp_path_factory.mktemp("hf") / "nllb"), "cpu")
    engine = GenerationEngine(family, SOURCE)
    for _ in range(6):
        engine.step()
    return engine


def test_words_are_the_pieces_between_word_starts(engine):
    tokenizer = engine.model.tokenizer
    ids = engine.encoder.src_ids
    groups = word_groups(ids, tokenizer)
    assert [g[0] for g in groups] == [i for i, t in enumerate(ids) if tokenizer.is_word_start(int(t))]
    assert sum(len(g) for g in groups) == len(ids)
    view = words_view(engine.snapshot(), attention_view(engine.snapshot(), "enc_self", 5), 5)
    assert "hundepark" in view.key_labels and "parkingdogs" in view.key_labels  # pieces joined
    assert view.key_labels[0] == "eng_Latn" and view.key_labels[-1] == "</s>"  # specials alone
    assert any(len(g) > 1 for g in groups)  # the test source has words of several pieces


def expected_words(pieces: np.ndarray, queries: list[list[int]], keys: list[list[int]]) -> np.ndarray:
    """Written out: each key word the sum of its pieces (masked if all are), each query word the
    mean of its pieces' rows (masked ones left out)."""
    layers, heads = pieces.shape[:2]
    out = np.full((layers, heads, len(queries), len(keys)), np.nan)
    for layer in range(layers):
        for head in range(heads):
            for q, query_group in enumerate(queries):
                for k, key_group in enumerate(keys):
                    sums = []
                    for row in query_group:
                        values = pieces[layer, head, row, key_group]
                        if not np.isnan(values).all():
                            sums.append(np.nansum(values))
                    if sums:
                        out[layer, head, q, k] = np.mean(sums)
    return out


@pytest.mark.parametrize("kind", ["enc_self", "cross", "dec_self"])
def test_keys_are_summed_and_queries_averaged(engine, kind):
    snapshot = engine.snapshot()
    pieces = attention_view(snapshot, kind, 5)
    words = words_view(snapshot, pieces, 5)
    source = word_groups(snapshot.encoder.src_ids, snapshot.tokenizer)
    target = word_groups([s.input_id for s in snapshot.steps[:6]], snapshot.tokenizer)
    queries = source if kind == "enc_self" else target
    keys = target if kind == "dec_self" else source
    np.testing.assert_allclose(words.weights, expected_words(pieces.weights, queries, keys), atol=1e-6)
    # every word row still sums to 1 over the words it may see
    np.testing.assert_allclose(np.nansum(words.weights, -1), 1, atol=1e-5)
    assert words.current_row == (None if kind == "enc_self" else len(queries) - 1)


def test_a_character_model_has_no_words(tiny_checkpoint):
    engine = GenerationEngine(tiny_checkpoint, "reverse: ab cd")
    engine.step()
    snapshot = engine.snapshot()
    assert words_view(snapshot, attention_view(snapshot, "cross", 0), 0) is None
