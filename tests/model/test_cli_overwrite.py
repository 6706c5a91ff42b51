"""No command replaces an existing file unless told to with --overwrite."""

import numpy as np
import pytest

from visualizer.cli.attnviz import main


def refused(capsys, path) -> None:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0] and "--overwrite" in err[0], err


@pytest.mark.parametrize("existing", ["t.npz", "t.json"])
def test_trace_keeps_an_existing_trace_or_summary(tiny_checkpoint_path, tmp_path, capsys, existing):
    (tmp_path / existing).write_text("keep me")
    command = ["trace", "--checkpoint", str(tiny_checkpoint_path), "--text", "reverse: ab", "--out"]
    assert main([*command, str(tmp_path / "t.npz")]) == 2
    refused(capsys, tmp_path / existing)
    assert (tmp_path / existing).read_text() == "keep me"
    assert [p.name for p in tmp_path.iterdir()] == [existing]
    assert main([*command, str(tmp_path / "t.npz"), "--overwrite"]) == 0
    assert np.load(tmp_path / "t.npz")["out_ids"].size > 0


def test_eval_json_and_train_out_are_kept(tiny_checkpoint_path, tmp_path, capsys):
    report = tmp_path / "eval.json"
    report.write_text("keep me")
    assert main(["eval", "--checkpoint", str(tiny_checkpoint_path), "--n", "2", "--json", str(report)]) == 2
    refused(capsys, report)
    assert report.read_text() == "keep me"
    checkpoint = tmp_path / "model.safetensors"
    checkpoint.write_bytes(b"my trained model")
    assert main(["train", "--config", "tiny", "--steps", "1", "--out", str(checkpoint)]) == 2
    refused(capsys, checkpoint)
    assert checkpoint.read_bytes() == b"my trained model"


def test_screenshot_keeps_an_existing_picture(tmp_path, capsys):
    picture = tmp_path / "shot.png"
    picture.write_bytes(b"my picture")
    assert main(["--screenshot", str(picture)]) == 2
    refused(capsys, picture)
    assert picture.read_bytes() == b"my picture"


def test_train_keeps_an_existing_training_state(tmp_path, capsys):
    state = tmp_path / "model.safetensors.trainstate.pt"
    state.write_bytes(b"my optimizer state")
    assert (
        main(["train", "--config", "tiny", "--steps", "1", "--out", str(tmp_path / "model.safetensors")]) == 2
    )
    refused(capsys, state)
    assert state.read_bytes() == b"my optimizer state"
