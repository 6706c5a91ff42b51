"""A small speech model trained here: synthetic spoken words with known times (espeak-ng), a
Whisper-compatible model folder, its training and evaluation, and word timings read from
cross-attention by dynamic time warping (``timing``, numpy only)."""
