"""A speech model's source: an audio file heard as its feature extractor hears it.

The file is read by ``model.audio`` (any common format, resampled to the extractor's rate,
mixed to mono, the first window only), then the model's own feature extractor makes the
log-mel spectrogram its encoder reads ([mel bins, frames], padded with silence to the whole
window). The encoder's positions are time frames: Whisper's convolutions halve the frames, so
each position is ``2 × hop_length / sampling_rate`` seconds (20 ms). The spectrogram is kept as
the axis's picture, so the views draw it under the attention over those positions.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from model.source import (
    AudioSource,
    PreparedSource,
    Source,
    SourceAxis,
    SourceError,
    frame_labels,
    source_kind,
)
from model.speech.timing import first_sounding_frame

FRAMES_PER_POSITION = 2  # Whisper's second convolution has stride 2


def prepare_audio(source: Source, features: Any, positions: int, reader: str) -> PreparedSource:
    """``source`` (an ``AudioSource``) as the encoder of a speech model reads it; SourceError in
    one line for text, a file that is not usable audio, or a model without a feature extractor."""
    if not isinstance(source, AudioSource):
        kind = source_kind(source)
        raise SourceError(f"{reader} hears audio; open an audio file (File > Open audio), not {kind}")
    if features is None:
        raise SourceError(f"{reader} has no feature extractor to hear {source} with")
    from model.audio import AudioError, AudioSupportMissing, load_audio

    rate = int(features.sampling_rate)
    window = float(features.chunk_length)
    try:
        clip = load_audio(source.path, rate=rate, max_seconds=window)
    except (AudioError, AudioSupportMissing) as error:
        raise SourceError(str(error)) from error
    mel = features(clip.samples, sampling_rate=rate, return_tensors="np").input_features[0]  # [bins, frames]
    seconds = FRAMES_PER_POSITION * features.hop_length / rate
    heard = min(positions, math.ceil(len(clip.samples) / (features.hop_length * FRAMES_PER_POSITION)))
    axis = SourceAxis(
        "frames",
        frame_labels(positions, seconds),
        seconds_per_position=seconds,
        picture=np.asarray(mel, dtype=np.float32),
        heard=heard,
        sound_start=min(first_sounding_frame(clip.samples, rate, seconds), max(heard - 1, 0)),
    )
    return PreparedSource(source, axis, features=np.asarray(mel, dtype=np.float32), notice=clip.notice)
