"""Word timings from cross-attention (model/speech/timing.py): the DTW on matrices whose path is
known, the z-score and median filter against direct computations, word grouping, and the
"input" convention against transformers' own ``generate(..., return_token_timestamps=True)``."""

import time

import numpy as np
import pytest

from model.speech.timing import (
    WordTime,
    alignment_matrix,
    dtw_path,
    first_sounding_frame,
    median_filter,
    token_times,
    word_times,
    zscore_tokens,
)


def sequential_dtw(cost):
    """The textbook recurrence, cell by cell, with openai-whisper's tie rule."""
    rows, cols = cost.shape
    total = np.full((rows + 1, cols + 1), np.inf)
    total[0, 0] = 0.0
    for j in range(1, cols + 1):
        for i in range(1, rows + 1):
            total[i, j] = cost[i - 1, j - 1] + min(total[i - 1, j - 1], total[i - 1, j], total[i, j - 1])
    path, i, j = [], rows, cols
    while i > 0 or j > 0:
        path.append((i - 1, j - 1))
        d, u, left = total[i - 1, j - 1], total[i - 1, j], total[i, j - 1]
        if i and j and d < u and d < left:
            i, j = i - 1, j - 1
        elif j == 0 or (i and u < d and u < left):
            i -= 1
        else:
            j -= 1
    return path[::-1]


def test_dtw_follows_a_staircase_of_cheap_cells():
    # token 0 on frames 0-2, token 1 on frames 3-4, token 2 on frames 5-8
    owner = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2])
    cost = np.ones((3, 9))
    cost[owner, np.arange(9)] = -1.0
    tokens, frames = dtw_path(cost)
    assert frames.tolist() == list(range(9))
    assert tokens.tolist() == owner.tolist()


def test_dtw_with_more_tokens_than_frames_moves_down():
    cost = np.zeros((4, 2))
    tokens, frames = dtw_path(cost)
    assert (tokens[0], frames[0]) == (0, 0) and (tokens[-1], frames[-1]) == (3, 1)
    assert np.all(np.diff(tokens) >= 0) and np.all(np.diff(frames) >= 0)
    assert sorted(set(tokens.tolist())) == [0, 1, 2, 3]


def test_dtw_equals_the_cell_by_cell_recurrence_on_random_matrices():
    rng = np.random.default_rng(0)
    for _ in range(100):
        cost = rng.normal(size=(int(rng.integers(1, 7)), int(rng.integers(1, 25))))
        tokens, frames = dtw_path(cost)
        assert list(zip(tokens.tolist(), frames.tolist(), strict=True)) == sequential_dtw(cost)


def test_zscore_is_over_the_token_axis():
    rng = np.random.default_rng(1)
    w = rng.random((2, 5, 11))
    z = zscore_tokens(w)
    for h in range(2):
        for f in range(11):
            column = w[h, :, f]
            np.testing.assert_allclose(z[h, :, f], (column - column.mean()) / column.std())
    assert np.all(zscore_tokens(np.ones((3, 4))) == 0.0)  # no spread: zeros, not NaN


def test_median_filter_matches_a_direct_window_median_with_reflected_edges():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(3, 20))
    out = median_filter(x, 7)
    padded = np.concatenate([x[:, 3:0:-1], x, x[:, -2:-5:-1]], axis=1)
    direct = np.array([[np.median(padded[r, i : i + 7]) for i in range(20)] for r in range(3)])
    np.testing.assert_allclose(out, direct)
    np.testing.assert_array_equal(median_filter(x[:, :3], 7), x[:, :3])  # too short: unchanged
    with pytest.raises(ValueError):
        median_filter(x, 4)


def test_alignment_matrix_averages_the_chosen_heads_only():
    rng = np.random.default_rng(3)
    cross = rng.random((2, 3, 4, 30))
    matrix = alignment_matrix(cross, [(0, 1), (1, 2)], frames=25, median_width=1)
    expected = (zscore_tokens(cross[0, 1, :, :25]) + zscore_tokens(cross[1, 2, :, :25])) / 2
    np.testing.assert_allclose(matrix, expected)


def diagonal_cross(owner, rows_before=0, layers=1, heads=1):
    """Cross-attention whose row r attends to the frames ``owner`` gives token r - rows_before."""
    tokens = int(owner.max()) + 1
    cross = np.full((layers, heads, tokens + rows_before, len(owner)), 0.01)
    for f, t in enumerate(owner):
        cross[:, :, t + rows_before, f] = 1.0
    return cross


def test_token_times_under_both_conventions():
    owner = np.repeat([0, 1, 2], [10, 15, 25])  # frames 0-9, 10-24, 25-49
    # "predict": row p-1 times token p; the prompt is 2 tokens, so rows 1, 2, 3 time tokens 2, 3, 4
    cross = diagonal_cross(owner, rows_before=1)
    times = token_times(cross, [(0, 0)], frames=50, seconds_per_frame=0.02, median_width=1)
    np.testing.assert_allclose(times, [[0.0, 0.2], [0.2, 0.5], [0.5, 1.0]])
    # "input": row p times token p: rows 2, 3, 4
    cross = diagonal_cross(owner, rows_before=2)
    times = token_times(cross, [(0, 0)], 50, 0.02, convention="input", median_width=1)
    np.testing.assert_allclose(times, [[0.0, 0.2], [0.2, 0.5], [0.5, 1.0]])
    with pytest.raises(ValueError):
        token_times(cross, [(0, 0)], 50, convention="sideways")


def test_first_frame_moves_the_first_token_to_where_the_sound_begins():
    owner = np.repeat([0, 0, 1, 2], [10, 10, 15, 15])  # token 0 sounds from frame 10 on
    cross = diagonal_cross(owner, rows_before=1)
    cross[0, 0, 1, :10] = 0.3  # before the sound, the first row holds a little more than the others
    times = token_times(cross, [(0, 0)], 50, 0.02, median_width=1)
    assert times[0, 0] == 0.0
    times = token_times(cross, [(0, 0)], 50, 0.02, median_width=1, first_frame=10)
    np.testing.assert_allclose(times, [[0.2, 0.4], [0.4, 0.7], [0.7, 1.0]])


def test_first_sounding_frame_finds_the_onset_in_noise():
    rng = np.random.default_rng(6)
    audio = rng.normal(0, 0.005, 16_000)
    audio[5_000:12_000] += np.sin(np.arange(7_000) * 0.2) * 0.5
    assert first_sounding_frame(audio, 16_000) == 5_000 // 320
    assert first_sounding_frame(np.zeros(100), 16_000) == 0


def test_word_times_groups_tokens_into_words():
    texts = [" yel", "low", " dog", ",", " ten", "<|endoftext|>"]
    times = np.array([[0.0, 0.1], [0.1, 0.3], [0.3, 0.6], [0.6, 0.62], [0.7, 0.9], [0.9, 1.0]])
    assert word_times(texts, times) == [
        WordTime("yellow", 0.0, 0.3, (0, 1)),
        WordTime("dog,", 0.3, 0.62, (2, 3)),
        WordTime("ten", 0.7, 0.9, (4,)),
    ]
    # the first word needs no space when a special token comes before it
    assert [w.word for w in word_times(["<|notimestamps|>", "red", " cat"], times[:3])] == ["red", "cat"]


def test_twenty_tokens_over_1500_frames_fit_the_gui_budget():
    cross = np.random.default_rng(4).random((4, 6, 22, 1500)).astype(np.float32)
    took = []
    for _ in range(5):
        begin = time.perf_counter()
        times = token_times(cross, [(2, 1), (3, 0), (3, 4)], 1500)
        took.append(time.perf_counter() - begin)
    assert times.shape == (21, 2)
    # the fastest of five: the cost of the work, not of whatever else the machine runs meanwhile
    assert min(took) < 0.020


@pytest.fixture(scope="module")
def tiny_whisper():
    """A random 2-layer Whisper over 1 s of audio with a tokenizer made here: nothing downloaded."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers import WhisperForConditionalGeneration

    from model.speech.folder import (
        Shape,
        build_config,
        build_feature_extractor,
        build_generation_config,
        build_tokenizer,
    )

    torch.manual_seed(0)
    shape = Shape(d_model=32, encoder_layers=1, decoder_layers=2, heads=4, ffn=64, chunk_seconds=1)
    tokenizer = build_tokenizer(["red", "green", "blue", "cat", "dog"])
    config = build_config(tokenizer, shape)
    config._attn_implementation = "eager"  # weights come back from the eager path only
    model = WhisperForConditionalGeneration(config)
    model.generation_config = build_generation_config(tokenizer, shape, [(0, 1), (1, 0), (1, 3)])
    model.eval()
    return model, tokenizer, build_feature_extractor(shape)


def test_input_convention_reproduces_transformers_token_timestamps(tiny_whisper):
    import torch

    model, tokenizer, feature_extractor = tiny_whisper
    rng = np.random.default_rng(5)
    audio = (rng.normal(size=12_800) * np.sin(np.linspace(0, 30, 12_800)) * 0.2).astype(np.float32)
    inputs = feature_extractor(audio, sampling_rate=16_000, return_tensors="pt", return_attention_mask=True)
    mel_frames = int(inputs.attention_mask.sum())
    with torch.no_grad():
        out = model.generate(
            inputs.input_features,
            attention_mask=inputs.attention_mask,
            return_token_timestamps=True,
            max_new_tokens=12,
        )
    start = model.generation_config.decoder_start_token_id
    prompt = torch.tensor([start, model.generation_config.no_timestamps_token_id])
    written, stamps = out["sequences"][0], out["token_timestamps"][0].numpy()
    if written[0] == start:  # the prompt and its zero times, where generate returns them
        written, stamps = written[2:], stamps[2:]
    with torch.no_grad():
        forward = model(
            input_features=inputs.input_features,
            decoder_input_ids=torch.cat([prompt, written])[None],
            output_attentions=True,
        )
    # generate has no row for the last written token as input (it stops there): drop that row
    cross = torch.stack(forward.cross_attentions)[:, 0, :, :-1].numpy()  # [layers, heads, rows, frames]
    heads = [tuple(h) for h in model.generation_config.alignment_heads]
    ours = token_times(cross, heads, mel_frames // 2, 0.02, convention="input", first_token=2)
    # transformers gives the last token the time of the one before it
    theirs = stamps[: len(written) - 1]
    assert len(ours) == len(theirs) >= 5
    assert ours[0, 0] == 0.0
    np.testing.assert_allclose(ours[:, 0], theirs, atol=0.02 + 1e-6)
