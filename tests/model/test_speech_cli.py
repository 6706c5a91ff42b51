"""The shipped speech model from the command line: a trace of an example clip with its word
times, and ``attnviz align`` writing a transcript's word times as JSON, CSV and SRT, each
within reach of the words' true times (known from the synthesis)."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from visualizer.cli.align import srt_time
from visualizer.cli.attnviz import main

pytest.importorskip("transformers")
pytest.importorskip("soundfile")

ASSETS = __import__("pathlib").Path(__file__).resolve().parents[2] / "assets"
MODEL = ASSETS / "speech-words"
CLIP = "trained-voice-1.wav"


def truth(name: str) -> dict:
    return next(c for c in json.loads((ASSETS / "audio" / "words.json").read_text()) if c["file"] == name)


def test_a_trace_of_an_example_clip_times_its_words(tmp_path):
    out = tmp_path / "clip.npz"
    assert (
        main(
            ["trace", "--checkpoint", str(MODEL), "--audio", str(ASSETS / "audio" / CLIP), "--out", str(out)]
        )
        == 0
    )
    arrays, summary = np.load(out), json.loads(out.with_suffix(".json").read_text())
    expected = truth(CLIP)
    assert summary["output_text"].strip() == expected["transcript"]
    assert [w["word"] for w in summary["words"]] == expected["transcript"].split()
    times = arrays["token_times"]
    assert times.shape == (len(arrays["out_ids"]), 2)
    assert np.isnan(times[0]).all() and np.isnan(times[-1]).all()  # the prompt and the end token
    starts = [w["start"] for w in summary["words"]]
    true_starts = [w["start"] for w in expected["words"]]
    assert np.median(np.abs(np.subtract(starts, true_starts))) <= 0.08  # the README's figure is 16 ms
    assert summary["word_timing"]["convention"] == "predict"
    assert (
        summary["word_timing"]["alignment_heads"]
        == json.loads((MODEL / "generation_config.json").read_text())["alignment_heads"]
    )


@pytest.mark.parametrize("suffix", [".json", ".csv", ".srt"])
def test_align_writes_the_words_of_a_transcript(tmp_path, suffix, capsys):
    expected = truth(CLIP)
    out = tmp_path / f"words{suffix}"
    argv = ["align", "--checkpoint", str(MODEL), "--audio", str(ASSETS / "audio" / CLIP)]
    assert main([*argv, "--text", expected["transcript"], "--out", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    words = [(line.split()[2], float(line.split()[0]), float(line.split()[1])) for line in printed]
    assert [w for w, _, _ in words] == expected["transcript"].split()
    true_starts = [w["start"] for w in expected["words"]]
    assert np.median(np.abs(np.subtract([s for _, s, _ in words], true_starts))) <= 0.08
    text = out.read_text()
    if suffix == ".json":
        assert [(w["word"], w["start"], w["end"]) for w in json.loads(text)["words"]] == words
    elif suffix == ".csv":
        rows = list(csv.DictReader(text.splitlines()))
        assert [(r["word"], float(r["start"]), float(r["end"])) for r in rows] == words
    else:
        cues = text.strip().split("\n\n")
        assert len(cues) == len(words)
        assert cues[0].splitlines() == [
            "1",
            f"{srt_time(words[0][1])} --> {srt_time(words[0][2])}",
            words[0][0],
        ]


def test_align_refuses_what_it_cannot_time(tmp_path, capsys):
    argv = ["align", "--checkpoint", str(MODEL), "--audio", str(ASSETS / "audio" / CLIP), "--text", "two"]
    assert main([*argv, "--out", str(tmp_path / "words.txt")]) == 2
    assert "--out must end in .json, .csv, .srt" in capsys.readouterr().err
    assert main([*argv[:-2], "--text", "  ", "--out", str(tmp_path / "w.json")]) == 2
    assert srt_time(3723.456) == "01:02:03,456"
