"""Which torch device a name means, and the notice when it is not there (CPU instead)."""

from __future__ import annotations

import torch


def resolve_device(name: str) -> tuple[torch.device, str | None]:
    """The torch device for ``cpu``, ``cuda``, ``mps`` or ``auto``, and a notice on fallback."""
    name = (name or "auto").strip().lower()
    cuda = torch.cuda.is_available()
    mps = getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available()
    if name == "auto":
        return torch.device("cuda" if cuda else "mps" if mps else "cpu"), None
    if name == "cpu":
        return torch.device("cpu"), None
    if name.startswith("cuda"):
        if cuda:
            try:
                device = torch.device(name)
            except RuntimeError as error:
                raise ValueError(f"unknown device {name!r}") from error
            if device.index is None or device.index < torch.cuda.device_count():
                return device, None
            return torch.device("cpu"), f"{name} is not present; using CPU instead"
        return torch.device("cpu"), "CUDA is not available on this machine; using CPU instead"
    if name == "mps":
        if mps:
            return torch.device("mps"), None
        return torch.device("cpu"), "MPS is not available on this machine; using CPU instead"
    raise ValueError(f"unknown device {name!r}: choose cpu, cuda, mps or auto")
