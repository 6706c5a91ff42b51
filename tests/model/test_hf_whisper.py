"""A Hugging Face Whisper folder as a family: audio in, its prompt, its attention over time
frames, on a tiny random model built in the tests (no download)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from model.core.errors import CheckpointError
from model.generation.engine import GenerationEngine
from model.source import AudioSource, SourceError
from tests.hf_factories import WHISPER_WINDOW_S, write_tone

transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def whisper(whisper_folder):
    from model.hf.loading import open_hf

    return open_hf(whisper_folder, "cpu")


@pytest.fixture(scope="module")
def tone(tmp_path_factory):
    return write_tone(tmp_path_factory.mktemp("audio") / "tone.wav", seconds=1.2)


def library_model(folder):
    model = transformers.WhisperForConditionalGeneration.from_pretrained(folder, attn_implementation="eager")
    return model.eval()


def test_the_source_is_time_frames_with_the_spectrogram(whisper, tone):
    prepared = whisper.prepare_source(AudioSource(str(tone)))
    axis = prepared.axis
    positions = WHISPER_WINDOW_S * 50
    assert whisper.info.max_source_len == positions
    assert axis.kind == "frames" and len(axis) == positions
    assert axis.seconds_per_position == pytest.approx(0.02)
    assert axis.labels[:2] == ("0.00 s", "0.02 s")
    assert axis.heard == math.ceil(1.2 * 16000 / 320)  # the tone's 1.2 s, in 20-ms positions
    features = transformers.WhisperFeatureExtractor.from_pretrained(whisper.path)
    from model.audio import load_audio

    expected = features(load_audio(tone).samples, sampling_rate=16000, return_tensors="np").input_features[0]
    assert axis.picture.shape == (80, 2 * positions)
    np.testing.assert_allclose(axis.picture, expected, atol=1e-6)


def test_greedy_stepping_chooses_what_generate_chooses(whisper, whisper_folder, tone):
    engine = GenerationEngine(whisper, AudioSource(str(tone)))
    engine.run_to_end()
    library = library_model(whisper_folder)
    features = torch.as_tensor(engine.encoder.source_axis.picture)[None]
    generated = library.generate(features, do_sample=False, num_beams=1, return_dict_in_generate=True)
    sequence = [int(t) for t in generated.sequences[0]]
    assert sequence[0] == whisper.tokenizer.bos_id  # the library's sequence holds its start token
    ours = engine.output_ids
    # the same tokens as far as both go: this transformers version lets Whisper's generate run past
    # the settings' max_length (to 29-32 tokens for max_length 8-20 here); stepping stops at it
    assert len(ours) == whisper.rules.max_length - 1
    assert sequence[1 : 1 + len(ours)] == ours
    # the prompt: a detected language (one of the two), then no-timestamps, each given not generated
    assert [s.prompted for s in engine.steps[:3]] == [True, True, False]
    assert ours[0] in whisper.model.generation_config.lang_to_id.values()
    assert ours[1] == whisper.model.generation_config.no_timestamps_token_id


def test_every_attention_array_equals_the_librarys_eager_forward(whisper, whisper_folder, tone):
    engine = GenerationEngine(whisper, AudioSource(str(tone)))
    engine.run_to_end()
    library = library_model(whisper_folder)
    features = torch.as_tensor(engine.encoder.source_axis.picture)[None]
    decoder_input = torch.tensor([[whisper.tokenizer.bos_id, *engine.output_ids[:-1]]])
    with torch.no_grad():
        out = library(input_features=features, decoder_input_ids=decoder_input, output_attentions=True)
    encoder = np.stack([a[0].numpy() for a in out.encoder_attentions])  # [L, H, S, S]
    np.testing.assert_allclose(engine.encoder.attention["enc_self"], encoder, atol=1e-5)
    cross = np.stack([a[0].numpy() for a in out.cross_attentions])  # [L, H, T, S]
    self_attention = np.stack([a[0].numpy() for a in out.decoder_attentions])  # [L, H, T, T]
    for t, step in enumerate(engine.steps):
        np.testing.assert_allclose(step.attention["cross"], cross[:, :, t], atol=1e-5)
        np.testing.assert_allclose(step.attention["dec_self"], self_attention[:, :, t, : t + 1], atol=1e-5)


def test_text_is_refused_in_its_own_words_and_a_missing_feature_extractor_is_named(
    whisper, whisper_folder, tmp_path
):
    with pytest.raises(SourceError, match="hears audio; open an audio file"):
        GenerationEngine(whisper, "reverse: hello")
    with pytest.raises(SourceError, match=r"^nothing\.wav: "):
        GenerationEngine(whisper, AudioSource(str(tmp_path / "nothing.wav")))
    import shutil

    from model.hf.loading import open_hf

    copy = tmp_path / "no-extractor"
    shutil.copytree(whisper_folder, copy)
    (copy / "preprocessor_config.json").unlink()
    with pytest.raises(CheckpointError, match=r"^no-extractor: preprocessor_config\.json is missing"):
        open_hf(copy, "cpu")


def test_a_text_family_refuses_audio_in_its_own_words(tone):
    from tests.factories import small_family

    with pytest.raises(SourceError, match="reads text; it cannot read tone.wav"):
        GenerationEngine(small_family(), AudioSource(str(tone)))


def test_trace_of_audio_holds_frames_the_spectrogram_and_the_prompt(whisper_folder, tone, tmp_path, capsys):
    import json

    from visualizer.cli.attnviz import main

    out = tmp_path / "speech.npz"
    argv = ["trace", "--checkpoint", str(whisper_folder), "--audio", str(tone), "--out", str(out)]
    assert main(argv) == 0
    arrays = np.load(out)
    summary = json.loads(out.with_suffix(".json").read_text())
    assert (summary["source"], summary["source_kind"], summary["source_axis"]) == (
        "tone.wav",
        "audio",
        "frames",
    )
    assert summary["seconds_per_position"] == pytest.approx(0.02) and summary["heard_positions"] == 60
    positions = WHISPER_WINDOW_S * 50
    steps = len(arrays["out_ids"])
    assert (
        arrays["cross"].shape[2:] == (steps, positions) and arrays["enc_self"].shape[2:] == (positions,) * 2
    )
    assert arrays["spectrogram"].shape == (80, 2 * positions)
    assert list(arrays["prompted"][:3]) == [True, True, False]
    # a text source, and no source at all, are refused in one line each
    assert (
        main(["trace", "--checkpoint", str(whisper_folder), "--text", "hi", "--out", str(out), "--overwrite"])
        == 2
    )
    assert "hears audio" in capsys.readouterr().err


def test_the_prompt_reads_languages_as_generate_takes_them():
    from types import SimpleNamespace

    from model.hf.architectures import whisper_prompt

    settings = dict(
        task=None,
        lang_to_id={"<|en|>": 2, "<|fr|>": 3},
        task_to_id={"translate": 4, "transcribe": 5},
        no_timestamps_token_id=6,
        forced_decoder_ids=None,
    )
    for language in ("fr", "<|fr|>", "French", "french"):  # a code, a token, a name (fine-tuning guides)
        assert whisper_prompt(SimpleNamespace(**settings, language=language)) == ((3,), (5,), (6,))
    with pytest.raises(CheckpointError, match="'klingon' is not one of the model's languages"):
        whisper_prompt(SimpleNamespace(**settings, language="klingon"))
    # none set: the language is detected (any of them), no task, then no-timestamps
    assert whisper_prompt(SimpleNamespace(**settings, language=None)) == ((2, 3), (6,))
    # old forced ids that name the task leave nothing to detect, as generate reads them
    forced = SimpleNamespace(**{**settings, "forced_decoder_ids": [[1, 5]]}, language=None)
    assert whisper_prompt(forced) == ((5,), (6,))


def test_a_detected_language_is_the_likeliest_under_every_strategy(whisper, tone):
    from model.generation.decoding_settings import DecodingSettings

    greedy = GenerationEngine(whisper, AudioSource(str(tone)))
    greedy.step()
    chosen = greedy.steps[0].token_id
    for seed in range(6):  # sampling hot: the language is still detected, not drawn
        settings = DecodingSettings(strategy="sample", temperature=5.0, seed=seed)
        engine = GenerationEngine(whisper, AudioSource(str(tone)), settings)
        engine.step()
        assert engine.steps[0].token_id == chosen
