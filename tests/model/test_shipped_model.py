"""The trained checkpoint that ships in assets/: it loads, it is accurate, its attention is legible."""

from __future__ import annotations

import pytest

from model.generation.decoding_settings import DecodingSettings
from model.generation.engine import GenerationEngine
from model.tasks.analysis import head_roles
from model.tasks.evaluate import evaluate, greedy_decode_batch
from model.tasks.synthetic import DATE_FORMS, answers
from model.transformer.checkpoint import default_checkpoint_path, load_checkpoint


@pytest.fixture(scope="module")
def shipped():
    path = default_checkpoint_path()
    assert path.is_file(), f"the shipped checkpoint {path} is missing"
    return load_checkpoint(path, "cpu")


def test_it_is_the_documented_default_model(shipped):
    config = shipped.config
    assert (config.d_model, config.n_heads, config.n_encoder_layers, config.n_decoder_layers) == (
        128,
        4,
        3,
        3,
    )
    assert config.norm_placement == "post" and config.positional == "sinusoidal"
    assert default_checkpoint_path().stat().st_size < 10 * 1024**2
    # three stages: default, calibrate from its weights, then unknowns from those
    assert shipped.metadata["recipe_name"] == "unknowns"
    assert shipped.metadata["initialized_from"]["recipe_name"] == "calibrate"
    assert shipped.metadata["initialized_from"]["initialized_from"]["recipe_name"] == "default"
    assert shipped.metadata["trained_on"]["max_input_len"] == 48
    assert shipped.metadata["trained_on"]["unknown_characters"] == ["reverse"]


PINNED = {
    "reverse: attention": "noitnetta",
    "reverse: Hello, World!": "!dlroW ,olleH",
    "reverse: 注意力机制": "制机力意注",
    "reverse: Attention Is All You Need": "deeN uoY llA sI noitnettA",
    "sort: Hello World": " HWdellloor",
    "sort: 31415926": "11234569",
    "date: 29 November 2026": "2026-11-29",
    "date: November 29, 2026": "2026-11-29",
    "date: 11/29/2026": "2026-11-29",
    "date: 29/11/2026": "2026-11-29",
    "date: 2026-11-29": "2026-11-29",
    "date: 1999.12.31": "1999-12-31",
    "date: Sunday, 29 November 2026": "2026-11-29",
    "date: 2026年11月29日": "2026-11-29",
    "date: 二〇二六年十一月二十九日": "2026-11-29",
}


def test_pinned_inputs_decode_to_their_pinned_outputs(shipped):
    outputs = greedy_decode_batch(shipped.model, shipped.tokenizer, list(PINNED))
    assert dict(zip(PINNED, outputs, strict=True)) == PINNED


def test_accuracy_on_a_small_seeded_sample(shipped):
    report = evaluate(shipped.model, shipped.tokenizer, n_per_task=len(DATE_FORMS) * 6, seed=123)
    for task in ("reverse", "sort", "date", "date ambiguous"):
        assert report.accuracy(task) >= 0.95, report.table()
    assert report.distances and max(report.distances.values()) <= 0.05, report.table()


def reading_probabilities(shipped, source: str, readings: list[str]) -> list[float]:
    """Each reading's probability at the step where the readings part (the same prefix before)."""
    part = next(i for i in range(len(readings[0])) if len({r[i] for r in readings}) > 1)
    engine = GenerationEngine(shipped, source, capture=False)
    for char in readings[0][:part]:
        engine.step(force=shipped.tokenizer.encode(char).ids[0])
    probs = engine.step().probs
    return [float(probs[shipped.tokenizer.encode(r[part]).ids[0]]) for r in readings]


@pytest.mark.parametrize(
    "text, readings",
    [
        ("03/04/2026", ["2026-04-03", "2026-03-04"]),
        ("11/02/1999", ["1999-02-11", "1999-11-02"]),
        ("01/12/2050", ["2050-12-01", "2050-01-12"]),
    ],
)
def test_an_ambiguous_date_keeps_both_readings(shipped, text, readings):
    source = f"date: {text}"
    for p in reading_probabilities(shipped, source, readings):
        assert 0.3 <= p <= 0.7, (source, p)
    beam = GenerationEngine(shipped, source, DecodingSettings(strategy="beam", beam_width=2), capture=False)
    beam.run_to_end()
    result = beam.beam
    finished = {
        shipped.tokenizer.decode(result.path(node.id)) for node in result.nodes if node.status == "finished"
    }
    assert set(readings) <= finished, finished
    sampled = set()
    for seed in range(12):
        settings = DecodingSettings(strategy="sample", seed=seed)
        engine = GenerationEngine(shipped, source, settings, capture=False)
        engine.run_to_end()
        sampled.add(engine.output_text())
    assert set(readings) <= sampled, sampled


@pytest.mark.parametrize("text", ["11/29/2026", "29/11/2026", "12/31/1999", "31/12/1999"])
def test_where_one_reading_is_a_date_it_is_certain(shipped, text):
    engine = GenerationEngine(shipped, f"date: {text}", capture=False)
    engine.run_to_end()
    assert engine.output_text() == answers_of(f"date: {text}")
    assert min(float(step.probs[step.token_id]) for step in engine.steps) >= 0.95


def answers_of(source: str) -> str:
    (answer,) = answers(source)
    return answer


@pytest.mark.slow
def test_a_cross_attention_head_follows_the_mirrored_character(shipped):
    roles = head_roles(shipped, n=40, seed=5)
    layer, head, share = roles.best_mirror_head()
    assert share >= 0.9, roles.table()
    for style in ("words", "chinese"):  # spaces and capitals; Chinese
        assert roles.mirror_any[style] >= 0.9, roles.table()
