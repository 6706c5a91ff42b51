"""Whether a family's forward pass builds a graph for gradients.

Stepping, tracing and evaluating never need gradients, so the families run under
``torch.no_grad``. Attribution (``model.attribution``) differentiates the same forward pass:
inside ``differentiable()`` the families' ``no_grad_unless_differentiating`` methods keep
their graph, everywhere else they do not. One switch for every family, so that attribution
needs no second copy of any forward pass.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

import torch

_differentiating: ContextVar[bool] = ContextVar("differentiating", default=False)
Function = TypeVar("Function", bound=Callable)


@contextmanager
def differentiable() -> Iterator[None]:
    """Run the families' forward passes with gradients (and torch's grad mode on)."""
    token = _differentiating.set(True)
    try:
        with torch.enable_grad():
            yield
    finally:
        _differentiating.reset(token)


def no_grad_unless_differentiating(function: Function) -> Function:
    """``torch.no_grad`` for ``function``, except inside ``differentiable()``."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if _differentiating.get():
            return function(*args, **kwargs)
        with torch.no_grad():
            return function(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
