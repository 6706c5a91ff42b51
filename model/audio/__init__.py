"""Audio input for speech models: files read into one mono window at the model's rate.

numpy here; soundfile and soxr (the ``[audio]`` extra) only when a file is read or written.
"""

from model.audio.files import (
    AudioClip,
    AudioError,
    AudioSupportMissing,
    load_audio,
    save_wav,
    supported_suffixes,
)

__all__ = ["AudioClip", "AudioError", "AudioSupportMissing", "load_audio", "save_wav", "supported_suffixes"]
