"""The rare-word lesson: characters outside the vocabulary in training data, and an output
``<unk>`` filled with the source character cross-attention points at."""

from __future__ import annotations

import random
from types import SimpleNamespace

import numpy as np
import pytest

from model.core.tokenizer import CharTokenizer
from model.generation.engine import GenerationEngine
from model.generation.unknown_copy import (
    copied_offsets,
    copy_for_step,
    source_unknown_pieces,
    text_segments,
    text_with_copies,
)
from model.registry import open_model
from model.shipped import default_checkpoint_path
from model.tasks.charset import OUTSIDE_CHARACTERS
from model.tasks.coverage import outside_training, trained_on
from model.tasks.evaluate import UNKNOWNS, EvalReport, evaluate_unknowns
from model.tasks.recipes import RECIPES
from model.tasks.synthetic import make_example, sprinkle_unknowns, task_alphabet, unknowns_example
from model.tasks.train import default_tokenizer, draw_training_examples


def test_the_outside_characters_are_all_read_as_unknown():
    tokenizer = default_tokenizer()
    assert len(OUTSIDE_CHARACTERS) >= 100 and "爱" in OUTSIDE_CHARACTERS
    assert not set(OUTSIDE_CHARACTERS) & set(task_alphabet())
    assert set(tokenizer.encode(OUTSIDE_CHARACTERS).ids) == {tokenizer.unk_id}


def test_an_unknowns_example_mirrors_its_unknown_characters():
    rng = random.Random(4)
    tokenizer = default_tokenizer()
    for count in (1, 2, 3):
        for _ in range(30):
            example = unknowns_example(rng, count)
            text = example.source.removeprefix("reverse: ")
            assert example.target == text[::-1]
            unknown = tokenizer.encode(text).unknown
            assert len(unknown) == count  # at distinct positions
            target_ids = tokenizer.encode(example.target).ids
            assert [i for i, t in enumerate(target_ids) if t == tokenizer.unk_id] == sorted(
                len(text) - 1 - p for p, _ in unknown
            )


def test_training_sprinkles_unknowns_on_reverse_only_at_the_recipes_rate():
    recipe = RECIPES["unknowns"]
    assert recipe.unknown_rate == 0.04 and RECIPES["default"].unknown_rate == 0
    tokenizer = default_tokenizer()
    characters = unknowns = 0
    for step in range(6):
        for example in draw_training_examples(recipe, random.Random(step)):
            encoded = tokenizer.encode(example.source)
            if example.task != "reverse":
                assert not encoded.unknown, example
                continue
            characters += len(example.source) - len("reverse: ")
            unknowns += len(encoded.unknown)
            assert example.target == example.source.removeprefix("reverse: ")[::-1]
    assert 0.03 <= unknowns / characters <= 0.05
    # the rate 0 leaves an example as it was; a sort: example is never touched
    example = make_example("reverse", random.Random(1), length=20)
    assert sprinkle_unknowns(example, 0.0, random.Random(2)) is example
    sort = make_example("sort", random.Random(1), length=20)
    assert sprinkle_unknowns(sort, 1.0, random.Random(2)) is sort


def test_a_copy_takes_the_unknown_the_last_layers_mean_weighs_most():
    # [layers 2, heads 3, keys 5]; source positions 1 and 3 are <unk>
    weights = np.zeros((2, 3, 5), dtype=np.float32)
    weights[0, 0, 1] = 0.99  # an earlier layer's head: never the chooser
    weights[1, 0, 3] = 0.5
    weights[1, 1, 3] = 0.6
    weights[1, 2, 1] = 0.9  # the sharpest head points at 1, but the mean favours 3
    weights[1, 2, 0] = 0.1
    copy = copy_for_step(4, {"cross": weights}, "cross", {1: "é", 3: "爱"})
    assert (copy.step, copy.source_position, copy.character) == (4, 3, "爱")
    assert (copy.kind, copy.layer, copy.head) == ("cross", 1, 1)
    assert copy.weight == pytest.approx(0.6)
    assert copy.mean_weight == pytest.approx((0.5 + 0.6 + 0.0) / 3)
    assert copy_for_step(0, {"cross": weights}, "cross", {}) is None
    assert copy_for_step(0, {}, "cross", {1: "é"}) is None


def test_unknown_pieces_pair_with_the_sources_unknown_tokens():
    tokenizer = CharTokenizer.from_characters("abc: ")
    encoded = tokenizer.encode_source("aéb爱")
    record = SimpleNamespace(src_ids=np.array(encoded.ids), unknown=encoded.unknown)
    assert source_unknown_pieces(record, tokenizer.unk_id) == {1: "é", 3: "爱"}
    assert source_unknown_pieces(record, None) == {}
    # a tokenizer that cannot say where its unknown pieces lie: no copies, not wrong ones
    unpaired = SimpleNamespace(src_ids=np.array(encoded.ids), unknown=encoded.unknown[:1])
    assert source_unknown_pieces(unpaired, tokenizer.unk_id) == {}


def test_the_output_text_puts_each_copy_in_place_of_its_unknown():
    tokenizer = CharTokenizer.from_characters("abc")
    a, b, unk, eos = tokenizer.index["a"], tokenizer.index["b"], tokenizer.unk_id, tokenizer.eos_id
    copy = SimpleNamespace(character="爱")
    ids = [a, unk, b, unk, eos, a]
    assert text_with_copies(tokenizer, ids, {1: copy}) == "a爱b\ufffd"  # position 3 has no copy
    segments = text_segments(tokenizer, ids, {1: copy})
    assert segments == [("a", None), ("爱", copy), ("b\ufffd", None)]
    assert copied_offsets(segments) == {1: copy}


def test_coverage_says_copied_on_reverse_and_that_sort_cannot_know():
    trained = trained_on(("reverse", "sort"), unknown_rate=0.04)
    assert trained["unknown_characters"] == ["reverse"]
    assert [f.code for f in outside_training("reverse: 我爱你", trained)] == ["copied"]
    assert [f.code for f in outside_training("sort: 我爱你", trained)] == ["sort_unknown"]
    # a model never trained on unknowns: they were simply never seen
    plain = trained_on(("reverse", "sort"))
    assert "unknown_characters" not in plain
    assert [f.code for f in outside_training("reverse: 我爱你", plain)] == ["characters"]


@pytest.fixture(scope="module")
def shipped():
    return open_model(default_checkpoint_path(), "cpu")


def test_the_shipped_model_writes_unk_and_the_copy_restores_the_word(shipped):
    engine = GenerationEngine(shipped, "reverse: 我爱你")
    engine.run_to_end()
    snapshot = engine.snapshot()
    assert snapshot.output_text(copy_unknowns=False) == "你\ufffd我"
    assert snapshot.output_text() == "你爱我"
    (copy,) = snapshot.copies.values()
    assert (copy.step, copy.source_position, copy.character) == (1, 10, "爱")
    # the weights are the captured cross-attention row's own
    row = snapshot.steps[1].attention["cross"]  # [layers, heads, keys]
    assert copy.layer == row.shape[0] - 1
    assert copy.weight == pytest.approx(float(row[-1, copy.head, 10]))
    assert copy.mean_weight == pytest.approx(float(row[-1, :, 10].mean()))
    assert copy.weight == pytest.approx(float(row[-1, :, 10].max()))
    assert shipped.metadata["trained_on"]["unknown_characters"] == ["reverse"]


def test_the_shipped_model_reverses_text_with_unknown_characters(shipped):
    report = EvalReport(0, 0)
    evaluate_unknowns(shipped, 60, 7, report)
    assert report.total[UNKNOWNS] == 60 and report.total[f"{UNKNOWNS}/3"] == 20
    assert report.accuracy(UNKNOWNS) >= 0.95, report.failures


class SentencePieceLike:
    """A tokenizer that spells a word's space in its first piece and drops it at a text's start
    (as SentencePiece decodes), and leaves <unk> out of decoded text (skip_special_tokens)."""

    eos_id, unk_id = 0, 3
    pieces = {1: "▁the", 2: "▁cat", 4: "▁sat"}

    def decode(self, ids, stop_at_eos=True):
        return "".join(self.pieces.get(int(i), "") for i in ids).replace("▁", " ").lstrip(" ")


def test_copies_keep_the_spaces_a_sentencepiece_tokenizer_spells_in_its_pieces():
    copy = SimpleNamespace(character="Ж")
    tokenizer = SentencePieceLike()
    assert text_with_copies(tokenizer, [1, 3, 2, 4], {1: copy}) == "theЖ cat sat"
    assert text_with_copies(tokenizer, [1, 3, 2, 4], {}) == "the cat sat"


def test_a_tokenizer_that_cannot_say_where_its_unknown_pieces_are_gets_no_copies():
    record = SimpleNamespace(src_ids=np.array([5, 3, 6]), unknown=[(-1, "?")])  # a slow tokenizer's
    assert source_unknown_pieces(record, 3) == {}
