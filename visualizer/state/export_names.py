"""What File > Export suggests: a name after the page, the step and the source. Qt-free."""

from __future__ import annotations

import re
from pathlib import Path

_UNSAFE = re.compile(r"[^\w]+")  # \w keeps letters of every script (Chinese too), digits and _


def export_name(page: str, step: int, source: str, extension: str) -> str:
    """``cross-step5-reverse-attention.png``: the page (or attention kind), the 1-based step
    shown (0 before the first), and the source made safe for a file name (at most 40 characters)."""
    slug = _UNSAFE.sub("-", source).strip("-")[:40].strip("-") or "untitled"
    page = _UNSAFE.sub("-", page).strip("-") or "view"
    return f"{page}-step{max(step, 0)}-{slug}.{extension}"


def suggested_path(folder: str | None, name: str) -> str:
    """``name`` in the last export folder when it still exists, else as a bare name (the dialog's
    own folder)."""
    if folder and Path(folder).is_dir():
        return str(Path(folder) / name)
    return name
