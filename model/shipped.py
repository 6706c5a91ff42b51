"""Where the shipped checkpoints and data lie. torch-free, so the window can name them before
torch loads.

The Transformer (``default.safetensors``) and the three RNN encoder-decoders of issue 14 lie in
``assets/`` in a source checkout and in the ``model.assets`` package when installed; so do the
accuracy-by-length curves the "Why attention" page draws (``assets/curves/*.json``, written by
``attnviz eval --by-length --json``).
"""

from __future__ import annotations

from pathlib import Path

DEFAULT_CHECKPOINT_NAME = "default.safetensors"
# the shipped RNNs, by file name: what the Why-attention page and the README call them
RNN_CHECKPOINT_NAMES = {
    "none": "rnn-none.safetensors",
    "additive": "rnn-additive.safetensors",
    "scaled_dot": "rnn-scaled-dot.safetensors",
}
CURVES_FOLDER = "curves"
# a replay of the Train page's tiny run on reverse: (16 snapshots, steps 0-1,500; README
# "Watch attention being learned" gives the command that made it)
REPLAY_NAME = "reverse-tiny.replay.safetensors"


def assets_path(name: str) -> Path:
    """A shipped file: package data when installed, ``assets/`` in a source checkout (the
    path may not exist: callers say so)."""
    try:
        from importlib.resources import files

        installed = Path(str(files("model.assets") / name))
        if installed.exists():
            return installed
    except (ModuleNotFoundError, TypeError):
        pass
    return Path(__file__).resolve().parent.parent / "assets" / name


def default_checkpoint_path() -> Path:
    """The shipped Transformer."""
    return assets_path(DEFAULT_CHECKPOINT_NAME)


def rnn_checkpoint_path(score: str) -> Path:
    """The shipped RNN with this score function (``none``, ``additive``, ``scaled_dot``)."""
    return assets_path(RNN_CHECKPOINT_NAMES[score])


def shipped_replay_path() -> Path:
    """The shipped replay: attention forming while the tiny Transformer learns reverse:."""
    return assets_path(REPLAY_NAME)


def curve_paths() -> list[Path]:
    """The shipped accuracy-by-length curves, sorted by file name."""
    folder = assets_path(CURVES_FOLDER)
    return sorted(folder.glob("*.json")) if folder.is_dir() else []
