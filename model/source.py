"""What a model reads, as the user gives it and as the model's family prepares it.

The user gives a ``Source``: text (a ``str``, as it always was) or a file of another medium
(``AudioSource``; images come next). The family of the loaded model prepares it
(``ModelFamily.prepare_source``) into a ``PreparedSource``: the inputs its encoder takes, and a
``SourceAxis`` saying what the encoder's positions are, which are the keys of every attention
over the source: text tokens with their labels, time frames with seconds per frame, image
patches in a grid. The engine, probes, traces, session and views carry these values and never
look inside the medium themselves; a view draws the axis by its kind.

A family that cannot read a source says why in its own words (``SourceError``), e.g. a text
model given an audio file, or an audio file too short to hear.

Plain data, no torch: the window holds sources and axes before torch is loaded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Union

if TYPE_CHECKING:
    import numpy as np  # only named: the command line's --version imports this, and must stay light

    from model.interface import Tokenizer

AxisKind = Literal["tokens", "frames", "patches"]


class SourceError(ValueError):
    """The source cannot be run by this model; the message says why in one line."""


@dataclass(frozen=True)
class AudioSource:
    """An audio file to be heard by a speech model."""

    path: str

    kind = "audio"

    def __str__(self) -> str:
        return Path(self.path).name


# a source as the user gives it: text, or a file of another medium
Source = Union[str, AudioSource]  # noqa: UP007 (a runtime alias, also for Python 3.10's isinstance)


def source_kind(source: Source) -> str:
    """ "text", or the medium of a file source ("audio")."""
    return "text" if isinstance(source, str) else source.kind


def source_label(source: Source) -> str:
    """How a source is named in titles, messages and traces: the text itself, or the file's name."""
    return source if isinstance(source, str) else str(source)


@dataclass(frozen=True)
class SourceAxis:
    """The encoder's positions, which every attention over the source has as its keys.

    ``tokens``: text tokens, ``labels`` their texts. ``frames``: stretches of time, each
    ``seconds_per_position`` long from 0 s, ``labels`` their start times; ``picture`` holds what
    a view draws under them (a log-mel spectrogram [bins, columns], its columns spanning the same
    time as the positions). ``patches``: an image cut into a ``grid`` (rows, columns) of patches.
    """

    kind: AxisKind
    labels: tuple[str, ...]  # one per position
    seconds_per_position: float = 0.0  # frames
    grid: tuple[int, int] = (0, 0)  # patches: rows, columns
    picture: np.ndarray | None = field(default=None, compare=False)  # frames: [bins, columns]
    # frames: how many positions hold the source's own sound (the rest is padding silence)
    heard: int | None = None
    sound_start: int = 0  # frames: the position where the sound begins (after leading silence)

    def __len__(self) -> int:
        return len(self.labels)

    def time_of(self, position: float) -> float:
        """Seconds from the start at ``position`` (frames only; a fractional position is inside one)."""
        return position * self.seconds_per_position


def frame_labels(count: int, seconds_per_position: float) -> tuple[str, ...]:
    """Each frame's start time, as an axis labels it: ``0.00 s``, ``0.02 s``, …"""
    return tuple(f"{i * seconds_per_position:.2f} s" for i in range(count))


@dataclass(frozen=True)
class PreparedSource:
    """A source as a family prepared it for its encoder."""

    source: Source
    axis: SourceAxis
    ids: tuple[int, ...] = ()  # text: the tokens the encoder reads (special tokens included)
    unknown: tuple[tuple[int, str], ...] = ()  # text: (position in the text, text) of each unknown piece
    features: np.ndarray | None = field(default=None, compare=False)  # other media: the encoder's input
    notice: str | None = None  # one line to say when the source is opened ("the first 30 s")


def prepare_text(source: Source, tokenizer: Tokenizer, max_source_len: int, reader: str) -> PreparedSource:
    """A text source as a text family's encoder reads it: the tokenizer's ids (with its end
    marker), labelled by ``token_text``; refused when empty, longer than ``max_source_len``
    tokens, or not text at all (``reader`` names the model in that message)."""
    if not isinstance(source, str):
        raise SourceError(f"{reader} reads text; it cannot read {source} (an {source_kind(source)} file)")
    if not source:
        raise SourceError("the source is empty: type some text, e.g. 'reverse: attention'")
    encoded = tokenizer.encode_source(source)
    tokens = len(encoded.ids)
    if tokens > max_source_len:
        if tokens == len(source) + 1:  # one token per character, then the end marker
            raise SourceError(
                f"the source has {len(source)} characters; this model reads at most {max_source_len - 1}"
            )
        raise SourceError(f"the source is {tokens} tokens long; this model reads at most {max_source_len}")
    labels = tuple(tokenizer.token_text(i) for i in encoded.ids)
    return PreparedSource(source, SourceAxis("tokens", labels), tuple(encoded.ids), tuple(encoded.unknown))
