"""Where each written word lies in the audio, from a speech model's cross-attention.

The recipe is openai-whisper's (``model.speech.timing``: the alignment heads' rows z-scored,
median-filtered, averaged, aligned to the frames by dynamic time warping), applied here to what
the engine recorded: a generation's step rows, or a teacher-forced run of a given transcript
(``attnviz align``). The alignment heads are the model's own (``generation_config.alignment_heads``)
or, where it names none, every head of the decoder's last half, as openai-whisper does.

By default a token is timed by the row that *predicts* it (openai-whisper), and the first word
starts where the sound begins (attention alone cannot say; it would put it at 0.0 s); the
shipped speech model measured 16 ms median word-start error this way against 450 ms for the
"input" convention that transformers' ``return_token_timestamps`` uses (README, "Speech").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from model.generation.forced_records import TeacherForcedRecord
from model.generation.records import GenerationSnapshot
from model.interface import FamilyInfo, ModelFamily, Tokenizer
from model.speech.timing import WordTime, token_times, word_times

DEFAULT_CONVENTION = "predict"


def default_alignment_heads(layers: int, heads: int) -> list[tuple[int, int]]:
    """Every head of the decoder's last half (openai-whisper's default for a model without its own)."""
    return [(layer, head) for layer in range(layers // 2, layers) for head in range(heads)]


@dataclass(frozen=True)
class Timing:
    """Each output position's [start, end] in seconds (NaN where a token is not timed: the
    prompt, the end token), and the words they make."""

    token_times: np.ndarray  # [T, 2]
    words: list[WordTime]
    heads: tuple[tuple[int, int], ...]
    convention: str


def time_tokens(
    cross: np.ndarray,
    sequence_texts: Sequence[str],
    first_token: int,
    heard: int,
    seconds_per_position: float,
    heads: Sequence[tuple[int, int]],
    convention: str = DEFAULT_CONVENTION,
    first_frame: int = 0,
    timed_until: int | None = None,
) -> Timing:
    """Times of the tokens of a decoder sequence from its cross-attention rows.

    ``cross [layers, heads, rows, keys]``: row p is the decoder reading sequence position p (the
    start token at 0). ``sequence_texts``: each position's text (with its leading space), the
    start token first; ``first_token``: the first text token's position (after the prompt).
    ``heard``: the key positions holding the file's sound. ``timed_until``: the positions at and
    after it are not text (the end token). Returns times per *output* position p - 1."""
    rows = cross.shape[2]
    outputs = len(sequence_texts) - 1  # the positions after the start token
    times = np.full((outputs, 2), np.nan)
    last = min(timed_until if timed_until is not None else len(sequence_texts), len(sequence_texts))
    if rows == 0 or first_token >= last or heard < 1:
        return Timing(times, [], tuple(heads), convention)
    timed = token_times(
        cross, heads, heard, seconds_per_position, convention, first_token, first_frame=first_frame
    )  # [tokens first_token.., 2]
    count = min(len(timed), last - first_token)
    times[first_token - 1 : first_token - 1 + count] = timed[:count]
    texts = list(sequence_texts[first_token : first_token + count])
    words = word_times(texts, timed[:count])
    shifted = [WordTime(w.word, w.start, w.end, tuple(t + first_token - 1 for t in w.tokens)) for w in words]
    return Timing(times, shifted, tuple(heads), convention)


def alignment_heads_of(info: FamilyInfo) -> list[tuple[int, int]]:
    """The model's alignment heads, or every head of its decoder's last half."""
    if info.alignment_heads:
        return list(info.alignment_heads)
    kind = info.alignment_kind
    return default_alignment_heads(kind.layers, kind.heads) if kind is not None else []


def piece_texts(tokenizer: Tokenizer, ids: Sequence[int]) -> list[str]:
    """Each token's text as it joins the others (with its space), for grouping into words."""
    piece = getattr(tokenizer, "piece_text", None) or tokenizer.token_text
    return [piece(int(i)) for i in ids]


def generation_timing(
    snapshot: GenerationSnapshot,
    heads: Sequence[tuple[int, int]] | None = None,
    convention: str = DEFAULT_CONVENTION,
) -> Timing | None:
    """Word times of a generation so far (None: its source is not time frames, or the model
    has no attention over it); provisional while it runs, as later tokens move the path. Plain
    numpy on the records: the window calls it on its own thread after every step."""
    axis, kind, tokenizer = snapshot.encoder.source_axis, snapshot.info.alignment_kind, snapshot.tokenizer
    if axis.kind != "frames" or kind is None or not snapshot.steps:
        return None
    cross = np.stack([s.attention[kind.name] for s in snapshot.steps], axis=2)  # [L, H, T, S]
    sequence = [tokenizer.bos_id, *snapshot.output_ids]
    # by position: a prompt token the user forced (another language) is still the prompt
    first_token = 1 + min(len(snapshot.steps), snapshot.info.prompt_length)
    eos = tokenizer.eos_id
    until = sequence.index(eos, 1) if eos in sequence[1:] else None
    return time_tokens(
        cross,
        piece_texts(tokenizer, sequence),
        first_token,
        axis.heard or len(axis),
        axis.seconds_per_position,
        heads if heads is not None else alignment_heads_of(snapshot.info),
        convention,
        axis.sound_start if convention == "predict" else 0,
        until,
    )


def forced_timing(
    model: ModelFamily,
    record: TeacherForcedRecord,
    heads: Sequence[tuple[int, int]] | None = None,
    convention: str = DEFAULT_CONVENTION,
) -> Timing | None:
    """Word times of a given transcript (a teacher-forced run, ``attnviz align``): the rows of
    the decoder reading it whole, timed as a generation's are."""
    axis, kind = record.encoder.source_axis, model.info.alignment_kind
    if axis.kind != "frames" or kind is None:
        return None
    item = record.item
    real = int((~item.target_padding).sum())  # the decoder's real rows: start, prompt, text
    cross = item.attention[kind.name].weights[:, :, :real]  # [L, H, rows, S]
    sequence = [int(i) for i in item.input_ids[:real]] + [model.tokenizer.eos_id]
    return time_tokens(
        cross,
        piece_texts(model.tokenizer, sequence),
        1 + model.info.prompt_length,
        axis.heard or len(axis),
        axis.seconds_per_position,
        heads if heads is not None else alignment_heads_of(model.info),
        convention,
        axis.sound_start if convention == "predict" else 0,
        len(sequence) - 1,
    )
