"""The shipped speech model (assets/speech-words) on its example clips (assets/audio): plain
transformers loads it offline, it writes the true transcript, and the word starts read from its
alignment heads lie near the true ones."""

import json
import wave
from pathlib import Path

import numpy as np
import pytest

from model.speech.timing import first_sounding_frame, token_times, word_times

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "assets" / "speech-words"
AUDIO = ROOT / "assets" / "audio"
EXAMPLES = json.loads((AUDIO / "words.json").read_text())


def read_wav(path: Path) -> np.ndarray:
    with wave.open(str(path)) as w:
        assert (w.getframerate(), w.getnchannels(), w.getsampwidth()) == (16_000, 1, 2)
        return np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float32) / 32768.0


@pytest.fixture(scope="module")
def shipped():
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers import WhisperForConditionalGeneration, WhisperProcessor

    torch.set_num_threads(1)
    model = WhisperForConditionalGeneration.from_pretrained(FOLDER, attn_implementation="eager")
    return model.eval(), WhisperProcessor.from_pretrained(FOLDER)


def test_the_folder_is_small_and_names_its_heads():
    assert sum(p.stat().st_size for p in FOLDER.iterdir()) < 15_000_000
    generation = json.loads((FOLDER / "generation_config.json").read_text())
    assert 1 <= len(generation["alignment_heads"]) <= 6


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["file"] for e in EXAMPLES])
def test_an_example_clip_is_heard_and_its_words_timed(shipped, example):
    import torch

    model, processor = shipped
    audio = read_wav(AUDIO / example["file"])
    inputs = processor(audio, sampling_rate=16_000, return_tensors="pt", return_attention_mask=True)
    with torch.no_grad():
        written = model.generate(inputs.input_features, attention_mask=inputs.attention_mask)
    text = processor.batch_decode(written, skip_special_tokens=True)[0]
    truth = example["transcript"].split()
    if not example["voice_heard_in_training"]:
        # the unseen voice: most words right (here 4 of 5), not all
        assert sum(a == b for a, b in zip(text.split(), truth, strict=False)) >= len(truth) - 1
        return
    assert text.split() == truth

    config = model.generation_config
    prompt = [config.decoder_start_token_id, config.no_timestamps_token_id]
    sequence = prompt + processor.tokenizer(text, add_special_tokens=False).input_ids + [config.eos_token_id]
    with torch.no_grad():
        out = model(
            input_features=inputs.input_features,
            decoder_input_ids=torch.tensor([sequence]),
            output_attentions=True,
        )
    frames = int(inputs.attention_mask.sum()) // 2
    cross = torch.stack(out.cross_attentions)[:, 0, :, :-1, :frames].numpy()  # rows generation computes
    heads = [tuple(h) for h in config.alignment_heads]
    times = token_times(
        cross, heads, frames, 0.02, "predict", 2, first_frame=first_sounding_frame(audio, 16_000)
    )
    texts = [processor.tokenizer.decode([t]) for t in sequence]
    words = word_times(texts[2 : 2 + len(times)], times)
    assert [w.word for w in words] == truth
    errors = [abs(w.start - t["start"]) for w, t in zip(words, example["words"], strict=True)]
    assert max(errors[:-1]) < 0.1  # the last word is the hardest: its row looks early
    assert errors[-1] < 0.35
