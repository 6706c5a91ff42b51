"""Sentences of spoken words with their true times: each word synthesised alone (``synthesis``),
cached, and laid end to end with random silences, light noise and a random gain.

Everything is drawn from a seeded ``numpy`` generator, so a seed gives the same clips. The
voices are split: ``TRAIN_VOICES`` are heard in training, ``HELD_OUT_VOICE`` never is (neither
its accent nor its variant), and ``EVAL_SPEEDS`` lie between the training speeds, so clips of
trained voices at those speeds are new waveforms too.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from model.speech.synthesis import SAMPLE_RATE, Voice, synthesise_word

DIGITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
WORDS = DIGITS + (
    # numbers
    "ten", "twenty", "thirty", "forty", "fifty", "hundred",
    # colours
    "red", "green", "blue", "yellow", "black", "white", "brown", "purple", "orange", "pink",
    # animals
    "cat", "dog", "horse", "cow", "bird", "fish", "mouse", "sheep", "lion", "tiger",
    # directions
    "up", "down", "left", "right", "north", "south", "east", "west",
    # verbs
    "go", "stop", "run", "jump", "walk", "turn", "open", "close", "take", "give",
    # others
    "yes", "no", "big", "small", "hot", "cold",
)  # fmt: skip

TRAIN_VOICES = (
    Voice("en-us", "m1", 50),
    Voice("en-us", "f2", 60),
    Voice("en-gb", "m3", 45),
    Voice("en-gb", "f1", 55),
    Voice("en-gb-x-rp", "m2", 50),
    Voice("en-gb-x-rp", "f3", 65),
    Voice("en-029", "m5", 40),
    Voice("en-029", "f2", 50),
    Voice("en-gb-x-gbclan", "m6", 55),
    Voice("en-us-nyc", "m7", 45),
    Voice("en-us-nyc", "f1", 50),
    Voice("en-gb-x-gbcwmd", "m1", 60),
)
HELD_OUT_VOICE = Voice("en-gb-scotland", "m4", 50)  # neither Scottish English nor +m4 is trained
TRAIN_SPEEDS = (130, 145, 160, 175, 190)  # words per minute
EVAL_SPEEDS = (138, 152, 168, 183)


@dataclass(frozen=True)
class Clip:
    """A spoken sentence: 16 kHz mono samples and each word's true [start, end) in seconds."""

    audio: np.ndarray
    words: tuple[str, ...]
    starts: tuple[float, ...]
    ends: tuple[float, ...]
    voice: str
    speed: int

    @property
    def text(self) -> str:
        """The transcript as the model writes it: each word after a space, as Whisper's are."""
        return "".join(" " + word for word in self.words)

    @property
    def seconds(self) -> float:
        return len(self.audio) / SAMPLE_RATE


class WordBank:
    """Synthesised words, cached by (word, voice, speed): espeak-ng says a word the same way
    every time, so each is made once. ``save``/``load`` keep the cache on disk."""

    def __init__(self) -> None:
        self._audio: dict[tuple[str, str, int], np.ndarray] = {}

    def __len__(self) -> int:
        return len(self._audio)

    def get(self, word: str, voice: Voice, speed: int) -> np.ndarray:
        key = (word, str(voice), speed)
        if key not in self._audio:
            self._audio[key] = synthesise_word(word, voice, speed)
        return self._audio[key]

    def fill(self, words: Iterable[str], voices: Iterable[Voice], speeds: Iterable[int], workers: int = 2):
        """Synthesises every combination not yet cached (espeak-ng runs in ``workers`` processes)."""
        todo = [(w, v, s) for v in voices for s in speeds for w in words if (w, str(v), s) not in self._audio]
        with ThreadPoolExecutor(workers) as pool:
            for (w, v, s), audio in zip(todo, pool.map(lambda k: synthesise_word(*k), todo), strict=True):
                self._audio[(w, str(v), s)] = audio
        return len(todo)

    def save(self, path: Path) -> None:
        keys = sorted(self._audio)
        arrays = {f"{i}": self._audio[k] for i, k in enumerate(keys)}
        names = np.array(["\t".join((w, v, str(s))) for w, v, s in keys])
        np.savez(path, names=names, **arrays)

    @classmethod
    def load(cls, path: Path) -> WordBank:
        bank = cls()
        with np.load(path) as data:
            for i, name in enumerate(data["names"]):
                word, voice, speed = str(name).split("\t")
                bank._audio[(word, voice, int(speed))] = data[f"{i}"]
        return bank


@dataclass(frozen=True)
class ClipSpec:
    """How clips are drawn. Silences and gains are uniform in their ranges."""

    words: Sequence[str] = WORDS
    voices: Sequence[Voice] = TRAIN_VOICES
    speeds: Sequence[int] = TRAIN_SPEEDS
    min_words: int = 2
    max_words: int = 6
    max_seconds: float = 4.9  # the clip must fit the model's window (chunk_length 5 s)
    lead_silence: tuple[float, float] = (0.05, 0.6)
    gap_silence: tuple[float, float] = (0.04, 0.35)
    noise: tuple[float, float] = (0.0, 0.01)  # white noise's standard deviation
    gain: tuple[float, float] = (0.3, 1.0)


def make_clip(bank: WordBank, spec: ClipSpec, rng: np.random.Generator) -> Clip:
    """One random sentence laid out in time; redrawn until it fits ``spec.max_seconds``."""
    while True:
        n = int(rng.integers(spec.min_words, spec.max_words + 1))
        words = tuple(str(w) for w in rng.choice(spec.words, size=n))
        voice = spec.voices[int(rng.integers(len(spec.voices)))]
        speed = int(spec.speeds[int(rng.integers(len(spec.speeds)))])
        pieces, starts, ends = [], [], []
        t = int(rng.uniform(*spec.lead_silence) * SAMPLE_RATE)
        pieces.append(np.zeros(t, np.float32))
        for i, word in enumerate(words):
            if i:
                gap = int(rng.uniform(*spec.gap_silence) * SAMPLE_RATE)
                pieces.append(np.zeros(gap, np.float32))
                t += gap
            audio = bank.get(word, voice, speed)
            pieces.append(audio)
            starts.append(t / SAMPLE_RATE)
            t += len(audio)
            ends.append(t / SAMPLE_RATE)
        tail = int(rng.uniform(0.05, 0.3) * SAMPLE_RATE)
        pieces.append(np.zeros(tail, np.float32))
        if (t + tail) / SAMPLE_RATE <= spec.max_seconds:
            break
    audio = np.concatenate(pieces) * rng.uniform(*spec.gain)
    audio = audio + rng.normal(0.0, rng.uniform(*spec.noise), len(audio))
    audio = np.clip(audio, -1.0, 1.0).astype(np.float32)
    return Clip(audio, words, tuple(starts), tuple(ends), str(voice), speed)


def make_clips(n: int, seed: int, spec: ClipSpec = ClipSpec(), bank: WordBank | None = None) -> list[Clip]:
    """``n`` clips from ``seed``: the same seed and spec give the same clips."""
    bank = bank if bank is not None else WordBank()
    rng = np.random.default_rng(seed)
    return [make_clip(bank, spec, rng) for _ in range(n)]


def timed_fill(bank: WordBank, spec: ClipSpec) -> tuple[int, float]:
    """Synthesises all of ``spec``'s words; returns (how many were new, seconds taken)."""
    begin = time.perf_counter()
    made = bank.fill(spec.words, spec.voices, spec.speeds)
    return made, time.perf_counter() - begin
