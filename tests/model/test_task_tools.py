"""The tasks' tools around the model: chosen examples, the data's next-token truth, head roles."""

from __future__ import annotations

import random

import numpy as np
import pytest

from model.generation.engine import GenerationEngine
from model.tasks.analysis import head_roles, mirrored_hits
from model.tasks.calibration import data_next_token, total_variation
from model.tasks.examples import CHOSEN, fresh_example, fresh_forms
from model.tasks.synthetic import DATE_FORMS, TASK_NAMES, TEXT_STYLES, answers, split_source
from model.tasks.train import default_tokenizer
from tests.factories import small_family


def test_every_chosen_example_is_a_valid_source_of_its_task():
    assert set(CHOSEN) == set(TASK_NAMES)
    tokenizer = default_tokenizer()
    for task, examples in CHOSEN.items():
        assert examples
        for example in examples:
            assert split_source(example.source)[0] == task
            unknown = "".join(c for _, c in tokenizer.encode(example.source).unknown)
            assert unknown == example.unknown  # none, but where the example is about them
            if not unknown:
                assert answers(example.source)  # raises for an invalid one
    assert len(answers("date: 03/04/2026")) == 2  # the ambiguous one is there


def test_fresh_examples_cover_every_form_and_are_seeded():
    assert fresh_forms("date") == DATE_FORMS and fresh_forms("reverse") == tuple(TEXT_STYLES)
    assert fresh_forms("pick") == ()
    a = [fresh_example("sort", random.Random(4), form) for form in fresh_forms("sort")]
    b = [fresh_example("sort", random.Random(4), form) for form in fresh_forms("sort")]
    assert a == b and all(answers(source) for source in a)


def test_data_next_token_maps_the_datas_characters_onto_token_ids():
    tokenizer = default_tokenizer()
    truth = data_next_token("date: 03/04/2026", "2026-0", tokenizer)
    assert truth is not None and truth.sum() == pytest.approx(1.0)
    assert truth[tokenizer.encode("3").ids[0]] == 0.5 == truth[tokenizer.encode("4").ids[0]]
    end = data_next_token("reverse: ab", "ba", tokenizer)
    assert end[tokenizer.eos_id] == 1.0 and end.sum() == 1.0
    assert data_next_token("reverse: ab", "x", tokenizer) is None
    assert data_next_token("no task here", "", tokenizer) is None
    p = np.array([0.5, 0.5, 0.0])
    assert total_variation(p, np.array([0.5, 0.5, 0.0])) == 0.0
    assert total_variation(p, np.array([0.0, 0.0, 1.0])) == 1.0
    assert total_variation(p, np.array([0.7, 0.3, 0.0])) == pytest.approx(0.2)


def test_mirrored_hits_are_the_argmax_on_the_mirrored_character():
    model = small_family(seed=2, max_len=64)
    source = "reverse: Hi 你好"
    hits, count = mirrored_hits(model, "cross", source)
    engine = GenerationEngine(model, source)
    engine.run_to_end()
    length = len(source) - len("reverse: ")
    assert count == min(length, len(engine.steps))
    for t in range(count):
        argmax = engine.steps[t].attention["cross"].argmax(-1)  # [L, H]
        np.testing.assert_array_equal(hits[..., t], argmax == len(source) - 1 - t)


def test_head_roles_measure_every_text_style():
    roles = head_roles(small_family(seed=2, max_len=64), n=4, seed=1)
    assert set(roles.mirror_any) == set(TEXT_STYLES)
    assert all(0.0 <= share <= 1.0 for share in roles.mirror_any.values())
    assert roles.reverse_mirror.shape == (2, 4) and "mirrored character" in roles.table()
