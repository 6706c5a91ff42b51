"""Hostile input: any text encodes, runs to the end and is reported; too long is refused in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from model.core.tokenizer import SPECIAL_TOKENS
from model.generation.engine import GenerationEngine, SourceError
from model.tasks.train import default_tokenizer
from model.transformer.checkpoint import load_checkpoint, save_checkpoint
from tests.factories import small_model
from visualizer.cli.attnviz import main

TOKENIZER = default_tokenizer()
VOCABULARY = TOKENIZER.tokens[len(SPECIAL_TOKENS) :]

HOSTILE_CHARACTERS = [
    "\x00",  # NUL
    "\x1b",  # escape: terminal control sequences start here
    "\x7f",
    "\t",
    "\n",
    "\r",
    "\u200b",  # zero-width space
    "\u200f",  # right-to-left mark
    "\u202e",  # right-to-left override
    "\u0301",  # combining acute accent
    "e\u0301",  # é as two code points
    "\u05d0\u05d1",  # Hebrew
    "\u0627\u0644",  # Arabic
    "\U0001f600",  # emoji
    "\U0001f44d\U0001f3fd",  # emoji with a skin-tone modifier
    "\U0001f469\u200d\U0001f469\u200d\U0001f467",  # a family: three emoji joined by ZWJ
    "\ufeff",  # byte order mark
    "\ufffd",  # the replacement character itself
    "\U0010ffff",  # the last code point
]
HOSTILE_TEXT = st.lists(
    st.one_of(
        st.text(),
        st.text(alphabet=st.sampled_from(VOCABULARY)),
        st.sampled_from([*SPECIAL_TOKENS, "<PAD>", "<eos", "<<eos>>", "</s>"]),
        st.sampled_from(HOSTILE_CHARACTERS),
    ),
    max_size=8,
).map("".join)


def expected_unknown(text: str) -> list[tuple[int, str]]:
    return [(i, c) for i, c in enumerate(text) if TOKENIZER.index.get(c, 0) < len(SPECIAL_TOKENS)]


# -- the tokenizer -----------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(VOCABULARY)))
def test_vocabulary_text_round_trips(text):
    encoded = TOKENIZER.encode(text)
    assert encoded.unknown == []
    assert TOKENIZER.decode(encoded.ids) == text
    assert TOKENIZER.decode(TOKENIZER.encode_source(text).ids) == text


@settings(max_examples=200, deadline=None)
@given(HOSTILE_TEXT)
def test_any_text_encodes_in_range_and_reports_every_unknown_character(text):
    encoded = TOKENIZER.encode(text)
    assert len(encoded.ids) == len(text)
    assert all(0 <= i < len(TOKENIZER) for i in encoded.ids)
    # literal "<pad>" / "<eos>" text is characters: no special id but <unk> ever comes from text
    assert not {TOKENIZER.pad_id, TOKENIZER.bos_id, TOKENIZER.eos_id} & set(encoded.ids)
    assert encoded.unknown == expected_unknown(text)
    unknown_positions = {p for p, _ in encoded.unknown}
    for position, token_id in enumerate(encoded.ids):
        assert (token_id == TOKENIZER.unk_id) == (position in unknown_positions)
    source = TOKENIZER.encode_source(text).ids
    assert source[:-1] == encoded.ids and source.count(TOKENIZER.eos_id) == 1


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF) | st.sampled_from("ab")))
def test_lone_surrogates_become_unknown(text):
    """A command line's undecodable bytes arrive as lone surrogates (surrogateescape)."""
    encoded = TOKENIZER.encode(text)
    assert encoded.unknown == expected_unknown(text)
    assert TOKENIZER.decode(encoded.ids) == "".join(c if c in "ab" else "\ufffd" for c in text)


# -- the engine --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def checkpoint(tiny_checkpoint_path):
    return load_checkpoint(tiny_checkpoint_path, "cpu")


@pytest.fixture(scope="module")
def never_ends_path(tmp_path_factory):
    """An untied model whose output layer is zero: every logit ties, greedy takes id 0, never <eos>."""
    model, tokenizer = small_model(seed=2, tie_embeddings=False, max_len=8)
    with torch.no_grad():
        model.generator.weight.zero_()
    path = tmp_path_factory.mktemp("never-ends") / "never-ends.safetensors"
    save_checkpoint(path, model, tokenizer)
    return path


def test_empty_source_is_refused(checkpoint):
    with pytest.raises(SourceError, match="empty"):
        GenerationEngine(checkpoint, "")


@pytest.mark.parametrize("source", [" ", "   ", "\t", "\n \n", "\u00a0"])
def test_whitespace_only_source_runs_and_stops_cleanly(checkpoint, source):
    """Whitespace is runnable text (the CLI refuses it as a likely mistake; the engine does not)."""
    engine = GenerationEngine(checkpoint, source)
    engine.run_to_end()
    assert engine.stop_reason in ("eos", "max_length")
    assert 1 <= len(engine.steps) <= checkpoint.config.max_len
    assert engine.step() is None


def test_source_longer_than_the_model_reads_is_refused_with_the_limit(checkpoint):
    limit = checkpoint.config.max_len - 1  # <eos> takes the last position
    GenerationEngine(checkpoint, "a" * limit).run_to_end()
    for source in ("a" * (limit + 1), "\U0001f600" * (limit + 1), "a" * 100_000):
        with pytest.raises(SourceError, match=f"at most {limit}") as info:
            GenerationEngine(checkpoint, source)
        assert "\n" not in str(info.value)


def test_hostile_characters_run_to_the_end_as_unk(checkpoint):
    source = "reverse: " + "".join(HOSTILE_CHARACTERS)[: checkpoint.config.max_len - 10]
    engine = GenerationEngine(checkpoint, source)
    engine.run_to_end()
    assert engine.finished
    assert engine.encoder.unknown == expected_unknown(source) != []
    for position, _ in engine.encoder.unknown:
        assert engine.encoder.tokens[position] == "<unk>"
    assert all(np.isfinite(step.logits).all() for step in engine.steps)


@settings(max_examples=40, deadline=None)
@given(HOSTILE_TEXT.filter(lambda text: 0 < len(text) < 40))
def test_any_short_text_runs_steps_with_finite_logits(checkpoint, text):
    engine = GenerationEngine(checkpoint, text)
    for _ in range(3):
        record = engine.step()
        if record is None:
            break
        assert np.isfinite(record.logits).all() and np.isfinite(record.probs).all()
    assert engine.encoder.unknown == expected_unknown(text)


def test_generation_stops_at_the_maximum_length(never_ends_path):
    never_ends = load_checkpoint(never_ends_path, "cpu")
    engine = GenerationEngine(never_ends, "21")
    assert engine.run_to_end() == never_ends.config.max_len
    assert engine.stop_reason == "max_length"
    assert never_ends.tokenizer.eos_id not in engine.output_ids
    assert engine.step() is None and len(engine.steps) == never_ends.config.max_len


def test_forced_tokens_stop_at_the_maximum_length(checkpoint):
    engine = GenerationEngine(checkpoint, "reverse: abc")
    a = checkpoint.tokenizer.index["a"]
    while not engine.finished:
        engine.step(force=a)
    assert engine.stop_reason == "max_length"
    assert engine.output_text() == "a" * checkpoint.config.max_len


# -- the command line --------------------------------------------------------------------------


def trace(checkpoint_path, text, out, capsys) -> tuple[int, list[str], str]:
    code = main(["trace", "--checkpoint", str(checkpoint_path), "--text", text, "--out", str(out)])
    captured = capsys.readouterr()
    return code, captured.err.splitlines(), captured.out


def test_cli_reports_each_unknown_character_and_succeeds(tiny_checkpoint_path, tmp_path, capsys):
    text = "reverse: a\U0001f600\u202e\u05d0\u0301\x00b"
    code, err, _ = trace(tiny_checkpoint_path, text, tmp_path / "t.npz", capsys)
    assert code == 0
    unknown = expected_unknown(text)
    for position, char in unknown:
        assert any(f"{char!r} at position {position}" in line and "<unk>" in line for line in err), err
    summary = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))
    assert summary["source"] == text
    assert [(u["position"], u["character"]) for u in summary["unknown_characters"]] == unknown
    assert (tmp_path / "t.npz").is_file()


@pytest.fixture(scope="module")
def trained_on_path(tmp_path_factory):
    """A random model whose header says what it was trained on, as ``attnviz train`` writes it."""
    from model.tasks.coverage import TRAINED_ON, trained_on

    model, tokenizer = small_model(seed=3, max_len=64)
    path = tmp_path_factory.mktemp("trained-on") / "trained-on.safetensors"
    save_checkpoint(path, model, tokenizer, {TRAINED_ON: trained_on(["reverse", "sort"])})
    return path


def test_cli_says_what_the_window_says_about_a_source_one_line_each(trained_on_path, tmp_path, capsys):
    """A 49-character input with a character never seen: the window's amber line (each finding),
    its <unk> line, each once on stderr; the trace is still written."""
    from model.tasks.coverage import outside_training, trained_on
    from visualizer.state.findings import describe

    text = "reverse: " + "ab" * 24 + "\u00e9"
    findings = outside_training(text, trained_on(["reverse", "sort"]))
    assert [f.code for f in findings] == ["characters", "too_long"]
    code, err, _ = trace(trained_on_path, text, tmp_path / "t.npz", capsys)
    assert code == 0, err
    expected = [
        "attnviz: \u2018\u00e9\u2019 never appeared in reverse: training",
        "attnviz: 48 characters is the longest reverse: input this model was trained on (this one has 49)",
        "attnviz: not in the vocabulary, read as <unk>: '\u00e9' at position 57",
    ]
    assert [f"attnviz: {describe(f, 'en')}" for f in findings] == expected[:2]
    assert err[:3] == expected, err
    assert err[-1] == f"wrote {tmp_path / 't.npz'} and {tmp_path / 't.json'}"
    assert all(line == "attnviz: stopped at the maximum length of 64 tokens" for line in err[3:-1]), err


def test_cli_says_nothing_about_a_source_inside_the_training(trained_on_path, tmp_path, capsys):
    code, err, _ = trace(trained_on_path, "sort: 31415", tmp_path / "t.npz", capsys)
    assert code == 0
    assert [line for line in err if "stopped at the maximum" not in line] == [
        f"wrote {tmp_path / 't.npz'} and {tmp_path / 't.json'}"
    ]


def test_cli_refuses_a_too_long_source_in_one_line(tiny_checkpoint_path, tmp_path, capsys):
    limit = load_checkpoint(tiny_checkpoint_path, "cpu").config.max_len - 1
    out = tmp_path / "out"
    out.mkdir()
    code, err, stdout = trace(tiny_checkpoint_path, "x" * (limit + 1), out / "t.npz", capsys)
    assert code == 2 and stdout == ""
    assert len(err) == 1 and f"at most {limit}" in err[0] and "Traceback" not in err[0]
    assert list(out.iterdir()) == []


def test_cli_writes_a_trace_for_undecodable_command_line_bytes(tiny_checkpoint_path, tmp_path, capsys):
    """Bytes that are not UTF-8 reach argv as lone surrogates; the JSON must still be written whole."""
    text = "reverse: ab\udcff"
    code, err, _ = trace(tiny_checkpoint_path, text, tmp_path / "t.npz", capsys)
    assert code == 0, err
    raw = (tmp_path / "t.json").read_bytes()
    raw.decode("utf-8")  # valid UTF-8: the surrogate is a JSON \u escape
    assert json.loads(raw)["source"] == text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json", "t.npz"]  # no .tmp left behind


def test_cli_says_when_generation_stopped_at_the_maximum_length(never_ends_path, tmp_path, capsys):
    code, err, _ = trace(never_ends_path, "21", tmp_path / "t.npz", capsys)
    assert code == 0
    assert any("maximum length of 8" in line for line in err), err
    assert json.loads((tmp_path / "t.json").read_text())["stop_reason"] == "max_length"
