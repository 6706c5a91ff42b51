"""Audio files read for speech models: one window of mono float32 samples at the model's rate.

``load_audio`` reads WAV, FLAC, Ogg Vorbis, Opus, MP3 and AIFF through libsndfile (the
``soundfile`` package), mixes every channel down to mono by their mean, resamples to the
model's rate with soxr, and reads only the first window (30 s, what a Whisper-style encoder
hears at once) however long the file is: a two-hour recording costs what 30 s cost. Every
file that cannot be used is one line of ``AudioError`` that begins with the file's name.

A file cut short in its data loads the part that is there, with a notice (``damaged``);
one whose header is cut or unreadable is refused. An Ogg file cut short is refused too:
libsndfile reads its end to learn its length.

numpy, soundfile and soxr only: the last two are the ``[audio]`` extra, imported when a
file is read, so that importing this module never needs them.
"""

from __future__ import annotations

import importlib
import math
import numbers
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import numpy as np

from model.core.errors import OneLineError

INSTALL_HINT = "pip install 'attention-visualizer[audio]'"
# 8 kHz: telephone speech, the least a speech model can use; 192 kHz: the most recorders write
MIN_RATE, MAX_RATE = 8_000, 192_000
BLOCK_FRAMES = 32_768  # frames read at a time: a long file is never held whole
# Lossy decoders and the resampler overshoot full scale by a few per cent, which is clipped;
# a float file far beyond it was written on another scale (e.g. ±32768) and clipping it
# would hand the model a square wave.
FULL_SCALE_LIMIT = 2.0
# (libsndfile's major format, the subtype it needs or None, the name said to users, suffixes)
FORMATS = (
    ("WAV", None, "WAV", (".wav",)),
    ("FLAC", None, "FLAC", (".flac",)),
    ("OGG", "VORBIS", "Ogg Vorbis", (".ogg", ".oga")),
    ("OGG", "OPUS", "Opus", (".opus",)),
    ("MP3", None, "MP3", (".mp3",)),
    ("AIFF", None, "AIFF", (".aif", ".aiff")),
)
# the first bytes of files people rename by mistake, to say what the file is instead
LOOKS_LIKE = (
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive"),
)
TEXT_BYTES = frozenset(range(0x20, 0x7F)) | frozenset(b"\t\n\r\f") | frozenset(range(0x80, 0x100))
HEAD_BYTES = 512
# libsndfile's error codes: 1 (the format is not recognised) is public API; 7 is what its MP3
# reader answers for any file it cannot decode ("File does not exist or is not a regular
# file"), which would mislead here, where the file was just found
UNRECOGNISED_FORMAT, BAD_FILE = 1, 7
# libsndfile reads a WAV cut in its data without complaint, its length trimmed to what is
# there; the only trace is this line of its log. Sizes from 2**31 - 1 up are what streaming
# writers put before they know the length, not a promise.
WAV_DATA_LOG = re.compile(r"^data\s*:\s*(\d+)\s*\(should be (\d+)\)", re.MULTILINE)
STREAMING_SIZE = 0x7FFF_FFFF


class AudioError(OneLineError):
    """An audio file cannot be used; the message says why in one line, file name first."""


class AudioSupportMissing(ImportError):
    """The ``[audio]`` extra is not installed; the message says what to install."""


@dataclass(frozen=True, eq=False)  # eq=False: arrays do not compare to one truth value
class AudioClip:
    """The first window of an audio file, mono, at ``rate``."""

    samples: np.ndarray  # float32 [N] in [-1, 1], read-only
    rate: int  # after resampling
    source_rate: int
    channels: int  # in the file, before the mixdown
    duration_s: float  # of the whole file by its header; of what is there when ``damaged``
    truncated: bool  # the file is longer than the window, and only the window was read
    path: str
    damaged: bool = False  # the file stops sooner than its header says (cut short or damaged)

    @property
    def notice(self) -> str | None:
        """One line for the user when the model hears less than the whole file, else None."""
        name = _name(Path(self.path))
        if self.truncated:
            damage = " (less than its header says: it is cut short or damaged)" if self.damaged else ""
            heard = _say_length(len(self.samples) / self.rate)
            return f"{name} is {_say_length(self.duration_s)} long{damage}; the model hears its first {heard}"
        if self.damaged:
            return (
                f"{name} stops after {_say_length(self.duration_s)}, sooner than its header says "
                "(the file is cut short or damaged); the model hears what is there"
            )
        return None


def load_audio(path: str | os.PathLike, *, rate: int = 16_000, max_seconds: float | None = 30.0) -> AudioClip:
    """The first ``max_seconds`` of the file at ``path`` (all of it for None), mono, at ``rate``."""
    rate = _samples_per_second(rate)
    if max_seconds is not None and not 0 < max_seconds < math.inf:
        raise ValueError(f"max_seconds must be positive and finite, or None; not {max_seconds!r}")
    soundfile = _import("soundfile")
    path = Path(path)
    name = _name(path)
    head = _read_head(path, name)
    with _open(soundfile, path, name, head) as sound:
        source_rate, channels, frames = sound.samplerate, sound.channels, sound.frames
        if not MIN_RATE <= source_rate <= MAX_RATE:
            raise AudioError(
                f"{name}: its sample rate, {source_rate:,} Hz, is outside the "
                f"{MIN_RATE:,}–{MAX_RATE:,} Hz this app reads"
            )
        if frames <= 0:
            raise AudioError(f"{name}: has no sound: 0 samples")
        window = frames if max_seconds is None else min(frames, max(1, round(max_seconds * source_rate)))
        mono = _read_mono(soundfile, sound, window, name)
        header_overstates = _wav_header_overstates(sound)
    stopped_early = len(mono) < window
    duration_s = (len(mono) if stopped_early else frames) / source_rate
    samples = _resample(mono, source_rate, rate)
    np.clip(samples, -1.0, 1.0, out=samples)
    samples.flags.writeable = False
    return AudioClip(
        samples=samples,
        rate=rate,
        source_rate=source_rate,
        channels=channels,
        duration_s=duration_s,
        truncated=not stopped_early and window < frames,
        path=str(path),
        damaged=stopped_early or header_overstates,
    )


def save_wav(path: str | os.PathLike, samples: np.ndarray, rate: int) -> None:
    """``samples`` ([N] or [N, channels], in [-1, 1]; beyond is clipped) as a 16-bit PCM WAV file."""
    soundfile = _import("soundfile")
    samples = np.asarray(samples, dtype=np.float32)
    if samples.ndim not in (1, 2) or samples.size == 0:
        raise ValueError(f"samples must be [N] or [N, channels] and not empty, not of shape {samples.shape}")
    if not np.isfinite(samples).all():
        raise ValueError("samples must be finite numbers")
    rate = _samples_per_second(rate)
    # libsndfile wraps values beyond full scale around when it converts to integers
    samples = np.clip(samples, -1.0, 1.0)
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")  # a reader never sees half a file
    soundfile.write(str(temporary), samples, rate, format="WAV", subtype="PCM_16")
    os.replace(temporary, path)


def supported_suffixes() -> tuple[str, ...]:
    """The file suffixes an open dialog should offer: those this libsndfile reads, checked now."""
    return tuple(suffix for _, _, _, suffixes in _readable_formats() for suffix in suffixes)


def _readable_formats() -> list[tuple]:
    soundfile = _import("soundfile")
    formats = soundfile.available_formats()
    return [
        entry
        for entry in FORMATS
        if entry[0] in formats and (entry[1] is None or entry[1] in soundfile.available_subtypes(entry[0]))
    ]


def _import(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except (ImportError, OSError) as error:  # OSError: soundfile is there, its libsndfile is not
        raise AudioSupportMissing(f"reading audio files needs the {name} package: {INSTALL_HINT}") from error


def _samples_per_second(rate: int) -> int:
    if isinstance(rate, bool) or not isinstance(rate, numbers.Integral) or rate <= 0:
        raise ValueError(f"rate must be a positive whole number of samples per second, not {rate!r}")
    return int(rate)


def _name(path: Path) -> str:
    return path.name or str(path)


def _read_head(path: Path, name: str) -> bytes:
    """The file's first bytes; a missing, unreadable, special or empty file is refused."""
    try:
        mode = path.stat().st_mode
        if stat.S_ISREG(mode):
            with open(path, "rb") as file:
                head = file.read(HEAD_BYTES)
    except (FileNotFoundError, NotADirectoryError) as error:
        raise AudioError(f"{name}: no such file") from error
    except PermissionError as error:
        raise AudioError(f"{name}: cannot be read: permission denied") from error
    except OSError as error:
        raise AudioError(f"{name}: cannot be read ({error.strerror or error})") from error
    except ValueError as error:  # e.g. a NUL byte in the path
        raise AudioError(f"{name!r}: is not a usable file name") from error
    if stat.S_ISDIR(mode):
        raise AudioError(f"{name}: is a folder, not an audio file")
    if not stat.S_ISREG(mode):
        raise AudioError(f"{name}: is not a regular file")
    if not head:
        raise AudioError(f"{name}: is empty (0 bytes)")
    return head


def _open(soundfile: ModuleType, path: Path, name: str, head: bytes):
    try:
        return soundfile.SoundFile(str(path))
    except soundfile.LibsndfileError as error:
        if error.code == UNRECOGNISED_FORMAT:
            readable = _say_list([entry[2] for entry in _readable_formats()])
            looks_like = _looks_like(head)
            if looks_like:
                message = f"{name}: is not audio but {looks_like} (the app reads {readable} files)"
            else:
                message = f"{name}: is not in an audio format the app reads ({readable})"
            raise AudioError(message) from None
        reason = "" if error.code == BAD_FILE else f" ({_reason(error)})"
        raise AudioError(f"{name}: is damaged or cut short and cannot be opened{reason}") from None


def _read_mono(soundfile: ModuleType, sound, frames: int, name: str) -> np.ndarray:
    """Up to ``frames`` frames, each the mean of its channels, read a block at a time; fewer
    where the file stops (or its decoder fails) sooner."""
    blocks = []
    done = 0
    while done < frames:
        try:
            block = sound.read(min(BLOCK_FRAMES, frames - done), dtype="float32", always_2d=True)  # (F, C)
        except soundfile.LibsndfileError as error:
            if done == 0:
                reason = _reason(error)
                raise AudioError(f"{name}: is damaged: no sound can be decoded from it ({reason})") from None
            break  # keep what was decoded before the damage
        if len(block) == 0:
            break
        _check_values(block, done, sound.samplerate, name)
        blocks.append(block.mean(axis=1, dtype=np.float32))  # (F,)
        done += len(block)
    if not blocks:
        raise AudioError(f"{name}: is damaged: no sound can be decoded from it")
    return np.concatenate(blocks)


def _check_values(block: np.ndarray, start: int, rate: int, name: str) -> None:
    """Refuse what no model can hear: NaN or infinite samples, or samples on another scale."""
    finite = np.isfinite(block).all(axis=1)  # (F,)
    if not finite.all():
        index = start + int(np.argmin(finite))
        raise AudioError(f"{name}: sample {index:,} ({index / rate:.3f} s) is not a number (NaN or infinity)")
    peak = float(np.abs(block).max())
    if peak > FULL_SCALE_LIMIT:
        raise AudioError(
            f"{name}: its samples reach {peak:.6g}, far beyond full scale (-1 to 1): "
            "it was saved on another scale"
        )


def _resample(mono: np.ndarray, source_rate: int, rate: int) -> np.ndarray:
    if source_rate == rate:
        return mono
    soxr = _import("soxr")
    return soxr.resample(mono, source_rate, rate, quality="HQ").astype(np.float32, copy=False)


def _wav_header_overstates(sound) -> bool:
    found = WAV_DATA_LOG.search(sound.extra_info) if sound.format in ("WAV", "WAVEX") else None
    if found is None:
        return False
    declared, present = int(found.group(1)), int(found.group(2))
    return present < declared < STREAMING_SIZE


def _looks_like(head: bytes) -> str | None:
    for magic, what in LOOKS_LIKE:
        if head.startswith(magic):
            return what
    if all(byte in TEXT_BYTES for byte in head):
        return "text"
    return None


def _reason(error: Exception) -> str:
    """libsndfile's own short reason, without its "Error : " and final full stop."""
    text = str(getattr(error, "error_string", "") or error).strip()
    return text.removeprefix("Error :").strip().rstrip(".")


def _say_length(seconds: float) -> str:
    """'2 h 0 min', '10 min 3 s', '31.5 s'."""
    if seconds >= 3600:
        hours, minutes = divmod(round(seconds / 60), 60)
        return f"{hours} h {minutes} min"
    if seconds >= 60:
        minutes, whole = divmod(round(seconds), 60)
        return f"{minutes} min {whole} s"
    return f"{seconds:.1f}".removesuffix(".0") + " s"


def _say_list(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"
