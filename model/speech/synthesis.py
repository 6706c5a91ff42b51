"""One word spoken by espeak-ng, trimmed of silence, at 16 kHz.

espeak-ng writes a WAV to stdout at 22,050 Hz; the word is cut where its short-time energy first
and last rises above a threshold below the loudest frame, so its true start and end are known to
a few milliseconds, then resampled to 16 kHz by band-limited (FFT) resampling.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass

import numpy as np

SAMPLE_RATE = 16_000
TRIM_FRAME_S = 0.005  # energy frames of 5 ms: the word's edges are known to this
TRIM_DB = 40.0  # a frame holds sound when its energy is within this of the loudest frame


@dataclass(frozen=True)
class Voice:
    """An espeak-ng voice: a language/accent, a variant (+m1..+m7, +f1..+f4), a pitch (0-99)."""

    name: str
    variant: str = ""
    pitch: int = 50

    @property
    def espeak_name(self) -> str:
        return f"{self.name}+{self.variant}" if self.variant else self.name

    def __str__(self) -> str:
        return f"{self.espeak_name}/p{self.pitch}"


def espeak_available() -> bool:
    return shutil.which("espeak-ng") is not None


def speak(text: str, voice: Voice, speed_wpm: int) -> tuple[np.ndarray, int]:
    """Runs espeak-ng and returns (float32 samples in [-1, 1], sample rate)."""
    command = ["espeak-ng", "-v", voice.espeak_name, "-s", str(speed_wpm), "-p", str(voice.pitch)]
    command += ["--stdout", text]
    wav = subprocess.run(command, capture_output=True, check=True).stdout
    return _read_wav_bytes(wav)


def _read_wav_bytes(wav: bytes) -> tuple[np.ndarray, int]:
    """A 16-bit PCM WAV from a pipe: its header's lengths are placeholders, so read to the end."""
    if wav[:4] != b"RIFF" or wav[8:12] != b"WAVE":
        raise ValueError("espeak-ng did not write a WAV")
    position = 12
    rate = 0
    while position + 8 <= len(wav):
        chunk, size = wav[position : position + 4], int.from_bytes(wav[position + 4 : position + 8], "little")
        body = position + 8
        if chunk == b"fmt ":
            rate = int.from_bytes(wav[body + 4 : body + 8], "little")
        elif chunk == b"data":
            samples = np.frombuffer(wav[body : body + (len(wav) - body) // 2 * 2], dtype="<i2")
            return samples.astype(np.float32) / 32768.0, rate
        position = body + size
    raise ValueError("espeak-ng's WAV has no data")


def sounding_span(samples: np.ndarray, rate: int, db: float = TRIM_DB) -> tuple[int, int]:
    """(first, end) sample of the part whose 5 ms frames are within ``db`` of the loudest frame."""
    frame = max(1, round(TRIM_FRAME_S * rate))
    frames = len(samples) // frame
    if frames == 0:
        return 0, 0
    energy = np.square(samples[: frames * frame].astype(np.float64)).reshape(frames, frame).mean(axis=1)
    loud = np.flatnonzero(energy >= energy.max() * 10.0 ** (-db / 10.0))
    return int(loud[0]) * frame, int(loud[-1] + 1) * frame


def resample(samples: np.ndarray, rate: int, new_rate: int) -> np.ndarray:
    """Band-limited resampling by truncating (or padding) the spectrum."""
    if rate == new_rate:
        return samples.astype(np.float32)
    n = len(samples)
    m = round(n * new_rate / rate)
    spectrum = np.fft.rfft(samples.astype(np.float64))
    kept = np.zeros(m // 2 + 1, dtype=complex)
    k = min(len(kept), len(spectrum))
    kept[:k] = spectrum[:k]
    return (np.fft.irfft(kept, m) * (m / n)).astype(np.float32)


def synthesise_word(word: str, voice: Voice, speed_wpm: int) -> np.ndarray:
    """The word alone, at 16 kHz, from its first to its last sounding 5 ms frame."""
    samples, rate = speak(word, voice, speed_wpm)
    audio = resample(samples, rate, SAMPLE_RATE)
    start, end = sounding_span(audio, SAMPLE_RATE)
    audio = audio[start:end]
    return audio / max(1e-6, float(np.abs(audio).max())) * 0.8
