"""The trained checkpoint that ships in assets/: it loads, it is accurate, its attention is legible."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile

import pytest

from model.tasks.analysis import head_roles
from model.tasks.evaluate import evaluate, greedy_decode_batch
from model.tasks.synthetic import DATE_FORMS
from model.transformer.checkpoint import default_checkpoint_path, load_checkpoint


@pytest.fixture(scope="module")
def shipped():
    path = default_checkpoint_path()
    assert path.is_file(), f"the shipped checkpoint {path} is missing"
    return load_checkpoint(path, "cpu")


def test_it_is_the_documented_default_model(shipped):
    config = shipped.config
    assert (config.d_model, config.n_heads, config.n_encoder_layers, config.n_decoder_layers) == (
        128,
        4,
        3,
        3,
    )
    assert config.norm_placement == "post" and config.positional == "sinusoidal"
    assert default_checkpoint_path().stat().st_size < 10 * 1024**2
    assert shipped.metadata["recipe_name"] == "default"


PINNED = {
    "reverse: attention": "noitnetta",
    "reverse: 0123456789abcdefghijklmn": "nmlkjihgfedcba9876543210",
    "sort: 31415926": "11234569",
    "sort: zebra42": "24aberz",
    "date: 29 November 2026": "2026-11-29",
    "date: November 29, 2026": "2026-11-29",
    "date: 29/02/2000": "2000-02-29",
    "date: 1999.12.31": "1999-12-31",
    "date: Sunday, 29 November 2026": "2026-11-29",
    "date: 2026年11月29日": "2026-11-29",
    "date: 二〇二六年十一月二十九日": "2026-11-29",
}


def test_pinned_inputs_decode_to_their_pinned_outputs(shipped):
    outputs = greedy_decode_batch(shipped.model, shipped.tokenizer, list(PINNED))
    assert dict(zip(PINNED, outputs, strict=True)) == PINNED


def test_accuracy_on_a_small_seeded_sample(shipped):
    report = evaluate(shipped.model, shipped.tokenizer, n_per_task=len(DATE_FORMS) * 6, seed=123)
    for task in ("reverse", "sort", "date"):
        assert report.accuracy(task) >= 0.96, report.table()


def test_recorded_held_out_evaluation_meets_the_bar(shipped):
    """The final evaluation that training wrote into the checkpoint (1,000 examples per task)."""
    recorded = shipped.metadata["eval"]
    assert recorded["reverse"]["n"] == 1000
    assert recorded["reverse"]["accuracy"] >= 0.99
    assert recorded["sort"]["accuracy"] >= 0.99
    assert recorded["date"]["accuracy"] >= 0.98
    for form in DATE_FORMS:
        assert recorded[f"date/{form}"]["accuracy"] >= 0.95, form


@pytest.mark.slow
def test_a_cross_attention_head_follows_the_mirrored_character(shipped):
    roles = head_roles(shipped, n=40, seed=5)
    layer, head, share = roles.best_mirror_head()
    assert share >= 0.9, roles.table()


@pytest.mark.packaging
@pytest.mark.slow
def test_the_checkpoint_ships_inside_the_wheel(tmp_path):
    """Installed with pip, the package finds its checkpoint as package data."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            ".",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    wheel = next(tmp_path.glob("attention_visualizer-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        assert "model/assets/default.safetensors" in names
        packaged = archive.read("model/assets/default.safetensors")
    assert packaged == default_checkpoint_path().read_bytes()
    # installed (here into a target folder ahead of the checkout), it is found from the package
    target = tmp_path / "site"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert install.returncode == 0, install.stderr
    probe = (
        # every GUI package is in the wheel, the benchmark's too
        "import visualizer.main_window, visualizer.panels.registry, visualizer.bench.steps; "
        "from model.shipped import default_checkpoint_path as p; print(p())"
    )
    located = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(target), "QT_QPA_PLATFORM": "offscreen"},
    )
    assert located.stdout.strip() == str(target / "model" / "assets" / "default.safetensors"), located.stderr
