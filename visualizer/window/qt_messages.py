"""Qt's own messages, with one known notice left out where it means nothing to the user.

The offscreen platform (what ``--screenshot`` renders with when there is no display) says
"This plugin does not support propagateSizeHints()" for every window it shows: a fact about the
plugin, not a problem of the run. ``dropping(SIZE_HINTS_NOTICE)`` leaves out exactly that
message; every other one is printed as Qt would print it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

SIZE_HINTS_NOTICE = "This plugin does not support propagateSizeHints()"


@contextmanager
def dropping(unwanted: str) -> Iterator[None]:
    """Inside, Qt's message ``unwanted`` (the whole text, exactly) is not printed; the others go
    to the handler installed before, or to stderr in Qt's own format."""
    from PySide6.QtCore import qFormatLogMessage, qInstallMessageHandler

    previous = None

    def handler(kind, context, message: str) -> None:
        if message == unwanted:
            return
        if previous is not None:
            previous(kind, context, message)
        else:
            print(qFormatLogMessage(kind, context, message), file=sys.stderr, flush=True)

    previous = qInstallMessageHandler(handler)
    try:
        yield
    finally:
        qInstallMessageHandler(previous)
