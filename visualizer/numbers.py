"""Numbers as the app and the command line print them.

One rule everywhere: a value that rounds to zero prints as zero, with no sign. Python keeps the
sign of a tiny negative (or of −0.0 itself) when it rounds, so ``f"{-0.00004:.3f}"`` is
``"-0.000"`` and ``f"{0.0:+.3f}"`` is ``"+0.000"``: both read as a number that is not zero, or
not there at all (a log-probability of a certain token, a score of a token that did nothing).
"""

from __future__ import annotations

import math

MISSING = "—"  # a value a method does not give (NaN)


def number(value: float, digits: int = 3, *, signed: bool = False) -> str:
    """``value`` with ``digits`` decimals; ``signed``: a ``+`` before a positive value. Zero
    after rounding prints as ``0.000``; NaN as ``—``; infinities as ``∞`` and ``−∞``."""
    value = float(value)
    if math.isnan(value):
        return MISSING
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    text = f"{value:{'+' if signed else ''}.{digits}f}"
    if float(text) == 0.0:  # rounds to zero: drop the sign rounding left behind
        return f"{0.0:.{digits}f}"
    return text


def percent(value: float, digits: int = 1) -> str:
    """``value`` (a share, 1 = 100 %) as a percentage with ``digits`` decimals, by the same rule."""
    value = float(value)
    if math.isnan(value):
        return MISSING
    if math.isinf(value):
        return number(value)
    text = f"{value:.{digits}%}"
    if float(text[:-1]) == 0.0:
        return f"{0.0:.{digits}%}"
    return text


def score(value: float, digits: int = 3, *, signed: bool = False) -> str:
    """``number``, except that a value too small for ``digits`` decimals but not zero shows its
    first digits and its exponent (``+3.2e-07``): a saturated model's gradients are that small,
    and ``0.000`` three times over would hide which token is first."""
    text = number(value, digits, signed=signed)
    if float(value) != 0.0 and text == number(0.0, digits):
        return f"{float(value):{'+' if signed else ''}.1e}"
    return text
