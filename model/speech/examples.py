"""Writes a few example clips with their true word times: 16 kHz mono 16-bit WAVs and
``words.json`` beside them.

    python -m model.speech.examples OUT_DIR
"""

from __future__ import annotations

import json
import sys
import wave
from pathlib import Path

import numpy as np

from model.speech.data import EVAL_SPEEDS, HELD_OUT_VOICE, TRAIN_VOICES, Clip, ClipSpec, WordBank, make_clips
from model.speech.synthesis import SAMPLE_RATE

# (file name, voices, seed): trained voices at unheard speeds, and the voice never trained on
EXAMPLES = (
    ("trained-voice-1", TRAIN_VOICES, 1),
    ("trained-voice-2", TRAIN_VOICES, 2),
    ("trained-voice-3", TRAIN_VOICES, 3),
    ("unseen-voice", (HELD_OUT_VOICE,), 4),
)


def write_wav(path: Path, audio: np.ndarray) -> None:
    pcm = np.clip(np.round(audio * 32767.0), -32768, 32767).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(SAMPLE_RATE)
        out.writeframes(pcm.tobytes())


def describe(name: str, clip: Clip, held_out: bool) -> dict:
    return {
        "file": f"{name}.wav",
        "transcript": clip.text.strip(),
        "voice": clip.voice,
        "speed_wpm": clip.speed,
        "voice_heard_in_training": not held_out,
        "seconds": round(clip.seconds, 4),
        "words": [
            {"word": w, "start": round(s, 4), "end": round(e, 4)}
            for w, s, e in zip(clip.words, clip.starts, clip.ends, strict=True)
        ],
    }


def write_examples(directory: Path) -> list[dict]:
    directory.mkdir(parents=True, exist_ok=True)
    bank = WordBank()
    described = []
    for name, voices, seed in EXAMPLES:
        spec = ClipSpec(voices=voices, speeds=EVAL_SPEEDS, min_words=3, max_words=5, noise=(0.002, 0.002))
        clip = make_clips(1, seed, spec, bank)[0]
        write_wav(directory / f"{name}.wav", clip.audio)
        described.append(describe(name, clip, voices == (HELD_OUT_VOICE,)))
    (directory / "words.json").write_text(json.dumps(described, indent=1) + "\n")
    return described


if __name__ == "__main__":
    for example in write_examples(Path(sys.argv[1])):
        print(example["file"], example["transcript"], example["voice"])
