"""Shared test set-up. Qt must run offscreen: without a display it aborts the whole process."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import functools  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402

from model.transformer.checkpoint import load_checkpoint, save_checkpoint  # noqa: E402
from tests.factories import small_model  # noqa: E402
from tests.waits import EVENT_MS  # noqa: E402

if os.environ.get("PYTEST_XDIST_WORKER"):
    # Two workers on two cores: torch's own threads would only fight each other's (make test-fast
    # on two workers: 62 s with torch's default threads, 23 s with one). Processes the tests start
    # set their own counts.
    torch.set_num_threads(1)

QTBOT_WAITS = ("waitUntil", "waitSignal", "waitSignals", "waitExposed", "waitActive", "waitCallback")


@pytest.fixture
def qtbot(qtbot):
    """pytest-qt's qtbot, whose waits give up after ``EVENT_MS`` unless told otherwise, not 5 s:
    on a busy machine (two copies of the suite at once) a step can take longer than that."""
    for name in QTBOT_WAITS:
        setattr(qtbot, name, functools.partial(getattr(qtbot, name), timeout=EVENT_MS))
    return qtbot


@pytest.fixture
def tiny():
    return small_model()


@pytest.fixture(scope="session")
def tiny_checkpoint_path(tmp_path_factory):
    """A small random-weight model, saved once per test run."""
    model, tokenizer = small_model(seed=1)
    path = tmp_path_factory.mktemp("ckpt") / "tiny.safetensors"
    save_checkpoint(path, model, tokenizer, {"note": "random weights for tests"})
    return path


@pytest.fixture
def toy_path(tmp_path):
    """A model of the test family (tests/families/toy.py), registered for the test only."""
    from model.registry import register_family, unregister_family
    from tests.families.toy import ENTRY, write_toy

    register_family(ENTRY)
    yield write_toy(tmp_path)
    unregister_family("toy")


@pytest.fixture
def tiny_checkpoint(tiny_checkpoint_path):
    return load_checkpoint(tiny_checkpoint_path, "cpu")


@pytest.fixture(scope="session")
def hf_folders(tmp_path_factory):
    """A tiny random Hugging Face model folder of each kind tests/hf_factories.py builds, once
    per run (skips without the [hf] extra)."""
    hf_factories = pytest.importorskip("tests.hf_factories")
    root = tmp_path_factory.mktemp("hf")
    return {kind: hf_factories.write_hf_model(kind, root / kind) for kind in hf_factories.KINDS}


@pytest.fixture(scope="session")
def whisper_folder(tmp_path_factory):
    """A tiny random Whisper folder (model, tokenizer, feature extractor), once per run."""
    hf_factories = pytest.importorskip("tests.hf_factories")
    pytest.importorskip("soundfile")
    pytest.importorskip("soxr")
    return hf_factories.write_hf_model("whisper", tmp_path_factory.mktemp("hf") / "whisper")


@pytest.fixture(scope="session")
def hf_families(hf_folders):
    """Each of ``hf_folders`` opened by the app; tests that change a family open their own."""
    from model.hf.loading import open_hf

    return {kind: open_hf(folder, "cpu") for kind, folder in hf_folders.items()}


def pytest_collection_modifyitems(items) -> None:
    """Every test under tests/visualizer needs Qt: mark it ``gui`` (``make test-fast`` skips them)."""
    for item in items:
        if "visualizer" in item.path.parts:
            item.add_marker(pytest.mark.gui)
