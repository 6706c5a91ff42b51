"""The attnviz header of a safetensors file, read without torch and without reading the weights.

What a family's ``recognises(path)`` asks ("is this mine?") before anything is opened: the
8-byte length, the JSON header, and our JSON under ``__metadata__["attnviz"]``. Anything
unreadable answers None; opening the file later says what is wrong with it.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

METADATA_KEY = "attnviz"  # the safetensors metadata key that holds our JSON header
MAX_HEADER_BYTES = 16 * 1024**2
REPLAY_KIND = "replay"  # the header's "kind" of a replay (model/tasks/replay.py)


def attnviz_header(path: Path) -> dict | None:
    """The file's attnviz header as a dict, or None (not a file, not safetensors, not ours)."""
    try:
        if not Path(path).is_file():
            return None
        with open(path, "rb") as file:
            prefix = file.read(8)
            if len(prefix) < 8:
                return None
            (length,) = struct.unpack("<Q", prefix)
            if length > MAX_HEADER_BYTES:
                return None
            header = json.loads(file.read(length).decode("utf-8"))
        ours = json.loads(header["__metadata__"][METADATA_KEY])
        return ours if isinstance(ours, dict) else None
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None


def is_replay(path: Path) -> bool:
    """A replay file (many snapshots of one run), not a checkpoint; reads the header only."""
    header = attnviz_header(path)
    return header is not None and header.get("kind") == REPLAY_KIND
