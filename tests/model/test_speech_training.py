"""The synthetic speech data (espeak-ng words with known times) and a seconds-long training run
whose folder reloads with plain transformers. What needs espeak-ng is skipped where it is not
installed (CI installs it: apt-get install espeak-ng)."""

import json

import numpy as np
import pytest

from model.speech.data import TRAIN_VOICES, WORDS, ClipSpec, WordBank, make_clips
from model.speech.synthesis import SAMPLE_RATE, espeak_available, sounding_span, synthesise_word

needs_espeak = pytest.mark.skipif(
    not espeak_available(), reason="espeak-ng is not installed (apt-get install espeak-ng)"
)

QUIET = ClipSpec(words=WORDS[:12], voices=TRAIN_VOICES[:2], speeds=(160,), noise=(0.0, 0.0), gain=(1.0, 1.0))


def frame_energy_db(audio, start_s, seconds=0.005):
    """Energy of the 5 ms from ``start_s``, in dB below the clip's loudest 5 ms frame."""
    frame = int(seconds * SAMPLE_RATE)
    frames = audio[: len(audio) // frame * frame].reshape(-1, frame)
    loudest = np.square(frames).mean(axis=1).max()
    at = int(round(start_s * SAMPLE_RATE))
    return 10 * np.log10(np.square(audio[at : at + frame]).mean() / loudest + 1e-30)


@needs_espeak
def test_a_word_is_trimmed_to_where_it_sounds():
    audio = synthesise_word("seven", TRAIN_VOICES[0], 160)
    assert 0.2 < len(audio) / SAMPLE_RATE < 1.0
    assert np.abs(audio).max() == pytest.approx(0.8, abs=1e-3)
    start, end = sounding_span(audio, SAMPLE_RATE)
    assert start == 0 and end >= len(audio) - 0.005 * SAMPLE_RATE  # nothing left to trim


def test_sounding_span_finds_a_tone_in_silence():
    tone = np.zeros(SAMPLE_RATE, np.float32)
    tone[4000:9000] = np.sin(np.arange(5000) * 0.3)
    start, end = sounding_span(tone, SAMPLE_RATE)
    assert abs(start - 4000) <= 80 and abs(end - 9000) <= 80


@needs_espeak
def test_each_words_known_time_is_where_its_energy_is():
    bank = WordBank()
    for clip in make_clips(6, seed=1, spec=QUIET, bank=bank):
        assert clip.seconds <= QUIET.max_seconds
        assert list(clip.starts) == sorted(clip.starts)
        sounding = np.zeros(len(clip.audio), bool)
        for word, start, end in zip(clip.words, clip.starts, clip.ends, strict=True):
            a, b = round(start * SAMPLE_RATE), round(end * SAMPLE_RATE)
            assert b - a == len(bank.get(word, next(v for v in TRAIN_VOICES if str(v) == clip.voice), 160))
            sounding[a:b] = True
            # its first and last 5 ms hold sound (within 40 dB of the loudest) ...
            assert frame_energy_db(clip.audio, start) > -40.5
            assert frame_energy_db(clip.audio, end - 0.005) > -40.5
        # ... and outside the words there is silence
        assert not np.any(clip.audio[~sounding])


@needs_espeak
def test_the_builder_is_reproducible_from_its_seed():
    bank = WordBank()
    first = make_clips(4, seed=7, spec=QUIET, bank=bank)
    again = make_clips(4, seed=7, spec=QUIET, bank=WordBank())
    other = make_clips(4, seed=8, spec=QUIET, bank=bank)
    for a, b in zip(first, again, strict=True):
        assert a.words == b.words and a.starts == b.starts and np.array_equal(a.audio, b.audio)
    assert [c.words for c in first] != [c.words for c in other]


@needs_espeak
def test_the_word_cache_survives_a_round_trip(tmp_path):
    bank = WordBank()
    bank.fill(WORDS[:3], TRAIN_VOICES[:1], (160,))
    bank.save(tmp_path / "words.npz")
    loaded = WordBank.load(tmp_path / "words.npz")
    assert len(loaded) == 3
    np.testing.assert_array_equal(
        loaded.get("one", TRAIN_VOICES[0], 160), bank.get("one", TRAIN_VOICES[0], 160)
    )


@needs_espeak
def test_a_tiny_training_run_writes_a_folder_transformers_loads(tmp_path, capsys):
    pytest.importorskip("transformers")
    import torch
    from transformers import WhisperForConditionalGeneration, WhisperProcessor

    from model.speech.train import main

    out = tmp_path / "run"
    assert main(["--out", str(out), "--tiny", "--steps", "20", "--batch", "8", "--eval-every", "20"]) == 0
    assert main(["--out", str(out), "--tiny", "--steps", "30", "--batch", "8", "--resume"]) == 0
    log = capsys.readouterr().out
    assert "resumed at step 20" in log and "step 30/30" in log
    folder = out / "model"
    names = {p.name for p in folder.iterdir()}
    assert {"config.json", "generation_config.json", "model.safetensors", "preprocessor_config.json"} <= names
    assert sum(p.stat().st_size for p in folder.iterdir()) < 2_000_000

    from safetensors import safe_open

    with safe_open(folder / "model.safetensors", "pt") as f:
        assert {f.get_tensor(k).dtype for k in f.keys()} == {torch.float16}  # noqa: SIM118 (safe_open is not iterable)
    generation = json.loads((folder / "generation_config.json").read_text())
    assert generation["alignment_heads"] and generation["no_timestamps_token_id"]

    model = WhisperForConditionalGeneration.from_pretrained(folder)
    processor = WhisperProcessor.from_pretrained(folder)
    assert model.dtype == torch.float32
    prompt = processor.tokenizer(" zero one").input_ids[:2]
    assert prompt == [generation["decoder_start_token_id"], generation["no_timestamps_token_id"]]
    clip = make_clips(1, seed=3, spec=QUIET)[0]
    features = processor(clip.audio, sampling_rate=SAMPLE_RATE, return_tensors="pt").input_features
    assert features.shape == (1, 80, 500)
    with torch.no_grad():
        out = model.generate(features, return_token_timestamps=True)
    assert out["sequences"].shape == out["token_timestamps"].shape
    assert isinstance(processor.batch_decode(out["sequences"], skip_special_tokens=True)[0], str)


def test_word_error_rate_counts_substitutions_insertions_and_deletions():
    from model.speech.data import Clip
    from model.speech.train import score, word_errors

    assert word_errors(" red cat", " red cat") == 0
    assert word_errors(" red cat", " red dog") == 1
    assert word_errors(" red cat", " red") == 1
    assert word_errors(" red cat", " big red cat six") == 2
    clip = Clip(np.zeros(1, np.float32), ("red", "cat"), (0.0, 0.5), (0.4, 0.9), "v", 160)
    assert score([clip, clip], [" red cat", " red dog"]) == (0.25, 0.5)
