"""Word times from cross-attention, as openai-whisper's ``timing.py`` finds them: numpy only, for
the GUI thread after every step.

The steps, each a short function below:

1. ``alignment_matrix``: the chosen alignment heads' cross-attention rows, cropped to the frames
   that hold sound, each head z-scored over the token axis (which frame does this token attend
   to more than the other tokens do?), median-filtered along frames, then averaged over heads.
2. ``dtw_path``: the monotonic path through the negated matrix from the first token and frame to
   the last with the least total cost (dynamic time warping).
3. ``token_times``: a token starts at the first frame its row holds on the path and ends where
   the next token starts (the last token ends at the last frame).
4. ``word_times``: tokens grouped into words.

Which row times a token is a convention. "predict" (openai-whisper): the row whose query
*predicts* the token, i.e. the row of the token before it. "input" (transformers'
``generate(..., return_token_timestamps=True)``): the row where the token is the decoder's
*input*; the first text token's row is then the path's first row, so it is always at 0.0 s.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

CONVENTIONS = ("predict", "input")
SPECIAL = re.compile(r"^<\|.*\|>$")
PUNCTUATION = set(".,!?;:'\"%)]}…-")


def zscore_tokens(weights: np.ndarray) -> np.ndarray:
    """``weights [..., tokens, frames]`` less their mean over tokens, over their (population)
    standard deviation over tokens; a frame where every token has the same weight becomes 0."""
    mean = weights.mean(axis=-2, keepdims=True)
    std = weights.std(axis=-2, keepdims=True)
    return (weights - mean) / np.where(std > 0, std, 1.0)


def median_filter(x: np.ndarray, width: int) -> np.ndarray:
    """The median of each ``width`` window along the last axis, edges padded by reflection
    (as transformers and openai-whisper do); an axis no longer than ``width // 2`` is returned as is."""
    if width < 1 or width % 2 != 1:
        raise ValueError(f"the median filter's width must be odd, not {width}")
    half = width // 2
    if width == 1 or x.shape[-1] <= half:
        return x
    padded = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(half, half)], mode="reflect")
    windows = np.lib.stride_tricks.sliding_window_view(padded, width, axis=-1)  # [..., frames, width]
    return np.partition(windows, half, axis=-1)[..., half]


def alignment_matrix(
    cross: np.ndarray, heads: Sequence[tuple[int, int]], frames: int, median_width: int = 7
) -> np.ndarray:
    """``cross [layers, heads, tokens, key frames]`` → ``[tokens, frames]``: the alignment heads'
    rows over the first ``frames`` key frames, z-scored over tokens, median-filtered along
    frames, averaged over heads."""
    if not heads:
        raise ValueError("no alignment heads")
    chosen = np.stack([cross[layer, head, :, :frames] for layer, head in heads]).astype(np.float64)
    return median_filter(zscore_tokens(chosen), median_width).mean(axis=0)


def dtw_path(cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The least-cost monotonic path through ``cost [tokens, frames]`` from (0, 0) to the last
    cell, moving one frame, one token, or both at each step. Returns (token index, frame index),
    one entry per cell on the path. Ties go as openai-whisper's: diagonal only when strictly
    cheaper than both, then token, else frame."""
    tokens, frames = cost.shape
    total = np.full((tokens + 1, frames + 1), np.inf)
    total[0, 0] = 0.0
    for i in range(1, tokens + 1):
        # total[i, j] = cost[i-1, j-1] + min(total[i-1, j-1], total[i-1, j], total[i, j-1]):
        # with a = min of the row above's two and S the prefix sums of this cost row, it unrolls
        # to S[j] + min over k <= j of (a[k] - S[k-1]), a running minimum.
        above = np.minimum(total[i - 1, :-1], total[i - 1, 1:])
        sums = np.concatenate(([0.0], np.cumsum(cost[i - 1], dtype=np.float64)))
        total[i, 1:] = sums[1:] + np.minimum.accumulate(above - sums[:-1])
    path_tokens, path_frames = [], []
    i, j = tokens, frames
    while i > 0 or j > 0:
        path_tokens.append(i - 1)
        path_frames.append(j - 1)
        if i == 0:
            j -= 1
            continue
        if j == 0:
            i -= 1
            continue
        diagonal, up, left = total[i - 1, j - 1], total[i - 1, j], total[i, j - 1]
        if diagonal < up and diagonal < left:
            i, j = i - 1, j - 1
        elif up < diagonal and up < left:
            i -= 1
        else:
            j -= 1
    return np.array(path_tokens[::-1]), np.array(path_frames[::-1])


def timing_rows(rows: int, first_token: int, convention: str) -> slice:
    """Which of ``rows`` decoder query rows time the tokens from position ``first_token`` on."""
    if convention == "predict":
        if first_token < 1:
            raise ValueError("under 'predict' the first timed token needs a row before it")
        return slice(first_token - 1, rows)
    if convention == "input":
        return slice(first_token, rows)
    raise ValueError(f"convention must be one of {CONVENTIONS}, not {convention!r}")


def token_times(
    cross: np.ndarray,
    heads: Sequence[tuple[int, int]],
    frames: int,
    seconds_per_frame: float = 0.02,
    convention: str = "predict",
    first_token: int = 2,
    median_width: int = 7,
    first_frame: int = 0,
) -> np.ndarray:
    """``[T, 2]`` (start, end) seconds of the tokens at sequence positions ``first_token`` on.

    ``cross [layers, heads, rows, key frames]`` holds the decoder's query rows 0..rows-1 (row p:
    position p is the input). ``first_token`` is the first text token's position (2 after
    ``<|startoftranscript|><|notimestamps|>``). Under "predict", row p-1 times token p, so the
    tokens first_token..rows are timed (T = rows - first_token + 1, the last one the token just
    predicted); under "input", row p times token p (T = rows - first_token). ``frames``: the key
    frames that hold sound (Whisper: mel frames // 2); ``seconds_per_frame``: 0.02 for Whisper.

    The path starts at the first frame, so the first token always starts there: at 0.0 s unless
    ``first_frame`` (e.g. from ``first_sounding_frame``) says where the sound begins."""
    selected = cross[:, :, timing_rows(cross.shape[2], first_token, convention)]
    if selected.shape[2] == 0:
        return np.zeros((0, 2))
    first_frame = min(max(0, first_frame), frames - 1)
    matrix = alignment_matrix(selected[..., first_frame:], heads, frames - first_frame, median_width)
    path_tokens, path_frames = dtw_path(-matrix)
    jumps = np.diff(path_tokens, prepend=-1) != 0  # the first cell of each token on the path
    starts = (path_frames[jumps] + first_frame) * seconds_per_frame
    ends = np.append(starts[1:], frames * seconds_per_frame)
    return np.stack([starts, ends], axis=1)


def first_sounding_frame(audio: np.ndarray, sample_rate: int, seconds_per_frame: float = 0.02) -> int:
    """The first key frame whose energy rises above the silence: a threshold 30 % of the way
    (in dB) from the quiet floor (the 10th percentile of frame energies, at most 60 dB below the
    loudest frame) to the loudest frame. What attention cannot tell: where the first word starts."""
    size = max(1, round(seconds_per_frame * sample_rate))
    count = len(audio) // size
    if count == 0:
        return 0
    energy = np.square(audio[: count * size].astype(np.float64)).reshape(count, size).mean(axis=1)
    db = 10.0 * np.log10(energy + 1e-20)
    loudest = db.max()
    floor = max(np.percentile(db, 10), loudest - 60.0)
    return int(np.argmax(db >= floor + 0.3 * (loudest - floor)))


@dataclass(frozen=True)
class WordTime:
    """A word, its start and end in seconds, and the indices of its tokens in the list given."""

    word: str
    start: float
    end: float
    tokens: tuple[int, ...]


def word_times(token_texts: Sequence[str], times: np.ndarray) -> list[WordTime]:
    """Groups timed tokens into words. A word starts at a token beginning with a space, or after a
    special token (``<|...|>``, which belongs to no word); a token of punctuation only joins the
    word before it; any other token continues the current word."""
    groups: list[list[int]] = []
    open_word = False
    for index, text in enumerate(token_texts):
        if SPECIAL.match(text):
            open_word = False
            continue
        joins = open_word and (not text.startswith(" ") or _is_punctuation(text))
        if joins:
            groups[-1].append(index)
        else:
            groups.append([index])
        open_word = True
    words = []
    for group in groups:
        word = "".join(token_texts[i] for i in group).strip()
        if word:
            words.append(WordTime(word, float(times[group[0], 0]), float(times[group[-1], 1]), tuple(group)))
    return words


def _is_punctuation(text: str) -> bool:
    stripped = text.strip()
    return bool(stripped) and all(c in PUNCTUATION for c in stripped)
