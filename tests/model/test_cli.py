"""The headless command line: traces, exit codes, one-line errors."""

import json
import subprocess
import sys

import numpy as np
import pytest

from model.generation.engine import GenerationEngine
from model.transformer.checkpoint import load_checkpoint
from tests.waits import PROCESS_S
from visualizer.cli.attnviz import main


def test_trace_writes_documented_arrays_and_summary(tiny_checkpoint_path, tmp_path, capsys):
    out = tmp_path / "trace.npz"
    code = main(
        ["trace", "--checkpoint", str(tiny_checkpoint_path), "--text", "reverse: abc", "--out", str(out)]
    )
    assert code == 0
    arrays = np.load(out)
    summary = json.loads((tmp_path / "trace.json").read_text())
    checkpoint = load_checkpoint(tiny_checkpoint_path, "cpu")
    engine = GenerationEngine(checkpoint, "reverse: abc")
    engine.run_to_end()
    config = checkpoint.config
    S, T, V = len("reverse: abc") + 1, len(engine.steps), config.vocab_size
    assert arrays["enc_self"].shape == (config.n_encoder_layers, config.n_heads, S, S)
    assert arrays["dec_self"].shape == (config.n_decoder_layers, config.n_heads, T, T)
    assert arrays["cross"].shape == (config.n_decoder_layers, config.n_heads, T, S)
    assert arrays["probs"].shape == (T, V)
    np.testing.assert_array_equal(arrays["out_ids"], engine.output_ids)
    np.testing.assert_allclose(arrays["cross"][:, :, 2], engine.steps[2].attention["cross"], atol=1e-6)
    np.testing.assert_allclose(
        arrays["dec_self"][:, :, 3, :4], engine.steps[3].attention["dec_self"], atol=1e-6
    )
    assert (np.triu(np.ones((T, T)), 1)[None, None] * arrays["dec_self"] == 0).all()
    assert summary["source_tokens"] == list("reverse: abc") + ["<eos>"]
    assert summary["output_text"] == engine.output_text()
    assert summary["config"]["d_model"] == config.d_model
    assert summary["family"] == "transformer" and list(summary["kinds"]) == ["enc_self", "dec_self", "cross"]
    assert summary["decoding"]["strategy"] == "greedy"
    assert len(summary["timings"]["steps_s"]) == T
    assert capsys.readouterr().out.strip() == engine.output_text()


def test_beam_trace_holds_the_tree(tiny_checkpoint_path, tmp_path):
    out = tmp_path / "beam.npz"
    args = [
        "trace",
        "--checkpoint",
        str(tiny_checkpoint_path),
        "--text",
        "sort: 321",
        "--out",
        str(out),
        "--strategy",
        "beam",
        "--beam",
        "3",
    ]
    assert main(args) == 0
    summary = json.loads(out.with_suffix(".json").read_text())
    tree = summary["beam"]
    assert tree["nodes"][0]["parent"] is None
    arrays = np.load(out)
    assert list(arrays["out_ids"]) == tree["best"][: len(arrays["out_ids"])]


def test_teacher_forced_trace(tiny_checkpoint_path, tmp_path):
    out = tmp_path / "tf.npz"
    assert (
        main(
            [
                "trace",
                "--checkpoint",
                str(tiny_checkpoint_path),
                "--text",
                "sort: 31",
                "--target",
                "13",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    arrays = np.load(out)
    assert arrays["dec_self"].shape[2:] == (3, 3)
    assert arrays["loss"].shape == (3,)
    assert json.loads(out.with_suffix(".json").read_text())["mode"] == "teacher_forced"


@pytest.mark.slow  # a fresh interpreter for each
@pytest.mark.parametrize(
    "args,message",
    [
        (
            ["trace", "--checkpoint", "/nonexistent.safetensors", "--text", "x", "--out", "t.npz"],
            "no such file",
        ),
        (["trace", "--text", "   ", "--out", "t.npz", "--checkpoint", "CKPT"], "empty"),
        (
            ["trace", "--text", "x", "--out", "t.npz", "--strategy", "nope", "--checkpoint", "CKPT"],
            "invalid choice",
        ),
        (["trace", "--text", "x", "--out", "t.npz", "--top-p", "3", "--checkpoint", "CKPT"], "top-p"),
        (["trace", "--text", "x" * 500, "--out", "t.npz", "--checkpoint", "CKPT"], "at most"),
        (
            ["trace", "--text", "x", "--out", "t.npz", "--device", "tpu", "--checkpoint", "CKPT"],
            "unknown device",
        ),
        (["eval", "--n", "0", "--checkpoint", "CKPT"], "--n"),
    ],
)
def test_mistakes_end_with_one_line_and_exit_status_2(args, message, tiny_checkpoint_path, tmp_path):
    args = [str(tiny_checkpoint_path) if a == "CKPT" else a for a in args]
    result = subprocess.run(
        [sys.executable, "-m", "visualizer", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=PROCESS_S,
    )
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "t.npz").exists()


def test_bad_checkpoint_file_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"not a checkpoint at all")
    assert main(["trace", "--checkpoint", str(bad), "--text", "x", "--out", str(tmp_path / "t.npz")]) == 2
    assert "attnviz:" in capsys.readouterr().err


def test_decoding_options_before_the_subcommand_are_kept(tiny_checkpoint_path, tmp_path):
    out = tmp_path / "t.npz"
    args = [
        "--strategy",
        "beam",
        "--beam",
        "2",
        "trace",
        "--checkpoint",
        str(tiny_checkpoint_path),
        "--text",
        "sort: 21",
        "--out",
        str(out),
    ]
    assert main(args) == 0
    summary = json.loads(out.with_suffix(".json").read_text())
    assert summary["decoding"]["strategy"] == "beam" and summary["decoding"]["beam_width"] == 2


def test_eval_reports_every_measure_and_which_targets_are_met(tiny_checkpoint_path, tmp_path, capsys):
    import json

    from visualizer.cli.attnviz import main

    out = tmp_path / "eval.json"
    assert main(["eval", "--checkpoint", str(tiny_checkpoint_path), "--n", "2", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    report = json.loads(out.read_text())
    assert report["date/mm/dd/yyyy"]["n"] == 2 and report["date ambiguous"]["n"] == 2
    assert report["reverse"]["n"] == 2 and any(key.startswith("reverse/") for key in report)
    fruit = report["pick/fruit"]
    assert fruit["data"]["apple"] == 0.35 and 0 <= fruit["total_variation"] <= 1
    assert set(fruit["model"]) == set(fruit["data"])
    assert "below target:" in printed and "pick/fruit" in printed  # random weights meet none
