"""Where the shipped checkpoint lies. torch-free, so the window can name it before torch loads."""

from __future__ import annotations

from pathlib import Path

DEFAULT_CHECKPOINT_NAME = "default.safetensors"


def default_checkpoint_path() -> Path:
    """The shipped checkpoint: package data when installed, ``assets/`` in a source checkout."""
    try:
        from importlib.resources import files

        installed = Path(str(files("model.assets") / DEFAULT_CHECKPOINT_NAME))
        if installed.is_file():
            return installed
    except (ModuleNotFoundError, TypeError):
        pass
    return Path(__file__).resolve().parent.parent / "assets" / DEFAULT_CHECKPOINT_NAME
